/* memory64_lowering.c — wasm-opt's memory64-lowering and its alias
 * table64-lowering (Emscripten's -sMEMORY64=2 runs them): every 64-bit
 * memory and table becomes a 32-bit one, for engines without memory64.
 *
 * Code keeps its i64 pointers; only where they meet a memory or a table
 * do they change: an i64 address, length or table index operand is
 * wrapped to i32 (a constant or an extend folds), memory.size/table.size
 * are extended back to i64 (unsigned), memory.grow/table.grow too with
 * -1 kept -1 (for a memory through a signed extend, exact since a 32-bit
 * memory has at most 65536 pages; for a table through a local and an if).
 * tl_index64_mask says which operands and results are 64-bit, so every
 * load, store, atomic, SIMD lane access, bulk op, table op and
 * call_indirect is covered by one rule. An access whose memarg offset is
 * 4 GiB or more can only trap once the memory is 32-bit: its operands run
 * (dropped) and it becomes `unreachable`. Maxima above the 32-bit limits
 * are clamped. Active segment offsets become i32 constant expressions:
 * constants wrap, add/sub/mul become their i32 forms (exact mod 2^32), and
 * a read of the imported __memory_base (data) or __table_base (elements)
 * reads an imported __memory_base32 / __table_base32 from the same module
 * instead (added unless there is one), as Binaryen does for Emscripten's
 * dynamic linking. The memory64 feature is then off.
 *
 * Refused (an error, nothing changed): a 64-bit memory whose initial size
 * is over 65536 pages or a 64-bit table over 2^32-1 entries (no 32-bit one
 * holds it), and a segment offset reading another i64 global.
 * Kind MODULE_TRAPS: an address or index of 4 GiB or more wraps where it
 * trapped; the module behaves the same wherever none does. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  tl_module *m;
  bool changed_types;   /* a trap block replaced an access: refinalize */
  uint32_t mem_base, table_base;   /* the *_base32 imports; TL_NO_INDEX: none */
  bool need_mem_base, need_table_base;   /* an offset reads __memory_base / __table_base */
  bool refused;         /* a segment offset that cannot be lowered */
} lower;

/* x as an i32: the operand of a 64-bit index, wrapped. */
static tl_expr *wrap(tl_module *m, tl_expr *x) {
  if (x->type != TL_I64) return x;   /* unreachable stays as it is */
  if (x->op == TL_OP_I64_CONST) return tl_make_const_i32(m, (int32_t)(uint32_t)(uint64_t)x->imm.i64);
  if (x->op == TL_OP_I64_EXTEND_I32_U || x->op == TL_OP_I64_EXTEND_I32_S) return x->kid[0];
  return tl_make_unary(m, TL_OP_I32_WRAP_I64, x);
}

static tl_expr *iff(tl_module *m, tl_func *f, tl_expr *c, tl_expr *t, tl_expr *e) {
  tl_expr *x = tl_expr_new(m, TL_OP_IF, 3);
  x->kid[0] = c, x->kid[1] = t, x->kid[2] = e;
  x->imm.block.label = TL_NO_LABEL;
  x->imm.block.bt = TL_NO_INDEX;
  tl_expr_finalize(m, f, x);
  return x;
}

/* A grow's i32 result as the i64 it was: -1 stays -1. */
static tl_expr *grow_result(tl_module *m, tl_func *f, tl_expr *grow, bool table) {
  if (!table) return tl_make_unary(m, TL_OP_I64_EXTEND_I32_S, grow);
  uint32_t t = tl_func_add_var(m, f, TL_I32);
  tl_expr *failed = tl_make_binary(m, TL_OP_I32_EQ, tl_make_local_set(m, f, t, grow, true),
                                   tl_make_const_i32(m, -1));
  return iff(m, f, failed, tl_make_const_i64(m, -1),
             tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, tl_make_local_get(m, f, t)));
}

/* An access that can only trap: its operands run, then unreachable. */
static tl_expr *trap(tl_module *m, tl_expr *e) {
  tl_expr *kids[4];
  uint32_t n = 0;
  for (uint32_t i = 0; i < e->nkid && n < 3; i++) {
    tl_expr *k = e->kid[i];
    kids[n++] = k->type == TL_NONE || k->type == TL_UNREACHABLE ? k : tl_make_drop(m, k);
  }
  kids[n++] = tl_make_unreachable(m);
  return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, kids, n);
}

static void visit(tl_walk *w, tl_expr **slot) {
  lower *l = w->ctx;
  tl_module *m = l->m;
  tl_expr *e = *slot;
  uint32_t mask = tl_index64_mask(m, e->op, e->imm);
  if (!mask) return;
  uint8_t imm = tl_ops[e->op].imm;
  if (imm == TL_IMM_MEMARG || imm == TL_IMM_MEMARG_LANE) {
    uint64_t off = tl_memarg_offset(m, &e->imm.mem);
    if (off > UINT32_MAX) {
      *slot = trap(m, e);
      l->changed_types = true;
      return;
    }
    tl_memarg_set_offset(m, &e->imm.mem, off);
  }
  for (uint32_t i = 0; i < 3 && i < e->nkid; i++)
    if (mask & (1u << i)) e->kid[i] = wrap(m, e->kid[i]);
  if (mask & TL_IDX64_CALLEE) e->kid[e->nkid - 1] = wrap(m, e->kid[e->nkid - 1]);
  if (!(mask & TL_IDX64_RESULT) || e->type == TL_UNREACHABLE) return;
  e->type = TL_I32;
  if (e->op == TL_OP_MEMORY_SIZE || e->op == TL_OP_TABLE_SIZE)
    *slot = tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, e);
  else
    *slot = grow_result(m, w->f, e, e->op == TL_OP_TABLE_GROW);
}

/* ---- segment offsets ----------------------------------------------------------- */
typedef struct {
  lower *l;
  const char *base;     /* "__memory_base" or "__table_base" */
  uint32_t *base32;     /* where its 32-bit twin's index is kept */
  bool *need;           /* set when an offset reads it */
  bool rewrite;         /* false: only check */
} seg;

static bool is_import_named(const tl_global *g, const char *name) {
  return g->imp.module && tl_name_eq(g->imp.name, g->imp.name_len, name, (uint32_t)strlen(name));
}

static void seg_visit(tl_walk *w, tl_expr **slot) {
  seg *s = w->ctx;
  tl_expr *e = *slot;
  tl_op to;
  switch (e->op) {
  case TL_OP_I64_CONST:
    if (s->rewrite) *slot = tl_make_const_i32(s->l->m, (int32_t)(uint32_t)(uint64_t)e->imm.i64);
    return;
  case TL_OP_I64_ADD: to = TL_OP_I32_ADD; break;
  case TL_OP_I64_SUB: to = TL_OP_I32_SUB; break;
  case TL_OP_I64_MUL: to = TL_OP_I32_MUL; break;
  case TL_OP_GLOBAL_GET:
    if (e->type != TL_I64) return;
    if (!is_import_named(TL_GLOBAL(s->l->m, e->imm.index), s->base)) {
      s->l->refused = true;
      return;
    }
    *s->need = true;
    if (s->rewrite) {
      e->imm.index = *s->base32;
      e->type = TL_I32;
    }
    return;
  default:
    if (e->type == TL_I64) s->l->refused = true;   /* no i32 form known */
    return;
  }
  if (s->rewrite) {
    e->op = to;
    e->type = TL_I32;
  }
}

/* Each active segment offset of a 64-bit memory (data) or table (elem). */
static void walk_offsets(lower *l, bool rewrite) {
  tl_module *m = l->m;
  seg d = {l, "__memory_base", &l->mem_base, &l->need_mem_base, rewrite},
      t = {l, "__table_base", &l->table_base, &l->need_table_base, rewrite};
  for (size_t i = 0; i < m->datas.n; i++) {
    tl_data *x = TL_DATA(m, i);
    if (x->mode == TL_SEG_ACTIVE && tl_memory_is64(m, x->mem)) tl_walk_post(m, NULL, &x->offset, seg_visit, &d);
  }
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *x = TL_ELEM(m, i);
    if (x->mode == TL_SEG_ACTIVE && tl_table_is64(m, x->table)) tl_walk_post(m, NULL, &x->offset, seg_visit, &t);
  }
}

/* The imported `name` (an i32 from module `from`), added unless present. */
static uint32_t twin(tl_module *m, const char *base, const char *name) {
  const tl_global *src = NULL;
  for (uint32_t i = 0; i < m->nimported_globals; i++)
    if (is_import_named(TL_GLOBAL(m, i), base)) src = TL_GLOBAL(m, i);
  for (uint32_t i = 0; i < m->nimported_globals; i++) {
    const tl_global *g = TL_GLOBAL(m, i);
    if (is_import_named(g, name) && g->type == TL_I32 && !g->mut) return i;
  }
  char mod[256];
  uint32_t len = tl_name_len(src->imp.module, src->imp.module_len);
  if (len >= sizeof mod) len = sizeof mod - 1;
  memcpy(mod, src->imp.module, len);
  mod[len] = 0;
  return tl_module_add_global_import(m, mod, name, TL_I32, name);
}

static tl_status refuse(tl_pass_ctx *ctx, const char *what, uint32_t k, const char *why) {
  return tl_errorf(ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "memory64-lowering: %s %u %s", what, k, why);
}

tl_status tl_pass_memory64_lowering(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  for (uint32_t k = 0; k < m->memories.n; k++)
    if (TL_MEMORY(m, k)->is64 && TL_MEMORY(m, k)->min > 65536)
      return refuse(ctx, "memory", k, "has more than 65536 pages (4 GiB) initially");
  for (uint32_t k = 0; k < m->tables.n; k++)
    if (TL_TABLE(m, k)->is64 && TL_TABLE(m, k)->min > UINT32_MAX)
      return refuse(ctx, "table", k, "has more than 2^32-1 entries initially");
  lower l = {m, false, TL_NO_INDEX, TL_NO_INDEX, false, false, false};
  walk_offsets(&l, false);
  if (l.refused)
    return tl_errorf(ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                     "memory64-lowering: a segment offset of a 64-bit memory or table reads an i64 "
                     "global other than the imported __memory_base/__table_base");
  /* twins first: adding an import renumbers the globals the walk then sees */
  if (l.need_mem_base) l.mem_base = twin(m, "__memory_base", "__memory_base32");
  if (l.need_table_base) l.table_base = twin(m, "__table_base", "__table_base32");
  if ((l.need_mem_base && l.mem_base == TL_NO_INDEX) || (l.need_table_base && l.table_base == TL_NO_INDEX))
    return tl_nomem(ctx->err, "memory64-lowering");
  uint8_t *retype = tl_scratch_calloc(m->funcs.n + 1, 1);   /* functions to refinalize */
  if (!retype) return tl_nomem(ctx->err, "memory64-lowering");
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    l.changed_types = false;
    tl_walk_post_only(m, f, &f->body, visit, &l, TL_F_INDEXED);
    retype[i] = l.changed_types;
  }
  walk_offsets(&l, true);
  for (uint32_t k = 0; k < m->memories.n; k++) {
    tl_memory *mem = TL_MEMORY(m, k);
    if (!mem->is64) continue;
    mem->is64 = false;
    if (mem->has_max && mem->max > 65536) mem->max = 65536;
  }
  for (uint32_t k = 0; k < m->tables.n; k++) {
    tl_table *t = TL_TABLE(m, k);
    if (!t->is64) continue;
    t->is64 = false;
    if (t->has_max && t->max > UINT32_MAX) t->max = UINT32_MAX;
  }
  m->features &= ~(tl_features)TL_FEAT_MEMORY64;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    if (retype[i]) tl_func_refinalize(m, TL_FUNC(m, i));
  tl_free(retype);
  return TL_OK;
}

tl_status tl_pass_table64_lowering(tl_pass_ctx *ctx) { return tl_pass_memory64_lowering(ctx); }
