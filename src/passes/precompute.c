/* precompute.c — constant folding with the interpreter's semantics, and
 * constant propagation through locals (precompute-propagate).
 * Folding: every maximal subtree made only of constants and pure
 * operators is evaluated by the reference interpreter (tl_interp_eval) and
 * replaced by its value. A subtree that traps is left alone, so a trap never turns
 * into a value or the reverse.
 * Propagation: after (local.set $x (CONST)) in a list, gets of $x in the
 * following siblings are replaced by the constant, up to the first sibling
 * that may write $x. Control cannot enter a list in the middle, so every
 * such get runs after the set. Then folding runs.
 * Assumes valid IR; guarantees the same behaviour and valid types. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { FOLDABLE = 1 }; /* aux bit: subtree of constants and pure operators */

static bool is_const(const tl_expr *e) {
  return e->op == TL_OP_I32_CONST || e->op == TL_OP_I64_CONST || e->op == TL_OP_F32_CONST ||
         e->op == TL_OP_F64_CONST || e->op == TL_OP_V128_CONST;
}

static bool pure_op(const tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  const uint32_t bad = TL_F_READS_MEM | TL_F_WRITES_MEM | TL_F_READS_TABLE | TL_F_WRITES_TABLE |
                       TL_F_READS_LOCAL | TL_F_WRITES_LOCAL | TL_F_READS_GLOBAL | TL_F_WRITES_GLOBAL |
                       TL_F_CALL | TL_F_BRANCH | TL_F_NORETURN | TL_F_CONTROL | TL_F_ATOMIC;
  if (oi->flags & bad) return false;
  return oi->nops != TL_SIG_SPECIAL || e->op == TL_OP_SELECT;
}

static void mark_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  bool ok = is_const(e) || (pure_op(e) && e->nkid > 0 && tl_type_is_concrete(e->type) &&
                            !tl_type_is_tuple(e->type));
  for (uint32_t i = 0; ok && i < e->nkid; i++) ok = e->kid[i] && (e->kid[i]->aux & FOLDABLE);
  e->aux = ok ? FOLDABLE : 0;
}

/* Candidates: foldable non-constants whose parent is not foldable. */
typedef struct { tl_vec slots; } collect_ctx;

static void collect_pre(tl_walk *w, tl_expr **slot) {
  collect_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if ((e->aux & FOLDABLE) && !is_const(e)) {
    TL_VEC_PUSH(&c->slots, tl_expr **, slot);
    w->skip = true;
  }
}

static tl_expr *const_of(tl_module *m, const tl_value *v) {
  static const tl_op ops[] = {[TL_I32] = TL_OP_I32_CONST, [TL_I64] = TL_OP_I64_CONST,
                              [TL_F32] = TL_OP_F32_CONST, [TL_F64] = TL_OP_F64_CONST,
                              [TL_V128] = TL_OP_V128_CONST};
  tl_expr *e = tl_expr_new(m, ops[v->type], 0);
  switch (v->type) {
  case TL_I32: e->imm.i32 = v->of.i32; break;
  case TL_I64: e->imm.i64 = v->of.i64; break;
  case TL_F32: e->imm.f32 = v->of.f32; break;
  case TL_F64: e->imm.f64 = v->of.f64; break;
  default: memcpy(e->imm.v128, v->of.v128, 16); break;
  }
  e->type = v->type;
  return e;
}

/* Each candidate runs in the interpreter; a trap (or anything it will not
 * run) leaves the candidate as it is. */
static void fold_all(tl_module *m, tl_func *f, tl_vec *slots) {
  for (size_t i = 0; i < slots->n; i++) {
    tl_expr **slot = TL_VEC_AT(slots, tl_expr **, i);
    tl_value v;
    uint32_t n = 0;
    tl_error err;
    if (tl_interp_eval(m, f, *slot, &v, 1, &n, 100000, &err) != TL_OK || n != 1) continue;
    *slot = const_of(m, &v);
  }
}

static void precompute_func(tl_module *m, tl_func *f) {
  tl_walk_post(m, f, &f->body, mark_visit, NULL);
  collect_ctx c = {{0}};
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = &c;
  w.pre = collect_pre;
  tl_walk_run(&w, &f->body);
  fold_all(m, f, &c.slots);
  tl_vec_free(&c.slots);
  tl_func_refinalize(m, f);
}

tl_status tl_pass_precompute(tl_pass_ctx *ctx, tl_func *f) {
  precompute_func(ctx->m, f);
  return TL_OK;
}

/* ---- propagation --------------------------------------------------------- */
enum { SCAN_BUDGET = 1 << 16 }; /* nodes scanned per set, to stay linear-ish */

typedef struct {
  uint32_t local;
  const tl_expr *value;
  uint32_t budget;
  bool writes;     /* the sibling may write the local */
  tl_module *m;
} prop_ctx;

static void writes_visit(tl_walk *w, tl_expr **slot) {
  prop_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if ((e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) && e->imm.index == c->local) c->writes = true;
  if (c->budget) c->budget--;
  else c->writes = true;
}

static void replace_visit(tl_walk *w, tl_expr **slot) {
  prop_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_LOCAL_GET && e->imm.index == c->local) {
    tl_expr *k = tl_expr_new(c->m, (tl_op)c->value->op, 0);
    k->imm = c->value->imm;
    k->type = c->value->type;
    *slot = k;
  }
}

static void propagate_list(tl_walk *w, tl_expr *list) {
  for (uint32_t i = 0; i + 1 < list->nkid; i++) {
    tl_expr *set = list->kid[i];
    if (set->op != TL_OP_LOCAL_SET || !is_const(set->kid[0])) continue;
    prop_ctx c = {set->imm.index, set->kid[0], SCAN_BUDGET, false, w->m};
    for (uint32_t j = i + 1; j < list->nkid && !c.writes; j++) {
      tl_walk_post(w->m, w->f, &list->kid[j], writes_visit, &c);
      if (!c.writes) tl_walk_post(w->m, w->f, &list->kid[j], replace_visit, &c);
    }
  }
}

static void prop_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) propagate_list(w, e);
}

tl_status tl_pass_precompute_propagate(tl_pass_ctx *ctx, tl_func *f) {
  for (int round = 0; round < 4; round++) {
    precompute_func(ctx->m, f);
    tl_walk_post(ctx->m, f, &f->body, prop_visit, NULL);
  }
  precompute_func(ctx->m, f);
  return TL_OK;
}
