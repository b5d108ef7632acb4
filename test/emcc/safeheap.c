/* safeheap.c — built with -sSAFE_HEAP=1 (test/cli/emcc.sh): every load and
 * store goes through the SAFE_HEAP_* checks of wasm-opt --safe-heap; the
 * program still prints what the native build prints, and with an argument
 * it reads through a null pointer, which must abort ("segmentation
 * fault"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec { uint8_t tag; uint16_t half; int32_t word; int64_t wide; float f; double d; };

int main(int argc, char **argv) {
  struct rec *r = malloc(8 * sizeof *r);
  for (int i = 0; i < 8; i++) {
    r[i].tag = (uint8_t)(200 + i);
    r[i].half = (uint16_t)(60000 + i);
    r[i].word = -1000 * i;
    r[i].wide = (int64_t)i << 40;
    r[i].f = 0.5f * i;
    r[i].d = 1.0 / (i + 1);
  }
  char buf[64];
  memcpy(buf, "safe heap", 10);
  long long s = 0;
  double fs = 0;
  for (int i = 0; i < 8; i++) {
    s += r[i].tag + r[i].half + r[i].word + r[i].wide;
    fs += r[i].f + r[i].d;
  }
  printf("%s: %lld %.6f\n", buf, s, fs);
  free(r);
  if (argc > 1) {
    volatile int *volatile q = NULL;
    printf("%d\n", *q);
  }
  return 0;
}
