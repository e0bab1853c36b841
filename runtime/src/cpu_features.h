/* Internal: x86-64 ISA levels of the running processor. */
#ifndef FW_RUNTIME_SRC_CPU_FEATURES_H_
#define FW_RUNTIME_SRC_CPU_FEATURES_H_

#include "fw/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* OK when the running processor supports ISA level `arch` ("x86-64", "x86-64-v2",
 * "x86-64-v3", "x86-64-v4"); UNSUPPORTED when it does not; INVALID_ARGUMENT for an
 * unknown level. */
fw_status_t fw_cpu_check_isa_level(const char *arch);

#ifdef __cplusplus
}
#endif

#endif
