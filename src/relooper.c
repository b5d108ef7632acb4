/* relooper.c — the public Relooper API of tilt.h over src/ir/cfg.c. Bad
 * block ids and misuse are reported through return values; the graph is
 * checked before it is handed to the structurer. Each call runs in an
 * out-of-memory scope (oom.c): out of memory is the call's failure value,
 * and the graph keeps what it had (its own vectors are kept off the
 * ledger), so the relooper can still be disposed of. */
#include "ir/ir.h"

#include <stdlib.h>

struct tl_relooper {
  tl_cfg *g;
  uint64_t split_budget;
  bool rendered;
};

static tl_relooper *create_impl(tl_module *m, uint32_t func) {
  tl_relooper *r = tl_calloc(1, sizeof *r);
  if (!r) return NULL;
  r->g = tl_cfg_new(m, TL_FUNC(m, func));
  if (!r->g) {
    tl_free(r);
    return NULL;
  }
  r->split_budget = 64;
  return r;
}

/* run(call) in a scope on r's module; out of memory leaves the call's
 * failure value (set before) and keeps r's graph off the ledger. */
static void in_scope(tl_relooper *r, void (*run)(void *call), void *call) {
  tl_oom_frame f;
  if (!tl_oom_enter(&f, r->g->m)) {
    run(call);
    return;
  }
  if (!setjmp(f.jb)) {
    run(call);
    tl_oom_leave(&f, false);
    return;
  }
  tl_cfg_keep(r->g);
  tl_oom_leave(&f, true);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_relooper *out;
} create_call;

static tl_status create_run(void *c, tl_error *err) {
  create_call *k = c;
  k->out = create_impl(k->m, k->func);
  return k->out ? TL_OK : tl_nomem(err, "relooper");
}

tl_relooper *tl_relooper_create(tl_module *m, uint32_t func) {
  if (!m || func >= m->funcs.n || func < m->nimported_funcs) return NULL;
  create_call k = {m, func, NULL};
  tl_error err;
  return tl_oom_run(m, create_run, &k, &err, "relooper") == TL_OK ? k.out : NULL;
}

static bool usable(const tl_relooper *r, tl_rblock b) {
  return r && !r->rendered && b < r->g->blocks.n;
}

static tl_rblock relooper_add_block_impl(tl_relooper *r, tl_expr_ref code) {
  if (!r || r->rendered) return TL_RBLOCK_INVALID;
  return tl_cfg_add_block(r->g, code, NULL);
}

typedef struct {
  tl_relooper *r;
  tl_expr_ref code;
  tl_rblock out;
} relooper_add_block_call;

static void relooper_add_block_run(void *c) {
  relooper_add_block_call *k = c;
  k->out = relooper_add_block_impl(k->r, k->code);
}

tl_rblock tl_relooper_add_block(tl_relooper *r, tl_expr_ref code) {
  relooper_add_block_call k = {r, code, TL_RBLOCK_INVALID};
  if (r) in_scope(r, relooper_add_block_run, &k);
  else relooper_add_block_run(&k);
  return k.out;
}

static tl_rblock relooper_add_block_with_switch_impl(tl_relooper *r, tl_expr_ref code, tl_expr_ref condition) {
  if (!r || r->rendered || !condition || condition->type != TL_I32) return TL_RBLOCK_INVALID;
  return tl_cfg_add_block(r->g, code, condition);
}

typedef struct {
  tl_relooper *r;
  tl_expr_ref code;
  tl_expr_ref condition;
  tl_rblock out;
} relooper_add_block_with_switch_call;

static void relooper_add_block_with_switch_run(void *c) {
  relooper_add_block_with_switch_call *k = c;
  k->out = relooper_add_block_with_switch_impl(k->r, k->code, k->condition);
}

tl_rblock tl_relooper_add_block_with_switch(tl_relooper *r, tl_expr_ref code, tl_expr_ref condition) {
  relooper_add_block_with_switch_call k = {r, code, condition, TL_RBLOCK_INVALID};
  if (r) in_scope(r, relooper_add_block_with_switch_run, &k);
  else relooper_add_block_with_switch_run(&k);
  return k.out;
}

static tl_status relooper_add_branch_impl(tl_relooper *r, tl_rblock from, tl_rblock to, tl_expr_ref condition,
                                 tl_expr_ref code) {
  if (!usable(r, from) || !usable(r, to)) return TL_E_INVALID;
  tl_cfg_block *b = &TL_VEC_AT(&r->g->blocks, tl_cfg_block, from);
  if (b->switch_on || (condition && condition->type != TL_I32 && condition->type != TL_UNREACHABLE))
    return TL_E_INVALID;
  tl_cfg_add_branch(r->g, from, to, condition, code);
  return TL_OK;
}

typedef struct {
  tl_relooper *r;
  tl_rblock from;
  tl_rblock to;
  tl_expr_ref condition;
  tl_expr_ref code;
  tl_status out;
} relooper_add_branch_call;

static void relooper_add_branch_run(void *c) {
  relooper_add_branch_call *k = c;
  k->out = relooper_add_branch_impl(k->r, k->from, k->to, k->condition, k->code);
}

tl_status tl_relooper_add_branch(tl_relooper *r, tl_rblock from, tl_rblock to, tl_expr_ref condition,
                                 tl_expr_ref code) {
  relooper_add_branch_call k = {r, from, to, condition, code, TL_E_NOMEM};
  if (r) in_scope(r, relooper_add_branch_run, &k);
  else relooper_add_branch_run(&k);
  return k.out;
}

static tl_status relooper_add_branch_for_switch_impl(tl_relooper *r, tl_rblock from, tl_rblock to,
                                            const uint32_t *indexes, uint32_t n, tl_expr_ref code) {
  if (!usable(r, from) || !usable(r, to)) return TL_E_INVALID;
  if (!TL_VEC_AT(&r->g->blocks, tl_cfg_block, from).switch_on) return TL_E_INVALID;
  tl_cfg_add_switch_branch(r->g, from, to, n ? indexes : NULL, n, code);
  return TL_OK;
}

typedef struct {
  tl_relooper *r;
  tl_rblock from;
  tl_rblock to;
  const uint32_t *indexes;
  uint32_t n;
  tl_expr_ref code;
  tl_status out;
} relooper_add_branch_for_switch_call;

static void relooper_add_branch_for_switch_run(void *c) {
  relooper_add_branch_for_switch_call *k = c;
  k->out = relooper_add_branch_for_switch_impl(k->r, k->from, k->to, k->indexes, k->n, k->code);
}

tl_status tl_relooper_add_branch_for_switch(tl_relooper *r, tl_rblock from, tl_rblock to,
                                            const uint32_t *indexes, uint32_t n, tl_expr_ref code) {
  relooper_add_branch_for_switch_call k = {r, from, to, indexes, n, code, TL_E_NOMEM};
  if (r) in_scope(r, relooper_add_branch_for_switch_run, &k);
  else relooper_add_branch_for_switch_run(&k);
  return k.out;
}

void tl_relooper_set_split_budget(tl_relooper *r, uint64_t nodes) {
  if (r) r->split_budget = nodes;
}

static tl_expr_ref relooper_render_impl(tl_relooper *r, tl_rblock entry, uint32_t label_local) {
  if (!usable(r, entry)) return NULL;
  r->rendered = true;
  if (label_local != UINT32_MAX) {
    tl_func *f = r->g->f;
    if (label_local >= f->nlocal || f->local[label_local] != TL_I32) return NULL;
    r->g->label_local = label_local;
  }
  tl_cfg_options opt = {r->split_budget};
  return tl_cfg_structure(r->g, entry, &opt);
}

typedef struct {
  tl_relooper *r;
  tl_rblock entry;
  uint32_t label_local;
  tl_expr_ref out;
} relooper_render_call;

static void relooper_render_run(void *c) {
  relooper_render_call *k = c;
  k->out = relooper_render_impl(k->r, k->entry, k->label_local);
}

tl_expr_ref tl_relooper_render(tl_relooper *r, tl_rblock entry, uint32_t label_local) {
  relooper_render_call k = {r, entry, label_local, NULL};
  if (r) in_scope(r, relooper_render_run, &k);
  else relooper_render_run(&k);
  return k.out;
}

void tl_relooper_stats(const tl_relooper *r, uint64_t *dispatches, uint64_t *label_sets,
                       uint64_t *split_blocks) {
  if (dispatches) *dispatches = r ? r->g->stats.dispatches : 0;
  if (label_sets) *label_sets = r ? r->g->stats.label_sets : 0;
  if (split_blocks) *split_blocks = r ? r->g->stats.split_blocks : 0;
}

void tl_relooper_dispose(tl_relooper *r) {
  if (!r) return;
  tl_cfg_free(r->g);
  tl_free(r);
}

tl_expr_ref tl_relooper_render_and_dispose(tl_relooper *r, tl_rblock entry, uint32_t label_local) {
  tl_expr_ref e = tl_relooper_render(r, entry, label_local);
  tl_relooper_dispose(r);
  return e;
}
