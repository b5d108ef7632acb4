/* relooper.c — the public Relooper API of tilt.h over src/ir/cfg.c. Bad
 * block ids and misuse are reported through return values; the graph is
 * checked before it is handed to the structurer. */
#include "ir/ir.h"

#include <stdlib.h>

struct tl_relooper {
  tl_cfg *g;
  uint64_t split_budget;
  bool rendered;
};

tl_relooper *tl_relooper_create(tl_module *m, uint32_t func) {
  if (!m || func >= m->funcs.n || func < m->nimported_funcs) return NULL;
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

static bool usable(const tl_relooper *r, tl_rblock b) {
  return r && !r->rendered && b < r->g->blocks.n;
}

tl_rblock tl_relooper_add_block(tl_relooper *r, tl_expr_ref code) {
  if (!r || r->rendered) return TL_RBLOCK_INVALID;
  return tl_cfg_add_block(r->g, code, NULL);
}

tl_rblock tl_relooper_add_block_with_switch(tl_relooper *r, tl_expr_ref code, tl_expr_ref condition) {
  if (!r || r->rendered || !condition || condition->type != TL_I32) return TL_RBLOCK_INVALID;
  return tl_cfg_add_block(r->g, code, condition);
}

tl_status tl_relooper_add_branch(tl_relooper *r, tl_rblock from, tl_rblock to, tl_expr_ref condition,
                                 tl_expr_ref code) {
  if (!usable(r, from) || !usable(r, to)) return TL_E_INVALID;
  tl_cfg_block *b = &TL_VEC_AT(&r->g->blocks, tl_cfg_block, from);
  if (b->switch_on || (condition && condition->type != TL_I32 && condition->type != TL_UNREACHABLE))
    return TL_E_INVALID;
  tl_cfg_add_branch(r->g, from, to, condition, code);
  return TL_OK;
}

tl_status tl_relooper_add_branch_for_switch(tl_relooper *r, tl_rblock from, tl_rblock to,
                                            const uint32_t *indexes, uint32_t n, tl_expr_ref code) {
  if (!usable(r, from) || !usable(r, to)) return TL_E_INVALID;
  if (!TL_VEC_AT(&r->g->blocks, tl_cfg_block, from).switch_on) return TL_E_INVALID;
  tl_cfg_add_switch_branch(r->g, from, to, n ? indexes : NULL, n, code);
  return TL_OK;
}

void tl_relooper_set_split_budget(tl_relooper *r, uint64_t nodes) {
  if (r) r->split_budget = nodes;
}

tl_expr_ref tl_relooper_render(tl_relooper *r, tl_rblock entry, uint32_t label_local) {
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
