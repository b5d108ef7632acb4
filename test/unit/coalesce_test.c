/* coalesce_test.c — coalesce-locals and reorder-locals on functions with
 * tens of thousands of locals: a chain of 40,000 locals that are never live
 * at once merges into the param (linear work: no nlocal^2 matrix, no
 * sorting of live sets), and locals that are live together stay apart. */
#include "ir.h"

#include <check.h>
#include "check_main.h"
#include "tilt.h"

/* (func (param i32) (result i32) (local i32 x n)
 *   local[1] = param + 1; local[i+1] = local[i] + 1 ...; local[n]) */
static tl_module *chain(uint32_t n) {
  tl_module *m = tl_module_alloc();
  tl_func *f = tl_module_add_func(m);
  f->type = tl_functype_intern(m, TL_I32, TL_I32);
  tl_func_add_local(m, f, TL_I32); /* the param */
  for (uint32_t i = 0; i < n; i++) tl_func_add_local(m, f, TL_I32);
  f->body = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f), NULL, 0);
  for (uint32_t i = 0; i < n; i++) {
    tl_expr *v = tl_make_binary(m, TL_OP_I32_ADD, tl_make_local_get(m, f, i), tl_make_const_i32(m, 1));
    tl_expr_push_kid(m, f->body, tl_make_local_set(m, f, i + 1, v, false));
  }
  tl_expr_push_kid(m, f->body, tl_make_local_get(m, f, n));
  tl_expr_finalize(m, f, f->body);
  return m;
}

static void run(tl_module *m, const char *pass) {
  tl_error err = {0};
  const char *names[] = {pass};
  ck_assert_int_eq(tl_module_run_passes(m, names, 1, NULL, &err), TL_OK);
  ck_assert_int_eq(tl_validate_module(m, &err), TL_OK);
}

START_TEST(chain_40000) {
  tl_module *m = chain(40000);
  run(m, "coalesce-locals");
  tl_func *f = TL_FUNC(m, 0);
  ck_assert_uint_eq(f->nlocal, 1); /* all merged into the param */
  run(m, "reorder-locals");
  ck_assert_uint_eq(f->nlocal, 1);
  tl_module_destroy(m);
}
END_TEST

/* n locals set first and all read at the end: live together, kept apart. */
START_TEST(live_together) {
  enum { N = 300 };
  tl_module *m = tl_module_alloc();
  tl_func *f = tl_module_add_func(m);
  f->type = tl_functype_intern(m, TL_I32, TL_I32);
  tl_func_add_local(m, f, TL_I32);
  for (uint32_t i = 0; i < N; i++) tl_func_add_local(m, f, TL_I32);
  f->body = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f), NULL, 0);
  for (uint32_t i = 1; i <= N; i++)
    tl_expr_push_kid(m, f->body, tl_make_local_set(m, f, i, tl_make_const_i32(m, (int32_t)i), false));
  tl_expr *sum = tl_make_local_get(m, f, 0);
  for (uint32_t i = 1; i <= N; i++) sum = tl_make_binary(m, TL_OP_I32_ADD, sum, tl_make_local_get(m, f, i));
  tl_expr_push_kid(m, f->body, sum);
  tl_expr_finalize(m, f, f->body);
  run(m, "coalesce-locals");
  ck_assert_uint_eq(TL_FUNC(m, 0)->nlocal, N + 1);
  tl_module_destroy(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("coalesce");
  TCase *tc = tcase_create("locals");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, chain_40000);
  tcase_add_test(tc, live_together);
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
