/* unsubtyping.c — unsubtyping (closed world): every declared supertype of
 * a private type that the module does not need goes. Needed are the
 * relations values flow through (subtype_exprs.c's sub constraints), the
 * ones a cast may observe (for a cast from src to dst, each type known to
 * flow into src that was under dst stays under dst), the ones the public
 * types declare, and, for each kept relation, those its definitions imply
 * (fields, element, params, results): a fixpoint over a forest of heap
 * types, abstract ones included, in which a type's parent only moves down
 * its old supertype chain. Each private type's new supertype is its parent
 * in the forest when that is a defined type. First, the type immediates of
 * struct, array and call_ref operands are narrowed to the operand's type
 * (as Binaryen's IR has them), so accesses need no relation of their own.
 * Casts give the same results: a relation a cast could observe is kept. */
#include "passes.h"

#include <stdlib.h>

#define NO UINT32_MAX

typedef struct { uint32_t a, b; } pair;
typedef struct { uint32_t sub, super, old; } frame;

typedef struct {
  tl_module *m;
  uint32_t n;          /* forest nodes: heap types below TL_HT_DEF + types.n */
  uint32_t *parent;    /* NO: a root */
  uint32_t *first, *next, *prev; /* children lists */
  uint32_t *cast_at;   /* n + 1: casts from node i are cast_dst[cast_at[i]..] */
  uint32_t *cast_dst;
  tl_vec casts;        /* pair (src, dst), while collecting */
  tl_vec work;         /* pair (sub, super) still to process */
  tl_vec frames;       /* process's pending reparentings */
  tl_vec dfs;          /* uint32_t, a subtree walk */
} us;

/* ---- noting ------------------------------------------------------------- */
static bool is_bottom(const us *u, uint32_t ht) { return tl_heap_bottom(u->m, ht) == ht; }

static void note_heap(us *u, uint32_t a, uint32_t b) {
  if (a == b || is_bottom(u, a) || a >= u->n || b >= u->n || !tl_heap_sub(u->m, a, b)) return;
  pair p = {a, b};
  TL_VEC_PUSH(&u->work, pair, p);
}

static void note_sub(void *user, tl_type a, tl_type b) {
  us *u = user;
  if (tl_type_is_tuple(a) && tl_type_is_tuple(b)) {
    uint32_t n = tl_type_arity(u->m, a);
    if (n != tl_type_arity(u->m, b)) return;
    for (uint32_t i = 0; i < n; i++) note_sub(u, tl_type_at(u->m, a, i), tl_type_at(u->m, b, i));
    return;
  }
  if (tl_type_is_ref(a) && tl_type_is_ref(b)) note_heap(u, tl_ref_heap(a), tl_ref_heap(b));
}

/* A downcast is remembered; an upcast needs its relation. */
static void note_cast(void *user, tl_type src, tl_type dst) {
  us *u = user;
  uint32_t s = tl_ref_heap(src), d = tl_ref_heap(dst);
  if (s == d || is_bottom(u, d) || s >= u->n || d >= u->n) return;
  if (tl_heap_sub(u->m, d, s)) {
    pair p = {s, d};
    TL_VEC_PUSH(&u->casts, pair, p);
  } else if (tl_heap_sub(u->m, s, d)) {
    note_heap(u, s, d);
  }
}

static int cmp_pair(const void *x, const void *y) {
  const pair *a = x, *b = y;
  if (a->a != b->a) return a->a < b->a ? -1 : 1;
  return (a->b > b->b) - (a->b < b->b);
}

/* The collected casts, deduplicated, by source. */
static void index_casts(us *u, tl_arena *ar) {
  pair *p = u->casts.p;
  size_t n = u->casts.n, k = 0;
  if (n) qsort(p, n, sizeof *p, cmp_pair);
  u->cast_at = TL_NEWN(ar, uint32_t, u->n + 1);
  u->cast_dst = TL_NEWN(ar, uint32_t, n ? n : 1);
  for (size_t i = 0; i < n; i++)
    if (!i || cmp_pair(&p[i - 1], &p[i])) u->cast_dst[k] = p[i].b, u->cast_at[p[i].a + 1] = (uint32_t)++k;
  for (uint32_t i = 1; i <= u->n; i++)
    if (u->cast_at[i] < u->cast_at[i - 1]) u->cast_at[i] = u->cast_at[i - 1];
}

/* ---- the forest --------------------------------------------------------- */
static void unlink_node(us *u, uint32_t x) {
  uint32_t p = u->parent[x];
  if (p == NO) return;
  if (u->prev[x] != NO) u->next[u->prev[x]] = u->next[x];
  else u->first[p] = u->next[x];
  if (u->next[x] != NO) u->prev[u->next[x]] = u->prev[x];
}

static void set_parent(us *u, uint32_t x, uint32_t p) {
  unlink_node(u, x);
  u->parent[x] = p;
  u->prev[x] = NO;
  u->next[x] = u->first[p];
  if (u->first[p] != NO) u->prev[u->first[p]] = x;
  u->first[p] = x;
}

/* ---- the fixpoint ------------------------------------------------------- */
/* What sub <: super asks of their definitions (fields, element, params
 * contravariant, results). */
static void definitions(us *u, uint32_t sub, uint32_t super) {
  if (!tl_heap_is_def(super) || !tl_heap_is_def(sub)) return;
  const tl_deftype *a = tl_heap_def(u->m, sub), *b = tl_heap_def(u->m, super);
  if (b->kind == TL_DT_FUNC) {
    note_sub(u, b->params, a->params);
    note_sub(u, a->results, b->results);
    return;
  }
  for (uint32_t i = 0; i < b->nfields && i < a->nfields; i++) note_sub(u, a->fields[i].type, b->fields[i].type);
}

/* sub now under super: each type of sub's subtree against the casts from
 * super and its ancestors (below old, which the subtree has already met). */
static void casts(us *u, uint32_t sub, uint32_t super, uint32_t old) {
  u->dfs.n = 0;
  TL_VEC_PUSH(&u->dfs, uint32_t, sub);
  while (u->dfs.n) {
    uint32_t t = TL_VEC_AT(&u->dfs, uint32_t, --u->dfs.n);
    for (uint32_t k = u->first[t]; k != NO; k = u->next[k]) TL_VEC_PUSH(&u->dfs, uint32_t, k);
    for (uint32_t s = super; s != NO && s != old; s = u->parent[s])
      for (uint32_t i = u->cast_at[s]; i < u->cast_at[s + 1]; i++)
        if (tl_heap_sub(u->m, t, u->cast_dst[i])) note_heap(u, t, u->cast_dst[i]);
  }
}

/* sub <: super. When sub already has a parent old above super, super goes
 * under old first (and so on up), so that sub moves within one tree. */
static void process(us *u, uint32_t sub, uint32_t super) {
  u->frames.n = 0;
  for (;;) {
    uint32_t old = u->parent[sub];
    if (old == super) break;
    if (old != NO && tl_heap_sub(u->m, old, super)) {
      note_heap(u, old, super);
      break;
    }
    frame f = {sub, super, old};
    TL_VEC_PUSH(&u->frames, frame, f);
    if (old == NO) break;
    sub = super, super = old;
  }
  while (u->frames.n) {
    frame f = TL_VEC_AT(&u->frames, frame, --u->frames.n);
    set_parent(u, f.sub, f.super);
    definitions(u, f.sub, f.super);
    casts(u, f.sub, f.super, f.old);
  }
}

static void fixpoint(us *u) {
  while (u->work.n) {
    pair p = TL_VEC_AT(&u->work, pair, --u->work.n);
    process(u, p.a, p.b);
  }
}

/* ---- narrowing immediates ----------------------------------------------- */
/* Type index idx narrowed to the defined heap type of ref type r, when that
 * is a strict subtype of the same kind. */
static uint32_t narrow(const tl_module *m, uint32_t idx, tl_type r) {
  if (!tl_type_is_ref(r) || idx >= m->types.n) return idx;
  uint32_t h = tl_ref_heap(r), c = TL_FTYPE(m, idx)->canon;
  if (!tl_heap_is_def(h) || h == TL_HT_DEF + c || !tl_heap_sub(m, h, TL_HT_DEF + c)) return idx;
  return tl_heap_def(m, h)->kind == TL_FTYPE(m, idx)->kind ? h - TL_HT_DEF : idx;
}

static void narrow_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  bool *changed = w->ctx;
  uint32_t old_a = e->imm.idx2.a, old_b = e->imm.idx2.b, old_i = e->imm.index;
  switch (e->op) {
  case TL_OP_STRUCT_GET: case TL_OP_STRUCT_GET_S: case TL_OP_STRUCT_GET_U: case TL_OP_STRUCT_SET:
  case TL_OP_ARRAY_GET: case TL_OP_ARRAY_GET_S: case TL_OP_ARRAY_GET_U: case TL_OP_ARRAY_SET:
  case TL_OP_ARRAY_FILL: case TL_OP_ARRAY_INIT_DATA: case TL_OP_ARRAY_INIT_ELEM:
    if (tl_ops[e->op].imm == TL_IMM_TYPE) e->imm.index = narrow(w->m, e->imm.index, e->kid[0]->type);
    else e->imm.idx2.a = narrow(w->m, e->imm.idx2.a, e->kid[0]->type);
    break;
  case TL_OP_ARRAY_COPY:
    e->imm.idx2.a = narrow(w->m, e->imm.idx2.a, e->kid[0]->type);
    e->imm.idx2.b = narrow(w->m, e->imm.idx2.b, e->kid[2]->type);
    break;
  case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF:
    e->imm.index = narrow(w->m, e->imm.index, e->kid[e->nkid - 1]->type);
    break;
  default: return;
  }
  *changed |= old_a != e->imm.idx2.a || old_b != e->imm.idx2.b || old_i != e->imm.index;
}

static void narrow_immediates(tl_module *m) {
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    bool changed = false;
    if (!f->body) continue;
    tl_walk_post(m, f, &f->body, narrow_visit, &changed);
    if (changed) tl_func_refinalize(m, f);
  }
}

/* ---- the pass ----------------------------------------------------------- */
static void init(us *u, tl_module *m, tl_arena *ar) {
  u->m = m;
  u->n = TL_HT_DEF + (uint32_t)m->types.n;
  u->parent = TL_NEWN(ar, uint32_t, u->n);
  u->first = TL_NEWN(ar, uint32_t, u->n);
  u->next = TL_NEWN(ar, uint32_t, u->n);
  u->prev = TL_NEWN(ar, uint32_t, u->n);
  memset(u->parent, 0xff, u->n * sizeof(uint32_t));
  memset(u->first, 0xff, u->n * sizeof(uint32_t));
}

/* The public types keep their supertypes. */
static void note_public(us *u, const tl_type_rewrite *rw) {
  for (uint32_t c = 0; c < rw->n; c++)
    if (rw->pub[c] && rw->canon[c] == c && rw->def[c].super != TL_NO_SUPER)
      note_heap(u, TL_HT_DEF + c, TL_HT_DEF + rw->def[c].super);
}

/* Each private type's new supertype; whether any changed. */
static bool decide(us *u, tl_type_rewrite *rw) {
  bool changed = false;
  for (uint32_t c = 0; c < rw->n; c++) {
    if (rw->pub[c] || rw->canon[c] != c) continue;
    uint32_t p = u->parent[TL_HT_DEF + c];
    uint32_t s = p != NO && tl_heap_is_def(p) ? p - TL_HT_DEF : TL_NO_SUPER;
    changed |= s != rw->def[c].super;
    rw->def[c].super = s;
  }
  return changed;
}

/* The pass's edit of the types (the shape of main's tl_type_edit_fn). */
static tl_status unsubtype(tl_pass_ctx *ctx, tl_type_rewrite *rw) {
  tl_status s = tl_module_decode_all(ctx->m, ctx->err);
  if (s != TL_OK) return s;
  narrow_immediates(ctx->m);
  us u = {0};
  init(&u, ctx->m, &rw->arena);
  note_public(&u, rw);
  tl_subtype_sink sink = {note_sub, note_cast, &u};
  tl_subtype_exprs_module(ctx->m, &sink);
  index_casts(&u, &rw->arena);
  fixpoint(&u);
  bool changed = decide(&u, rw);
  tl_vec_free(&u.casts), tl_vec_free(&u.work), tl_vec_free(&u.frames), tl_vec_free(&u.dfs);
  return changed ? tl_type_rewrite_apply(ctx->m, rw, ctx->err) : TL_OK;
}

tl_status tl_pass_unsubtyping(tl_pass_ctx *ctx) { return tl_type_pass_run(ctx, false, unsubtype); }
