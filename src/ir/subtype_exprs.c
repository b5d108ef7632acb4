/* subtype_exprs.c — the subtyping a module's code relies on. A read-only
 * walk reports each place where a value of one type must be a subtype of
 * another for the module to validate (local.set, calls, returns, fields,
 * branches to their labels, block, if and try results, globals, tables,
 * segments, the type immediates of struct/array/call_ref operands) and each
 * cast from a source type to a target (ref.test, ref.cast, br_on_cast,
 * call_indirect's signature check). Dead nodes (an unreachable operand)
 * report no operand constraint, as the validator checks none there. The
 * walk is iterative (walk.c). */
#include "ir.h"

typedef struct {
  tl_module *m;
  tl_func *f;
  const tl_subtype_sink *s;
  tl_expr **lab;       /* label id -> its block, loop, if or try (pre-order) */
} se_ctx;

static void sub(se_ctx *c, tl_type a, tl_type b) {
  if (a != b && a != TL_UNREACHABLE) c->s->sub(c->s->user, a, b);
}

static void cast(se_ctx *c, tl_type src, tl_type dst) {
  if (tl_type_is_ref(src) && tl_type_is_ref(dst)) c->s->cast(c->s->user, src, dst);
}

/* Operands lo.. of e against the components of t. */
static void sub_list(se_ctx *c, const tl_expr *e, uint32_t lo, tl_type t) {
  uint32_t n = tl_type_arity(c->m, t);
  for (uint32_t i = 0; i < n && lo + i < e->nkid; i++) sub(c, e->kid[lo + i]->type, tl_type_at(c->m, t, i));
}

static bool any_dead(const tl_expr *e) {
  for (uint32_t i = 0; i < e->nkid; i++)
    if (e->kid[i] && e->kid[i]->type == TL_UNREACHABLE) return true;
  return false;
}

static tl_type results(const se_ctx *c) { return c->f ? TL_FTYPE(c->m, c->f->type)->results : TL_NONE; }

/* A branch's value to label l. */
static void to_label(se_ctx *c, tl_type v, uint32_t l) {
  if (!c->f || l >= c->f->nlabel || !c->lab[l] || c->lab[l]->op == TL_OP_LOOP) return;
  sub(c, v, c->lab[l]->type);
}

static void branch(se_ctx *c, const tl_expr *e) {
  tl_type v = tl_branch_value_type(e);
  if (v == TL_NONE || v == TL_UNREACHABLE) return;
  if (e->op != TL_OP_BR_TABLE) return to_label(c, v, e->imm.label);
  for (uint32_t i = 0; i < e->imm.table->n; i++) to_label(c, v, e->imm.table->targets[i]);
  to_label(c, v, e->imm.table->def);
}

/* Blocks, loops, ifs and trys: what falls off their end or arms. */
static void control(se_ctx *c, const tl_expr *e) {
  if (e->type == TL_UNREACHABLE || e->type == TL_NONE) return;
  switch (e->op) {
  case TL_OP_BLOCK: case TL_OP_LOOP:
    if (e->nkid && !any_dead(e)) sub(c, e->kid[e->nkid - 1]->type, e->type);
    return;
  case TL_OP_IF:
    if (e->nkid == 3 && e->kid[2]) sub(c, e->kid[1]->type, e->type), sub(c, e->kid[2]->type, e->type);
    return;
  default: /* try (body, arms), try_table (body; its clauses are branches) */
    for (uint32_t i = 0; i < (e->op == TL_OP_TRY ? e->nkid : 1); i++)
      if (e->kid[i] && e->kid[i]->op != TL_OP_DELEGATE) sub(c, e->kid[i]->type, e->type);
  }
}

static void call(se_ctx *c, const tl_expr *e) {
  tl_module *m = c->m;
  bool ref = e->op == TL_OP_CALL_REF || e->op == TL_OP_RETURN_CALL_REF;
  bool direct = e->op == TL_OP_CALL || e->op == TL_OP_RETURN_CALL;
  uint32_t t = direct ? TL_FUNC(m, e->imm.index)->type : ref ? e->imm.index : e->imm.idx2.a;
  const tl_deftype *d = TL_FTYPE(m, t);
  sub_list(c, e, 0, d->params);
  if (ref && e->nkid) sub(c, e->kid[e->nkid - 1]->type, tl_gc_ref_of(m, t, true));
  if (!direct && !ref) cast(c, TL_TABLE(m, e->imm.idx2.b)->elem, tl_gc_ref_of(m, t, false));
  if (e->op == TL_OP_RETURN_CALL || e->op == TL_OP_RETURN_CALL_INDIRECT || e->op == TL_OP_RETURN_CALL_REF)
    sub(c, d->results, results(c));
}

static tl_type field_type(const tl_module *m, uint32_t idx) { return TL_FTYPE(m, idx)->fields[0].type; }

/* The GC instructions: operands against their types, and what a segment
 * or a copied array's elements must be. */
static void gc(se_ctx *c, const tl_expr *e) {
  tl_module *m = c->m;
  switch (e->op) {
  case TL_OP_REF_TEST: case TL_OP_REF_CAST: return cast(c, e->kid[0]->type, e->imm.index);
  case TL_OP_BR_ON_CAST: case TL_OP_BR_ON_CAST_FAIL:
    cast(c, e->kid[0]->type, e->imm.idx2.b);
    return branch(c, e);
  case TL_OP_BR_ON_NULL: case TL_OP_BR_ON_NON_NULL: return branch(c, e);
  case TL_OP_EXTERN_CONVERT_ANY: return sub(c, e->kid[0]->type, tl_ref(TL_HT_ANY, true));
  case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF: return call(c, e);
  /* no value flows: a bound the abstract hierarchy keeps anyway */
  case TL_OP_REF_EQ: case TL_OP_ARRAY_LEN: case TL_OP_I31_GET_S: case TL_OP_I31_GET_U:
  case TL_OP_REF_AS_NON_NULL: case TL_OP_ANY_CONVERT_EXTERN: case TL_OP_REF_I31:
    return;
  case TL_OP_ARRAY_COPY: sub(c, field_type(m, e->imm.idx2.b), field_type(m, e->imm.idx2.a)); break;
  case TL_OP_ARRAY_NEW_ELEM: case TL_OP_ARRAY_INIT_ELEM:
    sub(c, tl_elem_type(TL_ELEM(m, e->imm.idx2.b)), field_type(m, e->imm.idx2.a));
    break;
  default: break;
  }
  for (uint32_t i = 0; i < e->nkid; i++) sub(c, e->kid[i]->type, tl_gc_operand_type(m, e, i));
}

static void tables(se_ctx *c, const tl_expr *e) {
  tl_module *m = c->m;
  switch (e->op) {
  case TL_OP_TABLE_SET: case TL_OP_TABLE_FILL: sub(c, e->kid[1]->type, TL_TABLE(m, e->imm.index)->elem); return;
  case TL_OP_TABLE_GROW: sub(c, e->kid[0]->type, TL_TABLE(m, e->imm.index)->elem); return;
  default: return;
  }
}

/* Constraints of immediates alone, checked even in dead code. */
static void immediates(se_ctx *c, const tl_expr *e) {
  tl_module *m = c->m;
  if (e->op == TL_OP_TABLE_COPY)
    sub(c, TL_TABLE(m, e->imm.idx2.b)->elem, TL_TABLE(m, e->imm.idx2.a)->elem);
  else if (e->op == TL_OP_TABLE_INIT)
    sub(c, tl_elem_type(TL_ELEM(m, e->imm.idx2.a)), TL_TABLE(m, e->imm.idx2.b)->elem);
  else if (e->op == TL_OP_CATCH && c->f && e->imm.idx2.a != TL_NO_INDEX && e->imm.idx2.a < c->f->nlocal)
    sub(c, tl_tag_params(m, e->imm.idx2.b), c->f->local[e->imm.idx2.a]);
}

static void plain(se_ctx *c, const tl_expr *e) {
  tl_module *m = c->m;
  switch (e->op) {
  case TL_OP_BR: case TL_OP_BR_IF: case TL_OP_BR_TABLE: case TL_OP_TT_CATCH: case TL_OP_TT_CATCH_REF:
  case TL_OP_TT_CATCH_ALL: case TL_OP_TT_CATCH_ALL_REF:
    return branch(c, e);
  case TL_OP_RETURN: if (e->nkid) sub(c, e->kid[0]->type, results(c)); return;
  case TL_OP_CALL: case TL_OP_RETURN_CALL: case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL_INDIRECT:
    return call(c, e);
  case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE: sub(c, e->kid[0]->type, c->f->local[e->imm.index]); return;
  case TL_OP_GLOBAL_SET: sub(c, e->kid[0]->type, TL_GLOBAL(m, e->imm.index)->type); return;
  case TL_OP_SELECT_T: sub(c, e->kid[0]->type, e->imm.index), sub(c, e->kid[1]->type, e->imm.index); return;
  case TL_OP_THROW: sub_list(c, e, 0, tl_tag_params(m, e->imm.index)); return;
  case TL_OP_TABLE_SET: case TL_OP_TABLE_FILL: case TL_OP_TABLE_GROW: return tables(c, e);
  default:
    if (tl_op_is_gc(e->op)) gc(c, e);
  }
}

static void se_pre(tl_walk *w, tl_expr **slot) {
  se_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if ((tl_ops[e->op].flags & TL_F_CONTROL) && c->f && e->imm.block.label < c->f->nlabel)
    c->lab[e->imm.block.label] = e;
}

static void se_post(tl_walk *w, tl_expr **slot) {
  se_ctx *c = w->ctx;
  const tl_expr *e = *slot;
  immediates(c, e);
  if (tl_ops[e->op].flags & TL_F_CONTROL) control(c, e);
  else if (!any_dead(e)) plain(c, e);
}

static void walk_expr(se_ctx *c, tl_expr **root) {
  tl_walk w = {.m = c->m, .f = c->f, .ctx = c, .pre = se_pre, .post = se_post};
  tl_walk_run(&w, root);
}

void tl_subtype_exprs_func(tl_module *m, tl_func *f, const tl_subtype_sink *s) {
  if (!f->body) return;
  se_ctx c = {m, f, s, NULL};
  c.lab = tl_calloc(f->nlabel ? f->nlabel : 1, sizeof *c.lab);
  if (!c.lab) tl_oom_fail();
  walk_expr(&c, &f->body);
  tl_free(c.lab);
  sub(&c, f->body->type, TL_FTYPE(m, f->type)->results);
}

/* A constant expression (no labels) that must give type t. */
static void const_expr(se_ctx *c, tl_expr **e, tl_type t) {
  if (!*e) return;
  walk_expr(c, e);
  sub(c, (*e)->type, t);
}

void tl_subtype_exprs_module(tl_module *m, const tl_subtype_sink *s) {
  se_ctx c = {m, NULL, s, NULL};
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) tl_subtype_exprs_func(m, TL_FUNC(m, i), s);
  for (uint32_t i = m->nimported_globals; i < m->globals.n; i++)
    const_expr(&c, &TL_GLOBAL(m, i)->init, TL_GLOBAL(m, i)->type);
  for (uint32_t i = 0; i < m->tables.n; i++) const_expr(&c, &TL_TABLE(m, i)->init, TL_TABLE(m, i)->elem);
  for (uint32_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    for (uint32_t k = 0; k < el->n; k++) const_expr(&c, &el->item[k], el->type);
    if (el->mode == TL_SEG_ACTIVE && el->table < m->tables.n) sub(&c, tl_elem_type(el), TL_TABLE(m, el->table)->elem);
  }
}
