/* dae.c — dead argument elimination (dae, dae-optimizing). Works on defined
 * functions that only direct calls reach (not exported, not the start, no
 * ref.func anywhere). A param nothing reads is removed; a param every
 * reachable call passes the same constant becomes a local set to it at
 * entry, then removed. Call sites lose the operands: pure ones are
 * deleted, otherwise all operands are evaluated in order into fresh locals
 * (removed ones dropped). A single result no call uses (every call is
 * dropped, none is a return_call, the function makes no return_call) is
 * removed: return X becomes drop X; return, the body's value is dropped
 * (when a branch targets the body's label, the old body becomes a dropped
 * inner block that returns branch to instead), and the drops at call
 * sites go. Rounds repeat while something changes.
 * dae-optimizing runs the function pipeline after each round on the
 * functions whose params or result changed (as wasm-opt does: not on the
 * callers, whose call sites only lost operands or drops).
 * Guarantees the same behaviour. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_ROUNDS = 20 };

typedef struct {
  bool direct;      /* only direct calls reach it */
  bool tail_called; /* some return_call targets it */
  bool undropped;   /* some call's result is used */
  bool tails;       /* its body has return_call(_indirect) */
  uint32_t ncalls;
  tl_expr **konst;  /* per param: the constant every call passes so far */
  uint8_t *varies;  /* per param: calls disagree (or pass non-constants) */
  const uint8_t *read; /* per param: a local.get reads it (the body's scan) */
  /* decisions */
  uint8_t *remove;  /* per param */
  bool drop_result, change;
} dinfo;

/* A call, return_call or ref.func a body holds (walk order). The walks
 * that find them run in parallel; what they say about the functions they
 * name is merged afterwards, in module order. */
typedef struct {
  tl_expr *e;
  bool dropped;     /* a call whose parent is a drop */
} use;

/* What the analysis walk found in a body. Kept from round to round while
 * the body stays as it was (fresh): a round rescans only the bodies it or
 * the re-optimization changed. */
typedef struct {
  tl_vec uses;      /* use */
  uint8_t *read;    /* per param: a local.get reads it */
  bool tails;       /* the body has return_call(_indirect) */
  bool fresh;
} scan;

typedef struct {
  scan *self;       /* NULL outside functions */
  uint32_t self_np; /* params of self (0 outside functions) */
  tl_vec *uses;     /* use: where the walk lists them */
} an_ctx;

static bool is_const(const tl_expr *e) {
  switch (e->op) {
  case TL_OP_I32_CONST: case TL_OP_I64_CONST: case TL_OP_F32_CONST: case TL_OP_F64_CONST:
  case TL_OP_V128_CONST: return true;
  default: return false;
  }
}

static bool same_const(const tl_expr *a, const tl_expr *b) {
  return a->op == b->op && tl_const_imm_eq(a->op, a->imm, b->imm);
}

static void note_use(tl_module *m, dinfo *info, const use *u) {
  tl_expr *e = u->e;
  dinfo *d = &info[e->imm.index];
  if (e->op == TL_OP_REF_FUNC) {
    d->direct = false;
    return;
  }
  d->ncalls++;
  if (e->op == TL_OP_RETURN_CALL) d->tail_called = true;
  if (!u->dropped) d->undropped = true;
  if (!d->konst) return; /* import */
  if (e->nkid != tl_func_nparams(m, TL_FUNC(m, e->imm.index))) {
    d->direct = false; /* operands as one tuple: leave this function alone */
    return;
  }
  for (uint32_t i = 0; i < e->nkid; i++) {
    tl_expr *k = e->kid[i];
    if (k->type == TL_UNREACHABLE) continue; /* never passes a value */
    if (!is_const(k)) d->varies[i] = 1;
    else if (!d->konst[i]) d->konst[i] = k;
    else if (!same_const(d->konst[i], k)) d->varies[i] = 1;
  }
}

static void an_visit(tl_walk *w, tl_expr **slot) {
  an_ctx *c = w->ctx;
  tl_expr *e = *slot;
  switch (e->op) {
  case TL_OP_CALL: case TL_OP_RETURN_CALL: {
    tl_expr *parent = tl_walk_parent(w, 1);
    TL_VEC_PUSH(c->uses, use, ((use){e, parent && parent->op == TL_OP_DROP}));
    break;
  }
  case TL_OP_RETURN_CALL_INDIRECT:
    if (c->self) c->self->tails = true;
    break;
  case TL_OP_REF_FUNC: TL_VEC_PUSH(c->uses, use, ((use){e, false})); break;
  case TL_OP_LOCAL_GET:
    if (e->imm.index < c->self_np) c->self->read[e->imm.index] = 1;
    break;
  default: break;
  }
  if (e->op == TL_OP_RETURN_CALL && c->self) c->self->tails = true;
}

/* Walks *e: flags of c->self, its uses listed in *c->uses. */
static void an_expr(tl_module *m, an_ctx *c, tl_func *f, tl_expr **e) {
  if (!*e) return;
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = c;
  w.post = an_visit;
  tl_walk_run(&w, e);
}

typedef struct {
  tl_module *m;
  scan *scans;
  const uint32_t *stale;  /* the functions to rescan */
  bool nomem;
} scan_job;

static void scan_one(void *user, uint32_t k) {
  scan_job *j = user;
  uint32_t i = j->stale[k], np = tl_func_nparams(j->m, TL_FUNC(j->m, i));
  scan *s = &j->scans[i];
  s->uses.n = 0;
  s->tails = false;
  tl_free(s->read);
  if (!(s->read = tl_scratch_calloc((size_t)np + 1, 1))) {
    j->nomem = true;
    return;
  }
  an_ctx c = {s, np, &s->uses};
  an_expr(j->m, &c, TL_FUNC(j->m, i), &TL_FUNC(j->m, i)->body);
  s->fresh = true;
}

/* false when out of memory (what was allocated is left for free_info). */
static bool analyze(tl_pass_ctx *ctx, dinfo *info, scan *scans) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n, nstale = 0;
  for (uint32_t i = m->nimported_funcs; i < nf; i++) {
    size_t np = tl_func_nparams(m, TL_FUNC(m, i));
    info[i].direct = true;
    info[i].konst = tl_scratch_calloc(np + 1, sizeof(tl_expr *));
    info[i].varies = tl_scratch_calloc(np + 1, 1);
    info[i].remove = tl_scratch_calloc(np + 1, 1);
    if (!info[i].konst || !info[i].varies || !info[i].remove) return false;
  }
  uint32_t *stale = tl_scratch_realloc(NULL, (size_t)nf + 1, sizeof *stale);
  if (!stale) return false;
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    if (!scans[i].fresh) stale[nstale++] = i;
  scan_job j = {m, scans, stale, false};
  tl_run_parallel(ctx, nstale, scan_one, &j);
  tl_free(stale);
  if (j.nomem) return false;
  tl_vec inits = {0}; /* the initializers' uses */
  an_ctx c = {NULL, 0, &inits};
  for (size_t i = 0; i < m->globals.n; i++) an_expr(m, &c, NULL, &TL_GLOBAL(m, i)->init);
  for (size_t i = 0; i < m->tables.n; i++) an_expr(m, &c, NULL, &TL_TABLE(m, i)->init);
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    an_expr(m, &c, NULL, &el->offset);
    for (uint32_t k = 0; k < el->n; k++) an_expr(m, &c, NULL, &el->item[k]);
  }
  for (uint32_t i = m->nimported_funcs; i <= nf; i++) {
    const tl_vec *u = i < nf ? &scans[i].uses : &inits;
    if (i < nf) info[i].read = scans[i].read, info[i].tails = scans[i].tails;
    for (size_t k = 0; k < u->n; k++) note_use(m, info, &TL_VEC_AT(u, use, k));
  }
  tl_vec_free(&inits);
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_FUNC) info[TL_EXPORT(m, i)->index].direct = false;
  if (m->has_start) info[m->start].direct = false;
  return true;
}

static bool decide(tl_module *m, uint32_t fi, dinfo *d) {
  tl_func *f = TL_FUNC(m, fi);
  if (!d->direct || !f->body) return false;
  uint32_t np = tl_func_nparams(m, f);
  for (uint32_t p = 0; p < np; p++) {
    bool konst = d->konst[p] && !d->varies[p];
    d->remove[p] = !d->read[p] || konst;
    d->change |= d->remove[p];
  }
  tl_type r = tl_func_type(m, f)->results;
  d->drop_result = d->ncalls && tl_type_is_concrete(r) && !tl_type_is_tuple(r) && !d->undropped &&
                   !d->tail_called && !d->tails;
  d->change |= d->drop_result;
  return d->change;
}

/* ---- rewriting a changed function --------------------------------------- */
typedef struct {
  tl_module *m;
  const uint32_t *lmap; /* param index -> new index (params only) */
  uint32_t np;
  uint32_t inner;       /* label returns branch to (result dropped), or TL_NO_LABEL */
  bool drop_returns;    /* result dropped, no branch to the body label: return X -> drop X; return */
} body_ctx;

static void body_visit(tl_walk *w, tl_expr **slot) {
  body_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (tl_ops[e->op].imm == TL_IMM_LOCAL && e->imm.index < c->np) e->imm.index = c->lmap[e->imm.index];
  if (e->op == TL_OP_RETURN && c->inner != TL_NO_LABEL) {
    e->op = TL_OP_BR;
    e->imm.label = c->inner;
  } else if (e->op == TL_OP_RETURN && c->drop_returns && e->nkid == 1) {
    tl_expr *seq[2] = {tl_make_drop(c->m, e->kid[0]), e};
    e->nkid = 0;
    *slot = tl_make_block(c->m, TL_OP_BLOCK, TL_NO_LABEL, seq, 2);
  }
}

typedef struct {
  uint32_t label;
  bool found;
} brs_ctx;

static void brs_visit(tl_walk *w, tl_expr **slot) {
  brs_ctx *c = w->ctx;
  if (tl_expr_breaks_to(*slot, c->label)) c->found = true;
}

/* Does any branch (not a return) target the body's own label? */
static bool body_label_used(tl_module *m, tl_func *f) {
  brs_ctx c = {f->body->imm.block.label, false};
  if (c.label != TL_NO_LABEL) tl_walk_post(m, f, &f->body, brs_visit, &c);
  return c.found;
}

/* Scratch for rewrite_callee, sized for the most params of any function:
 * allocated before a round rewrites anything, so running out of memory
 * leaves the module unchanged. */
typedef struct {
  uint32_t *lmap;
  tl_type *kept, *old;
  const char **oldn;
} rw_scratch;

static bool rw_alloc(tl_module *m, rw_scratch *r) {
  size_t np = 0;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    uint32_t n = tl_func_nparams(m, TL_FUNC(m, i));
    if (n > np) np = n;
  }
  r->lmap = tl_scratch_realloc(NULL, np + 1, sizeof(uint32_t));
  r->kept = tl_scratch_realloc(NULL, np + 1, sizeof(tl_type));
  r->old = tl_scratch_realloc(NULL, np + 1, sizeof(tl_type));
  r->oldn = tl_scratch_realloc(NULL, np + 1, sizeof(char *));
  return r->lmap && r->kept && r->old && r->oldn;
}

static void rw_free(rw_scratch *r) {
  tl_free(r->lmap);
  tl_free(r->kept);
  tl_free(r->old);
  tl_free(r->oldn);
}

static void rewrite_callee(tl_module *m, tl_func *f, dinfo *d, rw_scratch *rs) {
  tl_functype *ft = tl_func_type(m, f);
  uint32_t np = tl_func_nparams(m, f), nk = 0;
  uint32_t *lmap = rs->lmap;
  tl_type *kept = rs->kept, *old = rs->old;
  const char **oldn = rs->oldn;
  for (uint32_t p = 0; p < np; p++)
    if (!d->remove[p]) kept[nk] = f->local[p], lmap[p] = nk++;
  for (uint32_t p = 0, r = nk; p < np; p++)
    if (d->remove[p]) lmap[p] = r++;
  for (uint32_t p = 0; p < np; p++) {
    old[p] = f->local[p];
    oldn[p] = f->local_name ? f->local_name[p] : NULL;
  }
  for (uint32_t p = 0; p < np; p++) {
    f->local[lmap[p]] = old[p];
    if (f->local_name) f->local_name[lmap[p]] = oldn[p];
  }
  f->locals_unmapped = true; /* params moved: DWARF's local indices do not follow */
  tl_type results = d->drop_result ? TL_NONE : ft->results;
  /* A dropped result: as Binaryen, every return X becomes drop X; return
   * and the body's value is dropped, unless a branch targets the body's
   * label: then the old body becomes a dropped inner block that returns
   * branch to. */
  bool inner = d->drop_result && body_label_used(m, f);
  if (inner && f->body->imm.block.label == TL_NO_LABEL) f->body->imm.block.label = tl_func_new_label(m, f);
  body_ctx c = {m, lmap, np, inner ? f->body->imm.block.label : TL_NO_LABEL, d->drop_result && !inner};
  tl_walk_post(m, f, &f->body, body_visit, &c);
  if (c.drop_returns && f->body->nkid) {
    tl_expr **last = &f->body->kid[f->body->nkid - 1];
    if (tl_type_is_concrete((*last)->type)) *last = tl_make_drop(m, *last);
  }
  tl_vec pre = {0};
  for (uint32_t p = 0; p < np; p++)
    if (d->remove[p] && d->read[p]) {
      tl_expr *k = tl_expr_copy(m, NULL, d->konst[p]);
      TL_VEC_PUSH(&pre, tl_expr *, tl_make_local_set(m, f, lmap[p], k, false));
    }
  if (inner) {
    tl_expr *body0 = f->body;
    TL_VEC_PUSH(&pre, tl_expr *, tl_make_drop(m, body0));
    f->body = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f), pre.p, (uint32_t)pre.n);
  } else if (pre.n) {
    tl_expr *b = f->body;
    for (uint32_t i = 0; i < b->nkid; i++) TL_VEC_PUSH(&pre, tl_expr *, b->kid[i]);
    b->kid = TL_NEWN(&m->arena, tl_expr *, pre.n);
    memcpy(b->kid, pre.p, pre.n * sizeof(tl_expr *));
    b->nkid = (uint32_t)pre.n, b->kcap = 0;
  }
  tl_vec_free(&pre);
  f->type = tl_functype_intern(m, tl_type_tuple(m, kept, nk), results);
}

/* ---- rewriting call sites ----------------------------------------------- */
typedef struct {
  tl_module *m;
  tl_func *f;
  dinfo *info;
  const uint32_t *oldtype; /* function index -> its type before this round */
  bool changed;
} call_ctx;

static bool pure(tl_module *m, tl_func *f, tl_expr *e) {
  if (e->nkid == 0 && e->type != TL_UNREACHABLE && !(tl_ops[e->op].flags & TL_F_CONTROL)) {
    tl_effects leaf = {tl_ops[e->op].flags, false, false}; /* const, local.get, ...: no walk */
    if (!(leaf.flags & TL_F_BRANCH)) return tl_effects_removable(&leaf);
  }
  tl_effects fx;
  tl_effects_of(m, f, e, &fx);
  return tl_effects_removable(&fx);
}

static bool is_const_node(const tl_expr *e) { return e->nkid == 0 && is_const(e); }

/* The call without the removed operands (e is updated in place; the
 * returned node replaces it). last: the last removed operand with effects;
 * up to it operands are evaluated in order before the call (kept ones into
 * fresh locals unless constant, removed ones dropped); after it they stay
 * in the call (the removed ones there are pure and go). */
static tl_expr *fix_call(call_ctx *c, tl_expr *e, const dinfo *d) {
  tl_module *m = c->m;
  uint32_t n = e->nkid, nk = 0, last = UINT32_MAX;
  for (uint32_t i = 0; i < n; i++)
    if (d->remove[i] && !pure(m, c->f, e->kid[i])) last = i;
  tl_vec pre = {0};
  tl_type ptypes = TL_FTYPE(m, c->oldtype[e->imm.index])->params;
  for (uint32_t i = 0; i < n; i++) {
    tl_expr *k = e->kid[i];
    bool before = last != UINT32_MAX && i <= last;
    if (d->remove[i]) {
      if (before && !pure(m, c->f, k)) TL_VEC_PUSH(&pre, tl_expr *, tl_make_drop(m, k));
      continue;
    }
    if (before && !is_const_node(k)) {
      uint32_t tmp = tl_func_add_var(m, c->f, tl_type_at(m, ptypes, i));
      TL_VEC_PUSH(&pre, tl_expr *, tl_make_local_set(m, c->f, tmp, k, false));
      k = tl_make_local_get(m, c->f, tmp);
    }
    e->kid[nk++] = k;
  }
  e->nkid = nk;
  tl_expr_finalize(m, c->f, e);
  if (last == UINT32_MAX) return e;
  TL_VEC_PUSH(&pre, tl_expr *, e);
  tl_expr *b = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, pre.p, (uint32_t)pre.n);
  tl_vec_free(&pre);
  return b;
}

static void call_visit(tl_walk *w, tl_expr **slot) {
  call_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_CALL || e->op == TL_OP_RETURN_CALL) {
    const dinfo *d = &c->info[e->imm.index];
    if (!d->change) return;
    *slot = fix_call(c, e, d);
    c->changed = true;
  } else if (e->op == TL_OP_DROP && e->nkid == 1 && e->kid[0]->type == TL_NONE) {
    *slot = e->kid[0]; /* the call's result was removed */
  }
}

static void free_info(dinfo *info, uint32_t nf) {
  for (uint32_t i = 0; i < nf; i++) {
    tl_free(info[i].konst);
    tl_free(info[i].varies);
    tl_free(info[i].remove);
  }
  tl_free(info);
}

/* The call sites of each body are fixed on the pass pool (refinalized
 * where they changed or the function's own signature did). */
typedef struct {
  tl_module *m;
  dinfo *info;
  scan *scans;
  const uint32_t *oldtype;
  const uint8_t *touched;  /* the functions whose params or result changed */
} fix_job;

/* Whether the body the uses were listed from calls a changed function. */
static bool calls_changed(const dinfo *info, const tl_vec *uses) {
  for (size_t k = 0; k < uses->n; k++) {
    const tl_expr *e = TL_VEC_AT(uses, use, k).e;
    if (e->op != TL_OP_REF_FUNC && info[e->imm.index].change) return true;
  }
  return false;
}

static void fix_calls_in(void *user, uint32_t k) {
  fix_job *j = user;
  uint32_t i = j->m->nimported_funcs + k;
  if (!j->touched[i] && !calls_changed(j->info, &j->scans[i].uses)) return; /* nothing to fix */
  tl_func *f = TL_FUNC(j->m, i);
  call_ctx c = {j->m, f, j->info, j->oldtype, false};
  tl_walk_post(j->m, f, &f->body, call_visit, &c);
  if (c.changed || j->touched[i]) {
    tl_func_refinalize(j->m, f);
    j->scans[i].fresh = false;
  }
}

/* One round; returns whether anything changed (-1: out of memory, nothing
 * changed); marks the functions whose params or result changed. */
static int one_round(tl_pass_ctx *ctx, uint8_t *touched, scan *scans) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n;
  dinfo *info = tl_scratch_calloc((size_t)nf + 1, sizeof(dinfo));
  uint32_t *oldtype = tl_scratch_realloc(NULL, (size_t)nf + 1, sizeof(uint32_t));
  rw_scratch rs = {0};
  if (!info || !oldtype || !analyze(ctx, info, scans) || !rw_alloc(m, &rs)) {
    if (info) free_info(info, nf);
    tl_free(oldtype);
    rw_free(&rs);
    return -1;
  }
  bool any = false;
  for (uint32_t i = 0; i < nf; i++) oldtype[i] = TL_FUNC(m, i)->type;
  for (uint32_t i = m->nimported_funcs; i < nf; i++) {
    if (!decide(m, i, &info[i])) continue;
    rewrite_callee(m, TL_FUNC(m, i), &info[i], &rs);
    touched[i] = 1;
    any = true;
  }
  if (any) {
    fix_job j = {m, info, scans, oldtype, touched};
    tl_run_parallel(ctx, nf - m->nimported_funcs, fix_calls_in, &j);
  }
  free_info(info, nf);
  tl_free(oldtype);
  rw_free(&rs);
  return any;
}

/* dae-optimizing optimizes the functions a round touched before the next
 * round (as Binaryen's DAE iterations do), so a constant applied to a
 * callee reaches the calls it makes and the next round sees it there. */
static tl_status run(tl_pass_ctx *ctx, bool optimize) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n;
  uint8_t *touched = tl_scratch_calloc((size_t)nf + 1, 1);
  scan *scans = tl_scratch_calloc((size_t)nf + 1, sizeof *scans);
  if (!touched || !scans) {
    tl_free(touched);
    tl_free(scans);
    return tl_nomem(ctx->err, "dae");
  }
  tl_pass_options po = ctx->opt ? *ctx->opt : (tl_pass_options){0};
  if (!po.optimize_level && !po.shrink_level) po.optimize_level = 1; /* lone pass: see inlining.c */
  const char *names[129] = {"precompute-propagate"}; /* as inlining.c */
  uint32_t n = 1 + tl_pipeline_function(&po, names + 1, 128);
  tl_status st = TL_OK;
  for (int r = 0; r < MAX_ROUNDS && st == TL_OK; r++) {
    memset(touched, 0, nf + 1);
    int changed = one_round(ctx, touched, scans);
    if (changed < 0) st = tl_nomem(ctx->err, "dae");
    if (changed <= 0) break;
    if (optimize) st = tl_run_func_passes_on(ctx, names, n, touched);
  }
  for (uint32_t i = 0; i < nf; i++) {
    tl_vec_free(&scans[i].uses);
    tl_free(scans[i].read);
  }
  tl_free(scans);
  tl_free(touched);
  return st;
}

tl_status tl_pass_dae(tl_pass_ctx *ctx) { return run(ctx, false); }
tl_status tl_pass_dae_optimizing(tl_pass_ctx *ctx) { return run(ctx, true); }
