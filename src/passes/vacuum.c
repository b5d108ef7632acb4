/* vacuum.c — remove code that does nothing: nops, drops of pure values,
 * pure statements whose result is unused, empty blocks and ifs, ifs on
 * constant conditions, loops nothing branches back to; a dropped if with
 * a value drops in its arms when that leaves at most one drop.
 * Assumes: valid IR with up-to-date types.
 * Guarantees: every side effect (including traps and possible infinite
 * loops, see effects.c) is kept in its original order; types are
 * recomputed bottom-up in the same walk. Branches are counted per label as
 * the walk reaches them, before the construct they target, and are never
 * removed except together with their construct (or uncounted), so the
 * counts a construct sees are complete. Exception handling: try_table
 * clauses count as branches, delegate and rethrow keep the labels they
 * name; a try is retyped with the branches to its label; a catch arm that
 * stores its payload never runs unless its try's body throws, which is an
 * effect, so a body without effects takes its try with it. */
#include "passes.h"

#include <stdlib.h>

typedef struct {
  uint32_t *count; /* branches per label */
  uint32_t *live;  /* those whose operands are reachable: only they give the
                    * target its type (finalize.c ignores the others) */
  tl_type *bt;     /* what they carry */
  bool refinalize; /* code became unreachable: a branch in it may no
                    * longer count as one (see the end of tl_pass_vacuum) */
  const tl_module *m;
} vac_ctx;

/* Counts a branch. The walk visits every branch before the construct it
 * targets (it is inside it), so counting as the walk goes gives each
 * construct its complete counts when its turn comes. */
static void count_to(vac_ctx *c, uint32_t l, tl_type t) {
  c->count[l]++;
  if (t != TL_UNREACHABLE) c->live[l]++;
  c->bt[l] = tl_type_lub(c->m, c->bt[l], t);
}

static void count_branch(vac_ctx *c, tl_expr *e) {
  if (tl_ops[e->op].flags & TL_F_LABEL_USE) c->count[e->imm.label]++; /* delegate, rethrow: the label stays, untyped */
  else if (e->op != TL_OP_BR_TABLE) count_to(c, e->imm.label, tl_branch_value_type(e)); /* br, br_if, clauses */
  else
    for (uint32_t i = 0; i <= e->imm.table->n; i++)
      count_to(c, i < e->imm.table->n ? e->imm.table->targets[i] : e->imm.table->def, tl_branch_value_type(e));
}

/* e->aux holds "has effects", computed bottom-up as the walk visits each
 * node (children first), so asking is O(1) and the pass stays linear even
 * 100,000 blocks deep. Any branch counts as an effect (conservative). */
enum { HAS_EFFECTS = 1 };
static const uint32_t own_effects = TL_F_WRITES_MEM | TL_F_WRITES_TABLE | TL_F_WRITES_LOCAL |
                                    TL_F_WRITES_GLOBAL | TL_F_CALL | TL_F_TRAPS | TL_F_NORETURN |
                                    TL_F_ATOMIC | TL_F_BRANCH;

static tl_expr *mark(tl_expr *e) {
  bool fx = (tl_ops[e->op].flags & own_effects) || e->op == TL_OP_RETURN ||
            (e->op == TL_OP_LOOP && e->imm.block.label != TL_NO_LABEL);
  for (uint32_t i = 0; i < e->nkid && !fx; i++) fx = e->kid[i] && (e->kid[i]->aux & HAS_EFFECTS);
  e->aux = fx ? HAS_EFFECTS : 0;
  return e;
}

static bool removable(tl_walk *w, tl_expr *e) {
  (void)w;
  return !(e->aux & HAS_EFFECTS);
}

/* Undoes count_branch for one target: the count and, if the branch's
 * value is reachable, the live count (a br_table once lowered only the
 * count, so its target kept a type from code that was gone: fuzz opt seed
 * 1005300894, test/lit/vacuum/dead-br-table-live-count.wat). */
static void uncount(vac_ctx *c, uint32_t l, const tl_expr *e) {
  c->count[l]--;
  if (tl_branch_value_type(e) != TL_UNREACHABLE && c->live[l]) c->live[l]--;
}

static void uncount_visit(tl_walk *w, tl_expr **slot) {
  vac_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (tl_ops[e->op].flags & TL_F_LABEL_USE) c->count[e->imm.label]--;
  else if (!(tl_ops[e->op].flags & TL_F_BRANCH)) return;
  else if (e->op != TL_OP_BR_TABLE) uncount(c, e->imm.label, e);
  else
    for (uint32_t i = 0; i <= e->imm.table->n; i++)
      uncount(c, i < e->imm.table->n ? e->imm.table->targets[i] : e->imm.table->def, e);
}

/* An arm is thrown away: branches in it no longer count. */
static void forget(tl_walk *w, tl_expr *e) {
  if (e) tl_walk_post(w->m, w->f, &e, uncount_visit, w->ctx);
}

static bool is_nop(const tl_expr *e) {
  return e->op == TL_OP_NOP ||
         (e->op == TL_OP_BLOCK && e->nkid == 0 && e->imm.block.label == TL_NO_LABEL);
}

/* A label counts only if something branches to it. */
static bool has_label_in(const vac_ctx *c, const tl_expr *e) {
  return e->imm.block.label != TL_NO_LABEL && c->count[e->imm.block.label];
}
#define has_label(e) has_label_in(w->ctx, (e))

static void finalize_control(tl_walk *w, tl_expr *e) {
  vac_ctx *c = w->ctx;
  uint32_t l = e->imm.block.label;
  tl_type bt = TL_UNREACHABLE;
  if (e->op != TL_OP_LOOP && l != TL_NO_LABEL && c->live[l]) bt = c->bt[l];
  tl_block_finalize(w->m, e, bt);
}

/* Keep the kids that do something; the last kid stays if it is the value. */
static void sweep_list(tl_walk *w, tl_expr *e) {
  uint32_t out = 0;
  for (uint32_t i = 0; i < e->nkid; i++) {
    tl_expr *k = e->kid[i];
    bool last = i + 1 == e->nkid;
    bool unused = k->type == TL_NONE && (!last || e->type == TL_NONE || e->type == TL_UNREACHABLE);
    if (unused && (is_nop(k) || removable(w, k))) continue;
    e->kid[out++] = k;
  }
  e->nkid = out;
}

/* drop(x) where x's own op has no effects: keep only its effectful operands. */
static tl_expr *drop_effects(tl_walk *w, tl_expr *x) {
  if (removable(w, x)) return mark(tl_make_nop(w->m));
  if (x->op == TL_OP_LOCAL_TEE) {
    x->op = TL_OP_LOCAL_SET;
    tl_expr_finalize(w->m, w->f, x);
    return x;
  }
  if ((tl_ops[x->op].flags & (own_effects | TL_F_CONTROL)) || x->op == TL_OP_RETURN ||
      x->op == TL_OP_TUPLE_MAKE || x->nkid == 0)
    return NULL;
  tl_expr *blk = tl_expr_new(w->m, TL_OP_BLOCK, 0);
  for (uint32_t i = 0; i < x->nkid; i++)
    if (!removable(w, x->kid[i])) tl_expr_push_kid(w->m, blk, mark(tl_make_drop(w->m, x->kid[i])));
  if (blk->nkid == 1) return blk->kid[0];
  tl_block_finalize(w->m, blk, TL_UNREACHABLE);
  return mark(blk);
}

static tl_expr *wrap_labeled(tl_walk *w, tl_expr *e, tl_expr *arm) {
  if (!has_label(e)) return arm;
  tl_expr *blk = tl_expr_new(w->m, TL_OP_BLOCK, 1);
  blk->kid[0] = arm;
  blk->imm.block.label = e->imm.block.label;
  finalize_control(w, blk);
  return mark(blk);
}

static void visit_if(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->nkid == 3 && is_nop(e->kid[2])) e->nkid = 2;
  tl_expr *cond = e->kid[0];
  if (cond->op == TL_OP_I32_CONST && (cond->imm.i32 || e->nkid == 3)) {
    if (e->nkid == 3) forget(w, e->kid[cond->imm.i32 ? 2 : 1]);
    if (e->kid[cond->imm.i32 ? 1 : 2]->type == TL_UNREACHABLE) ((vac_ctx *)w->ctx)->refinalize = true;
    *slot = wrap_labeled(w, e, e->kid[cond->imm.i32 ? 1 : 2]);
    return;
  }
  if (cond->op == TL_OP_I32_CONST) {
    forget(w, e->kid[1]);
    *slot = tl_make_nop(w->m);
    return;
  }
  if (e->nkid == 2 && is_nop(e->kid[1]) && !has_label(e)) {
    tl_expr *r = drop_effects(w, cond);
    *slot = r ? r : mark(tl_make_drop(w->m, cond));
    return;
  }
  finalize_control(w, e);
}

/* drop(if (result t) C A B) => (if C (drop A) (drop B)) when the drops
 * then mostly vanish (a pure value, a tee, an arm that never falls
 * through): at most one drop may stay, so it is never larger. An arm that
 * is a list drops its last value; a value-carrying label blocks it. */
static bool open_list(tl_walk *w, const tl_expr *a) {
  return a->op == TL_OP_BLOCK && a->nkid && !has_label(a);
}

static tl_expr **arm_value(tl_walk *w, tl_expr **arm) {
  while (open_list(w, *arm)) arm = &(*arm)->kid[(*arm)->nkid - 1];
  return (tl_ops[(*arm)->op].flags & TL_F_CONTROL) && has_label(*arm) ? NULL : arm;
}

/* A last item with no value (unreachable, or none after an unreachable
 * earlier in its list) needs no drop. */
static int drop_cost(tl_walk *w, tl_expr *v) {
  return !(!tl_type_is_concrete(v->type) || removable(w, v) || v->op == TL_OP_LOCAL_TEE);
}

/* The arm with its value dropped; lists on the way are swept and retyped
 * innermost first (an explicit stack: lists may nest deeply). */
static tl_expr *sink_drop(tl_walk *w, tl_expr *arm) {
  tl_vec lists = {0};   /* tl_expr *: the open lists from arm inwards */
  tl_expr *v = arm;
  while (open_list(w, v)) {
    TL_VEC_PUSH(&lists, tl_expr *, v);
    v = v->kid[v->nkid - 1];
  }
  tl_expr *r = v;
  if (tl_type_is_concrete(v->type)) {
    r = drop_effects(w, v);
    if (!r) r = mark(tl_make_drop(w->m, v));
  }
  while (lists.n) {
    tl_expr *b = TL_VEC_AT(&lists, tl_expr *, --lists.n);
    b->kid[b->nkid - 1] = r;
    b->type = TL_NONE;   /* its value is gone: a nop at its end can go too */
    sweep_list(w, b);
    finalize_control(w, b);
    r = mark(b->nkid ? b : tl_make_nop(w->m));
  }
  tl_vec_free(&lists);
  return r;
}

static tl_expr *drop_into_arms(tl_walk *w, tl_expr *iff) {
  if (iff->op != TL_OP_IF || iff->nkid != 3 || has_label(iff) || !tl_type_is_concrete(iff->type) ||
      tl_type_is_tuple(iff->type))
    return NULL;
  tl_expr **a = arm_value(w, &iff->kid[1]), **b = arm_value(w, &iff->kid[2]);
  if (!a || !b || drop_cost(w, *a) + drop_cost(w, *b) > 1) return NULL;
  for (int k = 1; k <= 2; k++) iff->kid[k] = sink_drop(w, iff->kid[k]);
  if (is_nop(iff->kid[1]) && !is_nop(iff->kid[2])) { /* (if C (then) (else B)) => (if !C (then B)) */
    tl_expr *c = iff->kid[0];
    iff->kid[0] = mark(c->op == TL_OP_I32_EQZ ? c->kid[0] : tl_make_unary(w->m, TL_OP_I32_EQZ, c));
    iff->kid[1] = iff->kid[2];
    iff->nkid = 2;
  }
  return iff;
}

static void vac_node(tl_walk *w, tl_expr **slot);

/* A node vacuum does not rewrite keeps its type unless an operand became
 * unreachable: kids are only ever replaced by nodes of their own type or by
 * unreachable ones (the common case costs no tl_expr_finalize). */
static void retype(tl_walk *w, tl_expr *e) {
  bool unreachable_kid = false;
  for (uint32_t i = 0; i < e->nkid && !unreachable_kid; i++)
    unreachable_kid = e->kid[i] && e->kid[i]->type == TL_UNREACHABLE;
  if (unreachable_kid || e->type == TL_UNREACHABLE) tl_expr_finalize(w->m, w->f, e);
}

/* Out of line, so that the common plain node costs vac_visit no big frame. */
__attribute__((noinline)) static void vac_full(tl_walk *w, tl_expr **slot) {
  tl_type before = (*slot)->type;
  if (tl_ops[(*slot)->op].flags & (TL_F_BRANCH | TL_F_LABEL_USE)) count_branch(w->ctx, *slot);
  vac_node(w, slot);
  /* a branch whose operand became unreachable no longer gives its target a
   * type, which the live counts still say it does (fuzz: a stale f32 body
   * above a br_if on an if whose arms all became unreachable) */
  if ((*slot)->type == TL_UNREACHABLE && before != TL_UNREACHABLE) ((vac_ctx *)w->ctx)->refinalize = true;
  mark(*slot);
}

static void vac_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if ((tl_ops[e->op].flags & (TL_F_CONTROL | TL_F_BRANCH | TL_F_LABEL_USE)) || e->op == TL_OP_DROP) {
    vac_full(w, slot);
    return;
  }
  /* a plain node (vac_node's default): only retyped (see retype) and
   * marked (see mark), both from one look at its kids */
  bool unreachable_kid = false, fx = (tl_ops[e->op].flags & own_effects) || e->op == TL_OP_RETURN;
  for (uint32_t i = 0; i < e->nkid; i++) {
    const tl_expr *k = e->kid[i];
    if (!k) continue;
    unreachable_kid |= k->type == TL_UNREACHABLE;
    fx |= k->aux & HAS_EFFECTS;
  }
  if (unreachable_kid || e->type == TL_UNREACHABLE) {
    tl_type before = e->type;
    tl_expr_finalize(w->m, w->f, e);
    if (e->type == TL_UNREACHABLE && before != TL_UNREACHABLE) ((vac_ctx *)w->ctx)->refinalize = true;
  }
  e->aux = fx ? HAS_EFFECTS : 0;
}

static void vac_node(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if ((tl_ops[e->op].flags & TL_F_CONTROL) && !has_label(e)) e->imm.block.label = TL_NO_LABEL;
  bool root = slot == &w->f->body;
  switch (e->op) {
  case TL_OP_BLOCK:
    sweep_list(w, e);
    finalize_control(w, e);
    if (!root && !has_label(e) && e->nkid == 1 && e->kid[0]->type == e->type) *slot = e->kid[0];
    else if (!root && !has_label(e) && e->nkid == 0) *slot = tl_make_nop(w->m);
    return;
  case TL_OP_LOOP:
    sweep_list(w, e);
    finalize_control(w, e);
    if (!has_label(e) || !((vac_ctx *)w->ctx)->count[e->imm.block.label]) {
      e->op = TL_OP_BLOCK;
      e->imm.block.label = TL_NO_LABEL;
      finalize_control(w, e);
      if (e->nkid == 1 && e->kid[0]->type == e->type) *slot = e->kid[0];
      else if (e->nkid == 0) *slot = tl_make_nop(w->m);
    }
    return;
  case TL_OP_IF: visit_if(w, slot); return;
  case TL_OP_TRY:
  case TL_OP_TRY_TABLE:
    /* a body that cannot throw (throwing is an effect) never reaches the
     * arms or clauses; it cannot branch to the try's label either */
    if (!(e->kid[0]->aux & HAS_EFFECTS) && e->kid[0]->type == e->type) {
      for (uint32_t i = 1; i < e->nkid; i++) forget(w, e->kid[i]);
      *slot = e->kid[0];
      return;
    }
    finalize_control(w, e);
    return;
  case TL_OP_DROP: {
    tl_expr *r = drop_into_arms(w, e->kid[0]);
    if (r) {
      *slot = r;
      visit_if(w, slot);
      return;
    }
    r = drop_effects(w, e->kid[0]);
    if (r) *slot = r;
    else tl_expr_finalize(w->m, w->f, e);
    return;
  }
  default: retype(w, e); return;
  }
}

tl_status tl_pass_vacuum(tl_pass_ctx *ctx, tl_func *f) {
  vac_ctx c = {tl_scratch_calloc((size_t)f->nlabel + 1, sizeof(uint32_t)),
               tl_scratch_calloc((size_t)f->nlabel + 1, sizeof(uint32_t)),
               tl_scratch_realloc(NULL, (size_t)f->nlabel + 1, sizeof(tl_type)), false, ctx->m};
  if (!c.count || !c.live || !c.bt) {
    tl_free(c.count);
    tl_free(c.live);
    tl_free(c.bt);
    return tl_nomem(ctx->err, "vacuum");
  }
  for (uint32_t i = 0; i <= f->nlabel; i++) c.bt[i] = TL_UNREACHABLE;
  tl_walk_post(ctx->m, f, &f->body, vac_visit, &c);
  /* An if on a constant whose kept arm is unreachable makes its parents
   * unreachable: branches there (br_table 0 (unreachable arm)) no longer
   * count for their targets' types, which the counts above still include. */
  if (c.refinalize) tl_func_refinalize(ctx->m, f);
  tl_free(c.count);
  tl_free(c.live);
  tl_free(c.bt);
  return TL_OK;
}
