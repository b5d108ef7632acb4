/* interp_test.c — the reference interpreter on modules built by hand with
 * the ir.h builders: calls and results, traps with the spec's reasons,
 * 100,000-deep nesting without C recursion, call-depth exhaustion, fuel,
 * host imports and linking errors, constant folding with tl_interp_eval. */
#include "ir.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static tl_type tup(tl_module *m, tl_type a, tl_type b) {
  tl_type t[2] = {a, b};
  return tl_type_tuple(m, t, 2);
}

/* A function of the given type whose body is built by the caller. */
static tl_func *new_func(tl_module *m, tl_type params, tl_type results) {
  uint32_t ti = tl_functype_intern(m, params, results);
  tl_func *f = tl_module_add_func(m);
  f->type = ti;
  for (uint32_t i = 0; i < tl_type_arity(m, params); i++) tl_func_add_local(m, f, tl_type_at(m, params, i));
  return f;
}

static void set_body(tl_module *m, tl_func *f, uint32_t label, tl_expr **kids, uint32_t n) {
  f->body = tl_make_block(m, TL_OP_BLOCK, label, kids, n);
}

static void export_func(tl_module *m, const char *name, uint32_t idx) {
  tl_export e = {name, TL_EXTERN_FUNC, idx, 0};
  TL_VEC_PUSH(&m->exports, tl_export, e);
}

static tl_value i32v(int32_t x) {
  tl_value v;
  memset(&v, 0, sizeof v);
  v.type = TL_VAL_I32;
  v.of.i32 = x;
  return v;
}

/* (func (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1))) */
static tl_module *div_module(void) {
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, tup(m, TL_I32, TL_I32), TL_I32);
  uint32_t l = tl_func_new_label(m, f);
  tl_expr *k = tl_make_binary(m, TL_OP_I32_DIV_S, tl_make_local_get(m, f, 0), tl_make_local_get(m, f, 1));
  set_body(m, f, l, &k, 1);
  export_func(m, "div", 0);
  return m;
}

START_TEST(call_and_traps) {
  tl_module *m = div_module();
  tl_store *s = tl_store_new();
  tl_error err = {0};
  tl_instance *inst = tl_instantiate(s, m, NULL, &err);
  ck_assert_ptr_nonnull(inst);
  tl_value args[2] = {i32v(-7), i32v(2)}, res[1];
  uint32_t nres = 0;
  ck_assert_int_eq(tl_invoke(inst, "div", args, 2, res, 1, &nres, &err), TL_OK);
  ck_assert_uint_eq(nres, 1);
  ck_assert_int_eq(res[0].of.i32, -3);
  args[1] = i32v(0);
  ck_assert_int_eq(tl_invoke(inst, "div", args, 2, res, 1, &nres, &err), TL_E_TRAP);
  ck_assert_str_eq(err.msg, "integer divide by zero");
  args[0] = i32v(INT32_MIN);
  args[1] = i32v(-1);
  ck_assert_int_eq(tl_invoke(inst, "div", args, 2, res, 1, &nres, &err), TL_E_TRAP);
  ck_assert_str_eq(err.msg, "integer overflow");
  tl_store_free(s);
  tl_module_destroy(m);
} END_TEST

/* 100,000 nested blocks; the innermost branches out of all of them. */
START_TEST(deep_nesting) {
  enum { DEPTH = 100000 };
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, TL_NONE, TL_I32);
  uint32_t fl = tl_func_new_label(m, f);
  uint32_t outer = tl_func_new_label(m, f);
  tl_expr *br = tl_expr_new(m, TL_OP_BR, 1);
  br->imm.label = outer;
  br->kid[0] = tl_make_const_i32(m, 7);
  tl_expr *cur = br;
  for (uint32_t i = 0; i < DEPTH; i++) {
    tl_expr *b = tl_expr_new(m, TL_OP_BLOCK, 1);
    b->imm.block.label = i + 1 == DEPTH ? outer : tl_func_new_label(m, f);
    b->kid[0] = cur;
    cur = b;
  }
  f->body = tl_expr_new(m, TL_OP_BLOCK, 1);
  f->body->imm.block.label = fl;
  f->body->kid[0] = cur;
  tl_func_refinalize(m, f);
  ck_assert_int_eq(f->body->type, TL_I32);
  export_func(m, "deep", 0);
  tl_store *s = tl_store_new();
  tl_error err = {0};
  tl_instance *inst = tl_instantiate(s, m, NULL, &err);
  ck_assert_ptr_nonnull(inst);
  tl_value res[1];
  uint32_t nres = 0;
  ck_assert_int_eq(tl_invoke(inst, "deep", NULL, 0, res, 1, &nres, &err), TL_OK);
  ck_assert_int_eq(res[0].of.i32, 7);
  tl_store_free(s);
  tl_module_destroy(m);
} END_TEST

/* (func $f (call $f)) and (func (loop (br 0))) */
START_TEST(exhaustion_and_fuel) {
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, TL_NONE, TL_NONE);
  uint32_t l = tl_func_new_label(m, f);
  tl_expr *call = tl_expr_new(m, TL_OP_CALL, 0);
  call->imm.index = 0;
  tl_expr_finalize(m, f, call);
  set_body(m, f, l, &call, 1);
  tl_func *g = new_func(m, TL_NONE, TL_NONE);
  uint32_t gl = tl_func_new_label(m, g), ll = tl_func_new_label(m, g);
  tl_expr *br = tl_expr_new(m, TL_OP_BR, 0);
  br->imm.label = ll;
  tl_expr_finalize(m, g, br);
  tl_expr *loop = tl_make_block(m, TL_OP_LOOP, ll, &br, 1);
  set_body(m, g, gl, &loop, 1);
  export_func(m, "rec", 0);
  export_func(m, "spin", 1);
  tl_store *s = tl_store_new();
  tl_error err = {0};
  tl_instance *inst = tl_instantiate(s, m, NULL, &err);
  ck_assert_ptr_nonnull(inst);
  ck_assert_int_eq(tl_invoke(inst, "rec", NULL, 0, NULL, 0, NULL, &err), TL_E_EXHAUSTED);
  ck_assert_str_eq(err.msg, "call stack exhausted");
  tl_store_set_fuel(s, 100000);
  ck_assert_int_eq(tl_invoke(inst, "spin", NULL, 0, NULL, 0, NULL, &err), TL_E_EXHAUSTED);
  ck_assert_str_eq(err.msg, "fuel exhausted");
  tl_store_free(s);
  tl_module_destroy(m);
} END_TEST

static tl_status twice(tl_host_call *c, void *user, const tl_value *a, tl_value *r, tl_error *err) {
  (void)c; (void)err;
  ++*(int *)user;
  r[0].of.i32 = a[0].of.i32 * 2;
  return TL_OK;
}

/* (import "env" "twice" (func (param i32) (result i32))) called from wasm */
START_TEST(host_import_and_linking) {
  tl_module *m = tl_module_alloc();
  tl_func *imp = new_func(m, TL_I32, TL_I32);
  imp->imp.module = "env";
  imp->imp.name = "twice";
  m->nimported_funcs = 1;
  tl_func *f = new_func(m, TL_I32, TL_I32);
  uint32_t l = tl_func_new_label(m, f);
  tl_expr *call = tl_expr_new(m, TL_OP_CALL, 1);
  call->imm.index = 0;
  call->kid[0] = tl_make_binary(m, TL_OP_I32_ADD, tl_make_local_get(m, f, 0), tl_make_const_i32(m, 1));
  tl_expr_finalize(m, f, call);
  set_body(m, f, l, &call, 1);
  export_func(m, "f", 1);
  tl_store *s = tl_store_new();
  tl_error err = {0};
  ck_assert_ptr_null(tl_instantiate(s, m, NULL, &err));
  ck_assert_int_eq(err.code, TL_E_LINK);
  ck_assert_ptr_nonnull(strstr(err.msg, "unknown import"));
  tl_linker *lk = tl_linker_new();
  uint32_t t32 = TL_VAL_I32, t64 = TL_VAL_I64;
  int calls = 0;
  tl_linker_define(lk, "env", "twice", tl_host_func_new(s, &t64, 1, &t32, 1, twice, &calls));
  ck_assert_ptr_null(tl_instantiate(s, m, lk, &err));
  ck_assert_ptr_nonnull(strstr(err.msg, "incompatible import type"));
  tl_linker_define(lk, "env", "twice", tl_host_func_new(s, &t32, 1, &t32, 1, twice, &calls));
  tl_instance *inst = tl_instantiate(s, m, lk, &err);
  ck_assert_ptr_nonnull(inst);
  tl_value a = i32v(20), r;
  uint32_t nres;
  ck_assert_int_eq(tl_invoke(inst, "f", &a, 1, &r, 1, &nres, &err), TL_OK);
  ck_assert_int_eq(r.of.i32, 42);
  ck_assert_int_eq(calls, 1);
  tl_linker_free(lk);
  tl_store_free(s);
  tl_module_destroy(m);
} END_TEST

static tl_status reenter(tl_host_call *c, void *user, const tl_value *a, tl_value *r, tl_error *err) {
  (void)c;
  uint32_t n;
  return tl_invoke(*(tl_instance **)user, "triple", a, 1, r, 1, &n, err);
}

/* A host function that calls back into wasm while wasm frames are live. */
START_TEST(host_reentry) {
  tl_module *m = tl_module_alloc();
  tl_func *imp = new_func(m, TL_I32, TL_I32);
  imp->imp.module = "env";
  imp->imp.name = "cb";
  m->nimported_funcs = 1;
  tl_func *f = new_func(m, TL_I32, TL_I32);
  uint32_t l = tl_func_new_label(m, f);
  tl_expr *call = tl_expr_new(m, TL_OP_CALL, 1);
  call->imm.index = 0;
  call->kid[0] = tl_make_binary(m, TL_OP_I32_ADD, tl_make_local_get(m, f, 0), tl_make_const_i32(m, 1));
  tl_expr_finalize(m, f, call);
  tl_expr *sum = tl_make_binary(m, TL_OP_I32_ADD, tl_make_local_get(m, f, 0), call);
  set_body(m, f, l, &sum, 1);
  tl_func *g = new_func(m, TL_I32, TL_I32);
  uint32_t gl = tl_func_new_label(m, g);
  tl_expr *mul = tl_make_binary(m, TL_OP_I32_MUL, tl_make_local_get(m, g, 0), tl_make_const_i32(m, 3));
  set_body(m, g, gl, &mul, 1);
  export_func(m, "f", 1);
  export_func(m, "triple", 2);
  tl_store *s = tl_store_new();
  tl_linker *lk = tl_linker_new();
  tl_instance *inst = NULL;
  uint32_t t32 = TL_VAL_I32, n;
  tl_linker_define(lk, "env", "cb", tl_host_func_new(s, &t32, 1, &t32, 1, reenter, &inst));
  tl_error err = {0};
  inst = tl_instantiate(s, m, lk, &err);
  ck_assert_ptr_nonnull(inst);
  tl_value a = i32v(10), r;
  ck_assert_int_eq(tl_invoke(inst, "f", &a, 1, &r, 1, &n, &err), TL_OK);
  ck_assert_int_eq(r.of.i32, 10 + 33);
  tl_linker_free(lk);
  tl_store_free(s);
  tl_module_destroy(m);
} END_TEST

/* tl_interp_eval: constant folding of pure expressions. */
START_TEST(eval_pure) {
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, TL_I32, TL_I32);
  tl_expr *e = tl_make_binary(m, TL_OP_I32_ADD, tl_make_const_i32(m, 2),
                              tl_make_binary(m, TL_OP_I32_MUL, tl_make_const_i32(m, 3), tl_make_const_i32(m, 4)));
  tl_value out[2];
  uint32_t n;
  tl_error err = {0};
  ck_assert_int_eq(tl_interp_eval(m, f, e, out, 2, &n, 0, &err), TL_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(out[0].of.i32, 14);
  e = tl_make_binary(m, TL_OP_I32_REM_U, tl_make_const_i32(m, 2), tl_make_const_i32(m, 0));
  ck_assert_int_eq(tl_interp_eval(m, f, e, out, 2, &n, 0, &err), TL_E_TRAP);
  ck_assert_str_eq(err.msg, "integer divide by zero");
  e = tl_make_unary(m, TL_OP_I32_EQZ, tl_make_local_get(m, f, 0));
  ck_assert_int_eq(tl_interp_eval(m, f, e, out, 2, &n, 0, &err), TL_E_UNSUPPORTED);
  tl_module_destroy(m);
} END_TEST

int main(void) {
  Suite *su = suite_create("interp");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, call_and_traps);
  tcase_add_test(tc, deep_nesting);
  tcase_add_test(tc, exhaustion_and_fuel);
  tcase_add_test(tc, host_import_and_linking);
  tcase_add_test(tc, eval_pure);
  tcase_add_test(tc, host_reentry);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
