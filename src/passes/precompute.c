/* precompute.c — constant folding with the interpreter's semantics, and
 * constant propagation through locals (precompute-propagate).
 * Folding: every maximal subtree made only of constants and pure operators
 * is evaluated by the reference interpreter (tl_interp_eval) and replaced by
 * its value; a subtree that traps is left alone. A folded subtree has no
 * unreachable operand, so its type is the constant's and no type changes.
 * Propagation: one iterative walk builds basic blocks over the tree (joins
 * at block/if ends, headers at loops; dead code gets no block), then each
 * local.get takes the meet of the local's definitions that reach it (sets,
 * tees, and the function entry: zero for declared locals, unknown for
 * params; a catch arm's payload, unknown). Whatever may throw inside a
 * try body has edges to that try's handlers (to every enclosing try's:
 * conservative), from which the catch arms start; a try_table's go to its
 * clauses' labels. A get all of whose reaching definitions are the same constant
 * becomes that constant; rounds repeat while folding exposes new constants.
 * Assumes valid IR; guarantees the same behaviour and the same types. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { FOLDABLE = 1 }; /* aux bit: subtree of constants and pure operators */
#define NONE UINT32_MAX

static bool is_const(const tl_expr *e) {
  return e->op == TL_OP_I32_CONST || e->op == TL_OP_I64_CONST || e->op == TL_OP_F32_CONST ||
         e->op == TL_OP_F64_CONST || e->op == TL_OP_V128_CONST;
}

/* An operator whose value the interpreter may compute here. Relaxed SIMD
 * ops are pure but excluded: the interpreter's answer is one of several an
 * engine may give, and folding would fix it for every engine. */
static bool pure_op(const tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  const uint32_t bad = TL_F_READS_MEM | TL_F_WRITES_MEM | TL_F_READS_TABLE | TL_F_WRITES_TABLE |
                       TL_F_READS_LOCAL | TL_F_WRITES_LOCAL | TL_F_READS_GLOBAL | TL_F_WRITES_GLOBAL |
                       TL_F_CALL | TL_F_BRANCH | TL_F_NORETURN | TL_F_CONTROL | TL_F_ATOMIC |
                       TL_F_RELAXED;
  if (oi->flags & bad) return false;
  return oi->nops != TL_SIG_SPECIAL || e->op == TL_OP_SELECT;
}

static bool foldable(const tl_expr *e) {
  if (is_const(e)) return true;
  if (!pure_op(e) || e->nkid == 0 || !tl_type_is_concrete(e->type) || tl_type_is_tuple(e->type))
    return false;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (!e->kid[i] || !(e->kid[i]->aux & FOLDABLE)) return false;
  return true;
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

/* ---- the walk: foldable marks, fold candidates, and the local graph ------ */
typedef struct { tl_expr **slot; uint32_t next, a, b; } frame;
typedef struct { tl_expr **slot; uint32_t bb; tl_expr *parent; } action; /* get (parent), set or tee */
typedef struct { uint32_t from, to; } edge;
typedef struct { uint32_t bb, next; } pending;
/* An enclosing try body: where what throws there may go (a legacy try's
 * handler block, from which its catch arms start; a try_table's clauses). */
typedef struct { uint32_t handler; const tl_expr *table; } try_ctx;

typedef struct {
  tl_module *m;
  tl_func *f;
  bool graph;        /* build the local graph too (propagation) */
  tl_vec cands;      /* tl_expr **: maximal foldable non-constant subtrees */
  tl_vec brifs;      /* tl_expr **: valueless br_ifs, in post-order (fold_br_ifs) */
  tl_vec actions;    /* action, in execution order, grouped by block */
  tl_vec edges;      /* edge */
  tl_vec pend;       /* pending: branches to a block/if label not closed yet */
  uint32_t *label_head, *label_hdr; /* per label: pending list, loop header */
  uint32_t nbb, cur; /* block count; current block or NONE in dead code */
  tl_vec trys;       /* try_ctx: the try bodies the walk is in, innermost last */
  tl_vec ends;       /* uint32_t: blocks ending a try's body or arm (a stack: a
                        try's are those from its frame's b on) */
  tl_expr *parent;   /* of the leaf leave() is given (NULL: not a leaf) */
} graph;

static uint32_t new_bb(graph *g, uint32_t pred) {
  uint32_t bb = g->nbb++;
  if (pred != NONE) TL_VEC_PUSH(&g->edges, edge, ((edge){pred, bb}));
  return bb;
}

static void branch_to(graph *g, uint32_t label) {
  if (g->cur == NONE) return;
  if (g->label_hdr[label] != NONE) {
    TL_VEC_PUSH(&g->edges, edge, ((edge){g->cur, g->label_hdr[label]}));
    return;
  }
  TL_VEC_PUSH(&g->pend, pending, ((pending){g->cur, g->label_head[label]}));
  g->label_head[label] = (uint32_t)g->pend.n - 1;
}

/* Control meets at the end of a construct: from the sources s[0..n) and
 * the branches to label. Stays in the current block when that is the only
 * live source (its actions stay contiguous). */
static void join(graph *g, const uint32_t *s, uint32_t n, uint32_t label) {
  uint32_t live = 0, only = NONE;
  for (uint32_t i = 0; i < n; i++)
    if (s[i] != NONE) live++, only = s[i];
  bool branches = label != TL_NO_LABEL && g->label_head[label] != NONE;
  if (!branches && live <= 1 && (live == 0 || only == g->cur)) {
    g->cur = only;
    return;
  }
  uint32_t bb = new_bb(g, NONE);
  for (uint32_t i = 0; i < n; i++)
    if (s[i] != NONE) TL_VEC_PUSH(&g->edges, edge, ((edge){s[i], bb}));
  if (branches) {
    for (uint32_t p = g->label_head[label]; p != NONE; p = TL_VEC_AT(&g->pend, pending, p).next)
      TL_VEC_PUSH(&g->edges, edge, ((edge){TL_VEC_AT(&g->pend, pending, p).bb, bb}));
    g->label_head[label] = NONE;
  }
  g->cur = bb;
}

/* The end of a try's body or of one of its arms: a source of the block
 * after the try. */
static void note_end(graph *g) {
  if (g->cur != NONE) TL_VEC_PUSH(&g->ends, uint32_t, g->cur);
}

/* Something that may throw, at the end of the current block (a new one
 * follows it): it may go to the handlers of every try body around it (all
 * of them, not only the one that catches: more edges only make fewer
 * constants). */
static void may_throw(graph *g) {
  if (g->cur == NONE || !g->trys.n) return;
  for (size_t i = 0; i < g->trys.n; i++) {
    try_ctx *t = &TL_VEC_AT(&g->trys, try_ctx, i);
    if (!t->table) {
      TL_VEC_PUSH(&g->edges, edge, ((edge){g->cur, t->handler}));
      continue;
    }
    for (uint32_t k = 1; k < t->table->nkid; k++) branch_to(g, t->table->kid[k]->imm.idx2.a);
  }
  /* the handlers see the locals as they are here, not as the block ends */
  g->cur = new_bb(g, g->cur);
}

/* Before child i of a try or try_table: the body is a try body; each
 * catch arm starts from the handler block. */
static void between_try(graph *g, frame *fr, uint32_t i) {
  tl_expr *e = *fr->slot;
  if (i == 0) {
    fr->a = new_bb(g, NONE);
    fr->b = (uint32_t)g->ends.n;
    try_ctx t = {fr->a, e->op == TL_OP_TRY_TABLE ? e : NULL};
    TL_VEC_PUSH(&g->trys, try_ctx, t);
    return;
  }
  if (i == 1) g->trys.n--; /* past the body (a try_table: its clauses) */
  if (e->op != TL_OP_TRY) return;
  note_end(g); /* the body's or the previous arm's */
  if (e->kid[i]->op == TL_OP_DELEGATE) g->cur = NONE;
  else g->cur = new_bb(g, fr->a);
}

/* A try's end: its body's and arms' ends and the branches to its label
 * meet (a try_table's: its body's and its label's, as a block's). */
static void leave_try(graph *g, frame *fr) {
  tl_expr *e = *fr->slot;
  if (e->nkid == 1) g->trys.n--;
  note_end(g); /* the body's, the last arm's (after a delegate: none) */
  uint32_t n = (uint32_t)g->ends.n - fr->b, *s = n ? &TL_VEC_AT(&g->ends, uint32_t, fr->b) : NULL;
  join(g, s, n, e->imm.block.label); /* stays in the current block only if it is the one source */
  g->ends.n = fr->b;
}

static void enter(graph *g, frame *fr) {
  tl_expr *e = *fr->slot;
  if (e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX && g->cur != NONE) /* the payload */
    TL_VEC_PUSH(&g->actions, action, ((action){fr->slot, g->cur, NULL}));
  if (e->op == TL_OP_LOOP && e->imm.block.label != TL_NO_LABEL && g->cur != NONE) {
    g->cur = new_bb(g, g->cur);
    g->label_hdr[e->imm.block.label] = g->cur;
  }
}

/* Before child i of an if: the arms start from the condition's block. */
static void between(graph *g, frame *fr, uint32_t i) {
  if (i == 1) {
    fr->a = g->cur;
    g->cur = fr->a == NONE ? NONE : new_bb(g, fr->a);
  } else if (i == 2) {
    fr->b = g->cur;
    g->cur = fr->a == NONE ? NONE : new_bb(g, fr->a);
  }
}

static void leave(graph *g, frame *fr) {
  tl_expr *e = *fr->slot;
  uint32_t s[2];
  switch (e->op) {
  case TL_OP_LOCAL_GET: case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE:
    if (g->cur != NONE) TL_VEC_PUSH(&g->actions, action, ((action){fr->slot, g->cur, g->parent}));
    return;
  case TL_OP_BLOCK:
    if (e->imm.block.label != TL_NO_LABEL) s[0] = g->cur, join(g, s, 1, e->imm.block.label);
    return;
  case TL_OP_LOOP:
    if (e->imm.block.label != TL_NO_LABEL) g->label_hdr[e->imm.block.label] = NONE;
    return;
  case TL_OP_IF:
    if (e->nkid == 3) s[0] = fr->b, s[1] = g->cur;
    else s[0] = g->cur, s[1] = fr->a;
    join(g, s, 2, e->imm.block.label);
    return;
  case TL_OP_TRY: case TL_OP_TRY_TABLE: leave_try(g, fr); return;
  case TL_OP_BR: branch_to(g, e->imm.label); break;
  case TL_OP_BR_IF: /* the branch leaves with the block's state so far */
  case TL_OP_BR_ON_NULL: case TL_OP_BR_ON_NON_NULL: case TL_OP_BR_ON_CAST: case TL_OP_BR_ON_CAST_FAIL:
    branch_to(g, e->imm.label);
    if (g->cur != NONE) g->cur = new_bb(g, g->cur);
    return;
  case TL_OP_BR_TABLE:
    for (uint32_t i = 0; i < e->imm.table->n; i++) branch_to(g, e->imm.table->targets[i]);
    branch_to(g, e->imm.table->def);
    break;
  default: break;
  }
  uint32_t fl = tl_ops[e->op].flags;
  if ((fl & TL_F_THROWS) || (fl & (TL_F_CALL | TL_F_NORETURN)) == TL_F_CALL) may_throw(g);
  if (fl & TL_F_NORETURN) g->cur = NONE;
}

/* Marks foldable subtrees, collects fold candidates (foldable non-constant
 * kids of non-foldable nodes) and, with g->graph, the local graph. */
static void walk(graph *g) {
  tl_vec st = {0};
  TL_VEC_PUSH(&st, frame, ((frame){&g->f->body, 0, NONE, NONE}));
  if (g->graph) enter(g, &TL_VEC_AT(&st, frame, 0));
  while (st.n) {
    frame *fr = &TL_VEC_AT(&st, frame, st.n - 1);
    tl_expr *e = *fr->slot;
    if (fr->next < e->nkid) {
      uint32_t i = fr->next++;
      tl_expr *k = e->kid[i];
      if (!k) continue;
      if (g->graph && e->op == TL_OP_IF) between(g, fr, i);
      if (g->graph && (e->op == TL_OP_TRY || e->op == TL_OP_TRY_TABLE)) between_try(g, fr, i);
      if (!k->nkid && !(tl_ops[k->op].flags & TL_F_CONTROL)) { /* a leaf: no frame */
        frame leaf = {&e->kid[i], 0, NONE, NONE};
        k->aux = is_const(k) ? FOLDABLE : 0;
        g->parent = e;
        if (g->graph) leave(g, &leaf);
        g->parent = NULL;
        continue;
      }
      TL_VEC_PUSH(&st, frame, ((frame){&e->kid[i], 0, NONE, NONE}));
      if (g->graph) enter(g, &TL_VEC_AT(&st, frame, st.n - 1));
      continue;
    }
    e->aux = foldable(e) ? FOLDABLE : 0;
    if (!e->aux)
      for (uint32_t i = 0; i < e->nkid; i++)
        if (e->kid[i] && (e->kid[i]->aux & FOLDABLE) && !is_const(e->kid[i]))
          TL_VEC_PUSH(&g->cands, tl_expr **, &e->kid[i]);
    if (e->op == TL_OP_BR_IF && e->nkid == 1) TL_VEC_PUSH(&g->brifs, tl_expr **, fr->slot);
    if (g->graph) leave(g, fr);
    st.n--;
  }
  tl_vec_free(&st);
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

/* ---- br_if with a known condition --------------------------------------
 * A valueless br_if whose condition folds to a constant once each
 * `local.tee $x (const)` in it is read as its constant becomes those tees as
 * sets, then `br` (non-zero) or nothing (zero); e.g. an inlined strlen's
 * `br_if (i32.eqz (i32.and (local.tee $p (i32.const 1092)) (i32.const 3)))`.
 * The branch becoming unconditional (or going away) can change types: the
 * function is refinalized when any changed. */
enum { BRIF_MAX_NODES = 32 };

typedef struct { tl_module *m; tl_func *f; tl_vec st, tees; bool changed; } brif_ctx;

/* Collects the slots of the tees; false if some node is neither a constant,
 * a pure operator nor a tee of a constant. */
static bool tees_of(brif_ctx *c, tl_expr **root) {
  c->st.n = c->tees.n = 0;
  TL_VEC_PUSH(&c->st, tl_expr **, root);
  uint32_t n = 0;
  while (c->st.n) {
    tl_expr **slot = TL_VEC_AT(&c->st, tl_expr **, --c->st.n), *e = *slot;
    if (++n > BRIF_MAX_NODES || !e) return false;
    if (e->op == TL_OP_LOCAL_TEE) {
      if (!is_const(e->kid[0])) return false;
      TL_VEC_PUSH(&c->tees, tl_expr **, slot);
      continue;
    }
    if (!is_const(e) && (!pure_op(e) || !tl_type_is_concrete(e->type) || tl_type_is_tuple(e->type)))
      return false;
    for (uint32_t i = e->nkid; i-- > 0;) TL_VEC_PUSH(&c->st, tl_expr **, &e->kid[i]);
  }
  return true;
}

static void brif_one(brif_ctx *c, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op != TL_OP_BR_IF || e->nkid != 1 || e->kid[0]->type != TL_I32) return;
  if (!tees_of(c, &e->kid[0])) return;
  /* The tees, in evaluation order (pre-order, kids left to right). */
  size_t nt = c->tees.n;
  tl_expr **tee = tl_scratch_realloc(NULL, nt + 1, sizeof *tee);
  if (!tee) return; /* out of memory: the br_if stays */
  for (size_t i = 0; i < nt; i++) {
    tl_expr **ts = TL_VEC_AT(&c->tees, tl_expr **, i);
    tee[i] = *ts, *ts = tee[i]->kid[0];
  }
  tl_value v;
  uint32_t nout = 0;
  tl_error err;
  bool ok = tl_interp_eval(c->m, c->f, e->kid[0], &v, 1, &nout, 1000, &err) == TL_OK && nout == 1;
  for (size_t i = 0; i < nt; i++) *TL_VEC_AT(&c->tees, tl_expr **, i) = tee[i];
  if (ok) {
    tl_expr **kids = tee; /* reused in place: kids[k] is made from tee[k] (k <= i) */
    uint32_t k = 0;
    for (size_t i = 0; i < nt; i++)
      kids[k++] = tl_make_local_set(c->m, c->f, tee[i]->imm.index, tee[i]->kid[0], false);
    if (v.of.i32) {
      tl_expr *br = tl_expr_new(c->m, TL_OP_BR, 0);
      br->imm.label = e->imm.label;
      br->type = TL_UNREACHABLE;
      kids[k++] = br;
    }
    *slot = k == 0 ? tl_make_nop(c->m) : k == 1 ? kids[0] : tl_make_block(c->m, TL_OP_BLOCK, TL_NO_LABEL, kids, k);
    c->changed = true;
  }
  tl_free(tee);
}

/* The br_ifs the last walk found, in its post-order (as a walk of the tree
 * would meet them: folding since only replaced pure subtrees, and a br_if
 * replaced here holds no later one). */
static void fold_br_ifs(tl_module *m, tl_func *f, tl_vec *brifs) {
  brif_ctx c = {.m = m, .f = f};
  for (size_t i = 0; i < brifs->n; i++) brif_one(&c, TL_VEC_AT(brifs, tl_expr **, i));
  tl_vec_free(&c.st), tl_vec_free(&c.tees);
  if (c.changed) tl_func_refinalize(m, f);
}

static void precompute_func(tl_module *m, tl_func *f) {
  graph g = {.m = m, .f = f};
  walk(&g);
  fold_all(m, f, &g.cands);
  tl_vec_free(&g.cands);
  fold_br_ifs(m, f, &g.brifs);
  tl_vec_free(&g.brifs);
}

tl_status tl_pass_precompute(tl_pass_ctx *ctx, tl_func *f) {
  precompute_func(ctx->m, f);
  return TL_OK;
}

/* ---- propagation: reaching definitions, as a lattice per local ----------- */
enum { TOP, CONST, BOTTOM };
typedef struct { uint8_t kind; uint16_t op; tl_imm imm; } val;

static bool same_const(const val *a, const val *b) {
  return a->op == b->op && tl_const_imm_eq(a->op, a->imm, b->imm);
}

static void meet(val *acc, const val *v) {
  if (v->kind == TOP || acc->kind == BOTTOM) return;
  if (acc->kind == TOP) *acc = *v;
  else if (v->kind == BOTTOM || !same_const(acc, v)) acc->kind = BOTTOM;
}

static val value_of(const tl_expr *e) {
  val v = {BOTTOM, 0, {0}};
  if (is_const(e)) v.kind = CONST, v.op = e->op, v.imm = e->imm;
  return v;
}

static bool numeric(tl_type t) { return t >= TL_I32 && t <= TL_V128; }

static val entry_value(const tl_module *m, const tl_func *f, uint32_t l) {
  static const uint16_t zero_op[] = {[TL_I32] = TL_OP_I32_CONST, [TL_I64] = TL_OP_I64_CONST,
                                     [TL_F32] = TL_OP_F32_CONST, [TL_F64] = TL_OP_F64_CONST,
                                     [TL_V128] = TL_OP_V128_CONST};
  static uint8_t zero16[16]; /* never written: replace copies it */
  val v = {BOTTOM, 0, {0}};
  if (l >= tl_func_nparams(m, f)) v.kind = CONST, v.op = zero_op[f->local[l]];
  if (v.op == TL_OP_V128_CONST) v.imm.v128 = zero16;
  return v;
}

typedef struct { uint32_t local, bb, idx; val v; } item; /* a def or a query */

/* Stable counting sort of items by local; NULL when out of memory. */
static item *by_local(tl_vec *v, uint32_t nlocal, uint32_t **start) {
  uint32_t *st = tl_scratch_calloc((size_t)nlocal + 2, sizeof *st);
  item *out = tl_scratch_realloc(NULL, v->n + 1, sizeof *out);
  if (!st || !out) {
    tl_free(st), tl_free(out);
    return NULL;
  }
  for (size_t i = 0; i < v->n; i++) st[TL_VEC_AT(v, item, i).local + 2]++;
  for (uint32_t l = 0; l < nlocal; l++) st[l + 2] += st[l + 1];
  for (size_t i = 0; i < v->n; i++) out[st[TL_VEC_AT(v, item, i).local + 1]++] = TL_VEC_AT(v, item, i);
  *start = st; /* local l's items are [st[l], st[l+1]) */
  return out;
}

typedef struct {
  uint32_t *pstart, *pred;        /* predecessors, CSR by block */
  uint32_t *dmark, *mmark, *vmark; /* per block: def / memo / visit stamps */
  val *dval, *mval;
  tl_vec work;                    /* uint32_t blocks */
  uint64_t budget;                /* blocks expanded, for all searches */
  bool exhausted;                 /* some search ran out of it */
} solver;

/* The local's value at the entry of block q: a backward search that stops
 * at blocks defining it and at blocks already solved. Every block it
 * expands reaches (at least one of) the same definitions, so when the
 * result is a constant those blocks have that value too. */
static val solve(solver *s, const val *entry, uint32_t stamp, uint32_t vstamp, uint32_t q) {
  val acc = {TOP, 0, {0}};
  s->work.n = 0;
  TL_VEC_PUSH(&s->work, uint32_t, q); /* not marked: a loop may bring q's own defs back */
  for (size_t i = 0; i < s->work.n && acc.kind != BOTTOM; i++) {
    uint32_t h = TL_VEC_AT(&s->work, uint32_t, i);
    if (h == 0) meet(&acc, entry);
    for (uint32_t k = s->pstart[h]; k < s->pstart[h + 1] && acc.kind != BOTTOM; k++) {
      uint32_t p = s->pred[k];
      if (s->vmark[p] == vstamp) continue;
      s->vmark[p] = vstamp;
      if (s->dmark[p] == stamp) meet(&acc, &s->dval[p]);
      else if (s->mmark[p] == stamp) meet(&acc, &s->mval[p]);
      else if (p == q) continue; /* already expanded */
      else if (!s->budget) acc.kind = BOTTOM, s->exhausted = true;
      else {
        s->budget--;
        TL_VEC_PUSH(&s->work, uint32_t, p);
      }
    }
  }
  size_t n = acc.kind == CONST ? s->work.n : 1;
  for (size_t i = 0; i < n; i++) {
    uint32_t h = TL_VEC_AT(&s->work, uint32_t, i);
    s->mmark[h] = stamp, s->mval[h] = acc;
  }
  return acc;
}

static void replace(tl_module *m, tl_expr **slot, const val *v) {
  tl_expr *k = tl_expr_new(m, (tl_op)v->op, 0);
  if (tl_ops[v->op].imm == TL_IMM_V128) memcpy(k->imm.v128, v->imm.v128, 16); /* its own bytes */
  else k->imm = v->imm;
  k->type = (*slot)->type;
  *slot = k;
}

/* Whether another round could find more after a get under `parent`
 * became a constant: a new fold (a pure parent), a new constant definition
 * (a set or tee of it), or unknown. */
static bool may_expose(const tl_expr *parent) {
  return !parent || parent->op == TL_OP_LOCAL_SET || parent->op == TL_OP_LOCAL_TEE || pure_op(parent);
}

/* Replaces the gets whose reaching definitions are one constant; returns
 * how many, and sets *more when another round could find more (see
 * may_expose; or a search ran out of budget, which the next round's
 * fewer queries might not). Out of memory sets *oom and stops; each
 * replacement done is a get turned into a constant of its type, so f
 * stays valid. */
static uint32_t propagate(graph *g, bool *oom, bool *more) {
  tl_module *m = g->m;
  tl_func *f = g->f;
  uint32_t nl = f->nlocal, nbb = g->nbb, nrep = 0;
  uint32_t *last = tl_scratch_realloc(NULL, (size_t)nl + 1, sizeof *last);
  uint32_t *defat = tl_scratch_realloc(NULL, (size_t)nl + 1, sizeof *defat);
  if (!last || !defat) {
    tl_free(last), tl_free(defat);
    *oom = true;
    return 0;
  }
  for (uint32_t l = 0; l < nl; l++) last[l] = NONE;
  tl_vec defs = {0}, queries = {0};
  /* In-block definitions first: a get after a set in its block sees it. */
  for (size_t i = 0; i < g->actions.n; i++) {
    action *a = &TL_VEC_AT(&g->actions, action, i);
    tl_expr *e = *a->slot;
    bool payload = e->op == TL_OP_CATCH; /* a caught value: not known */
    uint32_t l = payload ? e->imm.idx2.a : e->imm.index;
    if (!numeric(f->local[l])) continue;
    if (e->op != TL_OP_LOCAL_GET) {
      item d = {l, a->bb, 0, payload ? (val){BOTTOM, 0, {0}} : value_of(e->kid[0])};
      if (last[l] == a->bb) {
        TL_VEC_AT(&defs, item, defat[l]).v = d.v;
      } else {
        last[l] = a->bb, defat[l] = (uint32_t)defs.n;
        TL_VEC_PUSH(&defs, item, d);
      }
    } else if (last[l] == a->bb) {
      val v = TL_VEC_AT(&defs, item, defat[l]).v;
      if (v.kind == CONST) replace(m, a->slot, &v), nrep++, *more |= may_expose(a->parent);
    } else {
      TL_VEC_PUSH(&queries, item, ((item){l, a->bb, (uint32_t)i, {TOP, 0, {0}}}));
    }
  }
  tl_free(last);
  tl_free(defat);
  if (queries.n) {
    solver s = {0};
    s.pstart = tl_scratch_calloc((size_t)nbb + 2, sizeof(uint32_t));
    s.pred = tl_scratch_realloc(NULL, g->edges.n + 1, sizeof(uint32_t));
    s.dmark = tl_scratch_calloc((size_t)nbb + 1, sizeof(uint32_t));
    s.mmark = tl_scratch_calloc((size_t)nbb + 1, sizeof(uint32_t));
    s.vmark = tl_scratch_calloc((size_t)nbb + 1, sizeof(uint32_t));
    s.dval = tl_scratch_realloc(NULL, (size_t)nbb + 1, sizeof(val));
    s.mval = tl_scratch_realloc(NULL, (size_t)nbb + 1, sizeof(val));
    uint32_t *ds = NULL, *qs = NULL;
    item *dv = NULL, *qv = NULL;
    if (s.pstart && s.pred && s.dmark && s.mmark && s.vmark && s.dval && s.mval) {
      dv = by_local(&defs, nl, &ds);
      if (dv) qv = by_local(&queries, nl, &qs);
    }
    if (!qv) {
      *oom = true;
    } else {
      for (size_t i = 0; i < g->edges.n; i++) s.pstart[TL_VEC_AT(&g->edges, edge, i).to + 2]++;
      for (uint32_t b = 0; b < nbb; b++) s.pstart[b + 2] += s.pstart[b + 1];
      for (size_t i = 0; i < g->edges.n; i++) {
        edge ed = TL_VEC_AT(&g->edges, edge, i);
        s.pred[s.pstart[ed.to + 1]++] = ed.from;
      }
      s.budget = 64 * ((uint64_t)nbb + g->actions.n) + (1u << 16);
      uint32_t vstamp = 0;
      for (uint32_t l = 0; l < nl; l++) {
        if (qs[l] == qs[l + 1]) continue;
        uint32_t stamp = l + 1;
        val entry = entry_value(m, f, l);
        for (uint32_t k = ds[l]; k < ds[l + 1]; k++) s.dmark[dv[k].bb] = stamp, s.dval[dv[k].bb] = dv[k].v;
        for (uint32_t k = qs[l]; k < qs[l + 1]; k++) {
          item *q = &qv[k];
          val v = s.mmark[q->bb] == stamp ? s.mval[q->bb] : solve(&s, &entry, stamp, ++vstamp, q->bb);
          action *a = &TL_VEC_AT(&g->actions, action, q->idx);
          if (v.kind == CONST) replace(m, a->slot, &v), nrep++, *more |= may_expose(a->parent);
        }
      }
    }
    tl_free(ds), tl_free(qs), tl_free(dv), tl_free(qv);
    tl_free(s.pstart), tl_free(s.pred), tl_free(s.dmark), tl_free(s.mmark), tl_free(s.vmark);
    tl_free(s.dval), tl_free(s.mval);
    tl_vec_free(&s.work);
    *more |= s.exhausted;
  }
  tl_vec_free(&defs);
  tl_vec_free(&queries);
  return nrep;
}

enum { MAX_ROUNDS = 8 };

tl_status tl_pass_precompute_propagate(tl_pass_ctx *ctx, tl_func *f) {
  tl_module *m = ctx->m;
  uint32_t *lab = tl_scratch_realloc(NULL, 2 * ((size_t)f->nlabel + 1), sizeof *lab);
  if (!lab) return tl_nomem(ctx->err, "precompute-propagate");
  bool oom = false; /* f stays valid: folds and replacements keep types */
  tl_vec brifs = {0};
  for (int round = 0;; round++) {
    graph g = {.m = m, .f = f, .graph = round < MAX_ROUNDS};
    brifs.n = 0;
    g.brifs = brifs; /* the last round's are kept: its replacements are leaves */
    g.label_head = lab, g.label_hdr = lab + f->nlabel + 1;
    for (uint32_t i = 0; i < 2 * (f->nlabel + 1); i++) lab[i] = NONE;
    g.cur = g.graph ? new_bb(&g, NONE) : NONE;
    walk(&g);
    fold_all(m, f, &g.cands);
    bool more = false;
    uint32_t nrep = g.graph ? propagate(&g, &oom, &more) : 0;
    tl_vec_free(&g.cands), tl_vec_free(&g.actions), tl_vec_free(&g.edges), tl_vec_free(&g.pend);
    tl_vec_free(&g.trys), tl_vec_free(&g.ends);
    brifs = g.brifs;
    /* no replacement that could expose more: the next round would find
     * nothing (its walk, folds and searches see what this one did) */
    if (!nrep || oom || !more) break;
  }
  tl_free(lab);
  if (oom) {
    tl_vec_free(&brifs);
    return tl_nomem(ctx->err, "precompute-propagate");
  }
  fold_br_ifs(m, f, &brifs);
  tl_vec_free(&brifs);
  return TL_OK;
}
