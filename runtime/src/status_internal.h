/* Internal: constructing status objects. */
#ifndef FW_RUNTIME_SRC_STATUS_INTERNAL_H_
#define FW_RUNTIME_SRC_STATUS_INTERNAL_H_

#include "fw/runtime.h"

#if defined(__GNUC__)
#define FW_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FW_PRINTF(f, a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Returns a new error status with a printf-formatted message. Never returns NULL for a
 * non-OK code: if memory is exhausted a static "out of memory" status is returned
 * (fw_status_free ignores it). */
fw_status_t fw_status_make(fw_status_code_t code, const char *format, ...) FW_PRINTF(2, 3);

/* Prefixes the message of `status` with "prefix: " (consumes `status`). */
fw_status_t fw_status_annotate(fw_status_t status, const char *format, ...) FW_PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

#endif
