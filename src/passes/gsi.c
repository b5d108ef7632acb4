/* gsi.c — global struct inference (Binaryen's GlobalStructInference): a
 * read of an immutable field of an immutable global's allocation becomes
 * the field's value (non-constant ones un-nested into new globals); in a
 * closed world, a read of a type only immutable globals allocate becomes
 * their common value or a ref.eq select of two. Reads keep their trap on
 * null. GC modules only. */
#include "passes.h"

#include <stdlib.h>

typedef struct {
  tl_module *m;
  bool closed;
  uint8_t *unopt;          /* canon type -> some instance is made where we cannot see its fields */
  uint32_t *first, *count; /* canon type -> its globals: list[first .. first + count) */
  uint32_t *list;
  uint8_t *reffed;         /* functions whose ref.func a read became */
  tl_vec *unnest;          /* per defined function: its un-nest requests */
  bool oom;                /* a request list could not grow */
} gsi;

/* A read of a global's allocation whose field holds a non-constant value
 * (a nested allocation, say) becomes a read of a new global the value
 * moves to. The rewrite runs in parallel, so it leaves a placeholder
 * global.get (imm.index PLACEHOLDER | request) the serial phase points at
 * the new global once made. dead: a read of the placeholder's own
 * allocation consumed it. */
#define PLACEHOLDER 0x80000000u
typedef struct { uint32_t global, field; tl_expr *get; bool dead; } request;

static bool is_new(const tl_expr *e) { return e->op == TL_OP_STRUCT_NEW || e->op == TL_OP_STRUCT_NEW_DEFAULT; }

static uint32_t canon_of(const tl_module *m, uint32_t idx) { return TL_FTYPE(m, idx)->canon; }

/* The type-based part needs a closed world, as in Binaryen: a type (and
 * its subtypes) allocated only as the whole init of immutable eq-typed
 * globals, a read of it sees only those objects. With one global and a
 * non-constant value the read's reference becomes that global (null check
 * kept); two values need one of them held by a single global (one ref.eq).
 * Unlike Binaryen, values are not un-nested on this path. */
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

/* The allocation global.get ref certainly reads: an immutable defined
 * global's init, or the operand a placeholder stands for (*req: its
 * request); NULL if none. */
static const tl_expr *known_alloc(gsi *g, tl_vec *reqs, const tl_expr *ref, request **req) {
  uint32_t i = ref->imm.index;
  *req = NULL;
  if (i & PLACEHOLDER) {
    *req = &TL_VEC_AT(reqs, request, i & ~PLACEHOLDER);
    const tl_expr *a = TL_GLOBAL(g->m, (*req)->global)->init->kid[(*req)->field];
    return is_new(a) ? a : NULL;
  }
  tl_global *gl = TL_GLOBAL(g->m, i);
  return !gl->mut && gl->init && is_new(gl->init) ? gl->init : NULL;
}

/* A placeholder for field k of global gi's init, moving to a new global;
 * NULL when out of memory. */
static tl_expr *placeholder(gsi *g, tl_vec *reqs, uint32_t gi, uint32_t k) {
  if (reqs->n == reqs->cap && !tl_vec_try_grow(reqs, sizeof(request), reqs->n + 1)) {
    __atomic_store_n(&g->oom, true, __ATOMIC_RELAXED);
    return NULL;
  }
  tl_expr *e = tl_expr_new(g->m, TL_OP_GLOBAL_GET, 0);
  e->imm.index = PLACEHOLDER | (uint32_t)reqs->n;
  e->type = TL_GLOBAL(g->m, gi)->init->kid[k]->type;
  TL_VEC_AT(reqs, request, reqs->n++) = (request){gi, k, e, false};
  return e;
}

/* A read of an immutable global's own allocation: no null check needed. */
static tl_expr *read_global(gsi *g, tl_func *f, tl_vec *reqs, tl_expr *e, const tl_field *fld) {
  request *req;
  const tl_expr *a = known_alloc(g, reqs, e->kid[0], &req);
  if (!a) return NULL;
  tl_pcv v = read_new(g->m, a, e->imm.idx2.b);
  tl_expr *x = tl_pcv_make(g->m, f, &v, fld, e->op, g->reffed);
  if (!x && v.kind == TL_PCV_MANY && !req) x = placeholder(g, reqs, e->kid[0]->imm.index, e->imm.idx2.b);
  if (x && req) req->dead = true;
  return x;
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
  return tl_make_select(m, f, a, b, eq, TL_NONE);
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

typedef struct { gsi *g; tl_vec *reqs; bool changed; } rw_ctx;

static void rewrite_visit(tl_walk *w, tl_expr **slot) {
  rw_ctx *r = w->ctx;
  tl_expr *e = *slot, *x = NULL;
  if (e->op != TL_OP_STRUCT_GET && e->op != TL_OP_STRUCT_GET_S && e->op != TL_OP_STRUCT_GET_U) return;
  uint32_t t = tl_struct_of(w->m, e->kid[0]->type);
  if (t == TL_NO_INDEX) return;
  const tl_field *fld = &TL_FTYPE(w->m, t)->fields[e->imm.idx2.b];
  if (fld->mut) return;
  if (e->kid[0]->op == TL_OP_GLOBAL_GET) x = read_global(r->g, w->f, r->reqs, e, fld);
  if (!x && r->g->closed && !(e->kid[0]->op == TL_OP_GLOBAL_GET && e->kid[0]->imm.index & PLACEHOLDER))
    x = read_typed(r->g, w->f, e, t, fld);
  if (!x) return;
  *slot = x;
  r->changed = true;
}

static void rewrite_in(void *user, uint32_t k) {
  gsi *g = user;
  tl_func *f = TL_FUNC(g->m, g->m->nimported_funcs + k);
  rw_ctx r = {g, &g->unnest[k], false};
  if (!f->body) return;
  tl_walk_post_only(g->m, f, &f->body, rewrite_visit, &r, TL_F_GC_READ);
  if (r.changed && !r.reqs->n) tl_func_refinalize(g->m, f); /* else once the placeholders are resolved */
}

/* ---- un-nesting ------------------------------------------------------------ */
/* Request r's value gets a global of its own (appended; *parent: the
 * global it must precede), unless an earlier request moved it already. */
static void resolve(gsi *g, request *r, uint32_t *parent) {
  tl_module *m = g->m;
  tl_expr **op = &TL_GLOBAL(m, r->global)->init->kid[r->field];
  if ((*op)->op != TL_OP_GLOBAL_GET) {
    tl_global ng = {.type = (*op)->type, .mut = false, .init = *op};
    TL_VEC_PUSH(&m->globals, tl_global, ng);
    parent[m->globals.n - 1] = r->global;
    *op = global_get(m, (uint32_t)m->globals.n - 1);
  }
  r->get->imm.index = (*op)->imm.index;
  tl_expr_finalize(m, NULL, r->get);
}

/* The new globals move to just before the globals whose fields they
 * hold (in the order made). */
static bool place_new(tl_module *m, uint32_t old, const uint32_t *parent) {
  uint32_t ng = (uint32_t)m->globals.n, k = 0;
  uint32_t *remap = tl_scratch_calloc(ng + 1, 4);
  if (!remap) return false;
  for (uint32_t i = 0; i < old; i++) {
    for (uint32_t j = old; j < ng; j++)
      if (parent[j] == i) remap[j] = k++;
    remap[i] = k++;
  }
  bool ok = tl_module_permute_globals(m, remap);
  tl_free(remap);
  return ok;
}

static bool unnest_all(gsi *g, uint32_t nd) {
  tl_module *m = g->m;
  uint32_t old = (uint32_t)m->globals.n, n = 0;
  for (uint32_t k = 0; k < nd; k++) n += (uint32_t)g->unnest[k].n;
  if (!n) return true;
  uint32_t *parent = tl_scratch_calloc((size_t)old + n + 1, 4);
  if (!parent) return false;
  for (uint32_t k = 0; k < nd; k++)
    for (size_t i = 0; i < g->unnest[k].n; i++) {
      request *r = &TL_VEC_AT(&g->unnest[k], request, i);
      if (!r->dead) resolve(g, r, parent);
    }
  bool ok = m->globals.n == old || place_new(m, old, parent);
  tl_free(parent);
  for (uint32_t k = 0; k < nd; k++)
    if (g->unnest[k].n) tl_func_refinalize(m, TL_FUNC(m, m->nimported_funcs + k));
  return ok;
}

tl_status tl_pass_gsi(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  uint32_t nt = (uint32_t)m->types.n, nd = (uint32_t)m->funcs.n - m->nimported_funcs;
  if (!tl_module_uses_gc(m)) return TL_OK;
  gsi g = {m, ctx->opt->closed_world, tl_scratch_calloc(nt + 1, 1), tl_scratch_calloc(nt + 1, 4),
           tl_scratch_calloc(nt + 1, 4), NULL, tl_scratch_calloc(m->funcs.n + 1, 1),
           tl_scratch_calloc(nd + 1, sizeof(tl_vec)), false};
  tl_status st = TL_OK;
  if (!g.unopt || !g.first || !g.count || !g.reffed || !g.unnest) st = tl_nomem(ctx->err, "gsi");
  if (st == TL_OK && g.closed && !analyze(ctx, &g)) st = tl_nomem(ctx->err, "gsi");
  if (st == TL_OK) {
    tl_run_parallel(ctx, nd, rewrite_in, &g);
    /* a request list that could not grow left its function's placeholders
     * resolvable: only the failed one is missing, and nothing points at it */
    if (!unnest_all(&g, nd) || g.oom) st = tl_nomem(ctx->err, "gsi");
    tl_declare_funcs(m, g.reffed);
  }
  for (uint32_t k = 0; g.unnest && k < nd; k++) tl_vec_free(&g.unnest[k]);
  tl_free(g.unopt), tl_free(g.first), tl_free(g.count), tl_free(g.list), tl_free(g.reffed), tl_free(g.unnest);
  return st;
}
