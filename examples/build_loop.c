/* build_loop.c — builds a module through the public C API (tilt.h only):
 *   sum(n)  adds 1..n into a local in a loop and returns it
 *   main()  returns sum(10)
 * exports both, validates the module, runs sum(10) and main() in tilt's
 * interpreter, writes the module to the file named on the command line
 * (default sum.wasm) and prints its size.
 *
 * The same module as text:
 *   (func $sum (param $n i32) (result i32) (local $i i32) (local $acc i32)
 *     (local.set $i (i32.const 1))
 *     (block $done
 *       (loop $next
 *         (br_if $done (i32.gt_s (local.get $i) (local.get $n)))
 *         (local.set $acc (i32.add (local.get $acc) (local.get $i)))
 *         (local.set $i (i32.add (local.get $i) (i32.const 1)))
 *         (br $next)))
 *     (local.get $acc))
 *   (func $main (result i32) (call $sum (i32.const 10))) */
#include <stdio.h>
#include <stdlib.h>

#include "tilt.h"

enum { N = 0, I = 1, ACC = 2 }; /* locals of sum: the parameter, then vars */

/* The body of sum; fn is its function index (labels and locals are its). */
static tl_expr_ref sum_body(tl_module *m, uint32_t fn) {
  tl_label_t done = tl_new_label(m, fn), next = tl_new_label(m, fn);
  tl_expr_ref loop_body[] = {
      tl_build_br_if(m, fn, done,
                     tl_build_binary(m, "i32.gt_s", tl_build_local_get(m, fn, I),
                                     tl_build_local_get(m, fn, N)),
                     NULL),
      tl_build_local_set(m, fn, ACC,
                         tl_build_binary(m, "i32.add", tl_build_local_get(m, fn, ACC),
                                         tl_build_local_get(m, fn, I))),
      tl_build_local_set(m, fn, I,
                         tl_build_binary(m, "i32.add", tl_build_local_get(m, fn, I),
                                         tl_build_const_i32(m, 1))),
      tl_build_br(m, fn, next, NULL),
  };
  tl_expr_ref loop = tl_build_loop(m, fn, next, loop_body, 4, TL_TYPE_AUTO);
  tl_expr_ref body[] = {
      tl_build_local_set(m, fn, I, tl_build_const_i32(m, 1)),
      tl_build_block(m, fn, done, &loop, 1, TL_TYPE_NONE),
      tl_build_local_get(m, fn, ACC),
  };
  return tl_build_block(m, fn, TL_LABEL_NONE, body, 3, TL_TYPE_I32);
}

static int fail(tl_module *m, const char *what, const char *msg) {
  fprintf(stderr, "build_loop: %s: %s\n", what, msg);
  tl_module_free(m);
  return 1;
}

/* Builds the module; a failing step leaves its reason in
 * tl_module_last_error (each step checks its arguments, so later steps
 * given a NULL or TL_INVALID_INDEX from an earlier one fail too). */
static tl_module *build(void) {
  tl_module *m = tl_module_create();
  if (!m) return NULL;
  uint32_t i32_to_i32 = tl_add_type(m, TL_TYPE_I32, TL_TYPE_I32);
  uint32_t void_to_i32 = tl_add_type(m, TL_TYPE_NONE, TL_TYPE_I32);
  tl_type_t vars[] = {TL_TYPE_I32, TL_TYPE_I32};
  uint32_t sum = tl_add_function(m, "sum", i32_to_i32, vars, 2, NULL);
  uint32_t main_ = tl_add_function(m, "main", void_to_i32, NULL, 0, NULL);
  tl_expr_ref ten = tl_build_const_i32(m, 10);
  tl_function_set_body(m, sum, sum_body(m, sum));
  tl_function_set_body(m, main_, tl_build_call(m, sum, &ten, 1));
  tl_add_export(m, TL_EXPORT_FUNC, sum, "sum");
  tl_add_export(m, TL_EXPORT_FUNC, main_, "main");
  return m;
}

/* Calls export name with one i32 argument (or none if nargs is 0); its
 * i32 result in *out. */
static tl_status call_i32(tl_instance *inst, const char *name, int32_t arg, uint32_t nargs,
                          int32_t *out, tl_error *err) {
  tl_value a = {.type = TL_VAL_I32, .of.i32 = arg}, r = {0};
  uint32_t nres = 0;
  tl_status s = tl_invoke(inst, name, &a, nargs, &r, 1, &nres, err);
  *out = r.of.i32;
  return s != TL_OK ? s : nres == 1 ? TL_OK : TL_E_INVALID;
}

/* Runs the module in the interpreter: sum(10) and main() must be 55. */
static int run(tl_module *m, tl_error *err) {
  tl_store *s = tl_store_new();
  tl_instance *inst = s ? tl_instantiate(s, m, NULL, err) : NULL;
  int32_t sum = 0, main_ = 0;
  int ok = inst && call_i32(inst, "sum", 10, 1, &sum, err) == TL_OK &&
           call_i32(inst, "main", 0, 0, &main_, err) == TL_OK;
  tl_store_free(s);
  if (ok) printf("sum(10) = %d, main() = %d\n", (int)sum, (int)main_);
  return ok && sum == 55 && main_ == 55;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "sum.wasm";
  tl_module *m = build();
  if (!m) return fail(m, "building", "out of memory");
  if (tl_module_last_error(m)->code != TL_OK)
    return fail(m, "building", tl_module_last_error(m)->msg);
  tl_error err;
  if (tl_module_validate(m, &err) != TL_OK) return fail(m, "invalid module", err.msg);
  err.msg[0] = 0;
  if (!run(m, &err)) return fail(m, "running", err.msg[0] ? err.msg : "wrong result");
  uint8_t *bytes = NULL;
  size_t size = 0;
  tl_write_options wopt = {.debug_names = true};
  if (tl_module_write(m, &wopt, &bytes, &size, &err) != TL_OK)
    return fail(m, "writing", err.msg);
  tl_module_free(m);
  FILE *out = fopen(path, "wb");
  int ok = out && fwrite(bytes, 1, size, out) == size;
  if (out && fclose(out) != 0) ok = 0;
  free(bytes);
  if (!ok) return fail(NULL, path, "cannot write the file");
  printf("wrote %s: %zu bytes\n", path, size);
  return 0;
}
