/* relooper.c — a toolchain's view of the Relooper API: build the
 * control-flow graph of seed 000's "goto into the middle of a loop",
 *
 *       if (skip) goto middle;
 *   top:    print(1);
 *   middle: print(2);
 *           if (--k > 0) goto top;
 *
 * which is irreducible (the loop has two entries), let tilt structure it,
 * then validate, write and run the function f(skip, k) in the interpreter:
 * f(0, 2) prints 1 2 1 2 and f(1, 2) prints 2 1 2. */
#include <stdio.h>
#include <stdlib.h>

#include "tilt.h"

static tl_status print_i32(tl_host_call *call, void *user, const tl_value *args, tl_value *res,
                           tl_error *err) {
  (void)call; (void)user; (void)res; (void)err;
  printf(" %d", args[0].of.i32);
  return TL_OK;
}

static tl_expr_ref call_print(tl_module *m, uint32_t print, int32_t v) {
  tl_expr_ref arg = tl_build_const_i32(m, v);
  return tl_build_call(m, print, &arg, 1);
}

/* f(skip, k): the graph of the comment above, rendered into f's body. */
static int build(tl_module *m, uint32_t print, uint32_t f) {
  tl_relooper *r = tl_relooper_create(m, f);
  tl_rblock entry = tl_relooper_add_block(r, NULL);
  tl_rblock top = tl_relooper_add_block(r, call_print(m, print, 1));
  tl_expr_ref k_minus_1 = tl_build_binary(m, "i32.sub", tl_build_local_get(m, f, 1), tl_build_const_i32(m, 1));
  tl_expr_ref middle_code[2] = {call_print(m, print, 2), tl_build_local_set(m, f, 1, k_minus_1)};
  tl_rblock middle = tl_relooper_add_block(r, tl_build_block(m, f, TL_LABEL_NONE, middle_code, 2, TL_TYPE_NONE));
  tl_rblock done = tl_relooper_add_block(r, NULL);
  tl_relooper_add_branch(r, entry, middle, tl_build_local_get(m, f, 0), NULL);
  tl_relooper_add_branch(r, entry, top, NULL, NULL);
  tl_relooper_add_branch(r, top, middle, NULL, NULL);
  tl_relooper_add_branch(r, middle, top,
                         tl_build_binary(m, "i32.gt_s", tl_build_local_get(m, f, 1), tl_build_const_i32(m, 0)),
                         NULL);
  tl_relooper_add_branch(r, middle, done, NULL, NULL);
  tl_expr_ref body = tl_relooper_render(r, entry, UINT32_MAX);
  uint64_t dispatches, sets, split;
  tl_relooper_stats(r, &dispatches, &sets, &split);
  tl_relooper_dispose(r);
  printf("structured: %llu dispatch loop(s), %llu label set(s), %llu block(s) split\n",
         (unsigned long long)dispatches, (unsigned long long)sets, (unsigned long long)split);
  return body && tl_function_set_body(m, f, body) == TL_OK ? 0 : 1;
}

static int run(tl_module *m, int32_t skip, int32_t k) {
  tl_store *s = tl_store_new();
  tl_linker *l = tl_linker_new();
  uint32_t i32 = TL_VAL_I32;
  tl_linker_define(l, "env", "print_i32", tl_host_func_new(s, &i32, 1, NULL, 0, print_i32, NULL));
  tl_error err;
  tl_instance *inst = tl_instantiate(s, m, l, &err);
  int rc = 1;
  if (inst) {
    tl_value args[2] = {{TL_VAL_I32, {.i32 = skip}}, {TL_VAL_I32, {.i32 = k}}};
    uint32_t nres;
    printf("f(%d, %d) prints", skip, k);
    rc = tl_invoke(inst, "f", args, 2, NULL, 0, &nres, &err) != TL_OK;
    printf("\n");
  }
  if (rc) fprintf(stderr, "error: %s\n", err.msg);
  tl_linker_free(l);
  tl_store_free(s);
  return rc;
}

int main(int argc, char **argv) {
  const char *out = argc > 1 ? argv[1] : "relooper.wasm";
  tl_module *m = tl_module_create();
  tl_type_t two[2] = {TL_TYPE_I32, TL_TYPE_I32};
  uint32_t t_print = tl_add_type(m, TL_TYPE_I32, TL_TYPE_NONE);
  uint32_t t_f = tl_add_type(m, tl_build_tuple(m, two, 2), TL_TYPE_NONE);
  uint32_t print = tl_add_function_import(m, "print", "env", "print_i32", t_print);
  uint32_t f = tl_add_function(m, "f", t_f, NULL, 0, NULL);
  tl_add_export(m, 0, f, "f");
  tl_error err;
  int rc = build(m, print, f);
  if (!rc && tl_module_validate(m, &err) != TL_OK) {
    fprintf(stderr, "invalid: %s\n", err.msg);
    rc = 1;
  }
  rc = rc || run(m, 0, 2) || run(m, 1, 2);
  uint8_t *bytes;
  size_t size;
  if (!rc && tl_module_write(m, NULL, &bytes, &size, &err) == TL_OK) {
    FILE *fp = fopen(out, "wb");
    rc = !fp || fwrite(bytes, 1, size, fp) != size;
    if (fp) fclose(fp);
    printf("wrote %s: %zu bytes\n", out, size);
    free(bytes);
  }
  tl_module_free(m);
  return rc;
}
