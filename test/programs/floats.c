/* floats.c — double and float arithmetic printed at fixed precision:
 * Newton's square root, series for pi and e, a tiny Mandelbrot set in
 * ASCII, conversions to and from integers, rounding, comparisons and
 * special values (tested, never printed as NaN). No libm beyond sqrt. */
#include <float.h>
#include <math.h>
#include "common.h"

static double newton_sqrt(double x) {
  double g = x > 1 ? x / 2 : 1;
  for (int i = 0; i < 40; i++) g = 0.5 * (g + x / g);
  return g;
}

static float fpoly(float x) { return ((2.5f * x - 1.25f) * x + 0.75f) * x - 3.0f; }

int main(void) {
  for (int i = 1; i <= 5; i++) {
    double x = i * 7.25;
    printf("sqrt(%.2f) newton %.9f libm %.9f\n", x, newton_sqrt(x), sqrt(x));
  }
  double pi = 0;
  for (int k = 0; k < 20000; k++) pi += (k % 2 ? -4.0 : 4.0) / (2 * k + 1);
  printf("leibniz pi %.8f\n", pi);
  double e = 1, term = 1;
  for (int k = 1; k < 20; k++) e += term /= k;
  printf("e %.12f\n", e);

  for (int row = 0; row < 12; row++) {
    char line[41];
    for (int col = 0; col < 40; col++) {
      double cr = -2.0 + col * 0.065, ci = -1.1 + row * 0.2, zr = 0, zi = 0;
      int it = 0;
      while (it < 50 && zr * zr + zi * zi < 4.0) {
        double t = zr * zr - zi * zi + cr;
        zi = 2 * zr * zi + ci;
        zr = t;
        it++;
      }
      line[col] = " .:-=+*#%@"[it % 10];
      ck((uint32_t)it);
    }
    line[40] = 0;
    printf("%s\n", line);
  }

  float f = 0;
  for (int i = 0; i < 1000; i++) f += 0.1f;
  printf("float sum %.6f poly %.5f %.5f\n", f, fpoly(1.5f), fpoly(-0.3f));
  double vals[] = {2.5, -2.5, 3.49999, -0.5, 1e10, -7.9, 123456.789};
  for (int i = 0; i < 7; i++) {
    double v = vals[i];
    int64_t t = (int64_t)v;
    printf("%.5f -> trunc %" PRId64 " floor %.1f ceil %.1f round %.1f rint %.1f\n", v, t, floor(v), ceil(v), round(v),
           rint(v));
    ck64((uint64_t)t);
  }
  uint32_t u = 4000000000u;
  double du = u;
  float fu = (float)u;
  int32_t neg = -123456789;
  printf("u32->f64 %.1f u32->f32 %.1f i32->f32 %.1f f64->u32 %" PRIu32 "\n", du, fu, (float)neg, (uint32_t)(du / 3));
  uint64_t big = 0xfedcba9876543210ull;
  printf("u64->f64 %.1f f64->u64 %" PRIu64 "\n", (double)big, (uint64_t)1.8e19);
  double inf = 1.0 / 0.0 * (vals[0] > 0 ? 1 : -1), nan_ = inf - inf;
  printf("isinf %d isnan %d nan==nan %d nan<1 %d inf>max %d\n", isinf(inf) != 0, isnan(nan_) != 0, nan_ == nan_,
         nan_ < 1, inf > DBL_MAX);
  printf("min/max %.3f %.3f copysign %.1f fabs %.2f\n", fmin(-0.0, 3.5), fmax(2.25, -1.0), copysign(3.0, -0.0),
         fabs(-4.75));
  printf("sci %.6e %.4e %g %g %g\n", 6.02214076e23, -1.5e-300, 0.0001, 1234567.0, 100.0);
  double acc = 0;
  for (int i = 1; i <= 100; i++) acc += 1.0 / ((double)i * i);
  printf("basel %.10f (pi^2/6 %.10f)\n", acc, pi * pi / 6);
  float fa = 16777216.0f;
  printf("f32 precision %.1f %.1f\n", fa + 1.0f, (double)fa + 1.0);
  ck_print("floats");
  return 0;
}
