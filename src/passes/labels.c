/* labels.c — per-function branch facts shared by the control-flow passes:
 * how many branches target each label and the type they carry, and
 * retargeting every branch through a label map in one walk. Both run their
 * own loops over the body (no tl_walk visitor call per node). */
#include "passes.h"

#include <stdlib.h>

static void count_one(tl_label_info *li, uint32_t l, tl_type t) {
  li->count[l]++;
  li->type[l] = tl_type_lub(li->type[l], t);
}

static void count_node(tl_label_info *li, const tl_expr *e) {
  tl_type t = tl_branch_value_type(e);
  if (e->op != TL_OP_BR_TABLE) {
    count_one(li, e->imm.label, t);
    return;
  }
  for (uint32_t i = 0; i < e->imm.table.n; i++) count_one(li, e->imm.table.targets[i], t);
  count_one(li, e->imm.table.def, t);
}

typedef struct { const tl_expr *e; uint32_t next; } frame;
enum { SMALL = 128 };

static frame *grow(frame *st, frame *small, size_t *cap) {
  frame *p = st == small ? malloc(*cap * 2 * sizeof *p) : realloc(st, *cap * 2 * sizeof *p);
  if (!p) abort();
  if (st == small)
    for (size_t i = 0; i < *cap; i++) p[i] = small[i];
  *cap *= 2;
  return p;
}

/* Post-order over the body (branches are counted in the order a post-order
 * walk meets them), without visitor calls; leaves get no frame. */
void tl_labels_count(tl_module *m, tl_func *f, tl_label_info *li) {
  (void)m;
  li->n = f->nlabel;
  li->count = calloc(f->nlabel + 1, sizeof *li->count);
  li->type = malloc((f->nlabel + 1) * sizeof *li->type);
  if (!li->count || !li->type) abort();
  for (uint32_t i = 0; i <= f->nlabel; i++) li->type[i] = TL_UNREACHABLE;
  if (!f->body) return;
  frame small[SMALL], *st = small;
  size_t n = 0, cap = SMALL;
  st[n++] = (frame){f->body, 0};
  while (n) {
    frame *top = &st[n - 1];
    const tl_expr *e = top->e;
    if (top->next < e->nkid) {
      const tl_expr *k = e->kid[top->next++];
      if (!k) continue;
      if (k->nkid) {
        if (n == cap) st = grow(st, small, &cap);
        st[n++] = (frame){k, 0};
      } else if (tl_ops[k->op].flags & TL_F_BRANCH) {
        count_node(li, k);
      }
      continue;
    }
    n--;
    if (tl_ops[e->op].flags & TL_F_BRANCH) count_node(li, e);
  }
  if (st != small) free(st);
}

void tl_labels_free(tl_label_info *li) {
  free(li->count);
  free(li->type);
}

static uint32_t follow(const uint32_t *map, uint32_t l) {
  while (map[l] != l) l = map[l];
  return l;
}

static void retarget_node(const uint32_t *map, tl_expr *e) {
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF) {
    e->imm.label = follow(map, e->imm.label);
  } else if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table.n; i++)
      e->imm.table.targets[i] = follow(map, e->imm.table.targets[i]);
    e->imm.table.def = follow(map, e->imm.table.def);
  }
}

/* Every node once, in any order (a stack of nodes, no visitor calls). */
void tl_labels_retarget(tl_module *m, tl_func *f, const uint32_t *map) {
  (void)m;
  if (!f->body) return;
  tl_expr *small[SMALL], **st = small;
  size_t n = 0, cap = SMALL;
  st[n++] = f->body;
  while (n) {
    tl_expr *e = st[--n];
    if (tl_ops[e->op].flags & TL_F_BRANCH) retarget_node(map, e);
    for (uint32_t i = 0; i < e->nkid; i++) {
      tl_expr *k = e->kid[i];
      if (!k) continue;
      if (!k->nkid) {
        if (tl_ops[k->op].flags & TL_F_BRANCH) retarget_node(map, k);
        continue;
      }
      if (n == cap) {
        tl_expr **p = st == small ? malloc(cap * 2 * sizeof *p) : realloc(st, cap * 2 * sizeof *p);
        if (!p) abort();
        if (st == small)
          for (size_t j = 0; j < cap; j++) p[j] = small[j];
        st = p;
        cap *= 2;
      }
      st[n++] = k;
    }
  }
  if (st != small) free(st);
}
