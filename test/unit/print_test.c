/* print_test.c — the text printer on IR built in memory: exact output for
 * small functions (loop, locals, br_if, branch to the function label),
 * constants (hex floats, -0, nan payloads, inf, v128), memargs, reified
 * block types in dead code, tuple locals, names, segments, and a
 * 100,000-deep nest that must print without recursion. */
#include "ir.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static tl_module *new_module(void) {
  tl_module *m = tl_module_alloc();
  ck_assert_ptr_nonnull(m);
  return m;
}

/* A defined function of type (params) -> (results), body labeled. */
static tl_func *new_func(tl_module *m, tl_type params, tl_type results) {
  tl_func *f = tl_module_add_func(m);
  f->type = tl_functype_intern(m, params, results);
  for (uint32_t i = 0; i < tl_type_arity(m, params); i++) tl_func_add_local(m, f, tl_type_at(m, params, i));
  f->body = tl_expr_new(m, TL_OP_BLOCK, 0);
  f->body->imm.block.label = tl_func_new_label(m, f);
  return f;
}

static char *print_module(tl_module *m) {
  tl_buf b = {0};
  tl_print_module(m, &b);
  tl_buf_byte(&b, 0);
  return (char *)b.p;
}

static char *print_expr(tl_module *m, tl_func *f, tl_expr *e) {
  tl_buf b = {0};
  tl_print_expr(m, f, e, &b);
  tl_buf_byte(&b, 0);
  return (char *)b.p;
}

#define CHECK_PRINT(got, want) do { char *g_ = (got); ck_assert_str_eq(g_, want); free(g_); } while (0)

static tl_expr *f32c(tl_module *m, uint32_t bits) {
  tl_expr *e = tl_expr_new(m, TL_OP_F32_CONST, 0);
  e->imm.f32 = bits;
  e->type = TL_F32;
  return e;
}

static tl_expr *f64c(tl_module *m, uint64_t bits) {
  tl_expr *e = tl_expr_new(m, TL_OP_F64_CONST, 0);
  e->imm.f64 = bits;
  e->type = TL_F64;
  return e;
}

START_TEST(prints_loop_locals_br_if) {
  tl_module *m = new_module();
  tl_type i32 = TL_I32;
  tl_func *f = new_func(m, i32, i32);
  tl_func_add_local(m, f, TL_I64);
  uint32_t loop = tl_func_new_label(m, f);
  tl_expr *dec = tl_make_local_set(m, f, 0,
      tl_make_binary(m, TL_OP_I32_SUB, tl_make_local_get(m, f, 0), tl_make_const_i32(m, 1)), false);
  tl_expr *br = tl_expr_new(m, TL_OP_BR_IF, 1);
  br->imm.label = loop;
  br->kid[0] = tl_make_local_get(m, f, 0);
  tl_expr_finalize(m, f, br);
  tl_expr *kids[] = {dec, br};
  tl_expr *lp = tl_make_block(m, TL_OP_LOOP, loop, kids, 2);
  tl_expr *ret = tl_expr_new(m, TL_OP_BR_IF, 2);
  ret->imm.label = f->body->imm.label;
  ret->kid[0] = tl_make_const_i32(m, -7);
  ret->kid[1] = tl_make_local_get(m, f, 0);
  tl_expr_finalize(m, f, ret);
  tl_expr_push_kid(m, f->body, lp);
  tl_expr_push_kid(m, f->body, tl_make_drop(m, ret));
  tl_expr_push_kid(m, f->body, tl_make_binary(m, TL_OP_I32_ADD, tl_make_local_get(m, f, 0),
                                              tl_make_const_i32(m, 1)));
  tl_expr_finalize(m, f, f->body);
  f->name = "count down";
  CHECK_PRINT(print_module(m),
              "(module\n"
              "  (type (;0;) (func (param i32) (result i32)))\n"
              "  (func $count_down (;0;) (type 0) (param i32) (result i32)\n"
              "    (local i64)\n"
              "    (loop $l0\n"
              "      (local.set 0 (i32.sub (local.get 0) (i32.const 1)))\n"
              "      (br_if $l0 (local.get 0)))\n"
              "    (drop (br_if 0 (i32.const -7) (local.get 0)))\n"
              "    (i32.add (local.get 0) (i32.const 1)))\n"
              ")\n");
  tl_module_destroy(m);
} END_TEST

START_TEST(prints_exact_floats) {
  tl_module *m = new_module();
  static const struct { uint32_t bits; const char *text; } f32s[] = {
    {0x40400000u, "(f32.const 0x1.8p+1)"},   {0x80000000u, "(f32.const -0x0p+0)"},
    {0x00000000u, "(f32.const 0x0p+0)"},     {0x3f800000u, "(f32.const 0x1p+0)"},
    {0x7fc00000u, "(f32.const nan)"},        {0xffc00000u, "(f32.const -nan)"},
    {0x7fa00001u, "(f32.const nan:0x200001)"}, {0xff800000u, "(f32.const -inf)"},
    {0x00000001u, "(f32.const 0x0.000002p-126)"}, {0x7f7fffffu, "(f32.const 0x1.fffffep+127)"},
  };
  for (size_t i = 0; i < sizeof f32s / sizeof f32s[0]; i++)
    CHECK_PRINT(print_expr(m, NULL, f32c(m, f32s[i].bits)), f32s[i].text);
  static const struct { uint64_t bits; const char *text; } f64s[] = {
    {0x3ff0000000000000ull, "(f64.const 0x1p+0)"},
    {0x8000000000000000ull, "(f64.const -0x0p+0)"},
    {0x7ff8000000000000ull, "(f64.const nan)"},
    {0xfff0000000000001ull, "(f64.const -nan:0x1)"},
    {0x7ff0000000000000ull, "(f64.const inf)"},
    {0x0000000000000001ull, "(f64.const 0x0.0000000000001p-1022)"},
    {0x3fb999999999999aull, "(f64.const 0x1.999999999999ap-4)"},
  };
  for (size_t i = 0; i < sizeof f64s / sizeof f64s[0]; i++)
    CHECK_PRINT(print_expr(m, NULL, f64c(m, f64s[i].bits)), f64s[i].text);
  tl_module_destroy(m);
} END_TEST

START_TEST(prints_v128_and_memargs) {
  tl_module *m = new_module();
  tl_expr *v = tl_expr_new(m, TL_OP_V128_CONST, 0);
  for (int i = 0; i < 16; i++) v->imm.v128[i] = (uint8_t)i;
  v->type = TL_V128;
  CHECK_PRINT(print_expr(m, NULL, v), "(v128.const i32x4 0x03020100 0x07060504 0x0b0a0908 0x0f0e0d0c)");
  tl_expr *ld = tl_make_unary(m, TL_OP_I32_LOAD16_U, tl_make_const_i32(m, 0));
  ld->imm.mem.offset = 8;
  ld->imm.mem.align = 0;
  CHECK_PRINT(print_expr(m, NULL, ld), "(i32.load16_u offset=8 align=1 (i32.const 0))");
  ld->imm.mem.align = 1;
  ld->imm.mem.offset = 0;
  CHECK_PRINT(print_expr(m, NULL, ld), "(i32.load16_u (i32.const 0))");
  tl_expr *blk = tl_make_block(m, TL_OP_LOOP, 0, &ld, 1);
  CHECK_PRINT(print_expr(m, NULL, blk), "(loop $L0 (result i32)\n  (i32.load16_u (i32.const 0)))");
  tl_expr *i64 = tl_make_const_i64(m, INT64_MIN);
  CHECK_PRINT(print_expr(m, NULL, i64), "(i64.const -9223372036854775808)");
  tl_module_destroy(m);
} END_TEST

/* An if whose condition is unreachable is unreachable-typed; its arms still
 * produce i32, so it must print with (result i32) under i32.add. */
START_TEST(reifies_unreachable_if) {
  tl_module *m = new_module();
  tl_func *f = new_func(m, TL_NONE, TL_I32);
  tl_expr *iff = tl_expr_new(m, TL_OP_IF, 3);
  iff->kid[0] = tl_make_unreachable(m);
  iff->kid[1] = tl_make_const_i32(m, 1);
  tl_expr *two[] = {tl_make_nop(m), tl_make_const_i32(m, 2)};
  iff->kid[2] = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, two, 2);
  tl_expr_finalize(m, f, iff);
  ck_assert_uint_eq(iff->type, TL_UNREACHABLE);
  tl_expr *add = tl_make_binary(m, TL_OP_I32_ADD, iff, tl_make_const_i32(m, 3));
  tl_expr *blk = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f), &add, 1);
  tl_expr_push_kid(m, f->body, blk);
  tl_expr_finalize(m, f, f->body);
  CHECK_PRINT(print_module(m),
              "(module\n"
              "  (type (;0;) (func (result i32)))\n"
              "  (func (;0;) (type 0) (result i32)\n"
              "    (block $l0 (result i32)\n"
              "      (i32.add\n"
              "        (if (result i32)\n"
              "          (unreachable)\n"
              "          (then\n"
              "            (i32.const 1))\n"
              "          (else\n"
              "            (nop)\n"
              "            (i32.const 2)))\n"
              "        (i32.const 3))))\n"
              ")\n");
  tl_module_destroy(m);
} END_TEST

/* local.set of a tuple local: the value, then one local.set per component
 * in reverse; tuple.extract of that local is one local.get. */
START_TEST(lowers_tuple_locals) {
  tl_module *m = new_module();
  tl_func *f = new_func(m, TL_I32, TL_I64);
  tl_type pair[] = {TL_I32, TL_I64};
  tl_type tt = tl_type_tuple(m, pair, 2);
  uint32_t t = tl_func_add_local(m, f, tt);
  tl_expr *mk = tl_expr_new(m, TL_OP_TUPLE_MAKE, 2);
  mk->kid[0] = tl_make_local_get(m, f, 0);
  mk->kid[1] = tl_make_const_i64(m, 5);
  tl_expr_finalize(m, f, mk);
  tl_expr_push_kid(m, f->body, tl_make_local_set(m, f, t, mk, false));
  tl_expr *ex = tl_expr_new(m, TL_OP_TUPLE_EXTRACT, 1);
  ex->imm.index = 1;
  ex->kid[0] = tl_make_local_get(m, f, t);
  tl_expr_finalize(m, f, ex);
  tl_expr_push_kid(m, f->body, ex);
  tl_expr_finalize(m, f, f->body);
  CHECK_PRINT(print_module(m),
              "(module\n"
              "  (type (;0;) (func (param i32) (result i64)))\n"
              "  (func (;0;) (type 0) (param i32) (result i64)\n"
              "    (local i32 i64)\n"
              "    (local.get 0)\n"
              "    (i64.const 5)\n"
              "    (local.set 2) (local.set 1)\n"
              "    (local.get 2))\n"
              ")\n");
  tl_module_destroy(m);
} END_TEST

/* tuple.extract of a call parks the wanted value in a scratch local; a
 * dropped tuple is one drop per value. */
START_TEST(extracts_from_calls) {
  tl_module *m = new_module();
  tl_type pair[] = {TL_I32, TL_I64};
  tl_type tt = tl_type_tuple(m, pair, 2);
  tl_func *g = new_func(m, TL_NONE, tt);
  tl_expr *mk = tl_expr_new(m, TL_OP_TUPLE_MAKE, 2);
  mk->kid[0] = tl_make_const_i32(m, 1);
  mk->kid[1] = tl_make_const_i64(m, 2);
  tl_expr_finalize(m, g, mk);
  tl_expr_push_kid(m, g->body, mk);
  tl_expr_finalize(m, g, g->body);
  tl_func *f = new_func(m, TL_NONE, TL_I64);
  tl_expr *call = tl_expr_new(m, TL_OP_CALL, 0);
  tl_expr_finalize(m, f, call);
  tl_expr_push_kid(m, f->body, tl_make_drop(m, call));
  call = tl_expr_new(m, TL_OP_CALL, 0);
  tl_expr_finalize(m, f, call);
  tl_expr *ex = tl_expr_new(m, TL_OP_TUPLE_EXTRACT, 1);
  ex->imm.index = 1;
  ex->kid[0] = call;
  tl_expr_finalize(m, f, ex);
  tl_expr_push_kid(m, f->body, ex);
  tl_expr_finalize(m, f, f->body);
  CHECK_PRINT(print_module(m),
              "(module\n"
              "  (type (;0;) (func (result i32 i64)))\n"
              "  (type (;1;) (func (result i64)))\n"
              "  (func (;0;) (type 0) (result i32 i64)\n"
              "    (i32.const 1)\n"
              "    (i64.const 2))\n"
              "  (func (;1;) (type 1) (result i64)\n"
              "    (local i64)\n"
              "    (call 0)\n"
              "    (drop) (drop)\n"
              "    (call 0)\n"
              "    (local.set 0) (drop) (local.get 0))\n"
              ")\n");
  tl_module_destroy(m);
} END_TEST

START_TEST(prints_module_fields) {
  tl_module *m = new_module();
  m->name = "my mod";
  tl_memory mem = {1, 2, true, true, false, {NULL, NULL, 0, 0}, "mem"};
  TL_VEC_PUSH(&m->memories, tl_memory, mem);
  tl_table tab = {TL_FUNCREF, 1, 0, false, false, {"env", "tab", 3, 3}, NULL, NULL};
  TL_VEC_PUSH(&m->tables, tl_table, tab);
  m->nimported_tables = 1;
  tl_func *f = new_func(m, TL_NONE, TL_NONE);
  f->name = "f";
  tl_global g = {TL_I32, true, {NULL, NULL, 0, 0}, tl_make_const_i32(m, 42), "g"};
  TL_VEC_PUSH(&m->globals, tl_global, g);
  tl_export x = {"run\"it", TL_EXTERN_FUNC, 0, 6};
  TL_VEC_PUSH(&m->exports, tl_export, x);
  static const uint8_t bytes[] = {'h', 'i', 0, '"', 0xff};
  tl_data d = {TL_SEG_ACTIVE, 0, tl_make_const_i32(m, 16), bytes, sizeof bytes, NULL};
  TL_VEC_PUSH(&m->datas, tl_data, d);
  tl_expr *rf = tl_expr_new(m, TL_OP_REF_FUNC, 0);
  rf->type = TL_FUNCREF;
  tl_expr *rn = tl_expr_new(m, TL_OP_REF_NULL, 0);
  rn->imm.index = TL_FUNCREF;
  rn->type = TL_FUNCREF;
  tl_expr **items = TL_NEWN(&m->arena, tl_expr *, 2);
  items[0] = rf;
  items[1] = rn;
  tl_elem e1 = {TL_SEG_ACTIVE, 0, tl_make_const_i32(m, 0), TL_FUNCREF, false, 1, items, NULL};
  tl_elem e2 = {TL_SEG_PASSIVE, 0, NULL, TL_FUNCREF, true, 2, items, "e2"};
  tl_elem e3 = {TL_SEG_DECLARATIVE, 0, NULL, TL_FUNCREF, false, 1, items, NULL};
  TL_VEC_PUSH(&m->elems, tl_elem, e1);
  TL_VEC_PUSH(&m->elems, tl_elem, e2);
  TL_VEC_PUSH(&m->elems, tl_elem, e3);
  m->has_start = true;
  m->start = 0;
  tl_custom c = {"producers", bytes, 5, 11};
  TL_VEC_PUSH(&m->customs, tl_custom, c);
  CHECK_PRINT(print_module(m),
              "(module $my_mod\n"
              "  (type (;0;) (func))\n"
              "  (import \"env\" \"tab\" (table (;0;) 1 funcref))\n"
              "  (memory $mem (;0;) 1 2 shared)\n"
              "  (global $g (;0;) (mut i32) (i32.const 42))\n"
              "  (export \"run\\22it\" (func $f))\n"
              "  (start $f)\n"
              "  (elem (;0;) (table 0) (offset (i32.const 0)) func $f)\n"
              "  (elem $e2 (;1;) funcref (item (ref.func $f)) (item (ref.null func)))\n"
              "  (elem (;2;) declare func $f)\n"
              "  (func $f (;0;) (type 0))\n"
              "  (data (;0;) (memory $mem) (offset (i32.const 16)) \"hi\\00\\22\\ff\")\n"
              "  ;; custom section \"producers\", size 5\n"
              ")\n");
  tl_module_destroy(m);
} END_TEST

/* 100,000 nested blocks print in linear space (indent capped) without
 * recursion; the innermost branch to the function label counts depth. */
START_TEST(prints_deep_nesting) {
  enum { DEPTH = 100000 };
  tl_module *m = new_module();
  tl_func *f = new_func(m, TL_NONE, TL_NONE);
  tl_expr *br = tl_expr_new(m, TL_OP_BR, 0);
  br->imm.label = f->body->imm.label;
  br->type = TL_UNREACHABLE;
  tl_expr *e = br;
  for (int i = 0; i < DEPTH; i++) {
    tl_expr *b = tl_expr_new(m, TL_OP_BLOCK, 1);
    b->kid[0] = e;
    b->imm.block.label = tl_func_new_label(m, f);
    b->type = TL_UNREACHABLE;
    e = b;
  }
  tl_expr_push_kid(m, f->body, e);
  f->body->type = TL_UNREACHABLE;
  char *s = print_module(m);
  ck_assert_ptr_nonnull(strstr(s, "(br 100000)"));
  ck_assert_uint_lt(strlen(s), (size_t)DEPTH * 120);
  free(s);
  tl_module_destroy(m);
} END_TEST

int main(void) {
  Suite *s = suite_create("print");
  TCase *tc = tcase_create("print");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, prints_loop_locals_br_if);
  tcase_add_test(tc, prints_exact_floats);
  tcase_add_test(tc, prints_v128_and_memargs);
  tcase_add_test(tc, reifies_unreachable_if);
  tcase_add_test(tc, lowers_tuple_locals);
  tcase_add_test(tc, extracts_from_calls);
  tcase_add_test(tc, prints_module_fields);
  tcase_add_test(tc, prints_deep_nesting);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
