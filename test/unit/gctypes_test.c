/* gctypes_test.c — the WebAssembly 3.0 type system (type.c): iso-recursive
 * canonicalization of rec groups, subtyping and LUB over abstract and
 * defined heap types, type comparison across two modules (linking), and
 * the local-initialization fix-up (localinit.c) that keeps a function
 * valid after a pass moved a non-nullable local's set. */
#include "ir.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_main.h"

static tl_module *parse(const char *wat) {
  tl_read_options o = {.features = TL_FEATURES_ALL};
  tl_error e;
  tl_module *m = tl_module_parse_text(wat, strlen(wat), &o, &e);
  ck_assert_msg(m != NULL, "parse: %s", e.msg);
  return m;
}

static uint32_t def(const tl_module *m, uint32_t idx) { return TL_HT_DEF + TL_FTYPE(m, idx)->canon; }

START_TEST(identical_groups_are_one_type) {
  tl_module *m = parse("(module\n"
                       "  (rec (type $a (struct (field (ref null $b)))) (type $b (struct (field i32))))\n"
                       "  (rec (type $c (struct (field (ref null $d)))) (type $d (struct (field i32))))\n"
                       "  (rec (type $e (struct (field i32))) (type $f (struct (field (ref null $e)))))\n"
                       "  (type $g (struct (field i32)))\n"
                       "  (type $h (struct (field i32))))");
  ck_assert_uint_eq(def(m, 0), def(m, 2)); /* same group structure, same place */
  ck_assert_uint_eq(def(m, 1), def(m, 3));
  ck_assert_uint_ne(def(m, 1), def(m, 4)); /* same struct, another group shape */
  ck_assert_uint_ne(def(m, 1), def(m, 6)); /* a group of two vs one of its own */
  ck_assert_uint_eq(def(m, 6), def(m, 7));
  tl_module_free(m);
}
END_TEST

START_TEST(subtyping_and_lub) {
  tl_module *m = parse("(module\n"
                       "  (type $base (sub (struct (field i32))))\n"
                       "  (type $left (sub $base (struct (field i32) (field i64))))\n"
                       "  (type $right (sub $base (struct (field i32) (field f32))))\n"
                       "  (type $leaf (sub final $left (struct (field i32) (field i64) (field f64))))\n"
                       "  (type $arr (array (mut i8)))\n"
                       "  (type $fn (func)))");
  tl_type base = tl_ref(def(m, 0), false), left = tl_ref(def(m, 1), false), right = tl_ref(def(m, 2), true);
  tl_type leaf = tl_ref(def(m, 3), false), arr = tl_ref(def(m, 4), false), fn = tl_ref(def(m, 5), false);
  ck_assert(tl_type_sub(m, leaf, left) && tl_type_sub(m, leaf, base) && !tl_type_sub(m, base, leaf));
  ck_assert(!tl_type_sub(m, right, base));                    /* nullable into non-null */
  ck_assert(tl_type_sub(m, right, tl_ref_with_null(base, true)));
  ck_assert(tl_type_sub(m, leaf, tl_ref(TL_HT_STRUCT, false)) && tl_type_sub(m, leaf, tl_ref(TL_HT_EQ, true)));
  ck_assert(tl_type_sub(m, arr, tl_ref(TL_HT_ARRAY, false)) && !tl_type_sub(m, arr, tl_ref(TL_HT_STRUCT, true)));
  ck_assert(tl_type_sub(m, fn, TL_FUNCREF) && !tl_type_sub(m, fn, tl_ref(TL_HT_ANY, true)));
  ck_assert(tl_type_sub(m, tl_ref(TL_HT_NONE, true), tl_ref_with_null(leaf, true)));
  ck_assert(!tl_type_sub(m, tl_ref(TL_HT_NOFUNC, true), tl_ref_with_null(leaf, true)));
  ck_assert(tl_type_sub(m, tl_ref(TL_HT_I31, false), tl_ref(TL_HT_ANY, false)));
  /* LUB: the nearest common supertype, nullable if either is */
  ck_assert_uint_eq(tl_type_lub(m, leaf, right), tl_ref_with_null(base, true));
  ck_assert_uint_eq(tl_type_lub(m, leaf, left), left);
  ck_assert_uint_eq(tl_type_lub(m, leaf, arr), tl_ref(TL_HT_EQ, false));
  ck_assert_uint_eq(tl_type_lub(m, arr, tl_ref(TL_HT_I31, true)), tl_ref(TL_HT_EQ, true));
  ck_assert_uint_eq(tl_type_lub(m, TL_UNREACHABLE, leaf), leaf);
  tl_module_free(m);
}
END_TEST

START_TEST(types_across_modules) {
  tl_module *a = parse("(module (type $p (sub (struct))) (type $c (sub $p (struct (field i32))))"
                       " (rec (type $x (func)) (type $y (func))))");
  tl_module *b = parse("(module (type (func (param i64))) (type $p (sub (struct)))"
                       " (type $c (sub $p (struct (field i32)))) (rec (type $x (func)) (type $y (func))))");
  ck_assert(tl_type_sub_across(a, tl_ref(def(a, 1), false), b, tl_ref(def(b, 2), false)));
  ck_assert(tl_type_sub_across(a, tl_ref(def(a, 1), false), b, tl_ref(def(b, 1), true)));
  ck_assert(!tl_type_sub_across(a, tl_ref(def(a, 0), false), b, tl_ref(def(b, 2), false)));
  ck_assert(tl_type_sub_across(a, tl_ref(def(a, 2), false), b, tl_ref(def(b, 3), false)));
  ck_assert(!tl_type_sub_across(a, tl_ref(def(a, 2), false), b, tl_ref(def(b, 4), false))); /* rec position */
  ck_assert(!tl_type_sub_across(a, tl_ref(def(a, 2), false), b, tl_ref(def(b, 0), false)));
  ck_assert(tl_type_sub_across(NULL, TL_EXTERNREF, b, TL_EXTERNREF));
  tl_module_free(a);
  tl_module_free(b);
}
END_TEST

/* A set moved into a block of its own (as a pass might) no longer reaches
 * the read after the block: the fix-up makes the local nullable and the
 * read ref.as_non_null, and the module validates and writes again. */
START_TEST(local_init_fixup) {
  tl_module *m = parse("(module (type $t (func))\n"
                       "  (func $f (param $p (ref $t)) (result (ref $t)) (local $x (ref $t))\n"
                       "    (local.set $x (local.get $p))\n"
                       "    (local.get $x)))");
  tl_func *f = TL_FUNC(m, 0);
  tl_error e;
  ck_assert_int_eq(tl_func_decode(m, 0, &e), TL_OK);
  ck_assert(!tl_func_fix_local_init(m, f)); /* valid as read: nothing to do */
  tl_expr *body = f->body;
  ck_assert_uint_eq(body->nkid, 2);
  tl_expr *set = body->kid[0];
  ck_assert_int_eq(set->op, TL_OP_LOCAL_SET);
  body->kid[0] = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, &set, 1);
  ck_assert(tl_func_fix_local_init(m, f));
  ck_assert(tl_ref_nullable(f->local[1]));
  ck_assert_int_eq(body->kid[1]->op, TL_OP_REF_AS_NON_NULL);
  ck_assert_int_eq(tl_module_validate(m, &e), TL_OK);
  uint8_t *bin;
  size_t n;
  ck_assert_int_eq(tl_module_write(m, NULL, &bin, &n, &e), TL_OK);
  tl_read_options o = {.features = TL_FEATURES_ALL};
  tl_module *back = tl_module_read(bin, n, &o, &e);
  ck_assert_msg(back != NULL, "written module rejected: %s", e.msg);
  tl_module_free(back);
  free(bin);
  tl_module_free(m);
}
END_TEST

/* The type rewriter (type_rewrite.c): public types stay first and
 * unchanged, edited private types land in one rec group (supertype
 * first), a mapped type and an unused one vanish, and every use follows. */
static const char *rewrite_wat =
    "(module\n"
    "  (type $only (struct (field f32)))\n"
    "  (type $a (sub (struct (field (mut anyref)))))\n"
    "  (type $pub (struct (field i32)))\n"
    "  (type $b (sub $a (struct (field (mut anyref)) (field i32))))\n"
    "  (type $dead (struct))\n"
    "  (func $e (export \"e\") (param (ref null $pub)))\n"
    "  (func $f (param $x anyref) (result i32)\n"
    "    (drop (struct.new $b (ref.null none) (i32.const 1)))\n"
    "    (struct.set $a 0 (struct.new_default $a) (ref.null none))\n"
    "    (ref.test (ref $only) (local.get $x))))";

START_TEST(type_rewrite_edits_and_maps) {
  tl_module *m = parse(rewrite_wat);
  tl_error e;
  tl_type_rewrite rw;
  tl_type_rewrite_begin(m, &rw);
  ck_assert(rw.pub[2] && !rw.pub[1] && !rw.pub[3]);
  tl_type sref = tl_ref(TL_HT_STRUCT, true);
  rw.def[1].fields[0].type = sref;  /* $a and $b alike: the field is mutable */
  rw.def[3].fields[0].type = sref;
  rw.map[0] = TL_HT_NONE;           /* $only becomes none */
  ck_assert_int_eq(tl_type_rewrite_apply(m, &rw, &e), TL_OK);
  tl_type_rewrite_free(&rw);
  /* $pub, $e's type (public), then {$a $b $f's type}; $only, $dead gone */
  ck_assert_uint_eq(m->types.n, 5);
  ck_assert_str_eq(TL_FTYPE(m, 0)->name, "pub");
  ck_assert_uint_eq(TL_FTYPE(m, 2)->nrec, 3);
  ck_assert_str_eq(TL_FTYPE(m, 2)->name, "a");
  ck_assert_uint_eq(TL_FTYPE(m, 3)->super, 2);
  ck_assert_uint_eq(TL_FTYPE(m, 3)->fields[0].type, sref);
  tl_func *f = TL_FUNC(m, 1);
  tl_expr *test = f->body->kid[f->body->nkid - 1];
  ck_assert_int_eq(test->op, TL_OP_REF_TEST);
  ck_assert_uint_eq(test->imm.index, tl_ref(TL_HT_NONE, false));
  ck_assert_uint_eq(f->body->kid[0]->kid[0]->imm.index, 3); /* struct.new $b */
  ck_assert_int_eq(tl_validate_ir(m, &e), TL_OK);
  uint8_t *bin;
  size_t n;
  ck_assert_int_eq(tl_module_write(m, NULL, &bin, &n, &e), TL_OK);
  tl_read_options o = {.features = TL_FEATURES_ALL};
  tl_module *back = tl_module_read(bin, n, &o, &e);
  ck_assert_msg(back != NULL, "written module rejected: %s", e.msg);
  tl_module_free(back);
  free(bin);
  tl_module_free(m);
}
END_TEST

/* A subtype's mutable field that no longer equals its supertype's: the
 * new section does not validate, and apply says so. */
START_TEST(type_rewrite_reports_bad_edits) {
  tl_module *m = parse(rewrite_wat);
  tl_error e;
  tl_type_rewrite rw;
  tl_type_rewrite_begin(m, &rw);
  rw.def[3].fields[0].type = tl_ref(TL_HT_STRUCT, true);
  ck_assert_int_eq(tl_type_rewrite_apply(m, &rw, &e), TL_E_INVALID);
  tl_type_rewrite_free(&rw);
  tl_module_free(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gctypes");
  TCase *t = tcase_create("core");
  tcase_add_test(t, identical_groups_are_one_type);
  tcase_add_test(t, subtyping_and_lub);
  tcase_add_test(t, types_across_modules);
  tcase_add_test(t, local_init_fixup);
  tcase_add_test(t, type_rewrite_edits_and_maps);
  tcase_add_test(t, type_rewrite_reports_bad_edits);
  suite_add_tcase(s, t);
  return s;
}

TL_CHECK_MAIN(suite)
