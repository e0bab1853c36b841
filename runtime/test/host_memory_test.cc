// How much memory the host tier takes when no cap is set: MemAvailable, bounded by the
// process's control groups (v2, and v1's memory controller), read from a made-up /proc
// and /sys under a temporary directory.
#include "host_memory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "task_test_util.h"

namespace {

constexpr uint64_t kMiB = 1 << 20;

// A made-up file system root: MemAvailable of 8 GiB unless told otherwise.
class FakeRoot {
 public:
  FakeRoot() { meminfo(8192 * kMiB); }
  bool ok() const { return dir_.ok(); }
  const char *path() const { return dir_.path().c_str(); }

  void write(const std::string &relative, const std::string &text) {
    std::filesystem::path p = dir_.path() + "/" + relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void meminfo(uint64_t available) {
    write("proc/meminfo", "MemTotal:       16777216 kB\nMemFree:         1000000 kB\n"
                          "MemAvailable:   " + std::to_string(available / 1024) + " kB\n"
                          "Buffers:          100000 kB\n");
  }
  // A cgroup v2 group under the unified mount at sys/fs/cgroup.
  void v2Group(const std::string &group, const std::string &max, uint64_t current,
               uint64_t inactive_file) {
    std::string dir = "sys/fs/cgroup" + group;
    write(dir + "/memory.max", max + "\n");
    write(dir + "/memory.current", std::to_string(current) + "\n");
    write(dir + "/memory.stat", "anon 1000\nfile 2000\nactive_file 10\ninactive_file " +
                                    std::to_string(inactive_file) + "\nslab 5\n");
  }
  void v2Process(const std::string &group, const std::string &mount_root = "/") {
    write("proc/self/cgroup", "0::" + group + "\n");
    write("proc/self/mountinfo",
          "22 1 0:21 / / rw,relatime - ext4 /dev/sda1 rw\n"
          "30 22 0:26 " + mount_root + " /sys/fs/cgroup rw,nosuid,nodev,noexec shared:4 - "
          "cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n");
  }

 private:
  fwtest::TempDir dir_;
};

TEST(HostMemoryTest, MemAvailableWithoutControlGroups) {
  FakeRoot root;
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(fw_host_memory_available_at(root.path()), 8192 * kMiB);
}

TEST(HostMemoryTest, NothingReadableIsUnknown) {
  fwtest::TempDir empty;
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(fw_host_memory_available_at(empty.path().c_str()), 0u);
}

// Group limit 1 GiB, 300 MiB used of which 100 MiB is file cache it can drop: 824 MiB.
TEST(HostMemoryTest, ACgroupV2LimitBoundsIt) {
  FakeRoot root;
  ASSERT_TRUE(root.ok());
  root.v2Process("/user.slice/app.scope");
  root.v2Group("/user.slice", "max", 0, 0);
  root.v2Group("/user.slice/app.scope", std::to_string(1024 * kMiB), 300 * kMiB, 100 * kMiB);
  EXPECT_EQ(fw_host_memory_available_at(root.path()), 824 * kMiB);
  // Lower than the limit allows: MemAvailable.
  root.meminfo(500 * kMiB);
  EXPECT_EQ(fw_host_memory_available_at(root.path()), 500 * kMiB);
}

// The tightest group on the way up counts: the parent has 400 MiB left.
TEST(HostMemoryTest, AParentGroupCanBeTighter) {
  FakeRoot root;
  ASSERT_TRUE(root.ok());
  root.v2Process("/a/b");
  root.v2Group("/a", std::to_string(2048 * kMiB), 1648 * kMiB, 0);
  root.v2Group("/a/b", std::to_string(1024 * kMiB), 10 * kMiB, 0);
  EXPECT_EQ(fw_host_memory_available_at(root.path()), 400 * kMiB);
}

// A group that uses all it may (or more): nothing available, which is not "unknown".
TEST(HostMemoryTest, AFullGroupLeavesNothing) {
  FakeRoot root;
  ASSERT_TRUE(root.ok());
  root.v2Process("/full");
  root.v2Group("/full", std::to_string(64 * kMiB), 70 * kMiB, 0);
  EXPECT_EQ(fw_host_memory_available_at(root.path()), 1u);
}

// A container's view (cgroup namespace): the process's group is the mount itself.
TEST(HostMemoryTest, AContainersGroupIsItsMount) {
  FakeRoot root;
  ASSERT_TRUE(root.ok());
  root.v2Process("/", "/docker/abc");
  root.v2Group("", std::to_string(256 * kMiB), 56 * kMiB, 0);
  EXPECT_EQ(fw_host_memory_available_at(root.path()), 200 * kMiB);
}

// A hybrid machine: cgroup v1's memory controller mounted apart, v2 without it. "No limit"
// in v1 is a huge number; a real limit counts without the group's inactive file cache.
TEST(HostMemoryTest, ACgroupV1MemoryControllerBoundsIt) {
  FakeRoot root;
  ASSERT_TRUE(root.ok());
  root.write("proc/self/cgroup", "9:name=systemd:/\n4:memory:/jobs/42\n1:cpu,cpuacct:/\n0::/\n");
  root.write("proc/self/mountinfo",
             "22 1 0:21 / / rw - ext4 /dev/sda1 rw\n"
             "31 22 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
             "32 22 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
             "33 22 0:29 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
  root.write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  root.write("sys/fs/cgroup/memory/jobs/memory.limit_in_bytes", "9223372036854771712\n");
  root.write("sys/fs/cgroup/memory/jobs/42/memory.limit_in_bytes",
             std::to_string(512 * kMiB) + "\n");
  root.write("sys/fs/cgroup/memory/jobs/42/memory.usage_in_bytes",
             std::to_string(100 * kMiB) + "\n");
  root.write("sys/fs/cgroup/memory/jobs/42/memory.stat",
             "cache 1\ninactive_file 0\ntotal_inactive_file " + std::to_string(50 * kMiB) + "\n");
  EXPECT_EQ(fw_host_memory_available_at(root.path()), 462 * kMiB);
  root.write("sys/fs/cgroup/memory/jobs/42/memory.limit_in_bytes", "9223372036854771712\n");
  EXPECT_EQ(fw_host_memory_available_at(root.path()), 8192 * kMiB);
}

// On this machine: something, at most its memory, and the floor at least.
TEST(HostMemoryTest, TheMachinesCapacityIsWithinItsMemory) {
  uint64_t capacity = fw_host_memory_capacity();
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  ASSERT_GT(pages, 0);
  EXPECT_GE(capacity, FW_HOST_MEMORY_FLOOR);
  EXPECT_LE(capacity, std::max<uint64_t>(uint64_t(pages) * uint64_t(page),
                                         FW_HOST_MEMORY_FLOOR));
}

}  // namespace
