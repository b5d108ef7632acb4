/* merge_blocks.c — flatten nested blocks: an unlabeled block inside a
 * block's list is spliced into that list; a block that is the first operand
 * of an instruction is hoisted so the instruction applies to its value:
 * (i32.add (block (stmt) (v)) x) => (block (stmt) (i32.add (v) x)).
 * Assumes: valid IR. Labels nothing branches to are dropped (one walk:
 * branches are counted as it goes, and reach a construct before it does).
 * Exception handling: labels delegate, rethrow and try_table clauses name
 * stay; catch arms are never hoisted out of their try.
 * Guarantees: evaluation order unchanged (only first operands are hoisted,
 * so nothing is reordered); types recomputed where blocks change. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

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
  e->nkid = out, e->kcap = 0;
}

/* (op (block s... v) rest...) => (block s... (op v rest...)) */
static void hoist_first_operand(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->nkid == 0 || (tl_ops[e->op].flags & TL_F_CONTROL) || e->op == TL_OP_CATCH || e->op == TL_OP_CATCH_ALL)
    return; /* a catch arm is its try's, not an instruction with operands */
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
 * the block's value. One post-order walk: a branch is seen (and its value
 * judged) before the blocks around it, so each label's sites are gathered
 * as the walk goes and the dropped block is decided in O(its sites). */
typedef struct {
  tl_expr *site;   /* the br, or the drop around the br_if */
  uint32_t next;   /* next site of the same label, or UINT32_MAX */
} site;

typedef struct {
  uint32_t *nbr;   /* label -> branches seen (all of them once its construct is reached) */
  uint32_t *first; /* label -> first site index, or UINT32_MAX */
  uint32_t *brifs; /* label -> br_ifs seen minus dropped ones seen */
  bool *bad;       /* label -> a branch that keeps the value */
  tl_vec sites;    /* site */
} merge_ctx;

static bool removable_value(tl_walk *w, tl_expr *v) {
  tl_effects fx;
  tl_effects_of(w->m, w->f, v, &fx);
  return tl_effects_removable(&fx);
}

static void add_site(merge_ctx *c, uint32_t l, tl_expr *e) {
  site s = {e, c->first[l]};
  c->first[l] = (uint32_t)c->sites.n;
  TL_VEC_PUSH(&c->sites, site, s);
}

/* A dropped br_if (its value judged when the br_if was seen). */
static void note_dropped(merge_ctx *c, tl_expr *drop) {
  tl_expr *b = drop->kid[0];
  if (b->op != TL_OP_BR_IF || b->nkid != 2) return;
  c->brifs[b->imm.label]--;
  add_site(c, b->imm.label, drop);
}

static void note_branch(tl_walk *w, merge_ctx *c, tl_expr *e) {
  if (!(tl_ops[e->op].flags & TL_F_BRANCH) || (e->op != TL_OP_BR && e->op != TL_OP_BR_IF && e->op != TL_OP_BR_TABLE)) {
    c->nbr[e->imm.label]++; /* delegate, rethrow, try_table clauses: the label stays as it is */
    c->bad[e->imm.label] = true;
    return;
  }
  if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i <= e->imm.table->n; i++) {
      uint32_t l = i < e->imm.table->n ? e->imm.table->targets[i] : e->imm.table->def;
      c->bad[l] = true;
      c->nbr[l]++;
    }
    return;
  }
  uint32_t l = e->imm.label;
  c->nbr[l]++;
  if (e->op == TL_OP_BR_IF) c->brifs[l]++;
  if (c->bad[l]) return;
  if (e->nkid != (e->op == TL_OP_BR ? 1u : 2u) || !removable_value(w, e->kid[0])) c->bad[l] = true;
  else if (e->op == TL_OP_BR) add_site(c, l, e);
}

static void optimize_dropped_block(tl_walk *w, merge_ctx *c, tl_expr **slot) {
  tl_expr *drop = *slot, *b = drop->kid[0];
  if (b->op != TL_OP_BLOCK || b->imm.block.label == TL_NO_LABEL || b->nkid == 0 ||
      !tl_type_is_concrete(b->type) || tl_type_is_tuple(b->type))
    return;
  uint32_t l = b->imm.block.label;
  if (c->bad[l] || c->brifs[l]) return;
  for (uint32_t i = c->first[l]; i != UINT32_MAX; i = TL_VEC_AT(&c->sites, site, i).next) {
    tl_expr *s = TL_VEC_AT(&c->sites, site, i).site;
    if (s->op == TL_OP_BR) {
      s->nkid = 0; /* its value was removable */
      continue;
    }
    tl_expr *br_if = s->kid[0]; /* the drop becomes the value-less br_if */
    br_if->kid[0] = br_if->kid[1];
    br_if->nkid = 1;
    tl_expr_finalize(w->m, w->f, br_if); /* none, or unreachable with its condition */
    *s = *br_if;
  }
  c->first[l] = UINT32_MAX;
  tl_expr *last = b->kid[b->nkid - 1];
  if (tl_type_is_concrete(last->type)) {
    b->kid[b->nkid - 1] = tl_make_drop(w->m, last);
    note_dropped(c, b->kid[b->nkid - 1]);
  }
  tl_block_finalize(w->m, b, TL_NONE);
  *slot = b;
}

__attribute__((noinline)) static void merge_node(tl_walk *w, tl_expr **slot) {
  merge_ctx *c = w->ctx;
  tl_expr *e = *slot;
  uint32_t fl = tl_ops[e->op].flags;
  /* a label nothing branches to is dropped, so its block merges too (every
   * branch to it is inside it, so already counted) */
  if ((fl & TL_F_CONTROL) && e->imm.block.label != TL_NO_LABEL && !c->nbr[e->imm.block.label])
    e->imm.block.label = TL_NO_LABEL;
  if (fl & (TL_F_BRANCH | TL_F_LABEL_USE)) note_branch(w, c, e);
  if (e->op == TL_OP_DROP) optimize_dropped_block(w, c, slot);
  tl_expr *d = e->op == TL_OP_DROP && *slot == e ? e : NULL; /* still a drop */
  e = *slot;
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) {
    splice_list(w, e);
  } else {
    hoist_first_operand(w, slot);
  }
  if (d) note_dropped(c, d); /* after hoisting: (drop (block s (br_if))) drops the br_if */
}

/* A plain leaf has nothing to do (and costs no merge_node frame). */
static void merge_visit(tl_walk *w, tl_expr **slot) {
  const tl_expr *e = *slot;
  if (e->nkid || (tl_ops[e->op].flags & (TL_F_CONTROL | TL_F_BRANCH | TL_F_LABEL_USE))) merge_node(w, slot);
}

tl_status tl_pass_merge_blocks(tl_pass_ctx *ctx, tl_func *f) {
  uint32_t n = f->nlabel ? f->nlabel : 1;
  merge_ctx c = {tl_scratch_calloc(n, sizeof(uint32_t)), tl_scratch_realloc(NULL, n, sizeof(uint32_t)),
                 tl_scratch_calloc(n, sizeof(uint32_t)), tl_scratch_calloc(n, sizeof(bool)), {0}};
  if (!c.nbr || !c.first || !c.brifs || !c.bad) {
    tl_free(c.nbr), tl_free(c.first), tl_free(c.brifs), tl_free(c.bad);
    return tl_nomem(ctx->err, "merge-blocks");
  }
  memset(c.first, 0xff, n * sizeof(uint32_t));
  tl_walk_post(ctx->m, f, &f->body, merge_visit, &c);
  tl_free(c.nbr), tl_free(c.first), tl_free(c.brifs), tl_free(c.bad);
  tl_vec_free(&c.sites);
  return TL_OK;
}
