/* remove_unused_brs.c — branch simplification and jump threading.
 * - A br at the end of a block's list to that block goes away (its value,
 *   if any, falls off the end instead); value-less branches anywhere in
 *   tail position of their target (through ifs and loops) too.
 * - (if C (br $l)) with no else and no value becomes (br_if $l C).
 * - Jump threading: when a block $a is followed in its parent list by an
 *   unconditional value-less (br $c), every branch to $a goes straight to $c.
 * - (if (result t) C A B) with cheap pure arms becomes (select A B C).
 * - A return at the very end of the function becomes the value it returns.
 * - In a list, an if whose then-arm never falls through loses its else:
 *   the else-arm's code follows the if instead.
 * - A value-less block that starts with a br_if to itself becomes an if on
 *   the negated condition around the rest.
 * - (if C (br $l V)) with a cheap pure V becomes (drop (br_if $l V C)); a
 *   valued block that starts with that becomes (if C V REST) or a select.
 * - A loop ending a value-less block $out: a (br_if $out C) at its start
 *   becomes an if around the rest, and (br_if $out C) (br $in) at its end
 *   becomes (br_if $in (i32.eqz C)).
 * - (local.set x (if C (local.get x) A)) sets x in A's arm only; an arm
 *   that is a plain br becomes a br_if before the set.
 * - A br_if on a constant condition becomes a br, or its value / nothing;
 *   a drop of a br is the br.
 * - When shrinking, adjacent value-less br_ifs to one label share one
 *   br_if on the i32.or of their conditions (the second has no effects).
 * - (if A (then (if B X))) and (if A (then (br_if $l B))), no elses, with a
 *   cheap B free of effects, test (select A (i32.const 0) B) once: B now
 *   runs whatever A is (optimize-instructions makes two booleans an and).
 * Repeats until nothing changes. Assumes valid IR; guarantees the same
 * behaviour, with types recomputed (tl_func_refinalize) after a round whose
 * rewrites could change a type beyond the nodes they built. */
#include "passes.h"

#include <stdlib.h>

typedef struct {
  uint32_t *map;  /* label -> label its branches should go to */
  bool changed;
  bool retype;    /* a change that can alter a type outside the node rewritten */
  bool shrink;    /* shrink level >= 1 (-Os, -Oz, lone passes) */
  uint32_t shrink_level;
  bool stale;     /* dead code cut since the last refinalize */
  tl_label_info li; /* counted by the walk: a label's is complete at its construct */
  tl_expr **blocks; /* the labeled blocks some branch targets (for the tail strip) */
  size_t nblock, cap;
  bool lost;      /* out of memory growing blocks: strip by a walk */
  bool oom;       /* out of memory in a walk: no more rounds */
} brs_ctx;

static bool is_plain_br(const tl_expr *e) { return e->op == TL_OP_BR && e->nkid == 0; }

static void drop_final_br(brs_ctx *c, tl_expr *e) {
  if (e->op != TL_OP_BLOCK || e->imm.block.label == TL_NO_LABEL || !e->nkid) return;
  for (uint32_t i = 0; i + 1 < e->nkid; i++) /* nothing after an unreachable kid runs */
    if (e->kid[i]->type == TL_UNREACHABLE) e->nkid = i + 1, c->stale = true;
  tl_expr *last = e->kid[e->nkid - 1];
  if (last->op != TL_OP_BR || last->imm.label != e->imm.block.label) return;
  if (last->nkid) e->kid[e->nkid - 1] = last->kid[0];
  else e->nkid--;
  c->changed = c->retype = true;
}

static void thread_list(brs_ctx *c, tl_expr *e) {
  if (e->op != TL_OP_BLOCK && e->op != TL_OP_LOOP) return;
  for (uint32_t i = 0; i + 1 < e->nkid; i++) {
    tl_expr *a = e->kid[i], *next = e->kid[i + 1];
    if (a->op != TL_OP_BLOCK || a->imm.block.label == TL_NO_LABEL || a->type != TL_NONE) continue;
    if (!is_plain_br(next) || next->imm.label == a->imm.block.label) continue;
    if (c->map[a->imm.block.label] == next->imm.label || !c->li.count[a->imm.block.label]) continue;
    c->map[a->imm.block.label] = next->imm.label;
    c->changed = c->retype = true;
  }
}

/* When shrinking: (br_if $l A) (br_if $l B) with a B that may run anyway
 * (no effects, no trap) is (br_if $l (i32.or A B)): a byte less each. Not
 * when B is a bare local.get (the stack often carries that value to the
 * br_if, its set and get going away when written), nor for an (i32.eqz X)
 * A that starts $l's own list (it becomes (if X ...) without the eqz). */
static void merge_br_ifs(tl_walk *w, brs_ctx *c, tl_expr *e) {
  if (!c->shrink || (e->op != TL_OP_BLOCK && e->op != TL_OP_LOOP)) return;
  uint32_t out = 0;
  for (uint32_t i = 0; i < e->nkid; i++) {
    tl_expr *k = e->kid[i], *p = out ? e->kid[out - 1] : NULL;
    if (p && p->op == TL_OP_BR_IF && k->op == TL_OP_BR_IF && p->nkid == 1 && k->nkid == 1 &&
        p->type == TL_NONE && k->type == TL_NONE && p->imm.label == k->imm.label &&
        k->kid[0]->op != TL_OP_LOCAL_GET &&
        !(out == 1 && p->kid[0]->op == TL_OP_I32_EQZ && p->imm.label == e->imm.block.label)) {
      tl_effects fx;
      tl_effects_of(w->m, w->f, k->kid[0], &fx);
      if (tl_effects_removable(&fx)) {
        p->kid[0] = tl_make_binary(w->m, TL_OP_I32_OR, p->kid[0], k->kid[0]);
        c->li.count[k->imm.label]--;
        c->changed = true;
        continue;
      }
    }
    e->kid[out++] = k;
  }
  e->nkid = out;
}

static bool cheap_pure(const tl_expr *e) {
  return e->op == TL_OP_I32_CONST || e->op == TL_OP_I64_CONST || e->op == TL_OP_F32_CONST ||
         e->op == TL_OP_F64_CONST || e->op == TL_OP_LOCAL_GET;
}

/* The arm itself, or the one element of an unlabeled block arm. */
static tl_expr *only(tl_expr *arm) {
  while (arm->op == TL_OP_BLOCK && arm->imm.block.label == TL_NO_LABEL && arm->nkid == 1) arm = arm->kid[0];
  return arm;
}

static bool empty(const tl_expr *e) {
  return e->op == TL_OP_NOP || (e->op == TL_OP_BLOCK && e->imm.block.label == TL_NO_LABEL && !e->nkid);
}

/* Does cond (maybe) write the local arm reads? A select evaluates its arms
 * before its condition, an if the other way round. Bounded explicit-stack
 * scan; past the budget the answer is yes. */
static bool cond_writes_arm(const tl_expr *cond, const tl_expr *arm) {
  if (arm->op != TL_OP_LOCAL_GET) return false;
  enum { BUDGET = 64 };
  const tl_expr *st[BUDGET];
  uint32_t n = 0, seen = 0;
  st[n++] = cond;
  while (n) {
    const tl_expr *x = st[--n];
    if (++seen > BUDGET) return true;
    if ((x->op == TL_OP_LOCAL_SET || x->op == TL_OP_LOCAL_TEE) && x->imm.index == arm->imm.index) return true;
    for (uint32_t i = 0; i < x->nkid; i++) {
      if (!x->kid[i]) continue;
      if (n == BUDGET) return true;
      st[n++] = x->kid[i];
    }
  }
  return false;
}

/* (if C (br $l V)) => (drop (br_if $l V C)): V is evaluated first now, so
 * it must be cheap, pure and not written by C. Two bytes smaller. */
static tl_expr *value_br_if(tl_walk *w, brs_ctx *c, tl_expr *cond, tl_expr *br) {
  tl_expr *bi = tl_expr_new(w->m, TL_OP_BR_IF, 2);
  bi->imm.label = br->imm.label;
  bi->kid[0] = br->kid[0];
  bi->kid[1] = cond;
  tl_expr_finalize(w->m, w->f, bi);
  c->changed = true;
  return tl_make_drop(w->m, bi);
}

/* What running e costs, roughly as Binaryen's CostAnalyzer counts: leaves
 * nothing, most operators 1, divisions, loads and field reads a bit more,
 * casts 5; calls, atomics and throws `cap` (never run unconditionally).
 * Bounded explicit-stack scan; past the budget, cap. */
static uint32_t run_cost(const tl_expr *e, uint32_t cap) {
  enum { BUDGET = 32 };
  const tl_expr *st[BUDGET];
  uint32_t n = 0, seen = 0, cost = 0;
  st[n++] = e;
  while (n && cost < cap) {
    const tl_expr *x = st[--n];
    uint32_t fl = tl_ops[x->op].flags;
    if (++seen > BUDGET || (fl & (TL_F_CALL | TL_F_ATOMIC | TL_F_THROWS | TL_F_CONTROL | TL_F_BRANCH)))
      return cap;
    if (x->nkid) cost += 1;
    if (fl & (TL_F_READS_MEM | TL_F_GC_READ | TL_F_READS_TABLE)) cost += 1;
    if (tl_ops[x->op].imm == TL_IMM_CAST || x->op == TL_OP_REF_CAST || x->op == TL_OP_REF_CAST_NULL)
      cost += 4;
    switch (x->op) {
    case TL_OP_I32_DIV_S: case TL_OP_I32_DIV_U: case TL_OP_I32_REM_S: case TL_OP_I32_REM_U:
    case TL_OP_I64_DIV_S: case TL_OP_I64_DIV_U: case TL_OP_I64_REM_S: case TL_OP_I64_REM_U:
    case TL_OP_F32_DIV: case TL_OP_F64_DIV: case TL_OP_F32_SQRT: case TL_OP_F64_SQRT:
      cost += 2;
      break;
    default: break;
    }
    for (uint32_t i = 0; i < x->nkid; i++) {
      if (!x->kid[i]) continue;
      if (n == BUDGET) return cap;
      st[n++] = x->kid[i];
    }
  }
  return cost < cap ? cost : cap;
}

/* Whether b may run where it ran only when another condition held: no
 * effects (reads are fine) and cheap enough for the shrink level
 * (Binaryen's tooCostlyToRunUnconditionally: speed 4, -Os below 8, -Oz
 * anything). */
static bool may_run_always(tl_walk *w, brs_ctx *c, tl_expr *b) {
  if (c->shrink_level < 2) {
    uint32_t limit = c->shrink_level == 0 ? 5 : 8;
    if (run_cost(b, limit) >= limit) return false;
  }
  tl_effects fx;
  tl_effects_of(w->m, w->f, b, &fx);
  return tl_effects_removable(&fx) && !fx.unreachable;
}

/* (select A (i32.const 0) B): B ? A : 0, evaluated A then B. */
static tl_expr *both_hold(tl_walk *w, tl_expr *a, tl_expr *b) {
  return tl_make_select(w->m, w->f, a, tl_make_const_i32(w->m, 0), b, TL_I32);
}

/* (if A (then (if B X))) => (if (select A 0 B) X); (if A (then (br_if $l
 * B))) => (br_if $l (select A 0 B)). Neither if has an else; the inner
 * if's label is unused. */
static tl_expr *merge_conditions(tl_walk *w, brs_ctx *c, tl_expr *e) {
  if (e->nkid != 2 || e->kid[0]->type != TL_I32) return e;
  tl_expr *in = only(e->kid[1]);
  if (in->op == TL_OP_IF && in->nkid == 2 && in->kid[0]->type == TL_I32 &&
      (in->imm.block.label == TL_NO_LABEL || !c->li.count[in->imm.block.label]) &&
      may_run_always(w, c, in->kid[0])) {
    e->kid[0] = both_hold(w, e->kid[0], in->kid[0]);
    e->kid[1] = in->kid[1];
    tl_expr_finalize(w->m, w->f, e);
    c->changed = true;
    return e;
  }
  if (in->op == TL_OP_BR_IF && in->nkid == 1 && in->kid[0]->type == TL_I32 && e->type == TL_NONE &&
      may_run_always(w, c, in->kid[0])) {
    in->kid[0] = both_hold(w, e->kid[0], in->kid[0]);
    tl_expr_finalize(w->m, w->f, in);
    c->changed = true;
    return in;
  }
  return e;
}

static tl_expr *simplify_if(tl_walk *w, brs_ctx *c, tl_expr *e) {
  if (e->op != TL_OP_IF) return e;
  if (e->imm.block.label != TL_NO_LABEL && c->li.count[e->imm.block.label]) return e;
  if (e->nkid == 3 && empty(e->kid[2]) && e->type == TL_NONE) e->nkid = 2;
  if (e->nkid == 2) {
    e = merge_conditions(w, c, e);
    if (e->op != TL_OP_IF) return e;
  }
  if (e->nkid == 2 && is_plain_br(only(e->kid[1])) && e->kid[0]->type == TL_I32) {
    tl_expr *br = tl_expr_new(w->m, TL_OP_BR_IF, 1);
    br->imm.label = only(e->kid[1])->imm.label;
    br->kid[0] = e->kid[0];
    tl_expr_finalize(w->m, w->f, br);
    c->changed = true;
    return br;
  }
  if (e->nkid == 2 && e->kid[0]->type == TL_I32) {
    tl_expr *b = only(e->kid[1]);
    if (b->op == TL_OP_BR && b->nkid == 1 && tl_type_is_concrete(b->kid[0]->type) &&
        cheap_pure(b->kid[0]) && !cond_writes_arm(e->kid[0], b->kid[0]))
      return value_br_if(w, c, e->kid[0], b);
  }
  if (e->nkid == 3 && tl_type_is_concrete(e->type) && !tl_type_is_tuple(e->type) &&
      cheap_pure(e->kid[1]) && cheap_pure(e->kid[2]) && e->kid[1]->type == e->type &&
      e->kid[2]->type == e->type && !cond_writes_arm(e->kid[0], e->kid[1]) &&
      !cond_writes_arm(e->kid[0], e->kid[2])) {
    c->changed = true;
    return tl_make_select(w->m, w->f, e->kid[1], e->kid[2], e->kid[0], e->type);
  }
  return e;
}

/* In a list, (if C (then A) (else B)) where A never falls through becomes
 * (if C (then A)) B: less nesting, and B's tail is the list's tail again. */
static bool unnest_ok(brs_ctx *c, const tl_expr *k) {
  return k->op == TL_OP_IF && k->nkid == 3 && k->kid[1]->type == TL_UNREACHABLE &&
         (k->imm.block.label == TL_NO_LABEL || !c->li.count[k->imm.block.label]);
}

static void unnest_ifs(tl_walk *w, brs_ctx *c, tl_expr *e) {
  if (e->op != TL_OP_BLOCK && e->op != TL_OP_LOOP) return;
  uint32_t total = 0;
  bool any = false;
  for (uint32_t i = 0; i < e->nkid; i++) {
    tl_expr *k = e->kid[i], *b = unnest_ok(c, k) ? k->kid[2] : NULL;
    any |= b != NULL;
    total += 1 + (!b ? 0 : b->op == TL_OP_BLOCK && b->imm.block.label == TL_NO_LABEL ? b->nkid : 1);
  }
  if (!any) return;
  tl_expr **kid = TL_NEWN(&w->m->arena, tl_expr *, total);
  uint32_t n = 0;
  for (uint32_t i = 0; i < e->nkid; i++) {
    tl_expr *k = e->kid[i];
    kid[n++] = k;
    if (!unnest_ok(c, k)) continue;
    tl_expr *b = k->kid[2];
    k->nkid = 2;
    k->imm.block.label = TL_NO_LABEL;
    tl_expr_finalize(w->m, w->f, k);
    if (b->op == TL_OP_BLOCK && b->imm.block.label == TL_NO_LABEL)
      for (uint32_t j = 0; j < b->nkid; j++) kid[n++] = b->kid[j];
    else
      kid[n++] = b;
  }
  e->kid = kid;
  e->nkid = n, e->kcap = 0;
  c->changed = c->retype = true;
}

/* No branch anywhere in e (bounded scan: past the budget, assume one). */
static bool branch_free(const tl_expr *e) {
  enum { BUDGET = 64 };
  const tl_expr *st[BUDGET];
  uint32_t n = 0, seen = 0;
  st[n++] = e;
  while (n) {
    const tl_expr *x = st[--n];
    if (++seen > BUDGET || (tl_ops[x->op].flags & TL_F_BRANCH)) return false;
    for (uint32_t i = 0; i < x->nkid; i++) {
      if (!x->kid[i]) continue;
      if (n == BUDGET) return false;
      st[n++] = x->kid[i];
    }
  }
  return true;
}

/* (block $l (br_if $l C) REST...) with no value becomes
 * (if $l (i32.eqz C) (then REST...)): branches in REST to $l leave the if
 * as they left the block; one byte smaller, and optimize-instructions
 * usually folds the eqz into C. */
static tl_expr *block_to_if(tl_walk *w, brs_ctx *c, tl_expr **slot) {
  tl_expr *e = *slot, *b = e->nkid ? e->kid[0] : NULL;
  uint32_t l = e->imm.block.label;
  if (e->op != TL_OP_BLOCK || l == TL_NO_LABEL || e->type != TL_NONE || e->nkid < 2 ||
      slot == &w->f->body || c->map[l] != l || b->op != TL_OP_BR_IF || b->nkid != 1 ||
      b->imm.label != l || b->kid[0]->type != TL_I32 || !branch_free(b->kid[0]))
    return e; /* C is outside the if's label: no branches to $l there */
  tl_expr *cond = b->kid[0];
  cond = cond->op == TL_OP_I32_EQZ ? cond->kid[0] : tl_make_unary(w->m, TL_OP_I32_EQZ, cond);
  tl_expr *then = e->nkid == 2 ? e->kid[1] : tl_make_block(w->m, TL_OP_BLOCK, TL_NO_LABEL, e->kid + 1, e->nkid - 1);
  tl_expr *r = tl_expr_new(w->m, TL_OP_IF, 2);
  r->kid[0] = cond;
  r->kid[1] = then;
  r->imm.block.label = l;
  r->imm.block.bt = TL_NO_INDEX;
  c->li.count[l]--;
  tl_block_finalize(w->m, r, c->li.count[l] ? c->li.type[l] : TL_UNREACHABLE);
  c->changed = true;
  return r;
}

/* The first instruction of a block list, if it is (drop (br_if $l V C))
 * with a cheap pure V that C does not write. */
static tl_expr *leading_value_br_if(const tl_expr *e, uint32_t l) {
  tl_expr *d = e->kid[0], *b = d->op == TL_OP_DROP ? d->kid[0] : NULL;
  if (!b || b->op != TL_OP_BR_IF || b->nkid != 2 || b->imm.label != l || b->type != e->type ||
      b->kid[1]->type != TL_I32 || !cheap_pure(b->kid[0]) || cond_writes_arm(b->kid[1], b->kid[0]) ||
      !branch_free(b->kid[1]))
    return NULL;
  return b;
}

/* (block $l (result T) (drop (br_if $l V C)) REST...) becomes
 * (if $l (result T) C (then V) (else REST...)), or (select V R C) when
 * REST is one cheap pure R. The function body stays a block around it. */
static tl_expr *value_block_to_if(tl_walk *w, brs_ctx *c, tl_expr **slot) {
  tl_expr *e = *slot, *b;
  uint32_t l = e->imm.block.label;
  if (e->op != TL_OP_BLOCK || l == TL_NO_LABEL || e->nkid < 2 || !tl_type_is_concrete(e->type) ||
      tl_type_is_tuple(e->type) || c->map[l] != l || !(b = leading_value_br_if(e, l)))
    return e;
  bool body = slot == &w->f->body;
  tl_expr *rest = e->nkid == 2 ? e->kid[1] : tl_make_block(w->m, TL_OP_BLOCK, TL_NO_LABEL, e->kid + 1, e->nkid - 1);
  tl_expr *r;
  c->li.count[l]--;
  if (e->nkid == 2 && cheap_pure(rest) && rest->type == e->type && !cond_writes_arm(b->kid[1], rest)) {
    r = tl_make_select(w->m, w->f, b->kid[0], rest, b->kid[1], e->type);
    if (!body && !c->li.count[l]) e = r; /* else keep the block for its label */
  } else {
    r = tl_expr_new(w->m, TL_OP_IF, 3);
    r->kid[0] = b->kid[1];
    r->kid[1] = b->kid[0];
    r->kid[2] = rest;
    r->imm.block.label = body ? TL_NO_LABEL : l;
    r->imm.block.bt = TL_NO_INDEX;
    tl_block_finalize(w->m, r, body || !c->li.count[l] ? TL_UNREACHABLE : c->li.type[l]);
    if (!body) e = r;
  }
  if (e != r) {
    e->kid[0] = r;
    e->nkid = 1;
    tl_block_finalize(w->m, e, c->li.count[l] ? c->li.type[l] : TL_UNREACHABLE);
  }
  c->changed = true;
  return e;
}

/* A value-less block $out whose list ends in a loop $in: falling off the
 * loop's end is branching to $out. So a loop that starts with the only
 * (br_if $out C) becomes (loop $in (if (i32.eqz C) (then REST...))), and
 * one that ends in (br_if $out C) (br $in) ends in (br_if $in (i32.eqz C)):
 * a while/do-while shape with no block around it, 2-3 bytes smaller. */
static tl_expr *negate(tl_module *m, tl_expr *cond) {
  return cond->op == TL_OP_I32_EQZ ? cond->kid[0] : tl_make_unary(m, TL_OP_I32_EQZ, cond);
}

static bool exit_br_if(const tl_expr *e, uint32_t l) {
  return e->op == TL_OP_BR_IF && e->nkid == 1 && e->imm.label == l && e->kid[0]->type == TL_I32;
}

static void loop_exits(tl_walk *w, brs_ctx *c, tl_expr *e) {
  uint32_t l = e->imm.block.label;
  if (e->op != TL_OP_BLOCK || l == TL_NO_LABEL || e->type != TL_NONE || !e->nkid || c->map[l] != l) return;
  tl_expr *lp = e->kid[e->nkid - 1];
  if (lp->op != TL_OP_LOOP || lp->nkid < 2 || (lp->type != TL_NONE && lp->type != TL_UNREACHABLE)) return;
  uint32_t n = lp->nkid, in = lp->imm.block.label;
  if (exit_br_if(lp->kid[0], l) && c->li.count[l] == 1) { /* $out goes away: else larger */
    tl_expr *rest = n == 2 ? lp->kid[1] : tl_make_block(w->m, TL_OP_BLOCK, TL_NO_LABEL, lp->kid + 1, n - 1);
    tl_expr *r = tl_expr_new(w->m, TL_OP_IF, 2);
    r->kid[0] = negate(w->m, lp->kid[0]->kid[0]);
    r->kid[1] = rest;
    r->imm.block.label = TL_NO_LABEL;
    r->imm.block.bt = TL_NO_INDEX;
    tl_block_finalize(w->m, r, TL_UNREACHABLE);
    lp->kid[0] = r;
    lp->nkid = 1;
  } else if (in != TL_NO_LABEL && exit_br_if(lp->kid[n - 2], l) && is_plain_br(lp->kid[n - 1]) &&
             lp->kid[n - 1]->imm.label == in) {
    tl_expr *b = lp->kid[n - 2];
    b->imm.label = in;
    b->kid[0] = negate(w->m, b->kid[0]);
    lp->nkid--;
  } else {
    return;
  }
  tl_block_finalize(w->m, lp, TL_UNREACHABLE);
  c->li.count[l]--;
  tl_block_finalize(w->m, e, c->li.count[l] ? c->li.type[l] : TL_UNREACHABLE);
  c->changed = true;
}

/* (local.set x (if C (local.get x) A)) => (if (i32.eqz C) (local.set x A)),
 * (local.set x (if C A (local.get x))) => (if C (local.set x A)), and
 * (local.set x (if C (br $l) A)) => (br_if $l C) (local.set x A): the
 * copy arm or the branch arm needs no value. */
static bool is_get_of(const tl_expr *e, uint32_t x) { return e->op == TL_OP_LOCAL_GET && e->imm.index == x; }

static tl_expr *set_if(tl_walk *w, brs_ctx *c, tl_expr *e) {
  tl_expr *v = e->op == TL_OP_LOCAL_SET ? e->kid[0] : NULL;
  if (!v || v->op != TL_OP_IF || v->nkid != 3 || v->type != w->f->local[e->imm.index] ||
      (v->imm.block.label != TL_NO_LABEL && c->li.count[v->imm.block.label]))
    return e;
  uint32_t x = e->imm.index;
  int keep = is_get_of(v->kid[1], x) ? 2 : is_get_of(v->kid[2], x) ? 1 : 0;
  tl_expr *r;
  if (keep) {
    e->kid[0] = v->kid[keep];
    tl_expr_finalize(w->m, w->f, e);
    r = tl_expr_new(w->m, TL_OP_IF, 2);
    r->kid[0] = keep == 2 ? negate(w->m, v->kid[0]) : v->kid[0];
    r->kid[1] = e;
  } else if (is_plain_br(only(v->kid[1])) && v->kid[2]->type == v->type) {
    tl_expr *br = tl_expr_new(w->m, TL_OP_BR_IF, 1), *two[2] = {br, e};
    br->imm.label = only(v->kid[1])->imm.label;
    br->kid[0] = v->kid[0];
    tl_expr_finalize(w->m, w->f, br);
    e->kid[0] = v->kid[2];
    tl_expr_finalize(w->m, w->f, e);
    r = tl_make_block(w->m, TL_OP_BLOCK, TL_NO_LABEL, two, 2);
  } else {
    return e;
  }
  r->imm.block.label = TL_NO_LABEL;
  r->imm.block.bt = TL_NO_INDEX;
  tl_block_finalize(w->m, r, TL_UNREACHABLE);
  c->changed = true;
  return r;
}

/* A br_if on a constant: taken always, it is a br (the code after it is
 * dead, for later passes); never, it is its value or nothing. Label counts
 * stay over-estimates, which every rewrite here treats safely. */
static tl_expr *const_br_if(tl_walk *w, brs_ctx *c, tl_expr *e) {
  if (e->op == TL_OP_DROP && e->kid[0]->op == TL_OP_BR) return e->kid[0]; /* never drops */
  if (e->op != TL_OP_BR_IF || e->kid[e->nkid - 1]->op != TL_OP_I32_CONST) return e;
  c->changed = true;
  if (e->kid[e->nkid - 1]->imm.i32 != 0) {
    e->op = TL_OP_BR;
    e->nkid--;
    e->type = TL_UNREACHABLE;
    return e;
  }
  return e->nkid == 2 ? e->kid[0] : tl_make_nop(w->m);
}

/* A labeled block some branch targets, for the tail strip after the walk
 * (every such block of the tree: labels are never added to blocks). */
static void note_block(brs_ctx *c, tl_expr *e) {
  if (c->nblock == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    tl_expr **p = tl_scratch_realloc(c->blocks, cap, sizeof *p);
    if (!p) {
      c->lost = true;
      return;
    }
    c->blocks = p, c->cap = cap;
  }
  c->blocks[c->nblock++] = e;
}

static bool rewritable(const tl_expr *e) {
  return e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP || e->op == TL_OP_IF || e->op == TL_OP_LOCAL_SET;
}

static void brs_visit(tl_walk *w, tl_expr **slot) {
  brs_ctx *c = w->ctx;
  tl_expr *orig = *slot;
  if (tl_ops[orig->op].flags & TL_F_BRANCH) tl_labels_note(&c->li, orig); /* as it was */
  if (!rewritable(orig) && orig->op != TL_OP_BR_IF && orig->op != TL_OP_DROP) return;
  tl_type before = orig->type;
  tl_expr *e = *slot = const_br_if(w, c, orig);
  if (rewritable(e)) { /* the rest rewrite only these */
    unnest_ifs(w, c, e);
    merge_br_ifs(w, c, e);
    drop_final_br(c, e);
    thread_list(c, e);
    loop_exits(w, c, e);
    e = *slot = block_to_if(w, c, slot);
    e = *slot = value_block_to_if(w, c, slot);
    e = *slot = simplify_if(w, c, e);
    *slot = set_if(w, c, e);
  }
  if ((*slot)->type != before) c->retype = true; /* the parents' types may follow */
  if (*slot == orig && orig->op == TL_OP_BLOCK && orig->imm.block.label != TL_NO_LABEL &&
      c->li.count[orig->imm.block.label])
    note_block(c, orig);
}

/* The round's walk: tl_walk_post's order and slots, but a leaf is at most
 * counted (brs_visit rewrites none) and no visitor is called through a
 * pointer. A stack of (slot, next kid) frames for the nodes with kids,
 * the first ones on the C stack. False when out of memory: the walk
 * stopped there, every rewrite made is complete. */
typedef struct { tl_expr **slot; uint32_t next; } frame;

static frame *grow(frame *st, frame *small, size_t *cap) {
  frame *p = tl_scratch_realloc(st == small ? NULL : st, *cap * 2, sizeof *p);
  if (p && st == small)
    for (size_t i = 0; i < *cap; i++) p[i] = small[i];
  if (p) *cap *= 2;
  return p;
}

static bool brs_walk(tl_walk *w, brs_ctx *c) {
  frame small[256], *st = small;
  size_t n = 1, cap = 256;
  bool ok = true;
  tl_expr *e = w->f->body;
  uint32_t k = 0;
  st[0].slot = &w->f->body;
  for (;;) {
    while (k < e->nkid) {
      tl_expr **ks = &e->kid[k++], *x = *ks;
      if (!x) continue;
      if (!x->nkid) {
        if (tl_ops[x->op].flags & TL_F_BRANCH) tl_labels_note(&c->li, x);
        continue;
      }
      st[n - 1].next = k;
      frame *q = n == cap ? grow(st, small, &cap) : st;
      if (!q) {
        ok = false;
        goto out;
      }
      st = q;
      st[n++].slot = ks;
      e = x, k = 0;
    }
    brs_visit(w, st[--n].slot); /* e's kids are done */
    if (!n) break;
    e = *st[n - 1].slot;
    k = st[n - 1].next;
  }
out:
  if (st != small) tl_free(st);
  return ok;
}

/* The function's value can fall off the end of its body instead of being
 * returned: a `return` that is the body's last instruction (also at the
 * end of both arms of a final if) becomes its value. */
static bool is_return(const tl_expr *e) { return e->op == TL_OP_RETURN; }

/* A block the value may flow out of: no branch targets it. */
static bool open_block(const tl_expr *e, const uint32_t *count) {
  return e->op == TL_OP_BLOCK && e->nkid &&
         (e->imm.block.label == TL_NO_LABEL || !count[e->imm.block.label]);
}

static tl_expr *last_of(tl_expr *e, const uint32_t *count) {
  while (open_block(e, count)) e = e->kid[e->nkid - 1];
  return e;
}

static void set_last(tl_expr *list, tl_expr *v, const uint32_t *count) {
  while (open_block(list->kid[list->nkid - 1], count)) list = list->kid[list->nkid - 1];
  if (v) list->kid[list->nkid - 1] = v;
  else list->nkid--;
}

static bool arm_ends_in_return(tl_expr *arm, const uint32_t *count) {
  return open_block(arm, count) && is_return(last_of(arm, count));
}

static bool fold_return_with(tl_module *m, tl_func *f, const uint32_t *count);

/* Whether the fold could apply were no block a branch target (a cheap
 * test before counting: targeted blocks only stop it earlier). */
static tl_expr *tail_of(tl_expr *e) {
  while (e->op == TL_OP_BLOCK && e->nkid) e = e->kid[e->nkid - 1];
  return e;
}

static bool may_fold(const tl_func *f) {
  tl_expr *last = tail_of(f->body);
  return is_return(last) || (last->op == TL_OP_IF && last->nkid == 3 && last->imm.block.label == TL_NO_LABEL &&
                             is_return(tail_of(last->kid[1])) && is_return(tail_of(last->kid[2])));
}

static bool fold_final_return(tl_module *m, tl_func *f) {
  if (!f->body->nkid || !may_fold(f)) return false;
  tl_label_info li;
  tl_labels_count(m, f, &li);
  bool done = fold_return_with(m, f, li.count);
  tl_labels_free(&li);
  return done;
}

static bool fold_return_with(tl_module *m, tl_func *f, const uint32_t *count) {
  tl_expr *body = f->body;
  if (!body->nkid) return false;
  tl_expr *last = last_of(body, count);
  if (is_return(last)) {
    set_last(body, last->nkid ? last->kid[0] : NULL, count);
    return true;
  }
  uint32_t results = tl_type_arity(m, tl_func_type(m, f)->results);
  if (last->op != TL_OP_IF || last->nkid != 3 || last->imm.block.label != TL_NO_LABEL || results == 0)
    return false;
  if (!arm_ends_in_return(last->kid[1], count) || !arm_ends_in_return(last->kid[2], count)) return false;
  for (int a = 1; a <= 2; a++) {
    tl_expr *r = last_of(last->kid[a], count);
    set_last(last->kid[a], r->kid[0], count);
  }
  return true;
}

/* One round: the walk (counting labels as it goes), then retargeting and
 * types when it changed something, the tail strip over the blocks it
 * listed, and the final return. Returns whether another round may help. */
static bool round_once(tl_pass_ctx *ctx, tl_func *f, brs_ctx *c) {
  for (uint32_t i = 0; i <= f->nlabel; i++) c->map[i] = i;
  c->changed = c->retype = c->lost = false;
  c->nblock = 0;
  tl_labels_reset(&c->li);
  tl_walk w = {0};
  w.m = ctx->m, w.f = f, w.ctx = c;
  if (!brs_walk(&w, c)) c->oom = true; /* the blocks listed so far still strip */
  if (c->retype || c->changed) { /* later rounds read the types */
    tl_labels_retarget(ctx->m, f, c->map);
    tl_func_refinalize(ctx->m, f);
    c->stale = false;
  }
  bool stripped = c->lost ? tl_strip_tail_branches(ctx->m, f, &f->body)
                          : tl_strip_tail_branches_of(ctx->m, f, &f->body, c->blocks, c->nblock);
  if (stripped) c->stale = false; /* it refinalized */
  if (fold_final_return(ctx->m, f)) {
    c->changed = true;
    tl_func_refinalize(ctx->m, f);
    c->stale = false;
  }
  return c->changed && !c->oom;
}

tl_status tl_pass_remove_unused_brs(tl_pass_ctx *ctx, tl_func *f) {
  brs_ctx c = {0};
  c.shrink = ctx->opt->shrink_level >= 1;
  c.shrink_level = ctx->opt->shrink_level;
  c.map = tl_malloc((f->nlabel + 1) * sizeof(uint32_t));
  if (!c.map || !tl_labels_init(ctx->m, f, &c.li)) {
    tl_free(c.map);
    return TL_E_NOMEM;
  }
  for (uint32_t round = 0; round < 16 && round_once(ctx, f, &c); round++) {}
  /* rounds refinalize after their changes, so only dead code cut since
   * then is left. A cut alone is no change (the round loop stops), yet the
   * branches it removed may have typed their targets (fuzz seed 574204568:
   * the body's (br 0 (v128.const 0)) after an unreachable drop, left the
   * body typed v128), so it refinalizes whatever the rounds did */
  if (c.stale) tl_func_refinalize(ctx->m, f);
  tl_labels_free(&c.li);
  tl_free(c.blocks);
  tl_free(c.map);
  return c.oom ? TL_E_NOMEM : TL_OK;
}
