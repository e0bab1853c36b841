#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "fw/runtime.h"
#include "fwmd_builder.h"
#include "test_util.h"

namespace {

class ModuleTest : public ::testing::Test {
 protected:
  void SetUp() override { FW_ASSERT_OK(fw_runtime_create(nullptr, &rt_)); }
  void TearDown() override { fw_runtime_destroy(rt_); }

  fw_module_t *load(const std::string &flavour) {
    fw_module_t *m = nullptr;
    fw_status_t s = fw_module_load_file(rt_, fwtest::fixturePath(flavour).c_str(), &m);
    EXPECT_EQ(s, nullptr) << fw_status_message(s);
    fw_status_free(s);
    return m;
  }

  fw_buffer_t *tensor(int64_t rows, int64_t cols, float base) {
    return fwtest::rampF32(rt_, rows, cols, base);
  }

  // Calls function `name` of `m` with (rows x 4) + (rows2 x 4) and returns the status
  // message ("" on success); checks the sum on success.
  std::string callAdd(fw_module_t *m, const char *name, int64_t rows = 3, int64_t rows2 = 3) {
    size_t index = 0;
    fw_status_t s = fw_module_lookup_function(m, name, &index);
    EXPECT_EQ(s, nullptr) << fw_status_message(s);
    fw_status_free(s);
    fw_buffer_t *a = tensor(rows, 4, 1.0f), *b = tensor(rows2, 4, 100.0f);
    fw_buffer_t *args[2] = {a, b};
    fw_buffer_t *result = reinterpret_cast<fw_buffer_t *>(0x1);
    std::string message = fwtest::consume(fw_module_call(m, index, args, 2, &result, 1));
    if (message.empty()) {
      EXPECT_NE(result, nullptr);
      if (result && std::string(name) == "add") {
        EXPECT_EQ(fw_buffer_rank(result), 2u);
        EXPECT_EQ(fw_buffer_dim(result, 0), rows);
        EXPECT_EQ(fw_buffer_dim(result, 1), 4);
        const float *r = static_cast<const float *>(fw_buffer_data(result));
        for (int64_t i = 0; i < rows * 4; ++i)
          EXPECT_EQ(r[i], (1.0f + float(i)) + (100.0f + float(i))) << i;
      }
      fw_buffer_release(result);
    } else {
      EXPECT_EQ(result, nullptr);
      EXPECT_EQ(message.find('\n'), std::string::npos);
    }
    fw_buffer_release(a);
    fw_buffer_release(b);
    return message;
  }

  fw_runtime_t *rt_ = nullptr;
};

TEST_F(ModuleTest, LoadFileAndReflect) {
  fw_module_t *m = load("add");
  ASSERT_NE(m, nullptr);
  EXPECT_STREQ(fw_module_name(m), "add");
  ASSERT_EQ(fw_module_function_count(m), 1u);
  fw_function_info_t f;
  FW_ASSERT_OK(fw_module_function_info(m, 0, &f));
  EXPECT_STREQ(f.name, "add");
  EXPECT_STREQ(f.symbol, "__fw_entry_add");
  ASSERT_EQ(f.num_args, 2u);
  ASSERT_EQ(f.num_results, 1u);
  char type[64];
  fw_tensor_type_format(&f.arg_types[0], type, sizeof(type));
  EXPECT_STREQ(type, "?x4xf32");
  ASSERT_EQ(fw_module_target_count(m), 1u);
  fw_target_info_t t;
  FW_ASSERT_OK(fw_module_target_info(m, 0, &t));
  EXPECT_EQ(t.kind, FW_TARGET_KIND_CPU);
  EXPECT_STREQ(t.arch, "x86-64");
  EXPECT_STREQ(t.triple, "x86_64-unknown-linux-gnu");
  ASSERT_EQ(fw_module_executable_count(m), 1u);
  fw_executable_info_t e;
  FW_ASSERT_OK(fw_module_executable_info(m, 0, &e));
  EXPECT_STREQ(e.name, "add_dispatch_0");
  EXPECT_EQ(e.num_bindings, 3u);
  EXPECT_EQ(e.bindings[2].access, FW_ACCESS_WRITE);
  ASSERT_EQ(e.num_variants, 1u);
  fw_variant_info_t v;
  FW_ASSERT_OK(fw_module_variant_info(m, 0, 0, &v));
  EXPECT_STREQ(v.kernel, "fixture_add_kernel");
  EXPECT_EQ(v.kind, FW_VARIANT_KIND_CPU_SYMBOL);
  FW_EXPECT_ERROR(fw_module_variant_info(m, 0, 1, &v), "out of range");
  FW_EXPECT_ERROR(fw_module_executable_info(m, 1, &e), "out of range");
  FW_EXPECT_ERROR(fw_module_variant_info(m, 1, 0, &v), "executable index 1 is out of range (1 executables)");
  // A static shape: no cost terms.
  EXPECT_EQ(fw_module_cost_term_count(m, 0), 0u);
  EXPECT_EQ(fw_module_cost_term_count(m, 1), 0u);
  fw_cost_term_info_t term;
  FW_EXPECT_ERROR(fw_module_cost_term_info(m, 0, 0, &term), "cost term 0 of @add_dispatch_0 is out of range (0 terms)");
  FW_EXPECT_ERROR(fw_module_cost_term_info(m, 1, 0, &term), "executable index 1 is out of range");
  FW_EXPECT_ERROR(fw_module_cost_term_info(nullptr, 0, 0, &term), "module is NULL");
  FW_EXPECT_ERROR(fw_module_cost_term_info(m, 0, 0, nullptr), "out_info is NULL");
  FW_EXPECT_ERROR(fw_module_function_info(m, 1, &f), "out of range");
  FW_EXPECT_ERROR(fw_module_target_info(m, 1, &t), "out of range");
  size_t index = 99;
  FW_EXPECT_OK(fw_module_lookup_function(m, "@add", &index));
  EXPECT_EQ(index, 0u);
  FW_EXPECT_ERROR(fw_module_lookup_function(m, "main", &index), "has no function @main");
  fw_module_release(m);
}

TEST_F(ModuleTest, CallAddFromFile) {
  fw_module_t *m = load("add");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(callAdd(m, "add", 3, 3), "");
  EXPECT_EQ(callAdd(m, "add", 1, 1), "");
  EXPECT_EQ(callAdd(m, "add", 0, 0), "");
  EXPECT_EQ(callAdd(m, "add", 257, 257), "");
  fw_module_release(m);
}

// A kernel that checks what it computes (ABI version 3): a check it reports fails its task
// with the message the metadata gives that check, whichever workgroup failed it; the
// first check that failed wins; a value that names no check is an error too.
TEST_F(ModuleTest, KernelChecksFailTheirTask) {
  fw_module_t *m = load("checks");
  ASSERT_NE(m, nullptr);
  auto call = [&](int64_t rows, float base, float *first) {
    fw_buffer_t *a = tensor(rows, 4, base), *b = tensor(rows, 4, 100.0f);
    fw_buffer_t *args[2] = {a, b};
    fw_buffer_t *result = nullptr;
    fw_status_code_t code = FW_STATUS_OK;
    std::string message = fwtest::consume(fw_module_call(m, 0, args, 2, &result, 1), &code);
    if (result) {
      *first = static_cast<const float *>(fw_buffer_data(result))[0];
      fw_buffer_release(result);
    }
    fw_buffer_release(a);
    fw_buffer_release(b);
    return std::make_pair(code, message);
  };
  // Large enough for the kernel's workgroups to be shared among the workers, and small.
  for (int64_t rows : {3, 40000}) {
    float first = 0;
    auto ok = call(rows, 1.0f, &first);
    EXPECT_EQ(ok.first, FW_STATUS_OK) << ok.second;
    EXPECT_EQ(first, 101.0f);
    // The first element fails check 1; then the last one alone fails check 2 (in the last
    // workgroup when the kernel is shared among workers).
    auto bad = call(rows, -1.0f, &first);
    EXPECT_EQ(bad.first, FW_STATUS_FAILED_PRECONDITION);
    EXPECT_NE(bad.second.find("task @checks.add_dispatch_0: check failed: 'tensor.extract': "
                              "the index into dimension 0 is out of range (model.mlir:7)"),
              std::string::npos)
        << bad.second;
    auto second = call(rows, 1e6f - float(rows * 4) + 1, &first);
    EXPECT_NE(second.second.find("check failed: 'tensor.insert': the index into dimension 1"),
              std::string::npos)
        << second.second;
  }
  // Check 2 fails, and a value that names no check (7) is left: 7 wins, and no check has it.
  float first = 0;
  auto unlisted = call(4, 2e6f - 5, &first);
  EXPECT_EQ(unlisted.first, FW_STATUS_DATA_LOSS);
  EXPECT_NE(unlisted.second.find("task @checks.add_dispatch_0: its kernel left 7 in its error "
                                 "word, but its executable 'add_dispatch_0' lists 2 checks"),
            std::string::npos)
      << unlisted.second;
  // The module stays usable.
  auto again = call(3, 1.0f, &first);
  EXPECT_EQ(again.first, FW_STATUS_OK) << again.second;
  fw_module_release(m);
}

TEST_F(ModuleTest, CallAddFromMemory) {
  std::vector<uint8_t> bytes = fwtest::readFile(fwtest::fixturePath("add"));
  fw_module_t *m = nullptr;
  FW_ASSERT_OK(fw_module_load_memory(rt_, bytes.data(), bytes.size(), &m));
  std::fill(bytes.begin(), bytes.end(), 0);  // the module keeps no reference to them
  EXPECT_EQ(callAdd(m, "add", 5, 5), "");
  fw_module_release(m);
}

TEST_F(ModuleTest, ModulesLoadedTwiceCoexist) {
  fw_module_t *a = load("add");
  fw_module_t *b = load("add");
  fw_module_t *c = load("multi");
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(callAdd(a, "add"), "");
  EXPECT_EQ(callAdd(b, "add"), "");
  fw_module_release(a);
  EXPECT_EQ(callAdd(b, "add"), "");
  EXPECT_EQ(callAdd(c, "add"), "");
  // Reload after a release (file descriptor numbers get reused).
  fw_module_t *d = load("add");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(fw_module_function_count(d), 1u);
  EXPECT_EQ(callAdd(d, "add"), "");
  fw_module_release(b);
  fw_module_release(c);
  fw_module_release(d);
}

TEST_F(ModuleTest, RetainKeepsModuleAlive) {
  fw_module_t *m = load("add");
  ASSERT_NE(m, nullptr);
  fw_module_retain(m);
  fw_module_release(m);
  EXPECT_EQ(callAdd(m, "add"), "");
  fw_module_release(m);
  fw_module_release(nullptr);
}

TEST_F(ModuleTest, ArgumentValidation) {
  fw_module_t *m = load("add");
  ASSERT_NE(m, nullptr);
  fw_buffer_t *good = tensor(2, 4, 0), *bad = tensor(3, 5, 0);
  fw_buffer_t *result = nullptr;
  fw_buffer_t *args[2] = {good, bad};
  FW_EXPECT_ERROR(fw_module_call(m, 0, args, 2, &result, 1),
                  "argument 1 of @add: expected ?x4xf32, got 3x5xf32");
  EXPECT_EQ(result, nullptr);
  int64_t dims[1] = {4};
  fw_buffer_t *i32 = nullptr;
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_I32, 1, dims, nullptr, 0, &i32));
  fw_buffer_t *args2[2] = {i32, good};
  FW_EXPECT_ERROR(fw_module_call(m, 0, args2, 2, &result, 1),
                  "argument 0 of @add: expected ?x4xf32, got 4xi32");
  fw_buffer_t *args3[2] = {good, nullptr};
  FW_EXPECT_ERROR(fw_module_call(m, 0, args3, 2, &result, 1), "argument 1 of @add is NULL");
  fw_buffer_t *args4[2] = {good, good};
  FW_EXPECT_ERROR(fw_module_call(m, 0, args4, 1, &result, 1), "expects 2 arguments, got 1");
  FW_EXPECT_ERROR(fw_module_call(m, 0, nullptr, 2, &result, 1), "args is NULL");
  fw_buffer_t *two_results[2];
  FW_EXPECT_ERROR(fw_module_call(m, 0, args4, 2, two_results, 2), "returns 1 results");
  EXPECT_EQ(two_results[1], nullptr);
  FW_EXPECT_ERROR(fw_module_call(m, 0, args4, 2, nullptr, 1), "out_results is NULL");
  FW_EXPECT_ERROR(fw_module_call(m, 7, args4, 2, &result, 1), "function index 7");
  FW_EXPECT_ERROR(fw_module_call(nullptr, 0, args4, 2, &result, 1), "module is NULL");
  // Dynamic dims that disagree are caught by the code's own assertion.
  EXPECT_NE(callAdd(m, "add", 2, 3).find("assertion failed: dimension 0 of the operands differs"),
            std::string::npos);
  fw_buffer_release(good);
  fw_buffer_release(bad);
  fw_buffer_release(i32);
  fw_module_release(m);
}

TEST_F(ModuleTest, StickyErrorsFromHostCode) {
  fw_module_t *m = load("multi");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(callAdd(m, "add"), "");
  EXPECT_EQ(callAdd(m, "leak"), "");  // buffers the code never released are released
  struct {
    const char *name, *message;
  } cases[] = {
      {"bad_dispatch", "in @bad_dispatch: dispatch of @add_dispatch_0: expected 3 buffers, got 2"},
      {"no_result", "in @no_result: result 0 was not set"},
      {"bad_arg", "in @bad_arg: fw_rt_arg: argument index 5 is out of range (2 arguments)"},
      {"wrong_binding", "dispatch of @add_dispatch_0: buffer 2: expected ?x4xf32, got 3x5xf32"},
      {"bad_handle", "fw_rt_buffer_dim: invalid buffer handle"},
      {"early_stop", "in @early_stop: assertion failed: early stop requested"},
      {"wrong_result", "result 0 of @wrong_result: expected ?x4xf32, got 2x5xf32"},
      {"bad_token", "fw_rt_wait: invalid token"},
      {"release_arg", "fw_rt_buffer_release"},
      {"double_result", "result 0 is set twice"},
      {"bad_after", "in @bad_after: dispatch of @add_dispatch_0: after 1: invalid token"},
  };
  for (const auto &c : cases) {
    std::string message = callAdd(m, c.name);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.name << ": " << message;
  }
  fw_module_release(m);
}

TEST_F(ModuleTest, HostAbiToleratesNullInvocation) {
  EXPECT_EQ(fw_rt_arg(nullptr, 0), nullptr);
  EXPECT_EQ(fw_rt_buffer_dim(nullptr, nullptr, 0), 0);
  EXPECT_EQ(fw_rt_buffer_alloc(nullptr, 0, 1, 0, nullptr), nullptr);
  EXPECT_EQ(fw_rt_dispatch(nullptr, 0, 0, nullptr), nullptr);
  EXPECT_EQ(fw_rt_dispatch_after(nullptr, 0, 0, nullptr, 0, nullptr), nullptr);
  fw_rt_buffer_release(nullptr, nullptr);
  fw_rt_wait(nullptr, nullptr);
  fw_rt_set_result(nullptr, 0, nullptr);
  fw_rt_assert(nullptr, 0, "x");
}

// Host-call ABI versions: a module of version 1 (9 table entries) loads and runs, its
// table filled up to its end and no further (the ASan build checks); one whose table is
// smaller than its version's is refused at load time, naming both sizes.
TEST_F(ModuleTest, ModulesOfEachHostAbiVersionLoad) {
  fw_module_t *v1 = load("v1table");
  ASSERT_NE(v1, nullptr);
  EXPECT_EQ(callAdd(v1, "add"), "");
  fw_module_release(v1);
  fw_module_t *m = nullptr;
  FW_EXPECT_ERROR(fw_module_load_file(rt_, fwtest::fixturePath("shorttable").c_str(), &m),
                  "__fw_rt_table has 9 entries, host-call ABI version 2 has 10");
  EXPECT_EQ(m, nullptr);
}

TEST_F(ModuleTest, LoadErrors) {
  fw_module_t *m = reinterpret_cast<fw_module_t *>(0x1);
  FW_EXPECT_ERROR(fw_module_load_file(rt_, "/nonexistent/x.fwb", &m), "cannot open");
  EXPECT_EQ(m, nullptr);
  FW_EXPECT_ERROR(fw_module_load_file(rt_, "/", &m), "not a regular file");
  FW_EXPECT_ERROR(fw_module_load_file(nullptr, "x", &m), "runtime is NULL");
  FW_EXPECT_ERROR(fw_module_load_file(rt_, nullptr, &m), "path is NULL");
  FW_EXPECT_ERROR(fw_module_load_file(rt_, "x", nullptr), "out_module is NULL");
  FW_EXPECT_ERROR(fw_module_load_memory(rt_, nullptr, 0, &m), "too small");
  FW_EXPECT_ERROR(fw_module_load_memory(rt_, nullptr, 5, &m), "data is NULL");
  FW_EXPECT_ERROR(fw_module_load_file(rt_, fwtest::fixturePath("badisa").c_str(), &m),
                  "unknown CPU ISA level \"x86-64-v9\"");
  FW_EXPECT_ERROR(fw_module_load_file(rt_, fwtest::fixturePath("nosym").c_str(), &m),
                  "function @missing: symbol __fw_entry_missing not found");
  FW_EXPECT_ERROR(fw_module_load_file(rt_, fwtest::fixturePath("libcsym").c_str(), &m),
                  "CPU variant 0: symbol memcpy is not defined by the module");
  // The unsealed shared object is not a .fwb.
  FW_EXPECT_ERROR(
      fw_module_load_file(rt_, fwtest::fixturePath("fixture_add", ".so").c_str(), &m),
      "not a .fwb file");
  EXPECT_EQ(m, nullptr);
}

TEST_F(ModuleTest, DlopenErrorCarriesDlerror) {
  std::vector<uint8_t> b = fwtest::readFile(fwtest::fixturePath("add"));
  ASSERT_GT(b.size(), 64u);
  b.resize(b.size() - 32);
  // Point the program header table outside the file: our checks pass, ld.so refuses.
  fwtest::put64(b, 32, uint64_t(1) << 40);
  b = fwtest::seal(b);
  fw_module_t *m = nullptr;
  FW_EXPECT_ERROR(fw_module_load_memory(rt_, b.data(), b.size(), &m), "dlopen failed: ");
  EXPECT_EQ(m, nullptr);
}

TEST_F(ModuleTest, GpuOnlyExecutableReportsNoVariant) {
  fw_module_t *m = load("gpuonly");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(fw_module_target_count(m), 2u);
  fw_target_info_t t;
  FW_ASSERT_OK(fw_module_target_info(m, 1, &t));
  EXPECT_EQ(t.kind, FW_TARGET_KIND_CUDA);
  EXPECT_STREQ(t.arch, "sm_90");
  fw_variant_info_t v;
  FW_ASSERT_OK(fw_module_variant_info(m, 0, 0, &v));
  EXPECT_EQ(v.kind, FW_VARIANT_KIND_DEVICE_IMAGE);
  EXPECT_EQ(v.target, 1u);
  EXPECT_NE(callAdd(m, "add").find("dispatch of @add_dispatch_0: no variant for an available "
                                   "device"),
            std::string::npos);
  fw_module_release(m);
  fw_module_t *bad = nullptr;
  FW_EXPECT_ERROR(fw_module_load_file(rt_, fwtest::fixturePath("gpubadimage").c_str(), &bad),
                  "images[0] (offset 0, size 65) lies outside the .llvm.offloading section");
  EXPECT_EQ(bad, nullptr);
}

// Corrupted files (with the original trailer) must be rejected by the checksum before
// anything reaches dlopen.
TEST_F(ModuleTest, MutatedFilesAreRejected) {
  const std::vector<uint8_t> valid = fwtest::readFile(fwtest::fixturePath("add"));
  fwtest::Rng rng(99);
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> b = valid;
    fwtest::mutate(b, rng);
    if (b == valid) continue;
    fw_module_t *m = nullptr;
    fw_status_t s = fw_module_load_memory(rt_, b.data(), b.size(), &m);
    EXPECT_NE(s, nullptr) << "mutation " << i << " was accepted";
    EXPECT_EQ(m, nullptr);
    fw_status_free(s);
    fw_module_release(m);
  }
}

}  // namespace
