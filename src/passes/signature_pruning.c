/* signature_pruning.c — signature-pruning (closed world): a param that no
 * function of a private function type reads is removed from the type; in
 * each function it becomes an ordinary local (of the same type: nothing
 * reads it, a local.tee's value keeps its type), and every call, call_ref and call_indirect
 * through the type loses the operand, its effects kept in order.
 * Left alone as in signature-refining: public, tag and block types, types
 * in a subtyping relation, modules with an imported or exported table. */
#include "passes.h"

typedef struct {
  tl_module *m;
  tl_type_rewrite *rw;
  uint8_t **used;   /* per canonical function type: params some function reads */
  uint8_t *fixed;   /* may not change */
  uint8_t *has_fn;  /* some defined function has the type */
  uint8_t **drop;   /* per changed type: params removed; NULL otherwise */
  uint32_t *oldnp;  /* params before the pass */
  uint32_t cur;     /* while walking a function: its canonical type */
} sp_ctx;

static uint32_t nparams(const sp_ctx *c, uint32_t t) { return tl_type_arity(c->m, c->rw->def[t].params); }

/* ---- call sites --------------------------------------------------------- */
/* The pruned type a call goes through (TL_NO_INDEX: none) and how many of
 * its operands are the params. */
static uint32_t call_type(const sp_ctx *c, const tl_expr *e) {
  switch (e->op) {
  case TL_OP_CALL: case TL_OP_RETURN_CALL: return c->rw->canon[TL_FUNC(c->m, e->imm.index)->type];
  case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF: return c->rw->canon[e->imm.index];
  case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL_INDIRECT: return c->rw->canon[e->imm.idx2.a];
  default: return TL_NO_INDEX;
  }
}

static void scan_visit(tl_walk *w, tl_expr **slot) {
  sp_ctx *c = w->ctx;
  tl_expr *e = *slot;
  uint8_t imm = tl_ops[e->op].imm;
  if ((imm == TL_IMM_BLOCK || imm == TL_IMM_TRY_TABLE) && e->imm.block.bt != TL_NO_INDEX)
    c->fixed[c->rw->canon[e->imm.block.bt]] = 1;
  if (w->f && e->op == TL_OP_LOCAL_GET && e->imm.index < nparams(c, c->cur)) c->used[c->cur][e->imm.index] = 1;
  uint32_t t = call_type(c, e);
  bool through = e->op == TL_OP_CALL_REF || e->op == TL_OP_RETURN_CALL_REF || e->op == TL_OP_CALL_INDIRECT ||
                 e->op == TL_OP_RETURN_CALL_INDIRECT;
  /* a tuple operand carries several params: such a type keeps them */
  if (t != TL_NO_INDEX && c->rw->def[t].kind == TL_DT_FUNC && e->nkid - through != nparams(c, t)) c->fixed[t] = 1;
}

/* fixed[]: public, in a subtyping relation, not a function type, a tag's. */
static void find_fixed(sp_ctx *c) {
  tl_type_rewrite *rw = c->rw;
  for (uint32_t i = 0; i < rw->n; i++) {
    const tl_deftype *d = &rw->def[i];
    if (rw->pub[i] || d->kind != TL_DT_FUNC || d->super != TL_NO_SUPER) c->fixed[i] = 1;
    if (d->super != TL_NO_SUPER) c->fixed[d->super] = 1;
  }
  for (uint32_t i = 0; i < c->m->tags.n; i++) c->fixed[rw->canon[TL_TAG(c->m, i)->type]] = 1;
}

static void scan(sp_ctx *c) {
  tl_module *m = c->m;
  tl_type_rewrite *rw = c->rw;
  c->used = TL_NEWN(&rw->arena, uint8_t *, rw->n);
  c->drop = TL_NEWN(&rw->arena, uint8_t *, rw->n);
  c->fixed = TL_NEWN(&rw->arena, uint8_t, rw->n);
  c->has_fn = TL_NEWN(&rw->arena, uint8_t, rw->n);
  for (uint32_t i = 0; i < rw->n; i++)
    if (rw->def[i].kind == TL_DT_FUNC) c->used[i] = TL_NEWN(&rw->arena, uint8_t, nparams(c, i) + 1);
  find_fixed(c);
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    c->cur = rw->canon[f->type];
    c->has_fn[c->cur] = 1;
    tl_walk_post(m, f, &f->body, scan_visit, c);
  }
  for (uint32_t i = 0; i < m->globals.n; i++)
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, scan_visit, c);
}

/* Type t loses its unread params; whether it had any. */
static bool decide(sp_ctx *c, uint32_t t) {
  uint32_t np = nparams(c, t), nk = 0;
  tl_type *kept = TL_NEWN(&c->rw->arena, tl_type, np + 1);
  uint8_t *drop = TL_NEWN(&c->rw->arena, uint8_t, np + 1);
  for (uint32_t i = 0; i < np; i++) {
    drop[i] = !c->used[t][i];
    if (!drop[i]) kept[nk++] = tl_type_at(c->m, c->rw->def[t].params, i);
  }
  if (nk == np) return false;
  c->drop[t] = drop;
  c->rw->def[t].params = tl_type_tuple(c->m, kept, nk);
  return true;
}

/* ---- functions of a pruned type ------------------------------------- */
typedef struct { const uint32_t *map; uint32_t np; } lmap_ctx;

static void renumber_visit(tl_walk *w, tl_expr **slot) {
  lmap_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if ((e->op == TL_OP_LOCAL_GET || e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) && e->imm.index < c->np)
    e->imm.index = c->map[e->imm.index];
  else if (e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX && e->imm.idx2.a < c->np)
    e->imm.idx2.a = c->map[e->imm.idx2.a];
}

/* Kept params first, the removed ones after them as locals. */
static void prune_func(sp_ctx *c, tl_func *f, const uint8_t *drop, uint32_t np) {
  uint32_t *map = TL_NEWN(&c->rw->arena, uint32_t, np + 1), k = 0;
  tl_type *old = TL_NEWN(&c->rw->arena, tl_type, np + 1);
  const char **oldn = TL_NEWN(&c->rw->arena, const char *, np + 1);
  for (uint32_t i = 0; i < np; i++) if (!drop[i]) map[i] = k++;
  for (uint32_t i = 0; i < np; i++) if (drop[i]) map[i] = k++;
  for (uint32_t i = 0; i < np; i++) old[i] = f->local[i], oldn[i] = f->local_name ? f->local_name[i] : NULL;
  for (uint32_t i = 0; i < np; i++) {
    f->local[map[i]] = old[i]; /* (no local.get reads it: non-nullable stays valid) */
    if (f->local_name) f->local_name[map[i]] = oldn[i];
  }
  f->locals_unmapped = true; /* params moved: DWARF's local indices do not follow */
  lmap_ctx lc = {map, np};
  tl_walk_post(c->m, f, &f->body, renumber_visit, &lc);
}

static void call_visit(tl_walk *w, tl_expr **slot) {
  sp_ctx *c = w->ctx;
  tl_expr *e = *slot;
  uint32_t t = call_type(c, e);
  if (t == TL_NO_INDEX || !c->drop[t]) return;
  uint8_t small[64], *rm = e->nkid <= 64 ? small : TL_NEWN(&c->rw->arena, uint8_t, e->nkid);
  for (uint32_t i = 0; i < e->nkid; i++) rm[i] = i < c->oldnp[t] && c->drop[t][i];
  tl_expr *r = tl_expr_remove_operands(c->m, w->f, e, rm);
  if (r) *slot = r;
}

static tl_status prune(tl_pass_ctx *ctx, tl_type_rewrite *rw) {
  tl_module *m = ctx->m;
  sp_ctx c = {.m = m, .rw = rw};
  c.oldnp = TL_NEWN(&rw->arena, uint32_t, rw->n);
  for (uint32_t t = 0; t < rw->n; t++) c.oldnp[t] = rw->def[t].kind == TL_DT_FUNC ? nparams(&c, t) : 0;
  scan(&c);
  bool any = false;
  for (uint32_t t = 0; t < rw->n; t++)
    if (rw->canon[t] == t && !c.fixed[t] && c.has_fn[t]) any |= decide(&c, t);
  if (!any) return TL_OK;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    uint32_t t = rw->canon[TL_FUNC(m, i)->type];
    if (c.drop[t]) prune_func(&c, TL_FUNC(m, i), c.drop[t], c.oldnp[t]);
  }
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    tl_walk_post(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, call_visit, &c);
  return tl_type_rewrite_apply(m, rw, ctx->err);
}

tl_status tl_pass_signature_pruning(tl_pass_ctx *ctx) { return tl_type_pass_run(ctx, true, prune); }
