// Profile files for `fw-run --profile-out` (docs/profile.md describes the format).
#ifndef FW_TOOLS_FW_RUN_PROFILE_H_
#define FW_TOOLS_FW_RUN_PROFILE_H_

#include <string>

#include "fw/runtime.h"

namespace fwrun {

// Writes the runtime's profile of `module` to `path`, merged with what the file already
// holds for the same build of the module (counts, times and counters add up). A file of
// another build of the module is replaced, with `*warning` saying so; a file that is not
// an fw profile, or one of another module, is an error (nothing is written).
bool writeProfile(fw_runtime_t *runtime, const fw_module_t *module, const std::string &path,
                  std::string *warning, std::string *error);

} // namespace fwrun

#endif
