/* memops.c — memory operations at odd sizes and alignments: memcpy,
 * memmove (both directions, overlapping), memset, memcmp and memchr;
 * unaligned 16/32/64-bit loads and stores through memcpy; byte-order
 * conversion; a small arena allocator with alignment; realloc growth. */
#include <stdlib.h>
#include <string.h>
#include "common.h"

static uint8_t buf[1024], ref[1024];

static uint64_t load64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static void store32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint16_t load16be(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static uint8_t arena[4096];
static uint32_t arena_top;
static void *arena_alloc(uint32_t size, uint32_t align) {
  arena_top = (arena_top + align - 1) & ~(align - 1);
  if (arena_top + size > sizeof arena) return NULL;
  void *p = arena + arena_top;
  arena_top += size;
  return p;
}

int main(void) {
  for (int i = 0; i < 1024; i++) buf[i] = ref[i] = (uint8_t)(i * 13 + 7);
  int bad = 0;
  for (int round = 0; round < 200; round++) {
    uint32_t src = rng() % 512, dst = rng() % 512, n = rng() % 300;
    memmove(buf + dst, buf + src, n);
    /* reference: byte by byte through a temporary */
    uint8_t t[300];
    for (uint32_t k = 0; k < n; k++) t[k] = ref[src + k];
    for (uint32_t k = 0; k < n; k++) ref[dst + k] = t[k];
    if (memcmp(buf, ref, sizeof buf)) bad++;
    if (round % 4 == 0) {
      uint32_t at = rng() % 900, len = rng() % 100;
      memset(buf + at, round, len);
      for (uint32_t k = 0; k < len; k++) ref[at + k] = (uint8_t)round;
    }
  }
  uint32_t h = 0;
  for (int i = 0; i < 1024; i++) h = h * 31 + buf[i];
  printf("memmove/memset rounds: %d mismatches, hash %08" PRIx32 "\n", bad, h);
  ck(h);

  uint64_t s64 = 0;
  for (int off = 0; off < 16; off++) s64 = s64 * 3 + load64(buf + off);
  for (int off = 1; off < 40; off += 3) store32(buf + off, (uint32_t)off * 0x01010101u);
  printf("unaligned loads %016" PRIx64 " be16 %04x\n", s64, load16be(buf + 1));
  ck64(s64);
  ck64(load64(buf + 3));

  uint8_t *p = memchr(buf, 0x55, sizeof buf);
  printf("memchr 0x55 at %d, memcmp sign %d %d\n", p ? (int)(p - buf) : -1, memcmp("abc", "abd", 3) < 0,
         memcmp("b", "a", 1) > 0);

  arena_top = 0;
  uint32_t offs = 0;
  for (int i = 0; i < 40; i++) {
    uint32_t align = 1u << (i % 5), size = (uint32_t)(i * 7 % 23) + 1;
    uint8_t *q = arena_alloc(size, align);
    if (!q) break;
    memset(q, i, size);
    offs = offs * 17 + (uint32_t)(q - arena);
  }
  printf("arena top %" PRIu32 " offsets %08" PRIx32 "\n", arena_top, offs);
  ck(offs);

  uint32_t *v = NULL, cap = 0, n = 0, sum = 0;
  for (uint32_t i = 0; i < 3000; i++) {
    if (n == cap) {
      cap = cap ? cap * 2 : 4;
      uint32_t *nv = realloc(v, cap * sizeof *v);
      if (!nv) return 99;
      v = nv;
    }
    v[n++] = i * i;
  }
  for (uint32_t i = 0; i < n; i += 7) sum += v[i];
  printf("realloc vector %" PRIu32 " items, cap %" PRIu32 ", sum %" PRIu32 "\n", n, cap, sum);
  free(v);
  ck(sum);
  uint32_t bytes = 0xa1b2c3d4;
  uint8_t le[4];
  memcpy(le, &bytes, 4);
  printf("little-endian bytes %02x %02x %02x %02x\n", le[0], le[1], le[2], le[3]);
  ck_print("memops");
  return bad;
}
