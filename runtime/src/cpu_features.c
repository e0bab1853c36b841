/* x86-64 microarchitecture levels (x86-64 psABI) of the running processor. */
#include "cpu_features.h"

#include <string.h>

#include "status_internal.h"

#if defined(__x86_64__) && !(defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12)
#include <cpuid.h>
#endif

/* Returns 1 when the processor supports `level` (0..3 for x86-64 .. x86-64-v4). */
static int cpu_supports_level(int level) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
  __builtin_cpu_init();
  switch (level) {
  case 0: return 1;
  case 1: return __builtin_cpu_supports("x86-64-v2") != 0;
  case 2: return __builtin_cpu_supports("x86-64-v3") != 0;
  case 3: return __builtin_cpu_supports("x86-64-v4") != 0;
  default: return 0;
  }
#elif defined(__x86_64__)
  /* Compilers whose __builtin_cpu_supports lacks the level names: the individual
   * features through __builtin_cpu_supports, the rest through CPUID. */
  __builtin_cpu_init();
  if (level == 0) return 1;
  unsigned a, b, c, d;
  unsigned c1 = 0, b7 = 0, c81 = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) c1 = c;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) b7 = b;
  if (__get_cpuid(0x80000001u, &a, &b, &c, &d)) c81 = c;
  int v2 = (c1 & (1u << 13)) /* cx16 */ && (c81 & 1u) /* lahf_lm */ &&
           __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("sse3") &&
           __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("sse4.2") &&
           __builtin_cpu_supports("ssse3");
  if (level == 1) return v2;
  int v3 = v2 && __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
           __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
           (c1 & (1u << 29)) /* f16c */ && __builtin_cpu_supports("fma") &&
           (c81 & (1u << 5)) /* lzcnt */ && (c1 & (1u << 22)) /* movbe */ &&
           (c1 & (1u << 27)) /* osxsave */;
  if (level == 2) return v3;
  int v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl");
  (void)b7;
  return level == 3 && v4;
#else
  (void)level;
  return 0;
#endif
}

fw_status_t fw_cpu_check_isa_level(const char *arch) {
  static const char *const kLevels[] = {"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"};
  if (!arch) return fw_status_make(FW_STATUS_INVALID_ARGUMENT, "CPU ISA level is NULL");
  for (int i = 0; i < 4; ++i) {
    if (strcmp(arch, kLevels[i]) != 0) continue;
    if (cpu_supports_level(i)) return FW_OK;
    return fw_status_make(FW_STATUS_UNSUPPORTED,
                          "CPU ISA level %s is not supported by this processor", arch);
  }
  return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                        "unknown CPU ISA level \"%s\" (expected x86-64, x86-64-v2, "
                        "x86-64-v3 or x86-64-v4)",
                        arch);
}
