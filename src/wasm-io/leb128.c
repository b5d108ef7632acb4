/* leb128.c — LEB128 decoding and minimal encoding.
 * Decoders never read past `end`, refuse encodings longer than the type
 * allows (ceil(N/7) bytes) and unused high bits that are not a sign or zero
 * extension; they return the bytes consumed, or 0 on any error. */
#include "wasmio.h"

/* Unsigned N-bit value: at most ceil(N/7) bytes; the last byte's bits above
 * N must be zero. */
static size_t read_u(const uint8_t *p, const uint8_t *end, unsigned bits, uint64_t *out) {
  uint64_t v = 0;
  unsigned max = (bits + 6) / 7;
  for (unsigned i = 0; i < max; i++) {
    if (p + i >= end) return 0;
    uint8_t b = p[i];
    unsigned shift = 7 * i;
    if (i == max - 1) {
      unsigned used = bits - shift; /* value bits left in this byte */
      if (b & 0x80) return 0;
      if (used < 7 && (b >> used)) return 0;
    }
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return i + 1;
    }
  }
  return 0;
}

/* Signed N-bit value: the last byte's bits above N-1 must all equal the
 * sign bit. */
static size_t read_s(const uint8_t *p, const uint8_t *end, unsigned bits, int64_t *out) {
  uint64_t v = 0;
  unsigned max = (bits + 6) / 7;
  for (unsigned i = 0; i < max; i++) {
    if (p + i >= end) return 0;
    uint8_t b = p[i];
    unsigned shift = 7 * i;
    if (i == max - 1) {
      if (b & 0x80) return 0;
      unsigned used = bits - shift; /* 1..7 bits of value incl. sign */
      if (used < 7) {
        int sign = (b >> (used - 1)) & 1;
        uint8_t hi = (uint8_t)(b & 0x7f) >> (used - 1); /* sign bit and above */
        uint8_t want = sign ? (uint8_t)(0x7f >> (used - 1)) : 0;
        if (hi != want) return 0;
      }
    }
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      shift += 7;
      if (shift < 64 && (b & 0x40)) v |= ~(uint64_t)0 << shift;
      *out = (int64_t)v;
      return i + 1;
    }
  }
  return 0;
}

size_t tl_leb_read_u32(const uint8_t *p, const uint8_t *end, uint32_t *out) {
  uint64_t v;
  size_t n = read_u(p, end, 32, &v);
  if (n) *out = (uint32_t)v;
  return n;
}

size_t tl_leb_read_u64(const uint8_t *p, const uint8_t *end, uint64_t *out) {
  return read_u(p, end, 64, out);
}

size_t tl_leb_read_s32(const uint8_t *p, const uint8_t *end, int32_t *out) {
  int64_t v;
  size_t n = read_s(p, end, 32, &v);
  if (n) *out = (int32_t)v;
  return n;
}

size_t tl_leb_read_s33(const uint8_t *p, const uint8_t *end, int64_t *out) {
  return read_s(p, end, 33, out);
}

size_t tl_leb_read_s64(const uint8_t *p, const uint8_t *end, int64_t *out) {
  return read_s(p, end, 64, out);
}

void tl_leb_write_u64(tl_buf *b, uint64_t v) {
  do {
    uint8_t c = v & 0x7f;
    v >>= 7;
    if (v) c |= 0x80;
    tl_buf_byte(b, c);
  } while (v);
}

void tl_leb_write_u32(tl_buf *b, uint32_t v) { tl_leb_write_u64(b, v); }

void tl_leb_write_s64(tl_buf *b, int64_t v) {
  for (;;) {
    uint8_t c = (uint8_t)(v & 0x7f);
    v >>= 7; /* arithmetic shift: implementation-defined but universal */
    bool done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
    if (!done) c |= 0x80;
    tl_buf_byte(b, c);
    if (done) return;
  }
}

void tl_leb_write_s32(tl_buf *b, int32_t v) { tl_leb_write_s64(b, v); }
