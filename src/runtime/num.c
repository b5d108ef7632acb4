/* num.c — scalar float semantics the interpreter needs bit-exact:
 * min/max (NaN and signed zero rules), rounding, and float-to-int
 * conversions (trapping and saturating). Works on raw bits; never invokes
 * C undefined behaviour (no out-of-range float-to-int casts). Shared by the
 * scalar ops and the SIMD lanes. */
#include "runtime.h"

#include <math.h>

#define Q32 0x00400000u
#define Q64 0x0008000000000000ull

static bool nan32(uint32_t a) { return (a & 0x7fffffffu) > 0x7f800000u; }
static bool nan64(uint64_t a) { return (a & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }

uint32_t tl_canon32(uint32_t r) { return nan32(r) ? r | Q32 : r; }
uint64_t tl_canon64(uint64_t r) { return nan64(r) ? r | Q64 : r; }

uint32_t tl_fmin32(uint32_t a, uint32_t b) {
  if (nan32(a)) return a | Q32;
  if (nan32(b)) return b | Q32;
  float x = tl_f32(a), y = tl_f32(b);
  if (x == y) return a | b;                /* -0 wins */
  return x < y ? a : b;
}

uint32_t tl_fmax32(uint32_t a, uint32_t b) {
  if (nan32(a)) return a | Q32;
  if (nan32(b)) return b | Q32;
  float x = tl_f32(a), y = tl_f32(b);
  if (x == y) return a & b;                /* +0 wins */
  return x > y ? a : b;
}

uint64_t tl_fmin64(uint64_t a, uint64_t b) {
  if (nan64(a)) return a | Q64;
  if (nan64(b)) return b | Q64;
  double x = tl_f64(a), y = tl_f64(b);
  if (x == y) return a | b;
  return x < y ? a : b;
}

uint64_t tl_fmax64(uint64_t a, uint64_t b) {
  if (nan64(a)) return a | Q64;
  if (nan64(b)) return b | Q64;
  double x = tl_f64(a), y = tl_f64(b);
  if (x == y) return a & b;
  return x > y ? a : b;
}

uint32_t tl_fnearest32(uint32_t a) { return tl_canon32(tl_f32b(nearbyintf(tl_f32(a)))); }
uint64_t tl_fnearest64(uint64_t a) { return tl_canon64(tl_f64b(nearbyint(tl_f64(a)))); }

/* kind: 0 ceil, 1 floor, 2 trunc, 3 nearest, 4 sqrt */
uint32_t tl_fround32(int kind, uint32_t a) {
  if (nan32(a)) return a | Q32;
  float x = tl_f32(a);
  switch (kind) {
  case 0: x = ceilf(x); break;
  case 1: x = floorf(x); break;
  case 2: x = truncf(x); break;
  case 3: x = nearbyintf(x); break;
  default: x = sqrtf(x); break;
  }
  return tl_f32b(x);
}

uint64_t tl_fround64(int kind, uint64_t a) {
  if (nan64(a)) return a | Q64;
  double x = tl_f64(a);
  switch (kind) {
  case 0: x = ceil(x); break;
  case 1: x = floor(x); break;
  case 2: x = trunc(x); break;
  case 3: x = nearbyint(x); break;
  default: x = sqrt(x); break;
  }
  return tl_f64b(x);
}

/* d is exact (an f32 promotes exactly). Range limits are exclusive bounds
 * of the truncated value. */
static bool in_range(double d, bool is64, bool sign) {
  if (sign && !is64) return d > -2147483649.0 && d < 2147483648.0;
  if (!sign && !is64) return d > -1.0 && d < 4294967296.0;
  if (sign) return d >= -9223372036854775808.0 && d < 9223372036854775808.0;
  return d > -1.0 && d < 18446744073709551616.0;
}

static uint64_t cast(double d, bool is64, bool sign) {
  if (sign) {
    int64_t v = (int64_t)d;
    return is64 ? (uint64_t)v : (uint64_t)(uint32_t)(int32_t)v;
  }
  return (uint64_t)d;
}

int tl_trunc_f64(double d, bool is64, bool sign, uint64_t *out) {
  if (d != d) return 1;
  if (!in_range(d, is64, sign)) return 2;
  *out = cast(d, is64, sign);
  return 0;
}

uint64_t tl_trunc_sat_f64(double d, bool is64, bool sign) {
  if (d != d) return 0;
  if (in_range(d, is64, sign)) return cast(d, is64, sign);
  if (d < 0) {
    if (!sign) return 0;
    return is64 ? (uint64_t)INT64_MIN : (uint64_t)(uint32_t)INT32_MIN;
  }
  if (!sign) return is64 ? UINT64_MAX : UINT32_MAX;
  return is64 ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX;
}
