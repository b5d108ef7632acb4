/* instrument_locals.c — wasm-opt's instrument-locals (emcc AUTODEBUG):
 * every local.get of an i32, f32 or f64 local becomes
 *   call env.get_T(id, index, local.get)
 * and the value every local.set/tee stores
 *   call env.set_T(id, index, value)
 * so the host sees (and may change) each access; id counts the accesses in
 * post-order over the functions. The imports get_/set_ of i32, i64, f32
 * and f64 are added as Binaryen adds them (each (i32, i32, T) -> T; the
 * i64 accesses are left alone, as Binaryen leaves them, and v128 and
 * reference locals too). Kind MODULE_IFACE: the host provides them. */
#include "passes.h"

#include <stdio.h>

typedef struct {
  uint32_t get[4], set[4];  /* by kind_of */
  uint32_t id;
} locals;

static const tl_type types[4] = {TL_I32, TL_I64, TL_F32, TL_F64};

/* Index in types[] of the accesses instrumented, -1 for the others. */
static int kind_of(tl_type t) {
  return t == TL_I32 ? 0 : t == TL_F32 ? 2 : t == TL_F64 ? 3 : -1;
}

static tl_expr *hook(tl_walk *w, uint32_t import, uint32_t index, tl_expr *value) {
  locals *l = w->ctx;
  tl_expr *args[3] = {tl_make_const_i32(w->m, (int32_t)l->id++), tl_make_const_i32(w->m, (int32_t)index), value};
  return tl_make_call(w->m, w->f, import, args, 3);
}

static void instrument(tl_walk *w, tl_expr **slot) {
  locals *l = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_LOCAL_GET) {
    int k = kind_of(e->type);
    if (k >= 0) *slot = hook(w, l->get[k], e->imm.index, e);
  } else if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) {
    int k = kind_of(e->kid[0]->type);
    if (k >= 0) e->kid[0] = hook(w, l->set[k], e->imm.index, e->kid[0]);
  }
}

tl_status tl_pass_instrument_locals(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  locals l = {0};
  char name[16];
  for (int set = 0; set < 2; set++) /* imports first: they shift the defined functions */
    for (int k = 0; k < 4; k++) {
      tl_type sig[3] = {TL_I32, TL_I32, types[k]};
      snprintf(name, sizeof name, "%s_%s", set ? "set" : "get", tl_type_name(types[k]));
      uint32_t *slot = set ? &l.set[k] : &l.get[k];
      *slot = tl_module_env_import_sig(m, name, sig, 3, types[k]);
      if (*slot == TL_NO_INDEX) return tl_nomem(ctx->err, "instrument-locals");
    }
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    tl_walk_post(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, instrument, &l);
  return TL_OK;
}
