/* cfp.c — constant field propagation (Binaryen's ConstantFieldPropagation,
 * closed world only): per struct type and field the values stored; a read
 * of a field that holds one constant (or immutable global) becomes it,
 * null check kept; cfp-reftest also splits two values by a ref.test.
 * Copies (a stored value read from another field) count as unknown
 * (Binaryen follows them). GC modules only. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  tl_module *m;
  uint32_t nt;
  uint32_t *off;        /* canon struct type -> its first field's slot */
  uint8_t *made;        /* canon type -> some struct.new makes exactly it */
  tl_pcv *written;      /* slot -> values objects of exactly that type hold */
  tl_pcv *readable;     /* slot -> values a read through that type sees */
  uint32_t *kids, *nkid, *kid0; /* immediate subtypes: kids[kid0[t] .. + nkid[t]) */
  tl_vec *stores;       /* per defined function: its struct.new/new_default/set nodes */
  uint8_t *reffed;
  bool reftest, oom;
} cfp;

static bool is_struct(const tl_module *m, uint32_t t) {
  return TL_FTYPE(m, t)->canon == t && TL_FTYPE(m, t)->kind == TL_DT_STRUCT;
}

/* Values are joined per struct type and field: struct.new operands and
 * struct.new_default's zeros for exactly that type (written), struct.set
 * values through a reference to T for T and every subtype of it; a read
 * through T sees written values of T and all its subtypes (readable). A
 * read of a field no object can have (the reference can only be null)
 * becomes a null check and unreachable. */
/* ---- scanning ------------------------------------------------------------ */
static void note_store(tl_walk *w, tl_expr **slot) {
  cfp *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op != TL_OP_STRUCT_NEW && e->op != TL_OP_STRUCT_NEW_DEFAULT && e->op != TL_OP_STRUCT_SET) return;
  tl_vec *v = &c->stores[w->f - TL_FUNC(c->m, c->m->nimported_funcs)];
  if (v->n == v->cap && !tl_vec_try_grow(v, sizeof(tl_expr *), v->n + 1)) {
    __atomic_store_n(&c->oom, true, __ATOMIC_RELAXED);
    return;
  }
  TL_VEC_AT(v, tl_expr *, v->n++) = e;
}

static void scan_in(void *user, uint32_t k) {
  cfp *c = user;
  tl_func *f = TL_FUNC(c->m, c->m->nimported_funcs + k);
  if (f->body) tl_walk_post_only(c->m, f, &f->body, note_store, c, TL_F_GC_ALLOC | TL_F_GC_WRITE);
}

/* Joins one store into news (exact: written) or sets (through a type). */
static void join_store(cfp *c, const tl_expr *e, tl_pcv *sets) {
  tl_module *m = c->m;
  if (e->type == TL_UNREACHABLE) return; /* never stores */
  if (e->op == TL_OP_STRUCT_SET) {
    uint32_t t = tl_struct_of(m, e->kid[0]->type);
    if (t != TL_NO_INDEX) tl_pcv_note(m, &sets[c->off[t] + e->imm.idx2.b], e->kid[1]);
    return;
  }
  uint32_t t = TL_FTYPE(m, e->imm.index)->canon, n = TL_FTYPE(m, t)->nfields;
  tl_pcv zero = {TL_PCV_ZERO, NULL};
  c->made[t] = 1;
  for (uint32_t k = 0; k < n; k++)
    if (e->op == TL_OP_STRUCT_NEW) tl_pcv_note(m, &c->written[c->off[t] + k], e->kid[k]);
    else tl_pcv_join(&c->written[c->off[t] + k], &zero);
}

typedef struct { cfp *c; tl_pcv *sets; } const_ctx;

static void join_const(tl_walk *w, tl_expr **slot) {
  const_ctx *k = w->ctx;
  int op = (*slot)->op;
  if (op == TL_OP_STRUCT_NEW || op == TL_OP_STRUCT_NEW_DEFAULT) join_store(k->c, *slot, k->sets);
}

/* ---- the type hierarchy ---------------------------------------------------- */
/* types[0..n) ordered by depth (supertypes first), a counting sort into
 * out; false when out of memory. */
static bool sort_by_depth(const tl_module *m, const uint32_t *types, uint32_t n, uint32_t *out) {
  uint32_t maxd = 0;
  for (uint32_t i = 0; i < n; i++)
    if (TL_FTYPE(m, types[i])->depth > maxd) maxd = TL_FTYPE(m, types[i])->depth;
  uint32_t *at = tl_scratch_calloc((size_t)maxd + 2, 4);
  if (!at) return false;
  for (uint32_t i = 0; i < n; i++) at[TL_FTYPE(m, types[i])->depth + 1]++;
  for (uint32_t d = 0; d <= maxd; d++) at[d + 1] += at[d];
  for (uint32_t i = 0; i < n; i++) out[at[TL_FTYPE(m, types[i])->depth]++] = types[i];
  tl_free(at);
  return true;
}

/* written gets the sets through each type's supertypes (a set through S
 * reaches every object of a subtype), readable the written values of each
 * type's subtypes. order: the struct types, supertypes first. */
static void propagate(cfp *c, tl_pcv *sets, const uint32_t *order, uint32_t n) {
  tl_module *m = c->m;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t t = order[i], s = tl_struct_super(m, t), nf = TL_FTYPE(m, t)->nfields;
    for (uint32_t k = 0; s != TL_NO_INDEX && k < TL_FTYPE(m, s)->nfields; k++)
      tl_pcv_join(&sets[c->off[t] + k], &sets[c->off[s] + k]);
    for (uint32_t k = 0; k < nf; k++) tl_pcv_join(&c->written[c->off[t] + k], &sets[c->off[t] + k]);
  }
  for (uint32_t i = 0; i < n; i++) {
    uint32_t t = order[i], nf = TL_FTYPE(m, t)->nfields;
    memcpy(&c->readable[c->off[t]], &c->written[c->off[t]], nf * sizeof *c->readable);
  }
  for (uint32_t i = n; i-- > 0;) {
    uint32_t t = order[i], s = tl_struct_super(m, t);
    for (uint32_t k = 0; s != TL_NO_INDEX && k < TL_FTYPE(m, s)->nfields; k++)
      tl_pcv_join(&c->readable[c->off[s] + k], &c->readable[c->off[t] + k]);
  }
}

/* Immediate subtypes, for cfp-reftest. */
static bool list_kids(cfp *c, const uint32_t *order, uint32_t n) {
  uint32_t total = 0;
  c->kids = tl_scratch_calloc(n + 1, 4);
  if (!c->kids) return false;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t s = tl_struct_super(c->m, order[i]);
    if (s != TL_NO_INDEX) c->nkid[s]++;
  }
  for (uint32_t t = 0; t < c->nt; t++) c->kid0[t] = total, total += c->nkid[t], c->nkid[t] = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t s = tl_struct_super(c->m, order[i]);
    if (s != TL_NO_INDEX) c->kids[c->kid0[s] + c->nkid[s]++] = order[i];
  }
  return true;
}

/* Sorts the struct types, sizes the slots, and joins every store. */
static bool analyze(tl_pass_ctx *ctx, cfp *c) {
  tl_module *m = c->m;
  uint32_t n = 0, slots = 0, nd = (uint32_t)m->funcs.n - m->nimported_funcs;
  uint32_t *types = tl_scratch_calloc(c->nt + 1, 4), *order = tl_scratch_calloc(c->nt + 1, 4);
  bool ok = false;
  for (uint32_t t = 0; types && t < c->nt; t++)
    if (is_struct(m, t)) types[n++] = t, c->off[t] = slots, slots += TL_FTYPE(m, t)->nfields;
  if (!types || !order || !sort_by_depth(m, types, n, order)) {
    tl_free(types), tl_free(order);
    return false;
  }
  tl_free(types);
  tl_pcv *sets = tl_scratch_calloc(slots + 1, sizeof *sets);
  c->written = tl_scratch_calloc(slots + 1, sizeof *sets);
  c->readable = tl_scratch_calloc(slots + 1, sizeof *sets);
  if (sets && c->written && c->readable) {
    tl_run_parallel(ctx, nd, scan_in, c);
    for (uint32_t k = 0; k < nd; k++)
      for (size_t i = 0; i < c->stores[k].n; i++) join_store(c, TL_VEC_AT(&c->stores[k], tl_expr *, i), sets);
    const_ctx cc = {c, sets};
    tl_walk_const_exprs(m, join_const, &cc);
    propagate(c, sets, order, n);
    ok = !c->oom && (!c->reftest || list_kids(c, order, n));
  }
  tl_free(sets);
  tl_free(order);
  return ok;
}

/* ---- cfp-reftest ------------------------------------------------------------ */
typedef struct { tl_pcv v; uint32_t type, ntypes; } split;

/* Places the value objects of exactly type u hold in one of two groups;
 * false when it is not constant or a third one. */
static bool split_add(split sp[2], uint32_t *n, const tl_pcv *v, uint32_t u) {
  uint32_t j = 0;
  if (v->kind == TL_PCV_MANY) return false;
  while (j < *n && !tl_pcv_eq(&sp[j].v, v)) j++;
  if (j == 2) return false;
  if (j == *n) sp[(*n)++] = (split){*v, u, 0};
  sp[j].ntypes++;
  return true;
}

/* The types allocated under t (t included) hold two values for field k,
 * one of them in a single type without subtypes: the group to test is
 * sp[0] on success. */
static bool split_values(cfp *c, uint32_t t, uint32_t k, split sp[2]) {
  uint32_t n = 0, top = 0, *stack = tl_scratch_calloc(c->nt + 1, 4);
  bool ok = stack != NULL;
  if (ok) stack[top++] = t;
  while (ok && top) {
    uint32_t u = stack[--top];
    for (uint32_t i = 0; i < c->nkid[u]; i++) stack[top++] = c->kids[c->kid0[u] + i];
    if (c->made[u]) ok = split_add(sp, &n, &c->written[c->off[u] + k], u);
  }
  tl_free(stack);
  if (!ok || n != 2) return false;
  for (int i = 0; i < 2; i++)
    if (sp[i].ntypes == 1 && !c->nkid[sp[i].type]) {
      if (i) {
        split x = sp[0];
        sp[0] = sp[1], sp[1] = x;
      }
      return true;
    }
  return false;
}

/* (select v0 v1 (ref.test (ref U) (ref.as_non_null ref))) */
static tl_expr *read_by_test(cfp *c, tl_func *f, tl_expr *e, uint32_t t, const tl_field *fld) {
  tl_module *m = c->m;
  split sp[2];
  if (!split_values(c, t, e->imm.idx2.b, sp)) return NULL;
  tl_expr *a = tl_pcv_make(m, f, &sp[0].v, fld, e->op, c->reffed);
  tl_expr *b = tl_pcv_make(m, f, &sp[1].v, fld, e->op, c->reffed);
  if (!a || !b) return NULL;
  tl_expr *nn = tl_expr_new(m, TL_OP_REF_AS_NON_NULL, 1), *test = tl_expr_new(m, TL_OP_REF_TEST, 1);
  nn->kid[0] = e->kid[0];
  tl_expr_finalize(m, f, nn);
  test->kid[0] = nn;
  test->imm.index = tl_ref_def(sp[0].type, false);
  tl_expr_finalize(m, f, test);
  return tl_make_select(m, f, a, b, test, TL_NONE);
}

/* ---- rewriting ------------------------------------------------------------ */
/* What read e (of field k through type t) becomes, or NULL. */
static tl_expr *read_field(cfp *c, tl_func *f, tl_expr *e, uint32_t t) {
  tl_module *m = c->m;
  const tl_field *fld = &TL_FTYPE(m, t)->fields[e->imm.idx2.b];
  const tl_pcv *v = &c->readable[c->off[t] + e->imm.idx2.b];
  if (v->kind == TL_PCV_NONE) /* no object it could reach exists: the reference is null */
    return tl_make_checked(m, f, e->kid[0], tl_make_unreachable(m));
  if (v->kind == TL_PCV_MANY) return c->reftest ? read_by_test(c, f, e, t, fld) : NULL;
  tl_expr *x = tl_pcv_make(m, f, v, fld, e->op, c->reffed);
  return x ? tl_make_checked(m, f, e->kid[0], x) : NULL;
}

typedef struct { cfp *c; bool changed; } rw_ctx;

static void rewrite_visit(tl_walk *w, tl_expr **slot) {
  rw_ctx *r = w->ctx;
  tl_expr *e = *slot, *x;
  if (e->op != TL_OP_STRUCT_GET && e->op != TL_OP_STRUCT_GET_S && e->op != TL_OP_STRUCT_GET_U) return;
  uint32_t t = tl_struct_of(w->m, e->kid[0]->type);
  if (t == TL_NO_INDEX || !(x = read_field(r->c, w->f, e, t))) return;
  *slot = x;
  r->changed = true;
}

static void rewrite_in(void *user, uint32_t k) {
  cfp *c = user;
  tl_func *f = TL_FUNC(c->m, c->m->nimported_funcs + k);
  rw_ctx r = {c, false};
  if (!f->body) return;
  tl_walk_post_only(c->m, f, &f->body, rewrite_visit, &r, TL_F_GC_READ);
  if (r.changed) tl_func_refinalize(c->m, f);
}

static tl_status run(tl_pass_ctx *ctx, bool reftest) {
  tl_module *m = ctx->m;
  const char *name = reftest ? "cfp-reftest" : "cfp";
  uint32_t nt = (uint32_t)m->types.n, nd = (uint32_t)m->funcs.n - m->nimported_funcs;
  if (!tl_module_uses_gc(m)) return TL_OK;
  if (!ctx->opt->closed_world)
    return tl_errorf(ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "%s: requires --closed-world", name);
  cfp c = {.m = m, .nt = nt, .reftest = reftest};
  c.off = tl_scratch_calloc(nt + 1, 4), c.made = tl_scratch_calloc(nt + 1, 1);
  c.nkid = tl_scratch_calloc(nt + 1, 4), c.kid0 = tl_scratch_calloc(nt + 1, 4);
  c.stores = tl_scratch_calloc(nd + 1, sizeof *c.stores), c.reffed = tl_scratch_calloc(m->funcs.n + 1, 1);
  tl_status st = TL_OK;
  if (!c.off || !c.made || !c.nkid || !c.kid0 || !c.stores || !c.reffed || !analyze(ctx, &c))
    st = tl_nomem(ctx->err, name);
  if (st == TL_OK) {
    tl_run_parallel(ctx, nd, rewrite_in, &c);
    tl_declare_funcs(m, c.reffed);
  }
  for (uint32_t k = 0; c.stores && k < nd; k++) tl_vec_free(&c.stores[k]);
  tl_free(c.off), tl_free(c.made), tl_free(c.nkid), tl_free(c.kid0), tl_free(c.stores), tl_free(c.reffed);
  tl_free(c.written), tl_free(c.readable), tl_free(c.kids);
  return st;
}

tl_status tl_pass_cfp(tl_pass_ctx *ctx) { return run(ctx, false); }
tl_status tl_pass_cfp_reftest(tl_pass_ctx *ctx) { return run(ctx, true); }
