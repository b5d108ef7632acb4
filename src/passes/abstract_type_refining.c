/* abstract_type_refining.c — abstract-type-refining (closed world): a
 * private struct or array type that nothing creates, itself or through a
 * subtype (no struct.new* / array.new* in code, global inits or segments;
 * public types count as created), holds nothing but null, so every use of
 * it becomes the bottom type none (the type rewriter applies it): a cast
 * or test to it then admits only null, as it did. A field or element
 * access through it always finds null: it becomes its operands' effects,
 * in order, then the null trap (ref.as_non_null of a null), so it traps
 * the same way. Casts to a never-created type with one created subtype
 * stay (Binaryen refines them only under traps-never-happen). */
#include "passes.h"

typedef struct {
  tl_module *m;
  tl_type_rewrite *rw;
  uint8_t *live;     /* per canonical type: it or a subtype is created */
} atr_ctx;

/* The type index an allocation names, TL_NO_INDEX if e is none. */
static uint32_t created_type(const tl_expr *e) {
  if (!(tl_ops[e->op].flags & TL_F_GC_ALLOC)) return TL_NO_INDEX;
  return tl_ops[e->op].imm == TL_IMM_TYPE ? e->imm.index : e->imm.idx2.a;
}

/* Marks c and its supertypes live (stops at one already marked). */
static void mark_live(atr_ctx *c, uint32_t t) {
  for (t = c->rw->canon[t]; !c->live[t]; t = c->rw->def[t].super) {
    c->live[t] = 1;
    if (c->rw->def[t].super == TL_NO_SUPER) break;
  }
}

static void scan_visit(tl_walk *w, tl_expr **slot) {
  atr_ctx *c = w->ctx;
  uint32_t t = created_type(*slot);
  if (t != TL_NO_INDEX && t < c->rw->n) mark_live(c, t);
}

/* Maps each private struct or array type nothing live reaches to none;
 * whether any. */
static bool decide(atr_ctx *c) {
  tl_type_rewrite *rw = c->rw;
  bool any = false;
  for (uint32_t i = 0; i < rw->n; i++)
    if (rw->pub[i]) mark_live(c, i);
  for (uint32_t i = 0; i < rw->n; i++) {
    if (rw->canon[i] != i || rw->pub[i] || c->live[i] || rw->def[i].kind == TL_DT_FUNC) continue;
    rw->map[i] = TL_HT_NONE;
    any = true;
  }
  return any;
}

/* ---- accesses through a type that goes ------------------------------- */
static bool goes(const atr_ctx *c, uint32_t idx) {
  return idx < c->rw->n && c->rw->map[c->rw->canon[idx]] != TL_NO_INDEX;
}

/* Whether e reads or writes a field or element of a type that goes. */
static bool is_dead_access(const atr_ctx *c, const tl_expr *e) {
  switch (e->op) {
  case TL_OP_STRUCT_GET: case TL_OP_STRUCT_GET_S: case TL_OP_STRUCT_GET_U: case TL_OP_STRUCT_SET:
  case TL_OP_ARRAY_INIT_DATA: case TL_OP_ARRAY_INIT_ELEM:
    return goes(c, e->imm.idx2.a);
  case TL_OP_ARRAY_GET: case TL_OP_ARRAY_GET_S: case TL_OP_ARRAY_GET_U: case TL_OP_ARRAY_SET:
  case TL_OP_ARRAY_FILL:
    return goes(c, e->imm.index);
  case TL_OP_ARRAY_COPY: return goes(c, e->imm.idx2.a) || goes(c, e->imm.idx2.b);
  default: return false;
  }
}

static bool removable(tl_module *m, tl_func *f, tl_expr *e) {
  tl_effects fx;
  tl_effects_of(m, f, e, &fx);
  return tl_effects_removable(&fx);
}

/* The null reference an access through a type that goes always finds
 * (for array.copy, whichever of its references names one), checked after
 * the operands ran: (drop (ref.as_non_null ref)) when the others are
 * free of effects, else their drops then a check of a fresh null; then
 * unreachable. */
static tl_expr *null_trap(tl_module *m, tl_func *f, tl_expr *e) {
  uint32_t n = e->nkid, k = 0;
  bool rest_pure = e->op != TL_OP_ARRAY_COPY;
  for (uint32_t i = 1; i < n && rest_pure; i++) rest_pure = removable(m, f, e->kid[i]);
  tl_expr *kids[8]; /* at most 5 operands (array.copy) */
  if (rest_pure) {
    kids[k++] = tl_make_drop(m, tl_make_unary(m, TL_OP_REF_AS_NON_NULL, e->kid[0]));
  } else {
    for (uint32_t i = 0; i < n; i++) kids[k++] = tl_make_drop(m, e->kid[i]);
    tl_expr *null = tl_make_zero(m, tl_ref(TL_HT_NONE, true));
    kids[k++] = tl_make_drop(m, tl_make_unary(m, TL_OP_REF_AS_NON_NULL, null));
  }
  kids[k++] = tl_make_unreachable(m);
  return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, kids, k);
}

static void fix_visit(tl_walk *w, tl_expr **slot) {
  atr_ctx *c = w->ctx;
  if (w->f && is_dead_access(c, *slot)) *slot = null_trap(c->m, w->f, *slot);
}

static tl_status refine(tl_pass_ctx *ctx, tl_type_rewrite *rw) {
  atr_ctx c = {ctx->m, rw, TL_NEWN(&rw->arena, uint8_t, rw->n)};
  tl_walk_module(ctx->m, scan_visit, &c);
  if (!decide(&c)) return TL_OK;
  tl_walk_module(ctx->m, fix_visit, &c);
  return tl_type_rewrite_apply(ctx->m, rw, ctx->err);
}

tl_status tl_pass_abstract_type_refining(tl_pass_ctx *ctx) { return tl_type_pass_run(ctx, false, refine); }
