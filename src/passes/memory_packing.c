/* memory_packing.c — split active data segments around runs of zeros and
 * drop the zeros (memory starts zero-filled: always for a defined memory,
 * for an imported one only with --zero-filled-memory). Interior runs longer
 * than 8 bytes split a segment; leading and trailing zeros go, and so do
 * all-zero and empty segments. A passive segment that no memory.init reads
 * is removed and its data.drops become nops; one that memory.inits read
 * only whole (offset 0, full size) is split the same way (wasm-opt's
 * thresholds), each memory.init becoming the memory.init of its last piece
 * (which keeps the trailing zeros and so traps exactly when the original
 * would, before any write), then the other pieces' memory.inits and
 * memory.fills of the zero runs; data.drop drops every piece.
 * Gives up (changes nothing) when a segment could trample another or its
 * own bytes matter past the memory: several segments with a non-constant
 * active offset, overlapping active segments, a segment reaching past the
 * memory's initial size. data.drop of an active segment is a nop (active
 * segments are dropped at instantiation); one that memory.init names is
 * left whole (its traps must keep their reason). Keeps at most 100000
 * segments (the web limit). Lazy bodies stay bytes unless they name a
 * segment (memory.init, data.drop: found with tl_code_refs), which are
 * decoded. Guarantees the same behaviour; data indices renumbered everywhere. */
#include "passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THRESHOLD = 8, MAX_SEGMENTS = 100000 };
#define REMOVED UINT32_MAX

/* A range of a split passive segment: a piece (its own segment) or zeros
 * (memory.fill). The last range is always a piece reaching the end. */
typedef struct { uint32_t start, end; bool zero; } range;

typedef struct {
  tl_module *m;
  uint32_t *inits, *drops; /* per data index: memory.init / data.drop count */
  uint8_t *odd_init;       /* some memory.init of it is not (0, whole size) */
  uint32_t *remap;         /* old data index -> new, or REMOVED */
  uint8_t *nop_drop;       /* old data index -> its data.drops become nops */
  tl_vec *plan;            /* old passive index -> ranges when split */
  bool touched;            /* the function walked got a replacement */
} mp_ctx;

/* The walks see only these (memory.init, data.drop, array.new_data and
 * array.init_data among them). */
#define SEG_OPS (TL_F_WRITES_MEM | TL_F_GC_ALLOC | TL_F_GC_WRITE)

/* array.new_data / array.init_data: they read a segment anywhere (left
 * whole, like an odd memory.init), imm.idx2.b names it. */
static bool is_gc_data(const tl_expr *e) {
  return e->op == TL_OP_ARRAY_NEW_DATA || e->op == TL_OP_ARRAY_INIT_DATA;
}

static bool is_i32(const tl_expr *e, uint32_t v) {
  return e->op == TL_OP_I32_CONST && (uint32_t)e->imm.i32 == v;
}

static void count_visit(tl_walk *w, tl_expr **slot) {
  mp_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_MEMORY_INIT) {
    uint32_t i = e->imm.idx2.a;
    c->inits[i]++;
    if (e->imm.idx2.b || !is_i32(e->kid[1], 0) || !is_i32(e->kid[2], TL_DATA(c->m, i)->size)) c->odd_init[i] = 1;
  } else if (e->op == TL_OP_DATA_DROP) {
    c->drops[e->imm.index]++;
  } else if (is_gc_data(e)) {
    c->inits[e->imm.idx2.b]++;
    c->odd_init[e->imm.idx2.b] = 1;
  }
}

/* Which bodies have a memory.init or data.drop: found in parallel (each
 * writes only its own flag); only those are counted, in order. */
static void has_visit(tl_walk *w, tl_expr **slot) {
  if ((*slot)->op == TL_OP_MEMORY_INIT || (*slot)->op == TL_OP_DATA_DROP || is_gc_data(*slot)) *(uint8_t *)w->ctx = 1;
}

typedef struct {
  tl_module *m;
  uint8_t *has;
} has_job;

/* has_visit on a lazy body's bytes: only memory.init and data.drop name a
 * data segment there. */
static void has_ref(void *user, const tl_code_ref *r) {
  if (r->space == TL_SPACE_DATA) *(uint8_t *)user = 1;
}

static void has_one(void *user, uint32_t k) {
  has_job *j = user;
  uint32_t i = j->m->nimported_funcs + k;
  tl_func *f = TL_FUNC(j->m, i);
  if (f->lazy) tl_code_refs(j->m, f->code, f->code_size, has_ref, &j->has[i]);
  else tl_walk_post_only(j->m, f, &f->body, has_visit, &j->has[i], SEG_OPS);
}

/* The lazy bodies that name a segment are decoded (the pass counts and
 * rewrites their nodes); the rest stay bytes. */
static tl_status decode_has(tl_module *m, const uint8_t *has, tl_error *err) {
  tl_status s = TL_OK;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n && s == TL_OK; i++)
    if (has[i]) s = tl_func_decode(m, i, err);
  return s;
}

static tl_expr *dest_at(tl_module *m, tl_func *f, const tl_expr *d, uint32_t loc, uint32_t k) {
  if (loc == TL_NO_INDEX) return tl_make_const_i32(m, (int32_t)((uint32_t)d->imm.i32 + k));
  tl_expr *g = tl_make_local_get(m, f, loc);
  return k ? tl_make_binary(m, TL_OP_I32_ADD, g, tl_make_const_i32(m, (int32_t)k)) : g;
}

static tl_expr *bulk(tl_module *m, tl_op op, uint32_t seg, tl_expr *dst, uint32_t len) {
  tl_expr *e = tl_expr_new(m, op, 3);
  e->kid[0] = dst;
  e->kid[1] = tl_make_const_i32(m, 0);
  e->kid[2] = tl_make_const_i32(m, (int32_t)len);
  if (op == TL_OP_MEMORY_INIT) e->imm.idx2.a = seg, e->imm.idx2.b = 0;
  else e->imm.index = 0;
  tl_expr_finalize(m, NULL, e);
  return e;
}

/* memory.init of a whole split segment: the last piece first (it reaches
 * the end, so it traps exactly when the original would: segment dropped
 * or dest + size past the memory, before anything is written), then the
 * other pieces and the zero runs, all in bounds by then. */
static tl_expr *split_init(mp_ctx *c, tl_func *f, tl_expr *e) {
  tl_module *m = c->m;
  tl_vec *rs = &c->plan[e->imm.idx2.a];
  uint32_t first = c->remap[e->imm.idx2.a], loc = TL_NO_INDEX, piece = 0;
  tl_expr *d = e->kid[0];
  if (d->type == TL_UNREACHABLE) return d;
  tl_expr *b = tl_expr_new(m, TL_OP_BLOCK, 0);
  if (d->op != TL_OP_I32_CONST) {
    loc = tl_func_add_var(m, f, TL_I32);
    tl_expr_push_kid(m, b, tl_make_local_set(m, f, loc, d, false));
  }
  size_t nr = rs->n, npieces = 0;
  for (size_t r = 0; r < nr; r++) npieces += !TL_VEC_AT(rs, range, r).zero;
  range last = TL_VEC_AT(rs, range, nr - 1);
  tl_expr_push_kid(m, b, bulk(m, TL_OP_MEMORY_INIT, first + (uint32_t)npieces - 1, dest_at(m, f, d, loc, last.start),
                              last.end - last.start));
  for (size_t r = 0; r + 1 < nr; r++) {
    range x = TL_VEC_AT(rs, range, r);
    tl_op op = x.zero ? TL_OP_MEMORY_FILL : TL_OP_MEMORY_INIT;
    tl_expr_push_kid(m, b, bulk(m, op, first + piece, dest_at(m, f, d, loc, x.start), x.end - x.start));
    piece += !x.zero;
  }
  tl_expr_finalize(m, f, b);
  return b;
}

static tl_expr *split_drop(mp_ctx *c, tl_expr *e) {
  tl_vec *rs = &c->plan[e->imm.index];
  uint32_t first = c->remap[e->imm.index], piece = 0;
  tl_expr *b = tl_expr_new(c->m, TL_OP_BLOCK, 0);
  for (size_t r = 0; r < rs->n; r++) {
    if (TL_VEC_AT(rs, range, r).zero) continue;
    tl_expr *x = tl_expr_new(c->m, TL_OP_DATA_DROP, 0);
    x->imm.index = first + piece++;
    tl_expr_push_kid(c->m, b, x);
  }
  tl_expr_finalize(c->m, NULL, b);
  return b;
}

static void remap_visit(tl_walk *w, tl_expr **slot) {
  mp_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_MEMORY_INIT && c->plan[e->imm.idx2.a].n) *slot = split_init(c, w->f, e), c->touched = true;
  else if (e->op == TL_OP_MEMORY_INIT) e->imm.idx2.a = c->remap[e->imm.idx2.a];
  else if (e->op == TL_OP_DATA_DROP && (c->remap[e->imm.index] == REMOVED || c->nop_drop[e->imm.index]))
    *slot = tl_make_nop(w->m);
  else if (e->op == TL_OP_DATA_DROP && c->plan[e->imm.index].n) *slot = split_drop(c, e);
  else if (e->op == TL_OP_DATA_DROP) e->imm.index = c->remap[e->imm.index];
  else if (is_gc_data(e)) e->imm.idx2.b = c->remap[e->imm.idx2.b];
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

/* Whether zeros may be dropped from the active segments at all; *oom set
 * (and false) when its scratch allocation failed. */
static bool can_optimize(tl_module *m, const tl_pass_ctx *ctx, bool *oom) {
  if (m->memories.n != 1) return false;
  tl_memory *mem = TL_MEMORY(m, 0);
  if (m->nimported_memories && !ctx->opt->zero_filled_memory) return false;
  size_t n = m->datas.n, na = 0;
  span *sp = tl_scratch_realloc(NULL, n + 1, sizeof(span));
  if (!sp) return !(*oom = true);
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
  tl_free(sp);
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

/* Ranges of passive segment d (read whole by its `inits` memory.inits,
 * dropped by `drops` data.drops), with wasm-opt's thresholds: a zero run
 * splits when it costs more than the memory.fill, memory.init and
 * data.drop it adds; trailing zeros stay in the last piece. False when
 * splitting does not pay or would pass the segment limit. */
static bool plan_passive(const tl_data *d, uint32_t inits, uint32_t drops, size_t room, tl_vec *rs) {
  const uint8_t *b = d->bytes;
  uint32_t n = d->size, i = 0, npieces = 0;
  uint64_t threshold = 2 + (uint64_t)inits * 19 + (uint64_t)drops * 3, edge = (uint64_t)inits * 9;
  while (i < n && !b[i]) i++;
  if (i == n) return false; /* all zeros: kept whole */
  if (i > edge) TL_VEC_PUSH(rs, range, ((range){0, i, true}));
  else i = 0;
  while (i < n) {
    uint32_t s = i, e = i;
    for (;;) {
      while (e < n && b[e]) e++;
      uint32_t z = e;
      while (z < n && !b[z]) z++;
      if (z == n) { e = n; break; }  /* trailing zeros stay */
      if (z - e > threshold) {
        TL_VEC_PUSH(rs, range, ((range){s, e, false}));
        TL_VEC_PUSH(rs, range, ((range){e, z, true}));
        npieces++;
        s = e = z;
        continue;
      }
      e = z;
    }
    TL_VEC_PUSH(rs, range, ((range){s, e, false}));
    npieces++;
    i = e;
  }
  if (rs->n == 1 || npieces > room) {
    rs->n = 0;
    return false;
  }
  return true;
}

static bool is_llvm_segment(const tl_data *d) {
  return d->name && !strncmp(d->name, "__llvm", 6);
}

tl_status tl_pass_memory_packing(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  size_t n = m->datas.n;
  bool oom = false;
  if (!n || !can_optimize(m, ctx, &oom)) return oom ? tl_nomem(ctx->err, "memory-packing") : TL_OK;
  mp_ctx c = {m, tl_scratch_calloc(n, 4), tl_scratch_calloc(n, 4), tl_scratch_calloc(n, 1),
              tl_scratch_calloc(n, 4), tl_scratch_calloc(n, 1), tl_scratch_calloc(n, sizeof(tl_vec)), false};
  uint8_t *has = tl_scratch_calloc(m->funcs.n + 1, 1); /* per function: has a memory.init or data.drop */
  if (!c.inits || !c.drops || !c.odd_init || !c.remap || !c.nop_drop || !c.plan || !has) {
    tl_free(has);
    tl_free(c.inits);
    tl_free(c.drops);
    tl_free(c.odd_init);
    tl_free(c.remap);
    tl_free(c.nop_drop);
    tl_free(c.plan);
    return tl_nomem(ctx->err, "memory-packing");
  }
  bool split_passive = !TL_MEMORY(m, 0)->is64;
  has_job hj = {m, has};
  tl_run_parallel(ctx, (uint32_t)m->funcs.n - m->nimported_funcs, has_one, &hj);
  tl_status st = decode_has(m, has, ctx->err);
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n && st == TL_OK; i++)
    if (has[i]) tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, count_visit, &c, SEG_OPS);
  tl_vec out = {0};
  for (size_t i = 0; i < n && st == TL_OK; i++) {
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
    size_t room = out.n + (n - i) < MAX_SEGMENTS ? MAX_SEGMENTS - out.n - (n - i) : 0;
    if (!active && split_passive && !c.odd_init[i] && !is_llvm_segment(d) &&
        plan_passive(d, c.inits[i], c.drops[i], room, &c.plan[i])) {
      for (size_t r = 0; r < c.plan[i].n; r++) {
        range x = TL_VEC_AT(&c.plan[i], range, r);
        if (x.zero) continue;
        tl_data p = *d;
        p.bytes = d->bytes + x.start;
        p.size = x.end - x.start;
        p.name = r ? NULL : d->name;
        TL_VEC_PUSH(&out, tl_data, p);
      }
    } else if (!active || c.inits[i] || c.drops[i] || is_llvm_segment(d)) {
      TL_VEC_PUSH(&out, tl_data, *d);
    } else {
      split(m, d, &out, n - i - 1);
    }
    if (out.n == before) c.remap[i] = REMOVED;
  }
  bool changed = out.n != n;
  for (size_t i = 0; i < n; i++) changed |= c.nop_drop[i] || c.remap[i] != i || c.plan[i].n;
  for (size_t i = 0; i < n && !changed; i++)
    changed = TL_DATA(m, i)->size != TL_VEC_AT(&out, tl_data, i).size;
  changed &= st == TL_OK; /* a body failed to decode: nothing changes */
  if (changed) {
    tl_vec old = m->datas;
    m->datas = out;
    tl_oom_keep(m->datas.p);
    out = old;
    for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
      tl_func *f = TL_FUNC(m, i);
      if (!has[i]) continue;
      c.touched = false;
      tl_walk_post_only(m, f, &f->body, remap_visit, &c, SEG_OPS);
      if (c.touched) tl_func_refinalize(m, f);
    }
  }
  tl_vec_free(&out);
  tl_free(has);
  tl_free(c.inits);
  tl_free(c.drops);
  tl_free(c.nop_drop);
  tl_free(c.odd_init);
  for (size_t i = 0; i < n; i++) tl_vec_free(&c.plan[i]);
  tl_free(c.plan);
  tl_free(c.remap);
  return st;
}
