/* optimize_casts.c — optimize-casts: after `ref.cast T (local.get $x)` (or
 * ref.as_non_null, or the same of a local.tee $x) has run, later reads of
 * $x on the same straight-line path, before $x is written again, read a new
 * local that the cast tees instead, so they carry the more precise type
 * (and later casts of them fold away). Paths end where control merges:
 * loops, if arms, try bodies and handlers, the end of any block.
 * Assumes valid IR. Guarantees the same behaviour (the cast ran first). */
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
    if (k->op == TL_OP_LOCAL_GET || k->op == TL_OP_LOCAL_TEE) note_cast(w->m, c, slot, k->imm.index);
  }
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
  tl_free(c.best);
  return TL_OK;
}
