/* effects.c — what evaluating a subtree may do: the OR of its opcodes'
 * effect flags, whether a branch leaves it, and whether it may loop
 * forever (a labeled loop inside). Linear in the subtree; callers use it on
 * the subtrees they are about to move or remove. Exceptions: throw, rethrow
 * and throw_ref add TL_F_THROWS (and NORETURN); calls may throw as well
 * (TL_F_CALL covers it); a catch arm writes its payload local; a try_table
 * clause whose label is outside branches out. GC heap effects count as
 * memory ones (gc_as_memory); a field read or write, array.len, i31.get
 * or ref.as_non_null of a non-nullable reference does not trap. */
#include "passes.h"

#include <stdlib.h>

typedef struct {
  tl_effects *fx;
  uint8_t *defined; /* labels defined inside the subtree, by label id */
  uint32_t nlabel;
} fx_ctx;

static bool defined_inside(fx_ctx *c, uint32_t label) {
  return c->defined && label < c->nlabel && c->defined[label];
}

/* The GC heap as memory (ir.h): a field read is a load, a write or an
 * allocation (a fresh identity: never merged nor removed) a store, a
 * segment read a table read; so passes order them as they order those. */
static uint32_t gc_as_memory(uint32_t fl) {
  uint32_t out = 0;
  if (fl & TL_F_GC_READ) out |= TL_F_READS_MEM;
  if (fl & (TL_F_GC_WRITE | TL_F_GC_ALLOC)) out |= TL_F_WRITES_MEM;
  if (fl & TL_F_GC_SEG) out |= TL_F_READS_TABLE;
  return out;
}

/* GC ops whose only trap is a null operand 0: on a non-nullable one they
 * cannot trap (the IR's types are exact: passes refinalize GC functions). */
static bool null_only_trap(const tl_expr *e) {
  switch (e->op) {
  case TL_OP_STRUCT_GET: case TL_OP_STRUCT_GET_S: case TL_OP_STRUCT_GET_U: case TL_OP_STRUCT_SET:
  case TL_OP_ARRAY_LEN: case TL_OP_I31_GET_S: case TL_OP_I31_GET_U: case TL_OP_REF_AS_NON_NULL:
    return e->nkid && e->kid[0] && tl_type_is_ref(e->kid[0]->type) && !tl_ref_nullable(e->kid[0]->type);
  default: return false;
  }
}

static void fx_pre(tl_walk *w, tl_expr **slot) {
  fx_ctx *c = w->ctx;
  tl_expr *e = *slot;
  uint32_t fl = tl_ops[e->op].flags;
  if ((fl & TL_F_TRAPS) && null_only_trap(e)) fl &= ~TL_F_TRAPS;
  /* A branch only matters if it leaves the subtree (branches_out below). */
  c->fx->flags |= (fl & TL_F_BRANCH) ? fl & ~TL_F_NORETURN : fl;
  if (fl & (TL_F_GC_READ | TL_F_GC_WRITE | TL_F_GC_ALLOC | TL_F_GC_SEG)) c->fx->flags |= gc_as_memory(fl);
  if (e->type == TL_UNREACHABLE) c->fx->unreachable = true;
  if (fl & TL_F_CONTROL) {
    uint32_t l = e->imm.block.label;
    if (l != TL_NO_LABEL && l < c->nlabel) {
      /* allocated at the first label: most subtrees define none. Out of
       * memory leaves it NULL: every branch then counts as leaving the
       * subtree, which only over-states the effects (safe). */
      if (!c->defined) c->defined = tl_scratch_calloc(c->nlabel, 1);
      if (c->defined) c->defined[l] = 1;
    }
    if (e->op == TL_OP_LOOP && l != TL_NO_LABEL) c->fx->flags |= TL_F_NORETURN; /* may not end */
    return;
  }
  if (e->op == TL_OP_RETURN || e->op == TL_OP_RETURN_CALL || e->op == TL_OP_RETURN_CALL_INDIRECT ||
      e->op == TL_OP_RETURN_CALL_REF)
    c->fx->branches_out = true;
  if (e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX) c->fx->flags |= TL_F_WRITES_LOCAL;
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF || tl_ops[e->op].imm == TL_IMM_CLAUSE ||
      tl_op_is_br_on(e->op)) {
    if (!defined_inside(c, e->imm.label)) c->fx->branches_out = true;
  } else if (e->op == TL_OP_BR_TABLE) {
    if (!defined_inside(c, e->imm.table->def)) c->fx->branches_out = true;
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      if (!defined_inside(c, e->imm.table->targets[i])) c->fx->branches_out = true;
  }
}

void tl_effects_of(tl_module *m, tl_func *f, tl_expr *e, tl_effects *out) {
  *out = (tl_effects){0};
  if (!e) return;
  uint32_t nlabel = f ? f->nlabel : 0;
  fx_ctx c = {out, NULL, nlabel};
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = &c;
  w.pre = fx_pre;
  tl_walk_run(&w, &e);
  tl_free(c.defined);
}

bool tl_effects_removable(const tl_effects *fx) {
  const uint32_t bad = TL_F_WRITES_MEM | TL_F_WRITES_TABLE | TL_F_WRITES_LOCAL |
                       TL_F_WRITES_GLOBAL | TL_F_CALL | TL_F_TRAPS | TL_F_NORETURN |
                       TL_F_ATOMIC | TL_F_THROWS | TL_F_EH;
  return !(fx->flags & bad) && !fx->branches_out;
}
