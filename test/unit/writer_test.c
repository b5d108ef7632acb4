/* writer_test.c — the binary writer on IR built directly with the ir.h
 * builders: exact bytes for tiny modules, and wasm-validate (all features tilt reads) on
 * modules full of dead code, unreachable-typed constructs, multi-value and
 * tuple locals, and 100,000 nested blocks (skipped when wabt is absent). */
#include "ir.h"
#include "wasm-io/wasmio.h"
#include "wasm_validate.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */
static void write_ok(tl_module *m, const tl_write_options *opt, tl_buf *out) {
  tl_error err = {0};
  tl_status s = tl_write(m, opt, out, &err);
  ck_assert_msg(s == TL_OK, "tl_write failed: %s", err.msg);
}

static void check_valid(tl_module *m, const tl_write_options *opt) {
  tl_buf b = {0};
  write_ok(m, opt, &b);
  if (have_validator()) ck_assert_msg(validates(&b), "wasm-validate rejected the output");
  else fprintf(stderr, "writer_test: wasm-validate not found, skipping validation\n");
  tl_buf_free(&b);
}

static tl_type tup(tl_module *m, tl_type a, tl_type b) {
  tl_type t[2] = {a, b};
  return tl_type_tuple(m, t, 2);
}

/* A function of type params -> results with its params as locals and an
 * empty body block labeled with a fresh label (returned in *label). */
static tl_func *new_func(tl_module *m, tl_type params, tl_type results, uint32_t *label) {
  tl_func *f = tl_module_add_func(m);
  f->type = tl_functype_intern(m, params, results);
  for (uint32_t i = 0; i < tl_type_arity(m, params); i++)
    tl_func_add_local(m, f, tl_type_at(m, params, i));
  uint32_t l = tl_func_new_label(m, f);
  if (label) *label = l;
  f->body = tl_make_block(m, TL_OP_BLOCK, l, NULL, 0);
  return f;
}

static void add(tl_module *m, tl_func *f, tl_expr *e) {
  tl_expr_push_kid(m, f->body, e);
  tl_expr_finalize(m, f, f->body);
}

static tl_expr *br(tl_module *m, tl_op op, uint32_t label, tl_expr *a, tl_expr *b) {
  tl_expr *e = tl_expr_new(m, op, 0);
  e->imm.label = label;
  if (a) tl_expr_push_kid(m, e, a);
  if (b) tl_expr_push_kid(m, e, b);
  tl_expr_finalize(m, NULL, e);
  return e;
}

static tl_expr *iff(tl_module *m, uint32_t label, tl_expr *c, tl_expr *t, tl_expr *e) {
  tl_expr *x = tl_expr_new(m, TL_OP_IF, e ? 3 : 2);
  x->imm.block.label = label;
  x->kid[0] = c;
  x->kid[1] = t;
  if (e) x->kid[2] = e;
  tl_expr_finalize(m, NULL, x);
  return x;
}

static tl_expr *block(tl_module *m, uint32_t label, tl_expr *a, tl_expr *b, tl_expr *c) {
  tl_expr *k[3] = {a, b, c};
  uint32_t n = c ? 3 : b ? 2 : a ? 1 : 0;
  return tl_make_block(m, TL_OP_BLOCK, label, k, n);
}

static tl_expr *tuple_make(tl_module *m, tl_expr *a, tl_expr *b) {
  tl_expr *e = tl_expr_new(m, TL_OP_TUPLE_MAKE, 0);
  tl_expr_push_kid(m, e, a);
  tl_expr_push_kid(m, e, b);
  tl_expr_finalize(m, NULL, e);
  return e;
}

static tl_expr *extract(tl_module *m, tl_func *f, tl_expr *t, uint32_t i) {
  tl_expr *e = tl_expr_new(m, TL_OP_TUPLE_EXTRACT, 1);
  e->kid[0] = t;
  e->imm.index = i;
  tl_expr_finalize(m, f, e);
  return e;
}

static tl_expr *i64c(tl_module *m, int64_t v) { return tl_make_const_i64(m, v); }
static tl_expr *i32c(tl_module *m, int32_t v) { return tl_make_const_i32(m, v); }

/* ---- exact bytes ------------------------------------------------------------ */
START_TEST(empty_module) {
  tl_module *m = tl_module_alloc();
  tl_buf b = {0};
  write_ok(m, NULL, &b);
  static const uint8_t want[] = {0, 'a', 's', 'm', 1, 0, 0, 0};
  ck_assert_uint_eq(b.n, sizeof want);
  ck_assert(!memcmp(b.p, want, sizeof want));
  tl_buf_free(&b);
  tl_module_destroy(m);
}
END_TEST

START_TEST(const_function) {
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, TL_NONE, TL_I32, NULL);
  add(m, f, i32c(m, -200));
  tl_buf b = {0};
  write_ok(m, NULL, &b);
  static const uint8_t want[] = {
      0, 'a', 's', 'm', 1, 0, 0, 0,
      1, 5, 1, 0x60, 0, 1, 0x7f,           /* type: [] -> [i32] */
      3, 2, 1, 0,                          /* function: type 0 */
      10, 7, 1, 5, 0, 0x41, 0xb8, 0x7e, 0x0b}; /* code: i32.const -200 */
  ck_assert_uint_eq(b.n, sizeof want);
  ck_assert(!memcmp(b.p, want, sizeof want));
  tl_buf_free(&b);
  tl_module_destroy(m);
}
END_TEST

/* (block $l (br $l) (i32.const 1) drop) inside; the add after br is dead. */
START_TEST(dead_after_br_bytes) {
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, TL_NONE, TL_NONE, NULL);
  uint32_t l = tl_func_new_label(m, f);
  tl_expr *dead = tl_make_drop(m, tl_make_binary(m, TL_OP_I32_ADD, i32c(m, 1), i32c(m, 2)));
  tl_expr *blk = block(m, l, br(m, TL_OP_BR, l, NULL, NULL), dead, NULL);
  ck_assert_uint_eq(blk->type, TL_NONE);
  add(m, f, blk);
  tl_buf b = {0};
  write_ok(m, NULL, &b);
  /* code body: locals 0, block 0x40, br 0, end, end */
  static const uint8_t body[] = {0, 0x02, 0x40, 0x0c, 0x00, 0x0b, 0x0b};
  ck_assert_uint_ge(b.n, sizeof body);
  ck_assert(!memcmp(b.p + b.n - sizeof body, body, sizeof body));
  tl_buf_free(&b);
  tl_module_destroy(m);
}
END_TEST

/* i32.add(block{unreachable}, 1): block written 0x40 ... end unreachable, add dropped. */
START_TEST(unreachable_block_operand_bytes) {
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, TL_NONE, TL_I32, NULL);
  uint32_t l = tl_func_new_label(m, f);
  tl_expr *ub = block(m, l, tl_make_unreachable(m), NULL, NULL);
  ck_assert_uint_eq(ub->type, TL_UNREACHABLE);
  add(m, f, tl_make_binary(m, TL_OP_I32_ADD, ub, i32c(m, 1)));
  tl_buf b = {0};
  write_ok(m, NULL, &b);
  static const uint8_t body[] = {0, 0x02, 0x40, 0x00, 0x0b, 0x00, 0x0b};
  ck_assert(!memcmp(b.p + b.n - sizeof body, body, sizeof body));
  tl_buf_free(&b);
  tl_module_destroy(m);
}
END_TEST

/* ---- validation ----------------------------------------------------------------- */
START_TEST(dead_code_validates) {
  tl_module *m = tl_module_alloc();
  uint32_t fl;
  tl_func *f = new_func(m, TL_I32, TL_I32, &fl);
  uint32_t l1 = tl_func_new_label(m, f), l2 = tl_func_new_label(m, f);
  /* (drop (i32.add (f32.const..)?)) — use a mix: select with a br operand */
  tl_expr *sel = tl_expr_new(m, TL_OP_SELECT, 3);
  sel->kid[0] = i32c(m, 1);
  sel->kid[1] = br(m, TL_OP_BR, l1, NULL, NULL);
  sel->kid[2] = tl_make_local_get(m, f, 0);
  tl_expr_finalize(m, f, sel);
  tl_expr *inner = block(m, l1, tl_make_drop(m, sel), tl_make_nop(m), NULL);
  /* block $l2 (result i32): br_if $l2 (i32.const 7) cond, then return (dead after) */
  tl_expr *bi = br(m, TL_OP_BR_IF, l2, i32c(m, 7), tl_make_local_get(m, f, 0));
  tl_expr *ret = tl_expr_new(m, TL_OP_RETURN, 1);
  ret->kid[0] = i32c(m, 9);
  tl_expr_finalize(m, f, ret);
  tl_expr *outer = block(m, l2, tl_make_drop(m, bi), ret,
                         tl_make_binary(m, TL_OP_I32_ADD, i32c(m, 1), i32c(m, 2)));
  ck_assert_uint_eq(outer->type, TL_I32);
  add(m, f, inner);
  add(m, f, tl_make_drop(m, outer));
  /* br to the function label with a value, then dead code */
  add(m, f, br(m, TL_OP_BR, fl, i32c(m, 5), NULL));
  add(m, f, tl_make_drop(m, i32c(m, 3)));
  ck_assert_uint_eq(f->body->type, TL_I32);
  check_valid(m, NULL);
  tl_module_destroy(m);
}
END_TEST

START_TEST(unreachable_constructs_validate) {
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, TL_I32, TL_F64, NULL);
  uint32_t l1 = tl_func_new_label(m, f), l2 = tl_func_new_label(m, f), l3 = tl_func_new_label(m, f);
  /* if (result f64) (then f64.const) (else unreachable) */
  tl_expr *c = tl_expr_new(m, TL_OP_F64_CONST, 0);
  c->type = TL_F64;
  tl_expr *if1 = iff(m, TL_NO_LABEL, tl_make_local_get(m, f, 0), c, tl_make_unreachable(m));
  ck_assert_uint_eq(if1->type, TL_F64);
  /* if whose arms are both unreachable: an unreachable if, as an operand */
  tl_expr *if2 = iff(m, l1, tl_make_local_get(m, f, 0), tl_make_unreachable(m),
                     block(m, TL_NO_LABEL, tl_make_nop(m), tl_make_unreachable(m), NULL));
  ck_assert_uint_eq(if2->type, TL_UNREACHABLE);
  tl_expr *add2 = tl_make_binary(m, TL_OP_F64_ADD, if1, if2);
  ck_assert_uint_eq(add2->type, TL_UNREACHABLE);
  /* if with an unreachable condition */
  tl_expr *if3 = iff(m, TL_NO_LABEL, tl_make_unreachable(m), i32c(m, 1), i32c(m, 2));
  /* loop that never exits, in an operand */
  tl_expr *lp = tl_make_block(m, TL_OP_LOOP, l2, (tl_expr *[]){br(m, TL_OP_BR, l2, NULL, NULL)}, 1);
  ck_assert_uint_eq(lp->type, TL_UNREACHABLE);
  /* labeled block as an if arm: a real block */
  tl_expr *armb = block(m, l3, br(m, TL_OP_BR_IF, l3, tl_make_local_get(m, f, 0), NULL),
                        tl_make_nop(m), NULL);
  tl_expr *if4 = iff(m, TL_NO_LABEL, tl_make_local_get(m, f, 0), armb, NULL);
  add(m, f, if4);
  tl_expr *b1 = block(m, TL_NO_LABEL, tl_make_drop(m, add2), NULL, NULL);
  tl_expr *b2 = block(m, TL_NO_LABEL, tl_make_drop(m, if3), NULL, NULL);
  tl_expr *b3 = block(m, TL_NO_LABEL, tl_make_drop(m, tl_make_binary(m, TL_OP_I32_ADD, i32c(m, 1), lp)),
                      NULL, NULL);
  add(m, f, iff(m, TL_NO_LABEL, tl_make_local_get(m, f, 0), b1,
                iff(m, TL_NO_LABEL, tl_make_local_get(m, f, 0), b2, b3)));
  add(m, f, tl_make_unreachable(m));
  check_valid(m, NULL);
  tl_module_destroy(m);
}
END_TEST

START_TEST(multivalue_validates) {
  tl_module *m = tl_module_alloc();
  tl_type ti = tup(m, TL_I32, TL_I64);
  tl_func *g = new_func(m, TL_NONE, ti, NULL);
  add(m, g, tuple_make(m, i32c(m, 1), i64c(m, 2)));
  tl_func *f = new_func(m, TL_I32, ti, NULL);
  uint32_t loc = tl_func_add_local(m, f, ti);
  uint32_t after = tl_func_add_local(m, f, TL_F32);
  uint32_t l1 = tl_func_new_label(m, f), l2 = tl_func_new_label(m, f);
  /* a block of tuple type with a branch carrying a tuple */
  tl_expr *bb = block(m, l1,
                      tl_make_drop(m, br(m, TL_OP_BR_IF, l1, tuple_make(m, i32c(m, 3), i64c(m, 4)),
                                         tl_make_local_get(m, f, 0))),
                      tuple_make(m, i32c(m, 5), i64c(m, 6)), NULL);
  ck_assert_uint_eq(bb->type, ti);
  add(m, f, tl_make_local_set(m, f, loc, bb, false));
  /* extract component 1 of a tuple local, and of a call */
  tl_expr *call = tl_expr_new(m, TL_OP_CALL, 0);
  call->imm.index = 0;
  tl_expr_finalize(m, f, call);
  add(m, f, tl_make_drop(m, tl_make_binary(m, TL_OP_I64_ADD,
                                           extract(m, f, tl_make_local_get(m, f, loc), 1),
                                           extract(m, f, call, 1))));
  add(m, f, tl_make_drop(m, extract(m, f, tl_make_local_set(m, f, loc, tl_make_local_get(m, f, loc), true), 0)));
  add(m, f, tl_make_local_set(m, f, after, tl_make_unary(m, TL_OP_F32_CONVERT_I32_S, tl_make_local_get(m, f, 0)), false));
  add(m, f, tl_make_drop(m, tl_make_local_get(m, f, loc)));
  /* if with a tuple type */
  tl_expr *ifx = iff(m, l2, tl_make_local_get(m, f, 0), tl_make_local_get(m, f, loc),
                     tuple_make(m, i32c(m, 7), extract(m, f, tl_make_local_get(m, f, loc), 1)));
  ck_assert_uint_eq(ifx->type, ti);
  add(m, f, ifx);
  check_valid(m, NULL);
  tl_module_destroy(m);
}
END_TEST

START_TEST(deep_nesting) {
  tl_module *m = tl_module_alloc();
  uint32_t fl;
  tl_func *f = new_func(m, TL_NONE, TL_I32, &fl);
  enum { DEPTH = 100000 };
  tl_expr *e = br(m, TL_OP_BR, fl, i32c(m, 1), NULL);
  for (int i = 0; i < DEPTH; i++) {
    uint32_t l = (i % 3 == 0) ? tl_func_new_label(m, f) : TL_NO_LABEL;
    tl_expr *k[2] = {tl_make_nop(m), e};
    e = tl_expr_new(m, (i & 1) ? TL_OP_LOOP : TL_OP_BLOCK, 2);
    e->kid[0] = k[0];
    e->kid[1] = k[1];
    e->imm.block.label = l;
    e->type = TL_UNREACHABLE;
  }
  add(m, f, e);
  check_valid(m, NULL);
  tl_module_destroy(m);
}
END_TEST

START_TEST(branch_out_of_scope) {
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, TL_NONE, TL_NONE, NULL);
  uint32_t l = tl_func_new_label(m, f);
  add(m, f, br(m, TL_OP_BR, l, NULL, NULL));
  tl_buf b = {0};
  tl_error err = {0};
  ck_assert_int_eq(tl_write(m, NULL, &b, &err), TL_E_INVALID);
  ck_assert_uint_eq(err.func_index, 0);
  ck_assert_uint_eq(err.offset, TL_NO_OFFSET);
  ck_assert_uint_eq(b.n, 0);
  tl_buf_free(&b);
  tl_module_destroy(m);
}
END_TEST

/* Every section, element encodings, custom placement, names. */
START_TEST(sections_validate) {
  tl_module *m = tl_module_alloc();
  tl_func *imp = tl_module_add_func(m);
  imp->type = tl_functype_intern(m, TL_I32, TL_NONE);
  imp->imp.module = "env";
  imp->imp.name = "f";
  imp->name = "imported";
  m->nimported_funcs = 1;
  tl_global gi = {.type = TL_I32, .imp = {"env", "g", 3, 1}};
  TL_VEC_PUSH(&m->globals, tl_global, gi);
  m->nimported_globals = 1;
  tl_global g = {.type = TL_I32, .mut = true, .init = i32c(m, 5), .name = "counter"};
  TL_VEC_PUSH(&m->globals, tl_global, g);
  tl_memory mem = {.min = 1, .max = 2, .has_max = true, .name = "mem"};
  TL_VEC_PUSH(&m->memories, tl_memory, mem);
  tl_table t0 = {.elem = TL_FUNCREF, .min = 4}, t1 = {.elem = TL_EXTERNREF, .min = 1};
  TL_VEC_PUSH(&m->tables, tl_table, t0);
  TL_VEC_PUSH(&m->tables, tl_table, t1);
  uint32_t fl;
  tl_func *f = new_func(m, TL_NONE, TL_NONE, &fl);
  f->name = "main";
  uint32_t loc = tl_func_add_local(m, f, TL_I32);
  f->local_name = calloc(f->local_cap, sizeof *f->local_name); /* leaked into test only */
  f->local_name[loc] = "x";
  f->label_name = calloc(8, sizeof *f->label_name);
  f->label_cap = 8;
  f->label_name[fl] = "fn";
  uint32_t l = tl_func_new_label(m, f);
  f->label_name[l] = "inner";
  tl_expr *mi = tl_expr_new(m, TL_OP_MEMORY_INIT, 3);
  for (int i = 0; i < 3; i++) mi->kid[i] = i32c(m, 0);
  tl_expr_finalize(m, f, mi);
  add(m, f, block(m, l, mi, tl_make_local_set(m, f, loc, i32c(m, 1), false), NULL));
  tl_expr *ld = tl_expr_new(m, TL_OP_I64_LOAD, 1);
  ld->kid[0] = i32c(m, 8);
  ld->imm.mem.align = 3;
  ld->imm.mem.offset = 1u << 20;
  tl_expr_finalize(m, f, ld);
  add(m, f, tl_make_drop(m, ld));
  tl_expr *rf = tl_expr_new(m, TL_OP_REF_FUNC, 0);
  rf->imm.index = 1;
  tl_expr_finalize(m, f, rf);
  add(m, f, tl_make_drop(m, rf));
  add(m, f, tl_expr_new(m, TL_OP_NOP, 0));
  tl_export ex = {"main", TL_EXTERN_FUNC, 1, 4};
  TL_VEC_PUSH(&m->exports, tl_export, ex);
  m->has_start = true;
  m->start = 1;
  /* elements: funcidx active (flags 0), passive exprs with ref.null (5), externref active (6), declarative (3) */
  tl_expr **items = TL_NEWN(&m->arena, tl_expr *, 2);
  items[0] = rf;
  items[1] = tl_expr_new(m, TL_OP_REF_FUNC, 0);
  items[1]->imm.index = 0;
  items[1]->type = TL_FUNCREF;
  tl_elem e0 = {.mode = TL_SEG_ACTIVE, .offset = i32c(m, 0), .type = TL_FUNCREF, .n = 2, .item = items};
  TL_VEC_PUSH(&m->elems, tl_elem, e0);
  tl_expr **nulls = TL_NEWN(&m->arena, tl_expr *, 1);
  nulls[0] = tl_expr_new(m, TL_OP_REF_NULL, 0);
  nulls[0]->imm.index = TL_FUNCREF;
  nulls[0]->type = TL_FUNCREF;
  tl_elem e1 = {.mode = TL_SEG_PASSIVE, .type = TL_FUNCREF, .n = 1, .item = nulls, .name = "nulls"};
  TL_VEC_PUSH(&m->elems, tl_elem, e1);
  tl_expr **xn = TL_NEWN(&m->arena, tl_expr *, 1);
  xn[0] = tl_expr_new(m, TL_OP_REF_NULL, 0);
  xn[0]->imm.index = TL_EXTERNREF;
  xn[0]->type = TL_EXTERNREF;
  tl_elem e2 = {.mode = TL_SEG_ACTIVE, .table = 1, .offset = i32c(m, 0), .type = TL_EXTERNREF, .n = 1, .item = xn};
  TL_VEC_PUSH(&m->elems, tl_elem, e2);
  tl_elem e3 = {.mode = TL_SEG_DECLARATIVE, .type = TL_FUNCREF, .n = 1, .item = items};
  TL_VEC_PUSH(&m->elems, tl_elem, e3);
  static const uint8_t bytes[] = {1, 2, 3};
  tl_data d0 = {.mode = TL_SEG_ACTIVE, .offset = i32c(m, 16), .bytes = bytes, .size = 3};
  tl_data d1 = {.mode = TL_SEG_PASSIVE, .bytes = bytes, .size = 2, .name = "p"};
  TL_VEC_PUSH(&m->datas, tl_data, d0);
  TL_VEC_PUSH(&m->datas, tl_data, d1);
  tl_custom c0 = {"first", bytes, 3, 0}, c1 = {"after-table", bytes, 1, 4},
            c2 = {"after-datacount", bytes, 2, 12}, c3 = {"last", bytes, 0, 11};
  TL_VEC_PUSH(&m->customs, tl_custom, c0);
  TL_VEC_PUSH(&m->customs, tl_custom, c1);
  TL_VEC_PUSH(&m->customs, tl_custom, c2);
  TL_VEC_PUSH(&m->customs, tl_custom, c3);
  m->name = "mod";
  tl_write_options opt = {.debug_names = true};
  check_valid(m, &opt);
  check_valid(m, NULL);
  opt.strip_custom = true;
  check_valid(m, &opt);
  /* names and customs are where they belong */
  tl_buf b = {0};
  opt.strip_custom = false;
  write_ok(m, &opt, &b);
  ck_assert_uint_eq(b.p[8], 0); /* "first" before the type section */
  ck_assert(memmem(b.p, b.n, "after-table", 11) != NULL);
  ck_assert(memmem(b.p, b.n, "inner", 5) != NULL);
  /* the datacount section (id 12) is there, as memory.init needs it */
  tl_buf_free(&b);
  free(f->local_name);
  free(f->label_name);
  tl_module_destroy(m);
}
END_TEST

START_TEST(deterministic) {
  tl_module *m = tl_module_alloc();
  tl_type ti = tup(m, TL_F32, TL_F64);
  tl_func *f = new_func(m, TL_NONE, TL_NONE, NULL);
  uint32_t loc = tl_func_add_local(m, f, ti);
  uint32_t l = tl_func_new_label(m, f);
  tl_expr *a = tl_expr_new(m, TL_OP_F32_CONST, 0);
  a->type = TL_F32;
  tl_expr *c = tl_expr_new(m, TL_OP_F64_CONST, 0);
  c->type = TL_F64;
  add(m, f, tl_make_local_set(m, f, loc, block(m, l, tuple_make(m, a, c), NULL, NULL), false));
  tl_buf b1 = {0}, b2 = {0};
  write_ok(m, NULL, &b1);
  write_ok(m, NULL, &b2);
  ck_assert_uint_eq(b1.n, b2.n);
  ck_assert(!memcmp(b1.p, b2.p, b1.n));
  tl_buf_free(&b1);
  tl_buf_free(&b2);
  check_valid(m, NULL);
  tl_module_destroy(m);
}
END_TEST



/* Finds section `id` (the first one) and returns its body; NULL if absent. */
static const uint8_t *find_section(const tl_buf *b, uint8_t id, uint32_t *size) {
  size_t p = 8;
  while (p < b->n) {
    uint8_t sid = b->p[p++];
    uint32_t n = 0, shift = 0;
    while (b->p[p] & 0x80) n |= (uint32_t)(b->p[p++] & 0x7f) << shift, shift += 7;
    n |= (uint32_t)b->p[p++] << shift;
    if (sid == id) {
      *size = n;
      return b->p + p;
    }
    p += n;
  }
  return NULL;
}

/* Typed select for references; the smallest element segment encodings. */
START_TEST(select_and_elem_bytes) {
  tl_module *m = tl_module_alloc();
  tl_table t0 = {.elem = TL_FUNCREF, .min = 1};
  TL_VEC_PUSH(&m->tables, tl_table, t0);
  tl_func *f = new_func(m, TL_I32, TL_NONE, NULL);
  tl_expr *rf = tl_expr_new(m, TL_OP_REF_FUNC, 0);
  rf->type = TL_FUNCREF;
  tl_expr *rn = tl_expr_new(m, TL_OP_REF_NULL, 0);
  rn->imm.index = TL_FUNCREF;
  rn->type = TL_FUNCREF;
  tl_expr *sel = tl_expr_new(m, TL_OP_SELECT, 3);
  sel->kid[0] = rf;
  sel->kid[1] = rn;
  sel->kid[2] = tl_make_local_get(m, f, 0);
  tl_expr_finalize(m, f, sel);
  add(m, f, tl_make_drop(m, sel));
  tl_expr **items = TL_NEWN(&m->arena, tl_expr *, 1);
  items[0] = rf;
  tl_expr **nulls = TL_NEWN(&m->arena, tl_expr *, 1);
  nulls[0] = rn;
  tl_elem e0 = {.mode = TL_SEG_ACTIVE, .offset = i32c(m, 0), .type = TL_FUNCREF, .n = 1, .item = items};
  tl_elem e1 = {.mode = TL_SEG_PASSIVE, .type = TL_FUNCREF, .n = 1, .item = nulls};
  tl_elem e2 = {.mode = TL_SEG_DECLARATIVE, .type = TL_FUNCREF, .n = 1, .item = items};
  TL_VEC_PUSH(&m->elems, tl_elem, e0);
  TL_VEC_PUSH(&m->elems, tl_elem, e1);
  TL_VEC_PUSH(&m->elems, tl_elem, e2);
  tl_buf b = {0};
  write_ok(m, NULL, &b);
  uint32_t n = 0;
  const uint8_t *el = find_section(&b, 9, &n);
  static const uint8_t want_el[] = {3,
                                    0, 0x41, 0, 0x0b, 1, 0,       /* active table 0, func idx */
                                    5, 0x70, 1, 0xd0, 0x70, 0x0b, /* passive, expressions */
                                    3, 0x00, 1, 0};               /* declarative, func idx */
  ck_assert_ptr_nonnull(el);
  ck_assert_uint_eq(n, sizeof want_el);
  ck_assert(!memcmp(el, want_el, n));
  const uint8_t *code = find_section(&b, 10, &n);
  static const uint8_t want_code[] = {0xd2, 0, 0xd0, 0x70, 0x20, 0, 0x1c, 1, 0x70, 0x1a, 0x0b};
  ck_assert_ptr_nonnull(code);
  ck_assert(!memcmp(code + n - sizeof want_code, want_code, sizeof want_code));
  tl_buf_free(&b);
  check_valid(m, NULL);
  tl_module_destroy(m);
}
END_TEST

/* Customs go after their section, or the nearest earlier one written. */
START_TEST(custom_placement_bytes) {
  tl_module *m = tl_module_alloc();
  tl_functype_intern(m, TL_NONE, TL_NONE);
  static const uint8_t x[] = {7};
  tl_custom c0 = {"a", x, 1, 3}, c1 = {"b", x, 0, 0};
  TL_VEC_PUSH(&m->customs, tl_custom, c0);
  TL_VEC_PUSH(&m->customs, tl_custom, c1);
  tl_buf b = {0};
  write_ok(m, NULL, &b);
  static const uint8_t want[] = {0, 'a', 's', 'm', 1, 0, 0, 0,
                                 0, 2, 1, 'b',           /* "b": before all */
                                 1, 4, 1, 0x60, 0, 0,    /* type */
                                 0, 3, 1, 'a', 7};       /* "a": after function -> after type */
  ck_assert_uint_eq(b.n, sizeof want);
  ck_assert(!memcmp(b.p, want, sizeof want));
  tl_write_options opt = {.strip_custom = true};
  b.n = 0;
  write_ok(m, &opt, &b);
  ck_assert_uint_eq(b.n, 14);
  tl_buf_free(&b);
  tl_module_destroy(m);
}
END_TEST

/* Label names: numbered by block/loop/if in order of appearance. */
START_TEST(label_names_bytes) {
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, TL_NONE, TL_NONE, NULL);
  f->label_name = TL_NEWN(&m->arena, const char *, 4);
  f->label_cap = 4;
  uint32_t l1 = tl_func_new_label(m, f), l2 = tl_func_new_label(m, f);
  f->label_name[l2] = "x";
  tl_expr *inner = block(m, l2, tl_make_nop(m), NULL, NULL);
  tl_expr *lp = tl_make_block(m, TL_OP_LOOP, l1, &inner, 1);
  add(m, f, lp);
  tl_write_options opt = {.debug_names = true};
  tl_buf b = {0};
  write_ok(m, &opt, &b);
  static const uint8_t want[] = {0, 13, 4, 'n', 'a', 'm', 'e', 3, 6, 1, 0, 1, 1, 1, 'x'};
  ck_assert(!memcmp(b.p + b.n - sizeof want, want, sizeof want));
  tl_buf_free(&b);
  check_valid(m, &opt);
  tl_module_destroy(m);
}
END_TEST

/* A tuple block uses the input's type index when it fits, else a
 * [] -> results type of the module, else one added at the end. */
START_TEST(tuple_block_types) {
  tl_module *m = tl_module_alloc();
  tl_func *f = new_func(m, TL_NONE, TL_NONE, NULL);    /* type 0: [] -> [] */
  uint32_t l1 = tl_func_new_label(m, f), l2 = tl_func_new_label(m, f);
  tl_expr *b1 = block(m, l1, tuple_make(m, i32c(m, 1), i32c(m, 2)), NULL, NULL);
  b1->imm.block.bt = 0;                                 /* does not fit: ignored */
  tl_expr *b2 = block(m, l2, tuple_make(m, i32c(m, 3), i32c(m, 4)), NULL, NULL);
  add(m, f, tl_make_drop(m, b1));
  add(m, f, tl_make_drop(m, b2));
  tl_buf b = {0};
  write_ok(m, NULL, &b);
  uint32_t n = 0;
  const uint8_t *ty = find_section(&b, 1, &n);
  static const uint8_t want_ty[] = {2, 0x60, 0, 0, 0x60, 0, 2, 0x7f, 0x7f};
  ck_assert_uint_eq(n, sizeof want_ty);
  ck_assert(!memcmp(ty, want_ty, n));
  const uint8_t *code = find_section(&b, 10, &n);
  static const uint8_t want_code[] = {0x02, 1, 0x41, 1, 0x41, 2, 0x0b, 0x1a, 0x1a,
                                      0x02, 1, 0x41, 3, 0x41, 4, 0x0b, 0x1a, 0x1a, 0x0b};
  ck_assert(!memcmp(code + n - sizeof want_code, want_code, sizeof want_code));
  tl_buf_free(&b);
  check_valid(m, NULL);
  tl_module_destroy(m);
}
END_TEST

/* local.set T (x) followed by a statement that first reads T's components
 * in order: written as x alone, and T is not declared. */
START_TEST(tuple_local_elision_bytes) {
  tl_module *m = tl_module_alloc();
  tl_type ti = tup(m, TL_I32, TL_I32);
  tl_func *g = new_func(m, TL_NONE, ti, NULL);
  add(m, g, tuple_make(m, i32c(m, 1), i32c(m, 2)));
  tl_func *f = new_func(m, TL_NONE, TL_I32, NULL);
  uint32_t t = tl_func_add_local(m, f, ti);
  uint32_t x = tl_func_add_local(m, f, TL_I64);
  tl_expr *call = tl_expr_new(m, TL_OP_CALL, 0);
  call->imm.index = 0;
  tl_expr_finalize(m, f, call);
  add(m, f, tl_make_local_set(m, f, t, call, false));
  add(m, f, tl_make_local_set(m, f, x, i64c(m, 3), false));  /* x is local 0 now */
  add(m, f, tl_make_binary(m, TL_OP_I32_ADD, extract(m, f, tl_make_local_get(m, f, t), 0),
                           extract(m, f, tl_make_local_get(m, f, t), 1)));
  tl_buf b = {0};
  write_ok(m, NULL, &b);
  uint32_t n = 0;
  const uint8_t *code = find_section(&b, 10, &n);
  /* not adjacent: nothing elided; T is locals 0-1, x is 2 */
  static const uint8_t want1[] = {21, 2, 2, 0x7f, 1, 0x7e, 0x10, 0, 0x21, 1, 0x21, 0,
                                  0x42, 3, 0x21, 2, 0x20, 0, 0x20, 1, 0x6a, 0x0b};
  ck_assert(!memcmp(code + n - sizeof want1, want1, sizeof want1));
  /* swap the two statements: now the set of T is followed by its reads */
  tl_expr *tmp = f->body->kid[0];
  f->body->kid[0] = f->body->kid[1];
  f->body->kid[1] = tmp;
  b.n = 0;
  write_ok(m, NULL, &b);
  code = find_section(&b, 10, &n);
  static const uint8_t want2[] = {11, 1, 1, 0x7e, 0x42, 3, 0x21, 0, 0x10, 0, 0x6a, 0x0b};
  ck_assert(!memcmp(code + n - sizeof want2, want2, sizeof want2));
  tl_buf_free(&b);
  check_valid(m, NULL);
  tl_module_destroy(m);
}
END_TEST

/* Spilled values whose pairs chain: B's read opens C's spill, and A's
 * read sits inside C's. C and B stay on the stack; A cannot (its value
 * would be under C's when `local.set D` takes it). What flatten leaves
 * with the reader's scratch locals (tilt-fuzz opt-valid seed 1762454422:
 * i32 stored into an i64 local). */
START_TEST(spill_chain_validates) {
  tl_module *m = tl_module_alloc();
  tl_func *g = new_func(m, TL_NONE, TL_I64, NULL);
  add(m, g, i64c(m, 5));
  tl_func *f = new_func(m, TL_NONE, TL_NONE, NULL);
  f->has_scratch_base = true;
  f->scratch_base = 0;
  uint32_t a = tl_func_add_local(m, f, TL_I64), b = tl_func_add_local(m, f, TL_I32);
  uint32_t c = tl_func_add_local(m, f, TL_I32), d = tl_func_add_local(m, f, TL_I64);
  tl_expr *call = tl_expr_new(m, TL_OP_CALL, 0);
  call->imm.index = 0;
  tl_expr_finalize(m, f, call);
  add(m, f, tl_make_local_set(m, f, a, call, false));
  add(m, f, tl_make_local_set(m, f, b, i32c(m, 1), false));
  add(m, f, tl_make_local_set(m, f, c, tl_make_unary(m, TL_OP_I32_EQZ, tl_make_local_get(m, f, b)), false));
  add(m, f, tl_make_local_set(m, f, d, tl_make_local_get(m, f, a), false));
  add(m, f, tl_make_drop(m, tl_make_local_get(m, f, c)));
  check_valid(m, NULL);
  tl_module_destroy(m);
}
END_TEST

/* A construct typed by a branch in code the writer cuts (after a dead
 * child) is written as unreachable, with its parent and what follows cut:
 * one write is a fixed point (tilt-fuzz roundtrip seeds 699, 2987, 3017). */
static void rewrite_same(const tl_buf *w1) {
  tl_error err = {0};
  tl_read_options ro = {.features = TL_FEATURES_ALL};
  tl_module *m2 = tl_module_read(w1->p, w1->n, &ro, &err);
  ck_assert_msg(m2 != NULL, "re-read failed: %s", err.msg);
  tl_buf w2 = {0};
  write_ok(m2, NULL, &w2);
  ck_assert(w1->n == w2.n && !memcmp(w1->p, w2.p, w1->n));
  tl_buf_free(&w2);
  tl_module_destroy(m2);
}

/* A load from memory 1: its memarg sets bit 6 of the alignment field and
 * carries the memory index before the offset; it reads back the same. */
START_TEST(multi_memory_memarg) {
  tl_module *m = tl_module_alloc();
  m->features = TL_FEAT_ALL;
  tl_memory mem = {.min = 1};
  TL_VEC_PUSH(&m->memories, tl_memory, mem);
  TL_VEC_PUSH(&m->memories, tl_memory, mem);
  tl_func *f = new_func(m, TL_NONE, TL_NONE, NULL);
  tl_expr *ld = tl_expr_new(m, TL_OP_I32_LOAD, 1);
  ld->kid[0] = i32c(m, 0);
  ld->imm.mem = (tl_memarg){.offset = 8, .align = 2, .mem = 1};
  tl_expr_finalize(m, f, ld);
  add(m, f, tl_make_drop(m, ld));
  tl_buf b = {0};
  write_ok(m, NULL, &b);
  static const uint8_t want[] = {0x28, 0x42, 0x01, 0x08}; /* i32.load align=4|0x40 mem 1 offset 8 */
  bool found = false;
  for (size_t i = 0; i + sizeof want <= b.n && !found; i++) found = !memcmp(b.p + i, want, sizeof want);
  ck_assert_msg(found, "no i32.load 1 offset=8 in the output");
  rewrite_same(&b);
  tl_buf_free(&b);
  tl_module_destroy(m);
}
END_TEST

START_TEST(dead_branch_fixed_point) {
  tl_module *m = tl_module_alloc();
  /* (drop (block $a (result i32) unreachable (br_if $a (i32.const 1) (i32.const 0)))) (i32.const 2) */
  tl_func *f = new_func(m, TL_NONE, TL_I32, NULL);
  uint32_t a = tl_func_new_label(m, f);
  tl_expr *ba = block(m, a, tl_make_unreachable(m), br(m, TL_OP_BR_IF, a, i32c(m, 1), i32c(m, 0)), NULL);
  ck_assert_uint_eq(ba->type, TL_I32);
  add(m, f, tl_make_drop(m, ba));
  add(m, f, i32c(m, 2));
  /* (i32.add (i32.const 1) (if $b (result i32) (i32.const 1)
   *   (then unreachable (br_if $b (i32.const 3) (i32.const 0))) (else unreachable))) */
  tl_func *g = new_func(m, TL_NONE, TL_I32, NULL);
  uint32_t bl = tl_func_new_label(m, g);
  tl_expr *arm = block(m, TL_NO_LABEL, tl_make_unreachable(m), br(m, TL_OP_BR_IF, bl, i32c(m, 3), i32c(m, 0)), NULL);
  tl_expr *ib = iff(m, bl, i32c(m, 1), arm, tl_make_unreachable(m));
  ck_assert_uint_eq(ib->type, TL_I32);
  add(m, g, tl_make_binary(m, TL_OP_I32_ADD, i32c(m, 1), ib));
  tl_buf b = {0};
  write_ok(m, NULL, &b);
  uint32_t n = 0;
  const uint8_t *code = find_section(&b, 10, &n);
  static const uint8_t want[] = {
    2, 7, 0, 0x02, 0x40, 0x00, 0x0b, 0x00, 0x0b,                  /* f: block end unreachable */
    14, 0, 0x41, 1, 0x1a, 0x41, 1, 0x04, 0x40, 0x00, 0x05, 0x00, 0x0b, 0x00, 0x0b}; /* g */
  ck_assert_uint_eq(n, sizeof want);
  ck_assert(!memcmp(code, want, sizeof want));
  rewrite_same(&b);
  tl_buf_free(&b);
  check_valid(m, NULL);
  tl_module_destroy(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("writer");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, empty_module);
  tcase_add_test(tc, const_function);
  tcase_add_test(tc, dead_after_br_bytes);
  tcase_add_test(tc, unreachable_block_operand_bytes);
  tcase_add_test(tc, dead_code_validates);
  tcase_add_test(tc, unreachable_constructs_validate);
  tcase_add_test(tc, multivalue_validates);
  tcase_add_test(tc, deep_nesting);
  tcase_add_test(tc, branch_out_of_scope);
  tcase_add_test(tc, sections_validate);
  tcase_add_test(tc, deterministic);
  tcase_add_test(tc, multi_memory_memarg);
  tcase_add_test(tc, select_and_elem_bytes);
  tcase_add_test(tc, custom_placement_bytes);
  tcase_add_test(tc, label_names_bytes);
  tcase_add_test(tc, tuple_block_types);
  tcase_add_test(tc, tuple_local_elision_bytes);
  tcase_add_test(tc, spill_chain_validates);
  tcase_add_test(tc, dead_branch_fixed_point);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
