// fw-run-make-bad-files GOOD.fwb DIR: writes corrupt inputs for the fw-run tests:
// empty.fwb, random.fwb (deterministic bytes), truncated.fwb, flipped.fwb.
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

static bool write(const std::string &path, const std::vector<char> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  return bool(out);
}

int main(int argc, char **argv) {
  if (argc != 3) return 1;
  std::ifstream in(argv[1], std::ios::binary);
  std::vector<char> good(std::istreambuf_iterator<char>(in), {});
  if (good.size() < 1000) return 1;
  std::string dir = argv[2];
  std::vector<char> random(8192);
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for (char &c : random) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    c = char(s);
  }
  std::vector<char> truncated(good.begin(), good.begin() + long(good.size() / 2));
  std::vector<char> flipped = good;
  flipped[flipped.size() / 3] ^= 0x20;
  return write(dir + "/empty.fwb", {}) && write(dir + "/random.fwb", random) &&
                 write(dir + "/truncated.fwb", truncated) &&
                 write(dir + "/flipped.fwb", flipped)
             ? 0
             : 1;
}
