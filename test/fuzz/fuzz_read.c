/* fuzz_read.c — libFuzzer target: bytes -> tl_module_read (all features) ->
 * validate -> write -> print -> free. A module the reader accepts must also
 * validate and write; unless TILT_FUZZ_ORACLE=0, the writer's output must
 * also read back (failures trap, so they are reported as crashes). Bad input must only
 * ever produce an error: crashes, leaks, sanitizer reports, huge
 * allocations and timeouts are the findings. Built only with -DTILT_FUZZ=ON. */
#include "tilt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oracle = -1; /* re-read the writer's output? */

static void fail(const char *what, const tl_error *e) {
  fprintf(stderr, "fuzz_read: %s: %s (offset 0x%llx)\n", what, e->msg,
          (unsigned long long)e->offset);
  __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tl_read_options ro = {.features = TL_FEATURES_ALL};
  tl_write_options wo = {.debug_names = true};
  tl_error err;
  tl_module *m = tl_module_read(data, size, &ro, &err);
  if (!m) return 0;
  if (tl_module_validate(m, &err) != TL_OK) fail("read accepted a module that does not validate", &err);
  uint8_t *w = NULL;
  size_t n = 0;
  if (tl_module_write(m, &wo, &w, &n, &err) != TL_OK) fail("write failed", &err);
  free(tl_module_print(m));
  if (oracle < 0) {
    const char *e = getenv("TILT_FUZZ_ORACLE");
    oracle = !(e && !strcmp(e, "0"));
  }
  if (oracle) {
    tl_module *m2 = tl_module_read(w, n, &ro, &err);
    if (!m2) fail("the writer's output does not read back", &err);
    free(tl_module_print(m2));
    tl_module_free(m2);
  }
  free(w);
  tl_module_free(m);
  return 0;
}
