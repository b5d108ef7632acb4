/* srcmap.c — built with -gsource-map: a division by zero deep in a call
 * chain traps, and the trap's code offset must map back to the line of
 * the division (ratio's return) in both the Binaryen and the tilt build. */
#include <stdio.h>
#include <stdlib.h>

static int fib(int n) {
  if (n < 2)
    return n;
  return fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) int ratio(int a, int *b) {
  return a / *b; /* the trap's line */
}

__attribute__((noinline)) int chain(int depth, int *b) {
  if (depth == 0)
    return ratio(100, b);
  return chain(depth - 1, b) + 1;
}

int main(int argc, char **argv) {
  int s = 0;
  for (int i = 0; i < 25; i++)
    s += fib(i % 17);
  printf("fib sum %d\n", s);
  int *d = malloc(sizeof *d);
  *d = argc > 1 ? 0 : 4;
  printf("chain %d\n", chain(argc + 5, d));
  free(d);
  return 0;
}
