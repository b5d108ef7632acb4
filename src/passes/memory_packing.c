/* memory_packing.c — split active data segments around runs of zeros and
 * drop the zeros (memory starts zero-filled: always for a defined memory,
 * for an imported one only with --zero-filled-memory). Interior runs longer
 * than 8 bytes split a segment; leading and trailing zeros go, and so do
 * all-zero and empty segments. Passive segments are never split; one that
 * no memory.init reads is removed and its data.drops become nops.
 * Gives up (changes nothing) when a segment could trample another or its
 * own bytes matter past the memory: several segments with a non-constant
 * active offset, overlapping active segments, a segment reaching past the
 * memory's initial size. data.drop of an active segment is a nop (active
 * segments are dropped at instantiation); one that memory.init names is
 * left whole (its traps must keep their reason). Keeps at most 100000
 * segments (the web limit). Guarantees the same behaviour; data indices renumbered everywhere. */
#include "passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THRESHOLD = 8, MAX_SEGMENTS = 100000 };
#define REMOVED UINT32_MAX

typedef struct {
  uint32_t *inits, *drops; /* per data index: memory.init / data.drop count */
  uint32_t *remap;         /* old data index -> new, or REMOVED */
  uint8_t *nop_drop;       /* old data index -> its data.drops become nops */
} mp_ctx;

static void count_visit(tl_walk *w, tl_expr **slot) {
  mp_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_MEMORY_INIT) c->inits[e->imm.idx2.a]++;
  else if (e->op == TL_OP_DATA_DROP) c->drops[e->imm.index]++;
}

static void remap_visit(tl_walk *w, tl_expr **slot) {
  mp_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_MEMORY_INIT) e->imm.idx2.a = c->remap[e->imm.idx2.a];
  else if (e->op == TL_OP_DATA_DROP && (c->remap[e->imm.index] == REMOVED || c->nop_drop[e->imm.index]))
    *slot = tl_make_nop(w->m);
  else if (e->op == TL_OP_DATA_DROP) e->imm.index = c->remap[e->imm.index];
}

/* The constant offset of an active segment. */
static bool const_offset(const tl_data *d, uint64_t *out) {
  if (!d->offset) return false;
  if (d->offset->op == TL_OP_I32_CONST) *out = (uint32_t)d->offset->imm.i32;
  else if (d->offset->op == TL_OP_I64_CONST) *out = (uint64_t)d->offset->imm.i64;
  else return false;
  return true;
}

typedef struct { uint64_t start, end; } span;

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether zeros may be dropped from the active segments at all. */
static bool can_optimize(tl_module *m, const tl_pass_ctx *ctx) {
  if (m->memories.n != 1) return false;
  tl_memory *mem = TL_MEMORY(m, 0);
  if (m->nimported_memories && !ctx->opt->zero_filled_memory) return false;
  size_t n = m->datas.n, na = 0;
  span *sp = malloc((n + 1) * sizeof(span));
  if (!sp) abort();
  bool ok = true;
  for (size_t i = 0; i < n && ok; i++) {
    tl_data *d = TL_DATA(m, i);
    if (d->mode != TL_SEG_ACTIVE) continue;
    uint64_t off;
    if (!const_offset(d, &off)) ok = false;
    else sp[na++] = (span){off, off + d->size};
  }
  qsort(sp, na, sizeof(span), cmp_span);
  uint64_t limit = mem->min > (1ull << 32) ? UINT64_MAX : mem->min * 65536ull;
  for (size_t i = 0; i < na && ok; i++) {
    if (sp[i].end > limit || sp[i].end < sp[i].start) ok = false;
    if (i && sp[i].start < sp[i - 1].end) ok = false;
  }
  free(sp);
  return ok;
}

static tl_expr *offset_plus(tl_module *m, const tl_expr *base, uint64_t add) {
  if (base->op == TL_OP_I64_CONST) return tl_make_const_i64(m, (int64_t)((uint64_t)base->imm.i64 + add));
  return tl_make_const_i32(m, (int32_t)((uint32_t)base->imm.i32 + (uint32_t)add));
}

static void push_piece(tl_module *m, tl_vec *out, const tl_data *d, uint32_t s, uint32_t e, uint32_t k) {
  tl_data p = *d;
  p.bytes = d->bytes + s;
  p.size = e - s;
  p.offset = offset_plus(m, d->offset, s);
  if (d->name && k) {
    size_t len = strlen(d->name) + 16;
    char *nm = tl_arena_alloc(&m->arena, len, 1);
    snprintf(nm, len, "%s.%u", d->name, k);
    p.name = nm;
  }
  TL_VEC_PUSH(out, tl_data, p);
}

/* Appends the non-zero pieces of active segment d to out; interior zero
 * runs of at most THRESHOLD bytes stay. `later` is the number of original
 * segments after d (each needs a slot under MAX_SEGMENTS). */
static void split(tl_module *m, const tl_data *d, tl_vec *out, size_t later) {
  const uint8_t *b = d->bytes;
  uint32_t n = d->size, i = 0, k = 0, last = n;
  while (last > 0 && !b[last - 1]) last--;
  while (i < last) {
    while (i < last && !b[i]) i++;
    uint32_t s = i, e = i;
    for (;;) { /* extend over small zero gaps */
      while (e < last && b[e]) e++;
      uint32_t z = e;
      while (z < last && !b[z]) z++;
      if (z == last || z - e > THRESHOLD) break;
      e = z;
    }
    if (out->n + later + 1 >= MAX_SEGMENTS) e = last; /* no room: one piece */
    push_piece(m, out, d, s, e, k++);
    i = e;
  }
}

static bool is_llvm_segment(const tl_data *d) {
  return d->name && !strncmp(d->name, "__llvm", 6);
}

tl_status tl_pass_memory_packing(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  size_t n = m->datas.n;
  if (!n || !can_optimize(m, ctx)) return TL_OK;
  mp_ctx c = {calloc(n, 4), calloc(n, 4), calloc(n, 4), calloc(n, 1)};
  if (!c.inits || !c.drops || !c.remap || !c.nop_drop) abort();
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    tl_walk_post(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, count_visit, &c);
  tl_vec out = {0};
  for (size_t i = 0; i < n; i++) {
    tl_data *d = TL_DATA(m, i);
    bool active = d->mode == TL_SEG_ACTIVE;
    if (!active && !c.inits[i]) {
      c.remap[i] = REMOVED;
      continue;
    }
    if (active && !c.inits[i] && c.drops[i]) { /* an active segment is dropped already */
      c.nop_drop[i] = 1;
      c.drops[i] = 0;
    }
    size_t before = out.n;
    c.remap[i] = (uint32_t)before;
    if (!active || c.inits[i] || c.drops[i] || is_llvm_segment(d)) TL_VEC_PUSH(&out, tl_data, *d);
    else split(m, d, &out, n - i - 1);
    if (out.n == before) c.remap[i] = REMOVED;
  }
  bool changed = out.n != n;
  for (size_t i = 0; i < n; i++) changed |= c.nop_drop[i];
  for (size_t i = 0; i < n && !changed; i++)
    changed = TL_DATA(m, i)->size != TL_VEC_AT(&out, tl_data, i).size;
  if (changed) {
    tl_vec old = m->datas;
    m->datas = out;
    out = old;
    for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
      tl_func *f = TL_FUNC(m, i);
      tl_walk_post(m, f, &f->body, remap_visit, &c);
    }
  }
  tl_vec_free(&out);
  free(c.inits);
  free(c.drops);
  free(c.nop_drop);
  free(c.remap);
  return TL_OK;
}
