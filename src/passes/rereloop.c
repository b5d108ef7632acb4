/* rereloop.c — turn a function into a control-flow graph and back
 * (wasm-opt's --rereloop), threading jumps on the way (seed 001):
 *  - an edge whose source leaves a local at a known constant K and whose
 *    target is a dispatch block (one that only switches or branches on
 *    that local) goes straight to the target case K picks;
 *  - the value of such a local at each block's entry is found by optimistic
 *    constant propagation over the graph (a loop that only ever resets the
 *    local to 0 keeps it at 0; a block's conditions and switch value are
 *    code too, and a local.tee there writes it), and a dispatch block
 *    whose entry value is known becomes a plain jump;
 *  - sets of those locals that nothing reads afterwards are removed;
 *  - empty blocks that only jump on are skipped.
 * Then the graph is structured again (cfg.c); a final `return v` falls off
 * the end of the body again. Functions whose control flow
 * carries values (blocks or branches with results) or hides inside
 * operands are left as they are.
 * Assumes valid IR. Guarantees the same behaviour; the output is reducible
 * code with no helper variable added. Functions with exception handling
 * are left alone (a FUNC pass: the runner skips them; the CFG has no
 * exceptional edges). */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- IR to a graph */
enum { K_BODY, K_BLOCK, K_LOOP, K_THEN, K_ELSE };
typedef struct {
  uint8_t kind;
  tl_expr **items;
  uint32_t n, i;
  uint32_t after;     /* where the construct continues */
  tl_expr *else_arm;  /* K_THEN: the else arm to do next, or NULL */
  uint32_t else_b;
} frame;

typedef struct {
  tl_module *m;
  tl_func *f;
  tl_cfg *g;
  uint32_t *target;   /* label id -> graph block */
  uint32_t cur;
  tl_vec frames;
  bool fail;
  bool oom;           /* fail because a scratch allocation failed */
} builder;

static bool control_free_visit_bad(const tl_expr *e) {
  uint32_t fl = tl_ops[e->op].flags;
  return (fl & (TL_F_CONTROL | TL_F_BRANCH)) || e->op == TL_OP_RETURN ||
         e->op == TL_OP_RETURN_CALL || e->op == TL_OP_RETURN_CALL_INDIRECT;
}

static void cf_visit(tl_walk *w, tl_expr **slot) {
  if (control_free_visit_bad(*slot)) *(bool *)w->ctx = false;
}

static bool control_free(builder *b, tl_expr *e) {
  if (!e) return true;
  bool ok = true;
  tl_walk_post(b->m, b->f, &e, cf_visit, &ok);
  return ok;
}

static uint32_t new_block(builder *b) { return tl_cfg_add_block(b->g, NULL, NULL); }

static tl_cfg_block *gblock(builder *b, uint32_t i) { return &TL_VEC_AT(&b->g->blocks, tl_cfg_block, i); }

static void append_code(builder *b, tl_expr *e) {
  tl_cfg_block *bb = gblock(b, b->cur);
  if (!bb->code) bb->code = tl_expr_new(b->m, TL_OP_BLOCK, 0);
  tl_expr_push_kid(b->m, bb->code, e);
}

/* Blocks and loops walk their lists; an if arm that is an unlabeled block
 * walks its list too; any other arm is a one-statement list. */
static void push_frame(builder *b, uint8_t kind, tl_expr *e, uint32_t after) {
  frame fr = {kind, NULL, 0, 0, after, NULL, 0};
  bool arm = kind == K_THEN || kind == K_ELSE;
  if (!arm || (e->op == TL_OP_BLOCK && e->imm.block.label == TL_NO_LABEL)) {
    fr.items = e->kid;
    fr.n = e->nkid;
  } else {
    fr.items = TL_NEWN(&b->m->arena, tl_expr *, 1);
    fr.items[0] = e;
    fr.n = 1;
  }
  TL_VEC_PUSH(&b->frames, frame, fr);
}

static uint32_t label_target(builder *b, uint32_t label) {
  if (label >= b->f->nlabel || b->target[label] == UINT32_MAX) {
    b->fail = true;
    return 0;
  }
  return b->target[label];
}

static void dead_continue(builder *b) { b->cur = new_block(b); }

static void do_if(builder *b, tl_expr *s) {
  if (tl_type_is_concrete(s->type) || !control_free(b, s->kid[0])) {
    b->fail = true;
    return;
  }
  uint32_t then_b = new_block(b), after = new_block(b);
  uint32_t else_b = s->nkid == 3 ? new_block(b) : after;
  tl_cfg_add_branch(b->g, b->cur, then_b, s->kid[0], NULL);
  tl_cfg_add_branch(b->g, b->cur, else_b, NULL, NULL);
  if (s->imm.block.label != TL_NO_LABEL) b->target[s->imm.block.label] = after;
  b->cur = then_b;
  push_frame(b, K_THEN, s->kid[1], after);
  frame *fr = &TL_VEC_AT(&b->frames, frame, b->frames.n - 1);
  fr->else_arm = s->nkid == 3 ? s->kid[2] : NULL;
  fr->else_b = else_b;
}

static void do_br_table(builder *b, tl_expr *s) {
  if (s->nkid != 1 || !control_free(b, s->kid[0])) {
    b->fail = true;
    return;
  }
  gblock(b, b->cur)->switch_on = s->kid[0];
  uint32_t n = s->imm.table->n;
  uint8_t *done = tl_scratch_calloc(n + 1, 1);
  uint32_t *cases = tl_scratch_calloc(n + 1, sizeof *cases);
  if (!done || !cases) {
    tl_free(done);
    tl_free(cases);
    b->fail = b->oom = true;
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (done[i]) continue;
    uint32_t nc = 0, l = s->imm.table->targets[i];
    for (uint32_t j = i; j < n; j++)
      if (s->imm.table->targets[j] == l) {
        done[j] = 1;
        cases[nc++] = j;
      }
    tl_cfg_add_switch_branch(b->g, b->cur, label_target(b, l), cases, nc, NULL);
  }
  tl_cfg_add_switch_branch(b->g, b->cur, label_target(b, s->imm.table->def), NULL, 0, NULL);
  tl_free(done);
  tl_free(cases);
  dead_continue(b);
}

static void do_statement(builder *b, tl_expr *s) {
  switch (s->op) {
  case TL_OP_BLOCK: {
    if (tl_type_is_concrete(s->type)) { b->fail = true; return; }
    uint32_t after = new_block(b);
    if (s->imm.block.label != TL_NO_LABEL) b->target[s->imm.block.label] = after;
    push_frame(b, K_BLOCK, s, after);
    return;
  }
  case TL_OP_LOOP: {
    if (tl_type_is_concrete(s->type)) { b->fail = true; return; }
    uint32_t head = new_block(b), after = new_block(b);
    tl_cfg_add_branch(b->g, b->cur, head, NULL, NULL);
    b->cur = head;
    if (s->imm.block.label != TL_NO_LABEL) b->target[s->imm.block.label] = head;
    push_frame(b, K_LOOP, s, after);
    return;
  }
  case TL_OP_IF: do_if(b, s); return;
  case TL_OP_BR:
    if (s->nkid) { b->fail = true; return; }
    tl_cfg_add_branch(b->g, b->cur, label_target(b, s->imm.label), NULL, NULL);
    dead_continue(b);
    return;
  case TL_OP_BR_IF: {
    if (s->nkid != 1 || !control_free(b, s->kid[0])) { b->fail = true; return; }
    uint32_t next = new_block(b);
    tl_cfg_add_branch(b->g, b->cur, label_target(b, s->imm.label), s->kid[0], NULL);
    tl_cfg_add_branch(b->g, b->cur, next, NULL, NULL);
    b->cur = next;
    return;
  }
  case TL_OP_BR_TABLE: do_br_table(b, s); return;
  case TL_OP_RETURN:
    if (s->nkid && !control_free(b, s->kid[0])) { b->fail = true; return; }
    append_code(b, s);
    dead_continue(b);
    return;
  default:
    if (!control_free(b, s)) { b->fail = true; return; }
    append_code(b, s);
    if (s->type == TL_UNREACHABLE) dead_continue(b);
    return;
  }
}

static void end_frame(builder *b) {
  frame fr = TL_VEC_AT(&b->frames, frame, --b->frames.n);
  tl_cfg_add_branch(b->g, b->cur, fr.after, NULL, NULL);
  b->cur = fr.after;
  if (fr.kind == K_THEN && fr.else_arm) {
    b->cur = fr.else_b;
    push_frame(b, K_ELSE, fr.else_arm, fr.after);
  }
}

/* The function's value, if it has results, falls off the end of the body:
 * it becomes an explicit return. */
static tl_expr **body_items(builder *b, uint32_t *n) {
  tl_expr *body = b->f->body;
  *n = body->nkid;
  if (!body->nkid || !tl_type_is_concrete(body->kid[body->nkid - 1]->type)) return body->kid;
  tl_expr **items = TL_NEWN(&b->m->arena, tl_expr *, body->nkid);
  memcpy(items, body->kid, body->nkid * sizeof *items);
  tl_expr *ret = tl_expr_new(b->m, TL_OP_RETURN, 1);
  ret->kid[0] = items[body->nkid - 1];
  ret->type = TL_UNREACHABLE;
  items[body->nkid - 1] = ret;
  return items;
}

static bool build_graph(builder *b, uint32_t *entry) {
  tl_func *f = b->f;
  uint32_t exit = new_block(b);
  *entry = b->cur = new_block(b);
  if (f->body->imm.block.label != TL_NO_LABEL) b->target[f->body->imm.block.label] = exit;
  frame top = {K_BODY, NULL, 0, 0, exit, NULL, 0};
  top.items = body_items(b, &top.n);
  TL_VEC_PUSH(&b->frames, frame, top);
  while (b->frames.n && !b->fail) {
    frame *fr = &TL_VEC_AT(&b->frames, frame, b->frames.n - 1);
    if (fr->i == fr->n) {
      end_frame(b);
      continue;
    }
    do_statement(b, fr->items[fr->i++]);
  }
  return !b->fail;
}

/* ------------------------------------------------------- jump threading */
enum { V_TOP = 0, V_CONST = 1, V_BOTTOM = 2 };
typedef struct { uint8_t kind; int32_t k; } lval;

static lval meet(lval a, lval b) {
  if (a.kind == V_TOP) return b;
  if (b.kind == V_TOP) return a;
  if (a.kind == V_CONST && b.kind == V_CONST && a.k == b.k) return a;
  return (lval){V_BOTTOM, 0};
}

typedef struct { uint32_t local; bool writes, reads; } rw_ctx;

static void rw_visit(tl_walk *w, tl_expr **slot) {
  rw_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->imm.index != c->local) return;
  if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) c->writes = true;
  if (e->op == TL_OP_LOCAL_GET || e->op == TL_OP_LOCAL_TEE) c->reads = true;
}

static void rw_of(tl_module *m, tl_func *f, tl_expr *e, uint32_t local, bool *writes, bool *reads) {
  rw_ctx c = {local, false, false};
  if (e) tl_walk_post(m, f, &e, rw_visit, &c);
  *writes = c.writes;
  *reads = c.reads;
}

/* The local's value after running e (a statement list or one statement). */
static lval transfer(tl_module *m, tl_func *f, tl_expr *e, uint32_t local, lval in) {
  if (!e) return in;
  uint32_t n = e->op == TL_OP_BLOCK ? e->nkid : 1;
  for (uint32_t i = 0; i < n; i++) {
    tl_expr *s = e->op == TL_OP_BLOCK ? e->kid[i] : e;
    if (s->op == TL_OP_LOCAL_SET && s->imm.index == local && s->kid[0]->op == TL_OP_I32_CONST &&
        s->kid[0]->type == TL_I32) {
      in = (lval){V_CONST, s->kid[0]->imm.i32};
      continue;
    }
    bool w, r;
    rw_of(m, f, s, local, &w, &r);
    if (w) in = (lval){V_BOTTOM, 0};
  }
  return in;
}

/* Is x (local.get L) or a comparison of it with a constant? */
static bool is_get(const tl_expr *x, uint32_t local) {
  return x->op == TL_OP_LOCAL_GET && x->imm.index == local;
}

static bool eval_cond(const tl_expr *c, uint32_t local, int32_t k, bool *out) {
  if (is_get(c, local)) { *out = k != 0; return true; }
  if (c->op == TL_OP_I32_EQZ && is_get(c->kid[0], local)) { *out = k == 0; return true; }
  if ((c->op == TL_OP_I32_EQ || c->op == TL_OP_I32_NE) && c->nkid == 2) {
    const tl_expr *a = c->kid[0], *bb = c->kid[1];
    if (is_get(bb, local)) { const tl_expr *t = a; a = bb; bb = t; }
    if (!is_get(a, local) || bb->op != TL_OP_I32_CONST) return false;
    *out = (bb->imm.i32 == k) == (c->op == TL_OP_I32_EQ);
    return true;
  }
  return false;
}

/* A dispatch block on `local`: code that does not touch it (kept small,
 * since threading copies it onto edges), then a decision that depends only
 * on the local. Returns the local, or UINT32_MAX. */
enum { DISPATCH_CODE_BUDGET = 16 };

static uint32_t cond_local(const tl_expr *c) {
  if (c->op == TL_OP_LOCAL_GET) return c->imm.index;
  for (uint32_t i = 0; i < c->nkid && i < 2; i++)
    if (c->kid[i]->op == TL_OP_LOCAL_GET) return c->kid[i]->imm.index;
  return UINT32_MAX;
}

static uint32_t dispatch_local(tl_module *m, tl_func *f, tl_cfg_block *bb) {
  uint32_t local = UINT32_MAX;
  if (bb->switch_on) {
    if (bb->switch_on->op != TL_OP_LOCAL_GET) return UINT32_MAX;
    local = bb->switch_on->imm.index;
  } else {
    for (size_t i = 0; i < bb->edges.n; i++) {
      tl_cfg_edge *e = &TL_VEC_AT(&bb->edges, tl_cfg_edge, i);
      if (!e->cond) continue;
      uint32_t l = cond_local(e->cond);
      bool out;
      if (l == UINT32_MAX || (local != UINT32_MAX && l != local)) return UINT32_MAX;
      local = l;
      if (!eval_cond(e->cond, local, 0, &out)) return UINT32_MAX;
    }
    if (local == UINT32_MAX) return UINT32_MAX;
  }
  if (f->local[local] != TL_I32) return UINT32_MAX;
  if (bb->code) {
    if (tl_expr_count(bb->code) > DISPATCH_CODE_BUDGET) return UINT32_MAX;
    bool w, r;
    rw_of(m, f, bb->code, local, &w, &r);
    if (w) return UINT32_MAX;
  }
  return local;
}

/* The edge a dispatch block takes when its local holds k. */
static uint32_t decide(tl_cfg_block *bb, uint32_t local, int32_t k) {
  uint32_t def = UINT32_MAX;
  for (uint32_t i = 0; i < bb->edges.n; i++) {
    tl_cfg_edge *e = &TL_VEC_AT(&bb->edges, tl_cfg_edge, i);
    if (bb->switch_on) {
      if (e->is_default) { if (def == UINT32_MAX) def = i; continue; }
      for (uint32_t c = 0; c < e->ncases; c++)
        if ((int32_t)e->cases[c] == k) return i;
      continue;
    }
    if (!e->cond) { if (def == UINT32_MAX) def = i; continue; }
    bool taken;
    eval_cond(e->cond, local, k, &taken);
    if (taken) return i;
  }
  return def;
}

static tl_expr *seq(tl_module *m, tl_func *f, tl_expr *a, tl_expr *b) {
  if (!a) return b ? tl_expr_copy(m, f, b) : NULL;
  if (!b) return a;
  tl_expr *kids[2] = {a, tl_expr_copy(m, f, b)};
  return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, kids, 2);
}

typedef struct {
  tl_module *m;
  tl_func *f;
  tl_cfg *g;
  uint32_t n;
  uint32_t *disp;   /* per block: its dispatch local or UINT32_MAX */
  bool oom;         /* a scratch allocation failed: threading stopped */
} threader;

static tl_cfg_block *tblock(threader *t, uint32_t i) { return &TL_VEC_AT(&t->g->blocks, tl_cfg_block, i); }

static bool writes_local(threader *t, tl_expr *e, uint32_t local) {
  bool w, r;
  rw_of(t->m, t->f, e, local, &w, &r);
  return w;
}

/* The local's value when a block's edges start: after its code and its
 * decision, whose switch value and conditions may write it too (a
 * local.tee, as C compiled at -O0 has: `br_if (i32.eqz (local.tee L ...))`).
 * Whichever edge is taken, the conditions before it ran. */
static lval block_out(threader *t, tl_cfg_block *bb, uint32_t local, lval in) {
  lval out = transfer(t->m, t->f, bb->code, local, in);
  if (out.kind == V_TOP || out.kind == V_BOTTOM) return out;
  if (bb->switch_on && writes_local(t, bb->switch_on, local)) return (lval){V_BOTTOM, 0};
  for (uint32_t i = 0; i < bb->edges.n; i++) {
    tl_cfg_edge *e = &TL_VEC_AT(&bb->edges, tl_cfg_edge, i);
    if (e->cond && writes_local(t, e->cond, local)) return (lval){V_BOTTOM, 0};
  }
  return out;
}

/* Optimistic propagation of one local's value to every block's entry;
 * NULL (t->oom) when out of memory. */
static lval *entry_values(threader *t, uint32_t local, uint32_t entry) {
  lval *in = tl_scratch_calloc(t->n, sizeof *in);
  uint32_t *work = tl_scratch_realloc(NULL, t->n, sizeof *work), nw = 0;
  uint8_t *queued = tl_scratch_calloc(t->n, 1);
  if (!in || !work || !queued) {
    tl_free(in);
    tl_free(work);
    tl_free(queued);
    t->oom = true;
    return NULL;
  }
  bool param = local < tl_func_nparams(t->m, t->f);
  in[entry] = param ? (lval){V_BOTTOM, 0} : (lval){V_CONST, 0};
  work[nw++] = entry;
  queued[entry] = 1;
  while (nw) {
    uint32_t b = work[--nw];
    queued[b] = 0;
    tl_cfg_block *bb = tblock(t, b);
    lval out = block_out(t, bb, local, in[b]);
    for (uint32_t i = 0; i < bb->edges.n; i++) {
      tl_cfg_edge *e = &TL_VEC_AT(&bb->edges, tl_cfg_edge, i);
      lval v = transfer(t->m, t->f, e->code, local, out);
      lval nv = meet(in[e->to], v);
      if (nv.kind == in[e->to].kind && nv.k == in[e->to].k) continue;
      in[e->to] = nv;
      if (!queued[e->to]) {
        queued[e->to] = 1;
        work[nw++] = e->to;
      }
    }
  }
  tl_free(work);
  tl_free(queued);
  return in;
}

/* Redirect edge e (from a block leaving the local at k) past dispatch d. */
static bool thread_edge(threader *t, tl_cfg_edge *e, uint32_t local, int32_t k) {
  uint32_t d = e->to;
  tl_cfg_block *db = tblock(t, d);
  uint32_t pick = decide(db, local, k);
  if (pick == UINT32_MAX) return false;
  tl_cfg_edge *out = &TL_VEC_AT(&db->edges, tl_cfg_edge, pick);
  if (out->to == d) return false;
  e->code = seq(t->m, t->f, seq(t->m, t->f, e->code, db->code), out->code);
  e->to = out->to;
  return true;
}

static bool thread_local(threader *t, uint32_t local, uint32_t entry) {
  lval *in = entry_values(t, local, entry);
  bool changed = false;
  if (!in) return false;
  for (uint32_t b = 0; b < t->n; b++) {
    tl_cfg_block *bb = tblock(t, b);
    lval out = block_out(t, bb, local, in[b]);
    for (uint32_t i = 0; i < bb->edges.n; i++) {
      tl_cfg_edge *e = &TL_VEC_AT(&bb->edges, tl_cfg_edge, i);
      if (t->disp[e->to] != local) continue;
      lval v = transfer(t->m, t->f, e->code, local, out);
      if (v.kind == V_CONST && thread_edge(t, e, local, v.k)) {
        changed = true;
        bb = tblock(t, b);
      }
    }
  }
  tl_free(in);
  return changed;
}

/* Empty blocks with one unconditional edge are skipped by their preds. */
static bool skip_empty(threader *t) {
  bool changed = false;
  for (uint32_t b = 0; b < t->n; b++) {
    tl_cfg_block *bb = tblock(t, b);
    for (uint32_t i = 0; i < bb->edges.n; i++) {
      tl_cfg_edge *e = &TL_VEC_AT(&bb->edges, tl_cfg_edge, i);
      for (uint32_t hops = 0; hops < 64; hops++) {
        tl_cfg_block *to = tblock(t, e->to);
        if (to->code || to->switch_on || to->edges.n != 1) break;
        tl_cfg_edge *only = &TL_VEC_AT(&to->edges, tl_cfg_edge, 0);
        if (only->cond || only->code || only->to == e->to) break;
        e->to = only->to;
        changed = true;
      }
    }
  }
  return changed;
}

/* ---- removing sets nothing reads ---------------------------------------- */
static bool reads_local(threader *t, tl_expr *e, uint32_t local) {
  bool w, r;
  rw_of(t->m, t->f, e, local, &w, &r);
  return r;
}

static bool is_const_set(const tl_expr *s, uint32_t local) {
  return s->op == TL_OP_LOCAL_SET && s->imm.index == local && s->kid[0]->op == TL_OP_I32_CONST;
}

/* Liveness before a statement list (or one statement) given liveness after
 * it; with strip, constant sets of the local that nothing reads are
 * removed on the way. A constant set is the only kill (other writes may be
 * conditional). */
static bool live_before(threader *t, tl_expr **slot, uint32_t local, bool live, bool strip) {
  tl_expr *e = *slot;
  if (!e) return live;
  bool list = e->op == TL_OP_BLOCK && e->imm.block.label == TL_NO_LABEL;
  uint32_t n = list ? e->nkid : 1, out = n;
  for (uint32_t i = n; i-- > 0;) {
    tl_expr **sp = list ? &e->kid[i] : slot;
    if (is_const_set(*sp, local)) {
      if (strip && !live) {
        *sp = NULL;
        out--;
      }
      live = false;
    } else if (reads_local(t, *sp, local)) {
      live = true;
    }
  }
  if (strip && list && out != n) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
      if (e->kid[i]) e->kid[k++] = e->kid[i];
    e->nkid = k;
  }
  return live;
}

/* Live at the end of a block's code: its decision and the chosen edge. */
static bool live_at_exit(threader *t, tl_cfg_block *bb, uint32_t local, const uint8_t *live_in,
                         bool strip) {
  bool live = bb->switch_on && reads_local(t, bb->switch_on, local);
  for (uint32_t i = 0; i < bb->edges.n; i++) {
    tl_cfg_edge *e = &TL_VEC_AT(&bb->edges, tl_cfg_edge, i);
    live |= e->cond && reads_local(t, e->cond, local);
    live |= live_before(t, &e->code, local, live_in[e->to], strip);
  }
  return live;
}

/* Backward liveness of one local to a fixpoint; then dead constant sets
 * go, from block code and edge code alike. */
static void remove_dead_sets(threader *t, uint32_t local) {
  uint8_t *live_in = tl_scratch_calloc(t->n, 1);
  if (!live_in) {
    t->oom = true;
    return;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = t->n; b-- > 0;) {
      tl_cfg_block *bb = tblock(t, b);
      bool live = live_before(t, &bb->code, local, live_at_exit(t, bb, local, live_in, false), false);
      if (live && !live_in[b]) {
        live_in[b] = 1;
        changed = true;
      }
    }
  }
  for (uint32_t b = 0; b < t->n; b++) {
    tl_cfg_block *bb = tblock(t, b);
    live_before(t, &bb->code, local, live_at_exit(t, bb, local, live_in, true), true);
  }
  tl_free(live_in);
}

/* false when out of memory (g is then left half threaded). */
static bool jump_thread(tl_module *m, tl_func *f, tl_cfg *g, uint32_t entry) {
  threader t = {m, f, g, (uint32_t)g->blocks.n, NULL, false};
  for (int round = 0; round < 8 && !t.oom; round++) {
    t.n = (uint32_t)g->blocks.n;
    tl_free(t.disp);
    t.disp = tl_scratch_realloc(NULL, t.n, sizeof *t.disp);
    uint8_t *seen = tl_scratch_calloc(f->nlocal + 1, 1);
    if (!t.disp || !seen) {
      tl_free(seen);
      t.oom = true;
      break;
    }
    bool changed = skip_empty(&t);
    for (uint32_t b = 0; b < t.n; b++) t.disp[b] = dispatch_local(m, f, tblock(&t, b));
    for (uint32_t b = 0; b < t.n; b++) {
      uint32_t l = t.disp[b];
      if (l == UINT32_MAX || seen[l]) continue;
      seen[l] = 1;
      changed |= thread_local(&t, l, entry);
    }
    for (uint32_t l = 0; l < f->nlocal; l++)
      if (seen[l]) remove_dead_sets(&t, l);
    tl_free(seen);
    if (!changed) break;
  }
  tl_free(t.disp);
  return !t.oom;
}

/* ------------------------------------------------------------ the pass */
/* Builds the graph of f; NULL if f's control flow carries values, or
 * (*oom set) when out of memory. */
static tl_cfg *graph_of(tl_module *m, tl_func *f, uint32_t *entry, bool *oom) {
  builder b = {m, f, tl_cfg_new(m, f), tl_scratch_realloc(NULL, f->nlabel + 1, sizeof(uint32_t)), 0, {0}, false, false};
  if (!b.g || !b.target) {
    if (b.g) tl_cfg_free(b.g);
    tl_free(b.target);
    *oom = true;
    return NULL;
  }
  for (uint32_t i = 0; i <= f->nlabel; i++) b.target[i] = UINT32_MAX;
  bool ok = build_graph(&b, entry);
  tl_vec_free(&b.frames);
  tl_free(b.target);
  *oom = b.oom;
  if (ok) return b.g;
  tl_cfg_free(b.g);
  return NULL;
}

/* Threading may jump into the middle of a loop (an irreducible graph);
 * then the function is structured again without threading, so no helper
 * variable is ever added. The IR statements are shared by both graphs:
 * building and structuring never change them. */
tl_status tl_pass_rereloop(tl_pass_ctx *ctx, tl_func *f) {
  tl_module *m = ctx->m;
  if (!f->body || f->body->op != TL_OP_BLOCK) return TL_OK;
  tl_expr *code = NULL;
  for (int attempt = 0; attempt < 2 && !code; attempt++) {
    uint32_t entry;
    bool oom = false;
    tl_cfg *g = graph_of(m, f, &entry, &oom);
    if (oom) return tl_nomem(ctx->err, "rereloop");
    if (!g) return TL_OK;
    if (attempt == 0 && !jump_thread(m, f, g, entry)) {
      tl_cfg_free(g);
      return tl_nomem(ctx->err, "rereloop");
    }
    tl_cfg_options opt = {0};
    code = tl_cfg_structure(g, entry, &opt);
    oom = g->oom;
    if (g->stats.dispatches) code = NULL;
    tl_cfg_free(g);
    if (oom) return tl_nomem(ctx->err, "rereloop");
  }
  if (!code) return TL_OK;
  tl_expr *body = tl_expr_new(m, TL_OP_BLOCK, 0);
  if (tl_type_arity(m, tl_func_type(m, f)->results)) {
    /* a final `return v` falls off the end again as the body's value */
    tl_expr *last = code->nkid ? code->kid[code->nkid - 1] : NULL;
    if (code->imm.block.label == TL_NO_LABEL && last && last->op == TL_OP_RETURN && last->nkid == 1) {
      for (uint32_t i = 0; i + 1 < code->nkid; i++) tl_expr_push_kid(m, body, code->kid[i]);
      tl_expr_push_kid(m, body, last->kid[0]);
    } else {
      tl_expr_push_kid(m, body, code);
      tl_expr_push_kid(m, body, tl_make_unreachable(m));
    }
  } else {
    tl_expr_push_kid(m, body, code);
  }
  f->body = body;
  tl_func_refinalize(m, f);
  return TL_OK;
}
