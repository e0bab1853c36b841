// The registry of embedded modules (fw_embedded_module_register, fw_module_load_embedded).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "fw/runtime.h"
#include "test_util.h"

namespace {

// Registered before main, as the constructor of an object compiled by fwc does. Its bytes
// are not a .fwb, so loading it fails after the lookup.
const unsigned char kNotAFwb[16] = {'n', 'o', 't', ' ', 'a', ' ', 'f', 'w', 'b'};
fw_embedded_module_t gBeforeMain = {FW_EMBEDDED_ABI_VERSION, "before_main", kNotAFwb,
                                    sizeof(kNotAFwb), nullptr};
const bool kRegisteredBeforeMain = (fw_embedded_module_register(&gBeforeMain), true);

std::vector<std::string> registeredNames() {
  std::vector<std::string> names;
  for (size_t i = 0, e = fw_embedded_module_count(); i < e; ++i)
    names.push_back(fw_embedded_module_name(i));
  return names;
}

bool isRegistered(const std::string &name) {
  for (const std::string &n : registeredNames())
    if (n == name) return true;
  return false;
}

class EmbeddedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FW_ASSERT_OK(fw_runtime_create(nullptr, &rt_));
    bytes_ = fwtest::readFile(fwtest::fixturePath("add"));
    ASSERT_FALSE(bytes_.empty());
    record_ = {FW_EMBEDDED_ABI_VERSION, "fixture_add", bytes_.data(), bytes_.size(), nullptr};
  }
  void TearDown() override {
    fw_embedded_module_unregister(&record_);
    fw_runtime_destroy(rt_);
  }

  fw_runtime_t *rt_ = nullptr;
  std::vector<uint8_t> bytes_;
  fw_embedded_module_t record_;
};

TEST_F(EmbeddedTest, RegisteredBeforeMain) {
  EXPECT_TRUE(kRegisteredBeforeMain);
  EXPECT_TRUE(isRegistered("before_main"));
  fw_module_t *m = reinterpret_cast<fw_module_t *>(0x1);
  FW_EXPECT_ERROR(fw_module_load_embedded(rt_, "before_main", &m),
                  "embedded module \"before_main\": not a .fwb file");
  EXPECT_EQ(m, nullptr);
}

TEST_F(EmbeddedTest, LoadsByNameAndCalls) {
  size_t before = fw_embedded_module_count();
  fw_embedded_module_register(&record_);
  fw_embedded_module_register(&record_);  // twice: still one entry
  ASSERT_EQ(fw_embedded_module_count(), before + 1);
  EXPECT_STREQ(fw_embedded_module_name(before), "fixture_add");  // registration order
  EXPECT_EQ(fw_embedded_module_name(before + 1), nullptr);

  fw_module_t *m = nullptr;
  FW_ASSERT_OK(fw_module_load_embedded(rt_, "fixture_add", &m));
  EXPECT_STREQ(fw_module_name(m), "add");
  // The loaded module does not refer to the registered bytes.
  fw_embedded_module_unregister(&record_);
  std::fill(bytes_.begin(), bytes_.end(), 0);
  EXPECT_EQ(fw_embedded_module_count(), before);

  const int64_t dims[2] = {2, 4};
  std::vector<float> a(8), b(8);
  for (size_t i = 0; i < 8; ++i) a[i] = float(i), b[i] = 10.0f * float(i);
  fw_buffer_t *args[2] = {nullptr, nullptr}, *result = nullptr;
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F32, 2, dims, a.data(), 32, &args[0]));
  FW_ASSERT_OK(fw_buffer_create(rt_, FW_ELEMENT_TYPE_F32, 2, dims, b.data(), 32, &args[1]));
  FW_ASSERT_OK(fw_module_call(m, 0, args, 2, &result, 1));
  const float *r = static_cast<const float *>(fw_buffer_data(result));
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(r[i], 11.0f * float(i));
  fw_buffer_release(result);
  fw_buffer_release(args[0]);
  fw_buffer_release(args[1]);
  fw_module_release(m);
}

TEST_F(EmbeddedTest, UnknownNameListsRegisteredNames) {
  fw_embedded_module_register(&record_);
  fw_module_t *m = nullptr;
  fw_status_code_t code = FW_STATUS_OK;
  std::string message = fwtest::consume(fw_module_load_embedded(rt_, "mlp", &m), &code);
  EXPECT_EQ(code, FW_STATUS_NOT_FOUND);
  EXPECT_NE(message.find("no embedded module named \"mlp\" (registered: "), std::string::npos)
      << message;
  EXPECT_NE(message.find("before_main"), std::string::npos) << message;
  EXPECT_NE(message.find("fixture_add"), std::string::npos) << message;
  EXPECT_EQ(m, nullptr);
}

TEST_F(EmbeddedTest, RejectsNewerEmbeddingAbi) {
  record_.abi_version = FW_EMBEDDED_ABI_VERSION + 1;
  fw_embedded_module_register(&record_);
  fw_module_t *m = nullptr;
  fw_status_code_t code = FW_STATUS_OK;
  std::string message = fwtest::consume(fw_module_load_embedded(rt_, "fixture_add", &m), &code);
  EXPECT_EQ(code, FW_STATUS_UNSUPPORTED);
  EXPECT_NE(message.find("embedded module \"fixture_add\" was built for embedding ABI version "
                         "2; this runtime supports version 1"),
            std::string::npos)
      << message;
  EXPECT_EQ(m, nullptr);
}

TEST_F(EmbeddedTest, RejectsBadArguments) {
  fw_module_t *m = nullptr;
  FW_EXPECT_ERROR(fw_module_load_embedded(nullptr, "before_main", &m), "runtime is NULL");
  FW_EXPECT_ERROR(fw_module_load_embedded(rt_, nullptr, &m), "name is NULL");
  FW_EXPECT_ERROR(fw_module_load_embedded(rt_, "before_main", nullptr), "out_module is NULL");
  size_t count = fw_embedded_module_count();
  fw_embedded_module_register(nullptr);
  fw_embedded_module_unregister(nullptr);
  fw_embedded_module_unregister(&record_);  // not registered
  EXPECT_EQ(fw_embedded_module_count(), count);
  EXPECT_EQ(fw_embedded_module_name(count), nullptr);
}

TEST_F(EmbeddedTest, ConcurrentRegistration) {
  constexpr int kThreads = 8, kPerThread = 32;
  std::vector<fw_embedded_module_t> records(kThreads * kPerThread);
  std::vector<std::string> names(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    names[i] = "concurrent_" + std::to_string(i);
    records[i] = {FW_EMBEDDED_ABI_VERSION, names[i].c_str(), kNotAFwb, sizeof(kNotAFwb),
                  nullptr};
  }
  size_t before = fw_embedded_module_count();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        fw_embedded_module_register(&records[size_t(t * kPerThread + i)]);
        (void)fw_embedded_module_count();
      }
    });
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(fw_embedded_module_count(), before + records.size());
  EXPECT_TRUE(isRegistered("concurrent_0"));
  EXPECT_TRUE(isRegistered("concurrent_255"));
  for (fw_embedded_module_t &r : records) fw_embedded_module_unregister(&r);
  EXPECT_EQ(fw_embedded_module_count(), before);
}

}  // namespace
