#include <cstdio>
#include <cstdint>
#include <stdexcept>
struct E { int v; };
static int64_t f(int64_t x) { if (x > 5) throw E{(int)x}; return x * 3; }
int64_t (*volatile fp)(int64_t) = f;
int main() {
  for (int i = 3; i < 8; i++) {
    try { printf("%lld\n", (long long)fp(i)); } catch (const E &e) { printf("caught %d\n", e.v); }
  }
}
