/* simplify_globals.c — globals that nothing can write (defined, not
 * exported when mutable, no global.set anywhere) become immutable, and
 * reads of such a global whose init is a constant become that constant
 * (in function bodies, other globals' inits and segment offsets). Globals
 * nothing reads (defined, not exported) lose their writes: global.set x v
 * becomes drop v. simplify-globals-optimizing then runs the function
 * pipeline (pipeline.c, -O2 function passes) on the functions it changed.
 * ref.func inits are not folded (the ref.func would need a declaration
 * once the global is gone). Guarantees the same behaviour; leaves removing the now-unused globals to
 * remove-unused-module-elements. Lazy bodies stay bytes unless rewritten:
 * their global uses are counted from the bytes (tl_code_refs), and one is
 * decoded only when it reads a global to fold or writes an unread one. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  uint32_t *sets, *gets; /* counted by the bodies' walks in parallel (atomic adds) */
  uint8_t *exported;
} sg_ctx;

typedef struct {
  sg_ctx *c;
  bool has; /* the walk met a global.get or global.set */
} count_ctx;

static void count_visit(tl_walk *w, tl_expr **slot) {
  count_ctx *k = w->ctx;
  tl_expr *e = *slot;
  uint32_t *n = e->op == TL_OP_GLOBAL_SET ? k->c->sets : e->op == TL_OP_GLOBAL_GET ? k->c->gets : NULL;
  if (!n) return;
  __atomic_fetch_add(&n[e->imm.index], 1, __ATOMIC_RELAXED);
  k->has = true;
}

/* The walks see only the nodes that read or write a global. */
#define GLOBAL_OPS (TL_F_READS_GLOBAL | TL_F_WRITES_GLOBAL)

static bool is_const(const tl_expr *e) {
  return e && (e->op == TL_OP_I32_CONST || e->op == TL_OP_I64_CONST || e->op == TL_OP_F32_CONST ||
               e->op == TL_OP_F64_CONST || e->op == TL_OP_V128_CONST || e->op == TL_OP_REF_NULL);
}

typedef struct {
  tl_module *m;
  const uint8_t *fold;   /* global index -> replace its reads */
  const uint8_t *unread; /* global index -> drop its writes */
  bool changed;
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
    r->changed = true;
  } else if (e->op == TL_OP_GLOBAL_SET && r->unread[e->imm.index]) {
    *slot = tl_make_drop(r->m, e->kid[0]);
    r->changed = true;
  }
}

/* The bodies are walked on the pass pool: touched[i] says what body i
 * holds or what became of it (one byte each). */
typedef struct {
  tl_module *m;
  sg_ctx *c;
  const uint8_t *fold, *unread;
  uint8_t *touched;      /* count: 2 if the body has global ops; rewrite: 1 if changed */
  bool failed;           /* decoding a lazy body failed */
} sg_job;

/* count_visit on a lazy body's bytes (tl_code_refs) */
static void count_ref(void *user, const tl_code_ref *ref) {
  count_ctx *k = user;
  if (ref->space != TL_SPACE_GLOBAL) return;
  uint32_t *n = ref->op == TL_OP_GLOBAL_SET ? k->c->sets : k->c->gets;
  __atomic_fetch_add(&n[ref->index], 1, __ATOMIC_RELAXED);
  k->has = true;
}

static void count_in(void *user, uint32_t k) {
  sg_job *j = user;
  uint32_t i = j->m->nimported_funcs + k;
  tl_func *f = TL_FUNC(j->m, i);
  count_ctx cc = {j->c, false};
  if (f->lazy) tl_code_refs(j->m, f->code, f->code_size, count_ref, &cc);
  else tl_walk_post_only(j->m, f, &f->body, count_visit, &cc, GLOBAL_OPS);
  if (cc.has) j->touched[i] = 2;
}

/* Whether a lazy body reads a global to fold or writes one nobody reads. */
typedef struct {
  const sg_job *j;
  bool any;
} need_ctx;

static void need_ref(void *user, const tl_code_ref *ref) {
  need_ctx *n = user;
  if (ref->space == TL_SPACE_GLOBAL)
    n->any |= ref->op == TL_OP_GLOBAL_SET ? n->j->unread[ref->index] : n->j->fold[ref->index];
}

/* A lazy body is decoded only when the rewrite would change it. */
static bool decoded_if_needed(sg_job *j, uint32_t i) {
  tl_func *f = TL_FUNC(j->m, i);
  if (!f->lazy) return true;
  need_ctx n = {j, false};
  tl_code_refs(j->m, f->code, f->code_size, need_ref, &n);
  if (!n.any) return false;
  tl_error e = {0};
  if (tl_func_decode(j->m, i, &e) == TL_OK) return true;
  __atomic_store_n(&j->failed, true, __ATOMIC_RELAXED); /* out of memory (the body was checked) */
  return false;
}

static void rewrite_in(void *user, uint32_t k) {
  sg_job *j = user;
  uint32_t i = j->m->nimported_funcs + k;
  bool has = j->touched[i] == 2;
  j->touched[i] = 0;
  if (!has || !decoded_if_needed(j, i)) return; /* nothing to rewrite there */
  rw_ctx r = {j->m, j->fold, j->unread, false};
  tl_walk_post_only(j->m, TL_FUNC(j->m, i), &TL_FUNC(j->m, i)->body, rewrite_visit, &r, GLOBAL_OPS);
  if (r.changed) {
    j->touched[i] = 1;
    tl_func_refinalize(j->m, TL_FUNC(j->m, i));
  }
}

static tl_status run(tl_pass_ctx *ctx, bool optimizing) {
  tl_module *m = ctx->m;
  uint32_t ng = (uint32_t)m->globals.n, nf = (uint32_t)m->funcs.n;
  if (!ng) return TL_OK;
  sg_ctx c = {tl_scratch_calloc(ng, 4), tl_scratch_calloc(ng, 4), tl_scratch_calloc(ng, 1)};
  uint8_t *fold = tl_scratch_calloc(ng, 1), *unread = tl_scratch_calloc(ng, 1);
  uint8_t *touched = tl_scratch_calloc((size_t)nf + 1, 1); /* 2: has global ops, 1: changed */
  if (!c.sets || !c.gets || !c.exported || !fold || !unread || !touched) {
    tl_free(c.sets), tl_free(c.gets), tl_free(c.exported), tl_free(fold), tl_free(unread), tl_free(touched);
    return tl_nomem(ctx->err, optimizing ? "simplify-globals-optimizing" : "simplify-globals");
  }
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_GLOBAL) c.exported[TL_EXPORT(m, i)->index] = 1;
  sg_job j = {m, &c, fold, unread, touched, false};
  tl_run_parallel(ctx, nf - m->nimported_funcs, count_in, &j);
  count_ctx cc = {&c, false};
  for (uint32_t i = 0; i < ng; i++)
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, count_visit, &cc);
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    if (el->offset) tl_walk_post(m, NULL, &el->offset, count_visit, &cc);
    for (uint32_t k = 0; k < el->n; k++) tl_walk_post(m, NULL, &el->item[k], count_visit, &cc);
  }
  for (size_t i = 0; i < m->datas.n; i++)
    if (TL_DATA(m, i)->offset) tl_walk_post(m, NULL, &TL_DATA(m, i)->offset, count_visit, &cc);
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
  if (any) tl_run_parallel(ctx, nf - m->nimported_funcs, rewrite_in, &j);
  else memset(touched, 0, (size_t)nf + 1);
  rw_ctx r = {m, fold, unread, false};
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
  tl_status st = j.failed ? tl_nomem(ctx->err, "simplify-globals: decoding a body") : TL_OK;
  if (optimizing && st == TL_OK) {
    const char *names[64];
    uint32_t n = tl_pipeline(2, 0, names, 64);
    st = tl_run_func_passes_on(ctx, names, n, touched);
  }
  tl_free(c.sets);
  tl_free(c.gets);
  tl_free(c.exported);
  tl_free(fold);
  tl_free(unread);
  tl_free(touched);
  return st;
}

tl_status tl_pass_simplify_globals(tl_pass_ctx *ctx) { return run(ctx, false); }
tl_status tl_pass_simplify_globals_optimizing(tl_pass_ctx *ctx) { return run(ctx, true); }
