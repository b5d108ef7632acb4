/* WASI test: a program that traps (integer division by zero, or unreachable). */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  volatile int zero = argc - argc;
  printf("before\n");
  fflush(stdout);
  if (argc > 1) __builtin_trap();
  return 10 / zero;
}
