/* writer_parallel_test.c — the writer and the validator on the pass pool:
 * a module whose read size (f->code_size) makes them parallel must give
 * the bytes and the first error that the serial path (code_size 0) gives,
 * including bodies that need block types the module lacks (redone in
 * function order) and label names. */
#include "ir.h"
#include "wasm-io/wasmio.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

enum { NFUNCS = 300 };

static tl_expr *pair(tl_module *m, int32_t a, int64_t b) {
  tl_expr *e = tl_expr_new(m, TL_OP_TUPLE_MAKE, 0);
  tl_expr_push_kid(m, e, tl_make_const_i32(m, a));
  tl_expr_push_kid(m, e, tl_make_const_i64(m, b));
  tl_expr_finalize(m, NULL, e);
  return e;
}

/* NFUNCS functions [] -> []; every 7th drops a (i32, i64) block (no type
 * []->[i32 i64] in the module: the writer adds one), every 11th a named
 * block. code_size > 0 turns on the parallel paths. */
static tl_module *build(uint32_t code_size) {
  tl_module *m = tl_module_alloc();
  m->features = TL_FEAT_ALL;
  for (uint32_t i = 0; i < NFUNCS; i++) {
    tl_func *f = tl_module_add_func(m);
    f->type = tl_functype_intern(m, TL_NONE, TL_NONE);
    f->code_size = code_size;
    uint32_t l = tl_func_new_label(m, f);
    f->body = tl_make_block(m, TL_OP_BLOCK, l, NULL, 0);
    for (int32_t k = 0; k < 20; k++) tl_expr_push_kid(m, f->body, tl_make_drop(m, tl_make_const_i32(m, k)));
    if (i % 7 == 3) {
      uint32_t bl = tl_func_new_label(m, f);
      tl_expr *v = pair(m, (int32_t)i, 5);
      tl_expr_push_kid(m, f->body, tl_make_drop(m, tl_make_block(m, TL_OP_BLOCK, bl, &v, 1)));
    }
    if (i % 11 == 5) {
      uint32_t bl = tl_func_new_label(m, f);
      tl_expr *v = tl_make_const_i32(m, 7);
      tl_expr_push_kid(m, f->body, tl_make_drop(m, tl_make_block(m, TL_OP_BLOCK, bl, &v, 1)));
      f->label_name = tl_arena_alloc(&m->arena, f->nlabel * sizeof *f->label_name, 8);
      memset(f->label_name, 0, f->nlabel * sizeof *f->label_name);
      f->label_name[bl] = "named";
      f->label_cap = f->nlabel;
    }
    tl_expr_finalize(m, f, f->body);
  }
  return m;
}

static void write_ok(tl_module *m, bool names, bool stack, tl_buf *out) {
  tl_write_options o = {.debug_names = names, .optimize_stack = stack};
  tl_error err = {0};
  ck_assert_msg(tl_write(m, &o, out, &err) == TL_OK, "tl_write: %s", err.msg);
}

START_TEST(same_bytes) {
  tl_module *par = build(1000), *ser = build(0);
  tl_error err = {0};
  ck_assert_msg(tl_validate_module(par, &err) == TL_OK, "%s", err.msg);
  for (int v = 0; v < 4; v++) {
    tl_buf a = {0}, b = {0};
    write_ok(par, v & 1, v & 2, &a);
    write_ok(ser, v & 1, v & 2, &b);
    ck_assert_uint_eq(a.n, b.n);
    ck_assert(!memcmp(a.p, b.p, a.n));
    tl_buf_free(&a);
    tl_buf_free(&b);
  }
  tl_module_destroy(par);
  tl_module_destroy(ser);
}
END_TEST

/* Two broken bodies: the lower index reports, as serially. */
START_TEST(first_error) {
  tl_module *par = build(1000), *ser = build(0);
  tl_module *ms[2] = {par, ser};
  tl_error e[2];
  for (int k = 0; k < 2; k++) {
    TL_FUNC(ms[k], 250)->body->kid[3]->type = TL_I64;  /* drop typed i64 */
    TL_FUNC(ms[k], 120)->body->kid[5]->type = TL_F32;
    memset(&e[k], 0, sizeof e[k]);
    ck_assert(tl_validate_module(ms[k], &e[k]) != TL_OK);
  }
  ck_assert_uint_eq(e[0].func_index, 120);
  ck_assert_uint_eq(e[0].code, e[1].code);
  ck_assert_uint_eq(e[0].func_index, e[1].func_index);
  ck_assert_str_eq(e[0].msg, e[1].msg);
  tl_module_destroy(par);
  tl_module_destroy(ser);
}
END_TEST

int main(void) {
  Suite *s = suite_create("writer_parallel");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, same_bytes);
  tcase_add_test(tc, first_error);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
