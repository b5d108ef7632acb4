/* hashes.c — checksums and hashes over fixed inputs: CRC-32 (table and
 * bitwise, compared), Adler-32, FNV-1a 32 and 64, MurmurHash3's 32-bit
 * finalizer, and SHA-256 (checked against its published test vectors). */
#include <string.h>
#include "common.h"

static uint32_t crc_table[256];
static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}
static uint32_t crc32_table(const uint8_t *p, uint32_t n) {
  uint32_t c = 0xffffffffu;
  while (n--) c = crc_table[(c ^ *p++) & 255] ^ (c >> 8);
  return ~c;
}
static uint32_t crc32_bits(const uint8_t *p, uint32_t n) {
  uint32_t c = 0xffffffffu;
  for (uint32_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}
static uint32_t adler32(const uint8_t *p, uint32_t n) {
  uint32_t a = 1, b = 0;
  for (uint32_t i = 0; i < n; i++) {
    a = (a + p[i]) % 65521;
    b = (b + a) % 65521;
  }
  return b << 16 | a;
}
static uint32_t fnv32(const uint8_t *p, uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}
static uint64_t fnv64(const uint8_t *p, uint32_t n) {
  uint64_t h = 14695981039346656037ull;
  for (uint32_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
static uint32_t fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};
#define ROR(x, n) ((x) >> (n) | (x) << (32 - (n)))
static void sha256_block(uint32_t *h, const uint8_t *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++) w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
    uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}
static void sha256(const uint8_t *p, uint32_t n, char *hex) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  uint8_t block[64];
  uint32_t i = 0;
  for (; i + 64 <= n; i += 64) sha256_block(h, p + i);
  uint32_t rest = n - i;
  memset(block, 0, 64);
  memcpy(block, p + i, rest);
  block[rest] = 0x80;
  if (rest >= 56) {
    sha256_block(h, block);
    memset(block, 0, 64);
  }
  uint64_t bitlen = (uint64_t)n * 8;
  for (int k = 0; k < 8; k++) block[63 - k] = (uint8_t)(bitlen >> (8 * k));
  sha256_block(h, block);
  for (int k = 0; k < 8; k++) snprintf(hex + 8 * k, 9, "%08" PRIx32, h[k]);
}

static uint8_t buf[5000];

int main(void) {
  crc_init();
  const char *vectors[] = {"", "abc", "The quick brown fox jumps over the lazy dog",
                           "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"};
  const char *expect[] = {"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                          "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592",
                          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"};
  int bad = 0;
  for (int i = 0; i < 4; i++) {
    const uint8_t *p = (const uint8_t *)vectors[i];
    uint32_t n = (uint32_t)strlen(vectors[i]);
    char hex[65];
    sha256(p, n, hex);
    int ok = strcmp(hex, expect[i]) == 0;
    bad += !ok;
    printf("\"%.20s\": crc32 %08" PRIx32 " adler %08" PRIx32 " fnv32 %08" PRIx32 " fnv64 %016" PRIx64 " sha256 %.16s.. %s\n",
           vectors[i], crc32_table(p, n), adler32(p, n), fnv32(p, n), fnv64(p, n), hex, ok ? "ok" : "WRONG");
    if (crc32_table(p, n) != crc32_bits(p, n)) bad++;
  }
  for (uint32_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(rng() >> 7);
  char hex[65];
  sha256(buf, sizeof buf, hex);
  printf("random 5000: crc32 %08" PRIx32 " adler %08" PRIx32 " fnv64 %016" PRIx64 " sha256 %s\n", crc32_table(buf, 5000),
         adler32(buf, 5000), fnv64(buf, 5000), hex);
  if (crc32_table(buf, 5000) != crc32_bits(buf, 5000)) bad++;
  for (uint32_t n = 0; n < 70; n += 7) {
    sha256(buf, n, hex);
    ck(fnv32((const uint8_t *)hex, 64));
  }
  uint32_t m = 0;
  for (uint32_t i = 0; i < 1000; i++) m ^= fmix32(i * 0x9e3779b9u + m);
  printf("fmix %08" PRIx32 "\n", m);
  ck(m);
  ck_print("hashes");
  return bad;
}
