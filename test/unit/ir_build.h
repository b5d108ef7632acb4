/* ir_build.h — building expression trees by hand in unit tests: the
 * module M with one function F (ir_fixture makes them, ir_teardown frees
 * them: a Check fixture's setup calls the one, its teardown is the other);
 * mk(op, label, nkid, kids...) makes a node of F with those kids and
 * finalizes it; c32 / f32c make constants. */
#ifndef TILT_TEST_IR_BUILD_H
#define TILT_TEST_IR_BUILD_H

#include <stdarg.h>

static tl_module *M;
static tl_func *F;

static inline void ir_fixture(tl_type params, tl_type results) {
  M = tl_module_alloc();
  F = tl_module_add_func(M);
  F->type = tl_functype_intern(M, params, results);
}

static inline void ir_teardown(void) { tl_module_destroy(M); }

static inline tl_expr *mk(tl_op op, uint32_t label, uint32_t n, ...) {
  tl_expr *e = tl_expr_new(M, op, n);
  if (tl_ops[op].flags & TL_F_CONTROL) e->imm.block.label = label;
  else e->imm.label = label;
  va_list ap;
  va_start(ap, n);
  for (uint32_t i = 0; i < n; i++) e->kid[i] = va_arg(ap, tl_expr *);
  va_end(ap);
  tl_expr_finalize(M, F, e);
  return e;
}

static inline tl_expr *c32(int v) { return tl_make_const_i32(M, v); }
static inline tl_expr *f32c(void) { return mk(TL_OP_F32_CONST, 0, 0); }

#endif
