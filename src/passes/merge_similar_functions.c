/* merge_similar_functions.c — defined functions that are identical except
 * for the values of some constants (same signature and shape; labels and
 * locals up to renaming) become one shared function taking the differing
 * constants as extra parameters, and each original becomes a thunk that
 * calls it with its own values (wasm-opt's merge-similar-functions, without
 * call_ref indirection: calls must match exactly). Constants that differ
 * in the same way share one parameter. Only done when wasm-opt's size
 * estimate says the class shrinks. The shared function is appended (no
 * renumbering: the thunks keep the original indices, names and exports).
 * Bodies are serialized with constant values masked, hashed with XXH3 and
 * confirmed byte for byte. Guarantees the same behaviour (one more call
 * frame). */
#include "passes.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

enum { MAX_PARAMS = 1000 };

static bool is_const(const tl_expr *e) {
  switch (e->op) {
  case TL_OP_I32_CONST: case TL_OP_I64_CONST: case TL_OP_F32_CONST: case TL_OP_F64_CONST:
  case TL_OP_V128_CONST: return true;
  default: return false;
  }
}

/* ---- masked serialization --------------------------------------------- */
typedef struct {
  tl_buf out;
  uint32_t *canon; /* label -> canonical number + 1 */
  uint32_t next;
  const uint32_t *ctype; /* type index -> first index of an equal signature */
  const tl_func *f;
  uint32_t nparams;
  uint32_t *lcanon;      /* local -> canonical number + 1 (first use), 0 = unseen */
  uint32_t lnext;
  tl_vec consts;   /* tl_expr ** slots of constants, pre-order */
} ser_ctx;

static void put32(tl_buf *b, uint32_t v) { tl_buf_put(b, &v, 4); }
static void put64(tl_buf *b, uint64_t v) { tl_buf_put(b, &v, 8); }

static uint32_t lab(ser_ctx *c, uint32_t l) {
  if (l == TL_NO_LABEL) return TL_NO_LABEL;
  if (!c->canon[l]) c->canon[l] = ++c->next;
  return c->canon[l];
}

/* Locals past the params are numbered by first use (wasm-opt runs
 * reorder-locals for the same effect); the type goes in at first use. */
static uint32_t loc(ser_ctx *c, uint32_t l) {
  if (l < c->nparams) return l;
  if (!c->lcanon[l]) {
    c->lcanon[l] = ++c->lnext;
    put32(&c->out, c->f->local[l]);
  }
  return c->nparams + c->lcanon[l];
}

static void ser_imm(ser_ctx *c, const tl_expr *e) {
  tl_buf *b = &c->out;
  switch (tl_ops[e->op].imm) {
  case TL_IMM_NONE: case TL_IMM_FENCE: break;
  case TL_IMM_BLOCK: case TL_IMM_TRY_TABLE:
    put32(b, lab(c, e->imm.block.label));
    put32(b, e->imm.block.bt == TL_NO_INDEX ? TL_NO_INDEX : c->ctype[e->imm.block.bt]);
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
  case TL_IMM_CALL_INDIRECT:
    put32(b, c->ctype[e->imm.idx2.a]);
    put32(b, e->imm.idx2.b);
    break;
  case TL_IMM_MEM_COPY: case TL_IMM_MEM_INIT: case TL_IMM_TABLE_INIT:
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
  case TL_IMM_I32: case TL_IMM_F32: case TL_IMM_I64: case TL_IMM_F64: case TL_IMM_V128: break;
  case TL_IMM_SHUFFLE: tl_buf_put(b, e->imm.v128, 16); break;
  case TL_IMM_LOCAL: put32(b, loc(c, e->imm.index)); break;
  case TL_IMM_CATCH: /* payload local (numbered as locals are), tag */
    put32(b, e->imm.idx2.a == TL_NO_INDEX ? TL_NO_INDEX : loc(c, e->imm.idx2.a));
    put32(b, e->imm.idx2.b);
    break;
  case TL_IMM_CLAUSE:
    put32(b, lab(c, e->imm.idx2.a));
    put32(b, e->imm.idx2.b);
    break;
  default: put32(b, e->imm.index); break; /* TL_IMM_TAG too */
  }
}

static void ser_pre(tl_walk *w, tl_expr **slot) {
  ser_ctx *c = w->ctx;
  tl_expr *e = *slot;
  put32(&c->out, e->op);
  put32(&c->out, e->type);
  put32(&c->out, e->nkid);
  if (is_const(e)) TL_VEC_PUSH(&c->consts, tl_expr **, slot); /* value masked */
  else ser_imm(c, e);
}

/* false when out of memory (c left empty). */
static bool serialize(tl_module *m, tl_func *f, const uint32_t *ctype, ser_ctx *c) {
  memset(c, 0, sizeof *c);
  c->ctype = ctype;
  c->f = f;
  c->nparams = tl_func_nparams(m, f);
  c->canon = tl_scratch_calloc((size_t)f->nlabel + 1, sizeof(uint32_t));
  c->lcanon = tl_scratch_calloc((size_t)f->nlocal + 1, sizeof(uint32_t));
  if (!c->canon || !c->lcanon) {
    tl_free(c->canon);
    tl_free(c->lcanon);
    c->canon = c->lcanon = NULL;
    return false;
  }
  put32(&c->out, ctype[f->type]);
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = c;
  w.pre = ser_pre;
  tl_walk_run(&w, &f->body);
  tl_free(c->canon);
  tl_free(c->lcanon);
  c->canon = c->lcanon = NULL;
  return true;
}

/* ---- parameters of a class -------------------------------------------- */
/* Columns of different constant ops never share a parameter (an i32 and an
 * f32 of the same bits are different values; a v128's bytes are out of line). */
static bool same_value(const tl_expr *a, const tl_expr *b) {
  if (a->op != b->op) return false;
  switch (a->op) {
  case TL_OP_I32_CONST: case TL_OP_F32_CONST: return a->imm.f32 == b->imm.f32;
  case TL_OP_I64_CONST: case TL_OP_F64_CONST: return a->imm.f64 == b->imm.f64;
  default: return !memcmp(a->imm.v128, b->imm.v128, 16);
  }
}

typedef struct {
  uint32_t nfn;        /* functions in the class */
  uint32_t *fn;        /* their indices; fn[0] is the primary */
  ser_ctx *ser;        /* their serializations */
  tl_vec param_of;     /* per constant of the primary: param index or UINT32_MAX */
  tl_vec params;       /* per param: constant index k whose values it carries */
} klass;

/* The constants at position k agree with those at position j in every function. */
static bool same_column(const klass *k, uint32_t a, uint32_t b) {
  for (uint32_t i = 0; i < k->nfn; i++)
    if (!same_value(*TL_VEC_AT(&k->ser[i].consts, tl_expr **, a), *TL_VEC_AT(&k->ser[i].consts, tl_expr **, b)))
      return false;
  return true;
}

static void derive_params(klass *k) {
  size_t nc = k->ser[0].consts.n;
  for (size_t c = 0; c < nc; c++) {
    uint32_t p = UINT32_MAX;
    bool all_same = true;
    for (uint32_t i = 1; i < k->nfn && all_same; i++)
      all_same = same_value(*TL_VEC_AT(&k->ser[0].consts, tl_expr **, c), *TL_VEC_AT(&k->ser[i].consts, tl_expr **, c));
    if (!all_same) {
      for (size_t q = 0; q < k->params.n && p == UINT32_MAX; q++)
        if (same_column(k, TL_VEC_AT(&k->params, uint32_t, q), (uint32_t)c)) p = (uint32_t)q;
      if (p == UINT32_MAX) {
        p = (uint32_t)k->params.n;
        TL_VEC_PUSH(&k->params, uint32_t, (uint32_t)c);
      }
    }
    TL_VEC_PUSH(&k->param_of, uint32_t, p);
  }
}

/* wasm-opt's estimate: instructions removed against thunk glue added. */
static bool has_benefit(tl_module *m, const klass *k) {
  tl_func *p = TL_FUNC(m, k->fn[0]);
  uint64_t n = k->nfn, np = tl_func_nparams(m, p), nx = k->params.n;
  uint64_t size = tl_expr_count(p->body);
  uint64_t removed = (n - 1) * size;
  uint64_t added = n * (1 + np + nx) + n * (nx + 2) + 2 * n;
  return np + nx <= MAX_PARAMS && added < removed;
}

/* ---- rewriting ---------------------------------------------------------- */
typedef struct { uint32_t nparams, nextra; } shift_ctx;

static void shift_visit(tl_walk *w, tl_expr **slot) {
  shift_ctx *s = w->ctx;
  tl_expr *e = *slot;
  if (tl_ops[e->op].imm == TL_IMM_LOCAL && e->imm.index >= s->nparams) e->imm.index += s->nextra;
  if (e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX && e->imm.idx2.a >= s->nparams)
    e->imm.idx2.a += s->nextra; /* a catch arm's payload local */
}

static tl_expr *copy_const(tl_module *m, const tl_expr *c) {
  tl_expr *e = tl_expr_new(m, (tl_op)c->op, 0);
  e->imm = c->imm;
  e->type = c->type;
  return e;
}

/* The shared function: the primary's body, locals shifted past the new
 * params, parameterized constants read from them. Returns its index, or
 * UINT32_MAX when out of memory (nothing changed). */
static uint32_t make_shared(tl_module *m, klass *k) {
  tl_func *p = TL_FUNC(m, k->fn[0]);
  uint32_t np = tl_func_nparams(m, p), nx = (uint32_t)k->params.n;
  tl_functype *pt = tl_func_type(m, p);
  tl_type *pts = tl_scratch_realloc(NULL, (size_t)np + nx + 1, sizeof(tl_type));
  if (!pts) return UINT32_MAX;
  for (uint32_t i = 0; i < np; i++) pts[i] = p->local[i];
  for (uint32_t q = 0; q < nx; q++)
    pts[np + q] = (*TL_VEC_AT(&k->ser[0].consts, tl_expr **, TL_VEC_AT(&k->params, uint32_t, q)))->type;
  uint32_t type = tl_functype_intern(m, tl_type_tuple(m, pts, np + nx), pt->results);
  tl_func s = *p;
  s.type = type;
  s.name = NULL;
  s.code = NULL;
  s.code_size = 0;
  s.nlocal = p->nlocal + nx;
  s.local_cap = s.nlocal;
  s.local = TL_NEWN(&m->arena, tl_type, s.nlocal + 1);
  s.local_name = p->local_name ? TL_NEWN(&m->arena, const char *, s.nlocal + 1) : NULL;
  for (uint32_t i = 0; i < s.nlocal; i++) {
    uint32_t from = i < np ? i : i < np + nx ? UINT32_MAX : i - nx;
    s.local[i] = from == UINT32_MAX ? pts[i] : p->local[from];
    if (s.local_name) s.local_name[i] = from == UINT32_MAX ? NULL : p->local_name[from];
  }
  tl_free(pts);
  if (s.has_scratch_base) s.scratch_base += nx;
  s.local_orig = NULL, s.locals_unmapped = true; /* params inserted: DWARF's local indices do not follow */
  shift_ctx sc = {np, nx};
  tl_walk_post(m, &s, &s.body, shift_visit, &sc);
  *tl_module_add_func(m) = s;
  return (uint32_t)m->funcs.n - 1;
}

/* After the thunks took their values: the shared body's parameterized
 * constants become reads of the new params. */
static void parameterize(tl_module *m, klass *k, uint32_t shared) {
  tl_func *s = TL_FUNC(m, shared);
  uint32_t np = tl_func_nparams(m, TL_FUNC(m, k->fn[0]));
  for (size_t c = 0; c < k->param_of.n; c++) {
    uint32_t q = TL_VEC_AT(&k->param_of, uint32_t, c);
    if (q == UINT32_MAX) continue;
    tl_expr **slot = TL_VEC_AT(&k->ser[0].consts, tl_expr **, c);
    *slot = tl_make_local_get(m, s, np + q);
  }
}

/* Function fi becomes (call shared (local.get 0..np-1) values...). */
static void make_thunk(tl_module *m, klass *k, uint32_t which, uint32_t shared) {
  tl_func *f = TL_FUNC(m, k->fn[which]);
  uint32_t np = tl_func_nparams(m, f), nx = (uint32_t)k->params.n;
  tl_expr *call = tl_expr_new(m, TL_OP_CALL, np + nx);
  call->imm.index = shared;
  f->nlocal = np;
  f->has_scratch_base = false;
  for (uint32_t i = 0; i < np; i++) call->kid[i] = tl_make_local_get(m, f, i);
  for (uint32_t q = 0; q < nx; q++)
    call->kid[np + q] = copy_const(m, *TL_VEC_AT(&k->ser[which].consts, tl_expr **, TL_VEC_AT(&k->params, uint32_t, q)));
  tl_expr_finalize(m, f, call);
  f->nlabel = 0;
  f->label_name = NULL;
  f->label_cap = 0;
  uint32_t l = tl_func_new_label(m, f);
  f->body = tl_make_block(m, TL_OP_BLOCK, l, &call, 1);
}

/* Type indices with equal signatures are one type (MVP types are
 * structural): each maps to the first. Sorted by signature, linear after. */
typedef struct { tl_type params, results; uint32_t index; } sigkey;

static int cmp_sig(const void *a, const void *b) {
  const sigkey *x = a, *y = b;
  if (x->params != y->params) return x->params < y->params ? -1 : 1;
  if (x->results != y->results) return x->results < y->results ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static bool cmp_sig_neq(const sigkey *a, const sigkey *b) {
  return a->params != b->params || a->results != b->results;
}

/* NULL when out of memory. */
static uint32_t *canonical_types(tl_module *m) {
  size_t n = m->types.n;
  uint32_t *ct = tl_scratch_realloc(NULL, n + 1, sizeof(uint32_t));
  sigkey *k = tl_scratch_realloc(NULL, n + 1, sizeof(sigkey));
  if (!ct || !k) {
    tl_free(ct);
    tl_free(k);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) k[i] = (sigkey){TL_FTYPE(m, i)->params, TL_FTYPE(m, i)->results, (uint32_t)i};
  qsort(k, n, sizeof(sigkey), cmp_sig);
  for (size_t i = 0; i < n; i++)
    ct[k[i].index] = i && !cmp_sig_neq(&k[i - 1], &k[i]) ? ct[k[i - 1].index] : k[i].index;
  tl_free(k);
  return ct;
}

typedef struct { uint64_t hash; uint32_t func; } entry;

static int cmp_entry(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
  return x->func < y->func ? -1 : x->func > y->func;
}

static void forget(ser_ctx *c) {
  tl_buf_free(&c->out);
  tl_vec_free(&c->consts);
}

static bool same_ser(const ser_ctx *a, const ser_ctx *b) {
  return a->out.n == b->out.n && (!a->out.n || !memcmp(a->out.p, b->out.p, a->out.n));
}

/* Merges the class if it pays; the class is fn[0..nfn) of ser. false when
 * out of memory (the class is left as it was). */
static bool merge_class(tl_module *m, klass *k) {
  derive_params(k);
  bool ok = true;
  if (has_benefit(m, k)) {
    uint32_t shared = make_shared(m, k);
    ok = shared != UINT32_MAX;
    for (uint32_t i = 0; ok && i < k->nfn; i++) make_thunk(m, k, i, shared);
    if (ok) parameterize(m, k, shared);
  }
  tl_vec_free(&k->param_of);
  tl_vec_free(&k->params);
  return ok;
}

tl_status tl_pass_merge_similar_functions(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n, ni = m->nimported_funcs, nd = nf - ni;
  if (nd < 2) return TL_OK;
  ser_ctx *ser = tl_scratch_calloc(nf, sizeof(ser_ctx));
  entry *ent = tl_scratch_realloc(NULL, nd, sizeof(entry));
  uint32_t *fn = tl_scratch_realloc(NULL, nd, sizeof(uint32_t));
  uint8_t *taken = tl_scratch_calloc(nf, 1);
  ser_ctx *kser = tl_scratch_realloc(NULL, nd, sizeof(ser_ctx));
  uint32_t *ctype = canonical_types(m);
  bool ok = ser && ent && fn && taken && kser && ctype;
  /* Only functions that share their hash with another are kept serialized
   * (serialized again after the sort): holding every function's bytes at
   * once was the peak of -Oz. */
  for (uint32_t i = ni; ok && i < nf; i++) {
    ok = serialize(m, TL_FUNC(m, i), ctype, &ser[i]);
    ent[i - ni] = (entry){XXH3_64bits(ser[i].out.p, ser[i].out.n), i};
    forget(&ser[i]);
  }
  if (ok) qsort(ent, nd, sizeof(entry), cmp_entry);
  for (uint32_t a = 0; ok && a < nd; a++) {
    bool shared = (a > 0 && ent[a - 1].hash == ent[a].hash) || (a + 1 < nd && ent[a + 1].hash == ent[a].hash);
    if (shared) ok = serialize(m, TL_FUNC(m, ent[a].func), ctype, &ser[ent[a].func]);
  }
  /* classes: hash order; a class's primary is its lowest index */
  for (uint32_t a = 0; ok && a < nd; a++) {
    uint32_t p = ent[a].func;
    if (taken[p]) continue;
    klass k = {0, fn, kser, {0}, {0}};
    for (uint32_t b = a; b < nd && ent[b].hash == ent[a].hash; b++) {
      uint32_t q = ent[b].func;
      if (taken[q] || !same_ser(&ser[p], &ser[q])) continue;
      taken[q] = 1;
      fn[k.nfn] = q;
      kser[k.nfn++] = ser[q];
    }
    if (k.nfn >= 2) ok = merge_class(m, &k);
  }
  for (uint32_t i = ni; ser && i < nf; i++) forget(&ser[i]);
  tl_free(ser);
  tl_free(ent);
  tl_free(fn);
  tl_free(taken);
  tl_free(kser);
  tl_free(ctype);
  return ok ? TL_OK : tl_nomem(ctx->err, "merge-similar-functions");
}
