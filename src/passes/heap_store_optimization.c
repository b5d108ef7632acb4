/* heap_store_optimization.c — heap-store-optimization: a struct.set of a
 * local right after `local.set $x (struct.new ...)` in a list (or a
 * struct.set whose reference is `local.tee $x (struct.new ...)`) is folded
 * into the allocation's operand, when the stored value neither touches $x,
 * leaves by a branch or exception, nor interacts with the operands it now
 * runs before. struct.new_default gets explicit zero operands to do so.
 * Assumes valid IR. Guarantees the same behaviour (the same traps too). */
#include "passes.h"

typedef struct {
  tl_module *m;
  tl_func *f;
  bool has_eh;       /* a call's exception may be caught in f */
  tl_vec st;
} hso_ctx;

static bool is_new(const tl_expr *e) {
  return (e->op == TL_OP_STRUCT_NEW || e->op == TL_OP_STRUCT_NEW_DEFAULT) && e->type != TL_UNREACHABLE;
}

/* Whether subtree e reads or writes local x. */
static bool touches(hso_ctx *c, tl_expr *e, uint32_t x) {
  c->st.n = 0;
  TL_VEC_PUSH(&c->st, tl_expr *, e);
  while (c->st.n) {
    tl_expr *n = TL_VEC_AT(&c->st, tl_expr *, --c->st.n);
    if ((n->op == TL_OP_LOCAL_GET || n->op == TL_OP_LOCAL_SET || n->op == TL_OP_LOCAL_TEE) && n->imm.index == x)
      return true;
    if (n->op == TL_OP_CATCH && n->imm.idx2.a == x) return true;
    for (uint32_t i = 0; i < n->nkid; i++)
      if (n->kid[i]) TL_VEC_PUSH(&c->st, tl_expr *, n->kid[i]);
  }
  return false;
}

enum {
  WRITES = TL_F_WRITES_MEM | TL_F_WRITES_TABLE | TL_F_WRITES_GLOBAL | TL_F_WRITES_LOCAL | TL_F_CALL |
           TL_F_ATOMIC | TL_F_THROWS | TL_F_NORETURN | TL_F_EH,
  READS = TL_F_READS_MEM | TL_F_READS_TABLE | TL_F_READS_GLOBAL | TL_F_READS_LOCAL,
};

/* Whether a and b may not be evaluated in the other order: one writes
 * what the other reads or writes, or may trap or not end while the other
 * has an effect, or both may trap (which trap shows is observable). */
static bool conflict(const tl_effects *a, const tl_effects *b) {
  if (a->branches_out || b->branches_out) return true;
  if ((a->flags & WRITES) && (b->flags & (WRITES | READS | TL_F_TRAPS))) return true;
  if ((b->flags & WRITES) && (a->flags & (WRITES | READS | TL_F_TRAPS))) return true;
  return (a->flags & TL_F_TRAPS) && (b->flags & TL_F_TRAPS);
}

/* The value may run before the local.set: it cannot skip it. */
static bool leaves(const hso_ctx *c, const tl_effects *fx) {
  return fx->branches_out || (fx->flags & TL_F_THROWS) || (c->has_eh && (fx->flags & TL_F_CALL));
}

/* struct.new_default as struct.new with explicit zeros. */
static tl_expr *explicit(hso_ctx *c, tl_expr *nw) {
  if (nw->op == TL_OP_STRUCT_NEW) return nw;
  const tl_deftype *d = tl_heap_def(c->m, tl_ref_heap(nw->type));
  tl_expr *e = tl_expr_new(c->m, TL_OP_STRUCT_NEW, d->nfields);
  e->imm = nw->imm;
  for (uint32_t i = 0; i < d->nfields; i++) e->kid[i] = tl_make_zero(c->m, tl_gc_unpacked(&d->fields[i]));
  tl_expr_finalize(c->m, c->f, e);
  return e;
}

/* Folds struct.set `set` into the allocation *newp stored in local x. */
static bool fold(hso_ctx *c, tl_expr **newp, tl_expr *set, uint32_t x) {
  tl_expr *nw = *newp, *v = set->kid[1];
  uint32_t k = set->imm.idx2.b;
  if (!is_new(nw) || set->type == TL_UNREACHABLE || touches(c, v, x)) return false;
  tl_effects fv, fo;
  tl_effects_of(c->m, c->f, v, &fv);
  if (leaves(c, &fv)) return false;
  for (uint32_t i = k + 1; nw->op == TL_OP_STRUCT_NEW && i < nw->nkid; i++) {
    tl_effects_of(c->m, c->f, nw->kid[i], &fo);
    if (conflict(&fo, &fv)) return false;
  }
  nw = *newp = explicit(c, nw);
  tl_expr *old = nw->kid[k];
  tl_effects_of(c->m, c->f, old, &fo);
  if (tl_effects_removable(&fo)) {
    nw->kid[k] = v;
  } else {
    tl_expr *kids[2] = {tl_make_drop(c->m, old), v};
    nw->kid[k] = tl_make_block(c->m, TL_OP_BLOCK, TL_NO_LABEL, kids, 2);
  }
  tl_expr_finalize(c->m, c->f, nw);
  return true;
}

static bool is_set_of_get(const tl_expr *e, uint32_t x) {
  return e->op == TL_OP_STRUCT_SET && e->kid[0]->op == TL_OP_LOCAL_GET && e->kid[0]->imm.index == x;
}

/* `local.set $x (struct.new ...)` then struct.sets of $x in a list. */
static void do_list(hso_ctx *c, tl_expr *list) {
  for (uint32_t i = 0; i < list->nkid; i++) {
    tl_expr *s = list->kid[i];
    if (s->op != TL_OP_LOCAL_SET || !is_new(s->kid[0])) continue;
    uint32_t x = s->imm.index;
    for (uint32_t j = i + 1; j < list->nkid && is_set_of_get(list->kid[j], x); j++) {
      if (!fold(c, &s->kid[0], list->kid[j], x)) break;
      list->kid[j] = tl_make_nop(c->m);
    }
  }
}

static void visit(tl_walk *w, tl_expr **slot) {
  hso_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) {
    do_list(c, e);
  } else if (e->op == TL_OP_STRUCT_SET && e->kid[0]->op == TL_OP_LOCAL_TEE) {
    tl_expr *tee = e->kid[0];
    if (!fold(c, &tee->kid[0], e, tee->imm.index)) return;
    tee->op = TL_OP_LOCAL_SET;
    tl_expr_finalize(w->m, w->f, tee);
    *slot = tee;
  }
}

static void count_new(tl_walk *w, tl_expr **slot) {
  if (is_new(*slot)) *(bool *)w->ctx = true;
}

tl_status tl_pass_heap_store_optimization(tl_pass_ctx *ctx, tl_func *f) {
  bool any = false;
  if (!f->body) return TL_OK;
  tl_walk_post_only(ctx->m, f, &f->body, count_new, &any, TL_F_GC_ALLOC);
  if (!any) return TL_OK;
  hso_ctx c = {.m = ctx->m, .f = f, .has_eh = tl_expr_has_eh(f->body)};
  tl_walk_post(ctx->m, f, &f->body, visit, &c);
  tl_vec_free(&c.st);
  return TL_OK;
}
