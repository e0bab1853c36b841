/* Status objects: owned error values with a code and a message. */
#include "status_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fw_status_object_t {
  fw_status_code_t code;
  char message[]; /* NUL-terminated */
};

/* Returned when allocating a status fails; never freed. Immutable. */
static const struct {
  fw_status_code_t code;
  char message[16];
} kOutOfMemory = {FW_STATUS_RESOURCE_EXHAUSTED, "out of memory"};

#define FW_OOM_STATUS ((fw_status_t)(void *)&kOutOfMemory)

static fw_status_t status_vmake(fw_status_code_t code, const char *prefix,
                                const char *format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int len = vsnprintf(NULL, 0, format, copy);
  va_end(copy);
  if (len < 0) len = 0;
  size_t prefix_len = prefix ? strlen(prefix) + 2 : 0;
  struct fw_status_object_t *s =
      malloc(sizeof(*s) + prefix_len + (size_t)len + 1);
  if (!s) return FW_OOM_STATUS;
  s->code = code == FW_STATUS_OK ? FW_STATUS_INTERNAL : code;
  char *p = s->message;
  if (prefix) {
    memcpy(p, prefix, prefix_len - 2);
    memcpy(p + prefix_len - 2, ": ", 2);
    p += prefix_len;
  }
  vsnprintf(p, (size_t)len + 1, format, args);
  /* Keep messages on one line. */
  for (char *c = s->message; *c; ++c)
    if (*c == '\n' || *c == '\r') *c = ' ';
  return s;
}

fw_status_t fw_status_make(fw_status_code_t code, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fw_status_t s = status_vmake(code, NULL, format, args);
  va_end(args);
  return s;
}

fw_status_t fw_status_create(fw_status_code_t code, const char *message) {
  if (code == FW_STATUS_OK) return FW_OK;
  return fw_status_make(code, "%s", message ? message : "");
}

fw_status_t fw_status_annotate(fw_status_t status, const char *format, ...) {
  if (status == FW_OK) return FW_OK;
  if (status == FW_OOM_STATUS) return status;
  char prefix[512];
  va_list args;
  va_start(args, format);
  vsnprintf(prefix, sizeof(prefix), format, args);
  va_end(args);
  fw_status_t s = fw_status_make(status->code, "%s: %s", prefix, status->message);
  fw_status_free(status);
  return s;
}

fw_status_code_t fw_status_code(fw_status_t status) {
  return status ? status->code : FW_STATUS_OK;
}

const char *fw_status_message(fw_status_t status) {
  return status ? status->message : "OK";
}

void fw_status_free(fw_status_t status) {
  if (status == FW_OK || status == FW_OOM_STATUS) return;
  free(status);
}

const char *fw_status_code_name(fw_status_code_t code) {
  switch (code) {
  case FW_STATUS_OK: return "OK";
  case FW_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
  case FW_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
  case FW_STATUS_NOT_FOUND: return "NOT_FOUND";
  case FW_STATUS_DATA_LOSS: return "DATA_LOSS";
  case FW_STATUS_UNSUPPORTED: return "UNSUPPORTED";
  case FW_STATUS_RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
  case FW_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
  case FW_STATUS_INTERNAL: return "INTERNAL";
  case FW_STATUS_IO: return "IO";
  }
  return "UNKNOWN";
}
