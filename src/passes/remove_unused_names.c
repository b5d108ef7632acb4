/* remove_unused_names.c — drop labels nothing branches to, and merge the
 * labels of nested blocks that end together: in (block $a ... (block $b
 * ...)) where the inner block is last and has the same type, a branch to $b
 * lands where a branch to $a would, so $b's branches go to $a.
 * Exception handling: try_table clauses are branches; delegate and rethrow
 * keep the labels they name (a rethrow's is a try's, never merged).
 * Assumes: valid IR. Guarantees: same behaviour. A label moves only
 * between blocks of equal type, so the outer block keeps its type; the
 * inner one may become unreachable-typed (its content never falls off), and
 * only those inner blocks are retyped. One walk counts and merges and lists
 * the branches and labeled constructs; retargeting and dropping then go
 * over that list, not the whole body. */
#include "passes.h"

#include <stddef.h>
#include <stdlib.h>

_Static_assert(offsetof(tl_imm, label) == offsetof(tl_imm, idx2.a), "a clause's label is imm.label");

typedef struct { tl_expr *e; uint32_t next; } frame;


typedef struct {
  uint32_t *map;   /* label -> label its branches go to (chains allowed) */
  uint32_t *count; /* branches per label */
  tl_vec moved;    /* tl_expr *: inner blocks that lost their label */
  tl_vec touch;    /* tl_expr *: branches and labeled constructs, for retarget_drop */
} ctx;

/* The label l's branches end up at, compressing the path (merges of
 * nested blocks make chains as long as the nesting is deep). */
static uint32_t follow(uint32_t *map, uint32_t l) {
  uint32_t r = l;
  while (map[r] != r) r = map[r];
  while (l != r) {
    uint32_t next = map[l];
    map[l] = r;
    l = next;
  }
  return r;
}

/* Labels, branches and label uses only: most nodes are none of them (one
 * flag test inline). A try_table clause is a branch (imm.idx2.a, which is
 * imm.label); delegate and rethrow name a label without branching: their
 * labels must stay too. */
static inline void count_merge(ctx *c, tl_expr *a) {
  uint32_t fl = tl_ops[a->op].flags;
  if (!(fl & (TL_F_BRANCH | TL_F_CONTROL | TL_F_LABEL_USE))) return;
  if (fl & (TL_F_BRANCH | TL_F_LABEL_USE)) {
    TL_VEC_PUSH(&c->touch, tl_expr *, a);
    if (a->op != TL_OP_BR_TABLE) {
      c->count[a->imm.label]++;
      return;
    }
    for (uint32_t i = 0; i < a->imm.table->n; i++) c->count[a->imm.table->targets[i]]++;
    c->count[a->imm.table->def]++;
    return;
  }
  /* a's label is final once a is seen (only its parent takes it away) */
  if (a->op == TL_OP_BLOCK && a->nkid) {
    tl_expr *b = a->kid[a->nkid - 1];
    if (b->op == TL_OP_BLOCK && b->imm.block.label != TL_NO_LABEL && b->type == a->type) {
      if (a->imm.block.label == TL_NO_LABEL) a->imm.block.label = b->imm.block.label;
      else c->map[b->imm.block.label] = a->imm.block.label;
      b->imm.block.label = TL_NO_LABEL;
      TL_VEC_PUSH(&c->moved, tl_expr *, b);
    }
  }
  if (a->imm.block.label != TL_NO_LABEL) TL_VEC_PUSH(&c->touch, tl_expr *, a);
}

static void retarget_drop(ctx *c, tl_expr *e) {
  uint32_t fl = tl_ops[e->op].flags;
  if (fl & TL_F_CONTROL) {
    if (e->imm.block.label != TL_NO_LABEL && c->count[e->imm.block.label] == 0)
      e->imm.block.label = TL_NO_LABEL;
  } else if (e->op != TL_OP_BR_TABLE) { /* br, br_if, clauses, delegate, rethrow */
    e->imm.label = follow(c->map, e->imm.label);
  } else {
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      e->imm.table->targets[i] = follow(c->map, e->imm.table->targets[i]);
    e->imm.table->def = follow(c->map, e->imm.table->def);
  }
}

/* Iterative post-order over f's body calling count_merge on each node.
 * Out of memory stops it early (false): every node visited so far had its
 * whole subtree visited first, so the merges made so far have all their
 * branches listed and finishing over the partial lists stays valid. */
static bool post_order(tl_func *f, ctx *c) {
  size_t n = 0, cap = 64;
  frame *st = tl_scratch_realloc(NULL, cap, sizeof *st);
  if (!st) return false;
  tl_expr *e = f->body; /* the node whose kids are walked: st[n - 1] */
  uint32_t k = 0;
  st[n++] = (frame){e, 0};
  for (;;) {
    while (k < e->nkid) {
      tl_expr *x = e->kid[k++];
      if (!x) continue;
      if (!x->nkid) {
        count_merge(c, x);
        continue;
      }
      st[n - 1].next = k;
      if (n == cap) {
        frame *q = tl_scratch_realloc(st, cap * 2, sizeof *st);
        if (!q) {
          tl_free(st);
          return false;
        }
        st = q;
        cap *= 2;
      }
      st[n++] = (frame){x, 0};
      e = x;
      k = 0;
    }
    count_merge(c, e);
    if (!--n) break;
    e = st[n - 1].e;
    k = st[n - 1].next;
  }
  tl_free(st);
  return true;
}

tl_status tl_pass_remove_unused_names(tl_pass_ctx *pc, tl_func *f) {
  if (!f->body) return TL_OK;
  ctx c = {tl_scratch_realloc(NULL, (size_t)f->nlabel + 1, sizeof(uint32_t)),
           tl_scratch_calloc((size_t)f->nlabel + 1, sizeof(uint32_t)), {0}, {0}};
  if (!c.map || !c.count) {
    tl_free(c.map);
    tl_free(c.count);
    return tl_nomem(pc->err, "remove-unused-names");
  }
  for (uint32_t i = 0; i <= f->nlabel; i++) c.map[i] = i;
  bool walked = post_order(f, &c);
  /* a merged label's branches count for the label they now go to */
  for (uint32_t i = 0; i < f->nlabel; i++)
    if (c.map[i] != i && c.count[i]) c.count[follow(c.map, i)] += c.count[i];
  for (size_t i = 0; i < c.touch.n; i++) retarget_drop(&c, TL_VEC_AT(&c.touch, tl_expr *, i));
  tl_vec_free(&c.touch);
  /* innermost first: a retyped block may be the last child of another */
  for (size_t i = 0; i < c.moved.n; i++) tl_block_finalize(pc->m, TL_VEC_AT(&c.moved, tl_expr *, i), TL_UNREACHABLE);
  tl_vec_free(&c.moved);
  tl_free(c.map);
  tl_free(c.count);
  return walked ? TL_OK : tl_nomem(pc->err, "remove-unused-names");
}
