/* tilt-opt — wasm-opt compatible command line (stub: being written). */
#include "cli.h"

#include <stdio.h>

int main(int argc, char **argv) {
  (void)argc; (void)argv;
  fprintf(stderr, "tilt-opt: not written yet\n");
  return 1;
}
