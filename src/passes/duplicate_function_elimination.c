/* duplicate_function_elimination.c — defined functions with the same type,
 * locals and body (labels compared up to renaming) are merged into the
 * first of them; every reference (calls, ref.func, element segments,
 * exports, start) is redirected and the copies removed, indices renumbered.
 * Bodies are serialized canonically (pre-order, labels numbered by first
 * appearance, function references by the function they merge into) and
 * hashed with XXH3_64bits on the pass pool; equal hashes are confirmed by
 * comparing the serializations byte for byte. Repeats until nothing
 * merges (merging callees can make callers equal), rehashing only the
 * functions that refer to one merged in the last round; renumbers once at
 * the end. A cheap shape key first (type, locals, the ops, types and kid
 * counts of the body and its top-level kids: no function references, so it
 * never changes between rounds) leaves out every function whose key no
 * other function shares: it can equal none. Names of the removed copies are
 * lost. Guarantees the same behaviour. */
#include "passes.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

typedef struct {
  tl_buf out;
  uint32_t *canon; /* label id -> canonical number + 1, 0 = not seen */
  uint32_t next;
  const uint32_t *target; /* function -> the one it merges into */
} ser_ctx;

static void put32(tl_buf *b, uint32_t v) { tl_buf_put(b, &v, 4); }
static void put64(tl_buf *b, uint64_t v) { tl_buf_put(b, &v, 8); }

static uint32_t lab(ser_ctx *c, uint32_t l) {
  if (l == TL_NO_LABEL) return TL_NO_LABEL;
  if (!c->canon[l]) c->canon[l] = ++c->next;
  return c->canon[l];
}

static void ser_pre(tl_walk *w, tl_expr **slot) {
  ser_ctx *c = w->ctx;
  tl_expr *e = *slot;
  tl_buf *b = &c->out;
  put32(b, e->op);
  put32(b, e->type);
  put32(b, e->nkid);
  switch (tl_ops[e->op].imm) {
  case TL_IMM_NONE: case TL_IMM_FENCE: break;
  case TL_IMM_BLOCK: case TL_IMM_TRY_TABLE:
    put32(b, lab(c, e->imm.block.label));
    put32(b, e->imm.block.bt);
    break;
  case TL_IMM_CATCH: /* payload local, tag */
    put32(b, e->imm.idx2.a);
    put32(b, e->imm.idx2.b);
    break;
  case TL_IMM_CLAUSE:
    put32(b, lab(c, e->imm.idx2.a));
    put32(b, e->imm.idx2.b);
    break;
  case TL_IMM_LABEL: put32(b, lab(c, e->imm.label)); break;
  case TL_IMM_BR_CAST: /* label, target type */
    put32(b, lab(c, e->imm.idx2.a));
    put32(b, e->imm.idx2.b);
    break;
  case TL_IMM_TYPE_FIELD: case TL_IMM_TYPE_COUNT: case TL_IMM_TYPE_DATA: case TL_IMM_TYPE_ELEM:
  case TL_IMM_TYPE_TYPE:
    put32(b, e->imm.idx2.a);
    put32(b, e->imm.idx2.b);
    break;
  case TL_IMM_BR_TABLE:
    put32(b, e->imm.table->n);
    for (uint32_t i = 0; i < e->imm.table->n; i++) put32(b, lab(c, e->imm.table->targets[i]));
    put32(b, lab(c, e->imm.table->def));
    break;
  case TL_IMM_CALL_INDIRECT: case TL_IMM_MEM_COPY: case TL_IMM_MEM_INIT: case TL_IMM_TABLE_INIT:
  case TL_IMM_TABLE_COPY:
    put32(b, e->imm.idx2.a);
    put32(b, e->imm.idx2.b);
    break;
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE: case TL_IMM_LANE:
    put64(b, e->imm.mem.offset | (uint64_t)e->imm.mem.big << 32); /* big: an interned index */
    put32(b, e->imm.mem.align);
    put32(b, e->imm.mem.mem);
    tl_buf_byte(b, e->imm.mem.lane);
    break;
  case TL_IMM_I32: case TL_IMM_F32: put32(b, e->imm.f32); break;
  case TL_IMM_I64: case TL_IMM_F64: put64(b, e->imm.f64); break;
  case TL_IMM_V128: case TL_IMM_SHUFFLE: tl_buf_put(b, e->imm.v128, 16); break;
  case TL_IMM_FUNC: put32(b, c->target[e->imm.index]); break;
  default: put32(b, e->imm.index); break;
  }
}

/* false when out of memory (*out left empty). */
static bool serialize(tl_module *m, tl_func *f, const uint32_t *target, tl_buf *out) {
  ser_ctx c = {{0}, tl_scratch_calloc((size_t)f->nlabel + 1, sizeof(uint32_t)), 0, target};
  if (!c.canon) {
    *out = (tl_buf){0};
    return false;
  }
  put32(&c.out, f->type);
  put32(&c.out, f->nlocal);
  for (uint32_t i = 0; i < f->nlocal; i++) put32(&c.out, f->local[i]);
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = &c;
  w.pre = ser_pre;
  tl_walk_run(&w, &f->body);
  tl_free(c.canon);
  *out = c.out;
  return true;
}

static void remap_visit(tl_walk *w, tl_expr **slot) {
  const uint32_t *remap = w->ctx;
  tl_expr *e = *slot;
  if (tl_ops[e->op].imm == TL_IMM_FUNC) e->imm.index = remap[e->imm.index];
}

static void remap_expr(tl_module *m, tl_func *f, tl_expr **e, uint32_t *remap) {
  if (*e) tl_walk_post(m, f, e, remap_visit, remap);
}

/* remap[i]: new index of function i; keep[i]: it stays. false when out of
 * memory (nothing changed). */
static bool apply(tl_module *m, const uint32_t *target, uint32_t nf) {
  uint32_t *remap = tl_scratch_realloc(NULL, nf, sizeof(uint32_t));
  if (!remap) return false;
  uint32_t n = 0;
  for (uint32_t i = 0; i < nf; i++) remap[i] = target[i] == i ? n++ : UINT32_MAX;
  for (uint32_t i = 0; i < nf; i++)
    if (target[i] != i) remap[i] = remap[target[i]];
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    if (target[i] == i) remap_expr(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, remap);
  for (size_t i = 0; i < m->globals.n; i++) remap_expr(m, NULL, &TL_GLOBAL(m, i)->init, remap);
  for (size_t i = 0; i < m->tables.n; i++) remap_expr(m, NULL, &TL_TABLE(m, i)->init, remap);
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    remap_expr(m, NULL, &el->offset, remap);
    for (uint32_t j = 0; j < el->n; j++) remap_expr(m, NULL, &el->item[j], remap);
  }
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_FUNC) TL_EXPORT(m, i)->index = remap[TL_EXPORT(m, i)->index];
  if (m->has_start) m->start = remap[m->start];
  uint32_t out = 0;
  for (uint32_t i = 0; i < nf; i++) {
    if (target[i] != i) {
      tl_func_forget_locs(TL_FUNC(m, i));
      continue;
    }
    if (out != i) *TL_FUNC(m, out) = *TL_FUNC(m, i);
    out++;
  }
  m->funcs.n = out;
  tl_free(remap);
  return true;
}

typedef struct {
  uint64_t hash;
  uint32_t func;
} entry;

static int cmp_entry(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
  return x->func < y->func ? -1 : x->func > y->func;
}

typedef struct {
  tl_module *m;
  uint32_t *target;   /* function -> the kept function it merges into */
  uint8_t *merged;    /* merged in the last round */
  uint8_t *cand;      /* its shape key is shared: it may equal another */
  uint64_t *hash;     /* per kept defined function */
  bool first;         /* first round: hash every function */
  atomic_bool nomem;  /* a scratch allocation failed (set by any thread) */
} dfe;

static void refs_visit(tl_walk *w, tl_expr **slot) {
  dfe *d = w->ctx;
  tl_expr *e = *slot;
  if (tl_ops[e->op].imm == TL_IMM_FUNC && d->merged[e->imm.index]) d->first = true;
}

/* Whether f refers to a function merged in the last round. */
static bool refers_to_merged(dfe *d, tl_func *f) {
  dfe c = *d;
  c.first = false;
  tl_walk_post(d->m, f, &f->body, refs_visit, &c);
  return c.first;
}

/* One task of the pool: (re)hash function i if it may have changed. */
static void hash_one(void *user, uint32_t k) {
  dfe *d = user;
  uint32_t i = d->m->nimported_funcs + k;
  tl_func *f = TL_FUNC(d->m, i);
  if (d->target[i] != i || !f->body || !d->cand[i]) return;
  if (!d->first && !refers_to_merged(d, f)) return;
  tl_buf b;
  if (!serialize(d->m, f, d->target, &b)) atomic_store(&d->nomem, true);
  d->hash[i] = XXH3_64bits(b.p, b.n);
  tl_buf_free(&b);
}

static bool same_body(dfe *d, tl_buf *ser, uint32_t a, uint32_t b) {
  uint32_t fs[2] = {a, b};
  for (int k = 0; k < 2; k++)
    if (!ser[fs[k]].p && !serialize(d->m, TL_FUNC(d->m, fs[k]), d->target, &ser[fs[k]])) {
      atomic_store(&d->nomem, true);
      return false;
    }
  return ser[a].n == ser[b].n && !memcmp(ser[a].p, ser[b].p, ser[a].n);
}

/* One round over the kept functions; returns whether anything merged.
 * Bodies of a bucket of equal hashes are serialized to confirm. Out of
 * memory sets d->nomem (the caller then applies nothing). */
static bool round_once(tl_pass_ctx *ctx, dfe *d) {
  tl_module *m = d->m;
  uint32_t nf = (uint32_t)m->funcs.n, ni = m->nimported_funcs;
  tl_run_parallel(ctx, nf - ni, hash_one, d);
  if (atomic_load(&d->nomem)) return false;
  memset(d->merged, 0, nf);
  entry *ent = tl_scratch_realloc(NULL, (size_t)nf - ni + 1, sizeof(entry));
  tl_buf *ser = tl_scratch_calloc((size_t)nf + 1, sizeof(tl_buf));
  if (!ent || !ser) {
    tl_free(ent);
    tl_free(ser);
    atomic_store(&d->nomem, true);
    return false;
  }
  uint32_t n = 0;
  for (uint32_t i = ni; i < nf; i++)
    if (d->target[i] == i && TL_FUNC(m, i)->body && d->cand[i]) ent[n++] = (entry){d->hash[i], i};
  qsort(ent, n, sizeof(entry), cmp_entry);
  bool merged = false;
  for (uint32_t a = 0; a < n;) {
    uint32_t z = a;
    while (z < n && ent[z].hash == ent[a].hash) z++;
    /* within a bucket, merge each function into the first equal one */
    for (uint32_t i = a + 1; i < z; i++) {
      for (uint32_t j = a; j < i; j++) {
        uint32_t x = ent[i].func, y = ent[j].func;
        if (d->target[y] != y || !same_body(d, ser, x, y)) continue;
        d->target[x] = y;
        d->merged[x] = 1;
        merged = true;
        break;
      }
    }
    a = z;
  }
  /* a function kept so far may have merged: point its copies at the root
   * (they changed too: their callers must be rehashed) */
  for (uint32_t i = 0; i < nf; i++) {
    uint32_t t = d->target[d->target[i]];
    if (t != d->target[i]) d->merged[i] = 1;
    d->target[i] = t;
  }
  for (uint32_t i = 0; i < nf; i++) tl_buf_free(&ser[i]);
  tl_free(ser);
  tl_free(ent);
  return merged;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdu;
}

static uint64_t node_shape(uint64_t h, const tl_expr *e) {
  return mix(h, (uint64_t)e->op | (uint64_t)e->type << 16 | (uint64_t)e->nkid << 40);
}

/* Data every equal function shares (a part of its serialization that no
 * merge changes). */
static uint64_t shape_key(const tl_func *f) {
  uint64_t h = mix(mix(0, f->type), f->nlocal);
  for (uint32_t i = 0; i < f->nlocal; i++) h = mix(h, f->local[i]);
  h = node_shape(h, f->body);
  for (uint32_t i = 0; i < f->body->nkid; i++) h = node_shape(h, f->body->kid[i]);
  return h;
}

/* cand[i] = 1 for the defined functions with a body whose shape key another
 * one shares; returns how many, or UINT32_MAX when out of memory. */
static uint32_t mark_candidates(tl_module *m, uint8_t *cand) {
  uint32_t nf = (uint32_t)m->funcs.n, n = 0;
  entry *ent = tl_scratch_realloc(NULL, (size_t)nf - m->nimported_funcs + 1, sizeof(entry));
  if (!ent) return UINT32_MAX;
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    if (TL_FUNC(m, i)->body) ent[n++] = (entry){shape_key(TL_FUNC(m, i)), i};
  qsort(ent, n, sizeof(entry), cmp_entry);
  uint32_t nc = 0;
  for (uint32_t a = 0; a < n;) {
    uint32_t z = a;
    while (z < n && ent[z].hash == ent[a].hash) z++;
    if (z - a > 1)
      for (uint32_t i = a; i < z; i++) cand[ent[i].func] = 1, nc++;
    a = z;
  }
  tl_free(ent);
  return nc;
}

tl_status tl_pass_duplicate_function_elimination(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n;
  if (nf - m->nimported_funcs < 2) return TL_OK;
  dfe d = {m, tl_scratch_realloc(NULL, nf, sizeof(uint32_t)), tl_scratch_calloc(nf, 1),
           tl_scratch_calloc(nf, 1), tl_scratch_calloc(nf, sizeof(uint64_t)), true, false};
  bool ok = d.target && d.merged && d.cand && d.hash, any = false;
  uint32_t nc = ok ? mark_candidates(m, d.cand) : 0;
  if (nc == UINT32_MAX) ok = false;
  if (ok && nc) {
    for (uint32_t i = 0; i < nf; i++) d.target[i] = i;
    for (int r = 0; r < 10 && round_once(ctx, &d); r++) {
      any = true;
      d.first = false;
    }
    /* out of memory in a round: the merges decided are not applied */
    ok = !atomic_load(&d.nomem) && (!any || apply(m, d.target, nf));
  }
  tl_free(d.target);
  tl_free(d.merged);
  tl_free(d.cand);
  tl_free(d.hash);
  return ok ? TL_OK : tl_nomem(ctx->err, "duplicate-function-elimination");
}
