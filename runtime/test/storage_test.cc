// The storage tier's files: direct I/O for large aligned transfers (with the last partial
// block through a block of its own), the page cache for the rest, the two meeting on one
// file, and the errors of lost or truncated files.
#include <gtest/gtest.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "storage.h"
#include "task_test_util.h"

namespace {

constexpr size_t kAlign = FW_STORAGE_DIRECT_ALIGN;

struct AlignedFree {
  void operator()(void *p) const { std::free(p); }
};
using Block = std::unique_ptr<unsigned char, AlignedFree>;

// `size` bytes (rounded up to the alignment) at a kAlign-aligned address.
Block aligned(size_t size) {
  size_t rounded = (size + kAlign - 1) / kAlign * kAlign;
  return Block(static_cast<unsigned char *>(std::aligned_alloc(kAlign, rounded)));
}

void pattern(unsigned char *p, size_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<unsigned char>(s >> 24);
  }
}

// The one file the storage tier made in `dir`, and its size.
off_t onlyFileSize(const fwtest::TempDir &dir) {
  auto names = dir.entries();
  EXPECT_EQ(names.size(), 1u);
  if (names.size() != 1) return -1;
  struct stat st;
  return stat(dir.file(names[0]).c_str(), &st) == 0 ? st.st_size : -1;
}

class StorageFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    fw_status_t s = fw_storage_init(&storage_, dir_.path().c_str(), 0);
    ASSERT_EQ(s, nullptr) << fw_status_message(s);
  }
  void TearDown() override { fw_storage_fini(&storage_); }
  uint64_t directBytes() { return atomic_load(&storage_.direct_bytes); }

  // Writes `size` bytes from `src` as buffer `id` and reads them back into `dst`; each
  // transfer's report of direct I/O must agree with the statistics.
  void roundTrip(uint64_t id, const unsigned char *src, unsigned char *dst, size_t size) {
    uint64_t before = directBytes();
    int direct = -1;
    fw_status_t s = fw_storage_write(&storage_, id, src, size, &direct);
    ASSERT_EQ(s, nullptr) << fw_status_message(s);
    EXPECT_EQ(directBytes() - before, direct == 1 ? size : 0) << "direct: " << direct;
    EXPECT_EQ(onlyFileSize(dir_), off_t(size));
    before = directBytes();
    direct = -1;
    s = fw_storage_read(&storage_, id, dst, size, &direct);
    ASSERT_EQ(s, nullptr) << fw_status_message(s);
    EXPECT_EQ(directBytes() - before, direct == 1 ? size : 0) << "direct: " << direct;
    EXPECT_EQ(std::memcmp(src, dst, size), 0);
  }

  fwtest::TempDir dir_;
  fw_storage_t storage_;
};

TEST_F(StorageFileTest, LargeAlignedBufferUsesDirectIoAndComesBackBitIdentical) {
  bool direct = fwtest::directIoWorks(dir_.path());
  // Whole blocks, and a partial last block.
  for (size_t size : {size_t(1) << 20, (size_t(1) << 20) + 123}) {
    SCOPED_TRACE(size);
    Block src = aligned(size), dst = aligned(size);
    pattern(src.get(), size, uint32_t(size));
    std::memset(dst.get(), 0xEE, size);
    uint64_t before = directBytes();
    roundTrip(1, src.get(), dst.get(), size);
    EXPECT_EQ(directBytes() - before, direct ? 2 * size : 0);
    fw_storage_remove(&storage_, 1);
    EXPECT_TRUE(dir_.entries().empty());
  }
  if (!direct) std::printf("note: %s refuses O_DIRECT: the page cache was used\n", dir_.path().c_str());
}

TEST_F(StorageFileTest, SmallOrUnalignedTransfersGoThroughThePageCache) {
  // Below FW_STORAGE_DIRECT_MIN.
  size_t small = FW_STORAGE_DIRECT_MIN - kAlign;
  Block a = aligned(small), b = aligned(small);
  pattern(a.get(), small, 7);
  roundTrip(2, a.get(), b.get(), small);
  fw_storage_remove(&storage_, 2);
  // Large, at an address off the alignment.
  size_t large = size_t(1) << 20;
  Block c = aligned(large + kAlign), d = aligned(large + kAlign);
  pattern(c.get() + 8, large, 8);
  roundTrip(3, c.get() + 8, d.get() + 8, large);
  EXPECT_EQ(directBytes(), 0u);
}

TEST_F(StorageFileTest, DirectAndBufferedTransfersMeetOnOneFile) {
  size_t size = (size_t(1) << 20) + 4000;
  Block src = aligned(size + kAlign), dst = aligned(size + kAlign);
  pattern(src.get(), size, 9);
  // Written directly, read through the page cache (unaligned destination)...
  ASSERT_EQ(fw_storage_write(&storage_, 4, src.get(), size, nullptr), nullptr);
  ASSERT_EQ(fw_storage_read(&storage_, 4, dst.get() + 16, size, nullptr), nullptr);
  EXPECT_EQ(std::memcmp(src.get(), dst.get() + 16, size), 0);
  // ...and written through the page cache (unaligned source), read directly.
  pattern(src.get() + 16, size, 10);
  ASSERT_EQ(fw_storage_write(&storage_, 4, src.get() + 16, size, nullptr), nullptr);
  std::memset(dst.get(), 0, size);
  ASSERT_EQ(fw_storage_read(&storage_, 4, dst.get(), size, nullptr), nullptr);
  EXPECT_EQ(std::memcmp(src.get() + 16, dst.get(), size), 0);
}

TEST_F(StorageFileTest, BufferedModeNeverUsesDirectIo) {
  fw_storage_fini(&storage_);
  ASSERT_EQ(fw_storage_init(&storage_, dir_.path().c_str(), 1), nullptr);
  size_t size = size_t(2) << 20;
  Block src = aligned(size), dst = aligned(size);
  pattern(src.get(), size, 11);
  roundTrip(5, src.get(), dst.get(), size);
  EXPECT_EQ(directBytes(), 0u);
}

// A file system that refuses O_DIRECT (as some do, with EINVAL at open): the transfer is
// made through the page cache, and direct I/O is off from then on.
int refuseDirect(const char *path, int flags, unsigned mode) {
  if (flags & O_DIRECT) {
    errno = EINVAL;
    return -1;
  }
  return open(path, flags, mode_t(mode));
}

TEST_F(StorageFileTest, RefusedDirectIoFallsBackToThePageCache) {
  storage_.sys_open = refuseDirect;
  size_t size = (size_t(1) << 20) + 77;
  Block src = aligned(size), dst = aligned(size);
  pattern(src.get(), size, 13);
  roundTrip(7, src.get(), dst.get(), size);
  EXPECT_EQ(directBytes(), 0u);
  EXPECT_EQ(atomic_load(&storage_.direct), 0);
  // Later transfers do not try again.
  storage_.sys_open = [](const char *path, int flags, unsigned mode) {
    EXPECT_FALSE(flags & O_DIRECT) << path;
    return open(path, flags, mode_t(mode));
  };
  ASSERT_EQ(fw_storage_read(&storage_, 7, dst.get(), size, nullptr), nullptr);
  EXPECT_EQ(std::memcmp(src.get(), dst.get(), size), 0);
}

// A file system that takes O_DIRECT at open and refuses the transfers (EINVAL: an
// alignment it needs beyond ours). The files open without O_DIRECT, so this runs
// wherever the test does; the descriptors asked with O_DIRECT are the ones refused.
bool gAskedDirect[1024];
bool gRefuseReads, gRefuseWrites;

int rememberDirect(const char *path, int flags, unsigned mode) {
  int fd = open(path, flags & ~O_DIRECT, mode_t(mode));
  if (fd >= 0 && fd < 1024) gAskedDirect[fd] = (flags & O_DIRECT) != 0;
  return fd;
}

long refusingPread(int fd, void *p, size_t len, int64_t offset) {
  if (gRefuseReads && fd < 1024 && gAskedDirect[fd]) {
    errno = EINVAL;
    return -1;
  }
  return pread(fd, p, len, off_t(offset));
}

long refusingPwrite(int fd, const void *p, size_t len, int64_t offset) {
  if (gRefuseWrites && fd < 1024 && gAskedDirect[fd]) {
    errno = EINVAL;
    return -1;
  }
  return pwrite(fd, p, len, off_t(offset));
}

class RefusedTransferTest : public StorageFileTest {
 protected:
  void SetUp() override {
    StorageFileTest::SetUp();
    storage_.sys_open = rememberDirect;
    storage_.sys_pread = refusingPread;
    storage_.sys_pwrite = refusingPwrite;
    gRefuseReads = gRefuseWrites = false;
  }
};

TEST_F(RefusedTransferTest, RefusedDirectWriteIsRedoneThroughThePageCache) {
  gRefuseWrites = true;
  size_t size = (size_t(2) << 20) + 300;
  Block src = aligned(size), dst = aligned(size);
  pattern(src.get(), size, 14);
  int direct = -1;
  ASSERT_EQ(fw_storage_write(&storage_, 8, src.get(), size, &direct), nullptr);
  EXPECT_EQ(direct, 0);
  EXPECT_EQ(atomic_load(&storage_.direct), 0);
  EXPECT_EQ(onlyFileSize(dir_), off_t(size));
  ASSERT_EQ(fw_storage_read(&storage_, 8, dst.get(), size, &direct), nullptr);
  EXPECT_EQ(direct, 0);
  EXPECT_EQ(std::memcmp(src.get(), dst.get(), size), 0);
  EXPECT_EQ(directBytes(), 0u);
}

TEST_F(RefusedTransferTest, RefusedDirectReadIsRedoneThroughThePageCache) {
  size_t size = (size_t(1) << 20) + 5000;
  Block src = aligned(size), dst = aligned(size);
  pattern(src.get(), size, 15);
  int direct = -1;
  ASSERT_EQ(fw_storage_write(&storage_, 9, src.get(), size, &direct), nullptr);
  EXPECT_EQ(direct, 1);
  EXPECT_EQ(directBytes(), size);
  gRefuseReads = true;
  std::memset(dst.get(), 0xAB, size);
  ASSERT_EQ(fw_storage_read(&storage_, 9, dst.get(), size, &direct), nullptr);
  EXPECT_EQ(direct, 0);
  EXPECT_EQ(std::memcmp(src.get(), dst.get(), size), 0);
  EXPECT_EQ(atomic_load(&storage_.direct), 0);
  EXPECT_EQ(directBytes(), size);
}

// Other errors are errors: no retry, and direct I/O stays on.
TEST_F(RefusedTransferTest, OtherTransferErrorsAreReported) {
  storage_.sys_pwrite = [](int, const void *, size_t, int64_t) -> long {
    errno = EIO;
    return -1;
  };
  size_t size = size_t(1) << 20;
  Block src = aligned(size);
  pattern(src.get(), size, 16);
  fw_status_t s = fw_storage_write(&storage_, 10, src.get(), size, nullptr);
  EXPECT_EQ(fw_status_code(s), FW_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_NE(std::string(fw_status_message(s)).find(std::strerror(EIO)), std::string::npos)
      << fw_status_message(s);
  fw_status_free(s);
  EXPECT_TRUE(dir_.entries().empty()) << "the failed file is removed";
  EXPECT_EQ(atomic_load(&storage_.direct), 1);
}

TEST_F(StorageFileTest, TruncatedOrMissingFileIsDataLoss) {
  size_t size = (size_t(1) << 20) + 100;
  Block src = aligned(size), dst = aligned(size);
  pattern(src.get(), size, 12);
  ASSERT_EQ(fw_storage_write(&storage_, 6, src.get(), size, nullptr), nullptr);
  auto names = dir_.entries();
  ASSERT_EQ(names.size(), 1u);
  ASSERT_EQ(truncate(dir_.file(names[0]).c_str(), off_t(size - 5000)), 0);
  fw_status_t s = fw_storage_read(&storage_, 6, dst.get(), size, nullptr);
  EXPECT_EQ(fw_status_code(s), FW_STATUS_DATA_LOSS);
  std::string expected = "file is truncated (" + std::to_string(size - 5000) + " of " +
                         std::to_string(size) + " bytes)";
  EXPECT_NE(std::string(fw_status_message(s)).find(expected), std::string::npos)
      << fw_status_message(s);
  fw_status_free(s);
  fw_storage_remove(&storage_, 6);
  s = fw_storage_read(&storage_, 6, dst.get(), size, nullptr);
  EXPECT_EQ(fw_status_code(s), FW_STATUS_DATA_LOSS);
  EXPECT_NE(std::string(fw_status_message(s)).find("the storage tier lost"), std::string::npos)
      << fw_status_message(s);
  fw_status_free(s);
}

}  // namespace
