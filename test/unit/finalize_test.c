/* finalize_test.c — the type rules of finalize.c: seed 002's examples, block,
 * loop and if rules, branch value types, parametric and variable ops; and on
 * random well-typed trees, tl_func_refinalize agrees with per-node
 * tl_expr_finalize, tl_validate_module accepts the result, and rejects it
 * after any single node gets a wrong type. */
#include "ir.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_main.h"

#include "ir_build.h"

static void setup(void) {
  ir_fixture(TL_I32, TL_I32);
  tl_func_add_local(M, F, TL_I32);
}

static void teardown(void) { ir_teardown(); }
static tl_expr *unr(void) { return tl_make_unreachable(M); }
static uint32_t lab(void) { return tl_func_new_label(M, F); }

START_TEST(lub_and_branch_types) {
  ck_assert_uint_eq(tl_type_lub(M, TL_UNREACHABLE, TL_I32), TL_I32);
  ck_assert_uint_eq(tl_type_lub(M, TL_I32, TL_UNREACHABLE), TL_I32);
  ck_assert_uint_eq(tl_type_lub(M, TL_I32, TL_F32), TL_I32); /* mismatch: the first */
  ck_assert_uint_eq(tl_type_lub(M, TL_UNREACHABLE, TL_UNREACHABLE), TL_UNREACHABLE);
  uint32_t l = lab();
  ck_assert_uint_eq(tl_branch_value_type(mk(TL_OP_BR, l, 0)), TL_NONE);
  ck_assert_uint_eq(tl_branch_value_type(mk(TL_OP_BR, l, 1, f32c())), TL_F32);
  ck_assert_uint_eq(tl_branch_value_type(mk(TL_OP_BR, l, 1, unr())), TL_UNREACHABLE);
  ck_assert_uint_eq(tl_branch_value_type(mk(TL_OP_BR_IF, l, 1, c32(1))), TL_NONE);
  ck_assert_uint_eq(tl_branch_value_type(mk(TL_OP_BR_IF, l, 1, unr())), TL_UNREACHABLE);
  ck_assert_uint_eq(tl_branch_value_type(mk(TL_OP_BR_IF, l, 2, f32c(), c32(1))), TL_F32);
  ck_assert_uint_eq(tl_branch_value_type(mk(TL_OP_BR_IF, l, 2, f32c(), unr())), TL_UNREACHABLE);
  ck_assert_uint_eq(tl_branch_value_type(c32(1)), TL_UNREACHABLE); /* not a branch */
  ck_assert(tl_expr_breaks_to(mk(TL_OP_BR, l, 0), l));
  ck_assert(!tl_expr_breaks_to(mk(TL_OP_BR, l, 0), l + 1));
}
END_TEST

/* Seed 002: (i32.add (f32.const 0) (br 0)) is unreachable. */
START_TEST(seed_dead_add) {
  uint32_t l = lab();
  tl_expr *add = tl_make_binary(M, TL_OP_I32_ADD, f32c(), mk(TL_OP_BR, l, 0));
  ck_assert_uint_eq(add->type, TL_UNREACHABLE);
  tl_expr *blk = mk(TL_OP_BLOCK, l, 1, tl_make_drop(M, add));
  ck_assert_uint_eq(blk->type, TL_NONE); /* the br targets it */
}
END_TEST

/* Seed 002: (block f32 (i32.add (i32.const 1) (br 0 (f32.const 0)))) is f32. */
START_TEST(seed_block_f32) {
  uint32_t l = lab();
  tl_expr *add = tl_make_binary(M, TL_OP_I32_ADD, c32(1), mk(TL_OP_BR, l, 1, f32c()));
  ck_assert_uint_eq(add->type, TL_UNREACHABLE);
  ck_assert_uint_eq(mk(TL_OP_BLOCK, l, 1, add)->type, TL_F32);
  /* the same add under a block whose label nobody targets: unreachable */
  uint32_t l2 = lab(), l3 = lab();
  tl_expr *add2 = tl_make_binary(M, TL_OP_I32_ADD, c32(1), mk(TL_OP_BR, l2, 1, f32c()));
  tl_expr *inner = mk(TL_OP_BLOCK, l3, 1, add2);
  ck_assert_uint_eq(inner->type, TL_UNREACHABLE);
  ck_assert_uint_eq(mk(TL_OP_BLOCK, l2, 1, inner)->type, TL_F32);
}
END_TEST

START_TEST(block_rules) {
  ck_assert_uint_eq(mk(TL_OP_BLOCK, TL_NO_LABEL, 0)->type, TL_NONE);
  ck_assert_uint_eq(mk(TL_OP_BLOCK, TL_NO_LABEL, 2, tl_make_nop(M), c32(1))->type, TL_I32);
  /* no branches and it cannot fall off its end: unreachable */
  ck_assert_uint_eq(mk(TL_OP_BLOCK, lab(), 2, tl_make_nop(M), unr())->type, TL_UNREACHABLE);
  /* an unreachable instruction anywhere in the list */
  ck_assert_uint_eq(mk(TL_OP_BLOCK, TL_NO_LABEL, 2, unr(), c32(1))->type, TL_UNREACHABLE);
  /* a branch makes it reachable again, with the branch's type */
  uint32_t l = lab();
  tl_expr *b = mk(TL_OP_BLOCK, l, 2, tl_make_drop(M, mk(TL_OP_BR_IF, l, 2, c32(3), c32(1))), c32(4));
  ck_assert_uint_eq(b->type, TL_I32);
  uint32_t l2 = lab();
  ck_assert_uint_eq(mk(TL_OP_BLOCK, l2, 2, mk(TL_OP_BR, l2, 1, c32(1)), unr())->type, TL_I32);
  /* branches inside a nested block that target the outer one count */
  uint32_t lo = lab();
  tl_expr *in = mk(TL_OP_BLOCK, TL_NO_LABEL, 1, mk(TL_OP_BR, lo, 0));
  ck_assert_uint_eq(mk(TL_OP_BLOCK, lo, 1, in)->type, TL_NONE);
  /* a branch carrying unreachable does not make the block reachable */
  uint32_t lu = lab();
  ck_assert_uint_eq(mk(TL_OP_BLOCK, lu, 1, mk(TL_OP_BR, lu, 1, unr()))->type, TL_UNREACHABLE);
}
END_TEST

START_TEST(loop_rules) {
  uint32_t l = lab();
  /* a branch to a loop goes back to its start: the loop still ends unreachable */
  ck_assert_uint_eq(mk(TL_OP_LOOP, l, 1, mk(TL_OP_BR, l, 0))->type, TL_UNREACHABLE);
  uint32_t l2 = lab();
  ck_assert_uint_eq(mk(TL_OP_LOOP, l2, 2, mk(TL_OP_BR_IF, l2, 1, c32(1)), c32(5))->type, TL_I32);
  ck_assert_uint_eq(mk(TL_OP_LOOP, lab(), 0)->type, TL_NONE);
  ck_assert_uint_eq(mk(TL_OP_LOOP, TL_NO_LABEL, 2, unr(), c32(5))->type, TL_UNREACHABLE);
}
END_TEST

START_TEST(if_rules) {
  /* one unreachable arm: the other arm's type */
  ck_assert_uint_eq(mk(TL_OP_IF, TL_NO_LABEL, 3, c32(1), unr(), f32c())->type, TL_F32);
  ck_assert_uint_eq(mk(TL_OP_IF, TL_NO_LABEL, 3, c32(1), f32c(), unr())->type, TL_F32);
  ck_assert_uint_eq(mk(TL_OP_IF, TL_NO_LABEL, 3, c32(1), c32(2), c32(3))->type, TL_I32);
  /* both arms unreachable */
  ck_assert_uint_eq(mk(TL_OP_IF, TL_NO_LABEL, 3, c32(1), unr(), unr())->type, TL_UNREACHABLE);
  /* ... unless a branch to the if's label leaves it */
  uint32_t l = lab();
  ck_assert_uint_eq(mk(TL_OP_IF, l, 3, c32(1), mk(TL_OP_BR, l, 1, c32(7)), unr())->type, TL_I32);
  /* unreachable condition */
  ck_assert_uint_eq(mk(TL_OP_IF, TL_NO_LABEL, 3, unr(), c32(2), c32(3))->type, TL_UNREACHABLE);
  ck_assert_uint_eq(mk(TL_OP_IF, TL_NO_LABEL, 2, unr(), tl_make_nop(M))->type, TL_UNREACHABLE);
  /* no else: none, even when the arm cannot finish */
  ck_assert_uint_eq(mk(TL_OP_IF, TL_NO_LABEL, 2, c32(1), unr())->type, TL_NONE);
  ck_assert_uint_eq(mk(TL_OP_IF, TL_NO_LABEL, 2, c32(1), tl_make_nop(M))->type, TL_NONE);
}
END_TEST

START_TEST(plain_rules) {
  /* br_if: the value's type, or none */
  uint32_t l = lab();
  ck_assert_uint_eq(mk(TL_OP_BR_IF, l, 2, f32c(), c32(1))->type, TL_F32);
  ck_assert_uint_eq(mk(TL_OP_BR_IF, l, 1, c32(1))->type, TL_NONE);
  ck_assert_uint_eq(mk(TL_OP_BR_IF, l, 2, f32c(), unr())->type, TL_UNREACHABLE);
  ck_assert_uint_eq(mk(TL_OP_BR, l, 1, c32(1))->type, TL_UNREACHABLE);
  ck_assert_uint_eq(mk(TL_OP_RETURN, 0, 1, c32(1))->type, TL_UNREACHABLE);
  ck_assert_uint_eq(unr()->type, TL_UNREACHABLE);
  /* select takes its operands' type; an unreachable first operand defers */
  ck_assert_uint_eq(mk(TL_OP_SELECT, 0, 3, f32c(), f32c(), c32(1))->type, TL_F32);
  ck_assert_uint_eq(mk(TL_OP_SELECT, 0, 3, unr(), f32c(), c32(1))->type, TL_UNREACHABLE);
  tl_expr *st = tl_expr_new(M, TL_OP_SELECT_T, 3);
  st->imm.index = TL_F64;
  st->kid[0] = st->kid[1] = f32c();
  st->kid[2] = c32(0);
  tl_expr_finalize(M, F, st);
  ck_assert_uint_eq(st->type, TL_F64);
  /* variables and calls */
  ck_assert_uint_eq(tl_make_local_set(M, F, 0, c32(1), true)->type, TL_I32);
  ck_assert_uint_eq(tl_make_local_set(M, F, 0, c32(1), false)->type, TL_NONE);
  ck_assert_uint_eq(tl_make_local_set(M, F, 0, unr(), true)->type, TL_UNREACHABLE);
  tl_expr *call = mk(TL_OP_CALL, 0, 1, c32(1)); /* imm.index 0: F itself, i32 -> i32 */
  ck_assert_uint_eq(call->type, TL_I32);
  ck_assert_uint_eq(mk(TL_OP_DROP, 0, 1, c32(1))->type, TL_NONE);
  ck_assert_uint_eq(mk(TL_OP_DROP, 0, 1, unr())->type, TL_UNREACHABLE);
  ck_assert_uint_eq(tl_make_unary(M, TL_OP_I64_EXTEND_I32_S, c32(1))->type, TL_I64);
  ck_assert_uint_eq(tl_make_binary(M, TL_OP_F32_LT, f32c(), f32c())->type, TL_I32);
  ck_assert_uint_eq(mk(TL_OP_I32_STORE, 0, 2, c32(0), c32(1))->type, TL_NONE);
  /* tuples */
  tl_expr *t = mk(TL_OP_TUPLE_MAKE, 0, 2, c32(1), f32c());
  tl_type p[2] = {TL_I32, TL_F32};
  ck_assert_uint_eq(t->type, tl_type_tuple(M, p, 2));
  tl_expr *x = tl_expr_new(M, TL_OP_TUPLE_EXTRACT, 1);
  x->kid[0] = t;
  x->imm.index = 1;
  tl_expr_finalize(M, F, x);
  ck_assert_uint_eq(x->type, TL_F32);
  ck_assert_uint_eq(mk(TL_OP_TUPLE_MAKE, 0, 2, c32(1), unr())->type, TL_UNREACHABLE);
}
END_TEST

/* ---- random well-typed trees ---- */
typedef struct { uint32_t label; tl_type t; } scope_ent; /* t: what branches carry */
typedef struct {
  uint64_t s;
  scope_ent sc[64];
  int n;
} gen;

static uint32_t rnd(gen *g, uint32_t n) {
  g->s ^= g->s << 13;
  g->s ^= g->s >> 7;
  g->s ^= g->s << 17;
  return (uint32_t)(g->s % n);
}

static tl_expr *gen_expr(gen *g, tl_type t, int depth);

/* A label in scope whose branches carry t (-1 if none). */
static int pick_label(gen *g, tl_type t) {
  int cand[64], n = 0;
  for (int i = 0; i < g->n; i++)
    if (g->sc[i].t == t) cand[n++] = i;
  return n ? cand[rnd(g, (uint32_t)n)] : -1;
}

static tl_expr *gen_br(gen *g, int depth) {
  int i = (int)rnd(g, (uint32_t)g->n);
  tl_type t = g->sc[i].t;
  if (t == TL_NONE) return mk(TL_OP_BR, g->sc[i].label, 0);
  return mk(TL_OP_BR, g->sc[i].label, 1, gen_expr(g, t, depth - 1));
}

static tl_expr *gen_table(gen *g, int depth) {
  tl_type t = rnd(g, 2) ? TL_NONE : TL_I32;
  int first = pick_label(g, t);
  if (first < 0) return tl_make_nop(M);
  uint32_t n = rnd(g, 3);
  tl_expr *e = tl_expr_new(M, TL_OP_BR_TABLE, t == TL_NONE ? 1 : 2);
  e->imm.table = tl_brtable_new(M, n);
  for (uint32_t i = 0; i < n; i++) e->imm.table->targets[i] = g->sc[pick_label(g, t)].label;
  e->imm.table->def = g->sc[first].label;
  uint32_t k = 0;
  if (t != TL_NONE) e->kid[k++] = gen_expr(g, t, depth - 1);
  e->kid[k] = gen_expr(g, TL_I32, depth - 1);
  tl_expr_finalize(M, F, e);
  return e;
}

/* block/loop of result t: statements then (for i32) a value. */
static tl_expr *gen_block(gen *g, tl_op op, tl_type t, int depth) {
  bool labeled = rnd(g, 4) != 0 && g->n < 64;
  uint32_t l = labeled ? lab() : TL_NO_LABEL;
  if (labeled) g->sc[g->n++] = (scope_ent){l, op == TL_OP_LOOP ? TL_NONE : t};
  uint32_t n = rnd(g, 3) + (t != TL_NONE);
  tl_expr *e = tl_expr_new(M, op, n);
  e->imm.block.label = l;
  for (uint32_t i = 0; i < n; i++)
    e->kid[i] = gen_expr(g, i + 1 == n ? t : TL_NONE, depth - 1);
  if (labeled) g->n--;
  tl_expr_finalize(M, F, e);
  return e;
}

static tl_expr *gen_if(gen *g, tl_type t, int depth) {
  tl_expr *cond = gen_expr(g, TL_I32, depth - 1); /* the label is not in scope here */
  bool has_else = t != TL_NONE || rnd(g, 2);
  bool labeled = rnd(g, 2) && g->n < 64;
  uint32_t l = labeled ? lab() : TL_NO_LABEL;
  if (labeled) g->sc[g->n++] = (scope_ent){l, t};
  tl_expr *e = tl_expr_new(M, TL_OP_IF, has_else ? 3 : 2);
  e->imm.block.label = l;
  e->kid[0] = cond;
  e->kid[1] = gen_expr(g, t, depth - 1);
  if (has_else) e->kid[2] = gen_expr(g, t, depth - 1);
  if (labeled) g->n--;
  tl_expr_finalize(M, F, e);
  return e;
}

static tl_expr *gen_i32(gen *g, int depth) {
  switch (rnd(g, 11)) {
  case 0: return tl_make_binary(M, TL_OP_I32_ADD, gen_expr(g, TL_I32, depth - 1),
                                gen_expr(g, TL_I32, depth - 1));
  case 1: return gen_block(g, TL_OP_BLOCK, TL_I32, depth);
  case 2: return gen_if(g, TL_I32, depth);
  case 3: {
    int i = pick_label(g, TL_I32);
    if (i < 0) return c32(3);
    return mk(TL_OP_BR_IF, g->sc[i].label, 2, gen_expr(g, TL_I32, depth - 1),
              gen_expr(g, TL_I32, depth - 1));
  }
  case 4: return gen_br(g, depth);
  case 5: return rnd(g, 3) ? c32(4) : unr();
  case 6: return mk(TL_OP_SELECT, 0, 3, gen_expr(g, TL_I32, depth - 1),
                    gen_expr(g, TL_I32, depth - 1), gen_expr(g, TL_I32, depth - 1));
  case 7: return tl_make_local_set(M, F, 0, gen_expr(g, TL_I32, depth - 1), true);
  case 8: return gen_block(g, TL_OP_LOOP, TL_I32, depth);
  case 9: return tl_make_unary(M, TL_OP_I32_EQZ, gen_expr(g, TL_I32, depth - 1));
  default: return tl_make_local_get(M, F, 0);
  }
}

static tl_expr *gen_none(gen *g, int depth) {
  switch (rnd(g, 10)) {
  case 0: return tl_make_drop(M, gen_expr(g, TL_I32, depth - 1));
  case 1: return gen_block(g, TL_OP_BLOCK, TL_NONE, depth);
  case 2: return gen_block(g, TL_OP_LOOP, TL_NONE, depth);
  case 3: return gen_if(g, TL_NONE, depth);
  case 4: {
    int i = pick_label(g, TL_NONE);
    if (i < 0) return tl_make_nop(M);
    return mk(TL_OP_BR_IF, g->sc[i].label, 1, gen_expr(g, TL_I32, depth - 1));
  }
  case 5: return gen_table(g, depth);
  case 6: return tl_make_local_set(M, F, 0, gen_expr(g, TL_I32, depth - 1), false);
  case 7: return rnd(g, 2) ? gen_br(g, depth) : mk(TL_OP_RETURN, 0, 1, gen_expr(g, TL_I32, depth - 1));
  default: return tl_make_nop(M);
  }
}

static tl_expr *gen_expr(gen *g, tl_type t, int depth) {
  if (depth <= 0) return t == TL_I32 ? (rnd(g, 2) ? c32(1) : tl_make_local_get(M, F, 0)) : tl_make_nop(M);
  return t == TL_I32 ? gen_i32(g, depth) : gen_none(g, depth);
}

static void collect(tl_walk *w, tl_expr **slot) {
  TL_VEC_PUSH((tl_vec *)w->ctx, tl_type, (*slot)->type);
}

static void collect_node(tl_walk *w, tl_expr **slot) {
  TL_VEC_PUSH((tl_vec *)w->ctx, tl_expr *, *slot);
}

static void scramble(tl_walk *w, tl_expr **slot) {
  (*slot)->type = (tl_type)(w->depth % 4); /* none, unreachable, i32, i64 */
}

START_TEST(random_trees) {
  uint32_t nunreach = 0, nnodes = 0;
  for (int iter = 0; iter < 400; iter++) {
    tl_module_destroy(M);
    setup();
    gen g = {.s = 0x9E3779B97F4A7C15ull * (uint64_t)(iter + 1)};
    uint32_t fl = lab();
    g.sc[g.n++] = (scope_ent){fl, TL_I32};
    uint32_t n = 1 + rnd(&g, 4);
    tl_expr *b = tl_expr_new(M, TL_OP_BLOCK, n);
    b->imm.block.label = fl;
    for (uint32_t i = 0; i < n; i++) b->kid[i] = gen_expr(&g, i + 1 == n ? TL_I32 : TL_NONE, 6);
    tl_expr_finalize(M, F, b);
    F->body = b;

    tl_vec before = {0}, after = {0};
    tl_walk_post(M, F, &F->body, collect, &before);
    tl_walk_post(M, F, &F->body, scramble, NULL);
    tl_func_refinalize(M, F);
    tl_walk_post(M, F, &F->body, collect, &after);
    ck_assert_uint_eq(before.n, after.n);
    for (size_t i = 0; i < before.n; i++) {
      tl_type a = TL_VEC_AT(&before, tl_type, i), c = TL_VEC_AT(&after, tl_type, i);
      ck_assert_msg(a == c, "iter %d node %zu: finalize %u, refinalize %u", iter, i, a, c);
      nunreach += a == TL_UNREACHABLE;
    }
    nnodes += (uint32_t)before.n;
    tl_vec_free(&before);
    tl_vec_free(&after);

    tl_error err = {0};
    tl_status s = tl_validate_module(M, &err);
    ck_assert_msg(s == TL_OK, "iter %d: %s", iter, err.msg);

    /* any single wrong type is caught by the validator */
    tl_vec nodes = {0};
    tl_walk_post(M, F, &F->body, collect_node, &nodes);
    for (int k = 0; k < 8; k++) {
      tl_expr *e = TL_VEC_AT(&nodes, tl_expr *, rnd(&g, (uint32_t)nodes.n));
      tl_type old = e->type;
      e->type = (old + 1) % 4;
      s = tl_validate_module(M, &err);
      ck_assert_msg(s == TL_E_INVALID, "iter %d: %s typed %u instead of %u accepted", iter,
                    tl_ops[e->op].text, e->type, old);
      e->type = old;
    }
    tl_vec_free(&nodes);
  }
  /* the trees exercised dead code */
  ck_assert_uint_gt(nunreach, nnodes / 20);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("finalize");
  TCase *t = tcase_create("core");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, lub_and_branch_types);
  tcase_add_test(t, seed_dead_add);
  tcase_add_test(t, seed_block_f32);
  tcase_add_test(t, block_rules);
  tcase_add_test(t, loop_rules);
  tcase_add_test(t, if_rules);
  tcase_add_test(t, plain_rules);
  tcase_add_test(t, random_trees);
  suite_add_tcase(s, t);
  return s;
}

TL_CHECK_MAIN(suite)
