/* finalize.c — the type rules, in one place (seed 002, DESIGN.md "The IR").
 * - A node with an unreachable operand it cannot flow past is unreachable.
 * - A block is unreachable iff no branch targets it and it cannot fall off
 *   its end; otherwise its type is what falls off and what branches carry.
 * - An if is unreachable only if its condition is, or both arms (and no
 *   branch to its label) are.
 * Types depend only on a node's children and the branches to its label. */
#include "ir.h"

#include <stdlib.h>


static bool any_kid_unreachable(const tl_expr *e) {
  for (uint32_t i = 0; i < e->nkid; i++)
    if (e->kid[i] && e->kid[i]->type == TL_UNREACHABLE) return true;
  return false;
}

tl_type tl_branch_value_type(const tl_expr *br) {
  switch (br->op) {
  case TL_OP_BR: return br->nkid ? br->kid[0]->type : TL_NONE;
  case TL_OP_BR_IF:
  case TL_OP_BR_TABLE:
    if (br->nkid == 2) return any_kid_unreachable(br) ? TL_UNREACHABLE : br->kid[0]->type;
    return br->nkid && br->kid[0]->type == TL_UNREACHABLE ? TL_UNREACHABLE : TL_NONE;
  case TL_OP_TT_CATCH: case TL_OP_TT_CATCH_REF: case TL_OP_TT_CATCH_ALL: case TL_OP_TT_CATCH_ALL_REF:
    return br->type; /* what the clause sends its label */
  case TL_OP_BR_ON_CAST: case TL_OP_BR_ON_CAST_FAIL: case TL_OP_BR_ON_NULL: case TL_OP_BR_ON_NON_NULL:
    return tl_gc_branch_type(NULL, br);
  default: return TL_UNREACHABLE;
  }
}

static bool is_clause(const tl_expr *e) { return (unsigned)(e->op - TL_OP_TT_CATCH) <= 3; }
_Static_assert(TL_OP_TT_CATCH_ALL_REF == TL_OP_TT_CATCH + 3, "try_table clause rows adjacent");

bool tl_expr_breaks_to(const tl_expr *e, uint32_t label) {
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF || is_clause(e) || tl_op_is_br_on(e->op))
    return e->imm.label == label;
  if (e->op != TL_OP_BR_TABLE) return false;
  if (e->imm.table->def == label) return true;
  for (uint32_t i = 0; i < e->imm.table->n; i++)
    if (e->imm.table->targets[i] == label) return true;
  return false;
}

bool tl_expr_uses_label(const tl_expr *e, uint32_t label) {
  if (tl_ops[e->op].flags & TL_F_LABEL_USE) return e->imm.label == label;
  return tl_expr_breaks_to(e, label);
}

/* A try: the lub of its body and arms (a delegate leaf is none of them). */
static tl_type try_type(const tl_module *m, const tl_expr *e, tl_type branch_type) {
  tl_type t = e->nkid && e->kid[0] ? e->kid[0]->type : TL_NONE;
  for (uint32_t i = 1; i < e->nkid; i++) {
    const tl_expr *a = e->kid[i];
    if (!a || a->op == TL_OP_DELEGATE) continue;
    t = tl_type_lub(m, t, a->type);
  }
  return tl_type_lub(m, t, branch_type);
}

/* The body of a block or loop: unreachable if any child is, else the last. */
static tl_type list_type(const tl_expr *e) {
  if (any_kid_unreachable(e)) return TL_UNREACHABLE;
  return e->nkid ? e->kid[e->nkid - 1]->type : TL_NONE;
}

static tl_type if_type(const tl_module *m, const tl_expr *e, tl_type branch_type) {
  if (e->kid[0]->type == TL_UNREACHABLE) return TL_UNREACHABLE;
  if (e->nkid < 3 || !e->kid[2]) return TL_NONE;
  tl_type t = tl_type_lub(m, e->kid[1]->type, e->kid[2]->type);
  return tl_type_lub(m, t, branch_type);
}

void tl_block_finalize(tl_module *m, tl_expr *e, tl_type branch_type) {
  switch (e->op) {
  case TL_OP_BLOCK: e->type = tl_type_lub(m, list_type(e), branch_type); break;
  case TL_OP_LOOP: e->type = list_type(e); break;
  case TL_OP_IF: e->type = if_type(m, e, branch_type); break;
  case TL_OP_TRY: e->type = try_type(m, e, branch_type); break;
  case TL_OP_TRY_TABLE: /* the body; its clauses branch elsewhere */
    e->type = tl_type_lub(m, e->nkid && e->kid[0] ? e->kid[0]->type : TL_NONE, branch_type);
    break;
  default: break;
  }
}

/* What a try_table clause sends its label: the tag's params, then an
 * exnref for the _ref forms. A tag out of range gives none (the validator
 * reports it). */
/* Whether clause e may send its values to a label of type lt: its exnref
 * is never null, so a (ref exn) label takes it too (the IR types the
 * clause with exnref, which every label of either kind accepts after
 * refinement). */
bool tl_clause_fits(const tl_module *m, const tl_expr *e, tl_type lt) {
  if (tl_type_sub(m, e->type, lt)) return true;
  bool ref = e->op == TL_OP_TT_CATCH_REF || e->op == TL_OP_TT_CATCH_ALL_REF;
  uint32_t n = tl_type_arity(m, e->type);
  if (!ref || n != tl_type_arity(m, lt)) return false;
  for (uint32_t i = 0; i < n; i++) {
    tl_type s = tl_type_at(m, e->type, i), w = tl_type_at(m, lt, i);
    if (i + 1 == n) s = tl_ref(TL_HT_EXN, false);
    if (!tl_type_sub(m, s, w)) return false;
  }
  return true;
}

static tl_type clause_type(const tl_module *m, const tl_expr *e) {
  bool all = e->op == TL_OP_TT_CATCH_ALL || e->op == TL_OP_TT_CATCH_ALL_REF;
  bool ref = e->op == TL_OP_TT_CATCH_REF || e->op == TL_OP_TT_CATCH_ALL_REF;
  tl_type p = all || e->imm.idx2.b >= m->tags.n ? TL_NONE : tl_tag_params(m, e->imm.idx2.b);
  if (!ref) return p;
  uint32_t n = tl_type_arity(m, p);
  /* never null: (ref exn) where the module has typed references (as ref.func) */
  tl_type exn = m->typed_funcs ? tl_ref(TL_HT_EXN, false) : TL_EXNREF;
  if (!n) return exn;
  tl_type small[16], *t = n < 16 ? small : tl_malloc((n + 1) * sizeof *t);
  if (!t) tl_arena_oom((tl_arena *)&m->arena);
  for (uint32_t i = 0; i < n; i++) t[i] = tl_type_at(m, p, i);
  t[n] = exn;
  tl_type r = tl_type_tuple((tl_module *)m, t, n + 1);
  if (t != small) tl_free(t);
  return r;
}

/* A fixed-signature row's result: the table's, i64 for memory.size/grow and
 * table.size of a 64-bit memory or table. */
/* ref.func: (ref $t), non-null, of the function's type, in a module with
 * gc; funcref otherwise. A module pass that changes a function's type
 * leaves the pass runner to retype (tl_module_retype_ref_funcs). */
tl_type tl_ref_func_precise(const tl_module *m, uint32_t func) {
  if (!m || func >= m->funcs.n || TL_FUNC(m, func)->type >= m->types.n) return TL_FUNCREF;
  return tl_gc_ref_of(m, TL_FUNC(m, func)->type, false);
}

tl_type tl_ref_func_type(const tl_module *m, uint32_t func) {
  if (!m || !m->typed_funcs || func >= m->funcs.n) return TL_FUNCREF;
  return tl_gc_ref_of(m, TL_FUNC(m, func)->type, false);
}

static inline tl_type fixed_result(const tl_module *m, const tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  if (e->op == TL_OP_REF_FUNC) return tl_ref_func_type(m, e->imm.index);
  if (e->op == TL_OP_REF_FUNC) return tl_ref_func_type(m, e->imm.index);
  if (oi->result == TL_I32 && (oi->flags & TL_F_INDEXED) && (tl_index64_mask(m, e->op, e->imm) & TL_IDX64_RESULT))
    return TL_I64;
  return oi->result;
}

tl_type tl_expr_natural_type(const tl_module *m, const tl_func *f, const tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  if (oi->flags & TL_F_NORETURN) return TL_UNREACHABLE; /* unreachable, br, return... */
  if (oi->nops != TL_SIG_SPECIAL) return fixed_result(m, e);
  switch (e->op) {
  case TL_OP_BR: case TL_OP_BR_TABLE: case TL_OP_RETURN:
  case TL_OP_RETURN_CALL: case TL_OP_RETURN_CALL_INDIRECT: return TL_UNREACHABLE;
  case TL_OP_BR_IF: return e->nkid == 2 ? e->kid[0]->type : TL_NONE;
  case TL_OP_CALL: return TL_FTYPE(m, TL_FUNC(m, e->imm.index)->type)->results;
  case TL_OP_CALL_INDIRECT: return TL_FTYPE(m, e->imm.idx2.a)->results;
  case TL_OP_CALL_REF: return TL_FTYPE(m, e->imm.index)->results;
  case TL_OP_RETURN_CALL_REF: return TL_UNREACHABLE;
  case TL_OP_REF_AS_NON_NULL: case TL_OP_BR_ON_NULL:
    return tl_type_is_ref(e->kid[0]->type) ? tl_ref_with_null(e->kid[0]->type, false) : e->kid[0]->type;
  case TL_OP_BR_ON_NON_NULL: return TL_NONE;
  case TL_OP_DROP: case TL_OP_LOCAL_SET: case TL_OP_GLOBAL_SET: case TL_OP_TABLE_SET:
  case TL_OP_TABLE_FILL: return TL_NONE;
  case TL_OP_SELECT: return tl_type_lub(m, e->kid[0]->type, e->kid[1]->type);
  case TL_OP_SELECT_T: case TL_OP_REF_NULL: return e->imm.index;
  case TL_OP_LOCAL_GET: case TL_OP_LOCAL_TEE: return f->local[e->imm.index];
  case TL_OP_GLOBAL_GET: return TL_GLOBAL(m, e->imm.index)->type;
  case TL_OP_REF_FUNC: return tl_ref_func_type(m, e->imm.index);
  case TL_OP_TABLE_GET: return TL_TABLE(m, e->imm.index)->elem;
  case TL_OP_TABLE_GROW: return tl_table_is64(m, e->imm.index) ? TL_I64 : TL_I32;
  case TL_OP_REF_IS_NULL: return TL_I32;
  case TL_OP_TUPLE_EXTRACT: return tl_type_at(m, e->kid[0]->type, e->imm.index);
  case TL_OP_CATCH: case TL_OP_CATCH_ALL: return e->nkid && e->kid[0] ? e->kid[0]->type : TL_NONE;
  case TL_OP_DELEGATE: return TL_NONE;
  case TL_OP_TT_CATCH: case TL_OP_TT_CATCH_REF: case TL_OP_TT_CATCH_ALL: case TL_OP_TT_CATCH_ALL_REF:
    return clause_type(m, e);
  default:
    if (tl_op_is_gc(e->op)) return tl_gc_natural_type(m, e);
    return e->type;
  }
}

/* Out of line: its buffer would otherwise weigh on every caller's frame. */
__attribute__((noinline)) static tl_type tuple_make_type(tl_module *m, const tl_expr *e) {
  tl_type small[8] = {0}, *t = e->nkid <= 8 ? small : tl_malloc(e->nkid * sizeof *t);
  if (!t) tl_arena_oom(&m->arena); /* the entry point's longjmp (aborts if none) */
  for (uint32_t i = 0; i < e->nkid; i++) t[i] = e->kid[i]->type;
  tl_type r = tl_type_tuple(m, t, e->nkid);
  if (t != small) tl_free(t);
  return r;
}

/* Non-control nodes: unreachable operands make the node unreachable;
 * fixed-signature operators and local.get/tee (most nodes) are typed
 * without calling tl_expr_natural_type. */
static inline void finalize_plain(tl_module *m, tl_func *f, tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  if (any_kid_unreachable(e)) e->type = TL_UNREACHABLE;
  else if (oi->nops != TL_SIG_SPECIAL && !(oi->flags & TL_F_NORETURN)) e->type = fixed_result(m, e);
  else if (e->op == TL_OP_LOCAL_GET || e->op == TL_OP_LOCAL_TEE) e->type = f->local[e->imm.index];
  else if (e->op == TL_OP_TUPLE_MAKE) e->type = tuple_make_type(m, e);
  else e->type = tl_expr_natural_type(m, f, e);
}

/* Out of memory: the stack is freed and m's arena longjmps to the entry
 * point (aborts if none set one). */
static tl_expr **grow_stack(tl_module *m, tl_expr **st, tl_expr **small, size_t *cap) {
  tl_expr **p = st == small ? tl_malloc(*cap * 2 * sizeof *p) : tl_realloc(st, *cap * 2 * sizeof *p);
  if (!p) {
    if (st != small) tl_free(st);
    tl_arena_oom(&m->arena);
  }
  if (st == small)
    for (size_t i = 0; i < *cap; i++) p[i] = small[i];
  *cap *= 2;
  return p;
}

/* The type the branches to label inside e carry: one iterative walk of
 * e's subtree, on a small stack that moves to the heap only when deep,
 * stopping at the first branch that carries a reachable type. */
static tl_type seek_branch_type(tl_module *m, tl_expr *e, uint32_t label) {
  tl_type t = TL_UNREACHABLE;
  tl_expr *small[64], **st = small;
  size_t n = 0, cap = 64;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (e->kid[i]) {
      if (n == cap) st = grow_stack(m, st, small, &cap);
      st[n++] = e->kid[i];
    }
  while (n) {
    tl_expr *x = st[--n];
    if (tl_expr_breaks_to(x, label)) {
      t = tl_type_lub(m, t, tl_branch_value_type(x));
      /* without subtyping the lub keeps its first reachable type */
      if (t != TL_UNREACHABLE && !tl_type_is_ref(t) && !tl_type_is_tuple(t)) break;
    }
    for (uint32_t i = 0; i < x->nkid; i++)
      if (x->kid[i]) {
        if (n == cap) st = grow_stack(m, st, small, &cap);
        st[n++] = x->kid[i];
      }
  }
  if (st != small) tl_free(st);
  return t;
}

void tl_expr_finalize(tl_module *m, tl_func *f, tl_expr *e) {
  if (tl_ops[e->op].flags & TL_F_CONTROL) {
    tl_type bt = TL_UNREACHABLE;
    if (e->op != TL_OP_LOOP && e->imm.block.label != TL_NO_LABEL)
      bt = seek_branch_type(m, e, e->imm.block.label);
    tl_block_finalize(m, e, bt);
    return;
  }
  finalize_plain(m, f, e);
}

/* Whole function, one post-order walk: branches are visited before the
 * construct they target, so their types are collected per label first.
 * Its own loop rather than tl_walk: no visitor calls, leaves are typed
 * without a stack frame, nodes are never replaced. */
static void refin_node(tl_module *m, tl_func *f, tl_type *bt, tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  uint32_t fl = oi->flags;
  if (fl & TL_F_CONTROL) {
    uint32_t l = e->imm.block.label;
    tl_block_finalize(m, e, (e->op != TL_OP_LOOP && l != TL_NO_LABEL) ? bt[l] : TL_UNREACHABLE);
    return;
  }
  finalize_plain(m, f, e);
  if (!(fl & TL_F_BRANCH)) return;
  tl_type vt = tl_branch_value_type(e);
  if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      bt[e->imm.table->targets[i]] = tl_type_lub(m, bt[e->imm.table->targets[i]], vt);
    bt[e->imm.table->def] = tl_type_lub(m, bt[e->imm.table->def], vt);
  } else {
    bt[e->imm.label] = tl_type_lub(m, bt[e->imm.label], vt);
  }
}

typedef struct { tl_expr *e; uint32_t next; } refin_frame;

void tl_expr_refinalize(tl_module *m, tl_func *f, tl_expr **root) {
  if (!*root) return;
  tl_type *bt = tl_malloc((f->nlabel + 1) * sizeof(tl_type));
  size_t cap = 64, n = 0;
  refin_frame *st = tl_malloc(cap * sizeof *st);
  if (!bt || !st) {
    tl_free(bt);
    tl_free(st);
    tl_arena_oom(&m->arena); /* the entry point's longjmp (aborts if none) */
  }
  for (uint32_t i = 0; i < f->nlabel; i++) bt[i] = TL_UNREACHABLE;
  tl_expr *e = *root; /* the node whose kids are typed: st[n - 1] */
  uint32_t next = 0;
  st[n++] = (refin_frame){e, 0};
  for (;;) {
    while (next < e->nkid) {
      tl_expr *k = e->kid[next++];
      if (!k) continue;
      if (!k->nkid) {
        /* leaves: constants and local.get inline, the rest by refin_node */
        const tl_opinfo *oi = &tl_ops[k->op];
        if (!(oi->flags & (TL_F_CONTROL | TL_F_NORETURN | TL_F_BRANCH)) && oi->nops != TL_SIG_SPECIAL)
          k->type = fixed_result(m, k);
        else if (k->op == TL_OP_LOCAL_GET)
          k->type = f->local[k->imm.index];
        else
          refin_node(m, f, bt, k);
        continue;
      }
      st[n - 1].next = next;
      if (n == cap) {
        refin_frame *q = tl_realloc(st, (cap *= 2) * sizeof *st);
        if (!q) {
          tl_free(st);
          tl_free(bt);
          tl_arena_oom(&m->arena);
        }
        st = q;
      }
      st[n++] = (refin_frame){k, 0};
      e = k;
      next = 0;
    }
    refin_node(m, f, bt, e);
    if (!--n) break;
    e = st[n - 1].e;
    next = st[n - 1].next;
  }
  tl_free(st);
  tl_free(bt);
}

void tl_func_refinalize(tl_module *m, tl_func *f) { tl_expr_refinalize(m, f, &f->body); }


/* ref.func nodes whose type is stale (their function's type changed, or
 * the gc feature did): found in one walk, and their functions (or constant
 * expressions) retyped whole. */
typedef struct { bool stale; } stale_ctx;

static void find_stale(tl_walk *w, tl_expr **slot) {
  stale_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_REF_FUNC && e->type != tl_ref_func_type(w->m, e->imm.index)) c->stale = true;
  /* a caught exnref's type follows m->typed_funcs too (clause_type) */
  if ((e->op == TL_OP_TT_CATCH_REF || e->op == TL_OP_TT_CATCH_ALL_REF) && e->type != clause_type(w->m, e))
    c->stale = true;
}

static void retype_node(tl_walk *w, tl_expr **slot) { tl_expr_finalize(w->m, NULL, *slot); }

static void retype_const(tl_module *m, tl_expr **root) {
  stale_ctx c = {false};
  if (!*root) return;
  tl_walk_post(m, NULL, root, find_stale, &c);
  if (c.stale) tl_walk_post(m, NULL, root, retype_node, NULL);
}

void tl_module_retype_ref_funcs(tl_module *m) {
  for (uint32_t i = 0; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    if (!f->body || f->lazy) continue;
    stale_ctx c = {false};
    tl_walk_post_only(m, f, &f->body, find_stale, &c, 0);
    if (c.stale) tl_func_refinalize(m, f);
  }
  for (uint32_t i = 0; i < m->globals.n; i++) retype_const(m, &TL_GLOBAL(m, i)->init);
  for (uint32_t i = 0; i < m->tables.n; i++) retype_const(m, &TL_TABLE(m, i)->init);
  for (uint32_t i = 0; i < m->elems.n; i++)
    for (uint32_t k = 0; k < TL_ELEM(m, i)->n; k++) retype_const(m, &TL_ELEM(m, i)->item[k]);
}
