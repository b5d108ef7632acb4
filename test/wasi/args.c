/* WASI test: arguments and environment. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) printf("arg%d=%s\n", i, argv[i]);
  const char *v = getenv("TILT_WASI_TEST");
  printf("env=%s\n", v ? v : "(unset)");
  return 0;
}
