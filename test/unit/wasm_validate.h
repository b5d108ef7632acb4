/* wasm_validate.h — wabt's wasm-validate on bytes a unit test wrote
 * (writer_test.c, stackopt_test.c), with every feature tilt reads. Not
 * --enable-all: that turns on function references, under which wabt 1.0.32
 * types ref.func as (ref $t) and rejects valid MVP code. Header-only
 * (static inline functions): each test is its own program. */
#ifndef TILT_WASM_VALIDATE_H
#define TILT_WASM_VALIDATE_H

#include "ir.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline bool have_validator(void) {
  return system("wasm-validate --version >/dev/null 2>&1") == 0;
}

/* True if wasm-validate accepts the bytes. With TILT_WRITER_DUMP set, the
 * module is also printed (wasm2wat); a rejected one is kept as
 * /tmp/tilt-unit-failed.wasm. */
static inline bool validates(const tl_buf *b) {
  char path[] = "/tmp/tilt-unit-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "wb");
  ck_assert_ptr_nonnull(f);
  fwrite(b->p, 1, b->n, f);
  fclose(f);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "wasm-validate --enable-threads --enable-tail-call --enable-extended-const "
           "--enable-relaxed-simd %s", path);
  int rc = system(cmd);
  if (getenv("TILT_WRITER_DUMP")) {
    snprintf(cmd, sizeof cmd, "wasm2wat --enable-all --no-check %s", path);
    if (system(cmd)) {}
  }
  if (rc != 0) {
    snprintf(cmd, sizeof cmd, "cp %s /tmp/tilt-unit-failed.wasm", path);
    if (system(cmd)) {}
  }
  unlink(path);
  return rc == 0;
}

#endif
