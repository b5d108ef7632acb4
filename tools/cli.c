/* cli.c — file and error helpers for the tools (see cli.h). */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_read_file(const char *path, uint8_t **out, size_t *size) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    fprintf(stderr, "%s: error: %s\n", path, strerror(errno));
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  uint8_t *p = malloc(cap);
  for (;;) {
    if (!p) {
      fprintf(stderr, "%s: error: out of memory\n", path);
      if (f != stdin) fclose(f);
      return 1;
    }
    n += fread(p + n, 1, cap - n, f);
    if (n < cap) break;
    cap *= 2;
    uint8_t *q = realloc(p, cap);
    if (!q) free(p);
    p = q;
  }
  int bad = ferror(f);
  if (f != stdin) fclose(f);
  if (bad) {
    fprintf(stderr, "%s: error: read failed\n", path);
    free(p);
    return 1;
  }
  *out = p;
  *size = n;
  return 0;
}

int cli_write_file(const char *path, const void *p, size_t n) {
  FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
  if (!f || fwrite(p, 1, n, f) != n || (f != stdout && fclose(f) != 0)) {
    fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
    return 1;
  }
  if (f == stdout) fflush(stdout);
  return 0;
}

void cli_print_error(const char *path, const tl_error *e) {
  if (e->offset != TL_NO_OFFSET)
    fprintf(stderr, "%s:0x%" PRIx64 ": error: %s\n", path, e->offset, e->msg);
  else if (e->func_index != TL_NO_FUNC)
    fprintf(stderr, "%s: error: in function %u: %s\n", path, e->func_index, e->msg);
  else
    fprintf(stderr, "%s: error: %s\n", path, e->msg);
}
