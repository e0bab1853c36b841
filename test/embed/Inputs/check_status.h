/* For the embedding tests' C programs: prints a failed status and frees it. */
#ifndef FW_TEST_EMBED_CHECK_STATUS_H_
#define FW_TEST_EMBED_CHECK_STATUS_H_

#include <stdio.h>

#include "fw/runtime.h"

/* 0 for OK; otherwise prints the message to stderr, frees the status and returns 1. */
static inline int check(fw_status_t status) {
  if (!status) return 0;
  fprintf(stderr, "error: %s\n", fw_status_message(status));
  fw_status_free(status);
  return 1;
}

#endif
