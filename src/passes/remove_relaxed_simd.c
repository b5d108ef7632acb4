/* remove_relaxed_simd.c — wasm-opt's remove-relaxed-simd: every relaxed
 * SIMD instruction (a TL_F_RELAXED row) becomes a trap. Its operands that
 * have effects still run, in order, dropped; then `unreachable`, all in an
 * unlabeled block of unreachable type. Pure operands go away.
 * Assumes: valid IR with up-to-date types.
 * Guarantees: no relaxed SIMD node remains; where none ran before, the same
 * behaviour; the function is refinalized (types above a replaced node may
 * become unreachable). */
#include "passes.h"

/* The block that replaces relaxed node e: its effectful operands, dropped,
 * then unreachable. */
static tl_expr *trap_in_place(tl_walk *w, tl_expr *e) {
  tl_expr *kids[4];
  uint32_t n = 0;
  for (uint32_t i = 0; i < e->nkid && i < 3; i++) {
    tl_effects fx;
    tl_effects_of(w->m, w->f, e->kid[i], &fx);
    if (!tl_effects_removable(&fx)) kids[n++] = tl_make_drop(w->m, e->kid[i]);
  }
  kids[n++] = tl_make_unreachable(w->m);
  return tl_make_block(w->m, TL_OP_BLOCK, TL_NO_LABEL, kids, n);
}

static void remove_visit(tl_walk *w, tl_expr **slot) {
  *slot = trap_in_place(w, *slot);
  *(bool *)w->ctx = true;
}

tl_status tl_pass_remove_relaxed_simd(tl_pass_ctx *ctx, tl_func *f) {
  bool changed = false;
  tl_walk_post_only(ctx->m, f, &f->body, remove_visit, &changed, TL_F_RELAXED);
  if (changed) tl_func_refinalize(ctx->m, f);
  return TL_OK;
}
