/* optimize_added_constants.c — optimize-added-constants(-propagate): a
 * memory access whose address is (i32.add X (i32.const C)) takes C into its
 * offset, `load offset=O (i32.add X C)` -> `load offset=O+C X`, and a
 * constant address absorbs the offset. Only valid when addresses below
 * 1024 are never used (--low-memory-unused, as in wasm-opt, which is
 * required): then X + C cannot wrap around to a used address, so trapping
 * on the unwrapped sum changes nothing. Both C and O+C stay below 1024.
 * -propagate also follows `local.set $x (i32.add Y C)` (the only write of
 * $x, in a block/loop list; a catch arm's payload is a write) into accesses `(local.get $x)` in the following
 * siblings when every read of $x is such an address: they read Y through a
 * helper local set in $x's place (`local.set $h Y`), with offset += C.
 * Assumes: valid IR. Guarantees: the same behaviour under the assumption;
 * linear (one numbering walk, one rewrite walk). */
#include "passes.h"

#include <stdlib.h>

enum { LOW_MEMORY = 1024 };

static bool is_access(const tl_expr *e) {
  uint8_t k = tl_ops[e->op].imm;
  return (k == TL_IMM_MEMARG || k == TL_IMM_MEMARG_LANE) && e->nkid >= 1;
}

/* A constant's value (i32 or i64: it is one the access's address type). */
static int64_t const_value(const tl_expr *c) {
  return c->op == TL_OP_I32_CONST ? c->imm.i32 : c->imm.i64;
}

/* x + C (either side constant) or x - C, in i32 or in i64 (a 64-bit
 * memory's address): true with the other side in *other and the value
 * added in *value (-C for a sub; optimize-instructions writes x + 64 as
 * x - -64, a byte shorter). */
static bool added_const(const tl_expr *e, tl_expr **other, int64_t *value) {
  bool add = e->op == TL_OP_I32_ADD || e->op == TL_OP_I64_ADD, sub = e->op == TL_OP_I32_SUB || e->op == TL_OP_I64_SUB;
  if (!add && !sub) return false;
  int k = e->op == TL_OP_I32_ADD || e->op == TL_OP_I32_SUB ? TL_OP_I32_CONST : TL_OP_I64_CONST;
  bool c0 = e->kid[0]->op == k, c1 = e->kid[1]->op == k;
  if (c0 == c1 || (sub && c0)) return false;
  *other = e->kid[c0 ? 1 : 0];
  int64_t v = const_value(e->kid[c0 ? 0 : 1]);
  if (sub && v == (k == TL_OP_I32_CONST ? INT32_MIN : INT64_MIN)) return false;
  *value = sub ? -v : v;
  return true;
}

/* (a large memory64 offset, out of line, is never below LOW_MEMORY) */
static bool fits(const tl_memarg *ma, int64_t c) {
  return !ma->big && c >= 0 && c < LOW_MEMORY && ma->offset + (uint64_t)c < LOW_MEMORY;
}

/* A constant address takes the offset when the sum cannot wrap (in 32 bits
 * on a 32-bit memory, in 64 on a 64-bit one). */
static void absorb_offset(tl_module *m, tl_expr *e) {
  tl_expr *p = e->kid[0];
  tl_memarg ma = e->imm.mem;
  uint64_t off = tl_memarg_offset(m, &ma), sum;
  if (!off) return;
  if (p->op == TL_OP_I32_CONST) {
    sum = (uint64_t)(uint32_t)p->imm.i32 + off;
    if (sum >= (UINT64_C(1) << 32)) return;
    p->imm.i32 = (int32_t)(uint32_t)sum;
  } else if (p->op == TL_OP_I64_CONST) {
    if (__builtin_add_overflow((uint64_t)p->imm.i64, off, &sum)) return;
    p->imm.i64 = (int64_t)sum;
  } else {
    return;
  }
  e->imm.mem.offset = 0;
  e->imm.mem.big = 0;
}

static void fold_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot, *x = NULL;
  if (!is_access(e)) return;
  int64_t v;
  tl_memarg ma = e->imm.mem;
  if (added_const(e->kid[0], &x, &v) && fits(&ma, v)) {
    e->imm.mem.offset += (uint32_t)v;
    e->kid[0] = x;
  }
  absorb_offset(w->m, e);
}

/* ---- propagation ------------------------------------------------------- */
typedef struct {
  uint32_t nset, nget, nptr;  /* writes; reads; reads that are an address */
  tl_expr *set;               /* the candidate local.set in a list, or NULL */
  uint64_t from, to;          /* preorder range of its following siblings */
  uint64_t dominated;         /* address reads numbered inside [from, to) */
  int64_t c;                  /* the added constant */
  bool ok;
} local_info;

typedef struct {
  tl_expr *set, *list;
} pending;

typedef struct {
  local_info *li;
  uint32_t n;
  uint64_t num;    /* preorder counter */
  tl_vec pend;     /* pending: candidate sets waiting for their list's end */
  tl_vec gets;     /* tl_expr *: local.gets that are an access's address */
  tl_vec nums;     /* uint64_t: their preorder numbers */
} prop_ctx;

static void count_pre(tl_walk *w, tl_expr **slot) {
  prop_ctx *c = w->ctx;
  tl_expr *e = *slot;
  uint64_t n = c->num++;
  if (e->op == TL_OP_LOCAL_GET) {
    local_info *l = &c->li[e->imm.index];
    l->nget++;
    tl_expr *p = tl_walk_parent(w, 1);
    if (p && is_access(p) && p->kid[0] == e) {
      l->nptr++;
      TL_VEC_PUSH(&c->gets, tl_expr *, e);
      TL_VEC_PUSH(&c->nums, uint64_t, n);
    }
  } else if (tl_written_local(e) != TL_NO_INDEX) { /* a set, a tee, a catch arm's payload */
    c->li[tl_written_local(e)].nset++;
  }
}

static void count_post(tl_walk *w, tl_expr **slot) {
  prop_ctx *c = w->ctx;
  tl_expr *e = *slot, *y = NULL;
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) {
    while (c->pend.n && TL_VEC_AT(&c->pend, pending, c->pend.n - 1).list == e) {
      tl_expr *s = TL_VEC_AT(&c->pend, pending, --c->pend.n).set;
      c->li[s->imm.index].to = c->num;
    }
    return;
  }
  int64_t v;
  if (e->op != TL_OP_LOCAL_SET || !added_const(e->kid[0], &y, &v)) return;
  tl_expr *p = tl_walk_parent(w, 1);
  if (!p || (p->op != TL_OP_BLOCK && p->op != TL_OP_LOOP)) return;
  local_info *l = &c->li[e->imm.index];
  l->set = e;
  l->c = v;
  l->from = c->num; /* the next sibling's number */
  TL_VEC_PUSH(&c->pend, pending, ((pending){e, p}));
}

static local_info *ok_get(prop_ctx *c, const tl_expr *e) {
  if (e->op != TL_OP_LOCAL_GET || e->imm.index >= c->n) return NULL;
  return c->li[e->imm.index].ok ? &c->li[e->imm.index] : NULL;
}

static void check_visit(tl_walk *w, tl_expr **slot) {
  prop_ctx *c = w->ctx;
  tl_expr *e = *slot;
  local_info *l = is_access(e) ? ok_get(c, e->kid[0]) : NULL;
  tl_memarg ma = e->imm.mem;
  if (l && !fits(&ma, l->c)) l->ok = false;
}

/* `local.set $x (i32.add Y C)` -> `local.set $x Y`; its accesses add C. */
static void prop_visit(tl_walk *w, tl_expr **slot) {
  prop_ctx *c = w->ctx;
  tl_expr *e = *slot, *y = NULL;
  if (e->op == TL_OP_LOCAL_SET && e->imm.index < c->n && c->li[e->imm.index].ok &&
      c->li[e->imm.index].set == e) {
    int64_t v;
    added_const(e->kid[0], &y, &v);
    e->kid[0] = y;
    return;
  }
  local_info *l = is_access(e) ? ok_get(c, e->kid[0]) : NULL;
  if (l) e->imm.mem.offset += (uint32_t)l->c;
}

/* False when out of memory (f unchanged by it). */
static bool propagate(tl_pass_ctx *ctx, tl_func *f) {
  prop_ctx c = {tl_scratch_calloc((size_t)f->nlocal + 1, sizeof(local_info)), f->nlocal, 0, {0}, {0}, {0}};
  if (!c.li) return false;
  tl_walk w = {0};
  w.m = ctx->m;
  w.f = f;
  w.ctx = &c;
  w.pre = count_pre;
  w.post = count_post;
  tl_walk_run(&w, &f->body);
  for (size_t i = 0; i < c.gets.n; i++) {
    local_info *l = &c.li[TL_VEC_AT(&c.gets, tl_expr *, i)->imm.index];
    uint64_t n = TL_VEC_AT(&c.nums, uint64_t, i);
    if (l->set && n >= l->from && n < l->to) l->dominated++;
  }
  /* Every read of $x is an address in the following siblings, so it reads
   * this set; then each access must take C within low memory. */
  for (uint32_t i = 0; i < f->nlocal; i++) {
    local_info *l = &c.li[i];
    l->ok = l->set && l->nset == 1 && l->nget && l->nget == l->nptr && l->dominated == l->nget;
  }
  bool any = false;
  for (uint32_t i = 0; i < f->nlocal; i++) any |= c.li[i].ok;
  if (any) {
    tl_walk_post(ctx->m, f, &f->body, check_visit, &c);
    tl_walk_post(ctx->m, f, &f->body, prop_visit, &c);
  }
  tl_free(c.li);
  tl_vec_free(&c.pend);
  tl_vec_free(&c.gets);
  tl_vec_free(&c.nums);
  return true;
}

static tl_status run(tl_pass_ctx *ctx, tl_func *f, bool prop) {
  if (!ctx->opt || !ctx->opt->low_memory_unused)
    return tl_errorf(ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                     "optimize-added-constants needs --low-memory-unused (addresses below "
                     "1024 unused)");
  tl_walk_post(ctx->m, f, &f->body, fold_visit, NULL);
  if (prop && !propagate(ctx, f)) return tl_nomem(ctx->err, "optimize-added-constants-propagate");
  return TL_OK;
}

tl_status tl_pass_optimize_added_constants(tl_pass_ctx *ctx, tl_func *f) {
  return run(ctx, f, false);
}

tl_status tl_pass_optimize_added_constants_propagate(tl_pass_ctx *ctx, tl_func *f) {
  return run(ctx, f, true);
}
