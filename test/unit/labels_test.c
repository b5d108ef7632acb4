/* labels_test.c — labels.c and effects.c helpers: tl_labels_count counts
 * every branch target (br, br_if, br_table targets and default) and takes
 * each label's type from the branches in post-order (a branch nested in
 * another's value first); tl_labels_retarget follows map chains and leaves
 * the body alone for the identity map; both on 100,000-deep nesting;
 * tl_effects_of tells branches that leave a subtree from inner ones. */
#include "ir.h"
#include "passes/passes.h"

#include <check.h>
#include <stdlib.h>
#include "check_main.h"

#include "ir_build.h"

static void setup(void) {
  ir_fixture(TL_NONE, TL_NONE);
}

static void teardown(void) { ir_teardown(); }

START_TEST(counts_and_post_order_types) {
  uint32_t fl = tl_func_new_label(M, F), a = tl_func_new_label(M, F), b = tl_func_new_label(M, F);
  /* (br $a (block (result i32) (drop (br_if $a (f32.const) (i32.const 1)))
   * (i32.const 5))): the inner br_if (f32) comes before the outer br (i32)
   * in post-order; a pre-order walk would meet the br first */
  tl_expr *inner = mk(TL_OP_BR_IF, a, 2, f32c(), c32(1));
  tl_expr *val = mk(TL_OP_BLOCK, TL_NO_LABEL, 2, mk(TL_OP_DROP, 0, 1, inner), c32(5));
  ck_assert_uint_eq(val->type, TL_I32);
  tl_expr *outer = mk(TL_OP_BR, a, 1, val);
  tl_expr *bt = tl_expr_new(M, TL_OP_BR_TABLE, 1);
  bt->kid[0] = c32(0);
  bt->imm.table = tl_brtable_new(M, 2);
  bt->imm.table->targets[0] = b;
  bt->imm.table->targets[1] = a;
  bt->imm.table->def = b;
  tl_expr_finalize(M, F, bt);
  tl_expr *blk_b = mk(TL_OP_BLOCK, b, 1, bt);
  tl_expr *blk_a = mk(TL_OP_BLOCK, a, 2, blk_b, outer);
  F->body = mk(TL_OP_BLOCK, fl, 2, blk_a, mk(TL_OP_BR, fl, 0));
  tl_label_info li;
  tl_labels_count(M, F, &li);
  ck_assert_uint_eq(li.n, F->nlabel);
  ck_assert_uint_eq(li.count[fl], 1);
  ck_assert_uint_eq(li.count[a], 3);  /* br_if, br, one br_table target */
  ck_assert_uint_eq(li.count[b], 2);  /* a br_table target and the default */
  ck_assert_uint_eq(li.type[fl], TL_NONE);
  ck_assert_uint_eq(li.type[b], TL_NONE);
  /* post-order: the br_table (no value: none) first */
  ck_assert_uint_eq(li.type[a], TL_NONE);
  tl_labels_free(&li);

  /* without the br_table the br_if decides: f32, not the outer br's none */
  blk_b->kid[0] = mk(TL_OP_NOP, 0, 0);
  tl_labels_count(M, F, &li);
  ck_assert_uint_eq(li.count[a], 2);
  ck_assert_uint_eq(li.count[b], 0);
  ck_assert_uint_eq(li.type[a], TL_F32);
  ck_assert_uint_eq(li.type[b], TL_UNREACHABLE);
  tl_labels_free(&li);
}
END_TEST

START_TEST(retarget_chains_and_identity) {
  uint32_t fl = tl_func_new_label(M, F), a = tl_func_new_label(M, F), b = tl_func_new_label(M, F);
  tl_expr *br = mk(TL_OP_BR, b, 0);
  tl_expr *bi = mk(TL_OP_BR_IF, a, 1, c32(1));
  tl_expr *bt = tl_expr_new(M, TL_OP_BR_TABLE, 1);
  bt->kid[0] = c32(0);
  bt->imm.table = tl_brtable_new(M, 1);
  bt->imm.table->targets[0] = b;
  bt->imm.table->def = a;
  tl_expr_finalize(M, F, bt);
  F->body = mk(TL_OP_BLOCK, fl, 1, mk(TL_OP_BLOCK, a, 1, mk(TL_OP_BLOCK, b, 3, bi, br, bt)));
  uint32_t map[4] = {0, 1, 2, 3};
  tl_labels_retarget(M, F, map); /* identity: unchanged */
  ck_assert_uint_eq(br->imm.label, b);
  ck_assert_uint_eq(bi->imm.label, a);
  map[b] = a; /* b -> a -> fl */
  map[a] = fl;
  tl_labels_retarget(M, F, map);
  ck_assert_uint_eq(br->imm.label, fl);
  ck_assert_uint_eq(bi->imm.label, fl);
  ck_assert_uint_eq(bt->imm.table->targets[0], fl);
  ck_assert_uint_eq(bt->imm.table->def, fl);
}
END_TEST

START_TEST(deep_nesting) {
  enum { DEPTH = 100000 };
  uint32_t fl = tl_func_new_label(M, F);
  tl_expr *e = mk(TL_OP_BR, fl, 0);
  for (uint32_t i = 0; i < DEPTH; i++) { /* typed once at the end, not per level */
    tl_expr *b = tl_expr_new(M, TL_OP_BLOCK, 1);
    b->imm.block.label = tl_func_new_label(M, F);
    b->kid[0] = e;
    e = b;
  }
  F->body = tl_expr_new(M, TL_OP_BLOCK, 1);
  F->body->imm.block.label = fl;
  F->body->kid[0] = e;
  tl_func_refinalize(M, F);
  ck_assert_uint_eq(F->body->type, TL_NONE);
  ck_assert_uint_eq(F->body->kid[0]->type, TL_UNREACHABLE);
  tl_label_info li;
  tl_labels_count(M, F, &li);
  ck_assert_uint_eq(li.count[fl], 1);
  ck_assert_uint_eq(li.type[fl], TL_NONE);
  ck_assert_uint_eq(li.count[fl + 1], 0);
  tl_labels_free(&li);
  tl_effects fx;
  tl_effects_of(M, F, F->body->kid[0], &fx);
  ck_assert(fx.branches_out); /* the br targets the outermost block */
  tl_effects_of(M, F, F->body, &fx);
  ck_assert(!fx.branches_out);
  uint32_t *map = malloc((F->nlabel + 1) * sizeof *map);
  ck_assert_ptr_nonnull(map);
  for (uint32_t i = 0; i <= F->nlabel; i++) map[i] = i;
  map[fl] = F->nlabel - 1;
  tl_labels_retarget(M, F, map);
  tl_expr *x = F->body;
  while (x->nkid) x = x->kid[0];
  ck_assert_uint_eq(x->imm.label, F->nlabel - 1);
  free(map);
  tl_effects_of(M, F, F->body->kid[0], &fx);
  ck_assert(!fx.branches_out); /* now to the innermost block */
}
END_TEST

START_TEST(effects_without_labels) {
  uint32_t fl = tl_func_new_label(M, F), a = tl_func_new_label(M, F);
  tl_effects fx;
  tl_effects_of(M, F, mk(TL_OP_BR_IF, a, 1, c32(1)), &fx);
  ck_assert(fx.branches_out);
  ck_assert(!tl_effects_removable(&fx));
  tl_effects_of(M, F, mk(TL_OP_BLOCK, a, 1, mk(TL_OP_BR_IF, a, 1, c32(1))), &fx);
  ck_assert(!fx.branches_out);
  tl_effects_of(M, F, mk(TL_OP_DROP, 0, 1, c32(2)), &fx);
  ck_assert(!fx.branches_out);
  ck_assert(tl_effects_removable(&fx));
  tl_effects_of(M, NULL, mk(TL_OP_BR, fl, 0), &fx); /* no function: every label is outside */
  ck_assert(fx.branches_out);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("labels");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, counts_and_post_order_types);
  tcase_add_test(tc, retarget_chains_and_identity);
  tcase_add_test(tc, deep_nesting);
  tcase_add_test(tc, effects_without_labels);
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
