/* pool_test.c — the pass runner's pool (registry.c): tl_run_parallel calls
 * its function once per index whatever the thread count, and
 * tl_run_func_passes_on runs its passes on exactly the functions of the
 * mask (the others keep their bodies), with the same result on 1 and 2
 * threads. */
#include "ir.h"
#include "passes/passes.h"

#include <check.h>
#include <stdatomic.h>
#include "check_main.h"
#include "tilt.h"

static void count_one(void *user, uint32_t i) { atomic_fetch_add(&((atomic_uint *)user)[i], 1); }

START_TEST(parallel_each_once) {
  enum { N = 5000 };
  static atomic_uint seen[N];
  tl_module *m = tl_module_alloc();
  for (uint32_t threads = 1; threads <= 3; threads++) {
    tl_pass_options opt = {0};
    opt.threads = threads;
    tl_pass_ctx ctx = {m, NULL, 0, NULL, &opt, NULL};
    for (uint32_t i = 0; i < N; i++) atomic_store(&seen[i], 0);
    tl_run_parallel(&ctx, N, count_one, seen);
    for (uint32_t i = 0; i < N; i++) ck_assert_uint_eq(atomic_load(&seen[i]), 1);
    ck_assert_ptr_null(m->arena.lock);
  }
  tl_module_destroy(m);
}
END_TEST

/* n functions () -> i32, each (i32.add (i32.const i) (i32.const 1)). */
static tl_module *adds(uint32_t n) {
  tl_module *m = tl_module_alloc();
  for (uint32_t i = 0; i < n; i++) {
    tl_func *f = tl_module_add_func(m);
    f->type = tl_functype_intern(m, TL_NONE, TL_I32);
    tl_expr *sum = tl_make_binary(m, TL_OP_I32_ADD, tl_make_const_i32(m, (int32_t)i), tl_make_const_i32(m, 1));
    f->body = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f), &sum, 1);
    tl_expr_finalize(m, f, f->body);
  }
  return m;
}

START_TEST(subset_only) {
  enum { N = 40 };
  for (uint32_t threads = 1; threads <= 2; threads++) {
    tl_module *m = adds(N);
    uint8_t which[N];
    for (uint32_t i = 0; i < N; i++) which[i] = i % 3 == 0;
    tl_pass_options opt = {0};
    opt.threads = threads;
    tl_error err = {0};
    tl_pass_ctx ctx = {m, NULL, 0, &err, &opt, NULL};
    const char *names[] = {"precompute", "no-such-pass"};
    ck_assert_int_eq(tl_run_func_passes_on(&ctx, names, 2, which), TL_OK);
    ck_assert_int_eq(tl_validate_module(m, &err), TL_OK);
    for (uint32_t i = 0; i < N; i++) {
      tl_expr *b = TL_FUNC(m, i)->body, *k = b->nkid ? b->kid[0] : b;
      if (which[i]) {
        ck_assert_int_eq(k->op, TL_OP_I32_CONST);
        ck_assert_int_eq(k->imm.i32, (int32_t)i + 1);
      } else {
        ck_assert_int_eq(k->op, TL_OP_I32_ADD);
      }
    }
    tl_module_destroy(m);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("pool");
  TCase *tc = tcase_create("pool");
  tcase_add_test(tc, parallel_each_once);
  tcase_add_test(tc, subset_only);
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
