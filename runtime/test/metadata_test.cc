#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "fwmd_builder.h"
#include "metadata.h"
#include "test_util.h"

namespace {

using fwtest::get32;
using fwtest::put32;

// A table with every record kind: a CPU and a CUDA target, two functions, an executable
// with a CPU and a device-image variant.
fwtest::Module richModule() {
  fwtest::Module m = fwtest::fixtureModule("multi");
  m.name = "rich";
  fwtest::Target cuda;
  cuda.kind = 2;
  cuda.arch = "sm_90";
  cuda.triple = "nvptx64-nvidia-cuda";
  cuda.features = "+ptx80";
  m.targets.push_back(cuda);
  m.images.push_back({1, 1, 0, 128});
  fwtest::Variant gpu;
  gpu.target = 1;
  gpu.kind = 2;
  gpu.kernel = "add_dispatch_0_kernel";
  gpu.image = 0;
  gpu.workgroup_size[0] = 64;
  m.executables[0].variants.push_back(gpu);
  fwtest::Function f;
  f.name = "scalars";
  f.symbol = "__fw_entry_scalars";
  f.args = {{5, {}}, {9, {2, -1, 3, 1, 1, 1, 1, 1}}};
  f.results = {{4, {}}};
  m.functions.push_back(f);
  return m;
}

fw_status_t parse(const std::vector<uint8_t> &b, fw_metadata_t *md) {
  return fw_metadata_parse(b.data(), b.size(), FW_HOST_ABI_VERSION, md);
}

std::string parseError(const std::vector<uint8_t> &b, fw_status_code_t *code = nullptr) {
  fw_metadata_t md;
  fw_status_t s = parse(b, &md);
  EXPECT_NE(s, nullptr) << "expected the table to be rejected";
  if (!s) fw_metadata_free(&md);
  return fwtest::consume(s, code);
}

// Offset of record `index` of the array whose descriptor is at header offset `field`.
size_t record(const std::vector<uint8_t> &b, size_t field, size_t index, size_t size) {
  return get32(b, field) + index * size;
}

TEST(Metadata, AcceptsValidTable) {
  std::vector<uint8_t> b = fwtest::serialize(richModule());
  fw_metadata_t md;
  FW_ASSERT_OK(parse(b, &md));
  EXPECT_EQ(md.version_major, 1);
  EXPECT_STREQ(md.module_name, "rich");
  ASSERT_EQ(md.num_targets, 2u);
  EXPECT_EQ(md.targets[0].kind, 1u);
  EXPECT_STREQ(md.targets[0].arch, "x86-64");
  EXPECT_STREQ(md.targets[1].arch, "sm_90");
  EXPECT_STREQ(md.targets[1].features, "+ptx80");
  ASSERT_EQ(md.num_functions, 15u);
  EXPECT_STREQ(md.functions[0].name, "add");
  EXPECT_STREQ(md.functions[0].symbol, "__fw_entry_add");
  EXPECT_EQ(md.functions[0].num_args, 2u);
  const fw_md_function_t &s = md.functions[14];
  EXPECT_STREQ(s.name, "scalars");
  const fw_tensor_type_t &i64 = md.values[s.first_arg + 1];
  EXPECT_EQ(i64.element_type, FW_ELEMENT_TYPE_I64);
  EXPECT_EQ(i64.rank, 8u);
  EXPECT_EQ(i64.dims[0], 2);
  EXPECT_EQ(i64.dims[1], -1);
  EXPECT_EQ(md.values[s.first_arg].rank, 0u);
  ASSERT_EQ(md.num_executables, 1u);
  EXPECT_STREQ(md.executables[0].name, "add_dispatch_0");
  EXPECT_EQ(md.executables[0].num_bindings, 3u);
  EXPECT_EQ(md.executables[0].num_variants, 2u);
  EXPECT_EQ(md.executables[0].cost_flops, 4u);
  EXPECT_EQ(md.bindings[md.executables[0].first_binding + 2].access, FW_ACCESS_WRITE);
  EXPECT_EQ(md.bindings[0].type.dims[1], 4);
  EXPECT_EQ(md.variants[1].kind, 2u);
  EXPECT_EQ(md.variants[1].workgroup_size[0], 64u);
  ASSERT_EQ(md.num_images, 1u);
  EXPECT_EQ(md.images[0].size, 128u);
  fw_metadata_free(&md);
}

TEST(Metadata, AcceptsLaterMinorWithLargerHeaderAndTrailingBytes) {
  fwtest::Module m = richModule();
  m.version_minor = 4;  // the largest header this runtime knows
  std::vector<uint8_t> b = fwtest::Writer().serialize(m);
  b[fwtest::kOffMinor] = 9;
  b.resize(b.size() + 64, 0xEE);  // section larger than total_size
  fw_metadata_t md;
  FW_ASSERT_OK(parse(b, &md));
  EXPECT_EQ(md.version_minor, 9);
  fw_metadata_free(&md);
}

TEST(Metadata, Minor2CarriesVariantConfigsAndExecutableFlags) {
  fwtest::Module m = richModule();
  m.version_minor = 2;
  m.executables[0].variants[0].config = "kc=256,mr=4";
  m.executables[0].flags = FW_MD_EXECUTABLE_AUTOTUNE;
  fw_metadata_t md;
  ASSERT_EQ(parse(fwtest::Writer().serialize(m), &md), nullptr);
  EXPECT_STREQ(md.variants[0].config, "kc=256,mr=4");
  EXPECT_STREQ(md.variants[1].config, "");
  EXPECT_EQ(md.executables[0].flags, FW_MD_EXECUTABLE_AUTOTUNE);
  fw_metadata_free(&md);
  // Minor 1 readers' view: the same bytes are reserved, flags are ignored.
  m.version_minor = 1;
  ASSERT_EQ(parse(fwtest::Writer().serialize(m), &md), nullptr);
  EXPECT_STREQ(md.variants[0].config, "");
  EXPECT_EQ(md.executables[0].flags, 0u);
  fw_metadata_free(&md);
}

TEST(Metadata, RejectsBadMinor2Fields) {
  fwtest::Module m = richModule();
  m.version_minor = 2;
  m.executables[0].flags = 0x10;
  EXPECT_NE(parseError(fwtest::Writer().serialize(m)).find("executables[0].flags 0x10 has unknown bits"),
            std::string::npos);
  m.executables[0].flags = 0;
  m.executables[0].variants[0].config = "kc=256";
  std::vector<uint8_t> b = fwtest::Writer().serialize(m);
  put32(b, fwtest::kOffVariantConfigs + 4, 1); // one config for two variants
  EXPECT_NE(parseError(b).find("variant_configs has 1 entries for 2 variants"), std::string::npos);
  b = fwtest::Writer().serialize(m);
  uint32_t at = get32(b, fwtest::kOffVariantConfigs);
  put32(b, at, 0xFFFFFF00u); // a config string outside the pool
  EXPECT_NE(parseError(b).find("variant_configs[0].config"), std::string::npos);
}

// Minor 3: an executable's operation count in its bindings' dims.
fwtest::Module moduleWithCostTerms() {
  fwtest::Module m = richModule();
  m.version_minor = 3;
  m.executables[0].cost_terms = {{8, {{0, 0}}}, {16, {{0, 0}, {2, 1}}}, {5, {}}};
  return m;
}

TEST(Metadata, Minor3CarriesCostTerms) {
  fwtest::Module m = moduleWithCostTerms();
  fw_metadata_t md;
  FW_ASSERT_OK(parse(fwtest::Writer().serialize(m), &md));
  const fw_md_executable_t &e = md.executables[0];
  ASSERT_EQ(e.num_cost_terms, 3u);
  ASSERT_EQ(md.num_cost_terms, 3u);
  const fw_md_cost_term_t *t = md.cost_terms + e.first_cost_term;
  EXPECT_EQ(t[0].coefficient, 8u);
  EXPECT_EQ(t[0].num_factors, 1u);
  EXPECT_EQ(t[1].coefficient, 16u);
  ASSERT_EQ(t[1].num_factors, 2u);
  EXPECT_EQ(t[1].binding[1], 2u);
  EXPECT_EQ(t[1].dim[1], 1u);
  EXPECT_EQ(t[2].num_factors, 0u);
  fw_metadata_free(&md);
  // A minor 2 reader's view of the same header: the bytes are reserved, no terms.
  m.version_minor = 2;
  FW_ASSERT_OK(parse(fwtest::Writer().serialize(m), &md));
  EXPECT_EQ(md.executables[0].num_cost_terms, 0u);
  fw_metadata_free(&md);
}

TEST(Metadata, RejectsBadCostTerms) {
  auto error = [](void (*edit)(fwtest::Module &)) {
    fwtest::Module m = moduleWithCostTerms();
    edit(m);
    return parseError(fwtest::Writer().serialize(m));
  };
  EXPECT_NE(error([](fwtest::Module &m) { m.executables[0].cost_terms[1].factors[1].first = 3; })
                .find("cost_terms[1].factors[1].binding 3 is out of range (executable "
                      "'add_dispatch_0' has 3 bindings)"),
            std::string::npos);
  EXPECT_NE(error([](fwtest::Module &m) { m.executables[0].cost_terms[0].factors[0].second = 2; })
                .find("cost_terms[0].factors[0].dim 2 is out of range (binding 0 of "
                      "'add_dispatch_0' has rank 2)"),
            std::string::npos);
  EXPECT_NE(error([](fwtest::Module &m) {
              m.executables[0].cost_terms[0].factors.assign(9, {0, 0});
            }).find("cost_terms[0].num_factors 9 exceeds 8"),
            std::string::npos);
  // Byte-level damage: an executable out of range or out of order, a stray factor.
  std::vector<uint8_t> b = fwtest::Writer().serialize(moduleWithCostTerms());
  uint32_t at = get32(b, fwtest::kOffCostTerms);
  auto c = b;
  put32(c, at + 48, 7);
  EXPECT_NE(parseError(c).find("cost_terms[1].executable 7 is out of range (1 executables)"),
            std::string::npos);
  c = b;
  put32(c, at + 2 * 48 + 16 + 4, 1);  // term 2 has no factors, factor 1 is set
  EXPECT_NE(parseError(c).find("cost_terms[2].factors[1] is unused and must be zero"),
            std::string::npos);
  c = b;
  put32(c, fwtest::kOffCostTerms + 4, 1000);
  EXPECT_NE(parseError(c).find("header.cost_terms"), std::string::npos);
}

TEST(Metadata, RejectsCostTermsOutOfExecutableOrder) {
  fwtest::Module m = moduleWithCostTerms();
  fwtest::Executable second = m.executables[0];
  second.name = "add_dispatch_1";
  m.executables.push_back(second);
  std::vector<uint8_t> b = fwtest::Writer().serialize(m);
  uint32_t at = get32(b, fwtest::kOffCostTerms);
  put32(b, at + 4 * 48, 0);  // the second executable's second term names the first
  EXPECT_NE(parseError(b).find("cost_terms[4].executable 0 follows a term of executable 1"),
            std::string::npos);
}

// Minor 4: the messages of the checks kernels make (ABI version 3).
fwtest::Module moduleWithChecks() {
  fwtest::Module m = moduleWithCostTerms();
  m.version_minor = 4;
  m.abi_version = 3;
  fwtest::Executable second = m.executables[0];
  second.name = "add_dispatch_1";
  second.cost_terms.clear();
  m.executables[0].checks = {"index out of range (a.mlir:3)", "step not positive (a.mlir:5)"};
  second.checks = {"another (a.mlir:9)"};
  m.executables.push_back(second);
  return m;
}

TEST(Metadata, Minor4CarriesChecks) {
  fwtest::Module m = moduleWithChecks();
  fw_metadata_t md;
  FW_ASSERT_OK(parse(fwtest::Writer().serialize(m), &md));
  ASSERT_EQ(md.num_checks, 3u);
  ASSERT_EQ(md.executables[0].num_checks, 2u);
  EXPECT_STREQ(md.checks[md.executables[0].first_check + 1], "step not positive (a.mlir:5)");
  ASSERT_EQ(md.executables[1].num_checks, 1u);
  EXPECT_STREQ(md.checks[md.executables[1].first_check], "another (a.mlir:9)");
  EXPECT_EQ(md.executables[0].num_cost_terms, 3u);
  fw_metadata_free(&md);
  // Checks need the kernels' error word: a table that lists them below ABI version 3.
  m.abi_version = 2;
  EXPECT_NE(parseError(fwtest::Writer().serialize(m))
                .find("the table lists kernel checks but its abi_version is 2 (checks need 3)"),
            std::string::npos);
  // A minor 3 reader's view: no checks (and a runtime of ABI version 2 refuses version 3).
  m = moduleWithChecks();
  m.version_minor = 3;
  FW_ASSERT_OK(parse(fwtest::Writer().serialize(m), &md));
  EXPECT_EQ(md.num_checks, 0u);
  fw_metadata_free(&md);
  std::vector<uint8_t> b = fwtest::Writer().serialize(moduleWithChecks());
  EXPECT_NE(fwtest::consume(fw_metadata_parse(b.data(), b.size(), 2, &md))
                .find("abi_version 3 is not one this runtime implements (1 to 2)"),
            std::string::npos);
}

TEST(Metadata, RejectsBadChecks) {
  std::vector<uint8_t> b = fwtest::Writer().serialize(moduleWithChecks());
  uint32_t at = get32(b, fwtest::kOffChecks);
  auto c = b;
  put32(c, at + 16, 2);
  EXPECT_NE(parseError(c).find("checks[1].executable 2 is out of range (2 executables)"),
            std::string::npos);
  c = b;
  put32(c, at + 2 * 16, 0);
  put32(c, at + 16, 1);
  EXPECT_NE(parseError(c).find("checks[2].executable 0 follows a check of executable 1"),
            std::string::npos);
  c = b;
  put32(c, at + 4, 1);
  EXPECT_NE(parseError(c).find("checks[0].reserved must be zero"), std::string::npos);
  c = b;
  put32(c, at + 8, 0xFFFFFF00u);
  EXPECT_NE(parseError(c).find("checks[0].message"), std::string::npos);
  c = b;
  put32(c, fwtest::kOffChecks + 4, 1000);
  EXPECT_NE(parseError(c).find("header.checks"), std::string::npos);
  c = b;
  put32(c, fwtest::kOffHeaderSize, 128);
  EXPECT_NE(parseError(c).find("header_size 128 is smaller than 136, the size of a minor-4 "
                               "header"),
            std::string::npos);
}

TEST(Metadata, RejectsTooSmall) {
  std::vector<uint8_t> b = fwtest::serialize(richModule());
  b.resize(127);
  EXPECT_NE(parseError(b).find("smaller than the 128-byte header"), std::string::npos);
  fw_metadata_t md;
  FW_EXPECT_ERROR(fw_metadata_parse(nullptr, 0, FW_HOST_ABI_VERSION, &md), "smaller");
  FW_EXPECT_ERROR(fw_metadata_parse(b.data(), b.size(), FW_HOST_ABI_VERSION, nullptr), "NULL");
}

TEST(Metadata, RejectsBadMagic) {
  std::vector<uint8_t> b = fwtest::serialize(richModule());
  b[0] = 'X';
  EXPECT_NE(parseError(b).find("bad magic"), std::string::npos);
}

TEST(Metadata, RejectsWrongMajorVersion) {
  std::vector<uint8_t> b = fwtest::serialize(richModule());
  b[fwtest::kOffMajor] = 2;
  fw_status_code_t code;
  EXPECT_NE(parseError(b, &code).find("version_major 2"), std::string::npos);
  EXPECT_EQ(code, FW_STATUS_UNSUPPORTED);
  b[fwtest::kOffMajor] = 0;
  EXPECT_NE(parseError(b).find("version_major 0"), std::string::npos);
}

TEST(Metadata, RejectsBadSizesAndAbi) {
  std::vector<uint8_t> b = fwtest::serialize(richModule());
  auto c = b;
  put32(c, fwtest::kOffHeaderSize, 120);
  EXPECT_NE(parseError(c).find("header_size 120"), std::string::npos);
  c = b;
  put32(c, fwtest::kOffTotalSize, uint32_t(b.size() + 1));
  EXPECT_NE(parseError(c).find("total_size"), std::string::npos);
  c = b;
  put32(c, fwtest::kOffHeaderSize, uint32_t(b.size() + 8));
  EXPECT_NE(parseError(c).find("header_size"), std::string::npos);
  c = b;
  put32(c, fwtest::kOffAbi, FW_HOST_ABI_VERSION + 1);  // newer than the runtime
  EXPECT_NE(parseError(c).find("abi_version 5 is not one this runtime implements (1 to 4)"),
            std::string::npos);
  c = b;
  put32(c, fwtest::kOffAbi, 0);
  EXPECT_NE(parseError(c).find("abi_version 0"), std::string::npos);
  // Every version up to the one given is read.
  for (uint32_t abi : {1u, 2u}) {
    c = b;
    put32(c, fwtest::kOffAbi, abi);
    fw_metadata_t md;
    FW_ASSERT_OK(fw_metadata_parse(c.data(), c.size(), FW_HOST_ABI_VERSION, &md));
    EXPECT_EQ(md.abi_version, abi);
    fw_metadata_free(&md);
  }
}

TEST(Metadata, RejectsArrayOutOfRange) {
  std::vector<uint8_t> b = fwtest::serialize(richModule());
  auto c = b;
  put32(c, fwtest::kOffFunctions + 4, get32(b, fwtest::kOffFunctions + 4) + 100);
  EXPECT_NE(parseError(c).find("header.functions"), std::string::npos);
  c = b;
  put32(c, fwtest::kOffDims, uint32_t(b.size()));  // starts at the end
  EXPECT_NE(parseError(c).find("header.dims"), std::string::npos);
  c = b;
  put32(c, fwtest::kOffValues, get32(b, fwtest::kOffValues) + 4);
  EXPECT_NE(parseError(c).find("not 8-byte aligned"), std::string::npos);
  // A shorter total_size cuts the string pool (the last array).
  c = b;
  put32(c, fwtest::kOffTotalSize, get32(b, fwtest::kOffStrings) + 8);
  EXPECT_NE(parseError(c).find("header.strings"), std::string::npos);
}

TEST(Metadata, RejectsHugeCountsThatOverflowU32Arithmetic) {
  std::vector<uint8_t> b = fwtest::serialize(richModule());
  auto c = b;
  // 0x20000000 * 8 == 2^32 wraps to 0 in u32 arithmetic.
  put32(c, fwtest::kOffDims + 4, 0x20000000u);
  EXPECT_NE(parseError(c).find("header.dims"), std::string::npos);
  c = b;
  put32(c, fwtest::kOffStrings, 0xFFFFFFF8u);
  EXPECT_NE(parseError(c).find("header.strings"), std::string::npos);
  // first_arg + num_args wraps around to a small number in u32.
  c = b;
  size_t f = record(b, fwtest::kOffFunctions, 0, 32);
  put32(c, f + 16, 0xFFFFFFFFu);
  put32(c, f + 20, 2);
  EXPECT_NE(parseError(c).find("functions[0].first_arg"), std::string::npos);
  c = b;
  size_t e = record(b, fwtest::kOffExecutables, 0, 48);
  put32(c, e + 8, 0x80000000u);
  put32(c, e + 12, 0x80000001u);
  EXPECT_NE(parseError(c).find("executables[0].first_binding"), std::string::npos);
  c = b;
  size_t v = record(b, fwtest::kOffValues, 0, 16);
  put32(c, v + 4, 2);
  put32(c, v + 8, 0xFFFFFFFFu);
  EXPECT_NE(parseError(c).find("values[0].first_dim"), std::string::npos);
  c = b;
  size_t s = record(b, fwtest::kOffTargets, 0, 32) + 8;  // arch
  put32(c, s, 0xFFFFFFFFu);
  put32(c, s + 4, 1);
  EXPECT_NE(parseError(c).find("targets[0].arch"), std::string::npos);
}

TEST(Metadata, RejectsStringNotNulTerminated) {
  std::vector<uint8_t> b = fwtest::serialize(richModule());
  size_t s = record(b, fwtest::kOffTargets, 0, 32) + 8;  // arch "x86-64"
  uint32_t pool = get32(b, fwtest::kOffStrings);
  auto c = b;
  c[pool + get32(b, s) + get32(b, s + 4)] = 'X';
  EXPECT_NE(parseError(c).find("targets[0].arch is not NUL-terminated"), std::string::npos);
  c = b;
  put32(c, s + 4, get32(b, s + 4) - 1);  // length one short: next byte is not NUL
  EXPECT_NE(parseError(c).find("targets[0].arch is not NUL-terminated"), std::string::npos);
  c = b;
  c[pool + get32(b, s) + 1] = 0;  // embedded NUL
  EXPECT_NE(parseError(c).find("contains a NUL"), std::string::npos);
  c = b;
  put32(c, fwtest::kOffModuleName + 4, 1000);
  EXPECT_NE(parseError(c).find("module_name"), std::string::npos);
}

TEST(Metadata, RejectsIndexOutOfRange) {
  std::vector<uint8_t> b = fwtest::serialize(richModule());
  uint32_t num_values = get32(b, fwtest::kOffValues + 4);
  auto c = b;
  size_t f = record(b, fwtest::kOffFunctions, 1, 32);
  put32(c, f + 24, num_values);  // first_result
  EXPECT_NE(parseError(c).find("functions[1].first_result"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffBindings, 2, 8) + 4, num_values);
  EXPECT_NE(parseError(c).find("bindings[2].value"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffVariants, 0, 32), 2);
  EXPECT_NE(parseError(c).find("variants[0].target 2"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffVariants, 1, 32) + 16, 1);
  EXPECT_NE(parseError(c).find("variants[1].image 1"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffVariants, 0, 32) + 16, 0);
  EXPECT_NE(parseError(c).find("variants[0].image must be 0xFFFFFFFF"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffImages, 0, 24), 7);
  EXPECT_NE(parseError(c).find("images[0].target 7"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffExecutables, 0, 48) + 20, 3);  // num_variants
  EXPECT_NE(parseError(c).find("executables[0].first_variant"), std::string::npos);
}

TEST(Metadata, RejectsUnknownEnumsRankAndDims) {
  std::vector<uint8_t> b = fwtest::serialize(richModule());
  auto c = b;
  put32(c, record(b, fwtest::kOffValues, 0, 16), 10);
  EXPECT_NE(parseError(c).find("values[0].element_type 10"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffValues, 0, 16) + 4, 9);
  EXPECT_NE(parseError(c).find("values[0].rank 9"), std::string::npos);
  c = b;
  fwtest::put64(c, record(b, fwtest::kOffDims, 0, 8), uint64_t(-2));
  EXPECT_NE(parseError(c).find("dims[0] is -2"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffBindings, 0, 8), 4);
  EXPECT_NE(parseError(c).find("bindings[0].access 4"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffTargets, 1, 32), 4);
  EXPECT_NE(parseError(c).find("targets[1].kind 4"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffVariants, 0, 32) + 4, 3);
  EXPECT_NE(parseError(c).find("variants[0].kind 3"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffVariants, 0, 32), 1);  // CPU symbol on the CUDA target
  EXPECT_NE(parseError(c).find("not a CPU target"), std::string::npos);
  c = b;
  put32(c, record(b, fwtest::kOffImages, 0, 24) + 4, 5);
  EXPECT_NE(parseError(c).find("images[0].format 5"), std::string::npos);
}

TEST(Metadata, RejectsDuplicateAndEmptyNames) {
  fwtest::Module m = richModule();
  m.functions[1].name = "add";
  EXPECT_NE(parseError(fwtest::serialize(m)).find("two functions are named"), std::string::npos);
  m = richModule();
  m.functions[0].symbol = "";
  EXPECT_NE(parseError(fwtest::serialize(m)).find("functions[0].symbol is empty"),
            std::string::npos);
}

TEST(Metadata, EmptyTableIsValid) {
  fwtest::Module m;
  std::vector<uint8_t> b = fwtest::serialize(m);
  fw_metadata_t md;
  FW_ASSERT_OK(parse(b, &md));
  EXPECT_EQ(md.num_functions, 0u);
  fw_metadata_free(&md);
}

// Touches every decoded field so that a sanitizer sees any out-of-bounds pointer.
size_t walk(const fw_metadata_t &md) {
  size_t sum = strlen(md.module_name);
  for (size_t i = 0; i < md.num_targets; ++i)
    sum += strlen(md.targets[i].arch) + strlen(md.targets[i].triple) +
           strlen(md.targets[i].features);
  for (size_t i = 0; i < md.num_functions; ++i) {
    const fw_md_function_t &f = md.functions[i];
    sum += strlen(f.name) + strlen(f.symbol);
    for (uint32_t a = 0; a < f.num_args + f.num_results; ++a) {
      const fw_tensor_type_t &v =
          md.values[a < f.num_args ? f.first_arg + a : f.first_result + a - f.num_args];
      EXPECT_LE(v.rank, 8u);
      for (uint32_t d = 0; d < v.rank; ++d) EXPECT_GE(v.dims[d], -1);
    }
  }
  for (size_t i = 0; i < md.num_executables; ++i) {
    const fw_md_executable_t &e = md.executables[i];
    sum += strlen(e.name);
    for (uint32_t k = 0; k < e.num_bindings; ++k) sum += md.bindings[e.first_binding + k].access;
    for (uint32_t k = 0; k < e.num_variants; ++k) {
      const fw_md_variant_t &v = md.variants[e.first_variant + k];
      sum += strlen(v.kernel) + md.targets[v.target].kind;
      if (v.kind == 2) sum += md.images[v.image].format;
    }
  }
  return sum;
}

TEST(Metadata, MutationLoopNeverCrashes) {
  const std::vector<uint8_t> valid = fwtest::serialize(richModule());
  fwtest::Rng rng(0x5eed1234);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> b = valid;
    fwtest::mutate(b, rng);
    // Parse from an exact-size heap copy so reads past the end are caught by ASan.
    std::unique_ptr<uint8_t[]> copy(new uint8_t[b.size() ? b.size() : 1]);
    if (!b.empty()) memcpy(copy.get(), b.data(), b.size());
    fw_metadata_t md;
    fw_status_t s = fw_metadata_parse(copy.get(), b.size(), FW_HOST_ABI_VERSION, &md);
    if (s == FW_OK) {
      ++accepted;
      walk(md);
      fw_metadata_free(&md);
    } else {
      std::string m = fw_status_message(s);
      EXPECT_EQ(m.find('\n'), std::string::npos);
      EXPECT_EQ(md.num_functions, 0u);
      fw_status_free(s);
    }
  }
  // Some mutations hit bytes that do not matter (padding, costs, reserved fields).
  EXPECT_GT(accepted, 0);
  EXPECT_LT(accepted, 20000);
}

}  // namespace
