/* programs.c — a freestanding program for memory64 (issue 20): clang
 * --target=wasm64 has no libc in Debian, so this brings its own memcpy and
 * memset and exports run(n), which checksums an LZ77 compressor and its
 * decompressor (checked against the input), SHA-256, an iterative quicksort,
 * an open-addressing hash table and schoolbook bignum multiplication, over
 * up to a few MB of static data (pointers, size_t and long are 64-bit in
 * wasm64). Built natively with -DNATIVE it prints run(rounds, lg) for
 * comparison
 * (test/memory64/run.sh; bench/passes takes it at -O0 and -O2). */
typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef __SIZE_TYPE__ size_t;

#ifndef NATIVE
void *memcpy(void *d, const void *s, size_t n) {
  u8 *a = d;
  const u8 *b = s;
  while (n--) *a++ = *b++;
  return d;
}
void *memset(void *d, int c, size_t n) {
  u8 *a = d;
  while (n--) *a++ = (u8)c;
  return d;
}
#else
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
#endif

#define N (1 << 20)
static u8 in[N], packed[N + N / 8 + 64], out[N];
static u32 keys[1 << 16];
static u64 state = 88172645463325252ull;
static u64 next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

/* text-like input: words from a small vocabulary, so LZ77 finds matches */
static void fill(size_t n) {
  static const char *w[] = {"memory ", "sixty ", "four ", "bits ", "wasm ", "lane ", "page ", "grow "};
  size_t i = 0;
  while (i < n) {
    const char *s = w[next() % 8];
    while (*s && i < n) in[i++] = (u8)*s++;
    if ((next() & 15) == 0 && i < n) in[i++] = (u8)next();
  }
}

/* LZ77: literal runs and (length, distance) matches found through a hash
 * of 4 bytes; tokens: 0..127 = literal run of t+1 bytes, 128+ = match of
 * t-128+4 bytes, then a 16-bit distance */
static size_t compress(const u8 *s, size_t n, u8 *d) {
  static u32 head[1 << 14];
  memset(head, 0xff, sizeof head);
  size_t i = 0, o = 0, lit = 0;
  while (i < n) {
    u32 h = 0xffffffffu;
    if (i + 4 <= n) {
      u32 v = (u32)s[i] | (u32)s[i + 1] << 8 | (u32)s[i + 2] << 16 | (u32)s[i + 3] << 24;
      u32 k = (v * 2654435761u) >> 18;
      h = head[k];
      head[k] = (u32)i;
    }
    size_t len = 0;
    if (h != 0xffffffffu && i - h < 65536)
      while (i + len < n && len < 131 && s[h + len] == s[i + len]) len++;
    if (len >= 4) {
      if (lit) { d[o++] = (u8)(lit - 1); memcpy(d + o, s + i - lit, lit); o += lit; lit = 0; }
      d[o++] = (u8)(128 + len - 4);
      d[o++] = (u8)(i - h);
      d[o++] = (u8)((i - h) >> 8);
      i += len;
    } else {
      i++;
      if (++lit == 128) { d[o++] = 127; memcpy(d + o, s + i - lit, lit); o += lit; lit = 0; }
    }
  }
  if (lit) { d[o++] = (u8)(lit - 1); memcpy(d + o, s + i - lit, lit); o += lit; }
  return o;
}
static size_t decompress(const u8 *s, size_t n, u8 *d) {
  size_t i = 0, o = 0;
  while (i < n) {
    u8 t = s[i++];
    if (t < 128) { memcpy(d + o, s + i, t + 1u); i += t + 1u; o += t + 1u; continue; }
    size_t len = t - 128u + 4, dist = s[i] | (size_t)s[i + 1] << 8;
    i += 2;
    for (size_t k = 0; k < len; k++, o++) d[o] = d[o - dist];
  }
  return o;
}

static u32 rotr(u32 x, int k) { return x >> k | x << (32 - k); }
static u64 sha256(const u8 *m, size_t n) {
  static const u32 K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  u32 h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  for (size_t b = 0; b + 64 <= n; b += 64) {          /* whole blocks only: a checksum */
    u32 w[64], a[8];
    for (int i = 0; i < 16; i++)
      w[i] = (u32)m[b + 4 * i] << 24 | (u32)m[b + 4 * i + 1] << 16 | (u32)m[b + 4 * i + 2] << 8 | m[b + 4 * i + 3];
    for (int i = 16; i < 64; i++) {
      u32 s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      u32 s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    for (int i = 0; i < 8; i++) a[i] = h[i];
    for (int i = 0; i < 64; i++) {
      u32 t1 = a[7] + (rotr(a[4], 6) ^ rotr(a[4], 11) ^ rotr(a[4], 25)) + ((a[4] & a[5]) ^ (~a[4] & a[6])) + K[i] + w[i];
      u32 t2 = (rotr(a[0], 2) ^ rotr(a[0], 13) ^ rotr(a[0], 22)) + ((a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]));
      for (int k = 7; k > 0; k--) a[k] = a[k - 1];
      a[4] += t1;
      a[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++) h[i] += a[i];
  }
  return (u64)h[0] << 32 | h[7];
}

static void quicksort(u32 *v, long n) {
  static long stack[128];
  long sp = 0;
  stack[sp++] = 0;
  stack[sp++] = n - 1;
  while (sp) {
    long hi = stack[--sp], lo = stack[--sp];
    while (lo < hi) {
      u32 p = v[lo + (hi - lo) / 2];
      long i = lo, j = hi;
      while (i <= j) {
        while (v[i] < p) i++;
        while (v[j] > p) j--;
        if (i <= j) { u32 t = v[i]; v[i] = v[j]; v[j] = t; i++; j--; }
      }
      if (j - lo < hi - i) { stack[sp++] = i; stack[sp++] = hi; hi = j; }
      else { stack[sp++] = lo; stack[sp++] = j; lo = i; }
    }
  }
}

static u64 count_words(const u8 *s, size_t n) {
  static u64 tab_key[1 << 12];
  static u32 tab_n[1 << 12];
  memset(tab_n, 0, sizeof tab_n);
  u64 distinct = 0, sum = 0;
  for (size_t i = 0; i < n;) {
    u64 k = 0;
    while (i < n && s[i] != ' ') k = k * 131 + s[i++];
    i++;
    u32 h = (u32)(k * 0x9E3779B97F4A7C15ull >> 52);
    while (tab_n[h] && tab_key[h] != k) h = (h + 1) & ((1 << 12) - 1);
    if (!tab_n[h]) { tab_key[h] = k; distinct++; }
    tab_n[h]++;
  }
  for (u32 i = 0; i < 1 << 12; i++) sum += (u64)tab_n[i] * (i + 1);
  return distinct << 40 ^ sum;
}

static u64 bignum(int limbs) {
  static u32 a[512], b[512], r[1024];
  for (int i = 0; i < limbs; i++) { a[i] = (u32)next(); b[i] = (u32)next(); }
  memset(r, 0, sizeof r);
  for (int i = 0; i < limbs; i++) {
    u64 carry = 0;
    for (int j = 0; j < limbs; j++) {
      u64 t = (u64)a[i] * b[j] + r[i + j] + carry;
      r[i + j] = (u32)t;
      carry = t >> 32;
    }
    r[i + limbs] = (u32)carry;
  }
  u64 h = 0;
  for (int i = 0; i < 2 * limbs; i++) h = h * 1000003 ^ r[i];
  return h;
}

/* rounds over 2^lg bytes of input (lg <= 20) */
u64 run(int rounds, int lg) {
  size_t n = (size_t)1 << (lg < 10 ? 10 : lg > 20 ? 20 : lg);
  u32 nk = (u32)(n / 16);
  u64 h = 0;
  state = 88172645463325252ull;
  fill(n);
  for (int r = 0; r < rounds; r++) {
    size_t c = compress(in, n, packed);
    size_t d = decompress(packed, c, out);
    u64 same = d == n;
    for (size_t i = 0; same && i < n; i++) same = in[i] == out[i];
    h = h * 31 + c + same * 1000000007ull;
    h ^= sha256(out, n);
    for (u32 i = 0; i < nk; i++) keys[i] = (u32)next();
    quicksort(keys, nk);
    for (u32 i = 1; i < nk; i += 97) h = h * 7 + keys[i] + (keys[i - 1] <= keys[i]);
    h ^= count_words(in, n);
    h += bignum((int)(n >> 12) + 8);
    in[next() % n] = (u8)next();
  }
  return h;
}

#ifdef NATIVE
int printf(const char *, ...);
int atoi(const char *);
int main(int argc, char **argv) {
  printf("%lld\n", (long long)run(argc > 1 ? atoi(argv[1]) : 2, argc > 2 ? atoi(argv[2]) : 20));  /* as tilt-run prints an i64 */
  return 0;
}
#endif
