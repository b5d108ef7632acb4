/* flatten.c — Binaryen's flatten ("flat IR"): afterwards every operand is a
 * local.get, a constant or unreachable (a local.set's value may be any
 * non-control expression); block, loop and if carry no values (the code in
 * their value position sets a local instead); branches carry no values (they
 * set the target's local first); local.tee is split into set + get.
 * Assumes valid IR with up-to-date types. One iterative pre/post walk keeps
 * per-depth lists of "preludes" (code an operand needs run before its
 * parent); types are recomputed once at the end (tl_func_refinalize).
 * An if whose condition is unreachable is replaced by the condition: its
 * type is unreachable, so it gets no temp, yet its arms and the branches
 * to it may carry values (its dead arms are dropped, not flattened).
 * A legacy try is an if with a body and catch arms: each sets the try's
 * temp, and an arm's preludes stay in the arm (a catch writes its payload
 * local on entry, which counts as a write for the held reads). A function
 * with a try_table is left as it is, as Binaryen's flatten refuses one: its
 * clauses send values to labels, which no local can carry instead. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { HOLD = 0xf1a8 }; /* aux of a nop holding the place of a copy (see hold) */

typedef struct {
  uint32_t start;  /* preludes of this node's operands begin at pl[start] */
  uint32_t rstart; /* its operands' held copies begin at held[rstart] */
  uint32_t temp;   /* control node: the local its value goes to, or TL_NO_INDEX */
  uint32_t lastnl; /* index of the last operand that is not a leaf, + 1 */
  bool consumed;   /* control node in its parent's value position: shares its temp */
} frame;

/* A read of one of the function's own locals by an operand that later
 * operands of the same parent (through their preludes) may write. */
typedef struct {
  tl_expr *nop;    /* the placeholder in the preludes, before those operands */
  uint32_t kid;    /* operand index */
  uint64_t clock;  /* writes after this one invalidate the read */
} held;

typedef struct {
  tl_module *m;
  tl_func *f;
  tl_vec frames;     /* frame per walk depth */
  tl_vec pl;         /* tl_expr *: preludes not yet placed, innermost last */
  tl_vec held;       /* held */
  uint32_t *brtemp;  /* label -> local its branches' values go to */
  uint32_t *seen;    /* label -> stamp, for br_table's unique targets */
  uint64_t *wrote;   /* own local -> clock of its last write */
  uint64_t clock;
  uint32_t stamp;
  uint32_t nold;     /* locals below this are the function's own */
  uint32_t fnlabel, inner; /* branches to fnlabel go to inner (or no change) */
} fl;

static frame *fr(fl *c, uint32_t d) {
  if (d >= c->frames.n) {
    tl_vec_grow(&c->frames, sizeof(frame), d + 1);
    memset((frame *)c->frames.p + c->frames.n, 0, (d + 1 - c->frames.n) * sizeof(frame));
    c->frames.n = d + 1;
  }
  return &TL_VEC_AT(&c->frames, frame, d);
}

static bool is_control(const tl_expr *e) { return tl_ops[e->op].flags & TL_F_CONTROL; }
static bool is_arm(const tl_expr *e) { return e->op == TL_OP_CATCH || e->op == TL_OP_CATCH_ALL; }
/* Kids that are code run in place, not operands: control nodes' and a
 * try's catch arms'. */
static bool holds_code(const tl_expr *e) { return is_control(e) || is_arm(e); }

/* Operands that stay in place: constants and local.get. */
static bool is_leaf(const tl_expr *e) {
  if (e->nkid) return false;
  uint8_t k = tl_ops[e->op].imm;
  return e->op == TL_OP_LOCAL_GET || e->op == TL_OP_REF_NULL || e->op == TL_OP_REF_FUNC ||
         (k >= TL_IMM_I32 && k <= TL_IMM_V128);
}

static tl_expr *dup_leaf(fl *c, const tl_expr *e) {
  tl_expr *n = TL_NEW(&c->m->arena, tl_expr);
  *n = *e;
  return n;
}

static uint32_t new_temp(fl *c, tl_type t) { return tl_func_add_local(c->m, c->f, t); }

static tl_expr *set(fl *c, uint32_t local, tl_expr *v) {
  return tl_make_local_set(c->m, c->f, local, v, false);
}

static tl_expr *get(fl *c, uint32_t local) { return tl_make_local_get(c->m, c->f, local); }

static void push(fl *c, tl_expr *e) { TL_VEC_PUSH(&c->pl, tl_expr *, e); }

/* Operand position: the parent evaluates the node as an operand, so its
 * preludes go before the parent (an if's condition counts). */
static bool op_pos(const tl_expr *p, tl_expr **slot) {
  return p && (!holds_code(p) || (p->op == TL_OP_IF && slot == &p->kid[0]));
}

/* Value position of a control parent that has a temp for its value. */
static bool val_pos(fl *c, const tl_expr *p, tl_expr **slot, uint32_t d) {
  if (!p || !holds_code(p) || d == 0 || fr(c, d - 1)->temp == TL_NO_INDEX) return false;
  if (p->op == TL_OP_IF) return slot != &p->kid[0];
  if (p->op == TL_OP_TRY) return slot == &p->kid[0]; /* the body; the arms relay */
  if (is_arm(p)) return true;
  return slot == &p->kid[p->nkid - 1];
}

static uint32_t brtemp_for(fl *c, uint32_t label, tl_type t) {
  if (c->brtemp[label] == TL_NO_INDEX) c->brtemp[label] = new_temp(c, t);
  return c->brtemp[label];
}

static void retarget(fl *c, tl_expr *e) {
  if (c->inner == TL_NO_LABEL) return;
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF) {
    if (e->imm.label == c->fnlabel) e->imm.label = c->inner;
  } else if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      if (e->imm.table->targets[i] == c->fnlabel) e->imm.table->targets[i] = c->inner;
    if (e->imm.table->def == c->fnlabel) e->imm.table->def = c->inner;
  }
}

/* Before children: a concrete control node gets the local its value goes
 * to, shared with its parent when it is in the parent's value position. */
static void pre(tl_walk *w, tl_expr **slot) {
  fl *c = w->ctx;
  tl_expr *e = *slot;
  uint32_t d = w->depth;
  e->aux = 0;
  retarget(c, e);
  if (e->op == TL_OP_IF && e->kid[0]->type == TL_UNREACHABLE)
    e->nkid = 1; /* its arms never run: post puts the condition in its place */
  frame *F = fr(c, d);
  *F = (frame){(uint32_t)c->pl.n, (uint32_t)c->held.n, TL_NO_INDEX, 0, false};
  if (!holds_code(e))
    for (uint32_t i = 0; i < e->nkid; i++)
      if (e->kid[i] && !is_leaf(e->kid[i])) F->lastnl = i + 1;
  if (is_arm(e) && d > 0) { /* its body's value goes where the try's does */
    F->temp = fr(c, d - 1)->temp;
    F->consumed = true;
    return;
  }
  if (d == 0 || !is_control(e) || !tl_type_is_concrete(e->type)) return;
  tl_expr *p = tl_walk_parent(w, 1);
  uint32_t ptemp = fr(c, d - 1)->temp;
  F = fr(c, d);
  if (val_pos(c, p, slot, d) && c->f->local[ptemp] == e->type) {
    F->temp = ptemp;
    F->consumed = true;
  } else {
    F->temp = new_temp(c, e->type);
  }
  if (e->imm.block.label != TL_NO_LABEL) c->brtemp[e->imm.block.label] = F->temp;
}

static bool is_hold(const tl_expr *e) { return e->op == TL_OP_NOP && e->aux == HOLD; }

/* A block or loop list is what its items left on pl: each item's
 * preludes, then the item (places held for copies that were not needed
 * are left out). The old kid array is reused when it is large enough. */
static void relist(fl *c, tl_expr *e, frame *F) {
  tl_expr **p = c->pl.p;
  uint32_t n = 0;
  for (size_t i = F->start; i < c->pl.n; i++)
    if (!is_hold(p[i])) p[F->start + n++] = p[i];
  if (n > tl_expr_kid_cap(e)) {
    e->kid = TL_NEWN(&c->m->arena, tl_expr *, n);
    e->kcap = 0;
  }
  if (n) memcpy(e->kid, p + F->start, n * sizeof *e->kid);
  e->nkid = n;
  c->pl.n = F->start;
}

/* The held reads of e's operands: a read stays where it is unless a later
 * operand wrote its local, in which case its placeholder becomes a copy. */
static void resolve(fl *c, tl_expr *e, frame *F) {
  for (size_t i = F->rstart; i < c->held.n; i++) {
    held *h = &TL_VEC_AT(&c->held, held, i);
    tl_expr *x = e->kid[h->kid];
    if (c->wrote[x->imm.index] <= h->clock) continue;
    tl_expr *cp = set(c, new_temp(c, x->type), x);
    e->kid[h->kid] = get(c, cp->imm.index);
    *h->nop = *cp;
  }
  c->held.n = F->rstart;
}

/* rep, a read of an own local in operand k of p, may need a copy if a later
 * operand has preludes: hold a place for it. */
static void hold(fl *c, tl_expr *p, tl_expr **slot, tl_expr *rep, uint32_t d) {
  uint32_t k = (uint32_t)(slot - p->kid);
  if (rep->op != TL_OP_LOCAL_GET || rep->imm.index >= c->nold || k + 1 >= fr(c, d - 1)->lastnl)
    return;
  tl_expr *nop = tl_make_nop(c->m);
  nop->aux = HOLD;
  push(c, nop);
  held h = {nop, k, c->clock};
  TL_VEC_PUSH(&c->held, held, h);
}

/* A control node whose value is not consumed in place leaves a get of its
 * temp; the node itself becomes a prelude. */
static tl_expr *control(fl *c, tl_expr *e, frame *F) {
  if (e->op != TL_OP_IF && e->op != TL_OP_TRY) relist(c, e, F);
  if (F->temp == TL_NO_INDEX) return e;
  e->type = TL_NONE;
  if (F->consumed) return e;
  push(c, e);
  return get(c, F->temp);
}

/* br/br_if/br_table with a value: the value goes to the targets' locals. */
static tl_expr *branch(fl *c, tl_expr *e) {
  tl_expr *v = e->kid[0];
  tl_expr *rest = e->nkid > 1 ? e->kid[1] : NULL;
  if (v->type == TL_UNREACHABLE || (rest && rest->type == TL_UNREACHABLE))
    return tl_make_unreachable(c->m); /* the preludes already end in unreachable code */
  if (e->op == TL_OP_BR_TABLE) {
    c->stamp++;
    for (uint32_t i = 0; i <= e->imm.table->n; i++) {
      uint32_t l = i < e->imm.table->n ? e->imm.table->targets[i] : e->imm.table->def;
      if (c->seen[l] == c->stamp) continue;
      c->seen[l] = c->stamp;
      push(c, set(c, brtemp_for(c, l, v->type), dup_leaf(c, v)));
    }
  } else {
    push(c, set(c, brtemp_for(c, e->imm.label, v->type), dup_leaf(c, v)));
  }
  e->kid[0] = rest;
  e->nkid = rest ? 1 : 0;
  if (e->op != TL_OP_BR_IF) return e;
  e->type = TL_NONE;
  push(c, e);
  return v; /* the value br_if passes on when it does not branch */
}

static bool has_value(const tl_expr *e) {
  switch (e->op) {
  case TL_OP_BR: return e->nkid == 1;
  case TL_OP_BR_IF:
  case TL_OP_BR_TABLE: return e->nkid == 2;
  default: return false;
  }
}

/* In operand position the preludes stay on pl for the parent, and so do
 * they, followed by rep, in a block or loop list (relist); in an if arm
 * they go with rep into an unlabeled block. */
static tl_expr *place(fl *c, tl_walk *w, tl_expr **slot, frame *F, tl_expr *rep) {
  tl_expr *p = tl_walk_parent(w, 1);
  if (op_pos(p, slot)) {
    hold(c, p, slot, rep, w->depth);
    return rep;
  }
  if (p->op != TL_OP_IF && p->op != TL_OP_TRY && !is_arm(p)) {
    push(c, rep);
    return rep;
  }
  uint32_t n = 0;
  for (size_t i = F->start; i < c->pl.n; i++) {
    tl_expr *x = TL_VEC_AT(&c->pl, tl_expr *, i);
    if (!is_hold(x)) TL_VEC_AT(&c->pl, tl_expr *, F->start + n++) = x;
  }
  c->pl.n = F->start + n;
  if (!n) return rep;
  push(c, rep);
  tl_expr *b = tl_make_block(c->m, TL_OP_BLOCK, TL_NO_LABEL, &TL_VEC_AT(&c->pl, tl_expr *, F->start),
                             n + 1);
  c->pl.n = F->start;
  return b;
}

static void post(tl_walk *w, tl_expr **slot) {
  fl *c = w->ctx;
  tl_expr *e = *slot, *rep = e;
  uint32_t d = w->depth;
  frame *F = fr(c, d);
  resolve(c, e, F);
  if (d == 0) { /* the function body: its value (if any) stays */
    relist(c, e, F);
    return;
  }
  tl_expr *p = tl_walk_parent(w, 1);
  uint32_t written = tl_written_local(e); /* a set, a tee, a catch's payload */
  if (written != TL_NO_INDEX && written < c->nold) c->wrote[written] = ++c->clock;
  if (e->op == TL_OP_IF && e->nkid == 1) {
    rep = e->kid[0]; /* an if whose condition is unreachable (see pre) */
  } else if (is_control(e)) {
    rep = control(c, e, F);
  } else if (e->op == TL_OP_LOCAL_TEE) {
    if (e->kid[0]->type == TL_UNREACHABLE) {
      rep = e->kid[0];
    } else {
      e->op = TL_OP_LOCAL_SET;
      e->type = TL_NONE;
      push(c, e);
      rep = get(c, e->imm.index);
    }
  } else if (has_value(e)) {
    rep = branch(c, e);
  }
  if (holds_code(rep) || rep->op == TL_OP_UNREACHABLE) {
    /* done: a control node's value was handled above (an arm relays it) */
  } else if (tl_type_is_concrete(rep->type) && val_pos(c, p, slot, d)) {
    rep = set(c, fr(c, d - 1)->temp, rep);
  } else if (!is_leaf(rep) && tl_type_is_concrete(rep->type) && op_pos(p, slot) &&
             p->op != TL_OP_LOCAL_SET && p->op != TL_OP_LOCAL_TEE) {
    uint32_t t = new_temp(c, rep->type);
    push(c, set(c, t, rep));
    rep = get(c, t);
  }
  /* An operand that never completes goes to the prelude, so that it runs
   * before the preludes of the operands after it: a bare unreachable too,
   * which left in place would run after them (fuzz opt seed 23120877220). */
  if (rep->type == TL_UNREACHABLE && op_pos(p, slot)) {
    push(c, rep);
    rep = tl_make_unreachable(c->m);
  }
  *slot = place(c, w, slot, F, rep);
}

static void find_fn_branch(tl_walk *w, tl_expr **slot) {
  fl *c = w->ctx;
  tl_expr *e = *slot;
  bool hit = false;
  if (!has_value(e)) return;
  if (e->op == TL_OP_BR_TABLE) {
    hit = e->imm.table->def == c->fnlabel;
    for (uint32_t i = 0; i < e->imm.table->n; i++) hit |= e->imm.table->targets[i] == c->fnlabel;
  } else {
    hit = e->imm.label == c->fnlabel;
  }
  if (hit) c->inner = 0;
}

/* Branches to the function's own label with a value would have to carry it;
 * they go instead to a new block holding the old body (whose value a local
 * then takes, like any block's). */
static void wrap_body(fl *c) {
  tl_func *f = c->f;
  tl_expr *body = f->body;
  c->fnlabel = body->imm.block.label;
  c->inner = TL_NO_LABEL;
  if (!tl_type_is_concrete(tl_func_type(c->m, f)->results) || !body->nkid ||
      c->fnlabel == TL_NO_LABEL)
    return;
  tl_walk_post(c->m, f, &f->body, find_fn_branch, c);
  if (c->inner == TL_NO_LABEL) return;
  c->inner = tl_func_new_label(c->m, f);
  tl_expr *in = tl_expr_new(c->m, TL_OP_BLOCK, body->nkid);
  memcpy(in->kid, body->kid, body->nkid * sizeof *in->kid);
  in->imm.block.label = c->inner;
  in->type = body->type;
  body->kid[0] = in;
  body->nkid = 1;
}

static void find_try_table(tl_walk *w, tl_expr **slot) {
  if ((*slot)->op == TL_OP_TRY_TABLE) *(bool *)w->ctx = true;
}

tl_status tl_pass_flatten(tl_pass_ctx *ctx, tl_func *f) {
  if (!f->body) return TL_OK;
  bool try_table = false;
  if (tl_expr_has_eh(f->body)) tl_walk_post(ctx->m, f, &f->body, find_try_table, &try_table);
  if (try_table) return TL_OK;
  fl c = {.m = ctx->m, .f = f, .nold = f->nlocal};
  wrap_body(&c);
  c.brtemp = tl_scratch_realloc(NULL, f->nlabel + 1, sizeof *c.brtemp);
  c.seen = tl_scratch_calloc(f->nlabel + 1, sizeof *c.seen);
  c.wrote = tl_scratch_calloc(f->nlocal + 1, sizeof *c.wrote);
  if (!c.brtemp || !c.seen || !c.wrote) { /* the wrapped body means the same */
    tl_free(c.brtemp);
    tl_free(c.seen);
    tl_free(c.wrote);
    return tl_nomem(ctx->err, "flatten");
  }
  for (uint32_t i = 0; i < f->nlabel; i++) c.brtemp[i] = TL_NO_INDEX;
  tl_walk w = {.m = ctx->m, .f = f, .ctx = &c, .pre = pre, .post = post};
  tl_walk_run(&w, &f->body);
  tl_vec_free(&c.frames);
  tl_vec_free(&c.pl);
  tl_vec_free(&c.held);
  tl_free(c.wrote);
  tl_free(c.brtemp);
  tl_free(c.seen);
  tl_func_refinalize(ctx->m, f);
  return TL_OK;
}
