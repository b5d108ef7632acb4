/* mod_asyncify.c — wasm-opt's --mod-asyncify-never-unwind and
 * --mod-asyncify-always-and-only-unwind (emcc -sASYNCIFY_LAZY_LOAD_CODE):
 * on a module --asyncify already instrumented, fold the tests of the
 * asyncify state that an assumption the caller makes decides.
 *   never-unwind:             the state is never 1 (unwinding);
 *   always-and-only-unwind:   the state is never 2 (rewinding), and a call
 *                             to an import always starts an unwind, so
 *                             until something else can change the state
 *                             it is 1.
 * The state global is the one global the exported asyncify_stop_unwind
 * sets (as Binaryen finds it); a module without one is an error.
 * What is folded: `state == C` / `state != C` (either operand order) and
 * `i32.eqz state`, and the state as the condition of a select, if or
 * br_if, wherever the assumption decides them; under a known unwind every
 * read of the state is 1. This relies on a convention asyncify's code
 * keeps (Binaryen's pass relies on it for selects): the state can be
 * "unwinding" only right after a call, and the code reads it there only
 * with `state == 1` (to leave); every other read happens while running
 * normally or rewinding, so with nothing rewinding it reads 0. A known unwind lasts along one linear path:
 * it ends at anything that can set the state (a call that is not to an
 * import, call_indirect, call_ref, a global.set of the state) and where
 * paths join (a loop's start, an if's arms and end, a labelled block's
 * end, a legacy try's catch arms and end).
 * Kind MODULE_TRAPS: the same behaviour only where the assumption holds,
 * so fuzzers and differential tests skip it. Later optimization (emcc
 * runs -O after it) removes the code the folded tests guarded. */
#include "passes.h"

#include <string.h>

enum { UNWINDING = 1, REWINDING = 2 };

typedef struct {
  uint32_t state;     /* the state global */
  bool never_unwind;  /* the state is never UNWINDING */
  bool never_rewind;  /* ... never REWINDING */
  bool imports_unwind; /* a call to an import leaves the state UNWINDING */
  bool unwinding;     /* on the current path the state is UNWINDING */
  bool changed;
} mod;

/* The global asyncify_stop_unwind sets, or TL_NO_INDEX. */
static uint32_t find_state(tl_module *m) {
  int32_t x = tl_module_find_export(m, "asyncify_stop_unwind");
  if (x < 0 || TL_EXPORT(m, x)->kind != TL_EXTERN_FUNC) return TL_NO_INDEX;
  uint32_t fi = TL_EXPORT(m, x)->index;
  if (fi < m->nimported_funcs || !TL_FUNC(m, fi)->body) return TL_NO_INDEX;
  tl_expr *b = TL_FUNC(m, fi)->body;
  uint32_t found = TL_NO_INDEX, n = 0;
  /* asyncify's controls are a flat block of statements */
  for (uint32_t i = 0; i < (b->op == TL_OP_BLOCK ? b->nkid : 0); i++)
    if (b->kid[i]->op == TL_OP_GLOBAL_SET) found = b->kid[i]->imm.index, n++;
  return n == 1 ? found : TL_NO_INDEX;
}

static bool is_state(const mod *c, const tl_expr *e) {
  return e->op == TL_OP_GLOBAL_GET && e->imm.index == c->state;
}

/* The value of `state == k` when it is known here: 0 or 1; -1 otherwise.
 * Unwinding can be seen only by the `state == 1` test right after a call
 * (asyncify's convention, above); every other read is made while running
 * normally or rewinding. */
static int known_eq(const mod *c, int32_t k) {
  if (c->unwinding) return k == UNWINDING;
  if (k == UNWINDING) return c->never_unwind ? 0 : -1;
  if (k != 0 && k != REWINDING) return 0; /* asyncify's states are 0, 1, 2 */
  if (c->never_rewind) return k == 0;     /* not unwinding, not rewinding */
  return -1;
}

/* A comparison of the state with a constant: its operands, else NULL. */
static const tl_expr *state_const(const mod *c, const tl_expr *e) {
  if (is_state(c, e->kid[0]) && e->kid[1]->op == TL_OP_I32_CONST) return e->kid[1];
  if (is_state(c, e->kid[1]) && e->kid[0]->op == TL_OP_I32_CONST) return e->kid[0];
  return NULL;
}

static void fold(tl_walk *w, tl_expr **slot, int v) {
  mod *c = w->ctx;
  *slot = tl_make_const_i32(w->m, v);
  c->changed = true;
}

/* The state read as a condition: nonzero unless it is 0. */
static void fold_condition(tl_walk *w, tl_expr **cond) {
  mod *c = w->ctx;
  int z = is_state(c, *cond) ? known_eq(c, 0) : -1;
  if (z >= 0) fold(w, cond, !z);
}

/* Paths join at the start of a loop and of an if's arms or a try's catches. */
static void pre(tl_walk *w, tl_expr **slot) {
  mod *c = w->ctx;
  tl_expr *p = tl_walk_parent(w, 1);
  if ((*slot)->op == TL_OP_LOOP) c->unwinding = false;
  if (p && p->op == TL_OP_IF && slot == &p->kid[1]) fold_condition(w, &p->kid[0]); /* just evaluated */
  if (p && (p->op == TL_OP_IF || p->op == TL_OP_TRY) && slot != &p->kid[0]) c->unwinding = false;
}

static void post(tl_walk *w, tl_expr **slot) {
  mod *c = w->ctx;
  tl_expr *e = *slot;
  switch (e->op) {
  case TL_OP_I32_EQ: case TL_OP_I32_NE: {
    const tl_expr *k = state_const(c, e);
    int v = k ? known_eq(c, k->imm.i32) : -1;
    if (v >= 0) fold(w, slot, e->op == TL_OP_I32_EQ ? v : 1 - v);
    break;
  }
  case TL_OP_I32_EQZ:
    if (is_state(c, e->kid[0]) && known_eq(c, 0) >= 0) fold(w, slot, known_eq(c, 0));
    break;
  case TL_OP_GLOBAL_GET:
    if (c->unwinding && e->imm.index == c->state) fold(w, slot, UNWINDING);
    break;
  case TL_OP_IF:
    c->unwinding = false; /* its arms join */
    break;
  case TL_OP_SELECT: case TL_OP_SELECT_T:
    fold_condition(w, &e->kid[2]);
    break;
  case TL_OP_BR_IF:
    fold_condition(w, &e->kid[e->nkid - 1]);
    c->unwinding = false; /* its target's paths join */
    break;
  case TL_OP_CALL: case TL_OP_RETURN_CALL:
    c->unwinding = c->imports_unwind && e->imm.index < w->m->nimported_funcs;
    break;
  case TL_OP_GLOBAL_SET:
    if (e->imm.index == c->state) c->unwinding = false;
    break;
  case TL_OP_BLOCK:
    if (e->imm.block.label != TL_NO_LABEL) c->unwinding = false;
    break;
  default:
    if (tl_ops[e->op].flags & TL_F_CALL) c->unwinding = false; /* call_indirect, call_ref */
    if (e->op == TL_OP_LOOP || e->op == TL_OP_TRY || e->op == TL_OP_TRY_TABLE)
      c->unwinding = false;
    break;
  }
}

static tl_status run(tl_pass_ctx *ctx, const char *name, bool never_unwind, bool never_rewind, bool imports_unwind) {
  tl_module *m = ctx->m;
  mod c = {find_state(m), never_unwind, never_rewind, imports_unwind, false, false};
  if (c.state == TL_NO_INDEX)
    return tl_errorf(ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                     "%s: the module has no exported asyncify_stop_unwind setting the asyncify state (run --asyncify first)",
                     name);
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    if (!f->body) continue;
    tl_walk w = {.m = m, .f = f, .ctx = &c, .pre = pre, .post = post};
    c.unwinding = c.changed = false;
    tl_walk_run(&w, &f->body);
    if (c.changed) tl_func_refinalize(m, f);
  }
  return TL_OK;
}

tl_status tl_pass_mod_asyncify_never_unwind(tl_pass_ctx *ctx) {
  return run(ctx, "mod-asyncify-never-unwind", true, false, false);
}

tl_status tl_pass_mod_asyncify_always_and_only_unwind(tl_pass_ctx *ctx) {
  return run(ctx, "mod-asyncify-always-and-only-unwind", false, true, true);
}
