/* reorder_functions.c — sort the defined functions by static use count,
 * most used first, so the hottest indices get the shortest LEBs (wasm-opt's
 * reorder-functions). Uses: call, return_call and ref.func anywhere (bodies,
 * global inits, element segments), exports and the start function. Ties keep
 * the original order; imports stay first, in place. Every function index is
 * renumbered (bodies, globals, segments, exports, start). Guarantees the
 * same behaviour. */
#include "passes.h"

#include <stdlib.h>

typedef struct {
  uint32_t *count; /* per function index */
  uint32_t *remap; /* old index -> new */
} rf_ctx;

static void count_visit(tl_walk *w, tl_expr **slot) {
  rf_ctx *c = w->ctx;
  if (tl_ops[(*slot)->op].imm == TL_IMM_FUNC) c->count[(*slot)->imm.index]++;
}

static void remap_visit(tl_walk *w, tl_expr **slot) {
  rf_ctx *c = w->ctx;
  if (tl_ops[(*slot)->op].imm == TL_IMM_FUNC) (*slot)->imm.index = c->remap[(*slot)->imm.index];
}


typedef struct { uint32_t count, index; } key;

static int cmp_key(const void *a, const void *b) {
  const key *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

tl_status tl_pass_reorder_functions(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n, ni = m->nimported_funcs;
  if (nf - ni < 2) return TL_OK;
  rf_ctx c = {tl_scratch_calloc(nf, 4), tl_scratch_calloc(nf, 4)};
  key *k = tl_scratch_realloc(NULL, nf - ni, sizeof(key));
  tl_func *old = tl_scratch_realloc(NULL, nf, sizeof(tl_func));
  tl_status st = c.count && c.remap && k && old ? TL_OK : tl_nomem(ctx->err, "reorder-functions");
  if (st != TL_OK) goto done;
  tl_walk_module(m, count_visit, &c);
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_FUNC) c.count[TL_EXPORT(m, i)->index]++;
  if (m->has_start) c.count[m->start]++;
  for (uint32_t i = ni; i < nf; i++) k[i - ni] = (key){c.count[i], i};
  qsort(k, nf - ni, sizeof(key), cmp_key);
  bool moved = false;
  for (uint32_t i = 0; i < ni; i++) c.remap[i] = i;
  for (uint32_t j = 0; j < nf - ni; j++) {
    c.remap[k[j].index] = ni + j;
    moved |= k[j].index != ni + j;
  }
  if (moved) {
    for (uint32_t i = 0; i < nf; i++) old[i] = *TL_FUNC(m, i);
    for (uint32_t i = 0; i < nf; i++) *TL_FUNC(m, c.remap[i]) = old[i];
    tl_walk_module(m, remap_visit, &c);
    for (size_t i = 0; i < m->exports.n; i++)
      if (TL_EXPORT(m, i)->kind == TL_EXTERN_FUNC) TL_EXPORT(m, i)->index = c.remap[TL_EXPORT(m, i)->index];
    if (m->has_start) m->start = c.remap[m->start];
  }
done:
  tl_free(c.count);
  tl_free(c.remap);
  tl_free(k);
  tl_free(old);
  return st;
}
