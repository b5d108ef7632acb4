/* optimize_casts.c — optimize-casts: after `ref.cast T (local.get $x)` (or
 * ref.as_non_null, or the same of a local.tee $x) has run, later reads of
 * $x on the same straight-line path, before $x is written again, read a new
 * local that the cast tees instead, so they carry the more precise type
 * (and later casts of them that the new type satisfies go). Paths end where control merges:
 * loops, if arms, try bodies and handlers, the end of any block.
 * First, a ref.cast of a local is also copied to the local's first read on
 * its path when only pure code that cannot trap lies between (early casts:
 * then the first read already has the precise type).
 * Assumes valid IR. Guarantees the same behaviour (the cast ran first, or
 * the copy fails exactly where the original would, with the same trap). */
#include "passes.h"

#include <string.h>

enum { NONE = UINT32_MAX };

typedef struct {
  tl_expr **slot;    /* where the cast is */
  uint32_t var;      /* the local it tees (NONE: not used yet) */
} cast_rec;

typedef struct { uint32_t rec; tl_expr *get; } use;

typedef struct {
  uint32_t *best;    /* by local: the most precise cast of it on this path */
  tl_vec live;       /* uint32_t: locals with best set (to clear them) */
  tl_vec recs;       /* cast_rec */
  tl_vec uses;       /* use */
  tl_vec redundant;  /* tl_expr **: casts of a use the cast type already holds */
} oc_ctx;

static void reset(oc_ctx *c) {
  for (size_t i = 0; i < c->live.n; i++) c->best[TL_VEC_AT(&c->live, uint32_t, i)] = NONE;
  c->live.n = 0;
}

static tl_type rec_type(const oc_ctx *c, uint32_t r) { return (*TL_VEC_AT(&c->recs, cast_rec, r).slot)->type; }

static bool is_cast(const tl_expr *e) {
  return (e->op == TL_OP_REF_CAST || e->op == TL_OP_REF_AS_NON_NULL) && tl_type_is_ref(e->type);
}

/* Cast *slot of local x: the best one for x unless an earlier is as precise. */
static void note_cast(tl_module *m, oc_ctx *c, tl_expr **slot, uint32_t x) {
  uint32_t b = c->best[x];
  if (b != NONE && !((*slot)->type != rec_type(c, b) && tl_type_sub(m, (*slot)->type, rec_type(c, b)))) return;
  if (b == NONE) TL_VEC_PUSH(&c->live, uint32_t, x);
  c->best[x] = (uint32_t)c->recs.n;
  TL_VEC_PUSH(&c->recs, cast_rec, ((cast_rec){slot, NONE}));
}

static void note_get(tl_module *m, oc_ctx *c, tl_expr *get) {
  uint32_t b = c->best[get->imm.index];
  if (b == NONE || get->type == TL_UNREACHABLE) return;
  tl_type t = rec_type(c, b);
  if (t != get->type && tl_type_sub(m, t, get->type)) TL_VEC_PUSH(&c->uses, use, ((use){b, get}));
}

static void forget(oc_ctx *c, uint32_t x) { c->best[x] = NONE; }

/* A cast of a read that will read a cast value of its type (or a subtype)
 * always succeeds: it goes once the read is renamed. */
static void note_redundant(tl_module *m, oc_ctx *c, tl_expr **slot) {
  if (!c->uses.n) return;
  use *u = &TL_VEC_AT(&c->uses, use, c->uses.n - 1);
  if (u->get == (*slot)->kid[0] && tl_type_sub(m, rec_type(c, u->rec), (*slot)->type))
    TL_VEC_PUSH(&c->redundant, tl_expr **, slot);
}

/* Whether e is an arm of an if (not its condition). */
static bool is_arm(tl_walk *w, const tl_expr *e) {
  tl_expr *p = tl_walk_parent(w, 1);
  return p && p->op == TL_OP_IF && e != p->kid[0];
}

/* Merge points: the start of a loop, an if arm, a try's body or handler. */
static void pre(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_LOOP || (tl_ops[e->op].flags & TL_F_EH) || is_arm(w, e)) reset(w->ctx);
}

/* ... and the end of any construct (a label may merge branches there, and
 * a tee inside must cover its reads under the local-init rule). */
static void post(tl_walk *w, tl_expr **slot) {
  oc_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if ((tl_ops[e->op].flags & (TL_F_CONTROL | TL_F_EH)) || is_arm(w, e)) {
    reset(c);
    return;
  }
  if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) forget(c, e->imm.index);
  if (e->op == TL_OP_LOCAL_GET) note_get(w->m, c, e);
  if (is_cast(e)) {
    tl_expr *k = e->kid[0];
    if (k->op == TL_OP_LOCAL_GET) note_redundant(w->m, c, slot);
    if (k->op == TL_OP_LOCAL_GET || k->op == TL_OP_LOCAL_TEE) note_cast(w->m, c, slot, k->imm.index);
  }
}


/* ---- early casts --------------------------------------------------------- */
typedef struct { tl_expr **slot; tl_type t; } early_move;

typedef struct {
  tl_expr ***first;  /* by local: the slot of its first read on this path */
  uint32_t *move;    /* by local: the move for that read, NONE */
  tl_vec live;       /* uint32_t: locals with first set */
  tl_vec moves;      /* early_move */
} ec_ctx;

static void ec_flush(ec_ctx *c) {
  for (size_t i = 0; i < c->live.n; i++) {
    uint32_t x = TL_VEC_AT(&c->live, uint32_t, i);
    c->first[x] = NULL, c->move[x] = NONE;
  }
  c->live.n = 0;
}

/* A cast may not move back past e: e has an effect, may trap otherwise
 * than a cast does (same trap: "cast failure"), or may not go on. */
static bool barrier(const tl_expr *e) {
  uint32_t fl = tl_ops[e->op].flags;
  const uint32_t bad = TL_F_WRITES_MEM | TL_F_WRITES_TABLE | TL_F_WRITES_GLOBAL | TL_F_CALL | TL_F_BRANCH |
                       TL_F_NORETURN | TL_F_THROWS | TL_F_ATOMIC | TL_F_EH | TL_F_GC_WRITE | TL_F_LABEL_USE;
  return (fl & bad) || ((fl & TL_F_TRAPS) && e->op != TL_OP_REF_CAST) || e->op == TL_OP_RETURN;
}

static void ec_cast(tl_module *m, ec_ctx *c, tl_expr *e) {
  tl_expr *g = e->kid[0];
  uint32_t x = g->imm.index;
  if (!c->first[x] || *c->first[x] == g) return;
  tl_type t = e->type, at = (*c->first[x])->type;
  if (t == at || !tl_type_sub(m, t, at)) return;
  if (c->move[x] == NONE) {
    c->move[x] = (uint32_t)c->moves.n;
    TL_VEC_PUSH(&c->moves, early_move, ((early_move){c->first[x], t}));
    return;
  }
  early_move *mv = &TL_VEC_AT(&c->moves, early_move, c->move[x]);
  if (t != mv->t && tl_type_sub(m, t, mv->t)) mv->t = t;
}

static void ec_pre(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_LOOP || (tl_ops[e->op].flags & TL_F_EH) || is_arm(w, e)) ec_flush(w->ctx);
}

static void ec_post(tl_walk *w, tl_expr **slot) {
  ec_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if ((tl_ops[e->op].flags & (TL_F_CONTROL | TL_F_EH)) || is_arm(w, e) || barrier(e)) {
    ec_flush(c);
    return;
  }
  uint32_t x = e->imm.index;
  if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) c->first[x] = NULL, c->move[x] = NONE;
  if (e->op == TL_OP_LOCAL_GET && !c->first[x] && e->type != TL_UNREACHABLE) {
    c->first[x] = slot;
    TL_VEC_PUSH(&c->live, uint32_t, x);
  }
  if (e->op == TL_OP_REF_CAST && tl_type_is_ref(e->type) && e->kid[0]->op == TL_OP_LOCAL_GET) ec_cast(w->m, c, e);
}

/* Copies casts to earlier reads; whether it did. */
static bool early_casts(tl_module *m, tl_func *f) {
  ec_ctx c = {0};
  c.first = tl_scratch_calloc(f->nlocal, sizeof *c.first);
  c.move = tl_scratch_calloc(f->nlocal, sizeof *c.move);
  if (!c.first || !c.move) tl_oom_fail();
  memset(c.move, 0xff, f->nlocal * sizeof *c.move);
  tl_walk w = {.m = m, .f = f, .ctx = &c, .pre = ec_pre, .post = ec_post};
  tl_walk_run(&w, &f->body);
  for (size_t i = 0; i < c.moves.n; i++) {
    early_move *mv = &TL_VEC_AT(&c.moves, early_move, i);
    tl_expr *k = tl_expr_new(m, TL_OP_REF_CAST, 1);
    k->imm.index = mv->t;
    k->kid[0] = *mv->slot;
    tl_expr_finalize(m, f, k);
    *mv->slot = k;
  }
  bool any = c.moves.n > 0;
  tl_vec_free(&c.live);
  tl_vec_free(&c.moves);
  tl_free(c.first);
  tl_free(c.move);
  return any;
}

/* Tee each used cast into a new local; its uses read that local. */
static bool apply(tl_module *m, tl_func *f, oc_ctx *c) {
  for (size_t i = 0; i < c->uses.n; i++) {
    use *u = &TL_VEC_AT(&c->uses, use, i);
    cast_rec *r = &TL_VEC_AT(&c->recs, cast_rec, u->rec);
    if (r->var == NONE) r->var = tl_func_add_var(m, f, (*r->slot)->type);
    u->get->imm.index = r->var;
  }
  for (size_t i = 0; i < c->recs.n; i++) {
    cast_rec *r = &TL_VEC_AT(&c->recs, cast_rec, i);
    if (r->var != NONE) *r->slot = tl_make_local_set(m, f, r->var, *r->slot, true);
  }
  for (size_t i = 0; i < c->redundant.n; i++) {
    tl_expr **slot = TL_VEC_AT(&c->redundant, tl_expr **, i);
    *slot = (*slot)->kid[0];
  }
  return c->uses.n > 0;
}

static void any_cast(tl_walk *w, tl_expr **slot) {
  if (is_cast(*slot)) *(bool *)w->ctx = true;
}

tl_status tl_pass_optimize_casts(tl_pass_ctx *ctx, tl_func *f) {
  tl_module *m = ctx->m;
  bool any = false;
  if (!f->body || !tl_func_has_gc(m, f)) return TL_OK;
  tl_walk_post_only(m, f, &f->body, any_cast, &any, TL_F_TRAPS);
  if (!any) return TL_OK;
  if (early_casts(m, f)) tl_func_refinalize(m, f);
  oc_ctx c = {0};
  c.best = tl_scratch_calloc(f->nlocal, sizeof *c.best);
  if (!c.best) tl_oom_fail();
  memset(c.best, 0xff, f->nlocal * sizeof *c.best);
  tl_walk w = {.m = m, .f = f, .ctx = &c, .pre = pre, .post = post};
  tl_walk_run(&w, &f->body);
  if (apply(m, f, &c)) tl_func_refinalize(m, f);
  tl_vec_free(&c.live);
  tl_vec_free(&c.recs);
  tl_vec_free(&c.uses);
  tl_vec_free(&c.redundant);
  tl_free(c.best);
  return TL_OK;
}
