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

enum { SMALL = 128 };

typedef struct {
  uintptr_t *p, small[SMALL];
  size_t n, cap;
  tl_module *m;
  tl_label_info *li; /* freed when out of memory (tl_labels_count's) */
} nstack;

/* Out of memory: what the walk holds is freed, then the module arena's
 * longjmp to the entry point (which aborts when none set one). */
static void push(nstack *s, uintptr_t x) {
  if (s->n == s->cap) {
    uintptr_t *q = s->p == s->small ? malloc(s->cap * 2 * sizeof *q) : realloc(s->p, s->cap * 2 * sizeof *q);
    if (!q) {
      if (s->p != s->small) free(s->p);
      if (s->li) tl_labels_free(s->li);
      tl_arena_oom(&s->m->arena);
    }
    if (s->p == s->small)
      for (size_t i = 0; i < s->cap; i++) q[i] = s->small[i];
    s->p = q;
    s->cap *= 2;
  }
  s->p[s->n++] = x;
}

/* Branches are counted in post-order (a branch nested in another's operands
 * first), as a post-order walk meets them: a pre-order stack of nodes,
 * where a branch with operands leaves a marker (low bit set) under its kids
 * and is counted when the marker comes off. Nodes are 8-aligned. */
void tl_labels_count(tl_module *m, tl_func *f, tl_label_info *li) {
  li->n = f->nlabel;
  li->count = calloc(f->nlabel + 1, sizeof *li->count);
  li->type = malloc((f->nlabel + 1) * sizeof *li->type);
  if (!li->count || !li->type) {
    free(li->count);
    free(li->type);
    li->count = NULL;
    li->type = NULL;
    tl_arena_oom(&m->arena); /* the entry point's longjmp (aborts if none) */
  }
  for (uint32_t i = 0; i <= f->nlabel; i++) li->type[i] = TL_UNREACHABLE;
  if (!f->body) return;
  nstack s;
  s.p = s.small, s.n = 0, s.cap = SMALL, s.m = m, s.li = li;
  push(&s, (uintptr_t)f->body);
  while (s.n) {
    uintptr_t x = s.p[--s.n];
    const tl_expr *e = (const tl_expr *)(x & ~(uintptr_t)1);
    if (x & 1) {
      count_node(li, e);
      continue;
    }
    if (tl_ops[e->op].flags & TL_F_BRANCH) {
      if (!e->nkid) {
        count_node(li, e);
        continue;
      }
      push(&s, x | 1);
    }
    for (uint32_t i = e->nkid; i-- > 0;)
      if (e->kid[i]) push(&s, (uintptr_t)e->kid[i]);
  }
  if (s.p != s.small) free(s.p);
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
  if (!f->body) return;
  uint32_t l = 0;
  while (l < f->nlabel && map[l] == l) l++;
  if (l == f->nlabel) return; /* the identity: nothing moves */
  nstack s;
  s.p = s.small, s.n = 0, s.cap = SMALL, s.m = m, s.li = NULL;
  push(&s, (uintptr_t)f->body);
  while (s.n) {
    tl_expr *e = (tl_expr *)s.p[--s.n];
    if (tl_ops[e->op].flags & TL_F_BRANCH) retarget_node(map, e);
    for (uint32_t i = 0; i < e->nkid; i++)
      if (e->kid[i]) push(&s, (uintptr_t)e->kid[i]);
  }
  if (s.p != s.small) free(s.p);
}
