/* oom2_test.c — the whole -O2 / -Os pipelines under out of memory: with
 * tl_scratch_fail_nth failing the 1st, 2nd, ... scratch allocation of a
 * run of tl_module_optimize (then a write with stack optimization), the
 * run either succeeds, leaving a module that validates, or returns
 * TL_E_NOMEM with an "out of memory" message; never a crash, nothing left
 * allocated (LeakSanitizer in the sanitizer build). Inputs: a handmade
 * module (inlining, dead code, nested labels, br_table, call_indirect)
 * and generated ones (src/fuzz). */
#include "fuzz/fuzz.h"
#include "ir/ir.h"
#include "wasm-io/wasmio.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_main.h"

enum { MAX_N = 200000 };

/* wat2wasm of
 * (module
 *   (import "a" "f" (func $imp (param i32)))
 *   (memory 1)
 *   (global $g (mut i32) (i32.const 7))
 *   (table 2 funcref)
 *   (elem (i32.const 0) $add $twice)
 *   (type $t (func (param i32) (result i32)))
 *   (func $add (param $a i32) (result i32)
 *     (block $b (result i32)
 *       (block $c (result i32)
 *         (br_if $c (local.get $a) (i32.eqz (local.get $a)))
 *         (drop)
 *         (i32.add (local.get $a) (global.get $g)))))
 *   (func $twice (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
 *   (func $once (param $x i32) (result i32) (local $y i32)
 *     (local.set $y (i32.load (local.get $x)))
 *     (if (local.get $y) (then (call $imp (local.get $y)) (return (i32.const 1))))
 *     (i32.add (local.get $y) (call $twice (local.get $x))))
 *   (func $main (export "main") (param $x i32) (result i32) (local $t i32) (local $u i64)
 *     (block $out
 *       (loop $top
 *         (call $imp (local.get $x))
 *         (global.set $g (i32.add (global.get $g) (i32.const 1)))
 *         (local.set $t (call $once (i32.load (i32.const 8))))
 *         (local.set $u (i64.extend_i32_u (local.get $t)))
 *         (i64.store (i32.const 16) (local.get $u))
 *         (if (i32.eq (local.get $t) (i32.const 3)) (then (br $out) (nop) (unreachable)))
 *         (br_table $out $top $out (local.tee $x (i32.sub (local.get $x) (local.get $t))))))
 *     (drop (i32.const 5))
 *     (i32.add (call_indirect (type $t) (local.get $x) (i32.const 1))
 *              (i32.add (call $add (global.get $g)) (call $twice (i32.const 3)))))
 *   (data (i32.const 0) "\00\00\00\00\00\00\00\00\01\02\00\00\00\05")) */
static const uint8_t small[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x02, 0x60,
    0x01, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x00, 0x02, 0x07, 0x01, 0x01,
    0x61, 0x01, 0x66, 0x00, 0x01, 0x03, 0x05, 0x04, 0x00, 0x00, 0x00, 0x00,
    0x04, 0x04, 0x01, 0x70, 0x00, 0x02, 0x05, 0x03, 0x01, 0x00, 0x01, 0x06,
    0x06, 0x01, 0x7f, 0x01, 0x41, 0x07, 0x0b, 0x07, 0x08, 0x01, 0x04, 0x6d,
    0x61, 0x69, 0x6e, 0x00, 0x04, 0x09, 0x08, 0x01, 0x00, 0x41, 0x00, 0x0b,
    0x02, 0x01, 0x02, 0x0a, 0x97, 0x01, 0x04, 0x15, 0x00, 0x02, 0x7f, 0x02,
    0x7f, 0x20, 0x00, 0x20, 0x00, 0x45, 0x0d, 0x00, 0x1a, 0x20, 0x00, 0x23,
    0x00, 0x6a, 0x0b, 0x0b, 0x0b, 0x07, 0x00, 0x20, 0x00, 0x41, 0x02, 0x6c,
    0x0b, 0x1e, 0x01, 0x01, 0x7f, 0x20, 0x00, 0x28, 0x02, 0x00, 0x21, 0x01,
    0x20, 0x01, 0x04, 0x40, 0x20, 0x01, 0x10, 0x00, 0x41, 0x01, 0x0f, 0x0b,
    0x20, 0x01, 0x20, 0x00, 0x10, 0x02, 0x6a, 0x0b, 0x58, 0x02, 0x01, 0x7f,
    0x01, 0x7e, 0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x10, 0x00, 0x23, 0x00,
    0x41, 0x01, 0x6a, 0x24, 0x00, 0x41, 0x08, 0x28, 0x02, 0x00, 0x10, 0x03,
    0x21, 0x01, 0x20, 0x01, 0xad, 0x21, 0x02, 0x41, 0x10, 0x20, 0x02, 0x37,
    0x03, 0x00, 0x20, 0x01, 0x41, 0x03, 0x46, 0x04, 0x40, 0x0c, 0x02, 0x01,
    0x00, 0x0b, 0x20, 0x00, 0x20, 0x01, 0x6b, 0x22, 0x00, 0x0e, 0x02, 0x01,
    0x00, 0x01, 0x0b, 0x0b, 0x41, 0x05, 0x1a, 0x20, 0x00, 0x41, 0x01, 0x11,
    0x00, 0x00, 0x23, 0x00, 0x10, 0x01, 0x41, 0x03, 0x10, 0x02, 0x6a, 0x6a,
    0x0b, 0x0b, 0x14, 0x01, 0x00, 0x41, 0x00, 0x0b, 0x0e, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x05,
};

typedef struct {
  const uint8_t *w;
  size_t n;
} input;

static tl_module *read_in(const input *in) {
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  tl_error err;
  tl_module *m = tl_module_read(in->w, in->n, &ro, &err);
  ck_assert_msg(m != NULL, "read: %s", err.msg);
  return m;
}

/* -O<opt> (shrink) on one thread, then a write with stack optimization. */
static tl_status optimize_write(tl_module *m, uint32_t opt, uint32_t shrink, tl_error *err) {
  tl_pass_options po = {0};
  po.threads = 1;
  tl_status st = tl_module_optimize(m, opt, shrink, &po, err);
  if (st != TL_OK) return st;
  tl_write_options o = {.optimize_stack = true, .threads = 1};
  uint8_t *p = NULL;
  size_t n = 0;
  st = tl_module_write(m, &o, &p, &n, err);
  free(p);
  return st;
}

/* Fails the n-th scratch allocation for n = 1, 2, ... until the run goes
 * through without reaching the failure; returns how many runs reported
 * TL_E_NOMEM. */
static uint32_t fail_each(const input *in, uint32_t opt, uint32_t shrink) {
  uint32_t nomem = 0;
  for (uint64_t n = 1; n <= MAX_N; n++) {
    tl_module *m = read_in(in);
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_scratch_fail_nth(n);
    tl_status st = optimize_write(m, opt, shrink, &err);
    bool reached = tl_scratch_fail_nth(0) == 0;
    ck_assert_msg(st == TL_OK || st == TL_E_NOMEM, "-O%u s%u, failing allocation %u: status %d (%s)",
                  (unsigned)opt, (unsigned)shrink, (unsigned)n, (int)st, err.msg);
    if (st == TL_OK) {
      tl_status v = tl_module_validate(m, &err);
      ck_assert_msg(v == TL_OK, "-O%u s%u, failing allocation %u survived but invalid: %s", (unsigned)opt,
                    (unsigned)shrink, (unsigned)n, err.msg);
    } else {
      ck_assert_int_eq(err.code, TL_E_NOMEM);
      ck_assert_msg(strstr(err.msg, "out of memory") != NULL, "message: %s", err.msg);
      nomem++;
    }
    tl_module_free(m);
    if (!reached) {
      if (getenv("OOM_TEST_VERBOSE"))
        fprintf(stderr, "-O%u s%u: %u allocations, %u TL_E_NOMEM\n", (unsigned)opt, (unsigned)shrink,
                (unsigned)n - 1, nomem);
      ck_assert_int_eq(st, TL_OK);
      return nomem;
    }
  }
  ck_abort_msg("more than %d scratch allocations", MAX_N);
  return nomem;
}

START_TEST(handmade_O2) {
  input in = {small, sizeof small};
  ck_assert_uint_gt(fail_each(&in, 2, 0), 0);
}
END_TEST

START_TEST(handmade_Os) {
  input in = {small, sizeof small};
  ck_assert_uint_gt(fail_each(&in, 2, 1), 0);
  ck_assert_uint_gt(fail_each(&in, 3, 0), 0);
  ck_assert_uint_gt(fail_each(&in, 2, 2), 0);
}
END_TEST

/* Generated modules (seeded as tilt-fuzz --seed S). */
START_TEST(generated) {
  for (uint64_t seed = 1; seed <= 6; seed++) {
    uint8_t bytes[1024];
    tl_fuzz_seed_bytes(seed, bytes, sizeof bytes);
    tl_fuzz_options fo = {TL_FEATURES_ALL, 0, 0};
    tl_module *g = tl_fuzz_generate(bytes, sizeof bytes, &fo);
    ck_assert_ptr_nonnull(g);
    tl_error err;
    uint8_t *w = NULL;
    size_t n = 0;
    tl_write_options wo = {0};
    ck_assert_int_eq(tl_module_write(g, &wo, &w, &n, &err), TL_OK);
    tl_module_free(g);
    input in = {w, n};
    fail_each(&in, 2, 0);
    fail_each(&in, 2, 1);
    free(w);
  }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("oom2");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, handmade_O2);
  tcase_add_test(tc, handmade_Os);
  tcase_add_test(tc, generated);
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
