/* global_refining.c — a defined, non-exported global of reference type
 * gets the lub of everything stored in it (init and global.sets); reads of
 * the refined globals are retyped (functions refinalized, constant
 * expressions refinished). Exported globals keep their type even in the
 * open world, unlike Binaryen's (see mark_candidates). GC modules only. */
#include "passes.h"

#include <stdlib.h>

typedef struct { uint32_t global; tl_type type; } store;

typedef struct {
  tl_module *m;
  const uint8_t *cand;    /* global -> may be refined */
  const uint8_t *changed; /* global -> its type was refined */
  tl_vec *stores;         /* per defined function: the stores it makes */
  bool oom;               /* a store list could not grow */
} gr_job;

static void note_store(tl_walk *w, tl_expr **slot) {
  gr_job *j = w->ctx;
  tl_expr *e = *slot;
  if (e->op != TL_OP_GLOBAL_SET || !j->cand[e->imm.index]) return;
  tl_vec *v = &j->stores[w->f - TL_FUNC(j->m, j->m->nimported_funcs)];
  if (v->n == v->cap && !tl_vec_try_grow(v, sizeof(store), v->n + 1)) {
    __atomic_store_n(&j->oom, true, __ATOMIC_RELAXED);
    return;
  }
  TL_VEC_AT(v, store, v->n++) = (store){e->imm.index, e->kid[0]->type};
}

static void scan_in(void *user, uint32_t k) {
  gr_job *j = user;
  tl_func *f = TL_FUNC(j->m, j->m->nimported_funcs + k);
  if (f->body) tl_walk_post_only(j->m, f, &f->body, note_store, j, TL_F_WRITES_GLOBAL);
}

typedef struct { const uint8_t *changed; bool hit; } read_ctx;

static void note_read(tl_walk *w, tl_expr **slot) {
  read_ctx *r = w->ctx;
  if ((*slot)->op == TL_OP_GLOBAL_GET && r->changed[(*slot)->imm.index]) r->hit = true;
}

static void retype_in(void *user, uint32_t k) {
  gr_job *j = user;
  tl_func *f = TL_FUNC(j->m, j->m->nimported_funcs + k);
  read_ctx r = {j->changed, false};
  if (!f->body) return;
  tl_walk_post_only(j->m, f, &f->body, note_read, &r, TL_F_READS_GLOBAL);
  if (r.hit) tl_func_refinalize(j->m, f);
}

/* Which globals may be refined: defined, not exported. Binaryen refines
 * exported immutable globals in the open world (an importer expecting the
 * old type still links), but an importer expecting a type the old one did
 * not fit may then link where it failed (the spec's linking.wast:154, a
 * funcref export refined to nullfuncref): tilt keeps linking exact. */
static void mark_candidates(tl_pass_ctx *ctx, uint8_t *cand) {
  tl_module *m = ctx->m;
  for (uint32_t i = m->nimported_globals; i < m->globals.n; i++)
    cand[i] = tl_type_is_ref(TL_GLOBAL(m, i)->type);
  for (size_t i = 0; i < m->exports.n; i++) {
    tl_export *x = TL_EXPORT(m, i);
    if (x->kind == TL_EXTERN_GLOBAL) cand[x->index] = 0;
  }
}

/* Constant expressions are small: every node retyped, children first. */
static void retype_node(tl_walk *w, tl_expr **slot) { tl_expr_finalize(w->m, NULL, *slot); }

/* The lubs, and the globals whose type they refine. In index order: an
 * init reads only earlier globals, so it is retyped first when one of
 * those was refined, and its own refined type counts. */
static bool refine(tl_module *m, const uint8_t *cand, tl_vec *stores, uint8_t *changed) {
  uint32_t ng = (uint32_t)m->globals.n, nd = (uint32_t)m->funcs.n - m->nimported_funcs;
  tl_type *lub = tl_scratch_calloc(ng + 1, sizeof *lub);
  bool any = false;
  if (!lub) return false;
  for (uint32_t i = 0; i < ng; i++) lub[i] = TL_UNREACHABLE;
  for (uint32_t k = 0; k < nd; k++)
    for (size_t s = 0; s < stores[k].n; s++) {
      store *x = &TL_VEC_AT(&stores[k], store, s);
      lub[x->global] = tl_type_lub(m, lub[x->global], x->type);
    }
  for (uint32_t i = 0; i < ng; i++) {
    tl_global *g = TL_GLOBAL(m, i);
    if (!cand[i]) continue;
    if (any) tl_walk_post(m, NULL, &g->init, retype_node, NULL);
    lub[i] = tl_type_lub(m, lub[i], g->init->type);
    if (lub[i] == TL_UNREACHABLE || lub[i] == g->type || !tl_type_sub(m, lub[i], g->type)) continue;
    g->type = lub[i];
    changed[i] = 1;
    any = true;
  }
  tl_free(lub);
  return any;
}

tl_status tl_pass_global_refining(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  uint32_t ng = (uint32_t)m->globals.n, nd = (uint32_t)m->funcs.n - m->nimported_funcs;
  if (!tl_module_uses_gc(m) || ng == m->nimported_globals) return TL_OK;
  uint8_t *cand = tl_scratch_calloc(ng, 1), *changed = tl_scratch_calloc(ng, 1);
  tl_vec *stores = tl_scratch_calloc(nd + 1, sizeof *stores);
  tl_status st = TL_OK;
  if (!cand || !changed || !stores) {
    st = tl_nomem(ctx->err, "global-refining");
    goto out;
  }
  mark_candidates(ctx, cand);
  gr_job j = {m, cand, changed, stores, false};
  tl_run_parallel(ctx, nd, scan_in, &j);
  if (j.oom) {
    st = tl_nomem(ctx->err, "global-refining");
    goto out;
  }
  if (!refine(m, cand, stores, changed)) goto out;
  tl_run_parallel(ctx, nd, retype_in, &j);
  tl_walk_const_exprs(m, retype_node, NULL);
out:
  for (uint32_t k = 0; stores && k < nd; k++) tl_vec_free(&stores[k]);
  tl_free(stores), tl_free(cand), tl_free(changed);
  return st;
}
