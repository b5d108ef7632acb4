/* autodebug.c — built with EMCC_AUTODEBUG=1: tilt-opt's instrument-locals,
 * log-execution and instrument-memory make every local and memory access
 * and every function and loop entry call a logging import; the program
 * still prints what it prints natively. */
#include <stdio.h>

static int table[16];
static double weights[4] = {0.5, 1.5, 2.5, 3.5};

__attribute__((noinline)) static unsigned long long mix(unsigned long long a, int b) { return a * 31 + b; }

int main(int argc, char **argv) {
  (void)argv;
  int s = 0;
  for (int i = 0; i < 16; i++) {
    table[i] = i * i + argc;
    s += table[i];
  }
  double w = 0;
  for (int i = 0; i < 4; i++) w += weights[i] * table[i];
  unsigned long long h = 7;
  for (int i = 0; i < 16; i++) h = mix(h, table[i]);
  printf("sum %d weighted %.2f hash %llu\n", s, w, h);
  return 0;
}
