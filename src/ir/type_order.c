/* type_order.c — the order of the kept rec groups in a compacted type
 * section (type_rewrite.c's open-world mode). Each group weighs its uses
 * per member plus a quarter of the weight of each group that names it
 * (Binaryen's getOptimizedIndexedHeapTypes); groups are then placed
 * heaviest first, each after every group its types name (wasm allows no
 * forward reference out of a group), ties by old position. Assumes the old
 * section is valid, so a group only names groups before it. */
#include "ir.h"

#include <stdlib.h>

typedef struct {
  const tl_module *m;
  uint32_t ng;        /* kept groups, in old order */
  uint32_t *start;    /* ng: each group's first (canonical) type */
  uint32_t *gof;      /* m->types.n: a kept canonical type's group */
  tl_vec edges;       /* uint64_t: (dep << 32 | user), sorted, unique */
  uint32_t *efirst;   /* ng + 1: edges of dep g are efirst[g]..efirst[g+1] */
  uint32_t *indeg;    /* ng: distinct groups a group names */
  double *weight;     /* ng */
  uint32_t *heap, nheap;
} ord;

static uint32_t group_of(const ord *o, uint32_t idx) {
  return o->gof[TL_FTYPE(o->m, idx)->canon];
}

/* ---- groups and the groups they name ----------------------------------- */
static void find_groups(ord *o, const uint8_t *used) {
  const tl_module *m = o->m;
  for (uint32_t i = 0; i < m->types.n; i++) {
    const tl_deftype *d = TL_FTYPE(m, i);
    if (d->canon != i || d->rec != i || !used[i]) continue;
    for (uint32_t k = i; k < i + d->nrec; k++) o->gof[k] = o->ng;
    o->start[o->ng++] = i;
  }
}

static void note_edge(ord *o, uint32_t user, uint32_t idx) {
  uint32_t dep = group_of(o, idx);
  if (dep != user) TL_VEC_PUSH(&o->edges, uint64_t, (uint64_t)dep << 32 | user);
}

static void note_type(ord *o, uint32_t user, tl_type t) {
  for (uint32_t i = 0, n = tl_type_arity(o->m, t); i < n; i++) {
    tl_type c = tl_type_at(o->m, t, i);
    if (c >= TL_REF_BASE && tl_heap_is_def(tl_ref_heap(c))) note_edge(o, user, tl_ref_heap(c) - TL_HT_DEF);
  }
}

static int by_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* edges: every (group named, group naming it) pair once, by named group. */
static void find_edges(ord *o) {
  const tl_module *m = o->m;
  for (uint32_t g = 0; g < o->ng; g++) {
    const tl_deftype *d0 = TL_FTYPE(m, o->start[g]);
    for (uint32_t k = o->start[g]; k < o->start[g] + d0->nrec; k++) {
      const tl_deftype *d = TL_FTYPE(m, k);
      if (d->super != TL_NO_SUPER) note_edge(o, g, d->super);
      if (d->kind == TL_DT_FUNC) note_type(o, g, d->params), note_type(o, g, d->results);
      for (uint32_t f = 0; f < d->nfields; f++) note_type(o, g, d->fields[f].type);
    }
  }
  uint64_t *e = o->edges.p;
  size_t n = 0;
  if (o->edges.n) qsort(e, o->edges.n, sizeof *e, by_u64);
  for (size_t i = 0; i < o->edges.n; i++)
    if (!n || e[i] != e[n - 1]) e[n++] = e[i];
  o->edges.n = n;
  for (size_t i = 0; i < n; i++) o->efirst[(e[i] >> 32) + 1]++, o->indeg[(uint32_t)e[i]]++;
  for (uint32_t g = 0; g < o->ng; g++) o->efirst[g + 1] += o->efirst[g];
}

/* Users come after what they name, so one backward sweep sees each
 * user's weight final before adding it to its dependencies. */
static void find_weights(ord *o, const uint32_t *uses) {
  const uint64_t *e = o->edges.p;
  for (uint32_t g = 0; g < o->ng; g++) {
    uint32_t nrec = TL_FTYPE(o->m, o->start[g])->nrec;
    uint64_t sum = 0;
    for (uint32_t k = o->start[g]; k < o->start[g] + nrec; k++) sum += uses[k];
    o->weight[g] = (double)sum / nrec;
  }
  for (uint32_t g = o->ng; g-- > 0;)
    for (uint32_t i = o->efirst[g]; i < o->efirst[g + 1]; i++) o->weight[g] += 0.25 * o->weight[(uint32_t)e[i]];
}

/* ---- placing: a binary heap of the groups whose dependencies are placed  */
static bool before(const ord *o, uint32_t a, uint32_t b) {
  if (o->weight[a] != o->weight[b]) return o->weight[a] > o->weight[b];
  return a < b;
}

static void heap_push(ord *o, uint32_t g) {
  uint32_t i = o->nheap++;
  while (i && before(o, g, o->heap[(i - 1) / 2])) o->heap[i] = o->heap[(i - 1) / 2], i = (i - 1) / 2;
  o->heap[i] = g;
}

static uint32_t heap_pop(ord *o) {
  uint32_t top = o->heap[0], last = o->heap[--o->nheap], i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= o->nheap) break;
    if (c + 1 < o->nheap && before(o, o->heap[c + 1], o->heap[c])) c++;
    if (!before(o, o->heap[c], last)) break;
    o->heap[i] = o->heap[c], i = c;
  }
  if (o->nheap) o->heap[i] = last;
  return top;
}

static uint32_t place(ord *o, uint32_t *order, uint32_t *newpos) {
  const uint64_t *e = o->edges.p;
  uint32_t k = 0;
  for (uint32_t g = 0; g < o->ng; g++)
    if (!o->indeg[g]) heap_push(o, g);
  while (o->nheap) {
    uint32_t g = heap_pop(o), s = o->start[g], nrec = TL_FTYPE(o->m, s)->nrec;
    for (uint32_t t = s; t < s + nrec; t++) newpos[t] = k, order[k++] = t;
    for (uint32_t i = o->efirst[g]; i < o->efirst[g + 1]; i++)
      if (!--o->indeg[(uint32_t)e[i]]) heap_push(o, (uint32_t)e[i]);
  }
  return k;
}

uint32_t tl_types_order_groups(const tl_module *m, const uint8_t *used, const uint32_t *uses, uint32_t *order,
                               uint32_t *newpos) {
  uint32_t n1 = m->types.n ? (uint32_t)m->types.n : 1;
  tl_arena a;
  tl_arena_init(&a);
  ord o = {.m = m};
  o.start = TL_NEWN(&a, uint32_t, n1);
  o.gof = TL_NEWN(&a, uint32_t, n1);
  find_groups(&o, used);
  o.efirst = TL_NEWN(&a, uint32_t, o.ng + 1);
  o.indeg = TL_NEWN(&a, uint32_t, o.ng + 1);
  o.weight = TL_NEWN(&a, double, o.ng + 1);
  o.heap = TL_NEWN(&a, uint32_t, o.ng + 1);
  find_edges(&o);
  find_weights(&o, uses);
  uint32_t k = place(&o, order, newpos);
  tl_vec_free(&o.edges);
  tl_arena_free(&a);
  return k;
}
