// eh.cpp — C++ exceptions for test/jit/emcc_eh.sh (em++ -fwasm-exceptions,
// standalone WASI): thrown three frames down with destructors running,
// caught, rethrown, caught in each of 1000 recursive frames (rethrown from
// 500 of them), and (with 5 or more arguments) escaping main. eh.out: g++'s output.
#include <cstdio>
#include <stdexcept>
#include <string>
struct Guard { const char *n; ~Guard() { std::printf("unwind %s\n", n); } };
static int depth3(int x) { Guard g{"depth3"}; if (x > 2) throw std::runtime_error("boom " + std::to_string(x)); return x; }
static int depth2(int x) { Guard g{"depth2"}; return depth3(x + 1) + 1; }
static int depth1(int x) { Guard g{"depth1"}; return depth2(x + 1) + 1; }
static int rethrower(int x) {
  try { return depth1(x); } catch (std::exception &e) { std::printf("rethrowing %s\n", e.what()); throw; }
}
struct Custom { int v; };
static int rec(int n) { try { if (n == 0) throw Custom{0}; return rec(n - 1); } catch (Custom &c) { c.v++; if (n < 500) throw; return c.v; } }
int main(int argc, char **) {
  long sum = 0;
  for (int i = 0; i < 3; i++) {
    try { sum += rethrower(i + argc - 1); } catch (std::runtime_error &e) { std::printf("caught %s\n", e.what()); sum += 100; }
  }
  std::printf("rec %d\n", rec(1000));
  std::printf("sum %ld\n", sum);
  try { throw 42; } catch (int v) { std::printf("int %d\n", v); }
  if (argc > 5) throw std::logic_error("escapes");
  return 0;
}
