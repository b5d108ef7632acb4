/* print_function_map.c — wasm-opt's print-function-map: reports (through
 * tl_pass_output) one "INDEX:NAME\n" line per function, imports first, in
 * index order; emcc writes it as the symbol map (--emit-symbol-map).
 * NAME is the name section's, else what Binaryen calls a function that has
 * none: "fimport$K" for the K-th function import, the decimal position
 * among the defined functions otherwise (so the maps agree with
 * wasm-opt's). --pass-arg symbolmap@FILE is not supported: the caller
 * writes the report where it wants. Changes nothing. */
#include "passes.h"

#include <inttypes.h>

tl_status tl_pass_print_function_map(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  tl_buf b = {0};
  for (uint32_t i = 0; i < m->funcs.n; i++) {
    const tl_func *f = TL_FUNC(m, i);
    if (f->name) tl_buf_printf(&b, "%" PRIu32 ":%s\n", i, f->name);
    else if (i < m->nimported_funcs) tl_buf_printf(&b, "%" PRIu32 ":fimport$%" PRIu32 "\n", i, i);
    else tl_buf_printf(&b, "%" PRIu32 ":%" PRIu32 "\n", i, i - m->nimported_funcs);
  }
  tl_pass_output(ctx, (const char *)b.p, b.n);
  tl_buf_free(&b);
  return TL_OK;
}
