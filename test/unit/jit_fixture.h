/* jit_fixture.h — one module instantiated in its own store, for the JIT
 * unit tests (jit_codegen_test.c, jit_lazy_test.c): read with every
 * feature, run by the engine and with the fuel the test picks, and called
 * with i32 arguments. Header-only (static functions): each test is its own
 * program. */
#ifndef TILT_JIT_FIXTURE_H
#define TILT_JIT_FIXTURE_H

#include "jit/jit.h"

#include <check.h>
#include <string.h>

typedef struct { tl_module *m; tl_store *s; tl_instance *inst; } fixture;

/* engine: TL_ENGINE_JIT or TL_ENGINE_INTERP; fuel 0: unlimited. */
static inline void fixture_setup(fixture *f, const uint8_t *wasm, size_t n, int engine, uint64_t fuel) {
  tl_error err = {0};
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  f->m = tl_module_read(wasm, n, &ro, &err);
  ck_assert_ptr_nonnull(f->m);
  f->s = tl_store_new();
  tl_store_set_engine(f->s, engine);
  if (fuel) tl_store_set_fuel(f->s, fuel);
  f->inst = tl_instantiate(f->s, f->m, NULL, &err);
  ck_assert_ptr_nonnull(f->inst);
}

static inline void fixture_teardown(fixture *f) {
  tl_store_free(f->s);
  tl_module_free(f->m);
}

/* Calls export name with n (at most 4) i32 arguments; returns the status,
 * *out the first result (0 if none), *nres (if not NULL) how many. */
static inline tl_status fixture_call(fixture *f, const char *name, const int32_t *a, uint32_t n,
                                     int32_t *out, uint32_t *nres, tl_error *err) {
  tl_value args[4], res[1];
  memset(args, 0, sizeof args);
  memset(res, 0, sizeof res);
  ck_assert_uint_le(n, 4);
  for (uint32_t i = 0; i < n; i++) { args[i].type = TL_VAL_I32; args[i].of.i32 = a[i]; }
  uint32_t k = 0;
  memset(err, 0, sizeof *err);
  tl_status st = tl_invoke(f->inst, name, args, n, res, 1, &k, err);
  *out = res[0].of.i32;
  if (nres) *nres = k;
  return st;
}

#endif
