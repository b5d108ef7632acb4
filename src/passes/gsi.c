/* gsi.c — global struct inference (Binaryen's GlobalStructInference).
 * Open and closed world: a struct.get of an immutable field of a defined,
 * immutable global whose init is a struct.new reads that operand (when it
 * is a constant or an immutable global's read). Closed world only (as in
 * Binaryen, which needs to see every allocation): when a struct type and
 * its subtypes are allocated only as the whole init of immutable eq-typed
 * globals, a read of an immutable field of that type becomes the value
 * all those globals agree on, or a select between two values picked by
 * one ref.eq against the global holding the odd one; with one global and
 * a value that is not constant, the read's reference becomes that global
 * (null check kept). Non-constant operands are not un-nested into new
 * globals (Binaryen does). Reads keep their trap on null. GC modules only. */
#include "passes.h"

#include <stdlib.h>

typedef struct {
  tl_module *m;
  bool closed;
  uint8_t *unopt;          /* canon type -> some instance is made where we cannot see its fields */
  uint32_t *first, *count; /* canon type -> its globals: list[first .. first + count) */
  uint32_t *list;
  uint8_t *reffed;         /* functions whose ref.func a read became */
} gsi;

static bool is_new(const tl_expr *e) { return e->op == TL_OP_STRUCT_NEW || e->op == TL_OP_STRUCT_NEW_DEFAULT; }

static uint32_t canon_of(const tl_module *m, uint32_t idx) { return TL_FTYPE(m, idx)->canon; }

/* ---- closed-world analysis -------------------------------------------- */
static void mark_alloc(tl_walk *w, tl_expr **slot) {
  gsi *g = w->ctx;
  if (is_new(*slot)) __atomic_store_n(&g->unopt[canon_of(g->m, (*slot)->imm.index)], 1, __ATOMIC_RELAXED);
}

/* In a global init, only the root may be an allocation we track. */
static void mark_nested(tl_walk *w, tl_expr **slot) {
  if (w->depth) mark_alloc(w, slot);
}

static void mark_in(void *user, uint32_t k) {
  gsi *g = user;
  tl_func *f = TL_FUNC(g->m, g->m->nimported_funcs + k);
  if (f->body) tl_walk_post_only(g->m, f, &f->body, mark_alloc, g, TL_F_GC_ALLOC);
}

/* Whether global i's init is an allocation gsi may track: its type is
 * marked unusable otherwise (a mutable or non-eq global). */
static bool tracks(gsi *g, uint32_t i) {
  tl_global *gl = TL_GLOBAL(g->m, i);
  uint32_t t = tl_struct_of(g->m, gl->init->type);
  if (t == TL_NO_INDEX) return false;
  if (gl->mut || !tl_type_sub(g->m, gl->type, tl_ref(TL_HT_EQ, true))) g->unopt[t] = 1;
  return !g->unopt[t] && is_new(gl->init);
}

/* A type is unusable when a subtype is (a read may meet its instances). */
static bool spread_unopt(gsi *g, uint32_t nt) {
  uint8_t *seed = tl_scratch_calloc(nt + 1, 1);
  if (!seed) return false;
  memcpy(seed, g->unopt, nt);
  for (uint32_t t = 0; t < nt; t++)
    for (uint32_t s = t; seed[t] && s != TL_NO_INDEX; s = tl_struct_super(g->m, s)) g->unopt[s] = 1;
  tl_free(seed);
  return true;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Each usable type lists the tracked globals of it and of its subtypes. */
static bool list_globals(gsi *g, const uint8_t *tracked, uint32_t nt) {
  tl_module *m = g->m;
  uint32_t total = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t i = 0; i < m->globals.n; i++) {
      if (!tracked[i]) continue;
      for (uint32_t s = tl_struct_of(m, TL_GLOBAL(m, i)->init->type); s != TL_NO_INDEX; s = tl_struct_super(m, s)) {
        if (g->unopt[s]) continue;
        if (pass) g->list[g->first[s] + g->count[s]] = i;
        g->count[s]++;
      }
    }
    if (pass) break;
    for (uint32_t t = 0; t < nt; t++) g->first[t] = total, total += g->count[t], g->count[t] = 0;
    g->list = tl_scratch_calloc(total + 1, sizeof *g->list);
    if (!g->list) return false;
  }
  for (uint32_t t = 0; t < nt; t++) qsort(g->list + g->first[t], g->count[t], sizeof *g->list, cmp_u32);
  return true;
}

/* False when out of memory. */
static bool analyze(tl_pass_ctx *ctx, gsi *g) {
  tl_module *m = g->m;
  uint32_t nt = (uint32_t)m->types.n, ng = (uint32_t)m->globals.n;
  uint8_t *tracked = tl_scratch_calloc(ng + 1, 1);
  bool ok;
  if (!tracked) return false;
  tl_run_parallel(ctx, (uint32_t)m->funcs.n - m->nimported_funcs, mark_in, g);
  for (uint32_t i = 0; i < ng; i++)
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, mark_nested, g);
  for (size_t i = 0; i < m->tables.n; i++)
    if (TL_TABLE(m, i)->init) tl_walk_post(m, NULL, &TL_TABLE(m, i)->init, mark_alloc, g);
  for (size_t i = 0; i < m->elems.n; i++)
    for (uint32_t j = 0; j < TL_ELEM(m, i)->n; j++) tl_walk_post(m, NULL, &TL_ELEM(m, i)->item[j], mark_alloc, g);
  for (uint32_t i = m->nimported_globals; i < ng; i++) (void)tracks(g, i);
  ok = spread_unopt(g, nt);
  for (uint32_t i = m->nimported_globals; ok && i < ng; i++) tracked[i] = tracks(g, i);
  ok = ok && list_globals(g, tracked, nt);
  tl_free(tracked);
  return ok;
}

/* ---- rewriting ----------------------------------------------------------- */
/* The value field k of allocation e (a global's init) holds. */
static tl_pcv read_new(const tl_module *m, const tl_expr *e, uint32_t k) {
  tl_pcv v = {TL_PCV_ZERO, NULL};
  if (e->op == TL_OP_STRUCT_NEW) {
    v.kind = TL_PCV_NONE;
    tl_pcv_note(m, &v, e->kid[k]);
  }
  return v;
}

static tl_expr *global_get(tl_module *m, uint32_t i) {
  tl_expr *e = tl_expr_new(m, TL_OP_GLOBAL_GET, 0);
  e->imm.index = i;
  tl_expr_finalize(m, NULL, e);
  return e;
}

/* A read of an immutable global's own allocation: no null check needed. */
static tl_expr *read_global(gsi *g, tl_func *f, tl_expr *e, const tl_field *fld) {
  tl_global *gl = TL_GLOBAL(g->m, e->kid[0]->imm.index);
  if (gl->mut || !gl->init || !is_new(gl->init)) return NULL;
  tl_pcv v = read_new(g->m, gl->init, e->imm.idx2.b);
  return tl_pcv_make(g->m, f, &v, fld, e->op, g->reffed);
}

typedef struct { tl_pcv v; uint32_t global, n; } group;

/* The globals' values for field k in at most two groups; false if more,
 * or if one is not constant. */
static bool group_values(gsi *g, const uint32_t *gl, uint32_t n, uint32_t k, group out[2], uint32_t *ngroups) {
  *ngroups = 0;
  for (uint32_t i = 0; i < n; i++) {
    tl_pcv v = read_new(g->m, TL_GLOBAL(g->m, gl[i])->init, k);
    uint32_t j = 0;
    if (v.kind != TL_PCV_ZERO && v.kind != TL_PCV_EXPR) return false;
    while (j < *ngroups && !tl_pcv_eq(&out[j].v, &v)) j++;
    if (j == 2) return false;
    if (j == *ngroups) out[(*ngroups)++] = (group){v, gl[i], 0};
    out[j].n++;
  }
  return true;
}

static tl_expr *make_select(tl_module *m, tl_func *f, tl_expr *a, tl_expr *b, tl_expr *cond) {
  tl_type t = tl_type_lub(m, a->type, b->type);
  tl_expr *s = tl_expr_new(m, tl_type_is_ref(t) ? TL_OP_SELECT_T : TL_OP_SELECT, 3);
  s->kid[0] = a, s->kid[1] = b, s->kid[2] = cond;
  s->imm.index = t;
  tl_expr_finalize(m, f, s);
  return s;
}

/* Two values: the one of a single global when ref is that global. */
static tl_expr *pick(gsi *g, tl_func *f, tl_expr *e, const tl_field *fld, group gr[2]) {
  tl_module *m = g->m;
  int t = gr[0].n == 1 ? 0 : gr[1].n == 1 ? 1 : -1;
  if (t < 0) return NULL;
  tl_expr *a = tl_pcv_make(m, f, &gr[t].v, fld, e->op, g->reffed);
  tl_expr *b = tl_pcv_make(m, f, &gr[1 - t].v, fld, e->op, g->reffed);
  if (!a || !b) return NULL;
  tl_expr *nn = tl_expr_new(m, TL_OP_REF_AS_NON_NULL, 1);
  nn->kid[0] = e->kid[0];
  tl_expr_finalize(m, f, nn);
  tl_expr *eq = tl_make_binary(m, TL_OP_REF_EQ, nn, global_get(m, gr[t].global));
  return make_select(m, f, a, b, eq);
}

static bool ends_in_global(const tl_expr *e) {
  if (e->op == TL_OP_BLOCK && e->nkid) e = e->kid[e->nkid - 1];
  return e->op == TL_OP_GLOBAL_GET;
}

/* A read of a type only tracked globals allocate. */
static tl_expr *read_typed(gsi *g, tl_func *f, tl_expr *e, uint32_t t, const tl_field *fld) {
  tl_module *m = g->m;
  const uint32_t *gl = g->list + g->first[t];
  uint32_t n = g->count[t], ng;
  group gr[2];
  if (!n) return NULL;
  if (!group_values(g, gl, n, e->imm.idx2.b, gr, &ng)) {
    if (n != 1 || ends_in_global(e->kid[0])) return NULL; /* (done already) */
    e->kid[0] = tl_make_checked(m, f, e->kid[0], global_get(m, gl[0])); /* the object is that global's */
    tl_expr_finalize(m, f, e);
    return e;
  }
  if (ng == 2) return pick(g, f, e, fld, gr);
  tl_expr *v = tl_pcv_make(m, f, &gr[0].v, fld, e->op, g->reffed);
  return v ? tl_make_checked(m, f, e->kid[0], v) : NULL;
}

typedef struct { gsi *g; bool changed; } rw_ctx;

static void rewrite_visit(tl_walk *w, tl_expr **slot) {
  rw_ctx *r = w->ctx;
  tl_expr *e = *slot, *x = NULL;
  if (e->op != TL_OP_STRUCT_GET && e->op != TL_OP_STRUCT_GET_S && e->op != TL_OP_STRUCT_GET_U) return;
  uint32_t t = tl_struct_of(w->m, e->kid[0]->type);
  if (t == TL_NO_INDEX) return;
  const tl_field *fld = &TL_FTYPE(w->m, t)->fields[e->imm.idx2.b];
  if (fld->mut) return;
  if (e->kid[0]->op == TL_OP_GLOBAL_GET) x = read_global(r->g, w->f, e, fld);
  if (!x && r->g->closed) x = read_typed(r->g, w->f, e, t, fld);
  if (!x) return;
  *slot = x;
  r->changed = true;
}

static void rewrite_in(void *user, uint32_t k) {
  gsi *g = user;
  tl_func *f = TL_FUNC(g->m, g->m->nimported_funcs + k);
  rw_ctx r = {g, false};
  if (!f->body) return;
  tl_walk_post_only(g->m, f, &f->body, rewrite_visit, &r, TL_F_GC_READ);
  if (r.changed) tl_func_refinalize(g->m, f);
}

tl_status tl_pass_gsi(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  uint32_t nt = (uint32_t)m->types.n, nd = (uint32_t)m->funcs.n - m->nimported_funcs;
  if (!tl_module_uses_gc(m)) return TL_OK;
  gsi g = {m, ctx->opt->closed_world, tl_scratch_calloc(nt + 1, 1), tl_scratch_calloc(nt + 1, 4),
           tl_scratch_calloc(nt + 1, 4), NULL, tl_scratch_calloc(m->funcs.n + 1, 1)};
  tl_status st = TL_OK;
  if (!g.unopt || !g.first || !g.count || !g.reffed) st = tl_nomem(ctx->err, "gsi");
  if (st == TL_OK && g.closed && !analyze(ctx, &g)) st = tl_nomem(ctx->err, "gsi");
  if (st == TL_OK) {
    tl_run_parallel(ctx, nd, rewrite_in, &g);
    tl_declare_funcs(m, g.reffed);
  }
  tl_free(g.unopt), tl_free(g.first), tl_free(g.count), tl_free(g.list), tl_free(g.reffed);
  return st;
}
