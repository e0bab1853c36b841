/* FW_TIER_LIMITS and the tiers' names (memory.h). */
#include "memory.h"

#include <stdint.h>
#include <string.h>

#include "status_internal.h"

static const char *const kTierNames[FW_NUM_TIERS] = {"device", "host", "storage"};

const char *fw_tier_name(fw_tier_t tier) {
  return (unsigned)tier < FW_NUM_TIERS ? kTierNames[tier] : "?";
}

static int parse_size(const char *s, size_t len, uint64_t *out) {
  size_t i = 0;
  uint64_t value = 0;
  if (len == 0 || s[0] < '0' || s[0] > '9') return 0;
  for (; i < len && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (value > (UINT64_MAX - 9) / 10) return 0;
    value = value * 10 + (uint64_t)(s[i] - '0');
  }
  static const struct { const char *suffix; uint64_t scale; } kUnits[] = {
      {"", 1},          {"B", 1},           {"K", 1ull << 10},  {"KiB", 1ull << 10},
      {"KB", 1000ull},  {"M", 1ull << 20},  {"MiB", 1ull << 20}, {"MB", 1000000ull},
      {"G", 1ull << 30}, {"GiB", 1ull << 30}, {"GB", 1000000000ull}, {"T", 1ull << 40},
      {"TiB", 1ull << 40}, {"TB", 1000000000000ull}};
  for (size_t u = 0; u < sizeof(kUnits) / sizeof(kUnits[0]); ++u) {
    size_t n = strlen(kUnits[u].suffix);
    if (len - i != n || strncmp(s + i, kUnits[u].suffix, n) != 0) continue;
    if (value > UINT64_MAX / kUnits[u].scale) return 0;
    *out = value * kUnits[u].scale;
    return 1;
  }
  return 0;
}

int fw_parse_byte_size(const char *text, uint64_t *out_bytes) {
  return text && out_bytes && parse_size(text, strlen(text), out_bytes);
}

fw_status_t fw_parse_tier_limits(const char *text, uint64_t limits[FW_NUM_TIERS]) {
  for (int t = 0; t < FW_NUM_TIERS; ++t) limits[t] = 0;
  if (!text) return FW_OK;
  if (!*text) return FW_OK;
  const char *p = text;
  unsigned seen = 0;
  for (;;) { /* every item, an empty one after a comma too (an error, as before one) */
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    int tier = -1;
    for (int t = 0; eq && t < FW_NUM_TIERS; ++t)
      if ((size_t)(eq - p) == strlen(kTierNames[t]) && !strncmp(p, kTierNames[t], eq - p))
        tier = t;
    if (tier >= 0 && (seen & (1u << tier)))
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "tier limits '%s': the %s tier is given twice", text,
                            kTierNames[tier]);
    if (tier >= 0) seen |= 1u << tier;
    uint64_t value = 0;
    size_t value_len = eq ? len - (size_t)(eq - p) - 1 : 0;
    if (tier >= 0 && value_len == 3 && !strncmp(eq + 1, "min", 3)) {
      if (tier == FW_TIER_STORAGE)
        return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                              "tier limits '%s': 'storage=min' cannot be: storage is the "
                              "bottom tier, where everything that spills must fit",
                              text);
      limits[tier] = FW_TIER_LIMIT_MIN;
      if (!end) return FW_OK;
      p = end + 1;
      continue;
    }
    if (tier < 0 || !parse_size(eq + 1, value_len, &value) || value == 0 ||
        value == FW_TIER_LIMIT_MIN)
      return fw_status_make(FW_STATUS_INVALID_ARGUMENT,
                            "tier limits '%s': expected a comma-separated list of "
                            "TIER=SIZE with TIER one of device, host, storage and SIZE a "
                            "positive number with an optional unit (B; K, KiB or KB; M, MiB "
                            "or MB; G, GiB or GB; T, TiB or TB), "
                            "or 'min' for the device and host tiers, got '%.*s'",
                            text, (int)len, p);
    limits[tier] = value;
    if (!end) return FW_OK;
    p = end + 1;
  }
}
