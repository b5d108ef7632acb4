/* nodes_test.c — node memory (expr.c) under the pass runner (registry.c):
 * a top-level function pass run moves each body it changed into a block of
 * its own and the sweeps free the rest (the builders' m->nodes chunks, the
 * old blocks), while initializers built in m->nodes stay; inlining moves a
 * single-caller callee's body instead of copying it; a kid array grown by
 * tl_expr_push_kid keeps its capacity class through copies and moves
 * (which make it exact) and grows again after them; bodies in big blocks
 * move through the module's chunk cache. Use-after-free and overflow are
 * the risks: run under ASan. */
#include "ir.h"
#include "passes/passes.h"

#include <check.h>
#include "check_main.h"
#include "tilt.h"

/* n functions () -> i32, each (i32.add (i32.const i) (i32.const 1)), and a
 * global initialized to (i32.const 42): all in m->nodes. */
static tl_module *adds(uint32_t n) {
  tl_module *m = tl_module_alloc();
  for (uint32_t i = 0; i < n; i++) {
    tl_func *f = tl_module_add_func(m);
    f->type = tl_functype_intern(m, TL_NONE, TL_I32);
    tl_expr *sum = tl_make_binary(m, TL_OP_I32_ADD, tl_make_const_i32(m, (int32_t)i), tl_make_const_i32(m, 1));
    f->body = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f), &sum, 1);
    tl_expr_finalize(m, f, f->body);
  }
  tl_global g = {0};
  g.type = TL_I32;
  g.init = tl_make_const_i32(m, 42);
  TL_VEC_PUSH(&m->globals, tl_global, g);
  return m;
}

static size_t live_blocks(const tl_module *m) {
  size_t n = 0;
  for (size_t i = 0; i < m->blocks.n; i++) n += TL_VEC_AT(&m->blocks, void *, i) != NULL;
  return n;
}

static void check_folded(tl_module *m, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    tl_expr *b = TL_FUNC(m, i)->body, *k = b->nkid ? b->kid[0] : b;
    ck_assert_int_eq(k->op, TL_OP_I32_CONST);
    ck_assert_int_eq(k->imm.i32, (int32_t)i + 1);
  }
  ck_assert_int_eq(TL_GLOBAL(m, 0)->init->imm.i32, 42);
}

START_TEST(run_moves_and_sweeps) {
  enum { N = 30 };
  for (uint32_t threads = 1; threads <= 2; threads++) {
    tl_module *m = adds(N);
    tl_pass_options opt = {0};
    opt.threads = threads;
    tl_error err = {0};
    const char *names[] = {"precompute", "vacuum"};
    ck_assert_int_eq(tl_module_run_passes(m, names, 2, &opt, &err), TL_OK);
    ck_assert_int_eq(tl_validate_module(m, &err), TL_OK);
    check_folded(m, N);
    ck_assert_uint_eq(live_blocks(m), N); /* one block per changed body */
    /* again: the bodies change no more, and no block is left behind */
    ck_assert_int_eq(tl_module_run_passes(m, names, 2, &opt, &err), TL_OK);
    check_folded(m, N);
    ck_assert_uint_le(live_blocks(m), N);
    tl_module_destroy(m);
  }
}
END_TEST

/* f0 () -> i32 (exported) calls f1, whose body is 3 + 4: f1 has one
 * caller, so inlining moves its body into f0 and removes f1. */
START_TEST(inlining_moves_single_caller) {
  for (uint32_t threads = 1; threads <= 2; threads++) {
    tl_module *m = tl_module_alloc();
    tl_module_add_func(m);
    tl_module_add_func(m);
    tl_func *f0 = TL_FUNC(m, 0), *f1 = TL_FUNC(m, 1);
    f0->type = f1->type = tl_functype_intern(m, TL_NONE, TL_I32);
    tl_expr *call = tl_expr_new(m, TL_OP_CALL, 0);
    call->imm.index = 1;
    tl_expr_finalize(m, f0, call);
    f0->body = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f0), &call, 1);
    tl_expr *sum = tl_make_binary(m, TL_OP_I32_ADD, tl_make_const_i32(m, 3), tl_make_const_i32(m, 4));
    f1->body = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f1), &sum, 1);
    tl_export ex = {"f", TL_EXTERN_FUNC, 0, 1};
    TL_VEC_PUSH(&m->exports, tl_export, ex);
    tl_pass_options opt = {0};
    opt.threads = threads;
    tl_error err = {0};
    const char *names[] = {"inlining", "precompute"};
    ck_assert_int_eq(tl_module_run_passes(m, names, 2, &opt, &err), TL_OK);
    ck_assert_int_eq(tl_validate_module(m, &err), TL_OK);
    ck_assert_uint_eq(m->funcs.n, 1);
    tl_expr *b = TL_FUNC(m, 0)->body;
    while (b->op == TL_OP_BLOCK && b->nkid == 1) b = b->kid[0];
    ck_assert_int_eq(b->op, TL_OP_I32_CONST);
    ck_assert_int_eq(b->imm.i32, 7);
    tl_module_destroy(m);
  }
}
END_TEST

/* The function's body: a block of `n` drops of i32.const i, pushed one by
 * one, then the sum of the constants the body drops. */
static int64_t drops_sum(const tl_expr *b) {
  int64_t s = 0;
  for (uint32_t i = 0; i < b->nkid; i++) s += b->kid[i]->kid[0]->imm.i32;
  return s;
}

static void push_drops(tl_module *m, tl_expr *b, uint32_t from, uint32_t to) {
  for (uint32_t i = from; i < to; i++)
    tl_expr_push_kid(m, b, tl_make_drop(m, tl_make_const_i32(m, (int32_t)i)));
}

START_TEST(kid_capacity_survives_moves) {
  ck_assert_uint_eq(sizeof(tl_expr), 28);
  tl_module *m = tl_module_alloc();
  tl_func *f = tl_module_add_func(m);
  f->type = tl_functype_intern(m, TL_NONE, TL_NONE);
  tl_expr *b = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f), NULL, 0);
  push_drops(m, b, 0, 1000);
  ck_assert_uint_eq(b->nkid, 1000);
  ck_assert_uint_eq(tl_expr_kid_cap(b), 1024); /* doubled from 4 */
  tl_expr *copy = tl_expr_copy(m, f, b);
  ck_assert_uint_eq(copy->kcap, 0);            /* copies are exact */
  ck_assert_uint_eq(tl_expr_kid_cap(copy), 1000);
  push_drops(m, copy, 1000, 1001);             /* an exact array grows */
  ck_assert_uint_eq(tl_expr_kid_cap(copy), 1024);
  tl_nodes_begin(m, 0);                        /* as a pass builds */
  push_drops(m, b, 1000, 1001);                /* fits: no new array */
  f->body = b;
  tl_nodes_end(m, 0);                          /* moved: exact too */
  b = f->body;
  ck_assert_uint_eq(b->kcap, 0);
  ck_assert_uint_eq(tl_expr_kid_cap(b), 1001);
  push_drops(m, b, 1001, 1003);                /* grows out of the block */
  ck_assert_uint_eq(b->nkid, 1003);
  ck_assert_uint_eq(tl_expr_kid_cap(b), 1024);
  tl_expr_finalize(m, f, b);
  tl_error err = {0};
  ck_assert_int_eq(tl_validate_module(m, &err), TL_OK);
  ck_assert_int_eq(drops_sum(b), 1002 * 1003 / 2);
  ck_assert_int_eq(drops_sum(copy), 1000 * 1001 / 2);
  tl_module_destroy(m);
}
END_TEST

/* Two functions whose bodies take big blocks (over 128 KB: from the chunk
 * cache): each a block of 8000 drops of (i32.add (i32.const i) (i32.const
 * 1)). precompute folds them and the bodies move to big blocks; then each
 * constant is wrapped in (i32.add c (i32.const 0)) and folded again, so the
 * bodies move to new blocks while the old ones go back to the cache for the
 * next body. The sums show nothing was overwritten. */
static void wrap_adds(tl_module *m, tl_expr *b) {
  for (uint32_t i = 0; i < b->nkid; i++)
    b->kid[i]->kid[0] = tl_make_binary(m, TL_OP_I32_ADD, b->kid[i]->kid[0], tl_make_const_i32(m, 0));
}

static tl_expr *big_adds(tl_module *m, tl_func *f, uint32_t n) {
  tl_expr *b = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f), NULL, 0);
  for (uint32_t i = 0; i < n; i++)
    tl_expr_push_kid(m, b, tl_make_drop(m, tl_make_binary(m, TL_OP_I32_ADD, tl_make_const_i32(m, (int32_t)i),
                                                          tl_make_const_i32(m, 1))));
  tl_expr_finalize(m, f, b);
  return b;
}

START_TEST(big_bodies_move_through_the_cache) {
  enum { N = 8000 };
  for (uint32_t threads = 1; threads <= 2; threads++) {
    tl_module *m = tl_module_alloc();
    for (int k = 0; k < 2; k++) {
      tl_func *f = tl_module_add_func(m);
      f->type = tl_functype_intern(m, TL_NONE, TL_NONE);
      f->body = big_adds(m, f, N);
    }
    tl_pass_options opt = {0};
    opt.threads = threads;
    tl_error err = {0};
    const char *names[] = {"precompute"};
    for (int run = 0; run < 3; run++) {
      for (int k = 0; run && k < 2; k++) wrap_adds(m, TL_FUNC(m, k)->body);
      ck_assert_int_eq(tl_module_run_passes(m, names, 1, &opt, &err), TL_OK);
      ck_assert_int_eq(tl_validate_module(m, &err), TL_OK);
      for (int k = 0; k < 2; k++) ck_assert_int_eq(drops_sum(TL_FUNC(m, k)->body), (int64_t)N * (N + 1) / 2);
    }
    ck_assert_uint_eq(tl_chunk_cache_held(m->chunks), 0); /* the last sweep emptied it */
    tl_module_destroy(m);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("nodes");
  TCase *tc = tcase_create("nodes");
  tcase_add_test(tc, run_moves_and_sweeps);
  tcase_add_test(tc, inlining_moves_single_caller);
  tcase_add_test(tc, kid_capacity_survives_moves);
  tcase_add_test(tc, big_bodies_move_through_the_cache);
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
