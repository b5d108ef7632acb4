/* eh_fixture.h — what the exception-handling unit tests (interp_eh_test.c,
 * jit_eh_test.c) share: a module from the text format with its features
 * detected, and calls of an export taking and returning one i32.
 * Header-only (static functions): each test is its own program. */
#ifndef TILT_EH_FIXTURE_H
#define TILT_EH_FIXTURE_H

#include "ir.h"

#include <check.h>
#include <string.h>

static inline tl_module *parse(const char *text) {
  tl_read_options opt;
  memset(&opt, 0, sizeof opt);
  opt.detect_features = true;
  tl_error err = {0};
  tl_module *m = tl_module_parse_text(text, strlen(text), &opt, &err);
  ck_assert_msg(m != NULL, "parse: %s", err.msg);
  return m;
}

static inline tl_value i32v(int32_t x) {
  tl_value v;
  memset(&v, 0, sizeof v);
  v.type = TL_VAL_I32;
  v.of.i32 = x;
  return v;
}

/* Calls export name(arg) (arg < 0: no argument); returns its status and,
 * on TL_OK, its i32 result in *out. */
static inline tl_status call1(tl_instance *inst, const char *name, int32_t arg, int32_t *out, tl_error *err) {
  tl_value a = i32v(arg), r[1];
  uint32_t nr = 0;
  memset(err, 0, sizeof *err);
  tl_status st = tl_invoke(inst, name, &a, arg < 0 ? 0 : 1, r, 1, &nr, err);
  if (st == TL_OK && nr == 1) *out = r[0].of.i32;
  return st;
}

/* call1 that must succeed: its result. */
static inline int32_t ok1(tl_instance *inst, const char *name, int32_t arg) {
  tl_error err;
  int32_t v = -12345;
  tl_status st = call1(inst, name, arg, &v, &err);
  ck_assert_msg(st == TL_OK, "%s(%d): status %d: %s", name, arg, st, err.msg);
  return v;
}

#endif
