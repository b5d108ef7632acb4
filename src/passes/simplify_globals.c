/* simplify_globals.c — globals that nothing can write (defined, not
 * exported when mutable, no global.set anywhere) become immutable, and
 * reads of such a global whose init is a constant become that constant
 * (in function bodies, other globals' inits and segment offsets). Globals
 * nothing reads (defined, not exported) lose their writes: global.set x v
 * becomes drop v. simplify-globals-optimizing then runs the function
 * pipeline (pipeline.c, -O2 function passes) on the functions it changed.
 * ref.func inits are not folded (the ref.func would need a declaration
 * once the global is gone). Guarantees the same behaviour; leaves removing the now-unused globals to
 * remove-unused-module-elements. */
#include "passes.h"

#include <stdlib.h>

typedef struct {
  uint32_t *sets, *gets;
  uint8_t *exported;
  bool changed;
  bool has; /* the walk met a global.get or global.set */
} sg_ctx;

static void count_visit(tl_walk *w, tl_expr **slot) {
  sg_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_GLOBAL_SET) c->sets[e->imm.index]++, c->has = true;
  else if (e->op == TL_OP_GLOBAL_GET) c->gets[e->imm.index]++, c->has = true;
}

/* The walks see only the nodes that read or write a global. */
#define GLOBAL_OPS (TL_F_READS_GLOBAL | TL_F_WRITES_GLOBAL)

static bool is_const(const tl_expr *e) {
  return e && (e->op == TL_OP_I32_CONST || e->op == TL_OP_I64_CONST || e->op == TL_OP_F32_CONST ||
               e->op == TL_OP_F64_CONST || e->op == TL_OP_V128_CONST || e->op == TL_OP_REF_NULL);
}

typedef struct {
  sg_ctx *c;
  tl_module *m;
  const uint8_t *fold;   /* global index -> replace its reads */
  const uint8_t *unread; /* global index -> drop its writes */
} rw_ctx;

static void rewrite_visit(tl_walk *w, tl_expr **slot) {
  rw_ctx *r = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_GLOBAL_GET && r->fold[e->imm.index]) {
    const tl_expr *init = TL_GLOBAL(r->m, e->imm.index)->init;
    tl_expr *k = tl_expr_new(r->m, (tl_op)init->op, 0);
    k->imm = init->imm;
    k->type = init->type;
    *slot = k;
    r->c->changed = true;
  } else if (e->op == TL_OP_GLOBAL_SET && r->unread[e->imm.index]) {
    *slot = tl_make_drop(r->m, e->kid[0]);
    r->c->changed = true;
  }
}

static tl_status run(tl_pass_ctx *ctx, bool optimizing) {
  tl_module *m = ctx->m;
  uint32_t ng = (uint32_t)m->globals.n, nf = (uint32_t)m->funcs.n;
  if (!ng) return TL_OK;
  sg_ctx c = {tl_scratch_calloc(ng, 4), tl_scratch_calloc(ng, 4), tl_scratch_calloc(ng, 1), false, false};
  uint8_t *fold = tl_scratch_calloc(ng, 1), *unread = tl_scratch_calloc(ng, 1);
  uint8_t *touched = tl_scratch_calloc((size_t)nf + 1, 1); /* 2: has global ops, 1: changed */
  if (!c.sets || !c.gets || !c.exported || !fold || !unread || !touched) {
    free(c.sets), free(c.gets), free(c.exported), free(fold), free(unread), free(touched);
    return tl_nomem(ctx->err, optimizing ? "simplify-globals-optimizing" : "simplify-globals");
  }
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_GLOBAL) c.exported[TL_EXPORT(m, i)->index] = 1;
  for (uint32_t i = m->nimported_funcs; i < nf; i++) {
    c.has = false;
    tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, count_visit, &c, GLOBAL_OPS);
    if (c.has) touched[i] = 2;
  }
  for (uint32_t i = 0; i < ng; i++)
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, count_visit, &c);
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    if (el->offset) tl_walk_post(m, NULL, &el->offset, count_visit, &c);
    for (uint32_t j = 0; j < el->n; j++) tl_walk_post(m, NULL, &el->item[j], count_visit, &c);
  }
  for (size_t i = 0; i < m->datas.n; i++)
    if (TL_DATA(m, i)->offset) tl_walk_post(m, NULL, &TL_DATA(m, i)->offset, count_visit, &c);
  bool any = false;
  for (uint32_t i = m->nimported_globals; i < ng; i++) {
    tl_global *g = TL_GLOBAL(m, i);
    if (g->mut && !c.exported[i] && !c.sets[i]) g->mut = false;
    /* a v128.const is 18 bytes against global.get's 2: folded only where the global then goes */
    if (!g->mut && is_const(g->init) && (g->init->op != TL_OP_V128_CONST || (c.gets[i] <= 1 && !c.exported[i])))
      fold[i] = 1;
    if (g->mut && !c.exported[i] && !c.gets[i] && c.sets[i]) unread[i] = 1;
    any |= fold[i] || unread[i];
  }
  rw_ctx r = {&c, m, fold, unread};
  for (uint32_t i = m->nimported_funcs; i < nf; i++) {
    bool has = touched[i] == 2;
    touched[i] = 0;
    if (!has || !any) continue; /* nothing to rewrite there */
    c.changed = false;
    tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, rewrite_visit, &r, GLOBAL_OPS);
    if (c.changed) {
      touched[i] = 1;
      tl_func_refinalize(m, TL_FUNC(m, i));
    }
  }
  /* Constant expressions: only reads of immutable globals appear there. */
  for (uint32_t i = 0; i < ng; i++)
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, rewrite_visit, &r);
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    if (el->offset) tl_walk_post(m, NULL, &el->offset, rewrite_visit, &r);
    for (uint32_t j = 0; j < el->n; j++) tl_walk_post(m, NULL, &el->item[j], rewrite_visit, &r);
  }
  for (size_t i = 0; i < m->datas.n; i++)
    if (TL_DATA(m, i)->offset) tl_walk_post(m, NULL, &TL_DATA(m, i)->offset, rewrite_visit, &r);
  tl_status st = TL_OK;
  if (optimizing) {
    const char *names[64];
    uint32_t n = tl_pipeline(2, 0, names, 64);
    for (uint32_t i = m->nimported_funcs; i < nf && st == TL_OK; i++) {
      if (!touched[i]) continue;
      for (uint32_t k = 0; k < n && st == TL_OK; k++) {
        const tl_pass_info *pi = tl_pass_find(names[k]);
        if (pi && pi->kind == TL_PASS_FUNC) st = pi->func(ctx, TL_FUNC(m, i));
      }
    }
  }
  free(c.sets);
  free(c.gets);
  free(c.exported);
  free(fold);
  free(unread);
  free(touched);
  return st;
}

tl_status tl_pass_simplify_globals(tl_pass_ctx *ctx) { return run(ctx, false); }
tl_status tl_pass_simplify_globals_optimizing(tl_pass_ctx *ctx) { return run(ctx, true); }
