// Fuzzes fw-run's reader of simulated machines (--simulate=machine.json, docs/runtime.md):
// any text gives a machine or an error naming the file, and every machine it gives is one
// the runtime accepts or refuses with an error, never a crash.
#include <cstdint>
#include <string>

#include "fw/runtime.h"
#include "machine.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  fwrun::Machine machine;
  std::string error;
  if (!machine.parse(text, "machine.json", &error)) return 0;
  fw_runtime_options_t options = {};
  options.simulate = machine.get();
  fw_runtime_t *runtime = nullptr;
  fw_status_t status = fw_runtime_create(&options, &runtime);
  if (status == FW_OK) fw_runtime_destroy(runtime);
  fw_status_free(status);
  return 0;
}
