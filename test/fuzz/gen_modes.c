/* gen_modes.c — libFuzzer target over the tilt-fuzz generator: the input
 * bytes become a valid module (src/fuzz), which must validate, round-trip
 * (read of its write validates) and behave the same after -O2 (fuzz-exec
 * logs compared up to the first "[stop" line). Any divergence aborts.
 * Built only with -DTILT_FUZZ=ON (clang; test/fuzzgen.cmake). */
#include "fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

static size_t upto_stop(const char *a, const char *b) {
  const char *sa = strstr(a, "[stop"), *sb = strstr(b, "[stop");
  size_t la = sa ? (size_t)(sa - a) : strlen(a), lb = sb ? (size_t)(sb - b) : strlen(b);
  return la < lb ? la : lb;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tl_module *m = tl_fuzz_generate(data, size, NULL);
  if (!m) return 0;
  tl_error err;
  if (tl_module_validate(m, &err) != TL_OK) abort();
  uint8_t *w = NULL;
  size_t n = 0;
  tl_write_options wo = {0};
  if (tl_module_write(m, &wo, &w, &n, &err) != TL_OK) abort();
  tl_module_free(m);
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  tl_module *a = tl_module_read(w, n, &ro, &err), *b = tl_module_read(w, n, &ro, &err);
  if (!a || !b) abort();
  char *la = tl_module_fuzz_exec(a, 1u << 20);
  tl_pass_options po = {0};
  po.threads = 1;
  if (tl_module_optimize(b, 2, 0, &po, &err) != TL_OK || tl_module_validate(b, &err) != TL_OK) abort();
  char *lb = tl_module_fuzz_exec(b, 1u << 20);
  size_t k = upto_stop(la, lb);
  if (memcmp(la, lb, k) || (!strstr(la, "[stop") && !strstr(lb, "[stop") && strcmp(la, lb))) abort();
  free(la);
  free(lb);
  tl_module_free(a);
  tl_module_free(b);
  free(w);
  return 0;
}
