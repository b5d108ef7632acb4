/* int64.c — 64-bit integer arithmetic: multiply, signed and unsigned
 * division and remainder, shifts by variable amounts, rotates, compares
 * across the sign boundary, a 64x64->128 multiply by halves, modular
 * exponentiation and a Miller-Rabin primality test. */
#include "common.h"

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) {
  uint64_t r = 0;
  a %= m;
  while (b) {
    if (b & 1) r = (r + a) % m;  /* m < 2^62 so no overflow */
    a = (a << 1) % m;
    b >>= 1;
  }
  return r;
}

static uint64_t powmod(uint64_t b, uint64_t e, uint64_t m) {
  uint64_t r = 1 % m;
  b %= m;
  while (e) {
    if (e & 1) r = mulmod(r, b, m);
    b = mulmod(b, b, m);
    e >>= 1;
  }
  return r;
}

static int is_prime(uint64_t n) {
  if (n < 2) return 0;
  static const uint64_t small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  for (int i = 0; i < 12; i++)
    if (n % small[i] == 0) return n == small[i];
  uint64_t d = n - 1;
  int s = 0;
  while (!(d & 1)) d >>= 1, s++;
  for (int i = 0; i < 7; i++) {
    uint64_t x = powmod(small[i], d, n);
    if (x == 1 || x == n - 1) continue;
    int comp = 1;
    for (int r = 1; r < s && comp; r++) {
      x = mulmod(x, x, n);
      if (x == n - 1) comp = 0;
    }
    if (comp) return 0;
  }
  return 1;
}

static void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
  uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
  uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
  *lo = (mid << 32) | (uint32_t)ll;
  *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static uint64_t rotl(uint64_t x, unsigned k) { return (x << (k & 63)) | (x >> ((64 - k) & 63)); }

int main(void) {
  uint64_t a = 0x0123456789abcdefull, b = 0xfedcba9876543210ull;
  int64_t sa = -1234567890123456789ll, sb = 987654321987ll;
  printf("mul %016" PRIx64 " add %016" PRIx64 " sub %016" PRIx64 "\n", a * b, a + b, a - b);
  printf("udiv %" PRIu64 " urem %" PRIu64 " sdiv %" PRId64 " srem %" PRId64 "\n", b / (a >> 20), b % (a >> 20),
         sa / sb, sa % sb);
  printf("sdiv neg %" PRId64 " %" PRId64 " %" PRId64 "\n", -sa / 7, sa / -7, (-sa) % -7);
  for (unsigned s = 0; s < 64; s += 9) {
    printf("shift %2u: shl %016" PRIx64 " shr %016" PRIx64 " sar %016" PRIx64 " rotl %016" PRIx64 "\n", s, a << s,
           b >> s, (uint64_t)(sa >> s), rotl(b, s));
    ck64(rotl(a, s) ^ (uint64_t)(sa >> s));
  }
  printf("compare: %d %d %d %d\n", sa < sb, (uint64_t)sa < (uint64_t)sb, a > b, (int64_t)b < 0);
  uint64_t hi, lo;
  mul128(a, b, &hi, &lo);
  printf("128-bit product %016" PRIx64 "%016" PRIx64 "\n", hi, lo);
  ck64(hi);
  ck64(lo);
  uint64_t cands[] = {1000000007ull, 1000000009ull, 999999999989ull, 1000000000039ull, 4294967297ull,
                      2305843009213693951ull, 3215031751ull, 1152921504606846883ull};
  for (int i = 0; i < 8; i++) {
    int p = is_prime(cands[i]);
    printf("%" PRIu64 " %s\n", cands[i], p ? "prime" : "composite");
    ck((uint32_t)p);
  }
  printf("powmod %" PRIu64 "\n", powmod(3, 1000000, 1000000007ull));
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < 1000; i++) {
    h ^= (uint64_t)i * 0x9e3779b97f4a7c15ull;
    h *= 1099511628211ull;
    h = rotl(h, 17) - (h >> 11);
  }
  printf("mix %016" PRIx64 "\n", h);
  ck64(h);
  int64_t minv = (int64_t)0x8000000000000000ull;
  printf("min %" PRId64 " min/1 %" PRId64 " -1 %% 3 = %" PRId64 "\n", minv, minv / 1, (int64_t)-1 % 3);
  uint32_t x32 = 0xffffffffu;
  uint64_t widened = x32, sext = (uint64_t)(int64_t)(int32_t)x32;
  printf("zext %016" PRIx64 " sext %016" PRIx64 "\n", widened, sext);
  ck64(widened + sext);
  ck_print("int64");
  return 0;
}
