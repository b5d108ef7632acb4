/* prog.c — a program built with clang -gdwarf-5 -O2 for test/cli/dwarf5.sh:
 * loops, an inlined function, a struct through a pointer, lexical blocks
 * (range lists) and variables in registers (location lists); helper is
 * not called from main's hot path, so it keeps an out-of-line copy. */
#include <stdio.h>
#include <stdlib.h>
struct acc { long sum; int n; };
static int sq(int x) { return x * x; }
int helper(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) { s += sq(a[i]); if (s > 1000) s -= 7; } return s; }
static void add(struct acc *c, int v) { c->sum += v; c->n++; }
int main(int argc, char **argv) {
  int a[16];
  struct acc c = {0, 0};
  for (int i = 0; i < 16; i++) a[i] = (i * 7 + argc) % 13;
  for (int round = 0; round < 3; round++) {
    int t = helper(a, 16 - round);
    if (t & 1) { int u = t * 3; add(&c, u); } else add(&c, t / 2);
  }
  printf("%ld %d\n", c.sum, c.n);
  return argc > 5 ? abort(), 1 : 0;
}
