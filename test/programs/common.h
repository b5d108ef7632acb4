/* common.h — helpers shared by the execution corpus (the .c files of test/programs):
 * a running checksum (FNV-1a over 32-bit words) and a fixed-seed PRNG
 * (xorshift32). Everything here is deterministic and independent of
 * sizeof(long) or pointer width, so native and wasm32 builds agree. */
#ifndef CORPUS_COMMON_H
#define CORPUS_COMMON_H
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

static uint32_t ck_state = 2166136261u;

static inline void ck(uint32_t v) {
  for (int i = 0; i < 4; i++) {
    ck_state ^= (v >> (8 * i)) & 0xff;
    ck_state *= 16777619u;
  }
}

static inline void ck64(uint64_t v) {
  ck((uint32_t)v);
  ck((uint32_t)(v >> 32));
}

static uint32_t rng_state = 0x12345678u;

static inline uint32_t rng(void) {
  uint32_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return rng_state = x;
}

static inline void ck_print(const char *name) { printf("%s checksum %08" PRIx32 "\n", name, ck_state); }

#endif
