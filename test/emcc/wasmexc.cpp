// wasmexc.cpp — C++ exceptions as WebAssembly exception handling
// (-fwasm-exceptions): throws through frames with destructors, catch by
// type and catch of an int; tilt's passes optimize the functions with try.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>
struct Guard { const char *n; ~Guard() { std::printf("unwind %s\n", n); } };
static int depth(int n) {
  Guard g{"frame"};
  if (n == 0) throw std::runtime_error("bottom reached");
  return depth(n - 1) + 1;
}
int main() {
  std::vector<std::string> log;
  for (int i = 0; i < 3; i++) {
    try { depth(i); } catch (const std::exception &e) { log.push_back(std::string(e.what()) + " " + std::to_string(i)); }
  }
  try { throw 42; } catch (int v) { std::printf("int %d\n", v); }
  for (auto &s : log) std::printf("%s\n", s.c_str());
  return 0;
}
