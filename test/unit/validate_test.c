/* validate_test.c — tl_validate_module / tl_validate_func / tl_validate_ir on
 * modules built with the ir.h builders: valid modules (including seed 002's
 * dead-code examples) are accepted; each kind of error is rejected with a
 * message naming the op; stale types, shared nodes and duplicated labels are
 * caught; 100,000-deep nesting validates on a 256 KiB thread stack. */
#include "ir.h"

#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "check_main.h"

static tl_error err;

/* ---- builders ---- */
static uint32_t new_func(tl_module *m, tl_type params, tl_type results) {
  tl_func *f = tl_module_add_func(m);
  f->type = tl_functype_intern(m, params, results);
  for (uint32_t i = 0, n = tl_type_arity(m, params); i < n; i++)
    tl_func_add_local(m, f, tl_type_at(m, params, i));
  return (uint32_t)m->funcs.n - 1;
}

static tl_expr *node(tl_module *m, tl_func *f, tl_op op, uint32_t n, ...) {
  tl_expr *e = tl_expr_new(m, op, n);
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++) e->kid[i] = va_arg(ap, tl_expr *);
  va_end(ap);
  tl_expr_finalize(m, f, e);
  return e;
}

static tl_expr *i32c(tl_module *m, int32_t v) { return tl_make_const_i32(m, v); }
static tl_expr *f32c(tl_module *m) {
  tl_expr *e = tl_expr_new(m, TL_OP_F32_CONST, 0);
  e->type = TL_F32;
  return e;
}

static tl_expr *br(tl_module *m, tl_func *f, tl_op op, uint32_t label, tl_expr *v, tl_expr *cond) {
  tl_expr *e = tl_expr_new(m, op, (v != NULL) + (cond != NULL));
  uint32_t i = 0;
  if (v) e->kid[i++] = v;
  if (cond) e->kid[i++] = cond;
  e->imm.label = label;
  tl_expr_finalize(m, f, e);
  return e;
}

static tl_expr *labeled(tl_module *m, tl_func *f, tl_op op, uint32_t label, uint32_t n, ...) {
  tl_expr *e = tl_expr_new(m, op, n);
  e->imm.block.label = label;
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++) e->kid[i] = va_arg(ap, tl_expr *);
  va_end(ap);
  tl_expr_finalize(m, f, e);
  return e;
}

/* A module with one function (params, results) whose body block holds the
 * given instructions; *out gets the function's own label first via cb. */
typedef struct { tl_module *m; tl_func *f; uint32_t fl; } fx;

static fx start(tl_type params, tl_type results) {
  fx x;
  x.m = tl_module_alloc();
  uint32_t fi = new_func(x.m, params, results);
  x.f = TL_FUNC(x.m, fi);
  x.fl = tl_func_new_label(x.m, x.f);
  return x;
}

static void body(fx *x, uint32_t n, ...) {
  tl_expr *e = tl_expr_new(x->m, TL_OP_BLOCK, n);
  e->imm.block.label = x->fl;
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++) e->kid[i] = va_arg(ap, tl_expr *);
  va_end(ap);
  tl_expr_finalize(x->m, x->f, e);
  x->f->body = e;
}

static void expect_ok(tl_module *m) {
  memset(&err, 0, sizeof err);
  tl_status s = tl_validate_module(m, &err);
  ck_assert_msg(s == TL_OK, "expected valid, got %d: %s", s, err.msg);
  s = tl_validate_ir(m, &err);
  ck_assert_msg(s == TL_OK, "tl_validate_ir: %d: %s", s, err.msg);
}

static void expect_bad(tl_module *m, tl_status code, const char *sub) {
  memset(&err, 0, sizeof err);
  tl_status s = tl_validate_module(m, &err);
  ck_assert_msg(s == code, "expected status %d, got %d (%s)", code, s, err.msg);
  ck_assert_msg(strstr(err.msg, sub) != NULL, "message \"%s\" lacks \"%s\"", err.msg, sub);
}

/* ---- valid modules ---- */
START_TEST(valid_add) {
  tl_type p2[2] = {TL_I32, TL_I32};
  tl_module *m0 = tl_module_alloc();
  fx x = {m0, NULL, 0};
  uint32_t fi = new_func(m0, tl_type_tuple(m0, p2, 2), TL_I32);
  x.f = TL_FUNC(m0, fi);
  x.fl = tl_func_new_label(m0, x.f);
  body(&x, 1, tl_make_binary(m0, TL_OP_I32_ADD, tl_make_local_get(m0, x.f, 0),
                             tl_make_local_get(m0, x.f, 1)));
  ck_assert_int_eq(x.f->body->type, TL_I32);
  expect_ok(m0);
  ck_assert_int_eq(tl_validate_func(m0, 0, &err), TL_OK);
  tl_module_destroy(m0);
}
END_TEST

/* Seed 002: (i32.add (f32.const 0) (br 0)) is unreachable-typed and valid. */
START_TEST(valid_seed_dead_add) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *add = tl_make_binary(x.m, TL_OP_I32_ADD, f32c(x.m), br(x.m, x.f, TL_OP_BR, x.fl, NULL, NULL));
  ck_assert_int_eq(add->type, TL_UNREACHABLE);
  body(&x, 1, tl_make_drop(x.m, add));
  ck_assert_int_eq(x.f->body->type, TL_NONE); /* the branch targets it */
  expect_ok(x.m);
  tl_module_destroy(x.m);
}
END_TEST

/* Seed 002: (block f32 (i32.add (i32.const 1) (br 0 (f32.const 0)))). */
START_TEST(valid_seed_block_f32) {
  fx x = start(TL_NONE, TL_F32);
  uint32_t l = tl_func_new_label(x.m, x.f);
  tl_expr *add = tl_make_binary(x.m, TL_OP_I32_ADD, i32c(x.m, 1),
                                br(x.m, x.f, TL_OP_BR, l, f32c(x.m), NULL));
  tl_expr *b = labeled(x.m, x.f, TL_OP_BLOCK, l, 1, add);
  ck_assert_int_eq(b->type, TL_F32);
  body(&x, 1, b);
  expect_ok(x.m);
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(valid_control) {
  fx x = start(TL_I32, TL_I32);
  uint32_t lb = tl_func_new_label(x.m, x.f), ll = tl_func_new_label(x.m, x.f),
           li = tl_func_new_label(x.m, x.f);
  /* (loop $ll (br_if $ll (local.get 0))) */
  tl_expr *loop = labeled(x.m, x.f, TL_OP_LOOP, ll, 1,
                          br(x.m, x.f, TL_OP_BR_IF, ll, NULL, tl_make_local_get(x.m, x.f, 0)));
  /* (if $li (result i32) (local.get 0) (br $li (i32.const 1)) (i32.const 2)) */
  tl_expr *iff = labeled(x.m, x.f, TL_OP_IF, li, 3, tl_make_local_get(x.m, x.f, 0),
                         br(x.m, x.f, TL_OP_BR, li, i32c(x.m, 1), NULL), i32c(x.m, 2));
  ck_assert_int_eq(iff->type, TL_I32);
  /* (block $lb (result i32) (drop (br_if $lb (i32.const 3) (local.get 0))) if) */
  tl_expr *bif = br(x.m, x.f, TL_OP_BR_IF, lb, i32c(x.m, 3), tl_make_local_get(x.m, x.f, 0));
  ck_assert_int_eq(bif->type, TL_I32);
  tl_expr *blk = labeled(x.m, x.f, TL_OP_BLOCK, lb, 2, tl_make_drop(x.m, bif), iff);
  /* br_table to two none-typed labels */
  uint32_t lt1 = tl_func_new_label(x.m, x.f), lt2 = tl_func_new_label(x.m, x.f);
  tl_expr *tab = tl_expr_new(x.m, TL_OP_BR_TABLE, 1);
  tab->kid[0] = tl_make_local_get(x.m, x.f, 0);
  tab->imm.table = tl_brtable_new(x.m, 1);
  tab->imm.table->targets[0] = lt1;
  tab->imm.table->def = lt2;
  tl_expr_finalize(x.m, x.f, tab);
  tl_expr *inner = labeled(x.m, x.f, TL_OP_BLOCK, lt1, 1, tab);
  tl_expr *outer = labeled(x.m, x.f, TL_OP_BLOCK, lt2, 1, inner);
  ck_assert_int_eq(outer->type, TL_NONE);
  body(&x, 3, loop, outer, blk);
  expect_ok(x.m);
  tl_module_destroy(x.m);
}
END_TEST

/* Code after a branch may be anything: the writer drops it. */
START_TEST(valid_dead_tail) {
  fx x = start(TL_NONE, TL_I32);
  body(&x, 3, tl_make_unreachable(x.m), i32c(x.m, 1), f32c(x.m));
  ck_assert_int_eq(x.f->body->type, TL_UNREACHABLE);
  expect_ok(x.m);
  tl_module_destroy(x.m);
}
END_TEST

/* ---- operand and immediate errors ---- */
START_TEST(bad_operand_type) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *add = tl_expr_new(x.m, TL_OP_I32_ADD, 2);
  add->kid[0] = i32c(x.m, 1);
  add->kid[1] = f32c(x.m);
  add->type = TL_I32;
  body(&x, 1, tl_make_drop(x.m, add));
  expect_bad(x.m, TL_E_INVALID, "i32.add: operand 2 has type f32, expected i32");
  ck_assert_uint_eq(err.func_index, 0);
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_arity) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *e = node(x.m, x.f, TL_OP_I32_EQZ, 0);
  body(&x, 1, tl_make_drop(x.m, e));
  expect_bad(x.m, TL_E_INVALID, "i32.eqz");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_locals) {
  fx x = start(TL_I32, TL_NONE);
  tl_expr *g = tl_expr_new(x.m, TL_OP_LOCAL_GET, 0);
  g->imm.index = 5;
  g->type = TL_I32;
  body(&x, 1, tl_make_drop(x.m, g));
  expect_bad(x.m, TL_E_INVALID, "local.get: local index 5");
  tl_module_destroy(x.m);

  x = start(TL_I32, TL_NONE);
  tl_expr *s = tl_expr_new(x.m, TL_OP_LOCAL_SET, 1);
  s->kid[0] = f32c(x.m);
  s->imm.index = 0;
  body(&x, 1, s);
  expect_bad(x.m, TL_E_INVALID, "local.set: operand 1 has type f32");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_globals) {
  fx x = start(TL_NONE, TL_NONE);
  tl_global g = {.type = TL_I32, .mut = false, .init = i32c(x.m, 0)};
  TL_VEC_PUSH(&x.m->globals, tl_global, g);
  tl_expr *s = tl_expr_new(x.m, TL_OP_GLOBAL_SET, 1);
  s->kid[0] = i32c(x.m, 1);
  body(&x, 1, s);
  expect_bad(x.m, TL_E_INVALID, "global.set: global 0 is immutable");
  TL_GLOBAL(x.m, 0)->mut = true;
  expect_ok(x.m);
  s->imm.index = 3;
  expect_bad(x.m, TL_E_INVALID, "global.set: global index 3");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_call) {
  fx x = start(TL_I32, TL_NONE);
  tl_expr *c = tl_expr_new(x.m, TL_OP_CALL, 0); /* calls itself without its i32 */
  c->imm.index = 0;
  tl_expr_finalize(x.m, x.f, c);
  body(&x, 1, c);
  expect_bad(x.m, TL_E_INVALID, "call: has 0 operands, expected 1");
  tl_expr_push_kid(x.m, c, f32c(x.m));
  expect_bad(x.m, TL_E_INVALID, "call: operand 1 has type f32");
  c->kid[0] = i32c(x.m, 0);
  expect_ok(x.m);
  c->imm.index = 9;
  expect_bad(x.m, TL_E_INVALID, "call: function index 9");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_call_indirect) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *c = tl_expr_new(x.m, TL_OP_CALL_INDIRECT, 1);
  c->kid[0] = i32c(x.m, 0);
  c->imm.idx2.a = 0;
  c->imm.idx2.b = 0;
  body(&x, 1, c);
  expect_bad(x.m, TL_E_INVALID, "call_indirect: table index 0");
  tl_table t = {.elem = TL_EXTERNREF, .min = 1};
  TL_VEC_PUSH(&x.m->tables, tl_table, t);
  x.m->features |= TL_FEAT_REFERENCE_TYPES;
  expect_bad(x.m, TL_E_INVALID, "call_indirect: table 0 is not a funcref table");
  TL_TABLE(x.m, 0)->elem = TL_FUNCREF;
  expect_ok(x.m);
  c->imm.idx2.a = 7;
  expect_bad(x.m, TL_E_INVALID, "call_indirect: type index 7");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_return) {
  fx x = start(TL_NONE, TL_I32);
  tl_expr *r = node(x.m, x.f, TL_OP_RETURN, 1, f32c(x.m));
  body(&x, 1, r);
  expect_bad(x.m, TL_E_INVALID, "return: operand 1 has type f32, expected i32");
  tl_module_destroy(x.m);

  x = start(TL_NONE, TL_I32);
  body(&x, 1, node(x.m, x.f, TL_OP_RETURN, 0));
  expect_bad(x.m, TL_E_INVALID, "return: has 0 operands, expected 1");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_return_call) {
  fx x = start(TL_NONE, TL_I32);
  uint32_t g = new_func(x.m, TL_NONE, TL_F32);
  x.f = TL_FUNC(x.m, 0);
  tl_func *gf = TL_FUNC(x.m, g);
  uint32_t gl = tl_func_new_label(x.m, gf);
  gf->body = labeled(x.m, gf, TL_OP_BLOCK, gl, 1, f32c(x.m));
  tl_expr *rc = tl_expr_new(x.m, TL_OP_RETURN_CALL, 0);
  rc->imm.index = g;
  tl_expr_finalize(x.m, x.f, rc);
  body(&x, 1, rc);
  expect_bad(x.m, TL_E_FEATURE, "return_call requires --enable-tail-call");
  x.m->features |= TL_FEAT_TAIL_CALL;
  expect_bad(x.m, TL_E_INVALID, "return_call: callee results f32 differ from the caller's i32");
  TL_FTYPE(x.m, gf->type)->results = TL_I32;
  gf->body->kid[0] = i32c(x.m, 3);
  tl_expr_finalize(x.m, gf, gf->body);
  expect_ok(x.m);
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_select_drop) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *s = tl_expr_new(x.m, TL_OP_SELECT, 3);
  s->kid[0] = i32c(x.m, 1);
  s->kid[1] = f32c(x.m);
  s->kid[2] = i32c(x.m, 0);
  s->type = TL_I32;
  body(&x, 1, tl_make_drop(x.m, s));
  expect_bad(x.m, TL_E_INVALID, "select: operands have types i32 and f32");
  tl_module_destroy(x.m);

  x = start(TL_NONE, TL_NONE);
  body(&x, 1, tl_make_drop(x.m, tl_make_nop(x.m)));
  expect_bad(x.m, TL_E_INVALID, "drop: operand 1 has type none");
  tl_module_destroy(x.m);

  x = start(TL_NONE, TL_NONE);
  tl_expr *st = tl_expr_new(x.m, TL_OP_SELECT_T, 3);
  st->imm.index = TL_F32;
  st->kid[0] = f32c(x.m);
  st->kid[1] = i32c(x.m, 0);
  st->kid[2] = i32c(x.m, 0);
  tl_expr_finalize(x.m, x.f, st);
  body(&x, 1, tl_make_drop(x.m, st));
  x.m->features |= TL_FEAT_REFERENCE_TYPES;
  expect_bad(x.m, TL_E_INVALID, "select: operand 2 has type i32, expected f32");
  tl_module_destroy(x.m);
}
END_TEST

static void add_memory(tl_module *m, bool shared) {
  tl_memory mem = {.min = 1, .max = 2, .has_max = true, .shared = shared};
  TL_VEC_PUSH(&m->memories, tl_memory, mem);
}

START_TEST(bad_memory_ops) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *ld = tl_make_unary(x.m, TL_OP_I32_LOAD, i32c(x.m, 0));
  ld->imm.mem.align = 2;
  body(&x, 1, tl_make_drop(x.m, ld));
  expect_bad(x.m, TL_E_INVALID, "i32.load: memory index 0");
  add_memory(x.m, false);
  expect_ok(x.m);
  ld->imm.mem.align = 3;
  expect_bad(x.m, TL_E_INVALID, "i32.load: alignment 2**3 exceeds the natural 2**2");
  ld->imm.mem.align = 0;
  ld->op = TL_OP_I32_ATOMIC_LOAD;
  expect_bad(x.m, TL_E_FEATURE, "i32.atomic.load requires --enable-threads");
  x.m->features |= TL_FEAT_THREADS;
  expect_bad(x.m, TL_E_INVALID, "i32.atomic.load: alignment 2**0 must equal the natural 2**2");
  ld->imm.mem.align = 2;
  expect_ok(x.m); /* atomics on unshared memory are valid */
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_bulk_and_tables) {
  fx x = start(TL_NONE, TL_NONE);
  add_memory(x.m, false);
  tl_expr *init = node(x.m, x.f, TL_OP_MEMORY_INIT, 3, i32c(x.m, 0), i32c(x.m, 0), i32c(x.m, 0));
  init->imm.idx2.a = 0;
  body(&x, 1, init);
  expect_bad(x.m, TL_E_INVALID, "memory.init: data index 0");
  tl_data d = {.mode = TL_SEG_PASSIVE};
  TL_VEC_PUSH(&x.m->datas, tl_data, d);
  expect_ok(x.m);
  tl_module_destroy(x.m);

  x = start(TL_NONE, TL_NONE);
  x.m->features |= TL_FEAT_REFERENCE_TYPES;
  tl_table t = {.elem = TL_FUNCREF, .min = 1};
  TL_VEC_PUSH(&x.m->tables, tl_table, t);
  tl_expr *ts = node(x.m, x.f, TL_OP_TABLE_SET, 2, i32c(x.m, 0), i32c(x.m, 1));
  body(&x, 1, ts);
  expect_bad(x.m, TL_E_INVALID, "table.set: operand 2 has type i32, expected funcref");
  tl_expr *rn = tl_expr_new(x.m, TL_OP_REF_NULL, 0);
  rn->imm.index = TL_FUNCREF;
  tl_expr_finalize(x.m, x.f, rn);
  ts->kid[1] = rn;
  expect_ok(x.m);
  rn->imm.index = TL_I32;
  expect_bad(x.m, TL_E_INVALID, "ref.null");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_simd) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *v = tl_expr_new(x.m, TL_OP_V128_CONST, 0);
  v->type = TL_V128;
  tl_expr *ex = tl_make_unary(x.m, TL_OP_I32X4_EXTRACT_LANE, v);
  ex->imm.mem.lane = 4;
  body(&x, 1, tl_make_drop(x.m, ex));
  expect_bad(x.m, TL_E_FEATURE, "requires --enable-simd");
  x.m->features |= TL_FEAT_SIMD;
  expect_bad(x.m, TL_E_INVALID, "i32x4.extract_lane: lane 4 out of range");
  ex->imm.mem.lane = 3;
  expect_ok(x.m);
  tl_module_destroy(x.m);

  x = start(TL_NONE, TL_NONE);
  /* unreachable operands are MVP, so the add itself is the first to fail */
  body(&x, 1, tl_make_drop(x.m, tl_make_binary(x.m, TL_OP_I8X16_ADD, tl_make_unreachable(x.m),
                                               tl_make_unreachable(x.m))));
  expect_bad(x.m, TL_E_FEATURE, "i8x16.add requires --enable-simd");
  tl_module_destroy(x.m);
}
END_TEST

/* ---- branches and control ---- */
START_TEST(bad_branches) {
  /* br to a label that is not in scope */
  fx x = start(TL_NONE, TL_NONE);
  uint32_t l = tl_func_new_label(x.m, x.f);
  tl_expr *b1 = labeled(x.m, x.f, TL_OP_BLOCK, l, 1, tl_make_nop(x.m));
  body(&x, 2, b1, br(x.m, x.f, TL_OP_BR, l, NULL, NULL));
  expect_bad(x.m, TL_E_INVALID, "br: label 1 is not an enclosing");
  tl_module_destroy(x.m);

  /* br carrying f32 to an i32 block */
  x = start(TL_NONE, TL_NONE);
  l = tl_func_new_label(x.m, x.f);
  tl_expr *blk = labeled(x.m, x.f, TL_OP_BLOCK, l, 2,
                         tl_make_drop(x.m, br(x.m, x.f, TL_OP_BR_IF, l, f32c(x.m), i32c(x.m, 0))),
                         i32c(x.m, 1));
  body(&x, 1, tl_make_drop(x.m, blk));
  expect_bad(x.m, TL_E_INVALID, "br_if: carries f32 to label 1");
  tl_module_destroy(x.m);

  /* br to a loop carrying a value */
  x = start(TL_NONE, TL_NONE);
  l = tl_func_new_label(x.m, x.f);
  tl_expr *lp = labeled(x.m, x.f, TL_OP_LOOP, l, 1, br(x.m, x.f, TL_OP_BR, l, i32c(x.m, 1), NULL));
  body(&x, 1, lp);
  expect_bad(x.m, TL_E_INVALID, "br: branch to loop label 1 carries i32");
  tl_module_destroy(x.m);

  /* br_table whose targets disagree */
  x = start(TL_NONE, TL_NONE);
  uint32_t la = tl_func_new_label(x.m, x.f), lb = tl_func_new_label(x.m, x.f);
  tl_expr *tab = tl_expr_new(x.m, TL_OP_BR_TABLE, 2);
  tab->kid[0] = i32c(x.m, 7);
  tab->kid[1] = i32c(x.m, 0);
  tab->imm.table = tl_brtable_new(x.m, 1);
  tab->imm.table->targets[0] = la;
  tab->imm.table->def = lb;
  tl_expr_finalize(x.m, x.f, tab);
  tl_expr *in = labeled(x.m, x.f, TL_OP_BLOCK, la, 1, tab);         /* i32 */
  tl_expr *out = labeled(x.m, x.f, TL_OP_BLOCK, lb, 2, tl_make_drop(x.m, in), tl_make_nop(x.m));
  body(&x, 1, out);
  expect_bad(x.m, TL_E_INVALID, "br_table: carries i32 to label 2, but the block yields none");
  tl_module_destroy(x.m);

  /* branch from an if's condition to the if's own label */
  x = start(TL_NONE, TL_NONE);
  l = tl_func_new_label(x.m, x.f);
  tl_expr *c = br(x.m, x.f, TL_OP_BR_IF, l, i32c(x.m, 1), i32c(x.m, 1));
  tl_expr *iff = labeled(x.m, x.f, TL_OP_IF, l, 2, c, tl_make_nop(x.m));
  body(&x, 1, iff);
  expect_bad(x.m, TL_E_INVALID, "br_if: label 1 is not an enclosing");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_if) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *iff = node(x.m, x.f, TL_OP_IF, 2, f32c(x.m), tl_make_nop(x.m));
  body(&x, 1, iff);
  expect_bad(x.m, TL_E_INVALID, "if: condition has type f32");
  tl_module_destroy(x.m);

  x = start(TL_NONE, TL_NONE);
  iff = node(x.m, x.f, TL_OP_IF, 2, i32c(x.m, 1), i32c(x.m, 2));
  body(&x, 1, tl_make_drop(x.m, iff));
  expect_bad(x.m, TL_E_INVALID, "if: then arm has type i32, expected none");
  tl_module_destroy(x.m);

  x = start(TL_NONE, TL_NONE);
  iff = node(x.m, x.f, TL_OP_IF, 3, i32c(x.m, 1), i32c(x.m, 2), f32c(x.m));
  body(&x, 1, tl_make_drop(x.m, iff));
  expect_bad(x.m, TL_E_INVALID, "if: else arm has type f32, expected i32");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_block_list) {
  fx x = start(TL_NONE, TL_NONE);
  body(&x, 2, i32c(x.m, 1), tl_make_nop(x.m));
  expect_bad(x.m, TL_E_INVALID, "block: instruction 1 has type i32");
  tl_module_destroy(x.m);

  x = start(TL_NONE, TL_I32);
  body(&x, 1, f32c(x.m));
  expect_bad(x.m, TL_E_INVALID, "function body has type f32, expected i32");
  tl_module_destroy(x.m);

  x = start(TL_NONE, TL_NONE);
  tl_expr *b = tl_expr_new(x.m, TL_OP_NOP, 0);
  x.f->body = b;
  expect_bad(x.m, TL_E_INVALID, "not a block");
  tl_module_destroy(x.m);
}
END_TEST

/* ---- stale types, shared nodes, labels ---- */
START_TEST(bad_stale) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *add = tl_make_binary(x.m, TL_OP_I32_ADD, i32c(x.m, 1), i32c(x.m, 2));
  body(&x, 1, tl_make_drop(x.m, add));
  expect_ok(x.m);
  add->type = TL_I64;
  expect_bad(x.m, TL_E_INVALID, "i32.add: type i64 is stale, expected i32");
  add->type = TL_UNREACHABLE; /* seed 002 rule 3c */
  expect_bad(x.m, TL_E_INVALID, "i32.add: type is unreachable but no operand is");
  add->type = TL_I32;
  add->kid[1] = tl_make_unreachable(x.m); /* edited without refinalizing */
  expect_bad(x.m, TL_E_INVALID, "i32.add: type i32 is stale");
  tl_func_refinalize(x.m, x.f);
  expect_ok(x.m);
  x.f->body->type = TL_NONE; /* no branch targets it now: unreachable */
  expect_bad(x.m, TL_E_INVALID, "block: type none is stale, expected unreachable");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_stale_block_branch) {
  fx x = start(TL_NONE, TL_NONE);
  uint32_t l = tl_func_new_label(x.m, x.f);
  tl_expr *bb = br(x.m, x.f, TL_OP_BR, l, NULL, NULL);
  tl_expr *blk = labeled(x.m, x.f, TL_OP_BLOCK, l, 1, bb);
  ck_assert_int_eq(blk->type, TL_NONE);
  body(&x, 1, blk);
  expect_ok(x.m);
  blk->type = TL_UNREACHABLE; /* branches target it */
  expect_bad(x.m, TL_E_INVALID, "block: type unreachable is stale, expected none");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_shared_node) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *c = i32c(x.m, 1);
  body(&x, 2, tl_make_drop(x.m, c), tl_make_drop(x.m, c));
  expect_bad(x.m, TL_E_INVALID, "i32.const: node appears more than once");
  tl_module_destroy(x.m);

  /* a cycle: the walk must stop */
  x = start(TL_NONE, TL_NONE);
  tl_expr *blk = tl_make_block(x.m, TL_OP_BLOCK, TL_NO_LABEL, NULL, 0);
  body(&x, 1, blk);
  tl_expr_push_kid(x.m, blk, blk); /* after finalizing: finalize would loop */
  expect_bad(x.m, TL_E_INVALID, "more than once");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(shared_across_functions) {
  fx x = start(TL_NONE, TL_NONE);
  tl_expr *d = tl_make_drop(x.m, i32c(x.m, 1));
  body(&x, 1, d);
  uint32_t g = new_func(x.m, TL_NONE, TL_NONE);
  tl_func *gf = TL_FUNC(x.m, g);
  gf->body = labeled(x.m, gf, TL_OP_BLOCK, tl_func_new_label(x.m, gf), 1, d);
  ck_assert_int_eq(tl_validate_module(x.m, &err), TL_OK);
  ck_assert_int_eq(tl_validate_ir(x.m, &err), TL_E_INVALID);
  ck_assert_ptr_nonnull(strstr(err.msg, "drop: node appears more than once"));
  ck_assert_uint_eq(err.func_index, 1);
  tl_module_destroy(x.m);
}
END_TEST

/* A body moved into a block of its own (tl_nodes_end) has its nodes in walk
 * order, which the sharing check relies on until a node lies elsewhere:
 * nodes shared inside the block, cycles, nodes outside it, and kids
 * reordered (valid: no node seen twice) are all judged right. */
static fx moved(tl_expr **d1, tl_expr **d2) {
  fx x = start(TL_NONE, TL_NONE);
  tl_nodes_begin(x.m, 0);
  body(&x, 2, tl_make_drop(x.m, i32c(x.m, 1)), tl_make_drop(x.m, i32c(x.m, 2)));
  tl_nodes_end(x.m, 0);
  *d1 = x.f->body->kid[0];
  *d2 = x.f->body->kid[1];
  ck_assert_ptr_eq(*d1, x.f->body + 1); /* the order the check assumes */
  ck_assert_ptr_eq(*d2, x.f->body + 3);
  return x;
}

START_TEST(shared_in_moved_body) {
  tl_expr *d1, *d2;
  fx x = moved(&d1, &d2);
  expect_ok(x.m);
  d2->kid[0] = d1->kid[0]; /* an earlier node of the block */
  expect_bad(x.m, TL_E_INVALID, "i32.const: node appears more than once");
  tl_module_destroy(x.m);

  x = moved(&d1, &d2);
  tl_expr *blk = tl_make_block(x.m, TL_OP_BLOCK, TL_NO_LABEL, NULL, 0);
  x.f->body->kid[1] = blk; /* a node elsewhere, then a cycle to the root */
  expect_ok(x.m);
  tl_expr_push_kid(x.m, blk, x.f->body);
  expect_bad(x.m, TL_E_INVALID, "block: node appears more than once");
  tl_module_destroy(x.m);

  x = moved(&d1, &d2);
  tl_expr *c = i32c(x.m, 3); /* outside the block, twice */
  d1->kid[0] = c;
  expect_ok(x.m);
  d2->kid[0] = c;
  expect_bad(x.m, TL_E_INVALID, "i32.const: node appears more than once");
  tl_module_destroy(x.m);

  x = moved(&d1, &d2);
  x.f->body->kid[0] = d2; /* out of order: later nodes of the block first */
  x.f->body->kid[1] = d1;
  expect_ok(x.m);
  x.f->body->kid[1] = d2;
  expect_bad(x.m, TL_E_INVALID, "drop: node appears more than once");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_labels) {
  /* a copy that kept its label: two constructs define label 1 */
  fx x = start(TL_NONE, TL_NONE);
  uint32_t l = tl_func_new_label(x.m, x.f);
  tl_expr *b1 = labeled(x.m, x.f, TL_OP_BLOCK, l, 1, br(x.m, x.f, TL_OP_BR, l, NULL, NULL));
  tl_expr *b2 = labeled(x.m, x.f, TL_OP_BLOCK, l, 1, br(x.m, x.f, TL_OP_BR, l, NULL, NULL));
  body(&x, 2, b1, b2);
  expect_bad(x.m, TL_E_INVALID, "block: label 1 is defined by more than one construct");
  /* tl_expr_copy relabels, so a real copy is fine */
  x.f->body->kid[1] = tl_expr_copy(x.m, x.f, b1);
  expect_ok(x.m);
  x.f->body->kid[1]->imm.block.label = 99;
  expect_bad(x.m, TL_E_INVALID, "block: label 99 out of range");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_tuple) {
  fx x = start(TL_NONE, TL_NONE);
  x.m->features |= TL_FEAT_MULTIVALUE;
  tl_expr *mk = node(x.m, x.f, TL_OP_TUPLE_MAKE, 2, i32c(x.m, 1), f32c(x.m));
  tl_type p2[2] = {TL_I32, TL_F32};
  ck_assert_int_eq(mk->type, tl_type_tuple(x.m, p2, 2));
  tl_expr *ex = tl_expr_new(x.m, TL_OP_TUPLE_EXTRACT, 1);
  ex->kid[0] = mk;
  ex->imm.index = 1;
  tl_expr_finalize(x.m, x.f, ex);
  ck_assert_int_eq(ex->type, TL_F32);
  body(&x, 1, tl_make_drop(x.m, ex));
  expect_ok(x.m);
  ex->imm.index = 2;
  expect_bad(x.m, TL_E_INVALID, "tuple.extract: index 2 out of range");
  ex->imm.index = 0;
  expect_bad(x.m, TL_E_INVALID, "tuple.extract: type f32 is stale, expected i32");
  tl_module_destroy(x.m);
}
END_TEST

/* ---- module-level checks ---- */
START_TEST(bad_module) {
  fx x = start(TL_NONE, TL_NONE);
  body(&x, 0);
  expect_ok(x.m);
  tl_export e1 = {"f", TL_EXTERN_FUNC, 0, 1}, e2 = {"f", TL_EXTERN_FUNC, 0, 1};
  TL_VEC_PUSH(&x.m->exports, tl_export, e1);
  expect_ok(x.m);
  TL_VEC_PUSH(&x.m->exports, tl_export, e2);
  ck_assert_int_eq(tl_validate_module(x.m, &err), TL_OK); /* the reader compares raw bytes */
  ck_assert_int_eq(tl_validate_ir(x.m, &err), TL_E_INVALID);
  ck_assert_ptr_nonnull(strstr(err.msg, "duplicate export name \"f\""));
  TL_EXPORT(x.m, 1)->name = "g";
  TL_EXPORT(x.m, 1)->index = 4;
  expect_bad(x.m, TL_E_INVALID, "export \"g\": index 4 out of range");
  x.m->exports.n = 0;

  x.m->has_start = true;
  x.m->start = 0;
  expect_ok(x.m);
  TL_FUNC(x.m, 0)->type = tl_functype_intern(x.m, TL_I32, TL_NONE);
  expect_bad(x.m, TL_E_INVALID, "start function 0 must have type [] -> []");
  tl_module_destroy(x.m);
}
END_TEST

START_TEST(bad_memories_tables) {
  tl_module *m = tl_module_alloc();
  tl_memory mem = {.min = 3, .max = 2, .has_max = true};
  TL_VEC_PUSH(&m->memories, tl_memory, mem);
  expect_bad(m, TL_E_INVALID, "memory 0: minimum exceeds maximum");
  TL_MEMORY(m, 0)->min = 70000;
  TL_MEMORY(m, 0)->has_max = false;
  expect_bad(m, TL_E_INVALID, "memory 0: minimum 70000 exceeds 65536");
  TL_MEMORY(m, 0)->min = 1;
  TL_MEMORY(m, 0)->shared = true;
  expect_bad(m, TL_E_INVALID, "shared memory needs a maximum");
  TL_MEMORY(m, 0)->has_max = true;
  TL_MEMORY(m, 0)->max = 4;
  expect_bad(m, TL_E_FEATURE, "shared memory requires --enable-threads");
  m->features |= TL_FEAT_THREADS;
  expect_ok(m);
  tl_table t = {.elem = TL_I32, .min = 0};
  TL_VEC_PUSH(&m->tables, tl_table, t);
  expect_bad(m, TL_E_INVALID, "table 0: element type i32 is not a reference");
  TL_TABLE(m, 0)->elem = TL_FUNCREF;
  expect_ok(m);
  tl_module_destroy(m);
}
END_TEST

START_TEST(bad_globals_segments) {
  tl_module *m = tl_module_alloc();
  tl_global imp = {.type = TL_I32, .imp = {"env", "g", 3, 1}};
  TL_VEC_PUSH(&m->globals, tl_global, imp);
  m->nimported_globals = 1;
  tl_global g = {.type = TL_I32, .init = tl_expr_new(m, TL_OP_GLOBAL_GET, 0)};
  g.init->imm.index = 0;
  g.init->type = TL_I32;
  TL_VEC_PUSH(&m->globals, tl_global, g);
  expect_ok(m);
  TL_GLOBAL(m, 1)->type = TL_I64;
  expect_bad(m, TL_E_INVALID, "global: constant expression has type i32, expected i64");
  TL_GLOBAL(m, 1)->type = TL_I32;
  tl_global g2 = {.type = TL_I32, .init = tl_expr_new(m, TL_OP_GLOBAL_GET, 0)};
  g2.init->imm.index = 1; /* not imported: a 3.0 (GC) constant expression */
  g2.init->type = TL_I32;
  TL_VEC_PUSH(&m->globals, tl_global, g2);
  expect_bad(m, TL_E_FEATURE, "global.get of a defined global in a constant expression requires --enable-gc");
  m->features |= TL_FEAT_GC;
  expect_ok(m);
  g2.init->imm.index = 2; /* itself: only the globals before it */
  expect_bad(m, TL_E_INVALID, "global.get: global 2 in a constant expression is not defined before it");
  m->features &= ~TL_FEAT_GC;
  TL_GLOBAL(m, 2)->init = tl_make_binary(m, TL_OP_I32_ADD, i32c(m, 1), i32c(m, 2));
  expect_bad(m, TL_E_FEATURE, "i32.add requires --enable-extended-const");
  m->features |= TL_FEAT_EXTENDED_CONST;
  expect_ok(m);
  TL_GLOBAL(m, 2)->init = tl_make_nop(m);
  expect_bad(m, TL_E_INVALID, "nop: not allowed in a constant expression");
  m->globals.n = 2;

  tl_memory mem = {.min = 1};
  TL_VEC_PUSH(&m->memories, tl_memory, mem);
  tl_data d = {.mode = TL_SEG_ACTIVE, .mem = 0, .offset = tl_make_const_i64(m, 0)};
  TL_VEC_PUSH(&m->datas, tl_data, d);
  expect_bad(m, TL_E_INVALID, "data offset: constant expression has type i64, expected i32");
  TL_DATA(m, 0)->offset = i32c(m, 0);
  TL_DATA(m, 0)->mem = 1;
  expect_bad(m, TL_E_INVALID, "data 0: memory index 1 out of range");
  TL_DATA(m, 0)->mem = 0;
  expect_ok(m);

  tl_table t = {.elem = TL_FUNCREF, .min = 1};
  TL_VEC_PUSH(&m->tables, tl_table, t);
  tl_expr **items = TL_NEWN(&m->arena, tl_expr *, 1);
  items[0] = tl_expr_new(m, TL_OP_REF_FUNC, 0);
  items[0]->imm.index = 0;
  items[0]->type = TL_FUNCREF;
  tl_elem s = {.mode = TL_SEG_ACTIVE, .table = 0, .offset = i32c(m, 0), .type = TL_FUNCREF,
               .n = 1, .item = items};
  TL_VEC_PUSH(&m->elems, tl_elem, s);
  m->features |= TL_FEAT_REFERENCE_TYPES;
  expect_bad(m, TL_E_INVALID, "ref.func: function index 0 out of range");
  new_func(m, TL_NONE, TL_NONE);
  tl_func *f = TL_FUNC(m, 0);
  f->body = labeled(m, f, TL_OP_BLOCK, tl_func_new_label(m, f), 0);
  expect_ok(m);
  TL_ELEM(m, 0)->type = TL_EXTERNREF;
  expect_bad(m, TL_E_INVALID, "elem 0: type externref does not match table 0");
  tl_module_destroy(m);
}
END_TEST

/* ref.func in a body may only name functions declared outside bodies */
START_TEST(bad_ref_func) {
  fx x = start(TL_NONE, TL_NONE);
  x.m->features |= TL_FEAT_REFERENCE_TYPES;
  tl_expr *rf = tl_expr_new(x.m, TL_OP_REF_FUNC, 0);
  rf->imm.index = 0;
  tl_expr_finalize(x.m, x.f, rf);
  body(&x, 1, tl_make_drop(x.m, rf));
  expect_bad(x.m, TL_E_INVALID, "ref.func: function 0 is not declared");
  ck_assert_int_eq(tl_validate_func(x.m, 0, &err), TL_E_INVALID);
  tl_export e = {"f", TL_EXTERN_FUNC, 0, 1};
  TL_VEC_PUSH(&x.m->exports, tl_export, e);
  expect_ok(x.m);
  x.m->exports.n = 0;
  tl_expr **items = TL_NEWN(&x.m->arena, tl_expr *, 1);
  items[0] = tl_expr_new(x.m, TL_OP_REF_FUNC, 0);
  items[0]->type = TL_FUNCREF;
  tl_elem s = {.mode = TL_SEG_DECLARATIVE, .type = TL_FUNCREF, .n = 1, .item = items};
  TL_VEC_PUSH(&x.m->elems, tl_elem, s);
  expect_ok(x.m);
  ck_assert_int_eq(tl_validate_func(x.m, 0, &err), TL_OK);
  tl_module_destroy(x.m);
}
END_TEST

/* ---- deep nesting on a small stack ---- */
typedef struct { tl_status s; tl_status s_ir; char msg[160]; } deep_result;

static void *deep_run(void *arg) {
  deep_result *r = arg;
  enum { DEPTH = 100000 };
  fx x = start(TL_NONE, TL_I32);
  /* DEPTH labeled blocks of type i32; the innermost branches to the
   * outermost with a value, every other one falls through. */
  uint32_t *lab = malloc(DEPTH * sizeof *lab);
  for (int i = 0; i < DEPTH; i++) lab[i] = tl_func_new_label(x.m, x.f);
  tl_expr *e = tl_expr_new(x.m, TL_OP_BR, 1);
  e->imm.label = lab[0];
  e->kid[0] = i32c(x.m, 5);
  for (int i = DEPTH - 1; i >= 0; i--) {
    tl_expr *b = tl_expr_new(x.m, TL_OP_BLOCK, 1);
    b->imm.block.label = lab[i];
    b->kid[0] = e;
    e = b;
  }
  free(lab);
  tl_expr *bd = tl_expr_new(x.m, TL_OP_BLOCK, 1);
  bd->imm.block.label = x.fl;
  bd->kid[0] = e;
  x.f->body = bd;
  tl_func_refinalize(x.m, x.f);
  r->s = tl_validate_module(x.m, &err);
  memcpy(r->msg, err.msg, sizeof r->msg);
  r->s_ir = tl_validate_ir(x.m, &err);
  tl_module_destroy(x.m);
  return NULL;
}

START_TEST(deep_nesting) {
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setstacksize(&at, 256 * 1024);
  pthread_t th;
  deep_result r = {TL_E_IO, TL_E_IO, ""};
  ck_assert_int_eq(pthread_create(&th, &at, deep_run, &r), 0);
  pthread_join(th, NULL);
  pthread_attr_destroy(&at);
  ck_assert_msg(r.s == TL_OK, "deep: %d %s", r.s, r.msg);
  ck_assert_int_eq(r.s_ir, TL_OK);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("validate");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 60);
  tcase_add_test(t, valid_add);
  tcase_add_test(t, valid_seed_dead_add);
  tcase_add_test(t, valid_seed_block_f32);
  tcase_add_test(t, valid_control);
  tcase_add_test(t, valid_dead_tail);
  tcase_add_test(t, bad_operand_type);
  tcase_add_test(t, bad_arity);
  tcase_add_test(t, bad_locals);
  tcase_add_test(t, bad_globals);
  tcase_add_test(t, bad_call);
  tcase_add_test(t, bad_call_indirect);
  tcase_add_test(t, bad_return);
  tcase_add_test(t, bad_return_call);
  tcase_add_test(t, bad_select_drop);
  tcase_add_test(t, bad_memory_ops);
  tcase_add_test(t, bad_bulk_and_tables);
  tcase_add_test(t, bad_simd);
  tcase_add_test(t, bad_branches);
  tcase_add_test(t, bad_if);
  tcase_add_test(t, bad_block_list);
  tcase_add_test(t, bad_stale);
  tcase_add_test(t, bad_stale_block_branch);
  tcase_add_test(t, bad_shared_node);
  tcase_add_test(t, shared_across_functions);
  tcase_add_test(t, shared_in_moved_body);
  tcase_add_test(t, bad_labels);
  tcase_add_test(t, bad_tuple);
  tcase_add_test(t, bad_module);
  tcase_add_test(t, bad_memories_tables);
  tcase_add_test(t, bad_globals_segments);
  tcase_add_test(t, bad_ref_func);
  tcase_add_test(t, deep_nesting);
  suite_add_tcase(s, t);
  return s;
}

TL_CHECK_MAIN(suite)
