/* dwarf.c — built with -g (DWARF, no source map): emcc runs
 * wasm-emscripten-finalize --dwarf and, at -O2 and above, wasm-opt -g,
 * which must keep the line table and the code addresses of .debug_info
 * right. A division by zero deep in a call chain traps; its code offset
 * must map (through .debug_line) to the division's line, 16. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fib(int n) {
  if (n < 2)
    return n;
  return fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int ratio(int a, int *b) { return a / *b; }

__attribute__((noinline)) int chain(int depth, int *b) {
  if (depth == 0)
    return ratio(100, b);
  return chain(depth - 1, b) + 1;
}

struct item { const char *name; int weight; };

__attribute__((noinline)) static int classify(int w) {
  switch (w % 4) {
  case 0: return 10;
  case 1: return w * 3;
  case 2: return w - 7;
  default: return -w;
  }
}

__attribute__((noinline)) static long score(const struct item *it, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    int c = classify(it[i].weight);
    if (c > 5)
      s += c * (long)strlen(it[i].name);
    else
      s -= c;
  }
  return s;
}

int main(int argc, char **argv) {
  int s = 0;
  for (int i = 0; i < 25; i++)
    s += fib(i % 17);
  printf("fib sum %d\n", s);
  struct item items[] = {{"apple", 3}, {"pear", 8}, {"fig", 13}, {"quince", 6}, {"kiwi", 21}};
  printf("score %ld\n", score(items, 5));
  int *d = malloc(sizeof *d);
  *d = argc > 1 ? 0 : 4;
  printf("chain %d\n", chain(argc + 5, d));
  free(d);
  return 0;
}
