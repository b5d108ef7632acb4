/* read_check — reads binary modules and compares with what is expected.
 * stdin: lines "ok PATH" or "bad PATH"; options: --all-features,
 * --features=N (bit set), --no-validate (reader checks only), --verbose. Prints each mismatch and a summary;
 * exits 1 if any mismatch. Used by test/spec/read_check.py. */
#include "ir.h"
#include "wasm-io/wasmio.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc(sz > 0 ? (size_t)sz : 1);
  if (p && fread(p, 1, (size_t)sz, f) != (size_t)sz) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *n = (size_t)sz;
  return p;
}

int main(int argc, char **argv) {
  tl_read_options ro = {0};
  int verbose = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--all-features")) ro.features = TL_FEATURES_ALL;
    else if (!strncmp(argv[i], "--features=", 11)) ro.features = (uint32_t)strtoul(argv[i] + 11, NULL, 0);
    else if (!strcmp(argv[i], "--verbose")) verbose = 1;
    else if (!strcmp(argv[i], "--no-validate")) ro.no_validate = true;
  }
  char line[4096];
  unsigned ok[2] = {0}, bad[2] = {0};
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    char *sp = strchr(line, ' ');
    if (!sp) continue;
    *sp = 0;
    const char *path = sp + 1;
    int want_ok = !strcmp(line, "ok");
    size_t n;
    uint8_t *b = slurp(path, &n);
    if (!b) {
      printf("cannot read %s\n", path);
      continue;
    }
    tl_error e;
    tl_module *m = NULL;
    tl_status s = tl_read(b, n, &ro, &m, &e);
    free(b);
    tl_module_destroy(m);
    int got_ok = s == TL_OK;
    if (got_ok == want_ok) {
      (want_ok ? ok : bad)[0]++;
      if (verbose && !got_ok) printf("bad-as-expected %s: 0x%" PRIx64 ": %s\n", path, e.offset, e.msg);
    } else {
      (want_ok ? ok : bad)[1]++;
      if (got_ok) printf("MISS accepted %s (%s)\n", path, line);
      else printf("MISS rejected %s: 0x%" PRIx64 ": [%d] %s\n", path, e.offset, (int)s, e.msg);
    }
  }
  printf("valid: %u accepted, %u rejected; invalid/malformed: %u rejected, %u accepted\n", ok[0], ok[1],
         bad[0], bad[1]);
  return ok[1] || bad[1];
}
