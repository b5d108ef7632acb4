/* duplicate_import_elimination.c — function imports of the same module and
 * name with the same signature are one function: every reference to a
 * later copy (call, return_call, ref.func anywhere, exports, start) goes to
 * the first, and the copies are removed, indices renumbered (wasm-opt's
 * duplicate-import-elimination). Names of the removed copies are lost.
 * Lazy bodies stay bytes: their function indices are renumbered there.
 * Guarantees the same behaviour. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

static void remap_visit(tl_walk *w, tl_expr **slot) {
  const uint32_t *remap = w->ctx;
  if (tl_ops[(*slot)->op].imm == TL_IMM_FUNC) (*slot)->imm.index = remap[(*slot)->imm.index];
}

static bool same_import(tl_module *m, const tl_func *a, const tl_func *b) {
  tl_functype *ta = tl_func_type(m, a), *tb = tl_func_type(m, b);
  return ta->params == tb->params && ta->results == tb->results &&
         tl_name_eq(a->imp.module, a->imp.module_len, b->imp.module, b->imp.module_len) &&
         tl_name_eq(a->imp.name, a->imp.name_len, b->imp.name, b->imp.name_len);
}

typedef struct { tl_module *m; uint32_t index; } imp_ref;

static int cmp_bytes(const char *a, uint32_t alen, const char *b, uint32_t blen) {
  alen = tl_name_len(a, alen);
  blen = tl_name_len(b, blen);
  int c = memcmp(a ? a : "", b ? b : "", alen < blen ? alen : blen);
  return c ? c : (alen > blen) - (alen < blen);
}

/* Orders imports by module, name, signature, then index. */
static int cmp_import(const void *pa, const void *pb) {
  const imp_ref *x = pa, *y = pb;
  const tl_func *a = TL_FUNC(x->m, x->index), *b = TL_FUNC(y->m, y->index);
  int c = cmp_bytes(a->imp.module, a->imp.module_len, b->imp.module, b->imp.module_len);
  if (!c) c = cmp_bytes(a->imp.name, a->imp.name_len, b->imp.name, b->imp.name_len);
  if (c) return c;
  tl_functype *ta = tl_func_type(x->m, a), *tb = tl_func_type(y->m, b);
  if (ta->params != tb->params) return ta->params < tb->params ? -1 : 1;
  if (ta->results != tb->results) return ta->results < tb->results ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* target[i]: the first import equal to import i (i itself if none); a
 * sort brings equal imports together. */
static bool find_duplicates(tl_module *m, uint32_t *target, imp_ref *r) {
  uint32_t ni = m->nimported_funcs;
  for (uint32_t i = 0; i < ni; i++) r[i] = (imp_ref){m, i}, target[i] = i;
  qsort(r, ni, sizeof(imp_ref), cmp_import);
  bool any = false;
  for (uint32_t k = 1, first = 0; k < ni; k++) {
    if (same_import(m, TL_FUNC(m, r[first].index), TL_FUNC(m, r[k].index))) {
      target[r[k].index] = r[first].index;
      any = true;
    } else {
      first = k;
    }
  }
  return any;
}

tl_status tl_pass_duplicate_import_elimination(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n, ni = m->nimported_funcs;
  if (ni < 2) return TL_OK;
  uint32_t *target = tl_scratch_realloc(NULL, nf, sizeof(uint32_t));
  uint32_t *remap = tl_scratch_realloc(NULL, nf, sizeof(uint32_t));
  imp_ref *r = tl_scratch_realloc(NULL, ni, sizeof(imp_ref));
  if (!target || !remap || !r) {
    tl_free(target);
    tl_free(remap);
    tl_free(r);
    return tl_nomem(ctx->err, "duplicate-import-elimination");
  }
  if (find_duplicates(m, target, r)) {
    for (uint32_t i = ni; i < nf; i++) target[i] = i;
    uint32_t n = 0;
    for (uint32_t i = 0; i < nf; i++) remap[i] = target[i] == i ? n++ : UINT32_MAX;
    for (uint32_t i = 0; i < nf; i++)
      if (target[i] != i) remap[i] = remap[target[i]];
    tl_walk_module(m, remap_visit, remap);
    tl_module_remap_lazy(m, TL_SPACE_FUNC, remap);
    for (size_t i = 0; i < m->exports.n; i++)
      if (TL_EXPORT(m, i)->kind == TL_EXTERN_FUNC) TL_EXPORT(m, i)->index = remap[TL_EXPORT(m, i)->index];
    if (m->has_start) m->start = remap[m->start];
    uint32_t out = 0, kept_imports = 0;
    for (uint32_t i = 0; i < nf; i++) {
      if (target[i] != i) continue;
      if (out != i) *TL_FUNC(m, out) = *TL_FUNC(m, i);
      kept_imports += i < ni;
      out++;
    }
    m->funcs.n = out;
    m->nimported_funcs = kept_imports;
  }
  tl_free(target);
  tl_free(remap);
  tl_free(r);
  return TL_OK;
}
