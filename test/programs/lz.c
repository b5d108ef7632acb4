/* lz.c — an LZ77-style compressor with a hash chain over 3-byte prefixes
 * (window 4 KiB, matches of 3..18 bytes), a byte-oriented token format
 * (flag bytes, literals, 2-byte offset+length pairs), and the
 * decompressor; round trips several inputs and checks them byte for byte. */
#include <stdlib.h>
#include <string.h>
#include "common.h"

#define WIN 4096
#define MINM 3
#define MAXM 18
#define HBITS 12

static int32_t head[1 << HBITS];
static int32_t prev_pos[1 << 15];

static uint32_t hash3(const uint8_t *p) { return ((uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]) * 2654435761u >> (32 - HBITS); }

/* Output: groups of a flag byte then 8 items; bit set = match (2 bytes:
 * 12-bit offset-1, 4-bit length-3), clear = literal byte. */
static uint32_t compress(const uint8_t *in, uint32_t n, uint8_t *out) {
  for (int i = 0; i < (1 << HBITS); i++) head[i] = -1;
  uint32_t o = 0, i = 0;
  int bit = 8;
  uint32_t flag_at = 0;
  while (i < n) {
    if (bit == 8) {
      flag_at = o;
      out[o++] = 0;
      bit = 0;
    }
    uint32_t best_len = 0, best_off = 0;
    if (i + MINM <= n) {
      uint32_t h = hash3(in + i);
      int chain = 0;
      for (int32_t c = head[h]; c >= 0 && i - (uint32_t)c <= WIN && chain < 32; c = prev_pos[c], chain++) {
        uint32_t l = 0;
        while (l < MAXM && i + l < n && in[c + l] == in[i + l]) l++;
        if (l > best_len) {
          best_len = l;
          best_off = i - (uint32_t)c;
        }
      }
    }
    uint32_t step = best_len >= MINM ? best_len : 1;
    if (best_len >= MINM) {
      out[flag_at] |= (uint8_t)(1u << bit);
      uint32_t v = (best_off - 1) << 4 | (best_len - MINM);
      out[o++] = (uint8_t)(v >> 8);
      out[o++] = (uint8_t)v;
    } else {
      out[o++] = in[i];
    }
    for (uint32_t k = 0; k < step; k++, i++)
      if (i + MINM <= n) {
        uint32_t h = hash3(in + i);
        prev_pos[i] = head[h];
        head[h] = (int32_t)i;
      }
    bit++;
  }
  return o;
}

static uint32_t decompress(const uint8_t *in, uint32_t n, uint8_t *out) {
  uint32_t i = 0, o = 0;
  while (i < n) {
    uint8_t flags = in[i++];
    for (int bit = 0; bit < 8 && i < n; bit++) {
      if (flags >> bit & 1) {
        uint32_t v = (uint32_t)in[i] << 8 | in[i + 1];
        i += 2;
        uint32_t off = (v >> 4) + 1, len = (v & 15) + MINM;
        for (uint32_t k = 0; k < len; k++, o++) out[o] = out[o - off];
      } else {
        out[o++] = in[i++];
      }
    }
  }
  return o;
}

static uint8_t src[12000], packed[14000], unpacked[12000];

static uint32_t make_input(int kind) {
  uint32_t n = 0;
  static const char *words[] = {"lorem ", "ipsum ", "dolor ", "sit ", "amet, ", "consectetur ", "adipiscing ",
                                "elit. ", "sed ", "do ", "eiusmod ", "tempor\n"};
  switch (kind) {
  case 0: /* text made of a small vocabulary */
    while (n < 10000) {
      const char *w = words[rng() % 12];
      uint32_t l = (uint32_t)strlen(w);
      if (n + l > 10000) break;
      memcpy(src + n, w, l);
      n += l;
    }
    return n;
  case 1: /* random bytes: incompressible */
    for (n = 0; n < 3000; n++) src[n] = (uint8_t)rng();
    return n;
  case 2: /* long runs */
    for (n = 0; n < 8000; n++) src[n] = (uint8_t)("aaaaaaaaaaaaaaaabbbbbbbbbbcdcdcdcd"[n % 34]);
    return n;
  case 3: /* a number table */
    for (uint32_t k = 0; n < 9000; k++) n += (uint32_t)snprintf((char *)src + n, 32, "%u:%u,", (unsigned)k, (unsigned)(k * k % 977));
    return n;
  default: /* tiny inputs */
    memcpy(src, "abcabcabcab", 11);
    return (uint32_t)(kind - 3);
  }
}

int main(void) {
  int failures = 0;
  for (int kind = 0; kind < 8; kind++) {
    uint32_t n = make_input(kind);
    uint32_t c = compress(src, n, packed);
    memset(unpacked, 0, sizeof unpacked);
    uint32_t d = decompress(packed, c, unpacked);
    int same = d == n && memcmp(src, unpacked, n) == 0;
    uint32_t h = 0;
    for (uint32_t k = 0; k < c; k++) h = h * 257 + packed[k];
    printf("input %d: %" PRIu32 " -> %" PRIu32 " bytes (hash %08" PRIx32 "), round trip %s\n", kind, n, c, h,
           same ? "ok" : "FAILED");
    ck(h);
    ck(c);
    failures += !same;
  }
  ck_print("lz");
  return failures;
}
