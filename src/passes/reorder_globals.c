/* reorder_globals.c — sort globals by static use count (global.get and
 * global.set in bodies, global inits and segment offsets), most used first,
 * so hot globals get one-byte LEBs (wasm-opt's reorder-globals). As in
 * wasm-opt, nothing happens below 128 globals (every index is one byte
 * then; --pass-arg reorder-globals-always@1 sorts anyway, for testing,
 * as wasm-opt's reorder-globals-always does). A global's init may only read globals before it: the order is a
 * greedy topological one (highest count among the globals whose
 * dependencies are placed); imports stay first. The result is kept only if
 * its estimated LEB size beats the original order. Guarantees the same
 * behaviour; every global index renumbered. Lazy bodies stay bytes: their
 * uses are counted (tl_code_refs) and renumbered there. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { MIN_GLOBALS = 128 };

typedef struct {
  uint32_t *count;  /* per global */
  uint32_t *remap;  /* old index -> new */
} rg_ctx;

static void count_visit(tl_walk *w, tl_expr **slot) {
  rg_ctx *c = w->ctx;
  if (tl_ops[(*slot)->op].imm == TL_IMM_GLOBAL) c->count[(*slot)->imm.index]++;
}

static void remap_visit(tl_walk *w, tl_expr **slot) {
  rg_ctx *c = w->ctx;
  if (tl_ops[(*slot)->op].imm == TL_IMM_GLOBAL) (*slot)->imm.index = c->remap[(*slot)->imm.index];
}

static void count_ref(void *user, const tl_code_ref *r) {
  if (r->space == TL_SPACE_GLOBAL) ((uint32_t *)user)[r->index]++;
}

/* count_visit over the module, lazy bodies counted from their bytes. */
static void count_uses(tl_module *m, rg_ctx *c) {
  tl_walk_module(m, count_visit, c);
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    if (TL_FUNC(m, i)->lazy) tl_code_refs(m, TL_FUNC(m, i)->code, TL_FUNC(m, i)->code_size, count_ref, c->count);
}

/* Collects the globals an init reads (its dependencies). */
static void dep_visit(tl_walk *w, tl_expr **slot) {
  tl_vec *v = w->ctx;
  if ((*slot)->op == TL_OP_GLOBAL_GET) TL_VEC_PUSH(v, uint32_t, (*slot)->imm.index);
}

/* Greedy: repeatedly place the unplaced global with the highest count all
 * of whose dependencies are placed (ties: lowest original index). Quadratic
 * in the number of globals only through the ready scan, which is fine for
 * the counts wasm modules have (thousands). order[k] = old index. */
typedef struct { uint32_t count, index; } key;

static int cmp_key(const void *a, const void *b) {
  const key *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* scratch: room for ng + 1 keys (the caller's allocation). */
static bool greedy(tl_module *m, const uint32_t *count, tl_vec *deps, uint32_t *order, key *scratch) {
  uint32_t ng = (uint32_t)m->globals.n, ni = m->nimported_globals, placed = ni;
  bool local_deps = false;
  for (uint32_t i = ni; i < ng; i++)
    for (size_t d = 0; d < deps[i].n; d++) local_deps |= TL_VEC_AT(&deps[i], uint32_t, d) >= ni;
  if (!local_deps) { /* the usual case: inits read imports only; a plain sort */
    key *k = scratch;
    for (uint32_t i = ni; i < ng; i++) k[i - ni] = (key){count[i], i};
    qsort(k, ng - ni, sizeof(key), cmp_key);
    for (uint32_t i = 0; i < ng; i++) order[i] = i < ni ? i : k[i - ni].index;
    return true;
  }
  uint8_t *done = (uint8_t *)scratch;
  memset(done, 0, ng);
  for (uint32_t i = 0; i < ni; i++) order[i] = i, done[i] = 1;
  while (placed < ng) {
    uint32_t best = UINT32_MAX;
    for (uint32_t i = ni; i < ng; i++) {
      if (done[i]) continue;
      bool ready = true;
      for (size_t d = 0; d < deps[i].n && ready; d++) ready = done[TL_VEC_AT(&deps[i], uint32_t, d)];
      if (ready && (best == UINT32_MAX || count[i] > count[best])) best = i;
    }
    if (best == UINT32_MAX) break; /* a cycle: invalid input */
    done[best] = 1;
    order[placed++] = best;
  }
  return placed == ng;
}

tl_status tl_pass_reorder_globals(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  uint32_t ng = (uint32_t)m->globals.n, ni = m->nimported_globals;
  const char *always_arg = tl_pass_arg_get(ctx, "reorder-globals-always");
  bool always = always_arg && *always_arg != '0';
  if (ng < MIN_GLOBALS && !always) return TL_OK;
  rg_ctx c = {tl_scratch_calloc(ng, 4), tl_scratch_calloc(ng, 4)};
  uint32_t *order = tl_scratch_realloc(NULL, ng, sizeof(uint32_t));
  tl_vec *deps = tl_scratch_calloc(ng, sizeof(tl_vec));
  tl_global *old = tl_scratch_realloc(NULL, ng, sizeof(tl_global));
  key *scratch = tl_scratch_realloc(NULL, (size_t)ng + 1, sizeof(key));
  tl_status st = c.count && c.remap && order && deps && old && scratch ? TL_OK : tl_nomem(ctx->err, "reorder-globals");
  if (st != TL_OK) goto done;
  count_uses(m, &c);
  for (uint32_t i = ni; i < ng; i++)
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, dep_visit, &deps[i]);
  if (greedy(m, c.count, deps, order, scratch)) {
    uint64_t before = 0, after = 0;
    for (uint32_t k = 0; k < ng; k++) {
      uint64_t w = always ? 128 + k : tl_uleb_size(k); /* always: a smooth cost, for testing */
      before += (uint64_t)c.count[k] * w;
      after += (uint64_t)c.count[order[k]] * w;
    }
    if (after < before) {
      for (uint32_t k = 0; k < ng; k++) c.remap[order[k]] = k;
      for (uint32_t i = 0; i < ng; i++) old[i] = *TL_GLOBAL(m, i);
      for (uint32_t i = 0; i < ng; i++) *TL_GLOBAL(m, c.remap[i]) = old[i];
      tl_walk_module(m, remap_visit, &c);
      tl_module_remap_lazy(m, TL_SPACE_GLOBAL, c.remap);
      for (size_t i = 0; i < m->exports.n; i++)
        if (TL_EXPORT(m, i)->kind == TL_EXTERN_GLOBAL)
          TL_EXPORT(m, i)->index = c.remap[TL_EXPORT(m, i)->index];
    }
  }
done:
  for (uint32_t i = 0; deps && i < ng; i++) tl_vec_free(&deps[i]);
  tl_free(deps);
  tl_free(c.count);
  tl_free(c.remap);
  tl_free(order);
  tl_free(old);
  tl_free(scratch);
  return st;
}
