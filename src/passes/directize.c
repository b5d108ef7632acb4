/* directize.c — call_indirect through a table whose contents are known
 * becomes a direct call. A table is known when it is defined (not
 * imported), not exported, and no code writes it (table.set, table.fill,
 * table.grow, table.copy into it, table.init into it); its contents are
 * then its active element segments (constant offsets) over nulls. A
 * constant index whose entry is a function of the call's signature gives
 * `call`/`return_call`; a select of two constant indices (both arms known
 * or known to trap) gives an if of two calls, the operands saved in new
 * locals first (Binaryen's CallUtils::convertToDirectCalls). A known trap
 * (index out of range, null entry, signature mismatch) is left as it is by
 * default, so it still traps with the spec's reason; --pass-arg
 * directize-traps-unreachable@1 turns it into drops of the operands and
 * `unreachable`, as wasm-opt does. With --pass-arg
 * directize-initial-contents-immutable@1 (as in wasm-opt; true of LLVM's
 * output) the segments' entries are trusted even in imported, exported or
 * written tables; null and out-of-range entries of those stay unknown.
 * Lazy bodies (still bytes) are read without decoding (tl_code_refs): one
 * is decoded only when it calls through a known table.
 * Guarantees the same behaviour. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { E_NULL = UINT32_MAX, E_UNKNOWN = UINT32_MAX - 1 };

typedef struct {
  bool known;        /* contents known (at least the initial ones) */
  bool modified;     /* imported, exported or written by code */
  uint32_t size;     /* table size (entries past the last segment are null) */
  uint32_t *entry;   /* size entries: function index, E_NULL or E_UNKNOWN */
} table_info;

typedef struct {
  tl_module *m;
  table_info *tab;
  bool traps_unreachable;
  bool changed;
  bool nomem; /* a scratch allocation failed: stop rewriting */
} dz;

enum { T_UNKNOWN, T_TRAP, T_KNOWN };

static void mark_writes(tl_walk *w, tl_expr **slot) {
  table_info *tab = w->ctx;
  tl_expr *e = *slot;
  switch (e->op) {
  case TL_OP_TABLE_SET: case TL_OP_TABLE_FILL: case TL_OP_TABLE_GROW: tab[e->imm.index].modified = true; break;
  case TL_OP_TABLE_COPY: tab[e->imm.idx2.a].modified = true; break;
  case TL_OP_TABLE_INIT: tab[e->imm.idx2.b].modified = true; break;
  default: break;
  }
}

/* A lazy body's table writes, from its bytes (code_scan.c): table.set,
 * table.fill, table.grow and table.init name the table they write (the
 * last's other immediate is a segment); table.copy names it first, then
 * the table it reads. */
typedef struct {
  table_info *tab;
  bool copy_src;   /* the next table.copy immediate is the source */
} lazy_writes;

static void lazy_write(void *user, const tl_code_ref *r) {
  lazy_writes *c = user;
  if (r->space != TL_SPACE_TABLE) return;
  switch (r->op) {
  case TL_OP_TABLE_SET: case TL_OP_TABLE_FILL: case TL_OP_TABLE_GROW: case TL_OP_TABLE_INIT:
    c->tab[r->index].modified = true;
    break;
  case TL_OP_TABLE_COPY:
    if (!c->copy_src) c->tab[r->index].modified = true;
    c->copy_src = !c->copy_src;
    break;
  default: break;
  }
}

static void mark_body_writes(tl_module *m, tl_func *f, table_info *tab) {
  lazy_writes c = {tab, false};
  if (f->lazy) tl_code_refs(m, f->code, f->code_size, lazy_write, &c);
  else tl_walk_post(m, f, &f->body, mark_writes, tab);
}

/* Lays the active segments of table t over nulls; false if any offset is
 * not a constant or a segment does not fit (instantiation would fail), or
 * out of memory (*nomem set). */
static bool flatten(tl_module *m, uint32_t t, table_info *ti, bool *nomem) {
  tl_table *tb = TL_TABLE(m, t);
  if (tb->elem != TL_FUNCREF || tb->min > (1u << 24)) return false;
  ti->size = (uint32_t)tb->min;
  ti->entry = tl_scratch_realloc(NULL, (size_t)ti->size + 1, sizeof(uint32_t));
  if (!ti->entry) {
    ti->size = 0;
    *nomem = true;
    return false;
  }
  for (uint32_t i = 0; i < ti->size; i++) ti->entry[i] = E_NULL;
  for (size_t s = 0; s < m->elems.n; s++) {
    tl_elem *el = TL_ELEM(m, s);
    if (el->mode != TL_SEG_ACTIVE || el->table != t) continue;
    if (!el->offset || el->offset->op != TL_OP_I32_CONST) return false;
    uint64_t off = (uint32_t)el->offset->imm.i32;
    if (off + el->n > ti->size) return false;
    for (uint32_t j = 0; j < el->n; j++) {
      tl_expr *it = el->item[j];
      ti->entry[off + j] = it->op == TL_OP_REF_FUNC ? it->imm.index
                           : it->op == TL_OP_REF_NULL ? E_NULL : E_UNKNOWN;
    }
  }
  return true;
}

static bool any_known(const table_info *tab, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (tab[i].known) return true;
  return false;
}

/* Which tables can be optimized: unmodified ones, and with
 * initial_immutable any whose segments flatten. *nomem when out of memory. */
static void analyze(tl_module *m, table_info *tab, bool initial_immutable, bool *nomem) {
  for (uint32_t t = 0; t < m->tables.n; t++) tab[t].modified = t < m->nimported_tables;
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_TABLE) tab[TL_EXPORT(m, i)->index].modified = true;
  for (uint32_t t = 0; t < m->tables.n; t++) tab[t].known = initial_immutable || !tab[t].modified;
  if (!any_known(tab, m->tables.n)) return;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) mark_body_writes(m, TL_FUNC(m, i), tab);
  for (uint32_t t = 0; t < m->tables.n; t++) {
    if (tab[t].modified && !initial_immutable) tab[t].known = false;
    if (tab[t].known && !flatten(m, t, &tab[t], nomem)) tab[t].known = false;
  }
}

/* How a call_indirect of type `type` meets func: by type identity (rec
 * groups count: two (func) in different groups are different types), not
 * by signature. T_KNOWN: the same type; T_UNKNOWN: a declared subtype (the
 * call succeeds, but the direct call would change types); T_TRAP: else. */
static int call_match(tl_module *m, uint32_t type, uint32_t func) {
  uint32_t want = TL_FTYPE(m, type)->canon, have = TL_FTYPE(m, TL_FUNC(m, func)->type)->canon;
  if (want == have) return T_KNOWN;
  return tl_heap_sub(m, TL_HT_DEF + have, TL_HT_DEF + want) ? T_UNKNOWN : T_TRAP;
}

/* What a call through table t at constant index c with type `type` does;
 * *func receives the callee when T_KNOWN. */
static int target_info(dz *d, const tl_expr *c, uint32_t t, uint32_t type, uint32_t *func) {
  table_info *ti = &d->tab[t];
  if (!ti->known || c->op != TL_OP_I32_CONST) return T_UNKNOWN;
  uint32_t i = (uint32_t)c->imm.i32;
  bool null = i >= ti->size || ti->entry[i] == E_NULL;
  if (null) return ti->modified ? T_UNKNOWN : T_TRAP; /* a modified table may get it later */
  if (ti->entry[i] == E_UNKNOWN) return T_UNKNOWN;
  int match = call_match(d->m, type, ti->entry[i]);
  if (match != T_KNOWN) return match;
  *func = ti->entry[i];
  return T_KNOWN;
}

static tl_expr *make_call(dz *d, tl_expr *ci, uint32_t func, tl_expr **args, uint32_t n) {
  tl_expr *call = tl_expr_new(d->m, ci->op == TL_OP_CALL_INDIRECT ? TL_OP_CALL : TL_OP_RETURN_CALL, n);
  call->imm.index = func;
  if (n) memcpy(call->kid, args, n * sizeof *args);
  tl_expr_finalize(d->m, NULL, call);
  return call;
}

/* (drop operand)... unreachable, as wasm-opt emits for a known trap. */
static tl_expr *make_trap(dz *d, tl_expr *ci) {
  tl_expr *b = tl_expr_new(d->m, TL_OP_BLOCK, 0);
  for (uint32_t i = 0; i < ci->nkid; i++) {
    tl_expr *k = ci->kid[i];
    bool pure = k->op == TL_OP_I32_CONST;
    if (!pure) tl_expr_push_kid(d->m, b, tl_type_is_concrete(k->type) ? tl_make_drop(d->m, k) : k);
  }
  tl_expr_push_kid(d->m, b, tl_make_unreachable(d->m));
  tl_expr_finalize(d->m, NULL, b);
  return b;
}

static bool can_spill(const tl_expr *k) {
  return tl_type_is_concrete(k->type) && !tl_type_is_tuple(k->type);
}

/* call_indirect (select c1 c2 cond) -> operands into locals; if cond
 * call-or-trap c1 else call-or-trap c2. A trapping arm keeps a
 * call_indirect at its constant index (same trap reason) unless traps may
 * become unreachable. */
static tl_expr *select_calls(dz *d, tl_func *f, tl_expr *ci) {
  tl_expr *sel = ci->kid[ci->nkid - 1];
  if ((sel->op != TL_OP_SELECT && sel->op != TL_OP_SELECT_T) || sel->kid[2]->type == TL_UNREACHABLE)
    return NULL;
  uint32_t t = ci->imm.idx2.b, ty = ci->imm.idx2.a, fa = 0, fb = 0;
  int ia = target_info(d, sel->kid[0], t, ty, &fa), ib = target_info(d, sel->kid[1], t, ty, &fb);
  if (ia == T_UNKNOWN || ib == T_UNKNOWN) return NULL;
  uint32_t nargs = ci->nkid - 1;
  for (uint32_t i = 0; i < nargs; i++)
    if (!can_spill(ci->kid[i])) return NULL;
  tl_module *m = d->m;
  uint32_t *loc = tl_scratch_realloc(NULL, (size_t)nargs + 1, sizeof(uint32_t));
  tl_expr **args = tl_scratch_realloc(NULL, (size_t)nargs + 2, sizeof(tl_expr *));
  if (!loc || !args) { /* nothing rewritten yet */
    tl_free(loc);
    tl_free(args);
    d->nomem = true;
    return NULL;
  }
  tl_expr *blk = tl_expr_new(m, TL_OP_BLOCK, 0);
  for (uint32_t i = 0; i < nargs; i++) {
    loc[i] = tl_func_add_var(m, f, ci->kid[i]->type);
    tl_expr_push_kid(m, blk, tl_make_local_set(m, f, loc[i], ci->kid[i], false));
  }
  tl_expr *arm[2];
  for (int a = 0; a < 2; a++) {
    for (uint32_t i = 0; i < nargs; i++) args[i] = tl_make_local_get(m, f, loc[i]);
    int info = a ? ib : ia;
    if (info == T_KNOWN) {
      arm[a] = make_call(d, ci, a ? fb : fa, args, nargs);
    } else if (d->traps_unreachable) {
      arm[a] = tl_make_unreachable(m);
    } else {
      tl_expr *k = tl_expr_new(m, (tl_op)ci->op, nargs + 1);
      k->imm = ci->imm;
      memcpy(k->kid, args, nargs * sizeof *args);
      k->kid[nargs] = sel->kid[a];
      tl_expr_finalize(m, NULL, k);
      arm[a] = k;
    }
  }
  tl_expr *iff = tl_expr_new(m, TL_OP_IF, 3);
  iff->kid[0] = sel->kid[2];
  iff->kid[1] = arm[0];
  iff->kid[2] = arm[1];
  tl_expr_finalize(m, NULL, iff);
  tl_expr_push_kid(m, blk, iff);
  tl_expr_finalize(m, NULL, blk);
  tl_free(loc);
  tl_free(args);
  return blk;
}

static void visit(tl_walk *w, tl_expr **slot) {
  dz *d = w->ctx;
  tl_expr *e = *slot;
  if (e->op != TL_OP_CALL_INDIRECT && e->op != TL_OP_RETURN_CALL_INDIRECT) return;
  uint32_t func = 0;
  tl_expr *idx = e->kid[e->nkid - 1], *rep = NULL;
  int info = target_info(d, idx, e->imm.idx2.b, e->imm.idx2.a, &func);
  if (info == T_KNOWN) rep = make_call(d, e, func, e->kid, e->nkid - 1);
  else if (info == T_TRAP && d->traps_unreachable) rep = make_trap(d, e);
  else if (info == T_UNKNOWN && !d->nomem) rep = select_calls(d, w->f, e);
  if (!rep) return;
  *slot = rep;
  d->changed = true;
}

/* Whether a lazy body calls through a known table (from its bytes): only
 * then is it decoded; the rest stay bytes. */
typedef struct {
  const table_info *tab;
  bool any;
} lazy_calls;

static void lazy_call(void *user, const tl_code_ref *r) {
  lazy_calls *c = user;
  if (r->space == TL_SPACE_TABLE && (r->op == TL_OP_CALL_INDIRECT || r->op == TL_OP_RETURN_CALL_INDIRECT) &&
      c->tab[r->index].known)
    c->any = true;
}

static bool calls_known(tl_module *m, const tl_func *f, const table_info *tab) {
  lazy_calls c = {tab, false};
  tl_code_refs(m, f->code, f->code_size, lazy_call, &c);
  return c.any;
}

/* Rewrites function i's call_indirects through known tables; a lazy body
 * is decoded only when it has some. */
static tl_status directize_func(tl_pass_ctx *ctx, dz *d, uint32_t i) {
  tl_func *f = TL_FUNC(d->m, i);
  if (f->lazy) {
    if (!calls_known(d->m, f, d->tab)) return TL_OK;
    tl_status s = tl_func_decode(d->m, i, ctx->err);
    if (s != TL_OK) return s;
  }
  d->changed = false;
  tl_walk_post(d->m, f, &f->body, visit, d);
  if (d->changed) tl_func_refinalize(d->m, f);
  return TL_OK;
}

tl_status tl_pass_directize(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  if (!m->tables.n) return TL_OK;
  const char *arg = tl_pass_arg_get(ctx, "directize-traps-unreachable");
  const char *imm = tl_pass_arg_get(ctx, "directize-initial-contents-immutable");
  dz d = {m, tl_scratch_calloc(m->tables.n, sizeof(table_info)), arg && strcmp(arg, "0") != 0, false, false};
  if (!d.tab) return tl_nomem(ctx->err, "directize");
  analyze(m, d.tab, imm && strcmp(imm, "0") != 0, &d.nomem);
  tl_status s = TL_OK;
  if (!d.nomem && any_known(d.tab, m->tables.n))
    for (uint32_t i = m->nimported_funcs; i < m->funcs.n && !d.nomem && s == TL_OK; i++)
      s = directize_func(ctx, &d, i);
  for (uint32_t t = 0; t < m->tables.n; t++) tl_free(d.tab[t].entry);
  tl_free(d.tab);
  return s != TL_OK ? s : d.nomem ? tl_nomem(ctx->err, "directize") : TL_OK;
}
