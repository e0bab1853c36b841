// Reads a whole regular file: fw-run's inputs (machine files, profiles, .npy) name files,
// and a FIFO or a device such as /dev/zero would block or never end.
#ifndef FW_TOOLS_FW_RUN_READ_FILE_H_
#define FW_TOOLS_FW_RUN_READ_FILE_H_

#include <string>

namespace fwrun {

enum class ReadResult { kRead, kMissing, kFailed };

// kRead: `*contents` holds the file. kMissing: no file at `path` (ENOENT). kFailed:
// `*error` says why ("not a regular file", "cannot open: <errno text>", ...).
ReadResult readRegularFile(const std::string &path, std::string *contents, std::string *error);

}  // namespace fwrun

#endif  // FW_TOOLS_FW_RUN_READ_FILE_H_
