// What the machine gives the process, read from a made-up /proc and /sys under a temporary
// directory: the memory the host tier takes when no cap is set (MemAvailable, bounded by
// the process's control groups: v2, and v1's memory controller), and the CPU time quota
// that bounds the default worker count (cgroup v2's cpu.max, v1's cpu controller).
#include <sched.h>

#include "host_cpus.h"
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

// ---- CPUs ----------------------------------------------------------------------------

TEST(HostCpusTest, NoQuotaIsNone) {
  FakeRoot root;
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(fw_host_cpu_quota_at(root.path()), 0u);  // no control groups at all
  root.v2Process("/a");
  root.write("sys/fs/cgroup/a/cpu.max", "max 100000\n");
  EXPECT_EQ(fw_host_cpu_quota_at(root.path()), 0u);
}

// cgroup v2: 250 ms per 100 ms period is 2.5 CPUs, 3 threads' worth; the tightest group on
// the way up counts; a container's group is its mount.
TEST(HostCpusTest, ACgroupV2QuotaRoundsUp) {
  FakeRoot root;
  ASSERT_TRUE(root.ok());
  root.v2Process("/a/b");
  root.write("sys/fs/cgroup/a/cpu.max", "max 100000\n");
  root.write("sys/fs/cgroup/a/b/cpu.max", "250000 100000\n");
  EXPECT_EQ(fw_host_cpu_quota_at(root.path()), 3u);
  root.write("sys/fs/cgroup/a/cpu.max", "100000 100000\n");
  EXPECT_EQ(fw_host_cpu_quota_at(root.path()), 1u);
  root.write("sys/fs/cgroup/a/cpu.max", "50000 100000\n");  // half a CPU: one thread
  EXPECT_EQ(fw_host_cpu_quota_at(root.path()), 1u);
  FakeRoot container;
  ASSERT_TRUE(container.ok());
  container.v2Process("/", "/docker/abc");
  container.write("sys/fs/cgroup/cpu.max", "400000 100000\n");
  EXPECT_EQ(fw_host_cpu_quota_at(container.path()), 4u);
}

// Malformed files limit nothing.
TEST(HostCpusTest, AMalformedQuotaIsNone) {
  FakeRoot root;
  ASSERT_TRUE(root.ok());
  root.v2Process("/a");
  for (const char *text : {"", "250000\n", "x 100000\n", "250000 0\n", "0 100000\n",
                           "-1 100000\n"}) {
    root.write("sys/fs/cgroup/a/cpu.max", text);
    EXPECT_EQ(fw_host_cpu_quota_at(root.path()), 0u) << "'" << text << "'";
  }
}

// cgroup v1's cpu controller (mounted with cpuacct): quota -1 is none.
TEST(HostCpusTest, ACgroupV1QuotaBoundsIt) {
  FakeRoot root;
  ASSERT_TRUE(root.ok());
  root.write("proc/self/cgroup", "9:name=systemd:/\n4:memory:/\n3:cpu,cpuacct:/jobs/7\n0::/\n");
  root.write("proc/self/mountinfo",
             "22 1 0:21 / / rw - ext4 /dev/sda1 rw\n"
             "31 22 0:27 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
             "32 22 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/jobs/7/cpu.cfs_quota_us", "-1\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/jobs/7/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(fw_host_cpu_quota_at(root.path()), 0u);
  root.write("sys/fs/cgroup/cpu,cpuacct/jobs/7/cpu.cfs_quota_us", "600000\n");
  EXPECT_EQ(fw_host_cpu_quota_at(root.path()), 6u);
}

// On this machine: at least one, at most what the affinity mask allows.
TEST(HostCpusTest, TheMachinesCpusAreWithinTheAffinityMask) {
  uint32_t cpus = fw_host_cpus();
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_GE(cpus, 1u);
  EXPECT_LE(cpus, uint32_t(CPU_COUNT(&set)));
}

}  // namespace
