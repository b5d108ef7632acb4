/* reduce.c — the reducer (reduce.h). Rounds until nothing shrinks: delta
 * debugging of functions, exports, globals, segments, memories and tables
 * (halves first; uses of what goes become unreachable, zero or nop); cleanup
 * passes; each function top-down (a node becomes unreachable, nop, zero, a
 * child, a drop of a child, or loses chunks of its list; a kept edit stays
 * at the node); functions lose params and results. A candidate is a fresh
 * read of the best bytes plus one edit, validated, deduplicated by XXH3. */
#include "fuzz/fuzz.h"
#include "fuzz/reduce.h"
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#define NONE_IDX UINT32_MAX

typedef struct {
  const tl_reduce_options *o;
  tl_reduce_stats *st;
  uint8_t *best;
  size_t bn;
  uint64_t *seen;      /* open addressing over hashes; 0 = empty */
  size_t nseen, cap;
  double t0;
  bool progress, stop;
  bool grow;           /* try_mod: accept a larger candidate */
} red;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------- seen hashes */
static bool seen_add(red *r, uint64_t h) {  /* false if already there */
  if (!h) h = 1;
  if (2 * (r->nseen + 1) > r->cap) {
    size_t nc = r->cap ? r->cap * 2 : 1024;
    uint64_t *t = tl_calloc(nc, sizeof *t);
    if (!t) return true;
    for (size_t i = 0; i < r->cap; i++)
      if (r->seen[i])
        for (size_t j = r->seen[i] & (nc - 1);; j = (j + 1) & (nc - 1))
          if (!t[j]) { t[j] = r->seen[i]; break; }
    tl_free(r->seen);
    r->seen = t;
    r->cap = nc;
  }
  for (size_t j = h & (r->cap - 1);; j = (j + 1) & (r->cap - 1)) {
    if (r->seen[j] == h) return false;
    if (!r->seen[j]) { r->seen[j] = h; r->nseen++; return true; }
  }
}

static tl_module *read_bytes(const uint8_t *p, size_t n) {
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  tl_error err;
  return tl_module_read(p, n, &ro, &err);
}

static tl_module *read_best(red *r) { return read_bytes(r->best, r->bn); }

/* Validates, writes and (if new and no larger) asks the predicate; a kept
 * candidate becomes the best. m is not freed. */
static bool try_mod(red *r, tl_module *m) {
  if (r->stop) return false;
  if (r->o->max_seconds > 0 && now() - r->t0 > r->o->max_seconds) { r->stop = true; return false; }
  tl_error err;
  if (tl_module_validate(m, &err) != TL_OK) { r->st->invalid++; return false; }
  uint8_t *w = NULL;
  size_t wn = 0;
  tl_write_options wo = {0};
  if (tl_module_write(m, &wo, &w, &wn, &err) != TL_OK) return false;
  bool big = wn > r->bn && !r->grow;
  if (big || !seen_add(r, XXH3_64bits(w, wn))) {
    r->st->dups += !big;
    tl_free(w);
    return false;
  }
  r->st->tries++;
  if (!r->o->interesting(w, wn, r->o->ctx)) { tl_free(w); return false; }
  tl_free(r->best);
  r->best = w;
  r->bn = wn;
  r->st->kept++;
  r->st->bytes = wn;
  r->progress = true;
  if (r->o->progress) r->o->progress(r->st, r->o->ctx);
  return true;
}

/* ---------------------------------------------------------- small nodes */
static tl_expr *zero_of(tl_module *m, tl_type t) {
  tl_expr *e;
  switch (t) {
  case TL_I32: return tl_make_const_i32(m, 0);
  case TL_I64: return tl_make_const_i64(m, 0);
  case TL_F32: e = tl_expr_new(m, TL_OP_F32_CONST, 0); break;
  case TL_F64: e = tl_expr_new(m, TL_OP_F64_CONST, 0); break;
  case TL_V128: e = tl_expr_new(m, TL_OP_V128_CONST, 0); break;
  case TL_FUNCREF: case TL_EXTERNREF: e = tl_expr_new(m, TL_OP_REF_NULL, 0); break;
  default: return NULL;
  }
  if (t != TL_V128) memset(&e->imm, 0, sizeof e->imm); /* v128: zeroed bytes */
  if (e->op == TL_OP_REF_NULL) e->imm.index = t;
  tl_expr_finalize(m, NULL, e);
  return e;
}

static bool is_zero_const(const tl_expr *e) {
  static const uint8_t z[16];
  switch (e->op) {
  case TL_OP_I32_CONST: return e->imm.i32 == 0;
  case TL_OP_I64_CONST: return e->imm.i64 == 0;
  case TL_OP_F32_CONST: return e->imm.f32 == 0;
  case TL_OP_F64_CONST: return e->imm.f64 == 0;
  case TL_OP_V128_CONST: return !memcmp(e->imm.v128, z, 16);
  case TL_OP_REF_NULL: return true;
  default: return false;
  }
}

/* ------------------------------------------------- module-level removal */
/* old index -> new index (NONE_IDX: removed); NULL maps are the identity. */
typedef struct { uint32_t *fmap, *gmap, *emap, *dmap; } maps;

static uint32_t mapped(const uint32_t *map, uint32_t i) { return map ? map[i] : i; }

static void remap_visit(tl_walk *w, tl_expr **slot) {
  const maps *mp = w->ctx;
  tl_module *m = w->m;
  tl_expr *e = *slot, *rep = NULL;
  uint32_t n;
  switch (tl_ops[e->op].imm) {
  case TL_IMM_FUNC:
    if ((n = mapped(mp->fmap, e->imm.index)) != NONE_IDX) e->imm.index = n;
    else rep = e->op == TL_OP_REF_FUNC ? zero_of(m, TL_FUNCREF) : tl_make_unreachable(m);
    break;
  case TL_IMM_GLOBAL:
    if ((n = mapped(mp->gmap, e->imm.index)) != NONE_IDX) e->imm.index = n;
    else if (e->op == TL_OP_GLOBAL_SET) rep = e->nkid ? tl_make_drop(m, e->kid[0]) : tl_make_nop(m);
    else rep = zero_of(m, e->type);
    if (!rep && n == NONE_IDX) rep = tl_make_unreachable(m);
    break;
  case TL_IMM_MEM_INIT:
    if ((n = mapped(mp->dmap, e->imm.idx2.a)) != NONE_IDX) e->imm.idx2.a = n;
    else rep = tl_make_unreachable(m);
    break;
  case TL_IMM_DATA:
    if ((n = mapped(mp->dmap, e->imm.index)) != NONE_IDX) e->imm.index = n;
    else rep = tl_make_nop(m);
    break;
  case TL_IMM_TABLE_INIT:
    if ((n = mapped(mp->emap, e->imm.idx2.a)) != NONE_IDX) e->imm.idx2.a = n;
    else rep = tl_make_unreachable(m);
    break;
  case TL_IMM_ELEM:
    if ((n = mapped(mp->emap, e->imm.index)) != NONE_IDX) e->imm.index = n;
    else rep = tl_make_nop(m);
    break;
  case TL_IMM_TYPE_DATA: /* array.new_data/init_data of a removed segment: they trap anyway */
    if ((n = mapped(mp->dmap, e->imm.idx2.b)) != NONE_IDX) e->imm.idx2.b = n;
    else rep = tl_make_unreachable(m);
    break;
  case TL_IMM_TYPE_ELEM:
    if ((n = mapped(mp->emap, e->imm.idx2.b)) != NONE_IDX) e->imm.idx2.b = n;
    else rep = tl_make_unreachable(m);
    break;
  default: break;
  }
  if (rep) *slot = rep;
}

static void remap_expr(tl_module *m, tl_func *f, tl_expr **root, const maps *mp) {
  if (!*root) return;
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = (void *)mp;
  w.post = remap_visit;
  tl_walk_run(&w, root);
}

/* Rewrites every reference after the maps, then drops exports and the
 * start of removed items. Vectors are compacted by the callers. */
static void remap_module(tl_module *m, const maps *mp, const bool *fdel) {
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    if ((fdel && fdel[i]) || !f->body) continue;
    remap_expr(m, f, &f->body, mp);
    tl_func_refinalize(m, f);
  }
  for (uint32_t i = 0; i < m->globals.n; i++) remap_expr(m, NULL, &TL_GLOBAL(m, i)->init, mp);
  for (uint32_t i = 0; i < m->tables.n; i++) remap_expr(m, NULL, &TL_TABLE(m, i)->init, mp);
  for (uint32_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    remap_expr(m, NULL, &el->offset, mp);
    for (uint32_t k = 0; k < el->n; k++) {
      remap_expr(m, NULL, &el->item[k], mp);
      if (el->item[k]->op != TL_OP_REF_FUNC) el->exprs = true;
    }
  }
  for (uint32_t i = 0; i < m->datas.n; i++) remap_expr(m, NULL, &TL_DATA(m, i)->offset, mp);
  uint32_t k = 0;
  for (uint32_t i = 0; i < m->exports.n; i++) {
    tl_export x = *TL_EXPORT(m, i);
    const uint32_t *map = x.kind == TL_EXTERN_FUNC ? mp->fmap : x.kind == TL_EXTERN_GLOBAL ? mp->gmap : NULL;
    if ((x.index = mapped(map, x.index)) == NONE_IDX) continue;
    *TL_EXPORT(m, k++) = x;
  }
  m->exports.n = k;
  if (m->has_start && (m->start = mapped(mp->fmap, m->start)) == NONE_IDX) m->has_start = false;
}

/* Removes items [s, s+c) of a list: functions (imports too), exports,
 * globals (imports too), element segments, data segments, memories, tables. */
enum { L_FUNCS, L_EXPORTS, L_GLOBALS, L_ELEMS, L_DATAS, L_MEMORIES, L_TABLES, L_NKINDS };

static uint32_t list_len(const tl_module *m, int kind) {
  switch (kind) {
  case L_FUNCS: return (uint32_t)m->funcs.n;
  case L_EXPORTS: return (uint32_t)m->exports.n;
  case L_GLOBALS: return (uint32_t)m->globals.n;
  case L_ELEMS: return (uint32_t)m->elems.n;
  case L_MEMORIES: return (uint32_t)m->memories.n;
  case L_TABLES: return (uint32_t)m->tables.n;
  default: return (uint32_t)m->datas.n;
  }
}

static void list_remove(tl_module *m, int kind, uint32_t s, uint32_t c) {
  if (kind == L_EXPORTS) {
    memmove(TL_EXPORT(m, s), TL_EXPORT(m, s + c), (m->exports.n - s - c) * sizeof(tl_export));
    m->exports.n -= c;
    return;
  }
  if (kind == L_MEMORIES || kind == L_TABLES) {
    /* Only exports are remapped: code that still uses a removed memory or
     * table (or a shifted one) either fails to validate or is a change the
     * predicate judges. */
    bool mem = kind == L_MEMORIES;
    tl_vec *v = mem ? &m->memories : &m->tables;
    size_t elem = mem ? sizeof(tl_memory) : sizeof(tl_table);
    uint32_t *nimp = mem ? &m->nimported_memories : &m->nimported_tables;
    uint8_t kx = mem ? TL_EXTERN_MEMORY : TL_EXTERN_TABLE;
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->exports.n; i++) {
      tl_export x = *TL_EXPORT(m, i);
      if (x.kind == kx && x.index >= s && x.index < s + c) continue;
      if (x.kind == kx && x.index >= s + c) x.index -= c;
      *TL_EXPORT(m, k++) = x;
    }
    m->exports.n = k;
    *nimp -= *nimp > s ? (*nimp < s + c ? *nimp : s + c) - s : 0;
    uint8_t *p = v->p;
    memmove(p + s * elem, p + (s + c) * elem, (v->n - s - c) * elem);
    v->n -= c;
    return;
  }
  tl_vec *v = kind == L_FUNCS ? &m->funcs : kind == L_GLOBALS ? &m->globals : kind == L_ELEMS ? &m->elems : &m->datas;
  size_t elem = kind == L_FUNCS ? sizeof(tl_func) : kind == L_GLOBALS ? sizeof(tl_global)
                : kind == L_ELEMS ? sizeof(tl_elem) : sizeof(tl_data);
  uint32_t n = (uint32_t)v->n, lo = s, hi = s + c;
  uint32_t *nimp = kind == L_FUNCS ? &m->nimported_funcs : kind == L_GLOBALS ? &m->nimported_globals : NULL;
  uint32_t *map = tl_malloc(n * sizeof *map);
  bool *del = tl_calloc(n, sizeof *del);
  if (!map || !del) { tl_free(map); tl_free(del); return; }
  for (uint32_t i = 0; i < n; i++) {
    del[i] = i >= lo && i < hi;
    map[i] = del[i] ? NONE_IDX : i < lo ? i : i - c;
  }
  maps mp = {0};
  if (kind == L_FUNCS) mp.fmap = map;
  else if (kind == L_GLOBALS) mp.gmap = map;
  else if (kind == L_ELEMS) mp.emap = map;
  else mp.dmap = map;
  remap_module(m, &mp, kind == L_FUNCS ? del : NULL);
  if (nimp) *nimp -= *nimp > lo ? (*nimp < hi ? *nimp : hi) - lo : 0;
  uint8_t *p = v->p;
  memmove(p + lo * elem, p + hi * elem, (n - hi) * elem);
  v->n -= c;
  tl_free(map);
  tl_free(del);
}

/* Delta debugging over one list: remove all, halves, quarters, ... ones. */
static void ddmin_list(red *r, int kind) {
  tl_module *m = read_best(r);
  if (!m) return;
  uint32_t n = list_len(m, kind);
  tl_module_free(m);
  for (uint32_t c = n; c >= 1 && !r->stop; c /= 2) {
    for (uint32_t s = 0; !r->stop;) {
      if (!(m = read_best(r))) return;
      n = list_len(m, kind);
      if (s >= n) { tl_module_free(m); break; }
      list_remove(m, kind, s, c < n - s ? c : n - s);
      if (!try_mod(r, m)) s += c;
      tl_module_free(m);
    }
  }
}

static void cleanup_passes(red *r) {
  static const char *const sets[][2] = {{"remove-unused-module-elements", "vacuum"},
                                        {"reorder-locals", NULL},
                                        {"remove-unused-module-elements", NULL},
                                        {"vacuum", NULL}};
  for (size_t i = 0; i < sizeof sets / sizeof *sets && !r->stop; i++) {
    tl_module *m = read_best(r);
    if (!m) return;
    tl_pass_options po = {0};
    po.threads = 1;
    tl_error err;
    if (tl_module_run_passes(m, sets[i], sets[i][1] ? 2 : 1, &po, &err) == TL_OK) try_mod(r, m);
    tl_module_free(m);
  }
}

/* ------------------------------------------------------ signatures */
typedef struct { uint32_t fi; } callee;

/* A call to the function that lost its params: the arguments are dropped
 * before it instead. */
static void unparam_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if ((e->op != TL_OP_CALL && e->op != TL_OP_RETURN_CALL) || e->imm.index != ((callee *)w->ctx)->fi || !e->nkid)
    return;
  tl_module *m = w->m;
  tl_expr **kids = tl_arena_alloc(&m->arena, (e->nkid + 1) * sizeof *kids, _Alignof(tl_expr *));
  uint32_t n = 0;
  for (uint32_t k = 0; k < e->nkid; k++)
    if (tl_type_is_concrete(e->kid[k]->type)) kids[n++] = tl_make_drop(m, e->kid[k]);
    else kids[n++] = e->kid[k];
  e->nkid = 0;
  kids[n++] = e;
  *slot = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, kids, n);
}

/* Function fi takes no params (they become locals); false if it had none. */
static bool drop_params(tl_module *m, uint32_t fi) {
  tl_func *f = TL_FUNC(m, fi);
  tl_functype *ft = TL_FTYPE(m, f->type);
  if (!f->body || ft->params == TL_NONE) return false;
  f->type = tl_functype_intern(m, TL_NONE, ft->results);
  callee c = {fi};
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *g = TL_FUNC(m, i);
    tl_walk w = {0};
    w.m = m;
    w.f = g;
    w.ctx = &c;
    w.post = unparam_visit;
    tl_walk_run(&w, &g->body);
    tl_func_refinalize(m, g);
  }
  return true;
}

/* Function fi returns nothing; callers that used its value no longer
 * validate, a body that ends in unreachable or drops its value does. */
static bool drop_results(tl_module *m, uint32_t fi) {
  tl_func *f = TL_FUNC(m, fi);
  tl_functype *ft = TL_FTYPE(m, f->type);
  if (!f->body || ft->results == TL_NONE) return false;
  f->type = tl_functype_intern(m, ft->params, TL_NONE);
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) tl_func_refinalize(m, TL_FUNC(m, i));
  return true;
}

static void reduce_signatures(red *r) {
  for (uint32_t fi = 0, how = 0; !r->stop; how = !how, fi += !how) {
    tl_module *m = read_best(r);
    if (!m) return;
    bool more = fi < m->funcs.n;
    if (more && (how ? drop_results(m, fi) : drop_params(m, fi))) {
      /* unused locals and the old type go; the module may still grow a
       * little (params are fewer every time, so this cannot cycle) */
      static const char *const clean[] = {"reorder-locals", "remove-unused-module-elements"};
      tl_pass_options po = {0};
      po.threads = 1;
      tl_error err;
      tl_module_run_passes(m, clean, 2, &po, &err);
      r->grow = true;
      try_mod(r, m);
      r->grow = false;
    }
    tl_module_free(m);
    if (!more) return;
  }
}

/* ------------------------------------------------------- function edits */
static void collect_pre(tl_walk *w, tl_expr **slot) { TL_VEC_PUSH((tl_vec *)w->ctx, tl_expr **, slot); }

static void collect_slots(tl_module *m, tl_func *f, tl_vec *slots) {
  slots->n = 0;
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = slots;
  w.pre = collect_pre;
  tl_walk_run(&w, &f->body);
}

/* The v-th chunk of a list of n: sizes n, n/2, ..., 1, each at 0, c, 2c...
 * False past the last. */
static bool chunk_at(uint32_t n, uint32_t v, uint32_t *s, uint32_t *c) {
  for (uint32_t k = n; k >= 1; k /= 2) {
    uint32_t cnt = (n + k - 1) / k;
    if (v < cnt) { *s = v * k; *c = k < n - v * k ? k : n - v * k; return true; }
    v -= cnt;
  }
  return false;
}

static bool is_list(const tl_expr *e) { return e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP; }

/* Variant v of the node at slot: 1 applied, 0 does not apply, -1 past the
 * last variant. Order: unreachable; nop / zero; a child; drop(child);
 * chunks of a statement list; an if without its else. */
static int node_edit(tl_module *m, tl_func *f, tl_expr **slot, uint32_t v) {
  tl_expr *e = *slot;
  bool root = slot == &f->body;
  if (root) {
    if (v == 0) {
      if (e->nkid == 1 && e->kid[0]->op == TL_OP_UNREACHABLE) return 0;
      e->nkid = 0;
      tl_expr_push_kid(m, e, tl_make_unreachable(m));
      return 1;
    }
    v--;
  } else {
    if (v == 0) {
      if (e->op == TL_OP_UNREACHABLE) return 0;
      *slot = tl_make_unreachable(m);
      return 1;
    }
    if (v == 1) {
      tl_expr *rep = NULL;
      if ((e->type == TL_NONE || e->type == TL_UNREACHABLE) && e->op != TL_OP_NOP) rep = tl_make_nop(m);
      else if (tl_type_is_concrete(e->type) && !tl_type_is_tuple(e->type) && !is_zero_const(e))
        rep = zero_of(m, e->type);
      if (!rep) return 0;
      *slot = rep;
      return 1;
    }
    v -= 2;
    if (v < e->nkid) {
      tl_expr *k = e->kid[v];
      if (k->type != e->type && k->type != TL_UNREACHABLE) return 0;
      *slot = k;
      return 1;
    }
    v -= e->nkid;
    if (v < e->nkid) {
      tl_expr *k = e->kid[v];
      if (e->type != TL_NONE || !tl_type_is_concrete(k->type)) return 0;
      *slot = tl_make_drop(m, k);
      return 1;
    }
    v -= e->nkid;
  }
  if (root || is_list(e)) {
    uint32_t s, c;
    if (chunk_at(e->nkid, v, &s, &c)) {
      memmove(e->kid + s, e->kid + s + c, (e->nkid - s - c) * sizeof *e->kid);
      e->nkid -= c;
      return 1;
    }
    return -1;
  }
  if (e->op == TL_OP_IF) {
    if (v > 0) return -1;
    if (e->nkid != 3) return 0;
    e->nkid = 2;
    return 1;
  }
  return -1;
}

static void reduce_funcs(red *r) {
  tl_vec slots = {0};
  tl_module *m = NULL;
  for (uint32_t fi = 0; !r->stop; fi++) {
    for (uint32_t p = 0, v = 0; !r->stop;) {
      if (!m) {
        if (!(m = read_best(r))) goto out;
        fi = fi < m->nimported_funcs ? m->nimported_funcs : fi;
        if (fi >= m->funcs.n) goto out;
        collect_slots(m, TL_FUNC(m, fi), &slots);
      }
      if (fi >= m->funcs.n) goto out;
      if (p >= slots.n) break;
      tl_func *f = TL_FUNC(m, fi);
      int rc = node_edit(m, f, TL_VEC_AT(&slots, tl_expr **, p), v);
      if (rc < 0) { p++; v = 0; continue; }
      if (rc == 0) { v++; continue; }
      tl_func_refinalize(m, f);
      /* kept: the node at p is new, so start over with its variants */
      if (try_mod(r, m)) v = 0;
      else v++;
      tl_module_free(m);
      m = NULL;
    }
    if (m) { tl_module_free(m); m = NULL; }
  }
out:
  if (m) tl_module_free(m);
  tl_vec_free(&slots);
}

tl_status tl_reduce(const uint8_t *in, size_t n, const tl_reduce_options *o, uint8_t **out, size_t *outn,
                    tl_reduce_stats *st, tl_error *err) {
  tl_reduce_stats local = {0};
  if (!st) st = &local;
  memset(st, 0, sizeof *st);
  *out = NULL;
  *outn = 0;
  tl_module *m = read_bytes(in, n);
  if (!m) return tl_errorf(err, TL_E_INVALID, 0, "reduce: the input does not read");
  tl_module_free(m);
  if (!o->interesting(in, n, o->ctx)) return tl_errorf(err, TL_E_INVALID, 0, "reduce: the input is not interesting");
  red r = {0};
  r.o = o;
  r.st = st;
  r.t0 = now();
  if (!(r.best = tl_malloc(n ? n : 1))) return tl_errorf(err, TL_E_NOMEM, 0, "out of memory");
  memcpy(r.best, in, n);
  r.bn = n;
  st->bytes = n;
  seen_add(&r, XXH3_64bits(in, n));
  do {
    r.progress = false;
    st->rounds++;
    for (int kind = 0; kind < L_NKINDS; kind++) ddmin_list(&r, kind);
    cleanup_passes(&r);
    reduce_funcs(&r);
    reduce_signatures(&r);
    if (o->progress) o->progress(st, o->ctx);
  } while (r.progress && !r.stop);
  tl_free(r.seen);
  *out = r.best;
  *outn = r.bn;
  return TL_OK;
}

/* ------------------------------------------------------ the predicates */
bool tl_fuzz_same_behaviour(const char *a, const char *b) {
  tl_fuzz_verdict v;
  tl_fuzz_exec_compare(a, b, &v);
  return !v.differ;
}

bool tl_reduce_diverges(const uint8_t *wasm, size_t n, tl_reduce_apply apply, void *ctx, uint64_t fuel) {
  tl_module *a = read_bytes(wasm, n), *b = a ? read_bytes(wasm, n) : NULL;
  bool bad = false;
  if (a && b) {
    char *la = tl_module_fuzz_exec(a, fuel);
    tl_error err;
    bad = apply(b, ctx, &err) != TL_OK || tl_module_validate(b, &err) != TL_OK;
    if (!bad) {
      char *lb = tl_module_fuzz_exec(b, fuel);
      bad = !la || !lb || !tl_fuzz_same_behaviour(la, lb);
      tl_free(lb);
    }
    tl_free(la);
  }
  if (a) tl_module_free(a);
  if (b) tl_module_free(b);
  return bad;
}
