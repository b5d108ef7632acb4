/* fuzzgen_test.c — the random module generator (src/fuzz/gen.c): any byte
 * string gives a module that validates, survives write and read, runs to
 * completion (the hang limit bounds every loop and recursion), and the same
 * bytes give the same module. */
#include "fuzz/fuzz.h"
#include "ir/ir.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_main.h"

static void check_module(const uint8_t *p, size_t n, uint32_t features) {
  tl_fuzz_options fo = {features, 0, 0};
  tl_module *m = tl_fuzz_generate(p, n, &fo);
  ck_assert_ptr_nonnull(m);
  tl_error err;
  ck_assert_msg(tl_module_validate(m, &err) == TL_OK, "invalid: %s", err.msg);
  uint8_t *w = NULL;
  size_t wn = 0;
  tl_write_options wo = {0};
  ck_assert_int_eq(tl_module_write(m, &wo, &w, &wn, &err), TL_OK);
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  tl_module *m2 = tl_module_read(w, wn, &ro, &err);
  ck_assert_msg(m2 != NULL, "re-read: %s", err.msg);
  char *log = tl_module_fuzz_exec(m2, 0);  /* no fuel: must end by itself */
  ck_assert_ptr_nonnull(log);
  free(log);
  tl_module_free(m2);
  free(w);
  tl_module_free(m);
}

START_TEST(empty_and_tiny_inputs) {
  check_module(NULL, 0, 0);
  const uint8_t one[] = {0xff}, zeros[64] = {0};
  check_module(one, 1, 0);
  check_module(zeros, sizeof zeros, 0);
  uint8_t ff[256];
  memset(ff, 0xff, sizeof ff);
  check_module(ff, sizeof ff, 0);
} END_TEST

START_TEST(seeds_validate_and_terminate) {
  uint8_t buf[4096];
  for (uint64_t s = 0; s < 150; s++) {
    tl_fuzz_seed_bytes(s, buf, sizeof buf);
    check_module(buf, sizeof buf, 0);
  }
} END_TEST

START_TEST(feature_subsets) {
  uint8_t buf[2048];
  const uint32_t sets[] = {TL_FEATURE_MUTABLE_GLOBALS, TL_FEATURES_ALL & ~TL_FEATURE_SIMD,
                           TL_FEATURES_ALL & ~TL_FEATURE_MULTIVALUE,
                           TL_FEATURES_ALL & ~TL_FEATURE_REFERENCE_TYPES};
  for (uint64_t s = 0; s < 40; s++) {
    tl_fuzz_seed_bytes(s + 1000, buf, sizeof buf);
    tl_fuzz_options fo = {sets[s % 4], 0, 0};
    tl_module *m = tl_fuzz_generate(buf, sizeof buf, &fo);
    tl_error err;
    ck_assert_msg(tl_module_validate(m, &err) == TL_OK, "invalid: %s", err.msg);
    ck_assert_uint_eq(tl_module_detect_features(m) & ~sets[s % 4], 0);
    tl_module_free(m);
  }
} END_TEST

START_TEST(deterministic) {
  uint8_t buf[4096];
  tl_fuzz_seed_bytes(42, buf, sizeof buf);
  tl_module *a = tl_fuzz_generate(buf, sizeof buf, NULL), *b = tl_fuzz_generate(buf, sizeof buf, NULL);
  char *pa = tl_module_print(a), *pb = tl_module_print(b);
  ck_assert_str_eq(pa, pb);
  free(pa);
  free(pb);
  tl_module_free(a);
  tl_module_free(b);
} END_TEST

/* Counts of EH ops in e's tree (iterative: an explicit stack). */
static void count_ops(tl_expr *root, uint32_t *cnt) {
  tl_expr *stack[4096];
  uint32_t n = 0;
  stack[n++] = root;
  while (n) {
    tl_expr *e = stack[--n];
    cnt[e->op]++;
    for (uint32_t i = 0; i < e->nkid && n < 4096; i++)
      if (e->kid[i]) stack[n++] = e->kid[i];
  }
}

/* TL_FUZZ_EH_ON: modules with every EH form that validate, print (the
 * printer once read a tuple.make under drop as a tuple want and crashed),
 * and write and read back; TL_FUZZ_EH_OFF: no tag, no EH node. */
START_TEST(exception_handling) {
  static uint32_t cnt[TL_NOPS];
  uint8_t buf[4096];
  uint32_t tags = 0;
  for (uint64_t s = 0; s < 60; s++) {
    tl_fuzz_seed_bytes(s + 5000, buf, sizeof buf);
    tl_fuzz_options fo = {TL_FEATURES_ALL | TL_FUZZ_EH_ON, 0, 0};
    tl_module *m = tl_fuzz_generate(buf, sizeof buf, &fo);
    tl_error err;
    ck_assert_msg(tl_module_validate(m, &err) == TL_OK, "seed %d invalid: %s", (int)s, err.msg);
    free(tl_module_print(m));
    tags += m->tags.n;
    for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) count_ops(TL_FUNC(m, i)->body, cnt);
    uint8_t *w = NULL;
    size_t wn = 0;
    tl_write_options wo = {0};
    ck_assert_int_eq(tl_module_write(m, &wo, &w, &wn, &err), TL_OK);
    tl_read_options ro = {0};
    ro.features = TL_FEATURES_ALL;
    tl_module *m2 = tl_module_read(w, wn, &ro, &err);
    ck_assert_msg(m2 != NULL, "seed %d re-read: %s", (int)s, err.msg);
    tl_module_free(m2);
    free(w);
    tl_module_free(m);
    fo.features = TL_FEATURES_ALL | TL_FUZZ_EH_OFF;
    m = tl_fuzz_generate(buf, sizeof buf, &fo);
    ck_assert_uint_eq(m->tags.n, 0);
    for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
      ck_assert(!tl_expr_has_eh(TL_FUNC(m, i)->body));
    tl_module_free(m);
  }
  ck_assert_uint_gt(tags, 0);
  static const tl_op want[] = {TL_OP_TRY, TL_OP_CATCH, TL_OP_CATCH_ALL, TL_OP_DELEGATE, TL_OP_THROW,
                               TL_OP_RETHROW, TL_OP_THROW_REF, TL_OP_TRY_TABLE, TL_OP_TT_CATCH,
                               TL_OP_TT_CATCH_REF, TL_OP_TT_CATCH_ALL, TL_OP_TT_CATCH_ALL_REF};
  for (uint32_t i = 0; i < sizeof want / sizeof *want; i++)
    ck_assert_msg(cnt[want[i]] > 0, "no %s generated", tl_ops[want[i]].text);
} END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("fuzzgen");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, empty_and_tiny_inputs);
  tcase_add_test(t, seeds_validate_and_terminate);
  tcase_add_test(t, feature_subsets);
  tcase_add_test(t, deterministic);
  tcase_add_test(t, exception_handling);
  suite_add_tcase(s, t);
  return s;
}

TL_CHECK_MAIN(suite)
