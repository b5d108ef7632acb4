/* walk.c — iterative pre/post-order walks over expression trees.
 * An explicit stack of frames replaces recursion, so a function nested
 * 100,000 blocks deep costs heap, not C stack. A visitor may replace the
 * node it is given by assigning *slot; post-order visitors see children
 * that were already replaced. */
#include "ir.h"

#include <stdlib.h>

typedef struct { tl_expr **slot; uint32_t next; } frame;

static void push(tl_walk *w, tl_expr **slot) {
  frame f = {slot, 0};
  TL_VEC_PUSH(&w->stack, frame, f);
}

void tl_walk_run(tl_walk *w, tl_expr **root) {
  if (!*root) return;
  w->stack.n = 0;
  push(w, root);
  bool entered = false;
  while (w->stack.n) {
    frame *top = &TL_VEC_AT(&w->stack, frame, w->stack.n - 1);
    w->depth = (uint32_t)w->stack.n - 1;
    if (!entered && top->next == 0 && w->pre) {
      w->skip = false;
      w->pre(w, top->slot);
      top = &TL_VEC_AT(&w->stack, frame, w->stack.n - 1);
      if (w->skip) top->next = UINT32_MAX;
    }
    entered = false;
    tl_expr *e = *top->slot;
    if (top->next != UINT32_MAX) {
      while (top->next < e->nkid && !e->kid[top->next]) top->next++;
      if (top->next < e->nkid) {
        tl_expr **kid = &e->kid[top->next++];
        push(w, kid);
        continue;
      }
    }
    tl_expr **slot = top->slot;
    w->stack.n--;
    if (w->post) w->post(w, slot);
    if (w->stack.n) entered = true; /* parent frame: already entered */
  }
  tl_vec_free(&w->stack);
}

tl_expr *tl_walk_parent(tl_walk *w, uint32_t up) {
  size_t n = w->stack.n;
  /* During post, the current node has been popped: its parent is the top. */
  size_t cur = w->depth;
  if (up > cur) return NULL;
  size_t idx = cur - up;
  if (idx >= n) return NULL;
  return *TL_VEC_AT(&w->stack, frame, idx).slot;
}

void tl_walk_post(tl_module *m, tl_func *f, tl_expr **root, tl_visit_fn post, void *ctx) {
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = ctx;
  w.post = post;
  tl_walk_run(&w, root);
}

void tl_walk_module(tl_module *m, tl_visit_fn visit, void *ctx) {
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    tl_walk_post(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, visit, ctx);
  for (size_t i = 0; i < m->globals.n; i++)
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, visit, ctx);
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    if (el->offset) tl_walk_post(m, NULL, &el->offset, visit, ctx);
    for (uint32_t j = 0; j < el->n; j++) tl_walk_post(m, NULL, &el->item[j], visit, ctx);
  }
  for (size_t i = 0; i < m->datas.n; i++)
    if (TL_DATA(m, i)->offset) tl_walk_post(m, NULL, &TL_DATA(m, i)->offset, visit, ctx);
}

static void count_visit(tl_walk *w, tl_expr **slot) {
  (void)slot;
  (*(uint64_t *)w->ctx)++;
}

uint64_t tl_expr_count(tl_expr *root) {
  uint64_t n = 0;
  tl_walk_post(NULL, NULL, &root, count_visit, &n);
  return n;
}
