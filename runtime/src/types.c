/* Element types and tensor type formatting. */
#include "fw/runtime.h"

#include <stdio.h>
#include <string.h>

static const struct {
  const char *name;
  size_t size;
} kElementTypes[] = {
    {"unknown", 0}, {"f32", 4}, {"f16", 2}, {"f64", 8}, {"bf16", 2},
    {"i1", 1},      {"i8", 1},  {"i16", 2}, {"i32", 4}, {"i64", 8},
};

#define FW_NUM_ELEMENT_TYPES (sizeof(kElementTypes) / sizeof(kElementTypes[0]))

size_t fw_element_type_size(fw_element_type_t type) {
  if ((unsigned)type >= FW_NUM_ELEMENT_TYPES) return 0;
  return kElementTypes[type].size;
}

const char *fw_element_type_name(fw_element_type_t type) {
  if ((unsigned)type >= FW_NUM_ELEMENT_TYPES) return kElementTypes[0].name;
  return kElementTypes[type].name;
}

fw_element_type_t fw_element_type_parse(const char *name) {
  if (!name) return (fw_element_type_t)0;
  for (unsigned i = 1; i < FW_NUM_ELEMENT_TYPES; ++i)
    if (strcmp(name, kElementTypes[i].name) == 0) return (fw_element_type_t)i;
  return (fw_element_type_t)0;
}

size_t fw_tensor_type_format(const fw_tensor_type_t *type, char *buffer, size_t capacity) {
  char tmp[FW_MAX_RANK * 22 + 16];
  size_t n = 0;
  if (!type) {
    n = (size_t)snprintf(tmp, sizeof(tmp), "<null>");
  } else {
    uint32_t rank = type->rank <= FW_MAX_RANK ? type->rank : FW_MAX_RANK;
    for (uint32_t i = 0; i < rank; ++i) {
      if (type->dims[i] < 0)
        n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, "?x");
      else
        n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, "%lldx", (long long)type->dims[i]);
    }
    n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, "%s",
                          fw_element_type_name(type->element_type));
  }
  if (capacity > 0) {
    size_t c = n < capacity - 1 ? n : capacity - 1;
    memcpy(buffer, tmp, c);
    buffer[c] = 0;
  }
  return n;
}
