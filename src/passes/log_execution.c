/* log_execution.c — wasm-opt's log-execution (emcc AUTODEBUG): a call
 * log_execution(id) at the start of every function and of every loop
 * body, before every return and before the last instruction of a
 * function body; id counts them from 0 in post-order. The import comes
 * from the module --pass-arg log-execution@MODULE names, else "env" if the
 * module imports a function from env, else the module of its first
 * function import, else "env", as Binaryen picks it. Kind MODULE_IFACE. */
#include "passes.h"

#include <string.h>

typedef struct {
  uint32_t logger;
  uint32_t id;
} logger;

static tl_expr *log_call(tl_walk *w) {
  logger *l = w->ctx;
  tl_expr *id = tl_make_const_i32(w->m, (int32_t)l->id++);
  return tl_make_call(w->m, w->f, l->logger, &id, 1);
}

/* The sequence {log; e}, typed as e. */
static tl_expr *logged(tl_walk *w, tl_expr *e) {
  tl_expr *seq[2] = {log_call(w), e};
  return tl_make_block(w->m, TL_OP_BLOCK, TL_NO_LABEL, seq, 2);
}

static void push_front(tl_module *m, tl_expr *list, tl_expr *k) {
  tl_expr_push_kid(m, list, k);
  memmove(&list->kid[1], &list->kid[0], (list->nkid - 1) * sizeof *list->kid);
  list->kid[0] = k;
}

static void instrument(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_RETURN) {
    *slot = logged(w, e);
  } else if (e->op == TL_OP_LOOP) {
    push_front(w->m, e, log_call(w));
    tl_expr_finalize(w->m, w->f, e);
  }
}

/* The function's own: before its last instruction (when its body is a
 * list, as Binaryen's body is a block only then) and at its start. */
static void instrument_function(tl_walk *w) {
  tl_expr *body = w->f->body;
  if (body->nkid > 1) body->kid[body->nkid - 1] = logged(w, body->kid[body->nkid - 1]);
  push_front(w->m, body, log_call(w));
  tl_expr_finalize(w->m, w->f, body);
}

/* Binaryen's choice of the import's module. */
static const char *logger_module(tl_pass_ctx *ctx) {
  const char *arg = tl_pass_arg_get(ctx, "log-execution");
  if (arg && *arg) return arg;
  tl_module *m = ctx->m;
  for (uint32_t i = 0; i < m->nimported_funcs; i++)
    if (tl_name_eq(TL_FUNC(m, i)->imp.module, TL_FUNC(m, i)->imp.module_len, "env", 3)) return "env";
  return m->nimported_funcs ? TL_FUNC(m, 0)->imp.module : "env";
}

tl_status tl_pass_log_execution(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  tl_type i32 = TL_I32;
  uint32_t type = tl_functype_intern(m, tl_type_tuple(m, &i32, 1), TL_NONE);
  logger l = {0};
  l.logger = type == TL_NO_INDEX ? TL_NO_INDEX
                                 : tl_module_add_func_import(m, logger_module(ctx), "log_execution", type, "log_execution");
  if (l.logger == TL_NO_INDEX) return tl_nomem(ctx->err, "log-execution");
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_walk w = {.m = m, .f = TL_FUNC(m, i), .ctx = &l, .post = instrument};
    tl_walk_run(&w, &w.f->body);
    instrument_function(&w);
  }
  return TL_OK;
}
