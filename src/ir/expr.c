/* expr.c — node constructors and deep copy. Builders allocate in the
 * module arena and finalize the node they make, so callers always hold
 * correctly typed nodes. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

tl_expr *tl_expr_new(tl_module *m, tl_op op, uint32_t nkid) {
  tl_expr *e = TL_NEW(&m->arena, tl_expr);
  e->op = (uint16_t)op;
  e->type = TL_NONE;
  e->nkid = nkid;
  e->cap = nkid;
  e->kid = nkid ? TL_NEWN(&m->arena, tl_expr *, nkid) : NULL;
  if (tl_ops[op].flags & TL_F_CONTROL) {
    e->imm.block.label = TL_NO_LABEL;
    e->imm.block.bt = TL_NO_INDEX;
  }
  return e;
}

void tl_expr_push_kid(tl_module *m, tl_expr *e, tl_expr *kid) {
  if (e->nkid == e->cap) {
    uint32_t cap = e->cap ? e->cap * 2 : 4;
    tl_expr **k = TL_NEWN(&m->arena, tl_expr *, cap);
    if (e->nkid) memcpy(k, e->kid, e->nkid * sizeof *k);
    e->kid = k;
    e->cap = cap;
  }
  e->kid[e->nkid++] = kid;
}

tl_expr *tl_make_const_i32(tl_module *m, int32_t v) {
  tl_expr *e = tl_expr_new(m, TL_OP_I32_CONST, 0);
  e->imm.i32 = v;
  e->type = TL_I32;
  return e;
}

tl_expr *tl_make_const_i64(tl_module *m, int64_t v) {
  tl_expr *e = tl_expr_new(m, TL_OP_I64_CONST, 0);
  e->imm.i64 = v;
  e->type = TL_I64;
  return e;
}

tl_expr *tl_make_unary(tl_module *m, tl_op op, tl_expr *a) {
  tl_expr *e = tl_expr_new(m, op, 1);
  e->kid[0] = a;
  tl_expr_finalize(m, NULL, e);
  return e;
}

tl_expr *tl_make_binary(tl_module *m, tl_op op, tl_expr *a, tl_expr *b) {
  tl_expr *e = tl_expr_new(m, op, 2);
  e->kid[0] = a;
  e->kid[1] = b;
  tl_expr_finalize(m, NULL, e);
  return e;
}

tl_expr *tl_make_nop(tl_module *m) { return tl_expr_new(m, TL_OP_NOP, 0); }

tl_expr *tl_make_unreachable(tl_module *m) {
  tl_expr *e = tl_expr_new(m, TL_OP_UNREACHABLE, 0);
  e->type = TL_UNREACHABLE;
  return e;
}

tl_expr *tl_make_local_get(tl_module *m, tl_func *f, uint32_t idx) {
  tl_expr *e = tl_expr_new(m, TL_OP_LOCAL_GET, 0);
  e->imm.index = idx;
  e->type = f->local[idx];
  return e;
}

tl_expr *tl_make_local_set(tl_module *m, tl_func *f, uint32_t idx, tl_expr *v, bool tee) {
  tl_expr *e = tl_expr_new(m, tee ? TL_OP_LOCAL_TEE : TL_OP_LOCAL_SET, 1);
  e->imm.index = idx;
  e->kid[0] = v;
  tl_expr_finalize(m, f, e);
  return e;
}

tl_expr *tl_make_drop(tl_module *m, tl_expr *v) { return tl_make_unary(m, TL_OP_DROP, v); }

tl_expr *tl_make_block(tl_module *m, tl_op op, uint32_t label, tl_expr **kids, uint32_t n) {
  tl_expr *e = tl_expr_new(m, op, n);
  e->imm.block.label = label;
  if (n) memcpy(e->kid, kids, n * sizeof *kids);
  tl_expr_finalize(m, NULL, e);
  return e;
}

/* ---- deep copy ---------------------------------------------------------- */
typedef struct {
  tl_module *m;
  tl_func *f;
  uint32_t *map;   /* old label -> new label, for labels defined in the copy */
  uint32_t nmap;   /* labels that existed when the copy started */
} copy_ctx;

static uint32_t map_label(copy_ctx *c, uint32_t l) {
  return l < c->nmap && c->map[l] != TL_NO_LABEL ? c->map[l] : l;
}

static tl_expr *copy_node(copy_ctx *c, const tl_expr *e) {
  tl_expr *n = TL_NEW(&c->m->arena, tl_expr);
  *n = *e;
  n->cap = e->nkid;
  n->kid = e->nkid ? TL_NEWN(&c->m->arena, tl_expr *, e->nkid) : NULL;
  if ((tl_ops[e->op].flags & TL_F_CONTROL) && e->imm.block.label != TL_NO_LABEL && c->f) {
    uint32_t fresh = tl_func_new_label(c->m, c->f);
    if (e->imm.block.label < c->nmap) c->map[e->imm.block.label] = fresh;
    n->imm.block.label = fresh;
  } else if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF) {
    n->imm.label = map_label(c, e->imm.label);
  } else if (e->op == TL_OP_BR_TABLE) {
    n->imm.table.targets = TL_NEWN(&c->m->arena, uint32_t, e->imm.table.n);
    for (uint32_t i = 0; i < e->imm.table.n; i++)
      n->imm.table.targets[i] = map_label(c, e->imm.table.targets[i]);
    n->imm.table.def = map_label(c, e->imm.table.def);
  }
  return n;
}

/* Pre-order with an explicit stack: a node is copied before its children,
 * so label definitions are mapped before the branches inside them. */
typedef struct { const tl_expr *src; tl_expr **dst; } copy_item;

tl_expr *tl_expr_copy(tl_module *m, tl_func *f, const tl_expr *e) {
  if (!e) return NULL;
  copy_ctx c = {m, f, NULL, f ? f->nlabel : 0};
  c.map = malloc((c.nmap + 1) * sizeof *c.map);
  if (!c.map) abort();
  for (uint32_t i = 0; i < c.nmap; i++) c.map[i] = TL_NO_LABEL;
  tl_vec todo = {0};
  tl_expr *root = NULL;
  copy_item first = {e, &root};
  TL_VEC_PUSH(&todo, copy_item, first);
  while (todo.n) {
    copy_item it = TL_VEC_AT(&todo, copy_item, --todo.n);
    tl_expr *n = copy_node(&c, it.src);
    *it.dst = n;
    for (uint32_t i = it.src->nkid; i-- > 0;) {
      copy_item k = {it.src->kid[i], &n->kid[i]};
      if (k.src) TL_VEC_PUSH(&todo, copy_item, k);
      else n->kid[i] = NULL;
    }
  }
  tl_vec_free(&todo);
  free(c.map);
  return root;
}
