// The files fw-run reads and writes. Its inputs (machine files, profiles, .npy) are read
// whole and must be regular files: a FIFO or a device such as /dev/zero would block or
// never end. What it writes after a run (outputs, trace, profile) is checked before it.
#ifndef FW_TOOLS_FW_RUN_FILES_H_
#define FW_TOOLS_FW_RUN_FILES_H_

#include <string>

namespace fwrun {

enum class ReadResult { kRead, kMissing, kFailed };

// kRead: `*contents` holds the file. kMissing: no file at `path` (ENOENT). kFailed:
// `*error` says why ("not a regular file", "cannot open: <errno text>", ...).
ReadResult readRegularFile(const std::string &path, std::string *contents, std::string *error);

// Whether a file can be written at `path` (created, or replaced when it is a regular file):
// else `*error` says why, so that a run does not end by losing what it made.
bool canWriteFile(const std::string &path, std::string *error);

// Writes `contents` into a new file beside `path` (named for this process) and renames it
// over `path`: a failed write leaves what was there, and two runs writing the same file
// at once never mix their contents (the last to finish wins). Else `*error` says why.
bool replaceFile(const std::string &path, const std::string &contents, std::string *error);

}  // namespace fwrun

#endif  // FW_TOOLS_FW_RUN_FILES_H_
