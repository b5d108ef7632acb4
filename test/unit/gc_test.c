/* gc_test.c — the GC instructions outside the reader's streaming checks:
 * glb and lub of reference types (type.c), tl_func_has_gc (what the
 * function passes leave alone), GC nodes built through the C API (their
 * immediates checked before finalize reads a type's fields), and
 * br_on_cast written with its target narrowed to a subtype of its input. */
#include "ir.h"
#include "tilt.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_main.h"

static const char *SRC =
    "(module\n"
    "  (type $s (sub (struct (field (mut i32)))))\n"
    "  (type $t (sub $s (struct (field (mut i32)) (field i64))))\n"
    "  (type $a (array (mut i8)))\n"
    "  (func $plain (param i32) (result i32) (local.get 0))\n"
    "  (func $set (param $p (ref $s)) (struct.set $s 0 (local.get $p) (i32.const 1)))\n"
    "  (func $cast (export \"cast\") (param $x (ref $t)) (result (ref null $s))\n"
    "    (block $l (result (ref null $s))\n"
    "      (drop (br_on_cast $l (ref $t) (ref $t) (local.get $x)))\n"
    "      (ref.null none))))\n";

static tl_module *parse(void) {
  tl_read_options o;
  memset(&o, 0, sizeof o);
  o.features = TL_FEATURES_ALL;
  tl_error err;
  tl_module *m = tl_module_parse_text(SRC, strlen(SRC), &o, &err);
  ck_assert_msg(m != NULL, "%s", err.msg);
  return m;
}

START_TEST(glb_and_lub) {
  tl_module *m = parse();
  tl_type s = tl_gc_ref_of(m, 0, true), t = tl_gc_ref_of(m, 1, false), a = tl_gc_ref_of(m, 2, true);
  ck_assert_uint_eq(tl_type_glb(m, s, t), t);                      /* the lower one */
  ck_assert_uint_eq(tl_type_glb(m, s, tl_ref_with_null(t, true)), tl_ref_with_null(t, true));
  ck_assert_uint_eq(tl_type_glb(m, s, a), tl_ref(TL_HT_NONE, true)); /* unrelated: the bottom */
  ck_assert_uint_eq(tl_type_glb(m, tl_ref(TL_HT_ANY, false), s), tl_ref_with_null(s, false));
  /* a bottom and a defined type: the defined one, not the top */
  ck_assert_uint_eq(tl_type_lub(m, tl_ref(TL_HT_NONE, true), t), tl_ref_with_null(t, true));
  ck_assert_uint_eq(tl_type_lub(m, t, a), tl_ref(TL_HT_EQ, true));
  tl_module_free(m);
}
END_TEST

START_TEST(func_has_gc) {
  tl_module *m = parse();
  ck_assert(!tl_func_has_gc(m, TL_FUNC(m, 0)));
  ck_assert(tl_func_has_gc(m, TL_FUNC(m, 1)));
  ck_assert(tl_func_has_gc(m, TL_FUNC(m, 2)));
  tl_module_free(m);
}
END_TEST

START_TEST(capi_builds_gc_nodes) {
  tl_module *m = parse();
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.index = 0;
  tl_expr_ref s = tl_build_op(m, TL_NO_FUNC, tl_op_lookup("struct.new_default"), NULL, 0, &a);
  ck_assert(s != NULL);
  a.index2 = 0;
  tl_expr_ref g = tl_build_op(m, TL_NO_FUNC, tl_op_lookup("struct.get"), &s, 1, &a);
  ck_assert(g != NULL);
  ck_assert_uint_eq(((tl_expr *)g)->type, TL_I32);
  a.index2 = 7; /* no field 7 */
  ck_assert(tl_build_op(m, TL_NO_FUNC, tl_op_lookup("struct.get"), &s, 1, &a) == NULL);
  a.index = 2, a.index2 = 0; /* an array type for a struct instruction */
  ck_assert(tl_build_op(m, TL_NO_FUNC, tl_op_lookup("struct.new_default"), NULL, 0, &a) == NULL);
  tl_imm_args c = TL_IMM_ARGS_INIT;
  c.type = tl_gc_ref_of(m, 1, true);
  tl_expr_ref r = tl_build_op(m, TL_NO_FUNC, tl_op_lookup("ref.cast"), &s, 1, &c);
  ck_assert(r != NULL);
  ck_assert_uint_eq(((tl_expr *)r)->type, c.type);
  c.type = TL_I32;
  ck_assert(tl_build_op(m, TL_NO_FUNC, tl_op_lookup("ref.test"), &s, 1, &c) == NULL);
  tl_module_free(m);
}
END_TEST

/* br_on_cast $l (ref $t) (ref null $s) is not valid wasm (the target is
 * not under the input): the IR keeps the target, the writer states its glb
 * with the input, (ref $t), and flags 0. */
START_TEST(br_on_cast_written_narrowed) {
  tl_module *m = parse();
  tl_func *f = TL_FUNC(m, 2);
  ck_assert(f->body != NULL || f->lazy);
  tl_error err;
  ck_assert_int_eq(tl_func_decode(m, 2, &err), TL_OK);
  tl_expr *blk = f->body->kid[0], *br = blk->kid[0]->kid[0];
  ck_assert_int_eq(br->op, TL_OP_BR_ON_CAST);
  br->imm.idx2.b = tl_gc_ref_of(m, 0, true); /* widen the target: still a valid IR node */
  tl_func_refinalize(m, f); /* the block now takes (ref null $s) */
  ck_assert_msg(tl_module_validate(m, &err) == TL_OK, "%s", err.msg);
  uint8_t *out;
  size_t n;
  ck_assert_int_eq(tl_module_write(m, NULL, &out, &n, &err), TL_OK);
  const uint8_t want[] = {0xfb, 24, 0x00, 0x00, 0x01, 0x01}; /* flags 0, depth 0, $t, $t */
  ck_assert(memmem(out, n, want, sizeof want) != NULL);
  tl_read_options o;
  memset(&o, 0, sizeof o);
  o.features = TL_FEATURES_ALL;
  tl_module *back = tl_module_read(out, n, &o, &err);
  ck_assert_msg(back != NULL, "%s", err.msg);
  tl_module_free(back);
  free(out);
  tl_module_free(m);
}
END_TEST

/* The IR validator's GC rules, on nodes a pass could have made. */
START_TEST(validator_rules) {
  tl_module *m = parse();
  tl_error err;
  ck_assert_int_eq(tl_func_decode(m, 1, &err), TL_OK);
  tl_expr *set = TL_FUNC(m, 1)->body->kid[0];
  ck_assert_int_eq(set->op, TL_OP_STRUCT_SET);
  ck_assert_int_eq(tl_module_validate(m, &err), TL_OK);
  TL_FTYPE(m, 0)->fields[0].mut = false; /* the field becomes immutable */
  ck_assert_int_ne(tl_module_validate(m, &err), TL_OK);
  ck_assert_msg(strstr(err.msg, "immutable") != NULL, "%s", err.msg);
  TL_FTYPE(m, 0)->fields[0].mut = true;
  set->op = TL_OP_STRUCT_GET_S; /* of an i32 field, with two operands */
  ck_assert_int_ne(tl_module_validate(m, &err), TL_OK);
  set->op = TL_OP_STRUCT_SET;
  set->imm.idx2.b = 5; /* no field 5 */
  ck_assert_int_ne(tl_module_validate(m, &err), TL_OK);
  tl_module_free(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gc");
  TCase *c = tcase_create("core");
  tcase_add_test(c, glb_and_lub);
  tcase_add_test(c, func_has_gc);
  tcase_add_test(c, capi_builds_gc_nodes);
  tcase_add_test(c, br_on_cast_written_narrowed);
  tcase_add_test(c, validator_rules);
  suite_add_tcase(s, c);
  return s;
}

TL_CHECK_MAIN(suite)
