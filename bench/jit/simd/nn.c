/* nn.c — a small quantized neural network: int8 dense layers (i16 products
 * summed pairwise with i32x4.dot_i16x8_s after sign extension), int32 bias,
 * ReLU with i32x4.max, requantized to int8 with saturating narrows; then a
 * float layer (f32x4 multiply-add, max for ReLU). The scalar twin computes
 * the same integers and the same float sums in the same order. */
#include "simd.h"
#define IN 256
#define HID 128
#define OUT 16
static int8_t w1[HID][IN], x[IN], h8[HID];
static int32_t b1[HID];
static float w2[OUT][HID], b2[OUT], o[OUT];

static int32_t dot_i8(const int8_t *a, const int8_t *b, int n) {
#if HAVE_SIMD
  v128_t acc = wasm_i32x4_splat(0);
  for (int i = 0; i < n; i += 16) {
    v128_t va = wasm_v128_load(a + i), vb = wasm_v128_load(b + i);
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(va), wasm_i16x8_extend_low_i8x16(vb)));
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(va), wasm_i16x8_extend_high_i8x16(vb)));
  }
  return wasm_i32x4_extract_lane(acc, 0) + wasm_i32x4_extract_lane(acc, 1) + wasm_i32x4_extract_lane(acc, 2) +
         wasm_i32x4_extract_lane(acc, 3);
#else
  int32_t s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
#endif
}

static void layer1(void) {
  for (int j = 0; j < HID; j += 8) {
    int32_t v[8];
    for (int k = 0; k < 8; k++) v[k] = (dot_i8(w1[j + k], x, IN) + b1[j + k]) >> 7;
#if HAVE_SIMD
    v128_t lo = wasm_i32x4_max(wasm_v128_load(v), wasm_i32x4_splat(0));
    v128_t hi = wasm_i32x4_max(wasm_v128_load(v + 4), wasm_i32x4_splat(0));
    v128_t n16 = wasm_i16x8_narrow_i32x4(lo, hi);
    v128_t n8 = wasm_i8x16_narrow_i16x8(n16, n16);
    wasm_v128_store64_lane(h8 + j, n8, 0);
#else
    for (int k = 0; k < 8; k++) {
      int32_t r = v[k] < 0 ? 0 : v[k];
      h8[j + k] = (int8_t)(r > 127 ? 127 : r);
    }
#endif
  }
}

static void layer2(void) {
  for (int k = 0; k < OUT; k++) {
#if HAVE_SIMD
    v128_t acc = wasm_f32x4_splat(0);
    for (int i = 0; i < HID; i += 4) {
      v128_t h = wasm_f32x4_make(h8[i], h8[i + 1], h8[i + 2], h8[i + 3]);
      acc = wasm_f32x4_add(acc, wasm_f32x4_mul(wasm_v128_load(&w2[k][i]), h));
    }
    float s = (wasm_f32x4_extract_lane(acc, 0) + wasm_f32x4_extract_lane(acc, 1)) +
              (wasm_f32x4_extract_lane(acc, 2) + wasm_f32x4_extract_lane(acc, 3));
#else
    float p[4] = {0, 0, 0, 0};
    for (int i = 0; i < HID; i += 4)
      for (int l = 0; l < 4; l++) p[l] = p[l] + w2[k][i + l] * (float)h8[i + l];
    float s = (p[0] + p[1]) + (p[2] + p[3]);
#endif
    s += b2[k];
    o[k] = s > 0 ? s : 0;
  }
}

int main(int argc, char **argv) {
  int reps = scale(argc, argv, 150000);
  uint32_t seed = 2024;
  for (int j = 0; j < HID; j++) {
    for (int i = 0; i < IN; i++) {
      seed = seed * 1103515245u + 12345u;
      w1[j][i] = (int8_t)(seed >> 24);
    }
    b1[j] = (int32_t)(j * 37) - 2000;
  }
  for (int k = 0; k < OUT; k++) {
    for (int i = 0; i < HID; i++) w2[k][i] = (float)((k * 31 + i * 17) % 29 - 14) / 64.0f;
    b2[k] = (float)k / 8.0f - 1.0f;
  }
  uint32_t h = 2166136261u;
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < IN; i++) x[i] = (int8_t)((i * 13 + r * 7) % 251 - 125);
    layer1();
    layer2();
    h = fnv(h, o, sizeof o);
  }
  printf("nn %08x\n", h);
  return 0;
}
