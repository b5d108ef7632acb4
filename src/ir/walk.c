/* walk.c — iterative pre/post-order walks over expression trees.
 * An explicit stack of frames replaces recursion, so a function nested
 * 100,000 blocks deep costs heap, not C stack. A visitor may replace the
 * node it is given by assigning *slot; post-order visitors see children
 * that were already replaced. The first frames live on the C stack of
 * tl_walk_run (no malloc for ordinary depths); deeper walks move them to
 * the heap, freed before tl_walk_run returns. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct { tl_expr **slot; uint32_t next; } frame;
enum { INLINE_FRAMES = 256 };

/* Doubles the frame stack; the first growth leaves the inline chunk. */
static frame *grow(tl_walk *w, frame *inl) {
  size_t cap = w->stack.cap * 2;
  frame *p;
  if (cap > SIZE_MAX / sizeof(frame)) p = NULL;
  else if (w->stack.p == inl) {
    p = tl_malloc(cap * sizeof(frame));
    if (p) memcpy(p, inl, w->stack.cap * sizeof(frame));
  } else {
    p = tl_realloc(w->stack.p, cap * sizeof(frame));
  }
  if (!p) {
    /* out of memory: the module arena's longjmp (the reader's), else the
     * scope's (oom.c) */
    if (w->stack.p != inl) tl_free(w->stack.p);
    w->stack.p = NULL;
    w->stack.n = w->stack.cap = 0;
    if (w->m) tl_arena_oom(&w->m->arena);
    tl_oom_fail();
  }
  w->stack.p = p;
  w->stack.cap = cap;
  return p;
}

/* The frame's next non-NULL kid slot (advancing it), or NULL when done. */
static inline tl_expr **next_kid(frame *top) {
  tl_expr *e = *top->slot;
  uint32_t k = top->next;
  while (k < e->nkid && !e->kid[k]) k++;
  if (k >= e->nkid) return NULL;
  top->next = k + 1;
  return &e->kid[k];
}

/* Whether post is called on e (w->only: 0 = every node). */
static inline bool wanted(uint32_t only, const tl_expr *e) {
  return !only || (tl_ops[e->op].flags & only);
}

/* Post-order only, the common case: a leaf is visited without a frame of
 * its own (during post the current node is popped anyway). The node whose
 * kids are being walked stays in a register (e) while its kids are visited:
 * a visitor replaces only the slot it is given, so *slot of a frame changes
 * only at that frame's own post. Its kid array and count are read again
 * after every visit (a visitor may edit its parent's kids). Only w->depth
 * is kept up to date here; w->stack.n stays 0 (tl_walk_parent: during
 * post the current node has no frame). */
static inline __attribute__((always_inline)) void walk_post_as(tl_walk *w, tl_expr **slot,
                                                              frame *inl, uint32_t only) {
  tl_visit_fn post = w->post;
  frame *st = inl;
  size_t n = 1, cap = w->stack.cap;
  tl_expr *e = *slot;
  uint32_t k = 0;
  w->stack.n = 0;
  if (!e->nkid) {
    w->depth = 0;
    if (wanted(only, e)) post(w, slot);
    return;
  }
  st[0].slot = slot;
  for (;;) {
    while (k < e->nkid) {
      tl_expr **ks = &e->kid[k++];
      tl_expr *c = *ks;
      if (!c) continue;
      if (c->nkid) { /* descend: e's place is remembered in its frame */
        st[n - 1].next = k;
        if (n == cap) st = grow(w, inl), cap = w->stack.cap;
        st[n++].slot = ks;
        e = c;
        k = 0;
        continue;
      }
      if (!wanted(only, c)) continue;
      w->depth = (uint32_t)n;
      post(w, ks);
    }
    /* e's kids are done: pop it, visit it, resume its parent */
    n--;
    if (wanted(only, e)) {
      w->depth = (uint32_t)n;
      post(w, st[n].slot);
    }
    if (!n) return;
    e = *st[n - 1].slot;
    k = st[n - 1].next;
  }
}

/* Two copies: the filter costs the unfiltered walks nothing. */
static void walk_post(tl_walk *w, tl_expr **slot, frame *inl) { walk_post_as(w, slot, inl, 0); }
static void walk_post_only(tl_walk *w, tl_expr **slot, frame *inl) { walk_post_as(w, slot, inl, w->only); }

/* With a pre visitor (and maybe post): every node gets a frame, so pre can
 * see it as tl_walk_parent(w, 0) and skip its kids. */
static void walk_pre(tl_walk *w, tl_expr **slot, frame *inl) {
  tl_visit_fn pre = w->pre, post = w->post;
  frame *st = inl;
  size_t n = 0, cap = w->stack.cap;
  for (;;) {
    if (n == cap) st = grow(w, inl), cap = w->stack.cap;
    st[n].slot = slot;
    st[n].next = 0;
    n++;
    w->stack.n = n;
    w->depth = (uint32_t)n - 1;
    w->skip = false;
    pre(w, slot);
    if (w->skip) st[n - 1].next = UINT32_MAX;
    for (;;) {
      frame *top = &st[n - 1];
      if ((slot = next_kid(top))) break;
      n--;
      if (post) {
        w->stack.n = n;
        w->depth = (uint32_t)n;
        post(w, top->slot);
      }
      if (!n) return;
    }
  }
}

void tl_walk_run(tl_walk *w, tl_expr **root) {
  frame inl[INLINE_FRAMES];
  if (!*root) return;
  tl_vec_free(&w->stack); /* a caller's leftover stack: freed, as always */
  w->stack.p = inl;
  w->stack.cap = INLINE_FRAMES;
  if (w->pre) walk_pre(w, root, inl);
  else if (w->post && w->only) walk_post_only(w, root, inl);
  else if (w->post) walk_post(w, root, inl);
  if (w->stack.p != inl) tl_free(w->stack.p);
  w->stack.p = NULL;
  w->stack.n = w->stack.cap = 0;
}

tl_expr *tl_walk_parent(tl_walk *w, uint32_t up) {
  size_t cur = w->depth; /* ancestors of the current node */
  if (up > cur) return NULL;
  /* The current node has a frame only during pre (walk_pre sets stack.n to
   * depth + 1 then); during post it has been popped, its parent is the top. */
  if (!up && w->stack.n <= cur) return NULL;
  return *TL_VEC_AT(&w->stack, frame, cur - up).slot;
}

void tl_walk_post(tl_module *m, tl_func *f, tl_expr **root, tl_visit_fn post, void *ctx) {
  tl_walk_post_only(m, f, root, post, ctx, 0);
}

void tl_walk_post_only(tl_module *m, tl_func *f, tl_expr **root, tl_visit_fn post, void *ctx,
                       uint32_t only) {
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = ctx;
  w.post = post;
  w.only = only;
  tl_walk_run(&w, root);
}

void tl_walk_module(tl_module *m, tl_visit_fn visit, void *ctx) {
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    tl_walk_post(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, visit, ctx);
  for (size_t i = 0; i < m->globals.n; i++)
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, visit, ctx);
  for (size_t i = 0; i < m->tables.n; i++)
    if (TL_TABLE(m, i)->init) tl_walk_post(m, NULL, &TL_TABLE(m, i)->init, visit, ctx);
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

/* Whether t is or holds a reference type beyond the basic ones. */
bool tl_type_has_gc(const tl_module *m, tl_type t) {
  if (t >= TL_REF_BASE) return true;
  if (!tl_type_is_tuple(t)) return false;
  for (uint32_t i = 0, n = tl_type_arity(m, t); i < n; i++)
    if (tl_type_at(m, t, i) >= TL_REF_BASE) return true;
  return false;
}

/* Whether root's subtree holds a node with one of the flags fl or of
 * the features feat, or (m set) of a type tl_type_has_gc (an explicit
 * stack; stops at the first). */
static bool has_flag(const tl_module *m, tl_expr *root, uint32_t fl, tl_features feat) {
  if (!root) return false;
  tl_expr *small[64], **st = small;
  size_t n = 0, cap = 64;
  bool found = false;
  st[n++] = root;
  while (n && !found) {
    tl_expr *e = st[--n];
    if ((tl_ops[e->op].flags & fl) || (tl_ops[e->op].feat & feat) || (m && tl_type_has_gc(m, e->type)))
      found = true;
    for (uint32_t i = 0; i < e->nkid && !found; i++) {
      if (!e->kid[i]) continue;
      if (n == cap) {
        tl_expr **p = st == small ? tl_malloc(cap * 2 * sizeof *p) : tl_realloc(st, cap * 2 * sizeof *p);
        if (!p) {
          if (st != small) tl_free(st);
          return true; /* out of memory: the cautious answer */
        }
        if (st == small) memcpy(p, small, sizeof small);
        st = p;
        cap *= 2;
      }
      st[n++] = e->kid[i];
    }
  }
  if (st != small) tl_free(st);
  return found;
}

bool tl_expr_has_eh(tl_expr *root) { return has_flag(NULL, root, TL_F_EH, 0); }
bool tl_expr_has_gc(const tl_module *m, tl_expr *root) { return has_flag(m, root, 0, TL_FEAT_GC); }

bool tl_func_has_gc(const tl_module *m, const tl_func *f) {
  for (uint32_t i = 0; i < f->nlocal; i++)
    if (tl_type_has_gc(m, f->local[i])) return true;
  const tl_functype *ft = tl_func_type(m, f);
  return tl_type_has_gc(m, ft->params) || tl_type_has_gc(m, ft->results) || tl_expr_has_gc(m, f->body);
}
