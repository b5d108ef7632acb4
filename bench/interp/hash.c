/* bench kernel: 64-bit integer mixing (xorshift and FNV). */
typedef unsigned long long u64;
int run(void) {
  u64 x = 88172645463325252ull, h = 1469598103934665603ull;
  for (int i = 0; i < 500000; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    h = (h ^ (x & 0xff)) * 1099511628211ull;
  }
  return (int)(h >> 32);
}
