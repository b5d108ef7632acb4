/* passes_ir_test.c — passes on IR shapes the readers never build but other
 * passes leave behind (built by hand here): each pass's output must
 * validate. merge-blocks on a dropped block whose br_if has a condition
 * that never completes (found by tilt-fuzz opt-valid seed 9300017902 after
 * remove-unused-brs, vacuum and remove-unused-names): the br_if loses its
 * value and is unreachable, not none. */
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

static void run_pass_and_validate(const char *pass) {
  tl_error err;
  ck_assert_msg(tl_module_validate(M, &err) == TL_OK, "input: %s", err.msg);
  ck_assert_int_eq(tl_module_run_passes(M, &pass, 1, NULL, &err), TL_OK);
  ck_assert_msg(tl_module_validate(M, &err) == TL_OK, "after %s: %s", pass, err.msg);
}

START_TEST(merge_blocks_dropped_block_unreachable_br_if) {
  uint32_t fl = tl_func_new_label(M, F), l = tl_func_new_label(M, F);
  /* (drop (block $l (result i32)
   *   (if (result i32) (i32.const 1)
   *     (then (block (drop (br_if $l (i32.const 1) (i32.eqz (unreachable))))))
   *     (else (i32.const 3))))) */
  tl_expr *cond = mk(TL_OP_I32_EQZ, 0, 1, tl_make_unreachable(M));
  tl_expr *br_if = mk(TL_OP_BR_IF, l, 2, c32(1), cond);
  ck_assert_uint_eq(br_if->type, TL_UNREACHABLE);
  tl_expr *then = mk(TL_OP_BLOCK, TL_NO_LABEL, 1, tl_make_drop(M, br_if));
  tl_expr *iff = mk(TL_OP_IF, TL_NO_LABEL, 3, c32(1), then, c32(3));
  ck_assert_uint_eq(iff->type, TL_I32);
  tl_expr *blk = mk(TL_OP_BLOCK, l, 1, iff);
  ck_assert_uint_eq(blk->type, TL_I32);
  F->body = mk(TL_OP_BLOCK, fl, 1, tl_make_drop(M, blk));
  run_pass_and_validate("merge-blocks");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("passes_ir");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, merge_blocks_dropped_block_unreachable_br_if);
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
