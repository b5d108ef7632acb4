/* dot.c — float dot products and saxpy with wasm_simd128.h intrinsics
 * (four lanes of partial sums; the scalar twin keeps the same four sums in
 * the same order, so both builds print the same bits). */
#include "simd.h"
#define N 4096
static float a[N], b[N], y[N];

static float dot(const float *p, const float *q, int n) {
#if HAVE_SIMD
  v128_t s = wasm_f32x4_splat(0);
  for (int i = 0; i < n; i += 4) s = wasm_f32x4_add(s, wasm_f32x4_mul(wasm_v128_load(p + i), wasm_v128_load(q + i)));
  return (wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1)) +
         (wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3));
#else
  float s[4] = {0, 0, 0, 0};
  for (int i = 0; i < n; i += 4)
    for (int k = 0; k < 4; k++) s[k] = s[k] + p[i + k] * q[i + k];
  return (s[0] + s[1]) + (s[2] + s[3]);
#endif
}

static void saxpy(float *out, float k, const float *p, int n) {
#if HAVE_SIMD
  v128_t kk = wasm_f32x4_splat(k);
  for (int i = 0; i < n; i += 4)
    wasm_v128_store(out + i, wasm_f32x4_add(wasm_v128_load(out + i), wasm_f32x4_mul(kk, wasm_v128_load(p + i))));
#else
  for (int i = 0; i < n; i++) out[i] = out[i] + k * p[i];
#endif
}

int main(int argc, char **argv) {
  int reps = scale(argc, argv, 1000000);
  for (int i = 0; i < N; i++) {
    a[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
    b[i] = (float)((i * 53) % 103) / 103.0f - 0.5f;
    y[i] = 0;
  }
  uint32_t h = 2166136261u;
  for (int r = 0; r < reps; r++) {
    float d = dot(a, b, N);
    saxpy(y, d * 1e-3f, a, N);
    b[r % N] += d * 1e-4f;
    h = fnv(h, &d, sizeof d);
  }
  h = fnv(h, y, sizeof y);
  printf("dot %08x\n", h);
  return 0;
}
