/* ir_build.h — building expression trees by hand in unit tests: mk(op,
 * label, nkid, kids...) makes a node with those kids and finalizes it;
 * c32 / f32c make constants. The including test defines the module M and
 * the function F the nodes belong to before including this. */
#ifndef TILT_TEST_IR_BUILD_H
#define TILT_TEST_IR_BUILD_H

#include <stdarg.h>

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
