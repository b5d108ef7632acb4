/* bits.c — bit tricks: popcount, leading/trailing zeros (builtins and
 * portable loops, compared), bit reversal, byte swaps, rotates, Gray
 * code, next permutation of set bits, sign extension through narrow
 * types, and power-of-two rounding. */
#include "common.h"

static int pop_loop(uint32_t x) {
  int n = 0;
  while (x) x &= x - 1, n++;
  return n;
}
static int clz_loop(uint32_t x) {
  int n = 0;
  if (!x) return 32;
  while (!(x & 0x80000000u)) x <<= 1, n++;
  return n;
}
static int ctz_loop(uint64_t x) {
  int n = 0;
  if (!x) return 64;
  while (!(x & 1)) x >>= 1, n++;
  return n;
}
static uint32_t rev32(uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
static uint32_t bswap32(uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}
static uint32_t next_same_pop(uint32_t v) {
  uint32_t t = v | (v - 1);
  return (t + 1) | (((~t & -~t) - 1) >> (__builtin_ctz(v) + 1));
}
static uint32_t round_pow2(uint32_t v) {
  v--;
  v |= v >> 1; v |= v >> 2; v |= v >> 4; v |= v >> 8; v |= v >> 16;
  return v + 1;
}

int main(void) {
  int mismatches = 0;
  for (int i = 0; i < 2000; i++) {
    uint32_t x = rng();
    if (i % 7 == 0) x >>= (i % 31);
    uint64_t hi = rng(), y = (hi << 32 | rng()) << (i % 50);
    int p = __builtin_popcount(x), c = x ? __builtin_clz(x) : 32, t = y ? __builtin_ctzll(y) : 64;
    if (p != pop_loop(x) || c != clz_loop(x) || t != ctz_loop(y)) mismatches++;
    ck((uint32_t)(p | c << 8 | t << 16));
    ck(rev32(x) ^ bswap32(x));
    if (bswap32(x) != __builtin_bswap32(x)) mismatches++;
    ck64(__builtin_bswap64(y) ^ (uint64_t)__builtin_popcountll(y));
  }
  printf("builtin/loop mismatches %d\n", mismatches);
  printf("rev32(1) %08" PRIx32 " rev32(0xf0) %08" PRIx32 "\n", rev32(1), rev32(0xf0));
  uint32_t g = 0;
  for (uint32_t i = 0; i < 16; i++) {
    uint32_t gray = i ^ (i >> 1), back = gray;
    for (uint32_t s = 1; s < 32; s <<= 1) back ^= back >> s;
    printf("%" PRIx32 "%s", gray, i < 15 ? " " : "\n");
    if (back != i) mismatches++;
    g = g * 17 + gray;
  }
  ck(g);
  uint32_t v = 0x7;
  for (int i = 0; i < 20; i++) {
    v = next_same_pop(v);
    ck(v);
  }
  printf("20th 3-bit successor %08" PRIx32 "\n", v);
  for (uint32_t x = 1; x < 70000; x = x * 3 + 1) printf("%" PRIu32 "->%" PRIu32 " ", x, round_pow2(x));
  printf("\n");
  int8_t s8 = (int8_t)0xf0;
  int16_t s16 = (int16_t)0x8001;
  uint8_t u8 = 0xf0;
  int32_t sx = s8, sx16 = s16, ux = u8;
  printf("sext8 %" PRId32 " sext16 %" PRId32 " zext8 %" PRId32 " mix %" PRId32 "\n", sx, sx16, ux,
         (int32_t)(int8_t)(uint8_t)(sx16 >> 3));
  int32_t neg = -37;
  printf("sar %" PRId32 " shr %" PRIu32 " abs-trick %" PRId32 " sign %" PRId32 "\n", neg >> 2, (uint32_t)neg >> 28,
         (neg ^ (neg >> 31)) - (neg >> 31), (neg > 0) - (neg < 0));
  uint32_t m = 0;
  for (int i = 0; i < 32; i += 3) m |= 1u << i;
  printf("mask %08" PRIx32 " parity %d lowest %08" PRIx32 " clear-lowest %08" PRIx32 "\n", m, __builtin_parity(m),
         m & -m, m & (m - 1));
  ck(m);
  ck_print("bits");
  return mismatches;
}
