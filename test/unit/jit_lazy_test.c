/* jit_lazy_test.c — the JIT compiles each function at its first call (only
 * called functions get code; recursion, mutual recursion and tail calls
 * through the lazy thunk; call_indirect to a function not compiled yet; an
 * export called from the host before any wasm calls it), compiles all of
 * them with tl_jit_compile_instance, and counts fuel: a loop or a recursion
 * stops with the interpreter's "fuel exhausted", and with enough fuel both
 * engines compute the same results. */
#include "jit_fixture.h"

#include "check_main.h"
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
/* (type $ii (func (param i32) (result i32))) (table 4 funcref)
 * (elem (i32.const 0) $even $odd $unused1 $sq)
 * 0 fact: recursive factorial          1 even / 2 odd: mutual recursion,
 *   odd returns through return_call     3 unused1 -> 11, 4 unused2 -> 12
 * 5 sq: x*x                             6 ind(i, x): call_indirect table[i](x)
 * 7 tind: return_call_indirect          8 spin(n): loop counting to n
 * 9 forever: (loop br 0) */
static const uint8_t wasm[] = {
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0f, 0x03, 0x60, 0x01, 0x7f, 0x01, 0x7f,
  0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x60, 0x00, 0x00, 0x03, 0x0b, 0x0a, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x01, 0x01, 0x00, 0x02, 0x04, 0x04, 0x01, 0x70, 0x00, 0x04, 0x07, 0x33, 0x07, 0x04,
  0x66, 0x61, 0x63, 0x74, 0x00, 0x00, 0x04, 0x65, 0x76, 0x65, 0x6e, 0x00, 0x01, 0x03, 0x6f, 0x64,
  0x64, 0x00, 0x02, 0x03, 0x69, 0x6e, 0x64, 0x00, 0x06, 0x04, 0x74, 0x69, 0x6e, 0x64, 0x00, 0x07,
  0x04, 0x73, 0x70, 0x69, 0x6e, 0x00, 0x08, 0x07, 0x66, 0x6f, 0x72, 0x65, 0x76, 0x65, 0x72, 0x00,
  0x09, 0x09, 0x0a, 0x01, 0x00, 0x41, 0x00, 0x0b, 0x04, 0x01, 0x02, 0x03, 0x05, 0x0a, 0x85, 0x01,
  0x0a, 0x17, 0x00, 0x20, 0x00, 0x41, 0x01, 0x4c, 0x04, 0x7f, 0x41, 0x01, 0x05, 0x20, 0x00, 0x20,
  0x00, 0x41, 0x01, 0x6b, 0x10, 0x00, 0x6c, 0x0b, 0x0b, 0x12, 0x00, 0x20, 0x00, 0x45, 0x04, 0x7f,
  0x41, 0x01, 0x05, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x10, 0x02, 0x0b, 0x0b, 0x12, 0x00, 0x20, 0x00,
  0x45, 0x04, 0x7f, 0x41, 0x00, 0x05, 0x20, 0x00, 0x41, 0x01, 0x6b, 0x12, 0x01, 0x0b, 0x0b, 0x04,
  0x00, 0x41, 0x0b, 0x0b, 0x04, 0x00, 0x41, 0x0c, 0x0b, 0x07, 0x00, 0x20, 0x00, 0x20, 0x00, 0x6c,
  0x0b, 0x09, 0x00, 0x20, 0x01, 0x20, 0x00, 0x11, 0x00, 0x00, 0x0b, 0x09, 0x00, 0x20, 0x01, 0x20,
  0x00, 0x13, 0x00, 0x00, 0x0b, 0x17, 0x01, 0x01, 0x7f, 0x03, 0x40, 0x20, 0x01, 0x41, 0x01, 0x6a,
  0x21, 0x01, 0x20, 0x01, 0x20, 0x00, 0x49, 0x0d, 0x00, 0x0b, 0x20, 0x01, 0x0b, 0x07, 0x00, 0x03,
  0x40, 0x0c, 0x00, 0x0b, 0x0b,
};
enum { NDEFINED = 10 };

static int32_t ok1(fixture *f, const char *name, int32_t a) {
  int32_t r;
  tl_error err;
  ck_assert_int_eq(fixture_call(f, name, &a, 1, &r, NULL, &err), TL_OK);
  return r;
}
static int32_t ok2(fixture *f, const char *name, int32_t a, int32_t b) {
  int32_t r, v[2] = {a, b};
  tl_error err;
  ck_assert_int_eq(fixture_call(f, name, v, 2, &r, NULL, &err), TL_OK);
  return r;
}
static uint32_t compiled(fixture *f) {
  tl_jit_stats js;
  tl_jit_get_stats(f->inst, &js);
  return js.compiled;
}
/* Does function fi's code (its first 256 bytes) call (0xE8) or jump (0xE9)
 * directly to function to's entry? */
static bool direct_to(fixture *f, uint32_t fi, uint8_t opc, uint32_t to) {
  jctx *c = f->inst->jit;
  const uint8_t *p = c->fn[fi], *t = c->fn[to];
  for (int i = 0; i < 256; i++) {
    int32_t rel;
    memcpy(&rel, p + i + 1, 4);
    if (p[i] == opc && p + i + 5 + rel == t) return true;
  }
  return false;
}
START_TEST(only_called_functions_compile) {
  fixture f;
  fixture_setup(&f, wasm, sizeof wasm, TL_ENGINE_JIT, 0);
  ck_assert_uint_eq(compiled(&f), 0);
  ck_assert_int_eq(ok1(&f, "fact", 10), 3628800);             /* recursion */
  ck_assert_uint_eq(compiled(&f), 1);
  ck_assert(direct_to(&f, 0, 0xE8, 0));                       /* a direct self call */
  ck_assert_int_eq(ok1(&f, "even", 11), 0);                   /* mutual + tail call */
  ck_assert_int_eq(ok1(&f, "even", 1000), 1);
  ck_assert_uint_eq(compiled(&f), 3);
  ck_assert(direct_to(&f, 2, 0xE9, 1));                       /* odd came after even: jmp */
  ck_assert(!direct_to(&f, 1, 0xE8, 2));                      /* even came first: via fn[] */
  ck_assert_int_eq(ok2(&f, "ind", 3, 7), 49);                 /* call_indirect: sq compiles */
  ck_assert_uint_eq(compiled(&f), 5);
  ck_assert_int_eq(ok2(&f, "tind", 2, 0), 11);                /* return_call_indirect */
  ck_assert_uint_eq(compiled(&f), 7);
  ck_assert_int_eq(ok2(&f, "ind", 0, 6), 1);                  /* already compiled */
  ck_assert_uint_eq(compiled(&f), 7);                         /* unused2, spin, forever: no */
  tl_jit_stats js;
  tl_jit_get_stats(f.inst, &js);
  ck_assert_uint_eq(js.compiled, 7);
  ck_assert_uint_gt(js.code_bytes, 0);
  fixture_teardown(&f);
} END_TEST

/* Passes change the IR, not the bytes the module was read from: the JIT
 * must refuse to run those stale bytes (write and read back instead). */
START_TEST(no_stale_code_after_passes) {
  tl_error err = {0};
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  tl_module *m = tl_module_read(wasm, sizeof wasm, &ro, &err);
  ck_assert_ptr_nonnull(m);
  const char *passes[] = {"precompute"};
  ck_assert_int_eq(tl_module_run_passes(m, passes, 1, NULL, &err), TL_OK);
  tl_store *s = tl_store_new();
  tl_store_set_engine(s, TL_ENGINE_JIT);
  tl_instance *inst = tl_instantiate(s, m, NULL, &err);
  if (inst) {
    tl_value arg = {.type = TL_VAL_I32, .of.i32 = 5}, res;
    uint32_t nres = 0;
    ck_assert_int_ne(tl_invoke(inst, "fact", &arg, 1, &res, 1, &nres, &err), TL_OK);
  }
  ck_assert_ptr_nonnull(strstr(err.msg, "write the module first"));
  tl_store_free(s);
  tl_module_free(m);
} END_TEST

START_TEST(export_called_from_host_first) {
  fixture f;
  fixture_setup(&f, wasm, sizeof wasm, TL_ENGINE_JIT, 0);
  ck_assert_int_eq(ok1(&f, "odd", 7), 1);                     /* odd, then even through fn[] */
  ck_assert_uint_eq(compiled(&f), 2);
  ck_assert_int_eq(ok1(&f, "even", 7), 0);
  ck_assert_uint_eq(compiled(&f), 2);
  fixture_teardown(&f);
} END_TEST

START_TEST(indirect_call_first) {
  fixture f;
  fixture_setup(&f, wasm, sizeof wasm, TL_ENGINE_JIT, 0);
  ck_assert_int_eq(ok2(&f, "ind", 1, 5), 1);                  /* odd(5) via the table */
  ck_assert_uint_eq(compiled(&f), 3);                         /* ind, odd, even */
  int32_t r, v[2] = {9, 1};
  tl_error err;
  ck_assert_int_eq(fixture_call(&f, "ind", v, 2, &r, NULL, &err), TL_E_TRAP); /* undefined element */
  ck_assert_str_eq(err.msg, "undefined element");
  fixture_teardown(&f);
} END_TEST

START_TEST(eager_compiles_everything) {
  fixture f;
  fixture_setup(&f, wasm, sizeof wasm, TL_ENGINE_JIT, 0);
  tl_error err = {0};
  size_t code = 0;
  ck_assert_int_eq(tl_jit_compile_instance(f.inst, 2, &code, NULL, &err), TL_OK);
  ck_assert_uint_eq(compiled(&f), NDEFINED);
  ck_assert_int_eq(ok1(&f, "fact", 6), 720);
  ck_assert_int_eq(ok1(&f, "even", 10), 1);
  ck_assert_int_eq(ok2(&f, "tind", 3, 9), 81);
  fixture_teardown(&f);
} END_TEST

/* The same call on both engines under the same fuel: same status and
 * message, same result when it finishes. */
static void same(const char *name, int32_t a, uint64_t fuel, tl_status want) {
  tl_status st[2];
  int32_t r[2];
  tl_error err[2];
  for (int e = 0; e < 2; e++) {
    fixture f;
    fixture_setup(&f, wasm, sizeof wasm, e ? TL_ENGINE_JIT : TL_ENGINE_INTERP, fuel);
    st[e] = fixture_call(&f, name, &a, strcmp(name, "forever") ? 1 : 0, &r[e], NULL, &err[e]);
    if (st[e] == TL_E_EXHAUSTED) {                /* once out of fuel, calls fail at once */
      int32_t r2;
      tl_error e2;
      ck_assert_int_eq(fixture_call(&f, "fact", &a, 1, &r2, NULL, &e2), TL_E_EXHAUSTED);
    }
    fixture_teardown(&f);
  }
  ck_assert_int_eq(st[0], want);
  ck_assert_int_eq(st[1], want);
  if (want == TL_OK) ck_assert_int_eq(r[0], r[1]);
  else ck_assert_str_eq(err[0].msg, err[1].msg);
}

START_TEST(fuel_matches_interpreter) {
  same("spin", 1000000000, 10000, TL_E_EXHAUSTED);
  same("forever", 0, 100000, TL_E_EXHAUSTED);
  same("fact", 5000, 1000, TL_E_EXHAUSTED);             /* no loop: function entries count */
  same("spin", 1000, 100000, TL_OK);
  same("fact", 10, 100000, TL_OK);
  same("even", 501, 100000, TL_OK);
} END_TEST

START_TEST(fuel_message_and_carry_over) {
  fixture f;
  fixture_setup(&f, wasm, sizeof wasm, TL_ENGINE_JIT, 0);
  ck_assert_int_eq(ok1(&f, "spin", 100), 100);          /* compiled without fuel checks */
  tl_store_set_fuel(f.s, 5000);                          /* fn[] recompiles with them */
  int32_t r, a = 1000000000;
  tl_error err;
  ck_assert_int_eq(fixture_call(&f, "spin", &a, 1, &r, NULL, &err), TL_E_EXHAUSTED);
  ck_assert_str_eq(err.msg, "fuel exhausted");
  tl_store_set_fuel(f.s, 1000000);
  a = 100;
  ck_assert_int_eq(fixture_call(&f, "spin", &a, 1, &r, NULL, &err), TL_OK);
  ck_assert_int_eq(r, 100);
  a = 1000000;                                           /* the rest of the budget is smaller */
  ck_assert_int_eq(fixture_call(&f, "spin", &a, 1, &r, NULL, &err), TL_E_EXHAUSTED);
  tl_store_set_fuel(f.s, 0);                             /* off again: no checks */
  ck_assert_int_eq(fixture_call(&f, "spin", &a, 1, &r, NULL, &err), TL_OK);
  ck_assert_int_eq(r, 1000000);
  fixture_teardown(&f);
} END_TEST

START_TEST(fuel_eager) {
  fixture f;
  fixture_setup(&f, wasm, sizeof wasm, TL_ENGINE_JIT, 3000);
  tl_error err = {0};
  ck_assert_int_eq(tl_jit_compile_instance(f.inst, 1, NULL, NULL, &err), TL_OK);
  int32_t r, a = 1000000000;
  ck_assert_int_eq(fixture_call(&f, "spin", &a, 1, &r, NULL, &err), TL_E_EXHAUSTED);
  ck_assert_str_eq(err.msg, "fuel exhausted");
  fixture_teardown(&f);
  fixture_setup(&f, wasm, sizeof wasm, TL_ENGINE_JIT, 0); /* fuel set after instantiation */
  tl_store_set_fuel(f.s, 3000);
  ck_assert_int_eq(tl_jit_compile_instance(f.inst, 1, NULL, NULL, &err), TL_OK);
  ck_assert_uint_eq(compiled(&f), NDEFINED);             /* the eager code counts fuel */
  ck_assert_int_eq(fixture_call(&f, "spin", &a, 1, &r, NULL, &err), TL_E_EXHAUSTED);
  ck_assert_uint_eq(compiled(&f), NDEFINED);
  fixture_teardown(&f);
} END_TEST

/* Without fuel the code has no fuel check: no load of jctx.fuel. */
START_TEST(no_fuel_no_checks) {
  fixture f;
  fixture_setup(&f, wasm, sizeof wasm, TL_ENGINE_JIT, 0);
  tl_error err = {0};
  ck_assert_int_eq(tl_jit_compile_instance(f.inst, 1, NULL, NULL, &err), TL_OK);
  jctx *c = f.inst->jit;
  static const uint8_t ld[] = {0x49, 0x8B, 0x44, 0x24, JC_FUEL};  /* mov rax, [r12 + 56] */
  bool found = false;
  for (size_t i = 0; i + sizeof ld <= c->code_size; i++) found |= !memcmp(c->code + i, ld, sizeof ld);
  ck_assert(!found);
  fixture_teardown(&f);
  fixture_setup(&f, wasm, sizeof wasm, TL_ENGINE_JIT, 100000);
  ck_assert_int_eq(tl_jit_compile_instance(f.inst, 1, NULL, NULL, &err), TL_OK);
  c = f.inst->jit;
  for (size_t i = 0; i + sizeof ld <= c->code_size; i++) found |= !memcmp(c->code + i, ld, sizeof ld);
  ck_assert(found);
  fixture_teardown(&f);
} END_TEST
#endif

static Suite *suite(void) {
  Suite *s = suite_create("jit_lazy");
  TCase *tc = tcase_create("lazy");
  tcase_set_timeout(tc, 60);
#if defined(__x86_64__)
  tcase_add_test(tc, only_called_functions_compile);
  tcase_add_test(tc, export_called_from_host_first);
  tcase_add_test(tc, no_stale_code_after_passes);
  tcase_add_test(tc, indirect_call_first);
  tcase_add_test(tc, eager_compiles_everything);
  tcase_add_test(tc, fuel_matches_interpreter);
  tcase_add_test(tc, fuel_message_and_carry_over);
  tcase_add_test(tc, fuel_eager);
  tcase_add_test(tc, no_fuel_no_checks);
#endif
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
