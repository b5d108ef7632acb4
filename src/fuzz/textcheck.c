/* textcheck.c — tl_fuzz_text_comparable: whether the printer's text of a
 * module is expected to parse back to the same module, so that the fuzzers'
 * print -> parse oracle (tilt-fuzz roundtrip, fuzz_text) applies. Two IR
 * forms have no faithful text yet: tuple-typed locals (the writer splits
 * them; the printer prints "(local i32 i64)", which reads as two locals) and
 * structured constructs of type unreachable as operands (the writer
 * reifies them as `block ... end unreachable`; the printer gives them no
 * result type, so the parent consuming their value no longer validates).
 * A third: a br_on_* (null, non-null, cast) whose operand never completes
 * prints as just that operand (its label's type may not fit it), which
 * reads back as the operand's statement and a popped value: the same
 * behaviour, a different tree. A fourth: a br_on_cast(_fail) whose target
 * is not under its operand's (refined) type: the printer states the glb of
 * the two, which reads back with a narrower branch type. A fifth: a br_if
 * whose value is of a reference type more precise than its label's (the IR
 * types br_if by its value, wasm by its label; the writer adds a ref.cast,
 * the printer not yet), where a block typed from it no longer parses. */
#include "fuzz.h"
#include "../ir/ir.h"

static bool is_construct(const tl_expr *e) {
  return e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP || e->op == TL_OP_IF || e->op == TL_OP_TRY ||
         e->op == TL_OP_TRY_TABLE;
}

/* An unreachable construct as an operand (of an instruction, or an if's
 * condition); in a body list or as an arm it prints faithfully. */
static bool is_br_on(const tl_expr *e) {
  return e->op == TL_OP_BR_ON_NULL || e->op == TL_OP_BR_ON_NON_NULL || e->op == TL_OP_BR_ON_CAST ||
         e->op == TL_OP_BR_ON_CAST_FAIL;
}

/* The type branches to label l carry, seen from the walk's current node. */
static tl_type label_type(tl_walk *w, uint32_t l) {
  for (uint32_t k = 1;; k++) {
    tl_expr *p = tl_walk_parent(w, k);
    if (!p) return TL_NONE;
    if (p->op == TL_OP_LOOP || !(tl_ops[p->op].flags & TL_F_CONTROL) || p->imm.block.label != l) continue;
    return p == w->f->body ? TL_FTYPE(w->m, w->f->type)->results : p->type; /* the body's: the results */
  }
}

static void find_dead_operand(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot, *parent = tl_walk_parent(w, 1);
  if (e->op == TL_OP_BR_IF && e->nkid == 2 && tl_type_is_ref(e->type) && label_type(w, e->imm.label) != e->type)
    *(bool *)w->ctx = true;
  if (is_br_on(e) && e->nkid && e->kid[0] && e->kid[0]->type == TL_UNREACHABLE) *(bool *)w->ctx = true;
  if ((e->op == TL_OP_BR_ON_CAST || e->op == TL_OP_BR_ON_CAST_FAIL) && e->nkid && e->kid[0] &&
      tl_type_is_ref(e->kid[0]->type) && !tl_type_sub(w->m, e->imm.idx2.b, e->kid[0]->type))
    *(bool *)w->ctx = true;
  if (!parent || !is_construct(e) || e->type != TL_UNREACHABLE) return;
  if (!is_construct(parent) || (parent->op == TL_OP_IF && slot == &parent->kid[0]))
    *(bool *)w->ctx = true;
}

bool tl_fuzz_text_comparable(tl_module *m) {
  bool dead = false;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n && !dead; i++) {
    tl_func *f = TL_FUNC(m, i);
    for (uint32_t k = 0; k < f->nlocal; k++)
      if (tl_type_is_tuple(f->local[k])) return false;
    if (!f->body) continue;
    tl_walk w = {0};
    w.m = m;
    w.f = f;
    w.ctx = &dead;
    w.pre = find_dead_operand;
    tl_walk_run(&w, &f->body);
  }
  return !dead;
}
