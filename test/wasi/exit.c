/* WASI test: exit status, from exit() deep in a call chain and from main. */
#include <stdio.h>
#include <stdlib.h>
static void leave(int depth, int code) {
  if (depth == 0) exit(code);
  leave(depth - 1, code);
}
int main(int argc, char **argv) {
  if (argc > 1) leave(100, atoi(argv[1]));
  return 5;
}
