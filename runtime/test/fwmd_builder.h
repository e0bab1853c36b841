// Test helper: serialises metadata tables (docs/fat-binary.md, version 1.0 to 1.4) and seals
// .fwb files. Used by the unit tests and by the fixture generator.
#ifndef FW_RUNTIME_TEST_FWMD_BUILDER_H_
#define FW_RUNTIME_TEST_FWMD_BUILDER_H_

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace fwtest {

struct Value {
  uint32_t element_type = 1;
  std::vector<int64_t> dims;
};
struct Target {
  uint32_t kind = 1;
  std::string arch = "x86-64", triple = "x86_64-unknown-linux-gnu", features;
};
struct Function {
  std::string name, symbol;
  std::vector<Value> args, results;
};
struct Binding {
  uint32_t access = 1;
  Value type;
};
struct Variant {
  uint32_t target = 0, kind = 1;
  std::string kernel;
  uint32_t image = 0xFFFFFFFFu;
  uint32_t workgroup_size[3] = {1, 1, 1};
  std::string config; // minor 2: written when some variant has one
};
struct CostTerm {  // minor 3: coefficient × the product of (binding, dim) sizes
  uint64_t coefficient = 1;
  std::vector<std::pair<uint16_t, uint16_t>> factors;
};
struct Executable {
  std::string name;
  std::vector<Binding> bindings;
  std::vector<Variant> variants;
  uint64_t cost_flops = 0, cost_bytes = 0;
  uint32_t priority = 0;
  uint32_t flags = 0; // minor 2
  std::vector<CostTerm> cost_terms; // minor 3
  std::vector<std::string> checks;  // minor 4: the messages of its kernels' checks
};
struct Image {
  uint32_t target = 0, format = 1;
  uint64_t offset = 0, size = 0;
};
struct Module {
  std::string name = "test";
  uint32_t abi_version = 1;
  uint16_t version_major = 1, version_minor = 0;
  std::vector<Target> targets;
  std::vector<Function> functions;
  std::vector<Executable> executables;
  std::vector<Image> images;
};

// Header field offsets.
enum : size_t {
  kOffMagic = 0, kOffMajor = 4, kOffMinor = 6, kOffHeaderSize = 8, kOffTotalSize = 12,
  kOffAbi = 16, kOffFlags = 20, kOffStrings = 24, kOffTargets = 32, kOffFunctions = 40,
  kOffValues = 48, kOffDims = 56, kOffExecutables = 64, kOffBindings = 72,
  kOffVariants = 80, kOffImages = 88, kOffModuleName = 96, kOffSourceId = 104,
  kOffVariantConfigs = 112, kOffCostTerms = 120, kHeaderSize = 128, kOffChecks = 128,
  kHeaderSizeMinor4 = 136,
};

inline void put32(std::vector<uint8_t> &b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
inline void put64(std::vector<uint8_t> &b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
inline uint32_t get32(const std::vector<uint8_t> &b, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(b[at + i]) << (8 * i);
  return v;
}

class Writer {
 public:
  std::vector<uint8_t> serialize(const Module &m) {
    // Flatten.
    for (const Function &f : m.functions) {
      FnRec r;
      r.name = str(f.name);
      r.symbol = str(f.symbol);
      r.first_arg = uint32_t(values_.size());
      for (const Value &v : f.args) value(v);
      r.num_args = uint32_t(f.args.size());
      r.first_result = uint32_t(values_.size());
      for (const Value &v : f.results) value(v);
      r.num_results = uint32_t(f.results.size());
      fns_.push_back(r);
    }
    std::vector<uint8_t> execs, bindings, variants, configs, terms, checks;
    bool has_configs = false;
    for (const Executable &e : m.executables) {
      for (const std::string &message : e.checks) {
        size_t ct = checks.size();
        checks.resize(ct + 16);
        put32(checks, ct, uint32_t(execs.size() / 48));
        auto text = str(message);
        put32(checks, ct + 8, text.first);
        put32(checks, ct + 12, text.second);
      }
      for (const CostTerm &t : e.cost_terms) {
        size_t tt = terms.size();
        terms.resize(tt + 48);
        put32(terms, tt, uint32_t(execs.size() / 48));
        put32(terms, tt + 4, uint32_t(t.factors.size()));
        put64(terms, tt + 8, t.coefficient);
        for (size_t k = 0; k < t.factors.size() && k < 8; ++k) {
          terms[tt + 16 + 4 * k] = uint8_t(t.factors[k].first);
          terms[tt + 17 + 4 * k] = uint8_t(t.factors[k].first >> 8);
          terms[tt + 18 + 4 * k] = uint8_t(t.factors[k].second);
          terms[tt + 19 + 4 * k] = uint8_t(t.factors[k].second >> 8);
        }
      }
      size_t at = execs.size();
      execs.resize(at + 48);
      auto s = str(e.name);
      put32(execs, at, s.first);
      put32(execs, at + 4, s.second);
      put32(execs, at + 8, uint32_t(bindings.size() / 8));
      put32(execs, at + 12, uint32_t(e.bindings.size()));
      put32(execs, at + 16, uint32_t(variants.size() / 32));
      put32(execs, at + 20, uint32_t(e.variants.size()));
      put64(execs, at + 24, e.cost_flops);
      put64(execs, at + 32, e.cost_bytes);
      put32(execs, at + 40, e.priority);
      put32(execs, at + 44, e.flags);
      for (const Binding &b : e.bindings) {
        size_t bt = bindings.size();
        bindings.resize(bt + 8);
        put32(bindings, bt, b.access);
        put32(bindings, bt + 4, value(b.type));
      }
      for (const Variant &v : e.variants) {
        size_t vt = variants.size();
        variants.resize(vt + 32);
        put32(variants, vt, v.target);
        put32(variants, vt + 4, v.kind);
        auto k = str(v.kernel);
        put32(variants, vt + 8, k.first);
        put32(variants, vt + 12, k.second);
        put32(variants, vt + 16, v.image);
        for (int i = 0; i < 3; ++i) put32(variants, vt + 20 + 4 * i, v.workgroup_size[i]);
        size_t ct = configs.size();
        configs.resize(ct + 8);
        auto c = str(v.config);
        put32(configs, ct, c.first);
        put32(configs, ct + 4, c.second);
        has_configs |= !v.config.empty();
      }
    }
    std::vector<uint8_t> targets;
    for (const Target &t : m.targets) {
      size_t at = targets.size();
      targets.resize(at + 32);
      put32(targets, at, t.kind);
      auto a = str(t.arch), tr = str(t.triple), fe = str(t.features);
      put32(targets, at + 8, a.first);
      put32(targets, at + 12, a.second);
      put32(targets, at + 16, tr.first);
      put32(targets, at + 20, tr.second);
      put32(targets, at + 24, fe.first);
      put32(targets, at + 28, fe.second);
    }
    std::vector<uint8_t> images;
    for (const Image &im : m.images) {
      size_t at = images.size();
      images.resize(at + 24);
      put32(images, at, im.target);
      put32(images, at + 4, im.format);
      put64(images, at + 8, im.offset);
      put64(images, at + 16, im.size);
    }
    auto module_name = str(m.name);
    std::vector<uint8_t> fns(fns_.size() * 32), vals(values_.size() * 16),
        dims(dims_.size() * 8);
    for (size_t i = 0; i < fns_.size(); ++i) {
      const FnRec &r = fns_[i];
      put32(fns, i * 32, r.name.first);
      put32(fns, i * 32 + 4, r.name.second);
      put32(fns, i * 32 + 8, r.symbol.first);
      put32(fns, i * 32 + 12, r.symbol.second);
      put32(fns, i * 32 + 16, r.first_arg);
      put32(fns, i * 32 + 20, r.num_args);
      put32(fns, i * 32 + 24, r.first_result);
      put32(fns, i * 32 + 28, r.num_results);
    }
    for (size_t i = 0; i < values_.size(); ++i) {
      put32(vals, i * 16, values_[i][0]);
      put32(vals, i * 16 + 4, values_[i][1]);
      put32(vals, i * 16 + 8, values_[i][2]);
    }
    for (size_t i = 0; i < dims_.size(); ++i) put64(dims, i * 8, uint64_t(dims_[i]));

    size_t header = m.version_minor >= 4 ? kHeaderSizeMinor4 : kHeaderSize;
    std::vector<uint8_t> out(header, 0);
    std::memcpy(out.data(), "FWMD", 4);
    out[kOffMajor] = uint8_t(m.version_major);
    out[kOffMajor + 1] = uint8_t(m.version_major >> 8);
    out[kOffMinor] = uint8_t(m.version_minor);
    put32(out, kOffHeaderSize, uint32_t(header));
    put32(out, kOffAbi, m.abi_version);
    auto append = [&](size_t field, const std::vector<uint8_t> &bytes, size_t record) {
      while (out.size() % 8) out.push_back(0);
      put32(out, field, uint32_t(out.size()));
      put32(out, field + 4, uint32_t(bytes.size() / record));
      out.insert(out.end(), bytes.begin(), bytes.end());
    };
    append(kOffTargets, targets, 32);
    append(kOffFunctions, fns, 32);
    append(kOffValues, vals, 16);
    append(kOffDims, dims, 8);
    append(kOffExecutables, execs, 48);
    append(kOffBindings, bindings, 8);
    append(kOffVariants, variants, 32);
    append(kOffImages, images, 24);
    if (has_configs) append(kOffVariantConfigs, configs, 8);
    if (!terms.empty()) append(kOffCostTerms, terms, 48);
    if (!checks.empty() && m.version_minor >= 4) append(kOffChecks, checks, 16);
    append(kOffStrings, pool_, 1);
    put32(out, kOffModuleName, module_name.first);
    put32(out, kOffModuleName + 4, module_name.second);
    while (out.size() % 8) out.push_back(0);
    put32(out, kOffTotalSize, uint32_t(out.size()));
    return out;
  }

 private:
  struct FnRec {
    std::pair<uint32_t, uint32_t> name, symbol;
    uint32_t first_arg = 0, num_args = 0, first_result = 0, num_results = 0;
  };
  std::pair<uint32_t, uint32_t> str(const std::string &s) {
    auto it = strings_.find(s);
    if (it != strings_.end()) return {it->second, uint32_t(s.size())};
    uint32_t at = uint32_t(pool_.size());
    pool_.insert(pool_.end(), s.begin(), s.end());
    pool_.push_back(0);
    strings_[s] = at;
    return {at, uint32_t(s.size())};
  }
  uint32_t value(const Value &v) {
    uint32_t index = uint32_t(values_.size());
    values_.push_back({v.element_type, uint32_t(v.dims.size()), uint32_t(dims_.size())});
    dims_.insert(dims_.end(), v.dims.begin(), v.dims.end());
    return index;
  }
  std::vector<uint8_t> pool_;
  std::map<std::string, uint32_t> strings_;
  std::vector<FnRec> fns_;
  std::vector<std::vector<uint32_t>> values_;
  std::vector<int64_t> dims_;
};

inline std::vector<uint8_t> serialize(const Module &m) { return Writer().serialize(m); }

// Appends the .fwb trailer to `payload`.
inline std::vector<uint8_t> seal(std::vector<uint8_t> payload) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : payload) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  size_t n = payload.size();
  payload.resize(n + 32, 0);
  std::memcpy(&payload[n], "FWBTRAIL", 8);
  put32(payload, n + 8, 1);
  put64(payload, n + 16, n);
  put64(payload, n + 24, h);
  return payload;
}

// The signature the fixture module implements: (?x4xf32, ?x4xf32) -> (?x4xf32).
inline Function addFunction(const std::string &name, const std::string &symbol) {
  Value v{1, {-1, 4}};
  return Function{name, symbol, {v, v}, {v}};
}

// The metadata of the fixture module (fixture_module.c) in one of its flavours:
//   "add"      one function @add and one executable with a CPU variant;
//   "multi"    @add plus entries that exercise the error paths of the host ABI;
//   "badisa"   like "add" with an unknown ISA level;
//   "identity" @add and @identity(a, b) -> a (a result that is an argument);
//   "nosym"    a function whose entry symbol is missing;
//   "libcsym"  a kernel symbol that only resolves in libc;
//   "gpuonly"  the executable has only a CUDA variant (image in .llvm.offloading);
//   "gpubadimage" like "gpuonly" with an image that overruns .llvm.offloading;
//   "split"    like "add" with a kernel that divides its rows among workgroups
//              (workgroup shape 0,0,0) and adds 1000 x the workgroup count;
//   "v1table"  like "add", host-call ABI version 1, with the 9-entry function table
//              (__fw_rt_table) a module of that version has;
//   "shorttable" the same table, but the metadata says version 2 (which has 10).
// "multi" is of version 2 (it calls fw_rt_dispatch_after), the others of version 1.
// The gpu flavours carry a 64-byte .llvm.offloading section (kFixtureOffloadSize).
constexpr size_t kFixtureOffloadSize = 64;

inline bool fixtureHasOffload(const std::string &flavour) {
  return flavour == "gpuonly" || flavour == "gpubadimage";
}

inline Module fixtureModule(const std::string &flavour) {
  Module m;
  m.name = flavour;
  Target t;
  t.arch = flavour == "badisa" ? "x86-64-v9" : "x86-64";
  m.targets.push_back(t);
  m.functions.push_back(addFunction("add", "__fw_entry_add"));
  if (flavour == "multi") {
    for (const char *n : {"bad_dispatch", "no_result", "leak", "bad_arg", "wrong_binding",
                          "bad_handle", "early_stop", "wrong_result", "bad_token",
                          "release_arg", "double_result", "add_after", "bad_after"})
      m.functions.push_back(addFunction(n, std::string("__fw_entry_") + n));
  }
  if (flavour == "multi" || flavour == "shorttable") m.abi_version = 2;
  if (flavour == "identity")  // add, and identity(a, b) -> a
    m.functions.push_back(addFunction("identity", "__fw_entry_identity"));
  if (flavour == "nosym") m.functions.push_back(addFunction("missing", "__fw_entry_missing"));
  Executable e;
  e.name = "add_dispatch_0";
  Value v{1, {-1, 4}};
  e.bindings = {{1, v}, {1, v}, {2, v}};
  Variant var;
  var.kernel = flavour == "libcsym" ? "memcpy" : "fixture_add_kernel";
  if (flavour == "split" || flavour == "checks") {
    var.kernel = flavour == "split" ? "fixture_split_add_kernel" : "fixture_checked_add_kernel";
    for (uint32_t &w : var.workgroup_size) w = 0;
  }
  if (flavour == "checks") {  // its kernel reports failed checks (ABI version 3)
    m.version_minor = 4;
    m.abi_version = 3;
    e.checks = {"'tensor.extract': the index into dimension 0 is out of range (model.mlir:7)",
                "'tensor.insert': the index into dimension 1 is out of range (model.mlir:9)"};
  }
  if (flavour == "gpuonly" || flavour == "gpubadimage") {
    Target cuda;
    cuda.kind = 2;
    cuda.arch = "sm_90";
    cuda.triple = "nvptx64-nvidia-cuda";
    m.targets.push_back(cuda);
    m.images.push_back({1, 1, 0, flavour == "gpuonly" ? 64u : 65u});
    var.target = 1;
    var.kind = 2;
    var.kernel = "add_dispatch_0";
    var.image = 0;
  }
  e.variants.push_back(var);
  e.cost_flops = 4;
  m.executables.push_back(e);
  return m;
}

}  // namespace fwtest

#endif
