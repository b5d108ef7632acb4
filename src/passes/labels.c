/* labels.c — per-function branch facts shared by the control-flow passes:
 * how many branches target each label and the type they carry (counted in
 * one walk here, or branch by branch by a pass's own post-order walk), and
 * retargeting every branch through a label map in one walk. Both walks
 * here are their own loops over the body (no tl_walk visitor per node). */
#include "passes.h"

#include <stdlib.h>

static void count_one(tl_label_info *li, uint32_t l, tl_type t) {
  li->count[l]++;
  li->type[l] = tl_type_lub(li->m, li->type[l], t);
}

void tl_labels_note(tl_label_info *li, const tl_expr *e) {
  tl_type t = tl_branch_value_type(e);
  if (e->op != TL_OP_BR_TABLE) {
    count_one(li, e->imm.label, t);
    return;
  }
  for (uint32_t i = 0; i < e->imm.table->n; i++) count_one(li, e->imm.table->targets[i], t);
  count_one(li, e->imm.table->def, t);
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
static void grow(nstack *s) {
  uintptr_t *q = s->p == s->small ? tl_malloc(s->cap * 2 * sizeof *q) : tl_realloc(s->p, s->cap * 2 * sizeof *q);
  if (!q) {
    if (s->p != s->small) tl_free(s->p);
    if (s->li) tl_labels_free(s->li);
    tl_arena_oom(&s->m->arena);
  }
  if (s->p == s->small)
    for (size_t i = 0; i < s->cap; i++) q[i] = s->small[i];
  s->p = q;
  s->cap *= 2;
}

static inline void push(nstack *s, uintptr_t x) {
  if (s->n == s->cap) grow(s);
  s->p[s->n++] = x;
}

bool tl_labels_init(const tl_module *m, tl_func *f, tl_label_info *li) {
  li->m = m;
  li->n = f->nlabel;
  li->count = tl_malloc((f->nlabel + 1) * sizeof *li->count);
  li->type = tl_malloc((f->nlabel + 1) * sizeof *li->type);
  if (!li->count || !li->type) {
    tl_free(li->count);
    tl_free(li->type);
    li->count = NULL;
    li->type = NULL;
    return false;
  }
  tl_labels_reset(li);
  return true;
}

void tl_labels_reset(tl_label_info *li) {
  for (uint32_t i = 0; i <= li->n; i++) li->count[i] = 0, li->type[i] = TL_UNREACHABLE;
}

/* Branches are counted in post-order (a branch nested in another's operands
 * first), as a post-order walk meets them: a stack of (node, next kid)
 * pairs for the nodes with kids; a leaf is counted in place, never pushed. */
static inline bool is_branch(const tl_expr *e) { return tl_ops[e->op].flags & TL_F_BRANCH; }

void tl_labels_count(tl_module *m, tl_func *f, tl_label_info *li) {
  if (!tl_labels_init(m, f, li)) tl_arena_oom(&m->arena); /* the entry point's longjmp (aborts if none) */
  if (!f->body) return;
  nstack s;
  s.p = s.small, s.n = 0, s.cap = SMALL, s.m = m, s.li = li;
  const tl_expr *e = f->body;
  uint32_t k = 0;
  for (;;) {
    while (k < e->nkid) {
      const tl_expr *c = e->kid[k++];
      if (!c) continue;
      if (c->nkid) { /* descend; e resumes at k */
        if (s.n + 2 > s.cap) grow(&s); /* cap is even: one grow makes room */
        s.p[s.n++] = (uintptr_t)e;
        s.p[s.n++] = k;
        e = c, k = 0;
      } else if (is_branch(c)) {
        tl_labels_note(li, c);
      }
    }
    if (is_branch(e)) tl_labels_note(li, e);
    if (!s.n) break;
    k = (uint32_t)s.p[--s.n];
    e = (const tl_expr *)s.p[--s.n];
  }
  if (s.p != s.small) tl_free(s.p);
}

void tl_labels_free(tl_label_info *li) {
  tl_free(li->count);
  tl_free(li->type);
}

static uint32_t follow(const uint32_t *map, uint32_t l) {
  while (map[l] != l) l = map[l];
  return l;
}

static void retarget_node(const uint32_t *map, tl_expr *e) {
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF || tl_op_is_br_on(e->op)) {
    e->imm.label = follow(map, e->imm.label);
  } else if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      e->imm.table->targets[i] = follow(map, e->imm.table->targets[i]);
    e->imm.table->def = follow(map, e->imm.table->def);
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
  while (s.n) { /* leaves are handled where they are met, never pushed */
    tl_expr *e = (tl_expr *)s.p[--s.n];
    if (is_branch(e)) retarget_node(map, e);
    for (uint32_t i = 0; i < e->nkid; i++) {
      tl_expr *c = e->kid[i];
      if (c && c->nkid) push(&s, (uintptr_t)c);
      else if (c && is_branch(c)) retarget_node(map, c);
    }
  }
  if (s.p != s.small) tl_free(s.p);
}
