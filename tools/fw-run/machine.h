// Simulated machines for `fw-run --simulate=machine.json` (docs/runtime.md describes
// the format).
#ifndef FW_TOOLS_FW_RUN_MACHINE_H_
#define FW_TOOLS_FW_RUN_MACHINE_H_

#include <string>
#include <vector>

#include "fw/runtime.h"

namespace fwrun {

// A machine description that owns the strings and arrays fw_sim_machine_t points to.
class Machine {
public:
  // Parses a JSON machine file; on failure returns false with a message that names the
  // file and the offending field.
  bool parseFile(const std::string &path, std::string *error);
  bool parse(const std::string &text, const std::string &where, std::string *error);
  const fw_sim_machine_t *get() const { return &machine_; }
  // "devices[1].kernel_speed names 'x'" for each kernel name no kernel of `module` has
  // (its tasks are named MODULE.EXECUTABLE): a typo there would silently change nothing.
  std::vector<std::string> unknownKernels(const fw_module_t *module) const;

private:
  struct Device {
    std::string name;
    std::vector<std::string> kernelNames;
    std::vector<const char *> kernelNamePtrs;
    std::vector<double> kernelSpeeds;
  };
  std::vector<Device> owned_;
  std::vector<fw_sim_device_t> devices_;
  fw_sim_machine_t machine_{};
};

}  // namespace fwrun

#endif
