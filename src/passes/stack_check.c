/* stack_check.c — wasm-opt's stack-check (emcc's STACK_OVERFLOW_CHECK=2,
 * through wasm-emscripten-finalize --check-stack-overflow): every
 * global.set of the stack pointer (the imported global __stack_pointer,
 * else the first defined global; not an i32 or i64 one: no stack pointer,
 * nothing changes) first checks the new value against two
 * new mutable globals, the stack base and limit:
 *   (if (i32.or (i32.gt_u (local.tee $new V) (global.get $base))
 *               (i32.lt_u (local.get $new) (global.get $limit)))
 *     (call $handler (local.get $new)))   ;; or unreachable without one
 *   (global.set $sp (local.get $new))
 * The handler is the import env.NAME (added if missing) named by
 * --pass-arg stack-check-handler@NAME. An exported __set_stack_limits
 * (base, limit) sets the globals (0 and 0 until then). A module that
 * exports __set_stack_limits already has its checks (the pass ran): it is
 * left as it is, so running the pass again changes nothing.
 * Assumes: nothing. Guarantees: a valid module; stack pointer writes outside
 * [limit, base] call the handler or trap. */
#include "passes.h"

#include <string.h>

typedef struct {
  tl_module *m;
  uint32_t sp, base, limit, handler;  /* handler: TL_NO_INDEX traps */
} checker;

static uint32_t stack_pointer(const tl_module *m) {
  for (uint32_t i = 0; i < m->nimported_globals; i++) {
    const tl_importname *n = &TL_GLOBAL(m, i)->imp;
    if (tl_name_eq(n->name, n->name_len, "__stack_pointer", 15)) return i;
  }
  return m->globals.n > m->nimported_globals ? m->nimported_globals : TL_NO_INDEX;
}

static tl_expr *global_op(tl_module *m, tl_op op, uint32_t g, tl_expr *v) {
  tl_expr *e = tl_expr_new(m, op, v ? 1 : 0);
  e->imm.index = g;
  if (v) e->kid[0] = v;
  tl_expr_finalize(m, NULL, e);
  return e;
}

static void check_set(tl_walk *w, tl_expr **slot) {
  checker *c = w->ctx;
  tl_module *m = c->m;
  tl_expr *e = *slot;
  if (e->op != TL_OP_GLOBAL_SET || e->imm.index != c->sp) return;
  tl_type t = TL_GLOBAL(m, c->sp)->type;
  bool wide = t == TL_I64;
  uint32_t v = tl_func_add_var(m, w->f, t);
  tl_expr *over = tl_make_binary(m, wide ? TL_OP_I64_GT_U : TL_OP_I32_GT_U, tl_make_local_set(m, w->f, v, e->kid[0], true),
                                 global_op(m, TL_OP_GLOBAL_GET, c->base, NULL));
  tl_expr *under = tl_make_binary(m, wide ? TL_OP_I64_LT_U : TL_OP_I32_LT_U, tl_make_local_get(m, w->f, v),
                                  global_op(m, TL_OP_GLOBAL_GET, c->limit, NULL));
  tl_expr *arg = tl_make_local_get(m, w->f, v);
  tl_expr *iff = tl_expr_new(m, TL_OP_IF, 2);
  iff->kid[0] = tl_make_binary(m, TL_OP_I32_OR, over, under);
  iff->kid[1] = c->handler == TL_NO_INDEX ? tl_make_unreachable(m) : tl_make_call(m, w->f, c->handler, &arg, 1);
  iff->imm.block.label = TL_NO_LABEL;
  iff->imm.block.bt = TL_NO_INDEX;
  tl_expr_finalize(m, w->f, iff);
  tl_expr *kids[2] = {iff, global_op(m, TL_OP_GLOBAL_SET, c->sp, tl_make_local_get(m, w->f, v))};
  *slot = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, kids, 2);
}

static uint32_t add_global(tl_module *m, tl_type t, const char *name) {
  tl_global g = {.type = t, .mut = true, .name = name};
  g.init = t == TL_I64 ? tl_make_const_i64(m, 0) : tl_make_const_i32(m, 0);
  TL_VEC_PUSH(&m->globals, tl_global, g);
  return (uint32_t)m->globals.n - 1;
}


/* __set_stack_limits(base, limit), exported. */
static void add_setter(checker *c, tl_type t) {
  tl_module *m = c->m;
  tl_type ps[2] = {t, t};
  uint32_t fi = tl_module_add_func_defined(m, tl_functype_intern(m, tl_type_tuple(m, ps, 2), TL_NONE),
                                           "__set_stack_limits");
  tl_func *f = TL_FUNC(m, fi);
  tl_expr *kids[2] = {global_op(m, TL_OP_GLOBAL_SET, c->base, tl_make_local_get(m, f, 0)),
                      global_op(m, TL_OP_GLOBAL_SET, c->limit, tl_make_local_get(m, f, 1))};
  f->body = tl_make_block(m, TL_OP_BLOCK, f->body->imm.block.label, kids, 2);
  tl_export e = {f->name, TL_EXTERN_FUNC, fi, 0};
  TL_VEC_PUSH(&m->exports, tl_export, e);
}

tl_status tl_pass_stack_check(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  checker c = {m, stack_pointer(m), 0, 0, TL_NO_INDEX};
  if (c.sp == TL_NO_INDEX) return TL_OK;
  tl_type t = TL_GLOBAL(m, c.sp)->type;
  if (t != TL_I32 && t != TL_I64) return TL_OK; /* not an address: no stack pointer */
  if (tl_module_find_export(m, "__set_stack_limits") >= 0) return TL_OK; /* checked already */
  const char *h = tl_pass_arg_get(ctx, "stack-check-handler");
  if (h && *h && (c.handler = tl_module_env_import(m, h, tl_functype_intern(m, t, TL_NONE))) == TL_NO_INDEX) return tl_nomem(ctx->err, "stack-check");
  c.base = add_global(m, t, "__stack_base");
  c.limit = add_global(m, t, "__stack_limit");
  uint32_t nf = (uint32_t)m->funcs.n;
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, check_set, &c, TL_F_WRITES_GLOBAL);
  add_setter(&c, t);
  return TL_OK;
}
