/* no_exit_runtime.c — wasm-opt's no-exit-runtime: the program never exits
 * its runtime, so registering exit handlers is pointless. Calls to the
 * imported env.atexit / env.__cxa_atexit (and their underscored spellings)
 * become the drops of their operands followed by a zero result.
 * Assumes: valid IR. Guarantees: operands are still evaluated (vacuum
 * removes the pure ones); calls in unreachable code are left alone. */
#include "passes.h"

#include <string.h>

static const char *const atexit_names[] = {"atexit", "__cxa_atexit", "_atexit", "___cxa_atexit"};

static bool is_atexit_import(const tl_module *m, uint32_t fi) {
  if (fi >= m->nimported_funcs) return false;
  const tl_importname *imp = &TL_FUNC(m, fi)->imp;
  if (imp->module_len != 3 || memcmp(imp->module, "env", 3)) return false;
  for (size_t i = 0; i < sizeof atexit_names / sizeof *atexit_names; i++)
    if (imp->name_len == strlen(atexit_names[i]) && !memcmp(imp->name, atexit_names[i], imp->name_len))
      return true;
  return false;
}

static void visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op != TL_OP_CALL || !is_atexit_import(w->m, e->imm.index)) return;
  if (e->type != TL_NONE && e->type != TL_I32) return;   /* unreachable, or not C's int */
  tl_expr *b = tl_make_block(w->m, TL_OP_BLOCK, TL_NO_LABEL, NULL, 0);
  for (uint32_t i = 0; i < e->nkid; i++) tl_expr_push_kid(w->m, b, tl_make_drop(w->m, e->kid[i]));
  if (e->type == TL_I32) tl_expr_push_kid(w->m, b, tl_make_const_i32(w->m, 0));
  if (!b->nkid) tl_expr_push_kid(w->m, b, tl_make_nop(w->m));
  tl_expr_finalize(w->m, w->f, b);
  *slot = b;
  *(bool *)w->ctx = true;
}

tl_status tl_pass_no_exit_runtime(tl_pass_ctx *ctx, tl_func *f) {
  bool changed = false;
  tl_walk_post(ctx->m, f, &f->body, visit, &changed);
  if (changed) tl_func_refinalize(ctx->m, f);
  return TL_OK;
}
