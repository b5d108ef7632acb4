/* dce.c — dead code elimination with unreachable propagation.
 * Assumes: valid IR with up-to-date types.
 * Guarantees: nothing follows an unreachable-typed node in a list; a node
 * with an unreachable operand is replaced by the operands evaluated before
 * it (dropped) and that operand, so side effects that happen before the
 * unreachable point are kept; an if with an unreachable condition becomes
 * the condition; blocks that lost every branch to them and cannot fall off
 * their end become unreachable, which propagates upward in the same walk.
 * One post-order walk: a branch is counted when the walk reaches it, before
 * the construct it targets (it is inside it), and uncounted when dead code
 * around it is dropped, so a construct knows its remaining branches when
 * visited (br_on_* included: GC). Exception handling: a try is typed by its body, its arms and
 * its branches (an unreachable body leaves the catches live); an arm stays
 * an arm (never replaced by its handler); a try_table's clauses count as
 * branches to their labels. */
#include "passes.h"

#include <stdlib.h>

typedef struct {
  uint32_t *count;   /* live branches per label */
  tl_type *bt;       /* LUB of the value types branches carry, per label */
  const tl_module *m;
} dce_ctx;

static void each_target(tl_expr *e, void (*fn)(dce_ctx *, uint32_t, tl_expr *), dce_ctx *c) {
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF || tl_ops[e->op].imm == TL_IMM_CLAUSE || tl_op_is_br_on(e->op)) {
    fn(c, e->imm.label, e);
  } else if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table->n; i++) fn(c, e->imm.table->targets[i], e);
    fn(c, e->imm.table->def, e);
  }
}

static void add_target(dce_ctx *c, uint32_t l, tl_expr *br) {
  c->count[l]++;
  c->bt[l] = tl_type_lub(c->m, c->bt[l], tl_branch_value_type(br));
}

static void sub_target(dce_ctx *c, uint32_t l, tl_expr *br) {
  (void)br;
  c->count[l]--;
}

static void uncount_visit(tl_walk *w, tl_expr **slot) { each_target(*slot, sub_target, w->ctx); }

/* A subtree is being thrown away: its branches no longer count. */
static void forget(tl_walk *w, tl_expr *e) {
  if (e) tl_walk_post(w->m, w->f, &e, uncount_visit, w->ctx);
}

static void trim_list(tl_walk *w, tl_expr *e) {
  for (uint32_t i = 0; i + 1 < e->nkid; i++) {
    if (e->kid[i]->type != TL_UNREACHABLE) continue;
    for (uint32_t j = i + 1; j < e->nkid; j++) forget(w, e->kid[j]);
    e->nkid = i + 1;
    return;
  }
}

static void finalize_control(tl_walk *w, tl_expr *e) {
  dce_ctx *c = w->ctx;
  uint32_t l = e->imm.block.label;
  tl_type bt = TL_UNREACHABLE;
  if (e->op != TL_OP_LOOP && l != TL_NO_LABEL && c->count[l]) bt = c->bt[l];
  tl_block_finalize(w->m, e, bt);
}

/* (op a b (unreachable) c) => (block (drop a) (drop b) (unreachable)) */
static void cut_at(tl_walk *w, tl_expr **slot, uint32_t i) {
  tl_expr *e = *slot;
  each_target(e, sub_target, w->ctx);
  for (uint32_t j = i + 1; j < e->nkid; j++) forget(w, e->kid[j]);
  if (i == 0) {
    *slot = e->kid[0];
    return;
  }
  tl_expr *blk = tl_expr_new(w->m, TL_OP_BLOCK, i + 1);
  for (uint32_t j = 0; j < i; j++) {
    tl_expr *k = e->kid[j];
    blk->kid[j] = tl_type_is_concrete(k->type) ? tl_make_drop(w->m, k) : k;
  }
  blk->kid[i] = e->kid[i];
  tl_block_finalize(w->m, blk, TL_UNREACHABLE);
  *slot = blk;
}

__attribute__((noinline)) static void dce_node(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (tl_ops[e->op].flags & TL_F_BRANCH) each_target(e, add_target, w->ctx);
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) {
    trim_list(w, e);
    finalize_control(w, e);
    return;
  }
  if (e->op == TL_OP_TRY || e->op == TL_OP_TRY_TABLE) {
    finalize_control(w, e);
    return;
  }
  if (e->op == TL_OP_CATCH || e->op == TL_OP_CATCH_ALL) {
    tl_expr_finalize(w->m, w->f, e);
    return;
  }
  if (e->op == TL_OP_IF) {
    if (e->kid[0]->type == TL_UNREACHABLE) {
      for (uint32_t j = 1; j < e->nkid; j++) forget(w, e->kid[j]);
      *slot = e->kid[0];
      return;
    }
    finalize_control(w, e);
    return;
  }
  for (uint32_t i = 0; i < e->nkid; i++) {
    if (e->kid[i] && e->kid[i]->type == TL_UNREACHABLE) {
      cut_at(w, slot, i);
      return;
    }
  }
  tl_expr_finalize(w->m, w->f, e);
}

/* A plain reachable leaf has nothing to do (and costs no dce_node frame). */
static void dce_visit(tl_walk *w, tl_expr **slot) {
  const tl_expr *e = *slot;
  if (e->nkid || (tl_ops[e->op].flags & (TL_F_CONTROL | TL_F_BRANCH)) || e->type == TL_UNREACHABLE)
    dce_node(w, slot);
}

tl_status tl_pass_dce(tl_pass_ctx *ctx, tl_func *f) {
  dce_ctx c = {tl_scratch_calloc((size_t)f->nlabel + 1, sizeof(uint32_t)),
               tl_scratch_realloc(NULL, (size_t)f->nlabel + 1, sizeof(tl_type)), ctx->m};
  if (!c.count || !c.bt) {
    tl_free(c.count);
    tl_free(c.bt);
    return tl_nomem(ctx->err, "dce");
  }
  for (uint32_t i = 0; i <= f->nlabel; i++) c.bt[i] = TL_UNREACHABLE;
  tl_walk_post(ctx->m, f, &f->body, dce_visit, &c);
  tl_free(c.count);
  tl_free(c.bt);
  return TL_OK;
}
