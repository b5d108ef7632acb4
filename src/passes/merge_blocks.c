/* merge_blocks.c — flatten nested blocks: an unlabeled block inside a
 * block's list is spliced into that list; a block that is the first operand
 * of an instruction is hoisted so the instruction applies to its value:
 * (i32.add (block (stmt) (v)) x) => (block (stmt) (i32.add (v) x)).
 * Assumes: valid IR. Labels nothing branches to are treated as absent.
 * Guarantees: evaluation order unchanged (only first operands are hoisted,
 * so nothing is reordered); types recomputed where blocks change. */
#include "passes.h"

/* Drops labels nothing branches to, so such blocks merge too. */
static void unlabel_visit(tl_walk *w, tl_expr **slot) {
  tl_label_info *li = w->ctx;
  tl_expr *e = *slot;
  if ((tl_ops[e->op].flags & TL_F_CONTROL) && e->imm.block.label != TL_NO_LABEL &&
      !li->count[e->imm.block.label])
    e->imm.block.label = TL_NO_LABEL;
}

static bool splice_ok(const tl_expr *parent, const tl_expr *k, bool last) {
  if (k->op != TL_OP_BLOCK || k->imm.block.label != TL_NO_LABEL) return false;
  if (last) return k->type == parent->type || k->type == TL_UNREACHABLE;
  return k->type == TL_NONE || k->type == TL_UNREACHABLE;
}

static void splice_list(tl_walk *w, tl_expr *e) {
  uint32_t total = 0;
  bool any = false;
  for (uint32_t i = 0; i < e->nkid; i++) {
    bool ok = splice_ok(e, e->kid[i], i + 1 == e->nkid);
    any |= ok;
    total += ok ? e->kid[i]->nkid : 1;
  }
  if (!any) return;
  tl_expr **kid = TL_NEWN(&w->m->arena, tl_expr *, total ? total : 1);
  uint32_t out = 0;
  for (uint32_t i = 0; i < e->nkid; i++) {
    tl_expr *k = e->kid[i];
    if (splice_ok(e, k, i + 1 == e->nkid))
      for (uint32_t j = 0; j < k->nkid; j++) kid[out++] = k->kid[j];
    else
      kid[out++] = k;
  }
  e->kid = kid;
  e->nkid = e->cap = out;
}

/* (op (block s... v) rest...) => (block s... (op v rest...)) */
static void hoist_first_operand(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->nkid == 0 || (tl_ops[e->op].flags & TL_F_CONTROL)) return;
  tl_expr *b = e->kid[0];
  if (!b || b->op != TL_OP_BLOCK || b->imm.block.label != TL_NO_LABEL || b->nkid < 2) return;
  if (!tl_type_is_concrete(b->type)) return;
  e->kid[0] = b->kid[b->nkid - 1];
  tl_expr_finalize(w->m, w->f, e);
  b->kid[b->nkid - 1] = e;
  tl_block_finalize(w->m, b, TL_UNREACHABLE);
  *slot = b;
}

static void merge_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) {
    splice_list(w, e);
    return;
  }
  hoist_first_operand(w, slot);
}

tl_status tl_pass_merge_blocks(tl_pass_ctx *ctx, tl_func *f) {
  tl_label_info li;
  tl_labels_count(ctx->m, f, &li);
  tl_walk_post(ctx->m, f, &f->body, unlabel_visit, &li);
  tl_labels_free(&li);
  tl_walk_post(ctx->m, f, &f->body, merge_visit, NULL);
  return TL_OK;
}
