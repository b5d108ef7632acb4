/* denan.c — makes a module's behaviour independent of NaN bits, for
 * comparing engines (tilt-fuzz v8): the spec lets an operation that makes
 * a NaN choose its sign and payload, so two correct engines may differ
 * once code looks at the bits. Every float operator's result (f32, f64,
 * and f32x4/f64x2 lanes) that is a NaN becomes +0:
 *   (select (local.tee $t X) (T.const 0) (T.eq (local.get $t) (local.get $t)))
 *   (v128.bitselect (local.tee $t X) (v128.const 0) (fNxM.eq $t $t))
 * Loads, constants, lane moves and reinterpretations keep their exact bits
 * and are left alone. One scratch local per type and function. */
#include "fuzz.h"

#include <string.h>

#include "../ir/ir.h"

typedef struct {
  uint32_t local[TL_V128 + 1];   /* scratch local + 1 per type, 0 = none yet */
} denan_ctx;

static bool makes_floats(const tl_expr *e) {
  const tl_opinfo *o = &tl_ops[e->op];
  if (o->nops == TL_SIG_SPECIAL || o->nops == 0 || o->imm != TL_IMM_NONE) return false;
  if (e->type == TL_F32 || e->type == TL_F64) return true;
  return e->type == TL_V128 && (!strncmp(o->text, "f32x4.", 6) || !strncmp(o->text, "f64x2.", 6));
}

static tl_op eq_op(const tl_expr *e) {
  if (e->type == TL_F32) return TL_OP_F32_EQ;
  if (e->type == TL_F64) return TL_OP_F64_EQ;
  return strncmp(tl_ops[e->op].text, "f32x4.", 6) ? TL_OP_F64X2_EQ : TL_OP_F32X4_EQ;
}

static tl_expr *zero(tl_module *m, tl_type t) {
  tl_op op = t == TL_F32 ? TL_OP_F32_CONST : t == TL_F64 ? TL_OP_F64_CONST : TL_OP_V128_CONST;
  tl_expr *z = tl_expr_new(m, op, 0);   /* imm zeroed: +0 */
  z->type = t;
  return z;
}

static void visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (!makes_floats(e)) return;
  denan_ctx *c = w->ctx;
  tl_type t = e->type;
  if (!c->local[t]) c->local[t] = tl_func_add_local(w->m, w->f, t) + 1;
  uint32_t l = c->local[t] - 1;
  tl_op eq = eq_op(e);
  tl_expr *test = tl_make_binary(w->m, eq, tl_make_local_get(w->m, w->f, l), tl_make_local_get(w->m, w->f, l));
  tl_expr *pick = tl_expr_new(w->m, t == TL_V128 ? TL_OP_V128_BITSELECT : TL_OP_SELECT, 3);
  pick->kid[0] = tl_make_local_set(w->m, w->f, l, e, true);
  pick->kid[1] = zero(w->m, t);
  pick->kid[2] = test;
  tl_expr_finalize(w->m, w->f, pick);
  *slot = pick;
}

void tl_fuzz_denan(tl_module *m) {
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    if (!f->body) continue;
    denan_ctx c = {{0}};
    tl_walk_post(m, f, &f->body, visit, &c);
    tl_func_refinalize(m, f);
  }
}
