// The CPU device through the device interface: memory, copies, queues, events, code.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "device.h"
#include "test_util.h"

namespace {

class CpuDevice : public ::testing::Test {
protected:
  void SetUp() override { FW_ASSERT_OK(fw_device_cpu_create(&dev_)); }
  void TearDown() override { dev_->vtable->destroy(dev_); }
  fw_device_t *dev_ = nullptr;
};

TEST_F(CpuDevice, Query) {
  fw_device_info_t info;
  FW_ASSERT_OK(dev_->vtable->query(dev_, &info));
  EXPECT_STREQ(info.name, "cpu");
  EXPECT_EQ(std::string(info.arch).rfind("x86-64", 0), 0u) << info.arch;
  EXPECT_GE(info.compute_units, 1u);
  EXPECT_EQ(info.memory_bytes, 0u);  // computes in host memory
  EXPECT_EQ(dev_->vtable->target_kind, FW_TARGET_KIND_CPU);
}

TEST_F(CpuDevice, MemoryIsAlignedZeroedAndCopies) {
  const fw_device_vtable_t *v = dev_->vtable;
  void *a = nullptr, *b = nullptr, *h = nullptr;
  FW_ASSERT_OK(v->alloc(dev_, 1000, &a));
  FW_ASSERT_OK(v->alloc(dev_, 1000, &b));
  FW_ASSERT_OK(v->alloc_host(dev_, 1000, &h));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % FW_BUFFER_ALIGNMENT, 0u);
  std::memset(a, 5, 1000);
  FW_ASSERT_OK(v->fill_zero(dev_, a, 1000));
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(static_cast<unsigned char *>(a)[i], 0);
  std::memset(h, 7, 1000);
  fw_device_queue_t *q = nullptr;
  FW_ASSERT_OK(v->queue_create(dev_, &q));
  FW_ASSERT_OK(v->copy_to_device(dev_, q, a, h, 1000));
  FW_ASSERT_OK(v->copy_on_device(dev_, q, b, a, 1000));
  std::memset(h, 0, 1000);
  FW_ASSERT_OK(v->copy_to_host(dev_, q, h, b, 1000));
  FW_ASSERT_OK(v->queue_synchronize(dev_, q));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(static_cast<unsigned char *>(h)[i], 7);
  v->queue_destroy(dev_, q);
  v->free(dev_, a, 1000);
  v->free(dev_, b, 1000);
  v->free_host(dev_, h);
}

TEST_F(CpuDevice, LargeBlocksAreReused) {
  const fw_device_vtable_t *v = dev_->vtable;
  const size_t big = 3u << 20, small = 1000;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  FW_ASSERT_OK(v->alloc(dev_, big, &a));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % (2u << 20), 0u) << "huge-page aligned";
  std::memset(a, 1, big);
  v->free(dev_, a, big);
  // The same rounded size gets the freed block back; another size does not.
  FW_ASSERT_OK(v->alloc(dev_, big - 100, &b));
  EXPECT_EQ(b, a);
  FW_ASSERT_OK(v->alloc(dev_, 2 * big, &c));
  EXPECT_NE(c, a);
  v->free(dev_, b, big - 100);
  v->free(dev_, c, 2 * big);
  FW_ASSERT_OK(v->alloc(dev_, small, &a));
  v->free(dev_, a, small);
}

// A kernel's own buffers (fw_rt_kernel_alloc): what a workgroup did not free when it
// returned is freed, and counted; what it freed is not freed again.
extern "C" void keeps_two_of_three(void *const *descriptors, const fw_workgroup_t *wg) {
  (void)descriptors;
  void *a = fw_rt_kernel_alloc(0, 100);
  void *b = fw_rt_kernel_alloc(64, 1000);
  void *c = fw_rt_kernel_alloc(4096, 1 << 20);
  if (!a || !b || !c) {
    *wg->error = 1;
    return;
  }
  if (reinterpret_cast<uintptr_t>(b) % 64 || reinterpret_cast<uintptr_t>(c) % 4096)
    *wg->error = 2;
  std::memset(c, 1, 1 << 20);
  fw_rt_kernel_free(b);
}

extern "C" void frees_all(void *const *descriptors, const fw_workgroup_t *wg) {
  (void)descriptors;
  void *held[40];
  for (void *&p : held) p = fw_rt_kernel_alloc(0, 16);  // more than the inline records
  for (void *p : held) {
    if (!p) *wg->error = 1;
    fw_rt_kernel_free(p);
  }
}

TEST_F(CpuDevice, KernelBuffersLeftByAWorkgroupAreFreed) {
  uint32_t error = 0;
  fw_device_launch_t launch;
  std::memset(&launch, 0, sizeof(launch));
  launch.kernel.cpu = keeps_two_of_three;
  launch.workgroup_count[0] = 3;
  launch.workgroup_count[1] = launch.workgroup_count[2] = 1;
  launch.error = &error;
  FW_ASSERT_OK(dev_->vtable->launch(dev_, nullptr, &launch));
  EXPECT_EQ(error, 0u);
  // Two per workgroup (LeakSanitizer and valgrind see the rest: nothing).
  EXPECT_EQ(fw_device_cpu_kernel_buffers_freed(dev_), 6u);
  launch.kernel.cpu = frees_all;
  FW_ASSERT_OK(dev_->vtable->launch(dev_, nullptr, &launch));
  EXPECT_EQ(error, 0u);
  EXPECT_EQ(fw_device_cpu_kernel_buffers_freed(dev_), 6u);
}

TEST(KernelAlloc, RefusesWhatNoMachineGrantsAndWorksOutsideALaunch) {
  EXPECT_EQ(fw_rt_kernel_alloc(0, -1), nullptr);
  EXPECT_EQ(fw_rt_kernel_alloc(-8, 16), nullptr);
  EXPECT_EQ(fw_rt_kernel_alloc(48, 16), nullptr);  // not a power of two
  EXPECT_EQ(fw_rt_kernel_alloc(0, int64_t{1} << 48), nullptr);
  // Outside a launch nothing is recorded: the caller frees.
  void *p = fw_rt_kernel_alloc(256, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
  fw_rt_kernel_free(p);
  fw_rt_kernel_free(nullptr);
}

// The machine's devices: the CPU first and available; a CUDA entry that is either a GPU
// found through libcuda.so.1 or the reason there is none; AMD, not supported yet.
// The pool keeps at most its limit; lowering the limit releases what is above it, and a
// block larger than the limit is never kept.
TEST_F(CpuDevice, PoolLimit) {
  const fw_device_vtable_t *v = dev_->vtable;
  const size_t big = 4u << 20;
  void *a = nullptr, *b = nullptr;
  FW_ASSERT_OK(v->alloc(dev_, big, &a));
  FW_ASSERT_OK(v->alloc(dev_, big, &b));
  v->free(dev_, a, big);
  v->free(dev_, b, big);
  EXPECT_EQ(fw_device_cpu_pool_bytes(dev_), 2 * big);
  fw_device_cpu_set_pool_limit(dev_, big);
  EXPECT_EQ(fw_device_cpu_pool_bytes(dev_), big);
  fw_device_cpu_set_pool_limit(dev_, big / 2);
  EXPECT_EQ(fw_device_cpu_pool_bytes(dev_), 0u);
  FW_ASSERT_OK(v->alloc(dev_, big, &a));
  v->free(dev_, a, big);
  EXPECT_EQ(fw_device_cpu_pool_bytes(dev_), 0u);
}

TEST(ProbeDevices, CpuFirstThenWhyOrWhatForGpus) {
  size_t count = 0;
  FW_ASSERT_OK(fw_probe_devices(nullptr, 0, &count));
  ASSERT_GE(count, 3u);
  std::vector<fw_device_report_t> reports(count);
  size_t again = 0;
  FW_ASSERT_OK(fw_probe_devices(reports.data(), reports.size(), &again));
  ASSERT_EQ(again, count);
  EXPECT_EQ(reports[0].kind, FW_TARGET_KIND_CPU);
  EXPECT_EQ(reports[0].available, 1);
  EXPECT_STRNE(reports[0].arch, "");
  EXPECT_GE(reports[0].compute_units, 1u);
  bool cuda = false;
  for (const fw_device_report_t &r : reports) {
    if (r.kind != FW_TARGET_KIND_CUDA) continue;
    cuda = true;
    if (r.available) {
      EXPECT_EQ(std::string(r.arch).rfind("sm_", 0), 0u) << r.arch;
      EXPECT_GT(r.memory_bytes, 0u);
    } else {
      EXPECT_STRNE(r.why, "");
    }
  }
  EXPECT_TRUE(cuda);
  EXPECT_EQ(reports.back().kind, FW_TARGET_KIND_HIP);
  EXPECT_EQ(reports.back().available, 0);
  fw_status_t s = fw_probe_devices(nullptr, 0, nullptr);
  EXPECT_NE(s, nullptr);
  fw_status_free(s);
}

TEST_F(CpuDevice, EventsOrderAndTime) {
  const fw_device_vtable_t *v = dev_->vtable;
  fw_device_event_t *start = nullptr, *end = nullptr;
  FW_ASSERT_OK(v->event_create(dev_, &start));
  FW_ASSERT_OK(v->event_create(dev_, &end));
  FW_ASSERT_OK(v->event_record(dev_, start, nullptr));
  volatile double x = 0;
  for (int i = 0; i < 100000; ++i) x = x + 1.0;
  FW_ASSERT_OK(v->event_record(dev_, end, nullptr));
  FW_ASSERT_OK(v->queue_wait_event(dev_, nullptr, end));
  FW_ASSERT_OK(v->event_synchronize(dev_, end));
  EXPECT_EQ(v->event_is_complete(dev_, end), 1);
  double seconds = -1;
  FW_ASSERT_OK(v->event_elapsed(dev_, start, end, &seconds));
  EXPECT_GE(seconds, 0.0);
  EXPECT_LT(seconds, 10.0);
  v->event_destroy(dev_, start);
  v->event_destroy(dev_, end);
}

TEST_F(CpuDevice, DeviceImagesAreNotItsCode) {
  fw_device_module_t *m = nullptr;
  FW_EXPECT_ERROR(dev_->vtable->module_load(dev_, "x", 1, &m), "not device images");
  EXPECT_EQ(m, nullptr);
  const void *k = &m;
  FW_EXPECT_ERROR(dev_->vtable->module_get_kernel(dev_, nullptr, "k", &k), "no device image");
  EXPECT_EQ(k, nullptr);
}

}  // namespace
