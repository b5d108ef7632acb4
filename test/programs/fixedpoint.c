/* fixedpoint.c — Q16.16 fixed-point arithmetic: multiply and divide with
 * 64-bit intermediates and rounding, CORDIC sine/cosine and atan2, an
 * integer square root (bit by bit) and a fixed-point Newton reciprocal;
 * prints results in fixed point and compares them with double math. */
#include "common.h"

typedef int32_t fix;
#define ONE 65536
static fix fmul(fix a, fix b) { return (fix)(((int64_t)a * b + (1 << 15)) >> 16); }
static fix fdiv(fix a, fix b) { return (fix)(((int64_t)a * 65536 + (b / 2)) / b); }
static fix from_d(double d) { return (fix)(d * ONE + (d < 0 ? -0.5 : 0.5)); }
static double to_d(fix f) { return f / 65536.0; }

static const fix atan_tab[16] = {51472, 30386, 16055, 8150, 4091, 2047, 1024, 512, 256, 128, 64, 32, 16, 8, 4, 2};
#define CORDIC_K 39797 /* 0.607253 */

static void cordic(fix angle, fix *s, fix *c) { /* |angle| <= pi/2 */
  fix x = CORDIC_K, y = 0, z = angle;
  for (int i = 0; i < 16; i++) {
    fix nx, ny;
    if (z >= 0) nx = x - (y >> i), ny = y + (x >> i), z -= atan_tab[i];
    else nx = x + (y >> i), ny = y - (x >> i), z += atan_tab[i];
    x = nx, y = ny;
  }
  *s = y, *c = x;
}
static fix cordic_atan2(fix y, fix x) {
  fix z = 0;
  if (x < 0) { /* rotate by pi */
    x = -x, y = -y;
    z = y > 0 ? -205887 : 205887;
  }
  for (int i = 0; i < 16; i++) {
    fix nx;
    if (y > 0) nx = x + (y >> i), y = y - (x >> i), z += atan_tab[i];
    else nx = x - (y >> i), y = y + (x >> i), z -= atan_tab[i];
    x = nx;
  }
  return z;
}
static uint32_t isqrt(uint32_t n) {
  uint32_t r = 0, bit = 1u << 30;
  while (bit > n) bit >>= 2;
  while (bit) {
    if (n >= r + bit) n -= r + bit, r = (r >> 1) + bit;
    else r >>= 1;
    bit >>= 2;
  }
  return r;
}
static fix recip(fix d) { /* 1/d for d in [0.5, 1) by Newton */
  fix x = from_d(2.9142) - 2 * d;
  for (int i = 0; i < 4; i++) x = fmul(x, 2 * ONE - fmul(d, x));
  return x;
}

int main(void) {
  int worst = 0;
  for (int deg = -90; deg <= 90; deg += 15) {
    fix a = from_d(deg * 3.14159265358979 / 180), s, c;
    cordic(a, &s, &c);
    printf("%4d deg: sin %.4f cos %.4f\n", deg, to_d(s), to_d(c));
    ck((uint32_t)s);
    ck((uint32_t)c);
    fix back = cordic_atan2(s, c);
    int err = back - a < 0 ? a - back : back - a;
    if (err > worst) worst = err;
  }
  printf("atan2 round trip worst error %d/65536\n", worst);
  fix acc = ONE;
  for (int i = 1; i <= 12; i++) {
    acc = fmul(acc, from_d(1.0 + 1.0 / i));
    ck((uint32_t)acc);
  }
  printf("product (1+1/i) for i=1..12 = %.4f\n", to_d(acc));
  printf("divisions: %.5f %.5f %.5f\n", to_d(fdiv(ONE, 3 * ONE)), to_d(fdiv(-7 * ONE, 2 * ONE + 1)),
         to_d(fdiv(from_d(123.456), from_d(-0.5))));
  uint32_t sq = 0;
  for (uint32_t n = 0; n < 100000; n += 997) sq = sq * 7 + isqrt(n);
  printf("isqrt chain %08" PRIx32 " isqrt(2^32-1) %" PRIu32 "\n", sq, isqrt(0xffffffffu));
  ck(sq);
  for (double d = 0.5; d < 1.0; d += 0.125) printf("recip(%.3f) = %.4f\n", d, to_d(recip(from_d(d))));
  ck_print("fixedpoint");
  return worst > 64;
}
