/* signature_refining.c — signature-refining (closed world): a private
 * function type's params become the lub of the operands of every call and
 * call_ref through it, its results the lub of what its functions return.
 * Left alone: public types, types with a supertype or subtypes, tag and
 * block types, a param some function stores a wider value in, and every
 * module with an imported or exported table (call_indirect's operands
 * count as calls; Binaryen skips all modules with tables). The type
 * rewriter applies it. */
#include "passes.h"

typedef struct {
  tl_module *m;
  tl_type_rewrite *rw;
  tl_type **arg;   /* per canonical function type: lub of call operands per param */
  tl_type **set;   /* lub of what its functions store in each param */
  tl_type *res;    /* lub of what its functions return */
  uint8_t *fixed;  /* may not change */
  uint32_t cur;    /* while walking a function: its canonical type */
} sr_ctx;

static uint32_t nparams(const sr_ctx *c, uint32_t t) { return tl_type_arity(c->m, c->rw->def[t].params); }

static void note_args(sr_ctx *c, uint32_t type, tl_expr *const *args, uint32_t n) {
  uint32_t t = c->rw->canon[type];
  if (c->rw->def[t].kind != TL_DT_FUNC || n < nparams(c, t)) return;
  for (uint32_t i = 0; i < nparams(c, t); i++) c->arg[t][i] = tl_type_lub(c->m, c->arg[t][i], args[i]->type);
}

static void note_result(sr_ctx *c, tl_type t) { c->res[c->cur] = tl_type_lub(c->m, c->res[c->cur], t); }

static tl_type results_of(const sr_ctx *c, uint32_t type) { return c->rw->def[c->rw->canon[type]].results; }

/* A store into local l of the walked function (a param: noted). */
static void note_store(sr_ctx *c, uint32_t l, tl_type t) {
  if (l < nparams(c, c->cur)) c->set[c->cur][l] = tl_type_lub(c->m, c->set[c->cur][l], t);
}

static void scan_calls(sr_ctx *c, tl_expr *e) {
  switch (e->op) {
  case TL_OP_CALL: case TL_OP_RETURN_CALL:
    note_args(c, TL_FUNC(c->m, e->imm.index)->type, e->kid, e->nkid);
    if (e->op == TL_OP_RETURN_CALL) note_result(c, results_of(c, TL_FUNC(c->m, e->imm.index)->type));
    break;
  case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF:
    if (e->nkid) note_args(c, e->imm.index, e->kid, e->nkid - 1);
    if (e->op == TL_OP_RETURN_CALL_REF) note_result(c, results_of(c, e->imm.index));
    break;
  case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL_INDIRECT:
    if (e->nkid) note_args(c, e->imm.idx2.a, e->kid, e->nkid - 1);
    if (e->op == TL_OP_RETURN_CALL_INDIRECT) note_result(c, results_of(c, e->imm.idx2.a));
    break;
  case TL_OP_RETURN: if (e->nkid) note_result(c, e->kid[0]->type); break;
  default: break;
  }
}

static void scan_visit(tl_walk *w, tl_expr **slot) {
  sr_ctx *c = w->ctx;
  tl_expr *e = *slot;
  scan_calls(c, e);
  uint8_t imm = tl_ops[e->op].imm;
  if ((imm == TL_IMM_BLOCK || imm == TL_IMM_TRY_TABLE) && e->imm.block.bt != TL_NO_INDEX)
    c->fixed[c->rw->canon[e->imm.block.bt]] = 1;
  if (!w->f) return;
  if ((e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) && e->nkid) note_store(c, e->imm.index, e->kid[0]->type);
  if (e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX)
    note_store(c, e->imm.idx2.a, tl_tag_params(c->m, e->imm.idx2.b));
}

static tl_type *lub_row(tl_type_rewrite *rw, uint32_t n) {
  tl_type *r = TL_NEWN(&rw->arena, tl_type, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) r[i] = TL_UNREACHABLE;
  return r;
}

/* fixed[]: public, in a subtyping relation, not a function type, a tag's. */
static void find_fixed(sr_ctx *c) {
  tl_type_rewrite *rw = c->rw;
  for (uint32_t i = 0; i < rw->n; i++) {
    const tl_deftype *d = &rw->def[i];
    if (rw->pub[i] || d->kind != TL_DT_FUNC || d->super != TL_NO_SUPER) c->fixed[i] = 1;
    if (d->super != TL_NO_SUPER) c->fixed[d->super] = 1;
  }
  for (uint32_t i = 0; i < c->m->tags.n; i++) c->fixed[rw->canon[TL_TAG(c->m, i)->type]] = 1;
}

static void scan(sr_ctx *c) {
  tl_module *m = c->m;
  uint32_t n = c->rw->n;
  c->arg = TL_NEWN(&c->rw->arena, tl_type *, n);
  c->set = TL_NEWN(&c->rw->arena, tl_type *, n);
  c->res = lub_row(c->rw, n);
  c->fixed = TL_NEWN(&c->rw->arena, uint8_t, n);
  for (uint32_t i = 0; i < n; i++) {
    if (c->rw->def[i].kind != TL_DT_FUNC) continue;
    c->arg[i] = lub_row(c->rw, nparams(c, i));
    c->set[i] = lub_row(c->rw, nparams(c, i));
  }
  find_fixed(c);
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    c->cur = c->rw->canon[f->type];
    note_result(c, f->body->type);
    tl_walk_post(m, f, &f->body, scan_visit, c);
  }
  for (uint32_t i = 0; i < m->globals.n; i++) /* (block types in constant expressions) */
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, scan_visit, c);
}

/* Type t's new params and results; whether they changed. */
static bool decide(sr_ctx *c, uint32_t t) {
  tl_deftype *d = &c->rw->def[t];
  uint32_t np = nparams(c, t);
  tl_type *p = TL_NEWN(&c->rw->arena, tl_type, np ? np : 1);
  bool all = true;
  for (uint32_t i = 0; i < np; i++) all = all && c->arg[t][i] != TL_UNREACHABLE;
  for (uint32_t i = 0; i < np; i++) {
    tl_type old = tl_type_at(c->m, d->params, i);
    p[i] = all && tl_type_sub(c->m, c->set[t][i], c->arg[t][i]) ? c->arg[t][i] : old;
    if (!tl_type_sub(c->m, p[i], old)) p[i] = old;
  }
  tl_type params = tl_type_tuple(c->m, p, np);
  tl_type results = c->res[t] != TL_UNREACHABLE && tl_type_sub(c->m, c->res[t], d->results) ? c->res[t] : d->results;
  if (params == d->params && results == d->results) return false;
  d->params = params, d->results = results;
  return true;
}

/* Functions of a changed type get its params as their first locals. */
static void retype_params(sr_ctx *c, const uint8_t *changed) {
  tl_module *m = c->m;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    uint32_t t = c->rw->canon[f->type];
    if (!changed[t]) continue;
    for (uint32_t k = 0; k < nparams(c, t); k++) f->local[k] = tl_type_at(m, c->rw->def[t].params, k);
  }
}

static tl_status refine(tl_pass_ctx *ctx, tl_type_rewrite *rw) {
  sr_ctx c = {.m = ctx->m, .rw = rw};
  scan(&c);
  uint8_t *changed = TL_NEWN(&rw->arena, uint8_t, rw->n);
  bool any = false;
  for (uint32_t t = 0; t < rw->n; t++)
    if (rw->canon[t] == t && !c.fixed[t] && decide(&c, t)) changed[t] = 1, any = true;
  if (!any) return TL_OK;
  retype_params(&c, changed);
  return tl_type_rewrite_apply(ctx->m, rw, ctx->err);
}

tl_status tl_pass_signature_refining(tl_pass_ctx *ctx) { return tl_type_pass_run(ctx, true, refine); }
