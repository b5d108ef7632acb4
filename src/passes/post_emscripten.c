/* post_emscripten.c — wasm-opt's post-emscripten: clean-ups only valid for
 * Emscripten's output.
 *  - The EM_ASM / EM_JS / library-deps strings, which the JS side has
 *    already extracted, are zeroed in memory (the segment is emptied when
 *    it holds nothing else) and the __start_X / __stop_X exports that
 *    bracket them are removed, as are the __em_js__* and __em_lib_deps_*
 *    exports (remove-unused-module-elements then drops what they kept).
 *    With --pass-arg post-emscripten-side-module the EM_ASM/EM_JS ones stay.
 *  - invoke_* imports (JS try/catch trampolines) called on a constant
 *    table index whose function cannot throw become direct calls. Imports
 *    and indirect calls may throw; throwing propagates to callers.
 * Assumes: valid IR. Guarantees: valid IR; errors if only one of a
 * start/stop pair is exported. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

static bool name_is(const char *s, uint32_t len, const char *want) {
  return len == strlen(want) && !memcmp(s, want, len);
}

static bool name_starts(const char *s, uint32_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return len >= n && !memcmp(s, prefix, n);
}

static tl_export *find_export(tl_module *m, const char *name) {
  for (uint32_t i = 0; i < m->exports.n; i++)
    if (name_is(TL_EXPORT(m, i)->name, TL_EXPORT(m, i)->name_len, name)) return TL_EXPORT(m, i);
  return NULL;
}

/* The address an exported global holds: its constant i32 initializer. */
static bool exported_address(tl_module *m, const tl_export *x, uint64_t *addr) {
  if (x->kind != TL_EXTERN_GLOBAL || x->index < m->nimported_globals) return false;
  const tl_expr *init = TL_GLOBAL(m, x->index)->init;
  if (!init || init->op != TL_OP_I32_CONST) return false;
  *addr = (uint32_t)init->imm.i32;
  return true;
}

/* Zeroes [start, stop) inside the active constant-offset segment holding
 * it; a segment that is exactly that range becomes empty. */
static tl_status clear_range(tl_module *m, uint64_t start, uint64_t stop, tl_error *err) {
  for (uint32_t i = 0; i < m->datas.n; i++) {
    tl_data *d = TL_DATA(m, i);
    if (d->mode != TL_SEG_ACTIVE || !d->offset || d->offset->op != TL_OP_I32_CONST) continue;
    uint64_t base = (uint32_t)d->offset->imm.i32;
    if (base > start || base + d->size < stop) continue;
    if (base == start && base + d->size == stop) {
      d->size = 0;
      return TL_OK;
    }
    uint8_t *copy = tl_arena_alloc(&m->arena, d->size, 1);
    if (!copy) return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
    memcpy(copy, d->bytes, d->size);
    memset(copy + (start - base), 0, (size_t)(stop - start));
    d->bytes = copy;
    return TL_OK;
  }
  return TL_OK;   /* in a passive or relocatable segment: left as it is */
}

static tl_status remove_data(tl_module *m, const char *start_sym, const char *stop_sym,
                             tl_error *err) {
  tl_export *a = find_export(m, start_sym), *b = find_export(m, stop_sym);
  if (!a && !b) return TL_OK;
  if (!a || !b)
    return tl_errorf(err, TL_E_INVALID, TL_NO_OFFSET, "post-emscripten: found only one of %s and %s",
                     start_sym, stop_sym);
  uint64_t start, stop;
  if (!exported_address(m, a, &start) || !exported_address(m, b, &stop) || stop < start)
    return tl_errorf(err, TL_E_INVALID, TL_NO_OFFSET,
                     "post-emscripten: %s and %s are not constant addresses", start_sym, stop_sym);
  return clear_range(m, start, stop, err);
}

static bool export_goes(const tl_export *x, bool side_module) {
  static const char *const always[] = {"__start_em_js", "__stop_em_js", "__start_em_lib_deps",
                                       "__stop_em_lib_deps"};
  for (size_t i = 0; i < sizeof always / sizeof *always; i++)
    if (name_is(x->name, x->name_len, always[i])) return true;
  if (name_starts(x->name, x->name_len, "__em_lib_deps_")) return true;
  if (side_module) return false;
  return name_is(x->name, x->name_len, "__start_em_asm") ||
         name_is(x->name, x->name_len, "__stop_em_asm") ||
         name_starts(x->name, x->name_len, "__em_js__");
}

static tl_status remove_em_exports(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  bool side = tl_pass_arg_get(ctx, "post-emscripten-side-module") != NULL;
  tl_status s = TL_OK;
  if (!side) {
    s = remove_data(m, "__start_em_asm", "__stop_em_asm", ctx->err);
    if (s == TL_OK) s = remove_data(m, "__start_em_js", "__stop_em_js", ctx->err);
  }
  if (s == TL_OK) s = remove_data(m, "__start_em_lib_deps", "__stop_em_lib_deps", ctx->err);
  if (s != TL_OK) return s;
  uint32_t n = 0;
  for (uint32_t i = 0; i < m->exports.n; i++)
    if (!export_goes(TL_EXPORT(m, i), side)) *TL_EXPORT(m, n++) = *TL_EXPORT(m, i);
  m->exports.n = n;
  return TL_OK;
}

/* ------------------------------------------------------------- invokes */

static bool is_invoke(const tl_module *m, uint32_t fi) {
  if (fi >= m->nimported_funcs) return false;
  const tl_importname *imp = &TL_FUNC(m, fi)->imp;
  return name_is(imp->module, imp->module_len, "env") &&
         name_starts(imp->name, imp->name_len, "invoke_");
}

/* Table 0's contents when every active segment on it has a constant
 * offset: flat[i] = function index + 1, 0 for none. NULL otherwise. */
static uint32_t *flat_table(tl_module *m, uint32_t *size) {
  if (!m->tables.n) return NULL;
  uint64_t n = 0;
  for (uint32_t i = 0; i < m->elems.n; i++) {
    const tl_elem *e = TL_ELEM(m, i);
    if (e->mode != TL_SEG_ACTIVE || e->table) continue;
    if (!e->offset || e->offset->op != TL_OP_I32_CONST) return NULL;
    uint64_t end = (uint64_t)(uint32_t)e->offset->imm.i32 + e->n;
    if (end > n) n = end;
  }
  if (n > (1u << 24)) return NULL;
  uint32_t *flat = tl_calloc(n + 1, sizeof *flat);
  if (!flat) return NULL;
  for (uint32_t i = 0; i < m->elems.n; i++) {
    const tl_elem *e = TL_ELEM(m, i);
    if (e->mode != TL_SEG_ACTIVE || e->table) continue;
    uint32_t base = (uint32_t)e->offset->imm.i32;
    for (uint32_t k = 0; k < e->n; k++)
      flat[base + k] = e->item[k]->op == TL_OP_REF_FUNC ? e->item[k]->imm.index + 1 : 0;
  }
  *size = (uint32_t)n;
  return flat;
}

typedef struct { uint32_t callee, caller; } call_edge;

static int by_callee(const void *a, const void *b) {
  const call_edge *x = a, *y = b;
  return x->callee < y->callee ? -1 : x->callee > y->callee;
}

typedef struct {
  tl_vec *edges;
  uint32_t caller;
  bool *throws;
} scan_ctx;

static void scan_calls(tl_walk *w, tl_expr **slot) {
  scan_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_CALL || e->op == TL_OP_RETURN_CALL)
    TL_VEC_PUSH(c->edges, call_edge, ((call_edge){e->imm.index, c->caller}));
  else if (e->op == TL_OP_CALL_INDIRECT || e->op == TL_OP_RETURN_CALL_INDIRECT)
    c->throws[c->caller] = true;
}

/* throws[f]: f may throw — it is an import, calls indirectly, or calls
 * something that may throw. */
static bool *may_throw(tl_module *m) {
  uint32_t nf = (uint32_t)m->funcs.n;
  bool *throws = tl_calloc(nf + 1, sizeof *throws);
  tl_vec edges = {0};
  if (!throws) return NULL;
  for (uint32_t i = 0; i < nf; i++) {
    tl_func *f = TL_FUNC(m, i);
    if (!f->body) { throws[i] = true; continue; }
    scan_ctx c = {&edges, i, throws};
    tl_walk_post(m, f, &f->body, scan_calls, &c);
  }
  call_edge *ed = edges.p;
  if (edges.n) qsort(ed, edges.n, sizeof *ed, by_callee);
  uint32_t *first = tl_calloc(nf + 1, sizeof *first);   /* edges of callee c: [first[c], first[c+1]) */
  uint32_t *work = tl_malloc((nf + 1) * sizeof *work);
  if (!first || !work) { tl_free(first), tl_free(work), tl_free(throws), tl_vec_free(&edges); return NULL; }
  for (size_t k = 0; k < edges.n; k++) first[ed[k].callee + 1]++;
  for (uint32_t i = 0; i < nf; i++) first[i + 1] += first[i];
  uint32_t nw = 0;
  for (uint32_t i = 0; i < nf; i++)
    if (throws[i]) work[nw++] = i;
  while (nw) {
    uint32_t c = work[--nw];
    for (uint32_t k = first[c]; k < first[c + 1]; k++)
      if (!throws[ed[k].caller]) throws[ed[k].caller] = true, work[nw++] = ed[k].caller;
  }
  tl_free(first), tl_free(work), tl_vec_free(&edges);
  return throws;
}

/* Does target take the invoke's operands after the index, and give its
 * result? */
static bool signature_fits(tl_module *m, const tl_expr *call, uint32_t target) {
  const tl_functype *inv = tl_func_type(m, TL_FUNC(m, call->imm.index));
  const tl_functype *ft = tl_func_type(m, TL_FUNC(m, target));
  uint32_t np = tl_type_arity(m, inv->params);
  if (np == 0 || tl_type_arity(m, ft->params) != np - 1 || ft->results != inv->results) return false;
  for (uint32_t i = 1; i < np; i++)
    if (tl_type_at(m, inv->params, i) != tl_type_at(m, ft->params, i - 1)) return false;
  return true;
}

typedef struct {
  const uint32_t *flat;
  uint32_t nflat;
  const bool *throws;
} invoke_ctx;

static void direct_invoke(tl_walk *w, tl_expr **slot) {
  const invoke_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op != TL_OP_CALL || !is_invoke(w->m, e->imm.index) || !e->nkid) return;
  if (e->kid[0]->op != TL_OP_I32_CONST) return;
  uint32_t idx = (uint32_t)e->kid[0]->imm.i32;
  if (idx >= c->nflat || !c->flat[idx]) return;
  uint32_t target = c->flat[idx] - 1;
  if (c->throws[target] || !signature_fits(w->m, e, target)) return;
  e->imm.index = target;
  memmove(e->kid, e->kid + 1, (e->nkid - 1) * sizeof *e->kid);
  e->nkid--;
}

static tl_status optimize_invokes(tl_module *m, tl_error *err) {
  bool any = false;
  for (uint32_t i = 0; i < m->nimported_funcs; i++) any |= is_invoke(m, i);
  uint32_t nflat = 0;
  uint32_t *flat = any ? flat_table(m, &nflat) : NULL;
  if (!flat) return TL_OK;
  bool *throws = may_throw(m);
  if (!throws) {
    tl_free(flat);
    return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  }
  invoke_ctx c = {flat, nflat, throws};
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    tl_walk_post(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, direct_invoke, &c);
  tl_free(flat), tl_free(throws);
  return TL_OK;
}

tl_status tl_pass_post_emscripten(tl_pass_ctx *ctx) {
  tl_status s = remove_em_exports(ctx);
  return s == TL_OK ? optimize_invokes(ctx->m, ctx->err) : s;
}
