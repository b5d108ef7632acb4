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

/* (drop (block $l (result t) ... (br $l V) ... (drop (br_if $l W C)) ... X))
 * => (block $l ... (br $l) ... (br_if $l C) ... (drop X)) when every branch
 * to $l is such a br or dropped br_if with a removable value: nothing reads
 * the block's value. */
typedef struct {
  uint32_t label;
  bool ok;
  tl_vec sites;    /* tl_expr *: the br, or the drop around the br_if */
} dropped;

static void dropped_visit(tl_walk *w, tl_expr **slot) {
  dropped *d = w->ctx;
  tl_expr *e = *slot;
  const tl_opinfo *oi = &tl_ops[e->op];
  if (!d->ok || !(oi->flags & TL_F_BRANCH)) return;
  if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table.n; i++)
      if (e->imm.table.targets[i] == d->label) d->ok = false;
    if (e->imm.table.def == d->label) d->ok = false;
    return;
  }
  if ((e->op != TL_OP_BR && e->op != TL_OP_BR_IF) || e->imm.label != d->label) return;
  if (e->op == TL_OP_BR && e->nkid != 1) {
    d->ok = false;
    return;
  }
  tl_effects fx;
  tl_effects_of(w->m, w->f, e->kid[0], &fx);
  if (!tl_effects_removable(&fx)) d->ok = false;
  tl_expr *parent = e->op == TL_OP_BR ? e : tl_walk_parent(w, 1);
  if (e->op == TL_OP_BR_IF && (e->nkid != 2 || !parent || parent->op != TL_OP_DROP)) {
    d->ok = false;
    return;
  }
  TL_VEC_PUSH(&d->sites, tl_expr *, parent);
}

static void optimize_dropped_block(tl_walk *w, tl_expr **slot) {
  tl_expr *drop = *slot, *b = drop->kid[0];
  if (b->op != TL_OP_BLOCK || b->imm.block.label == TL_NO_LABEL || b->nkid == 0 ||
      !tl_type_is_concrete(b->type) || tl_type_is_tuple(b->type))
    return;
  dropped d = {b->imm.block.label, true, {0}};
  tl_walk_post(w->m, w->f, &b, dropped_visit, &d);
  if (d.ok) {
    for (size_t i = 0; i < d.sites.n; i++) {
      tl_expr *site = TL_VEC_AT(&d.sites, tl_expr *, i);
      if (site->op == TL_OP_BR) {
        site->nkid = 0;  /* its value was removable */
        continue;
      }
      tl_expr *br_if = site->kid[0]; /* the drop becomes the value-less br_if */
      br_if->kid[0] = br_if->kid[1];
      br_if->nkid = 1;
      br_if->type = TL_NONE;
      *site = *br_if;
    }
    tl_expr *last = b->kid[b->nkid - 1];
    if (tl_type_is_concrete(last->type)) b->kid[b->nkid - 1] = tl_make_drop(w->m, last);
    tl_block_finalize(w->m, b, TL_NONE);
    *slot = b;
  }
  tl_vec_free(&d.sites);
}

static void merge_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_DROP) optimize_dropped_block(w, slot);
  e = *slot;
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
