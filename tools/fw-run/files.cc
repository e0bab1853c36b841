#include "files.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fwrun {

ReadResult readRegularFile(const std::string &path, std::string *contents, std::string *error) {
  contents->clear();
  // Non-blocking: opening a FIFO without a writer would wait forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return ReadResult::kMissing;
    *error = std::string("cannot open: ") + std::strerror(errno);
    return ReadResult::kFailed;
  }
  struct stat st{};  // zeroed: a failed fstat reads as "not a regular file"
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *error = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
    ::close(fd);
    return ReadResult::kFailed;
  }
  contents->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < contents->size()) {
    ssize_t n = ::read(fd, &(*contents)[done], contents->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = std::string("cannot read: ") + std::strerror(errno);
      ::close(fd);
      return ReadResult::kFailed;
    }
    if (n == 0) break;  // shrank meanwhile
    done += static_cast<size_t>(n);
  }
  contents->resize(done);
  ::close(fd);
  return ReadResult::kRead;
}

bool canWriteFile(const std::string &path, std::string *error) {
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) *error = "is a directory";
    else if (::access(path.c_str(), W_OK) != 0) *error = std::strerror(errno);
    else return true;
    return false;
  }
  std::string::size_type slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    *error = "'" + dir + "' is not a directory";
    return false;
  }
  if (::access(dir.c_str(), W_OK | X_OK) == 0) return true;
  *error = "its directory '" + dir + "': " + std::strerror(errno);
  return false;
}

bool replaceFile(const std::string &path, const std::string &contents, std::string *error) {
  static std::atomic<unsigned> calls{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = path + "." + std::to_string(::getpid()) + "." + std::to_string(calls++) + ".tmp";
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    *error = std::strerror(errno);
    return false;
  }
  size_t done = 0;
  int failure = 0;
  while (done < contents.size() && !failure) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failure = errno;
    else done += static_cast<size_t>(n);
  }
  // On disk before the rename (a crash never leaves an empty file in place of the old);
  // what did not fit on the disk may fail only here.
  if (!failure && ::fsync(fd) != 0) failure = errno;
  if (::close(fd) != 0 && !failure) failure = errno;
  if (!failure && ::rename(tmp.c_str(), path.c_str()) != 0) failure = errno;
  if (failure) {
    ::unlink(tmp.c_str());
    *error = std::strerror(failure);
    return false;
  }
  return true;
}

}  // namespace fwrun
