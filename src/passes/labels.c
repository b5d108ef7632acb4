/* labels.c — per-function branch facts shared by the control-flow passes:
 * how many branches target each label and the type they carry, and
 * retargeting every branch through a label map in one walk. */
#include "passes.h"

#include <stdlib.h>

static void count_one(tl_label_info *li, uint32_t l, tl_type t) {
  li->count[l]++;
  li->type[l] = tl_type_lub(li->type[l], t);
}

static void count_visit(tl_walk *w, tl_expr **slot) {
  tl_label_info *li = w->ctx;
  tl_expr *e = *slot;
  if (!(tl_ops[e->op].flags & TL_F_BRANCH)) return;
  tl_type t = tl_branch_value_type(e);
  if (e->op != TL_OP_BR_TABLE) {
    count_one(li, e->imm.label, t);
    return;
  }
  for (uint32_t i = 0; i < e->imm.table.n; i++) count_one(li, e->imm.table.targets[i], t);
  count_one(li, e->imm.table.def, t);
}

void tl_labels_count(tl_module *m, tl_func *f, tl_label_info *li) {
  li->n = f->nlabel;
  li->count = calloc(f->nlabel + 1, sizeof *li->count);
  li->type = malloc((f->nlabel + 1) * sizeof *li->type);
  if (!li->count || !li->type) abort();
  for (uint32_t i = 0; i <= f->nlabel; i++) li->type[i] = TL_UNREACHABLE;
  if (f->body) tl_walk_post(m, f, &f->body, count_visit, li);
}

void tl_labels_free(tl_label_info *li) {
  free(li->count);
  free(li->type);
}

static uint32_t follow(const uint32_t *map, uint32_t l) {
  while (map[l] != l) l = map[l];
  return l;
}

static void retarget_visit(tl_walk *w, tl_expr **slot) {
  const uint32_t *map = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF) {
    e->imm.label = follow(map, e->imm.label);
  } else if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table.n; i++)
      e->imm.table.targets[i] = follow(map, e->imm.table.targets[i]);
    e->imm.table.def = follow(map, e->imm.table.def);
  }
}

void tl_labels_retarget(tl_module *m, tl_func *f, const uint32_t *map) {
  if (f->body) tl_walk_post(m, f, &f->body, retarget_visit, (void *)map);
}
