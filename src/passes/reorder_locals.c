/* reorder_locals.c — sort the declared locals by use count (most used
 * first, so they get the short LEB indices; ties keep the first-use order)
 * and drop locals nothing uses. Then, within the one-byte index range
 * (< 128) and within the rest, locals of one type are put together (stable),
 * so the declarations take one (count, type) entry per type and range —
 * the same indices stay short, and interleaved types no longer cost an
 * entry each (wasm-opt's writer groups locals by type likewise). The
 * reader's scratch locals are sorted on their own after the others and
 * scratch_base follows them.
 * A legacy catch arm's payload local counts as a use (exception handling).
 * Assumes: valid IR. Params keep their indices. Tuple-typed locals (reader
 * scratch) are ordinary locals here: they move with their type.
 * Guarantees: the same behaviour; every remaining declared local is used. */
#include "passes.h"

#include <stdlib.h>

typedef struct {
  uint32_t *count, *first; /* uses and first-use order per local */
  uint32_t *map;           /* old index -> new index */
  uint32_t seen;
  tl_vec ops;              /* tl_expr *: every local.get/set/tee */
} ro_ctx;

/* The local a node names, or NULL: local.get/set/tee's, and a legacy
 * catch arm's payload local (the arm writes it on entry). */
static uint32_t *local_of(tl_expr *e) {
  if (e->op == TL_OP_LOCAL_GET || e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) return &e->imm.index;
  if (e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX) return &e->imm.idx2.a;
  return NULL;
}

/* Counts uses and first uses in pre-order (a stack of nodes, kids pushed
 * last to first; no visitor calls), collecting the local ops. */
static void count(ro_ctx *c, tl_expr *root) {
  tl_vec st = {0};
  tl_vec_grow(&st, sizeof(tl_expr *), 64);
  if (root) TL_VEC_PUSH(&st, tl_expr *, root);
  while (st.n) {
    tl_expr *e = TL_VEC_AT(&st, tl_expr *, --st.n);
    uint32_t *l = local_of(e);
    if (l) {
      if (c->ops.n == c->ops.cap) tl_vec_grow(&c->ops, sizeof(tl_expr *), c->ops.n + 1);
      TL_VEC_AT(&c->ops, tl_expr *, c->ops.n++) = e;
      if (!c->count[*l]++) c->first[*l] = c->seen++;
    }
    if (st.n + e->nkid > st.cap) tl_vec_grow(&st, sizeof(tl_expr *), st.n + e->nkid);
    for (uint32_t i = e->nkid; i-- > 0;)
      if (e->kid[i]) TL_VEC_AT(&st, tl_expr *, st.n++) = e->kid[i];
  }
  tl_vec_free(&st);
}

/* A stable bottom-up merge sort: most uses first, then first use.
 * tmp holds at least n entries. */
static void sort_locals(ro_ctx *c, uint32_t *v, uint32_t n, uint32_t *tmp) {
  for (uint32_t width = 1; width < n; width *= 2) {
    for (uint32_t lo = 0; lo < n; lo += 2 * width) {
      uint32_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      uint32_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        uint32_t x = v[i], y = v[j];
        bool take_y = c->count[y] > c->count[x] ||
                      (c->count[y] == c->count[x] && c->first[y] < c->first[x]);
        tmp[k++] = take_y ? v[j++] : v[i++];
      }
      while (i < mid) tmp[k++] = v[i++];
      while (j < hi) tmp[k++] = v[j++];
    }
    for (uint32_t i = 0; i < n; i++) v[i] = tmp[i];
  }
}

/* Stable: v[0..n) grouped by type, types in order of first appearance,
 * starting with `first` if it appears. Gives up past MAX_TYPES types. */
enum { MAX_TYPES = 16 };
static void group_types(const tl_type *types, uint32_t *v, uint32_t n, tl_type first, uint32_t *tmp) {
  tl_type seen[MAX_TYPES];
  uint32_t nt = 0;
  bool has_first = false;
  for (uint32_t i = 0; i < n; i++) has_first |= types[v[i]] == first;
  if (has_first) seen[nt++] = first;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t t = 0;
    while (t < nt && seen[t] != types[v[i]]) t++;
    if (t < nt) continue;
    if (nt == MAX_TYPES) return;
    seen[nt++] = types[v[i]];
  }
  uint32_t k = 0;
  for (uint32_t t = 0; t < nt; t++)
    for (uint32_t i = 0; i < n; i++)
      if (types[v[i]] == seen[t]) tmp[k++] = v[i];
  for (uint32_t i = 0; i < n; i++) v[i] = tmp[i];
}

/* With DWARF: each kept local's input index follows it (DWARF names
 * locals by index; the writer maps them). */
static void keep_origins(tl_module *m, tl_func *f, const uint32_t *order, uint32_t np, uint32_t nd) {
  uint32_t *orig = TL_NEWN(&m->arena, uint32_t, f->local_cap > np + nd ? f->local_cap : np + nd);
  for (uint32_t i = 0; i < np; i++) orig[i] = f->local_orig ? f->local_orig[i] : i;
  for (uint32_t k = 0; k < nd; k++) orig[np + k] = f->local_orig ? f->local_orig[order[k]] : order[k];
  f->local_orig = orig;
}

tl_status tl_pass_reorder_locals(tl_pass_ctx *ctx, tl_func *f) {
  tl_module *m = ctx->m;
  uint32_t np = tl_func_nparams(m, f), n = f->nlocal;
  if (n == np) return TL_OK;
  /* one allocation: names, then count, first, map, order, tmp, types
   * (count and first start at zero) */
  const char **names = tl_scratch_calloc(n, sizeof(char *) + 5 * sizeof(uint32_t) + sizeof(tl_type));
  if (!names) return tl_nomem(ctx->err, "reorder-locals");
  uint32_t *u32 = (uint32_t *)(names + n);
  ro_ctx c = {u32, u32 + n, u32 + 2 * (size_t)n, 0, {0}};
  uint32_t *order = u32 + 3 * (size_t)n, *tmp = u32 + 4 * (size_t)n;
  tl_type *types = (tl_type *)(u32 + 5 * (size_t)n);
  tl_vec_grow(&c.ops, sizeof(tl_expr *), 4 * (size_t)n + 16); /* most functions: no regrowth */
  count(&c, f->body);
  /* The reader's scratch locals (from scratch_base on) stay last, so the
   * writer can still recognize (and elide) them. */
  uint32_t sb = f->has_scratch_base && f->scratch_base >= np && f->scratch_base < n ? f->scratch_base : n;
  uint32_t nd = 0, nreg;
  for (uint32_t i = np; i < sb; i++)
    if (c.count[i]) order[nd++] = i;
  nreg = nd;
  for (uint32_t i = sb; i < n; i++)
    if (c.count[i]) order[nd++] = i;
  sort_locals(&c, order, nreg, tmp);
  sort_locals(&c, order + nreg, nd - nreg, tmp);
  for (uint32_t i = 0; i < n; i++) types[i] = f->local[i], names[i] = f->local_name ? f->local_name[i] : NULL;
  uint32_t short_n = np < 128 ? 128 - np : 0;
  if (short_n > nreg) short_n = nreg;
  group_types(types, order, short_n, np ? types[np - 1] : TL_NONE, c.first);
  group_types(types, order + short_n, nreg - short_n, short_n ? types[order[short_n - 1]] : TL_NONE, c.first);
  if (f->has_scratch_base && sb < n) f->scratch_base = np + nreg;
  if (m->dwarf_locs) keep_origins(m, f, order, np, nd);
  for (uint32_t i = 0; i < np; i++) c.map[i] = i;
  for (uint32_t k = 0; k < nd; k++) {
    c.map[order[k]] = np + k;
    f->local[np + k] = types[order[k]];
    if (f->local_name) f->local_name[np + k] = names[order[k]];
  }
  bool same = np + nd == n;
  for (uint32_t k = 0; same && k < nd; k++) same = order[k] == np + k;
  f->nlocal = np + nd;
  for (size_t i = 0; !same && i < c.ops.n; i++) {
    uint32_t *l = local_of(TL_VEC_AT(&c.ops, tl_expr *, i));
    *l = c.map[*l];
  }
  tl_vec_free(&c.ops);
  tl_free((void *)names);
  return TL_OK;
}
