/* search.c — substring search (first byte and last byte compared 16 at a
 * time, i8x16.eq + bitmask + ctz, then memcmp), as fast strstr/memmem
 * implementations do; the scalar twin finds the same positions. */
#include "simd.h"
#define N (1 << 20)
static char text[N + 64];

static long count(const char *s, long n, const char *pat, long m) {
  long hits = 0, i = 0;
#if HAVE_SIMD
  v128_t first = wasm_i8x16_splat(pat[0]), last = wasm_i8x16_splat(pat[m - 1]);
  for (; i + 16 + m <= n; i += 16) {
    v128_t f = wasm_i8x16_eq(first, wasm_v128_load(s + i));
    v128_t l = wasm_i8x16_eq(last, wasm_v128_load(s + i + m - 1));
    uint32_t mask = wasm_i8x16_bitmask(wasm_v128_and(f, l));
    while (mask) {
      int b = __builtin_ctz(mask);
      hits += memcmp(s + i + b + 1, pat + 1, (size_t)(m - 2)) == 0;
      mask &= mask - 1;
    }
  }
#endif
  for (; i + m <= n; i++) hits += s[i] == pat[0] && memcmp(s + i, pat, (size_t)m) == 0;
  return hits;
}

int main(int argc, char **argv) {
  int reps = scale(argc, argv, 4000);
  static const char *words[] = {"wasm ", "simd ", "lane ", "vector ", "shuffle ", "swizzle ", "\n", "the "};
  long at = 0;
  uint32_t seed = 7;
  while (at < N - 16) {
    seed = seed * 1103515245u + 12345u;
    const char *w = words[(seed >> 16) % 8];
    size_t l = strlen(w);
    memcpy(text + at, w, l);
    at += (long)l;
  }
  static const char *pats[] = {"simd lane", "vector shuffle", "the wasm", "swizzle \nthe"};
  uint32_t h = 2166136261u;
  for (int r = 0; r < reps; r++) {
    long c = count(text, at, pats[r % 4], (long)strlen(pats[r % 4]));
    text[(r * 7919) % at] = ' ';
    int32_t c32 = (int32_t)c;
    h = fnv(h, &c32, sizeof c32);
  }
  printf("search %08x\n", h);
  return 0;
}
