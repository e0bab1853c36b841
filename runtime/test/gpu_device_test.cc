// The CUDA and HIP devices through the device interface, against the stand-in drivers
// of fake_cuda.c and fake_hip.c (their memory is host memory, their launches fail):
// discovery, memory and its reuse, copies both ways (small ones directly, large ones
// through the pinned staging buffers), zero fills, queues and events, module loading
// errors and launch errors. ctest runs this with the stand-ins on LD_LIBRARY_PATH.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "device.h"
#include "device_cuda.h"
#include "device_hip.h"
#include "test_util.h"

namespace {

using Discover = fw_status_t (*)(fw_device_t ***, size_t *, char *, size_t);

struct Kind {
  const char *name;
  Discover discover;
  const char *device_name, *arch;
};

void PrintTo(const Kind &kind, std::ostream *os) { *os << kind.name; }

/// An image the stand-in accepts: PTX text for CUDA, an AMD GPU ELF header for HIP.
std::vector<uint8_t> acceptedImage(const std::string &kind) {
  if (kind == "cuda") {
    std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n";
    return std::vector<uint8_t>(ptx.begin(), ptx.end());
  }
  std::vector<uint8_t> elf(64, 0);
  std::memcpy(elf.data(), "\x7f" "ELF", 4);
  elf[4] = 2;   // 64-bit
  elf[18] = 224; // EM_AMDGPU
  return elf;
}

class GpuDevice : public ::testing::TestWithParam<Kind> {
protected:
  void SetUp() override {
    fw_device_t **devices = nullptr;
    size_t count = 0;
    char why[256];
    FW_ASSERT_OK(GetParam().discover(&devices, &count, why, sizeof(why)));
    ASSERT_EQ(count, 1u) << "no device from the stand-in driver: " << why;
    dev_ = devices[0];
    std::free(devices);
  }
  void TearDown() override {
    if (dev_) dev_->vtable->destroy(dev_);
  }
  fw_device_t *dev_ = nullptr;
};

TEST_P(GpuDevice, Query) {
  fw_device_info_t info;
  FW_ASSERT_OK(dev_->vtable->query(dev_, &info));
  EXPECT_STREQ(info.name, GetParam().device_name);
  EXPECT_STREQ(info.arch, GetParam().arch);
  EXPECT_EQ(info.memory_bytes, 1ull << 30);
  EXPECT_GT(info.compute_units, 0u);
  EXPECT_STREQ(dev_->vtable->name, GetParam().name);
}

// Sizes around the staging threshold (1 MiB) and across several 4 MiB chunks.
TEST_P(GpuDevice, CopiesRoundTrip) {
  const fw_device_vtable_t *v = dev_->vtable;
  for (size_t size : {size_t(1), size_t(1000), (size_t(1) << 20) - 1, size_t(1) << 20,
                      (size_t(9) << 20) + 3}) {
    std::vector<uint8_t> in(size), out(size, 0xAB), copy(size, 0xCD);
    for (size_t i = 0; i < size; ++i) in[i] = static_cast<uint8_t>(i * 7 + size);
    void *a = nullptr, *b = nullptr;
    FW_ASSERT_OK(v->alloc(dev_, size, &a));
    FW_ASSERT_OK(v->alloc(dev_, size, &b));
    FW_ASSERT_OK(v->copy_to_device(dev_, nullptr, a, in.data(), size));
    FW_ASSERT_OK(v->copy_on_device(dev_, nullptr, b, a, size));
    FW_ASSERT_OK(v->copy_to_host(dev_, nullptr, out.data(), b, size));
    EXPECT_EQ(out, in) << size << " bytes";
    FW_ASSERT_OK(v->fill_zero(dev_, a, size));
    FW_ASSERT_OK(v->copy_to_host(dev_, nullptr, copy.data(), a, size));
    EXPECT_EQ(copy, std::vector<uint8_t>(size, 0)) << size << " bytes";
    v->free(dev_, a, size);
    v->free(dev_, b, size);
  }
}

TEST_P(GpuDevice, FreedMemoryIsReused) {
  const fw_device_vtable_t *v = dev_->vtable;
  void *a = nullptr, *b = nullptr;
  FW_ASSERT_OK(v->alloc(dev_, 3 << 20, &a));
  v->free(dev_, a, 3 << 20);
  FW_ASSERT_OK(v->alloc(dev_, (3 << 20) - 100, &b)); // rounds to the same block
  EXPECT_EQ(a, b);
  v->free(dev_, b, (3 << 20) - 100);
}

TEST_P(GpuDevice, QueuesAndEvents) {
  const fw_device_vtable_t *v = dev_->vtable;
  fw_device_queue_t *q = nullptr;
  fw_device_event_t *start = nullptr, *end = nullptr;
  void *host = nullptr, *dst = nullptr;
  FW_ASSERT_OK(v->queue_create(dev_, &q));
  FW_ASSERT_OK(v->event_create(dev_, &start));
  FW_ASSERT_OK(v->event_create(dev_, &end));
  FW_ASSERT_OK(v->alloc_host(dev_, 4096, &host));
  FW_ASSERT_OK(v->alloc(dev_, 4096, &dst));
  std::memset(host, 3, 4096);
  FW_ASSERT_OK(v->event_record(dev_, start, q));
  FW_ASSERT_OK(v->copy_to_device(dev_, q, dst, host, 4096));
  FW_ASSERT_OK(v->event_record(dev_, end, q));
  FW_ASSERT_OK(v->queue_wait_event(dev_, nullptr, end));
  FW_ASSERT_OK(v->queue_synchronize(dev_, q));
  FW_ASSERT_OK(v->event_synchronize(dev_, end));
  EXPECT_EQ(v->event_is_complete(dev_, end), 1);
  double seconds = -1;
  FW_ASSERT_OK(v->event_elapsed(dev_, start, end, &seconds));
  EXPECT_GE(seconds, 0.0);
  v->free(dev_, dst, 4096);
  v->free_host(dev_, host);
  v->event_destroy(dev_, start);
  v->event_destroy(dev_, end);
  v->queue_destroy(dev_, q);
}

// A queue's driver handle, for C tasks' GPU implementations: the queue's own stream,
// another for another queue, and the device's stream for the default queue; the CPU
// device has none.
TEST_P(GpuDevice, QueueNativeIsTheQueuesStream) {
  const fw_device_vtable_t *v = dev_->vtable;
  ASSERT_NE(v->queue_native, nullptr);
  fw_device_queue_t *a = nullptr, *b = nullptr;
  FW_ASSERT_OK(v->queue_create(dev_, &a));
  FW_ASSERT_OK(v->queue_create(dev_, &b));
  void *sa = nullptr, *sa2 = nullptr, *sb = nullptr, *sd = nullptr;
  FW_ASSERT_OK(v->queue_native(dev_, a, &sa));
  FW_ASSERT_OK(v->queue_native(dev_, a, &sa2));
  FW_ASSERT_OK(v->queue_native(dev_, b, &sb));
  FW_ASSERT_OK(v->queue_native(dev_, nullptr, &sd));
  EXPECT_NE(sa, nullptr);
  EXPECT_EQ(sa, sa2);
  EXPECT_NE(sa, sb);
  EXPECT_NE(sd, sa);
  EXPECT_NE(sd, sb);
  v->queue_destroy(dev_, a);
  v->queue_destroy(dev_, b);
  fw_device_t *cpu = nullptr;
  FW_ASSERT_OK(fw_device_cpu_create(&cpu));
  EXPECT_EQ(cpu->vtable->queue_native, nullptr);
  cpu->vtable->destroy(cpu);
}

TEST_P(GpuDevice, BadImagesAndFailedLaunchesAreErrors) {
  const fw_device_vtable_t *v = dev_->vtable;
  fw_device_module_t *module = nullptr;
  const char garbage[] = "this is not a GPU image";
  fw_status_t s = v->module_load(dev_, garbage, sizeof(garbage) - 1, &module);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(fw_status_message(s)).find("loading an image on"), std::string::npos)
      << fw_status_message(s);
  fw_status_free(s);
  EXPECT_EQ(module, nullptr);

  std::vector<uint8_t> image = acceptedImage(GetParam().name);
  FW_ASSERT_OK(v->module_load(dev_, image.data(), image.size(), &module));
  const void *kernel = nullptr;
  FW_ASSERT_OK(v->module_get_kernel(dev_, module, "k", &kernel));
  void *data = nullptr;
  FW_ASSERT_OK(v->alloc(dev_, 64, &data));
  int64_t dims[1] = {16};
  fw_device_binding_t binding = {data, 1, dims};
  fw_device_launch_t launch;
  std::memset(&launch, 0, sizeof(launch));
  launch.kernel.image = kernel;
  launch.num_bindings = 1;
  launch.bindings = &binding;
  for (int k = 0; k < 3; ++k) launch.workgroup_count[k] = launch.workgroup_size[k] = 1;
  s = v->launch(dev_, nullptr, &launch);
  ASSERT_NE(s, nullptr);
  EXPECT_NE(std::string(fw_status_message(s)).find("unspecified launch failure"),
            std::string::npos)
      << fw_status_message(s);
  fw_status_free(s);
  v->free(dev_, data, 64);
  v->module_unload(dev_, module);
}

INSTANTIATE_TEST_SUITE_P(
    StandIns, GpuDevice,
    ::testing::Values(Kind{"cuda", fw_cuda_discover, "Fake GPU", "sm_90"},
                      Kind{"hip", fw_hip_discover, "Fake AMD GPU", "gfx942"}),
    [](const ::testing::TestParamInfo<Kind> &info) { return std::string(info.param.name); });

}  // namespace
