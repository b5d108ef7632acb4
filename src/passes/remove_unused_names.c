/* remove_unused_names.c — drop labels nothing branches to, and merge the
 * labels of nested blocks that end together: in (block $a ... (block $b
 * ...)) where the inner block is last and has the same type, a branch to $b
 * lands where a branch to $a would, so $b's branches go to $a.
 * Assumes: valid IR. Guarantees: same behaviour. A label moves only
 * between blocks of equal type; the inner block may then become
 * unreachable-typed (its content never falls off), so types are recomputed
 * once at the end. */
#include "passes.h"

#include <stdlib.h>

static void merge_visit(tl_walk *w, tl_expr **slot) {
  uint32_t *map = w->ctx;
  tl_expr *a = *slot;
  if (a->op != TL_OP_BLOCK || a->nkid == 0) return;
  tl_expr *b = a->kid[a->nkid - 1];
  if (b->op != TL_OP_BLOCK || b->imm.block.label == TL_NO_LABEL || b->type != a->type) return;
  if (a->imm.block.label == TL_NO_LABEL) a->imm.block.label = b->imm.block.label;
  else map[b->imm.block.label] = a->imm.block.label;
  b->imm.block.label = TL_NO_LABEL;
}

static void drop_visit(tl_walk *w, tl_expr **slot) {
  tl_label_info *li = w->ctx;
  tl_expr *e = *slot;
  if ((tl_ops[e->op].flags & TL_F_CONTROL) && e->imm.block.label != TL_NO_LABEL &&
      li->count[e->imm.block.label] == 0)
    e->imm.block.label = TL_NO_LABEL;
}

tl_status tl_pass_remove_unused_names(tl_pass_ctx *ctx, tl_func *f) {
  uint32_t *map = malloc((f->nlabel + 1) * sizeof *map);
  if (!map) abort();
  for (uint32_t i = 0; i <= f->nlabel; i++) map[i] = i;
  tl_walk_post(ctx->m, f, &f->body, merge_visit, map);
  tl_labels_retarget(ctx->m, f, map);
  free(map);
  tl_label_info li;
  tl_labels_count(ctx->m, f, &li);
  tl_walk_post(ctx->m, f, &f->body, drop_visit, &li);
  tl_labels_free(&li);
  tl_func_refinalize(ctx->m, f);
  return TL_OK;
}
