/* fib.c — recursive calls: naive Fibonacci. */
#include <stdio.h>
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) {
  (void)argv;
  unsigned s = 0;
  for (int i = 0; i < 3; i++) s += (unsigned)fib(33 + argc + (i & 1));
  printf("fib %u\n", s);
  return 0;
}
