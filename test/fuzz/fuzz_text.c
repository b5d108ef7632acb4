/* fuzz_text.c — libFuzzer target for the text reader: bytes ->
 * tl_module_parse_text (all features) -> print -> parse -> print. Bad text
 * must only ever produce an error with a line and column; a module the
 * reader accepts must print to text that parses back and prints the same
 * (the printer and the reader agree) unless it has IR forms without a
 * faithful text yet (tl_fuzz_text_comparable). Crashes, leaks, sanitizer reports,
 * hangs and disagreements (traps) are the findings. Built with -DTILT_FUZZ=ON. */
#include "fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_text: %s\n%s\n", what, detail ? detail : "");
  __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tl_read_options ro = {.features = TL_FEATURES_ALL};
  tl_error err;
  tl_module *m = tl_module_parse_text((const char *)data, size, &ro, &err);
  if (!m) {
    if (err.msg[0] == 0) fail("rejected without a message", NULL);
    return 0;
  }
  if (!tl_fuzz_text_comparable(m)) { /* no faithful text yet: printing must still work */
    free(tl_module_print(m));
    tl_module_free(m);
    return 0;
  }
  char *p1 = tl_module_print(m);
  tl_module_free(m);
  tl_module *m2 = tl_module_parse_text(p1, strlen(p1), &ro, &err);
  if (!m2) fail("the printed module does not parse back", err.msg);
  char *p2 = tl_module_print(m2);
  if (strcmp(p1, p2)) fail("printed text parses back to a different module", p2);
  free(p1);
  free(p2);
  tl_module_free(m2);
  return 0;
}
