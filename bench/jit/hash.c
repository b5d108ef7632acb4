/* hash.c — FNV-1a and a murmur-style 64-bit mix over a memory buffer. */
#include <stdint.h>
#include <stdio.h>
#define N (1 << 20)
static uint8_t buf[N];
int main(void) {
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < N; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; buf[i] = (uint8_t)x; }
  uint32_t f = 2166136261u;
  uint64_t h = 0;
  for (int rep = 0; rep < 500; rep++) {
    for (int i = 0; i < N; i++) f = (f ^ buf[i]) * 16777619u;
    const uint64_t *w = (const uint64_t *)buf;
    for (int i = 0; i < N / 8; i++) {
      uint64_t k = w[i] * 0x87c37b91114253d5ull;
      k = (k << 31) | (k >> 33);
      h ^= k * 0x4cf5ad432745937full;
      h = ((h << 27) | (h >> 37)) * 5 + 0x52dce729;
    }
    buf[rep % N] ^= (uint8_t)h;
  }
  printf("hash %u %llu\n", f, (unsigned long long)h);
  return 0;
}
