// ctors.cpp — static constructors that only compute (wasm-ctor-eval can
// run them at build time: -sEVAL_CTORS) and one that cannot (it prints).
#include <cstdio>
#include <cstring>

struct Table {
  unsigned crc[256];
  Table() {
    for (unsigned i = 0; i < 256; i++) {
      unsigned c = i;
      for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      crc[i] = c;
    }
  }
};
static Table table;

struct Primes {
  int p[100];
  int n = 0;
  Primes() {
    for (int x = 2; n < 100; x++) {
      bool prime = true;
      for (int i = 0; i < n && p[i] * p[i] <= x; i++)
        if (x % p[i] == 0) { prime = false; break; }
      if (prime) p[n++] = x;
    }
  }
};
static Primes primes;
static double scale = 1.5;
static int counter = 7;

static unsigned crc32(const char *s) {
  unsigned c = ~0u;
  for (; *s; s++) c = table.crc[(c ^ (unsigned char)*s) & 0xff] ^ (c >> 8);
  return ~c;
}

int main() {
  std::printf("crc %08x\n", crc32("hello, ctors"));
  std::printf("prime 100 %d, sum", primes.p[99]);
  long s = 0;
  for (int i = 0; i < primes.n; i++) s += primes.p[i];
  std::printf(" %ld\n", s);
  counter++;
  std::printf("scale %.2f counter %d\n", scale * counter, counter);
  return 0;
}
