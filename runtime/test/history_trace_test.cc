// The execution-time history file and Chrome traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fw/runtime.h"
#include "runtime_internal.h"
#include "task_test_util.h"
#include "test_util.h"

namespace {

using fwtest::makeU64Buffer;
using fwtest::submit;

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

void touchTask(void *, void *const *data, size_t num) {
  for (size_t i = 0; i < num; ++i) static_cast<uint64_t *>(data[i])[0] += 1;
}

fw_runtime_options_t historyOptions(const std::string &path) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 2);
  o.history_path = path.c_str();
  return o;
}

// Runs `count` tasks named `name`, each touching one 64-element buffer.
void runTasks(fw_runtime_t *rt, const char *name, int count) {
  fw_buffer_t *b = makeU64Buffer(rt, 64);
  for (int i = 0; i < count; ++i)
    FW_EXPECT_OK(submit(rt, name, touchTask, nullptr, {{b, FW_ACCESS_READ_WRITE}}));
  FW_EXPECT_OK(fw_runtime_wait_all(rt));
  EXPECT_EQ(fwtest::readU64(b)[0], uint64_t(count));
  fw_buffer_release(b);
}

// ---- History ----------------------------------------------------------------------

TEST(HistoryTest, SavedAtDestructionAndLoadedAgain) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string path = dir.file("history.txt");
  fw_runtime_options_t o = historyOptions(path);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));  // a missing file is fine
  runTasks(rt, "k", 10);
  fw_runtime_destroy(rt);

  std::string text = slurp(path);
  ASSERT_EQ(text.rfind("fw-history 3\n", 0), 0u) << text;
  // kind 1 (cpu), size class 9 (512 bytes), 10 samples, each sample's ratio to the
  // device model (the model has an estimate for every run: the bytes), then the name.
  size_t at = text.find("\n1 9 10 10 ");
  ASSERT_NE(at, std::string::npos) << text;
  std::istringstream line(text.substr(at + 1, text.find('\n', at + 1) - at - 1));
  std::vector<std::string> fields;
  for (std::string field; line >> field;) fields.push_back(field);
  ASSERT_EQ(fields.size(), 4u + 20u + 1u) << text;
  for (size_t i = 4; i < 24; ++i) EXPECT_GT(std::stod(fields[i]), 0) << text;
  EXPECT_EQ(fields[24], "k");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"history.txt"});  // nothing left beside it

  // Loaded by the next runtime, merged with its new samples and saved again.
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  runTasks(rt, "k", 5);
  runTasks(rt, "other task", 3);
  std::string copy = dir.file("copy.txt");
  FW_ASSERT_OK(fw_runtime_save_history(rt, copy.c_str()));
  fw_runtime_destroy(rt);
  std::string saved = slurp(copy);
  EXPECT_NE(saved.find("\n1 9 15 15 "), std::string::npos) << saved;
  EXPECT_NE(saved.find(" other task\n"), std::string::npos) << saved;
  EXPECT_EQ(slurp(path), saved);  // destruction saved the same history
}

// Runs that save one history at once (here two runtimes, each from its own thread) each
// write a file of their own and rename it over it: a reader sees one whole history at
// every moment, never lines of both, and nothing is left beside it.
TEST(HistoryTest, SavesAtOnceNeverMixTheirFiles) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string path = dir.file("history.txt");
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 2);
  fw_runtime_t *rts[2] = {nullptr, nullptr};
  const char *names[2] = {"first", "second"};
  for (int r = 0; r < 2; ++r) {
    FW_ASSERT_OK(fw_runtime_create(&o, &rts[r]));
    runTasks(rts[r], names[r], 40);  // histories of different lengths
    for (int k = 0; k < 20 * r; ++k) {
      std::string name = "extra " + std::to_string(k);
      runTasks(rts[r], name.c_str(), 1);
    }
  }
  std::atomic<bool> stop{false};
  std::atomic<int> whole{0}, torn{0};
  std::thread reader([&] {
    while (!stop) {
      std::string text = slurp(path);
      if (text.empty()) continue;  // not there yet
      bool first = text.find(" first\n") != std::string::npos;
      bool second = text.find(" second\n") != std::string::npos;
      if (text.rfind("fw-history 3\n", 0) == 0 && text.back() == '\n' && first != second)
        ++whole;
      else
        ++torn;
    }
  });
  std::vector<std::thread> savers;
  for (fw_runtime_t *rt : rts)
    savers.emplace_back([rt, &path] {
      for (int i = 0; i < 200; ++i) FW_EXPECT_OK(fw_runtime_save_history(rt, path.c_str()));
    });
  for (std::thread &t : savers) t.join();
  stop = true;
  reader.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_GT(whole.load(), 0);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"history.txt"});
  fw_runtime_t *loaded = nullptr;
  fw_runtime_options_t load = historyOptions(path);
  FW_EXPECT_OK(fw_runtime_create(&load, &loaded));
  fw_runtime_destroy(loaded);
  for (fw_runtime_t *rt : rts) fw_runtime_destroy(rt);
}

// The scheduler's estimate for a size class without samples is the device model times
// the ratio of measured to modelled time at the nearest classes of the same task: the
// runs record what the model expected of them.
TEST(HistoryTest, EstimatesOfNewSizesAreCalibrated) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 1);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  runTasks(rt, "k", 8);  // 512 bytes: size class 9
  fw_scheduler_t *s = &rt->sched;
  ASSERT_GE(s->num_workers, 1u);
  const fw_worker_t *w = &s->workers[0];
  fw_task_t t;
  std::memset(&t, 0, sizeof(t));
  char k[] = "k", never_run[] = "never run";
  t.name = k;
  t.data_bytes = 512;
  double measured = fw_scheduler_estimate(s, &t, w);  // the history's median
  double model = fw_scheduler_model_seconds(s, &t, w);
  ASSERT_GT(measured, 0);
  ASSERT_GT(model, 0);
  // 64 KiB (class 16): no samples; the model scaled by the ratio of class 9.
  t.data_bytes = 65536;
  double ratio = 0;
  ASSERT_TRUE(fw_history_model_ratio(&rt->history, "k", w->kind, 512, &ratio));
  EXPECT_GT(ratio, 0);
  EXPECT_DOUBLE_EQ(fw_scheduler_estimate(s, &t, w), fw_scheduler_model_seconds(s, &t, w) * ratio);
  EXPECT_GT(fw_scheduler_model_seconds(s, &t, w), model);  // the model grows with the bytes
  // Another task: the model alone.
  t.name = never_run;
  EXPECT_DOUBLE_EQ(fw_scheduler_estimate(s, &t, w), fw_scheduler_model_seconds(s, &t, w));
  fw_runtime_destroy(rt);
}

TEST(HistoryTest, MalformedFilesAreRejected) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string path = dir.file("history.txt");
  fw_runtime_options_t o = historyOptions(path);
  fw_runtime_t *rt = nullptr;
  struct Case {
    const char *text;
    std::string error;
  } cases[] = {
      {"fw-history 1\n# comment\n\n1 2 x\n", "history file '" + path + "', line 4: malformed entry"},
      {"fw-history 1\n1 3 2 2 0.5 -1 k\n", "history file '" + path + "', line 2: malformed sample 2"},
      {"fw-history 1\n1 3 2 2 0.5 nan k\n", "line 2: malformed sample 2"},
      {"fw-history 1\n1 3 1 1 0.5\n", "history file '" + path + "', line 2: missing task name"},
      {"fw-history 1\n1 3 1 33 0.5 k\n", "line 2: malformed entry"},  // more than 32 samples
      {"fw-history 1\n1 3 1 2 0.5 0.5 k\n", "line 2: malformed entry"},  // n > count
      {"fw-history 1\n1 99 1 1 0.5 k\n", "line 2: malformed entry"},    // size class
      {"fw-history 1\n1 64 1 1 0.5 k\n", "line 2: malformed entry"},    // size class
      {"fw-history 2\n1 3 2 2 0.5 0.5 1 -1 k\n", "line 2: malformed model ratio 2"},
      {"fw-history 2\n1 3 2 2 0.5 0.5 1 inf k\n", "line 2: malformed model ratio 2"},
      {"fw-history 2\n1 3 2 2 0.5 0.5 1 k\n", "line 2: malformed model ratio 2"},
      {"fw-history 2\n1 3 1 1 0.5 1\n", "line 2: missing task name"},
      {"fw-history 3\nlink 1 k\n", "line 2: malformed link (expected 'link BYTES NANOSECONDS DEVICE')"},
      {"fw-history 3\nlink 1 2\n", "line 2: malformed link"},  // no device
      {"fw-history 3\nlink -1 2 cuda:0 x\n", "line 2: malformed link"},
      {"fw-history 3\nlink 1 0 cuda:0 x\n", "line 2: malformed link"},
      {"fw-history 3\nlink 0 5 cuda:0 x\n", "line 2: malformed link"},
      {"fw-history 2\nlink 1 2 cuda:0 x\n", "line 2: malformed entry"},  // not in format 2
      {"fw-history 4\n", "'" + path + "' is not an fw history file"},
      // Integers are digits only, in range: scanf would wrap "-1" and saturate 2^64.
      {"fw-history 1\n-1 3 1 1 0.5 k\n", "line 2: malformed entry (expected 'KIND SIZE_CLASS COUNT N'"},
      {"fw-history 1\n0 3 1 1 0.5 k\n", "line 2: malformed entry"},  // no such device kind
      {"fw-history 1\n4 3 1 1 0.5 k\n", "line 2: malformed entry"},
      {"fw-history 1\n1 3 -5 1 0.5 k\n", "line 2: malformed entry"},
      {"fw-history 1\n1 3 18446744073709551616 1 0.5 k\n", "line 2: malformed entry"},
      {"fw-history 1\n1 +3 1 1 0.5 k\n", "line 2: malformed entry"},
      {"fw-history 3\nlink 99999999999999999999 5 cuda:0 x\n", "line 2: malformed link"},
      // Values that would make schedules overflow.
      {"fw-history 1\n1 3 1 1 1e308 k\n", "line 2: malformed sample 1 (expected a number from 0 to 86400)"},
      {"fw-history 2\n1 3 1 1 0.5 1e7 k\n", "line 2: malformed model ratio 1 (expected a number from 0 to 1e+06)"},
  };
  for (const Case &c : cases) {
    writeFile(path, c.text);
    rt = nullptr;
    FW_EXPECT_ERROR(fw_runtime_create(&o, &rt), c.error);
    EXPECT_EQ(rt, nullptr);
  }
  // A line the reader cannot hold whole.
  writeFile(path, "fw-history 1\n1 3 1 1 0.5 " + std::string(5000, 'k') + "\n");
  FW_EXPECT_ERROR(fw_runtime_create(&o, &rt), "line 2: longer than 4095 bytes");
  // Names the save would drop (too long for it, control characters) or that a NUL would
  // cut short: refused, with the line, rather than loaded and lost at the next save.
  writeFile(path, "fw-history 1\n1 3 1 1 0.5 " + std::string(2000, 'k') + "\n");
  FW_EXPECT_ERROR(fw_runtime_create(&o, &rt),
                  "line 2: the task name is longer than 1024 bytes or holds control characters");
  writeFile(path, "fw-history 1\n1 3 1 1 0.5 tab\there\n");
  FW_EXPECT_ERROR(fw_runtime_create(&o, &rt), "line 2: the task name is longer than 1024");
  writeFile(path, std::string("fw-history 1\n1 3 1 1 0.5 cut\0short\n", 33));
  FW_EXPECT_ERROR(fw_runtime_create(&o, &rt), "line 2: holds a NUL byte");
  writeFile(path, "fw-history 3\nlink 1 2 " + std::string(1100, 'g') + "\n");
  FW_EXPECT_ERROR(fw_runtime_create(&o, &rt), "line 2: the device name is longer than 1024");
  EXPECT_EQ(rt, nullptr);
  // A directory where the file should be.
  std::string sub = dir.file("sub");
  ASSERT_EQ(mkdir(sub.c_str(), 0700), 0);
  o.history_path = sub.c_str();
  // fopen of a directory for reading succeeds on Linux; reading it fails: either way
  // creation must not succeed silently with garbage.
  fw_status_t s = fw_runtime_create(&o, &rt);
  if (s == nullptr) fw_runtime_destroy(rt);
  fw_status_free(s);
}

// Loads `text` as a history file into a runtime and returns what that runtime saves.
std::string roundTrip(fwtest::TempDir &dir, const std::string &name, const std::string &text) {
  std::string path = dir.file(name + ".txt"), copy = dir.file(name + "-copy.txt");
  writeFile(path, text);
  fw_runtime_options_t o = historyOptions(path);
  fw_runtime_t *rt = nullptr;
  FW_EXPECT_OK(fw_runtime_create(&o, &rt));
  if (!rt) return "";
  FW_EXPECT_OK(fw_runtime_save_history(rt, copy.c_str()));
  fw_runtime_destroy(rt);
  return slurp(copy);
}

TEST(HistoryTest, WellFormedEdgeCasesLoad) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string path = dir.file("history.txt");
  // An entry without samples, a name with spaces, no final newline.
  writeFile(path,
            "fw-history 1\n"
            "# kind size_class count n samples... name\n"
            "1 3 0 0 empty\n"
            "1 9 40 3 0.001 0.002 0.003 name with spaces");
  fw_runtime_options_t o = historyOptions(path);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  std::string copy = dir.file("copy.txt");
  FW_ASSERT_OK(fw_runtime_save_history(rt, copy.c_str()));
  std::string saved = slurp(copy);
  // A file of the first format (no model ratios) loads; it is saved in the third.
  EXPECT_EQ(saved.rfind("fw-history 3\n", 0), 0u) << saved;
  EXPECT_NE(saved.find(" 0.001 0.002 0.003 0 0 0 name with spaces\n"), std::string::npos)
      << saved;
  EXPECT_NE(saved.find(" empty\n"), std::string::npos) << saved;
  // A full ring keeps the count of samples ever recorded.
  std::string full = "fw-history 1\n1 4 100 32";
  for (int i = 0; i < 32; ++i) full += " 0.5";
  full += " full\n";
  std::string saved_full = roundTrip(dir, "full", full);
  EXPECT_NE(saved_full.find("1 4 100 32 0.5"), std::string::npos) << saved_full;
  // The second format keeps each sample's model ratio.
  std::string v2 = roundTrip(dir, "v2", "fw-history 2\n2 9 3 3 0.001 0.002 0.003 2 2.5 0 calibrated\n");
  EXPECT_NE(v2.find("\n2 9 3 3 0.001 0.002 0.003 2 2.5 0 calibrated\n"), std::string::npos) << v2;
  // Windows line ends load (the name does not keep the carriage return).
  std::string crlf = roundTrip(dir, "crlf", "fw-history 3\r\n1 3 1 1 0.5 1 windows\r\n");
  EXPECT_NE(crlf.find("\n1 3 1 1 0.5 1 windows\n"), std::string::npos) << crlf;
  // A last line that fills the reader's buffer (4095 bytes), no newline after it, loads.
  std::string name(1024, 'n'), line = "1 5 32 32";
  for (int i = 0; i < 64; ++i) line += " 0.5";
  line += " " + name;
  line.insert(line.find(" 0.5") + 4, std::string(4095 - line.size(), '0'));  // 0.5000...
  ASSERT_EQ(line.size(), 4095u);
  std::string edge = roundTrip(dir, "edge", "fw-history 2\n" + line);
  EXPECT_NE(edge.find(" 0.5 " + name + "\n"), std::string::npos) << edge.size();
  // The third keeps the links measured; a device this machine lacks is kept too.
  std::string v3 = roundTrip(dir, "v3", "fw-history 3\nlink 67108864 5000000 cuda:1 Some GPU\n");
  EXPECT_NE(v3.find("\nlink 67108864 5000000 cuda:1 Some GPU\n"), std::string::npos) << v3;
  FW_EXPECT_ERROR(fw_runtime_save_history(rt, "/nonexistent/dir/history.txt"),
                  "cannot write the history file");
  FW_EXPECT_ERROR(fw_runtime_save_history(rt, nullptr), "path is NULL");
  FW_EXPECT_ERROR(fw_runtime_save_history(nullptr, copy.c_str()), "runtime is NULL");
  fw_runtime_destroy(rt);
}

// ---- Traces -----------------------------------------------------------------------

// A strict JSON syntax check (RFC 8259), enough to know a trace viewer can load it.
class JsonChecker {
 public:
  explicit JsonChecker(const std::string &s) : s_(s) {}
  bool valid() {
    skip();
    if (!value()) return false;
    skip();
    return i_ == s_.size();
  }
  size_t where() const { return i_; }

 private:
  void skip() {
    while (i_ < s_.size() && std::strchr(" \t\r\n", s_[i_])) ++i_;
  }
  bool literal(const char *word) {
    size_t n = std::strlen(word);
    if (s_.compare(i_, n, word) != 0) return false;
    i_ += n;
    return true;
  }
  bool string() {
    if (s_[i_] != '"') return false;
    for (++i_; i_ < s_.size(); ++i_) {
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return false;
      if (c == '\\') {
        if (++i_ >= s_.size()) return false;
        char e = s_[i_];
        if (e == 'u') {
          for (int k = 0; k < 4; ++k)
            if (++i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_])))
              return false;
        } else if (!std::strchr("\"\\/bfnrt", e)) {
          return false;
        }
      }
    }
    return false;
  }
  bool number() {
    size_t start = i_;
    if (s_[i_] == '-') ++i_;
    if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) return false;
    if (s_[i_] == '0') ++i_;
    else while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) return false;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) return false;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    return i_ > start;
  }
  bool value() {
    if (i_ >= s_.size() || ++depth_ > 64) return false;
    bool ok;
    char c = s_[i_];
    if (c == '{') ok = container('}', true);
    else if (c == '[') ok = container(']', false);
    else if (c == '"') ok = string();
    else if (c == 't') ok = literal("true");
    else if (c == 'f') ok = literal("false");
    else if (c == 'n') ok = literal("null");
    else ok = number();
    --depth_;
    return ok;
  }
  bool container(char close, bool object) {
    ++i_;
    skip();
    if (i_ < s_.size() && s_[i_] == close) {
      ++i_;
      return true;
    }
    for (;;) {
      skip();
      if (object) {
        if (i_ >= s_.size() || !string()) return false;
        skip();
        if (i_ >= s_.size() || s_[i_++] != ':') return false;
        skip();
      }
      if (!value()) return false;
      skip();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (s_[i_] != close) return false;
      ++i_;
      return true;
    }
  }

  const std::string &s_;
  size_t i_ = 0;
  int depth_ = 0;
};

// ---- Profiles --------------------------------------------------------------------

TEST(ProfileTest, CountsRunsPerTaskAndSaysWhereCountersComeFrom) {
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 2);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  fw_profile_info_t info;
  FW_EXPECT_ERROR(fw_runtime_profile(rt, &info, nullptr, nullptr), "not profiling");
  fw_runtime_destroy(rt);

  o.flags |= FW_RUNTIME_PROFILE;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  runTasks(rt, "touch", 7);
  runTasks(rt, "other", 2);
  struct Seen {
    std::vector<std::string> tasks;
    uint64_t touch = 0;
    bool ordered = true;
  } seen;
  FW_ASSERT_OK(fw_runtime_profile(rt, &info, [](void *user, const fw_profile_entry_t *e) {
    auto *s = static_cast<Seen *>(user);
    s->tasks.push_back(e->task);
    if (std::string(e->task) == "touch") s->touch += e->count;
    uint64_t histogram = 0;
    for (uint32_t b = 0; b < FW_PROFILE_BUCKETS; ++b) histogram += e->histogram[b];
    // C tasks are not kernels: no workgroups.
    s->ordered = s->ordered && e->device == FW_TARGET_KIND_CPU && histogram == e->count &&
                 e->min_seconds <= e->max_seconds && e->total_seconds >= e->max_seconds &&
                 e->workgroups == 0;
  }, &seen));
  EXPECT_EQ(info.cpu_workers, 2u);
  EXPECT_EQ(seen.touch, 7u);
  EXPECT_EQ(seen.tasks.size(), 2u);
  EXPECT_TRUE(seen.ordered);
  // Hardware counters where the machine allows them, else the kernel's software ones.
  EXPECT_LE(info.num_counters, unsigned(FW_PROFILE_MAX_COUNTERS));
  if (info.source == FW_COUNTERS_SOFTWARE) {
    ASSERT_EQ(info.num_counters, 3u);
    EXPECT_STREQ(info.counter_names[0], "task-clock-ns");
  } else if (info.source == FW_COUNTERS_HARDWARE) {
    ASSERT_EQ(info.num_counters, 4u);
    EXPECT_STREQ(info.counter_names[0], "cycles");
  } else {
    EXPECT_EQ(info.num_counters, 0u);
  }
  fw_runtime_destroy(rt);
}

TEST(JsonCheckerTest, SelfTest) {
  EXPECT_TRUE(JsonChecker("{\"a\":[1,-2.5e3,\"x\\u00e9\\n\",true,null,{}]}").valid());
  EXPECT_FALSE(JsonChecker("{\"a\":[1,2,]}").valid());
  EXPECT_FALSE(JsonChecker("{\"a\":\"x\ny\"}").valid());
  EXPECT_FALSE(JsonChecker("{\"a\":1}}").valid());
  EXPECT_FALSE(JsonChecker("{\"a\":01}").valid());
  EXPECT_FALSE(JsonChecker("[\"\\q\"]").valid());
}

size_t countOf(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(TraceTest, WritesChromeJson) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_WS, 2);
  o.flags = FW_RUNTIME_TRACE;
  o.tier_limits = "host=64KiB";  // copies to and from storage show up too
  o.storage_dir = dir.path().c_str();
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  std::vector<fw_buffer_t *> bufs;
  for (int i = 0; i < 6; ++i) bufs.push_back(makeU64Buffer(rt, 2048, std::vector<uint64_t>(2048, i)));
  for (int round = 0; round < 2; ++round)
    for (fw_buffer_t *b : bufs)
      FW_ASSERT_OK(submit(rt, "traced-task", touchTask, nullptr, {{b, FW_ACCESS_READ_WRITE}}));
  // Names are escaped.
  FW_ASSERT_OK(submit(rt, "odd \"name\"\\\t", touchTask, nullptr, {{bufs[0], FW_ACCESS_READ_WRITE}}));
  // A long name is cut at a character boundary (54 ASCII bytes, then a 2-byte character
  // that would straddle the 55-byte limit).
  std::string long_name = std::string(54, 'x') + "\xc3\xa9-and-more";
  FW_ASSERT_OK(submit(rt, long_name.c_str(), touchTask, nullptr, {{bufs[0], FW_ACCESS_READ_WRITE}}));
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  // A failure's reason is kept whole, however long, and escaped.
  std::string reason = "driver said \"no\"\n" + std::string(300, 'r');
  fw_trace_add_detail(&rt->trace, 0, "failed", reason.c_str(), rt->trace.origin_ns,
                      rt->trace.origin_ns + 1000);
  std::string path = dir.file("trace.json");
  FW_ASSERT_OK(fw_runtime_write_trace(rt, path.c_str()));
  std::string text = slurp(path);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text[0], '{');
  EXPECT_NE(text.find("\"name\":\"failed\",\"args\":{\"reason\":\"driver said \\\"no\\\"\\u000a" +
                      std::string(300, 'r') + "\"}"),
            std::string::npos);
  JsonChecker json(text);
  EXPECT_TRUE(json.valid()) << "invalid JSON at byte " << json.where() << ":\n" << text;
  EXPECT_NE(text.find("\"traceEvents\""), std::string::npos);
  EXPECT_EQ(countOf(text, "\"name\":\"traced-task\""), 12u);
  EXPECT_NE(text.find("odd \\\"name\\\"\\\\\\u0009"), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"" + std::string(54, 'x') + "\""), std::string::npos);
  EXPECT_NE(text.find("\"cpu worker 0\""), std::string::npos);
  EXPECT_NE(text.find("\"cpu worker 1\""), std::string::npos);
  EXPECT_NE(text.find("\"copy host -> storage\""), std::string::npos);
  // Storage copies name their kind of I/O (16 KiB buffers: below direct I/O's threshold).
  EXPECT_GE(countOf(text, "\"name\":\"copy (page cache)\""), 1u);
  EXPECT_EQ(countOf(text, "\"name\":\"copy (direct I/O)\""), 0u);

  FW_EXPECT_ERROR(fw_runtime_write_trace(rt, "/nonexistent/dir/trace.json"),
                  "cannot write the trace '/nonexistent/dir/trace.json'");
  FW_EXPECT_ERROR(fw_runtime_write_trace(rt, nullptr), "path is NULL");
  FW_EXPECT_ERROR(fw_runtime_write_trace(nullptr, path.c_str()), "runtime is NULL");
  for (fw_buffer_t *b : bufs) fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

// Each task's run in the trace carries what the runtime expected of it before it counted:
// the device model until the history has 3 samples, then their median.
TEST(TraceTest, RunsShowWhatWasExpected) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 1);
  o.flags = FW_RUNTIME_TRACE;
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  fw_task_t t;
  std::memset(&t, 0, sizeof(t));
  char name[] = "k";
  t.name = name;
  t.data_bytes = 512;  // what runTasks' tasks touch
  double model = fw_scheduler_model_seconds(&rt->sched, &t, &rt->sched.workers[0]);
  for (int i = 0; i < 5; ++i) runTasks(rt, "k", 1);  // one at a time
  std::string path = dir.file("trace.json");
  FW_ASSERT_OK(fw_runtime_write_trace(rt, path.c_str()));
  std::string text = slurp(path);
  EXPECT_TRUE(JsonChecker(text).valid()) << text;
  std::vector<double> runs, expected;
  // (a run the waiting thread made in the worker's place says so after the estimate)
  std::regex event(
      "\\{[^{}]*\"dur\":([0-9.]+),\"name\":\"k\",\"args\":\\{\"expected_us\":([0-9.]+)"
      "(,\"run_by\":\"waiting thread\")?\\}\\}");
  for (std::sregex_iterator m(text.begin(), text.end(), event), end; m != end; ++m) {
    runs.push_back(std::stod((*m)[1].str()));
    expected.push_back(std::stod((*m)[2].str()));
  }
  ASSERT_EQ(runs.size(), 5u) << text;
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(expected[i], model * 1e6, 0.001);
  std::vector<double> first(runs.begin(), runs.begin() + 3);
  std::sort(first.begin(), first.end());
  EXPECT_NEAR(expected[3], first[1], 0.002);  // the median of 3
  std::vector<double> four(runs.begin(), runs.begin() + 4);
  std::sort(four.begin(), four.end());
  EXPECT_NEAR(expected[4], (four[1] + four[2]) / 2, 0.002);  // of 4
  fw_runtime_destroy(rt);
}

// Each dependency is a flow from the end of its first task's run to the start of its
// second's, on their tracks: a chain of three tasks on one buffer, then a task after the
// last by an explicit edge (fw_task_desc_t.after).
TEST(TraceTest, DependenciesAreFlowsBetweenRuns) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 2);
  o.flags = FW_RUNTIME_TRACE;
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  fw_buffer_t *b = makeU64Buffer(rt, 16);
  // The first waits until all are submitted: an edge goes only to a task not finished yet.
  static std::atomic<bool> open;
  open = false;
  fw_task_t *last = nullptr;
  for (int i = 0; i < 3; ++i) {
    std::string name = "step-" + std::to_string(i);
    fw_task_fn_t fn = touchTask;
    if (i == 0)
      fn = [](void *, void *const *data, size_t num) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!open.load() && std::chrono::steady_clock::now() < deadline)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        touchTask(nullptr, data, num);
      };
    FW_ASSERT_OK(submit(rt, name.c_str(), fn, nullptr, {{b, FW_ACCESS_READ_WRITE}},
                        i == 2 ? &last : nullptr));
  }
  FW_ASSERT_OK(submit(rt, "step-3", touchTask, nullptr, {}, nullptr, {last}));
  fw_task_release(last);
  open = true;
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  std::string path = dir.file("trace.json");
  FW_ASSERT_OK(fw_runtime_write_trace(rt, path.c_str()));
  std::string text = slurp(path);
  EXPECT_TRUE(JsonChecker(text).valid()) << text;
  struct Span {
    int tid;
    double ts, dur;
  };
  std::map<int, Span> runs;  // step number -> its run
  std::regex run("\\{\"ph\":\"X\",\"pid\":1,\"tid\":([0-9]+),\"ts\":([0-9.]+),"
                 "\"dur\":([0-9.]+),\"name\":\"step-([0-9])\"");
  for (std::sregex_iterator m(text.begin(), text.end(), run), end; m != end; ++m)
    runs[std::stoi((*m)[4].str())] = {std::stoi((*m)[1].str()), std::stod((*m)[2].str()),
                                       std::stod((*m)[3].str())};
  ASSERT_EQ(runs.size(), 4u) << text;
  std::map<int, Span> starts, finishes;  // flow id -> its two ends
  std::regex flow("\\{\"ph\":\"([sf])\",(?:\"bp\":\"e\",)?\"pid\":1,\"tid\":([0-9]+),"
                  "\"ts\":([0-9.]+),\"id\":([0-9]+),\"cat\":\"dependency\"");
  for (std::sregex_iterator m(text.begin(), text.end(), flow), end; m != end; ++m) {
    Span at = {std::stoi((*m)[2].str()), std::stod((*m)[3].str()), 0};
    ((*m)[1].str() == "s" ? starts : finishes)[std::stoi((*m)[4].str())] = at;
  }
  ASSERT_EQ(starts.size(), 3u) << text;
  ASSERT_EQ(finishes.size(), 3u) << text;
  // Flow k leaves step k's run before it ends and enters step k+1's where it starts.
  std::set<int> linked;
  for (const auto &[id, from] : starts) {
    ASSERT_TRUE(finishes.count(id)) << id;
    const Span &to = finishes[id];
    for (int k = 0; k < 3; ++k) {
      const Span &a = runs[k], &next = runs[k + 1];
      if (from.tid == a.tid && from.ts >= a.ts - 0.0015 && from.ts <= a.ts + a.dur + 0.0015 &&
          to.tid == next.tid && std::abs(to.ts - next.ts) < 0.0015)
        linked.insert(k);
    }
  }
  EXPECT_EQ(linked, (std::set<int>{0, 1, 2})) << text;
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

TEST(TraceTest, NeedsTheFlag) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_EAGER, 1);
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  runTasks(rt, "untraced", 3);
  std::string path = dir.file("trace.json");
  FW_EXPECT_ERROR(fw_runtime_write_trace(rt, path.c_str()), "FW_RUNTIME_TRACE");
  EXPECT_FALSE(std::ifstream(path).good());
  fw_runtime_destroy(rt);
}

TEST(TraceTest, SimulatedTrace) {
  fwtest::TempDir dir;
  ASSERT_TRUE(dir.ok());
  fw_sim_device_t d[2];
  std::memset(d, 0, sizeof(d));
  d[0].name = "cpu";
  d[0].kind = FW_TARGET_KIND_CPU;
  d[0].workers = 2;
  d[0].gflops = 10;
  d[1].name = "gpu0";
  d[1].kind = FW_TARGET_KIND_CUDA;
  d[1].workers = 1;
  d[1].gflops = 100;
  d[1].link_gbps = 10;
  fw_sim_machine_t m = {2, d};
  fw_runtime_options_t o = fwtest::taskOptions(FW_SCHEDULER_HEFT, 0);
  o.simulate = &m;
  o.flags = FW_RUNTIME_TRACE;
  fw_runtime_t *rt = nullptr;
  FW_ASSERT_OK(fw_runtime_create(&o, &rt));
  fw_buffer_t *a = makeU64Buffer(rt, 1 << 16), *b = makeU64Buffer(rt, 1 << 16);
  for (int i = 0; i < 4; ++i) {
    fw_task_desc_t t;
    std::memset(&t, 0, sizeof(t));
    t.name = "sim-task";
    t.flops = 1e9;
    fw_task_access_t acc[2] = {{a, FW_ACCESS_READ}, {b, FW_ACCESS_READ_WRITE}};
    t.accesses = acc;
    t.num_accesses = 2;
    FW_ASSERT_OK(fw_task_submit(rt, &t, nullptr));
  }
  FW_ASSERT_OK(fw_runtime_wait_all(rt));
  std::string path = dir.file("sim.json");
  FW_ASSERT_OK(fw_runtime_write_trace(rt, path.c_str()));
  std::string text = slurp(path);
  EXPECT_TRUE(JsonChecker(text).valid()) << text;
  EXPECT_EQ(countOf(text, "\"name\":\"sim-task\""), 4u);
  EXPECT_NE(text.find("\"gpu0 worker 2\""), std::string::npos);
  fw_buffer_release(a);
  fw_buffer_release(b);
  fw_runtime_destroy(rt);
}

}  // namespace
