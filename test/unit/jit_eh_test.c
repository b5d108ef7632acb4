/* jit_eh_test.c — exception handling in the JIT (src/jit/eh.c), each test
 * with lazily compiled code (loop index 0) and eagerly compiled module code
 * (1): a throw three frames down caught in the caller with register locals
 * intact, rethrow and delegate into the caller, catch_ref + throw_ref with
 * the exnref kept in a local, exceptions through two instance boundaries,
 * a return_call out of a try (its handler is gone), stack exhaustion in a
 * try (a trap, not caught), and deep recursion catching and rethrowing in
 * every frame, after which the whole call depth is still there. The
 * shared cases run on both engines in interp_eh_test.c. */
#include "eh_fixture.h"
#include "check_main.h"

#include <stdlib.h>

/* An instance of m in s (a JIT store), compiled eagerly when eager. */
static tl_instance *inst_of(tl_store *s, tl_module *m, tl_linker *lk, bool eager) {
  tl_error err = {0};
  tl_instance *inst = tl_instantiate(s, m, lk, &err);
  ck_assert_msg(inst != NULL, "%s", err.msg);
  if (eager) ck_assert_int_eq(tl_jit_compile_instance(inst, 1, NULL, NULL, &err), TL_OK);
  return inst;
}

static tl_store *jit_store(void) {
  tl_store *s = tl_store_new();
  tl_store_set_engine(s, TL_ENGINE_JIT);
  return s;
}

static const char *const MOD =
    "(module\n"
    "  (tag $e (param i32)) (tag $g (param f64 i64))\n"
    "  (func $thrower (param i32) (throw $e (local.get 0)))\n"
    "  (func $f3 (param i32) (call $thrower (i32.add (local.get 0) (i32.const 1))))\n"
    "  (func $f2 (param i32) (call $f3 (i32.add (local.get 0) (i32.const 1))))\n"
    "  (func $f1 (param i32) (call $f2 (i32.add (local.get 0) (i32.const 1))))\n"
    /* hot locals live in registers; the catch reads them after unwinding */
    "  (func (export \"three-deep\") (param i32) (result i32)\n"
    "    (local $i i32) (local $s i32) (local $d f64)\n"
    "    (loop $l (local.set $s (i32.add (local.get $s) (local.get $i)))\n"
    "      (local.set $d (f64.add (local.get $d) (f64.const 0.5)))\n"
    "      (local.set $i (i32.add (local.get $i) (i32.const 1)))\n"
    "      (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))\n"
    "    (try (result i32) (do (call $f1 (local.get 0)) (i32.const -1))\n"
    "      (catch $e (i32.add (local.get $s))\n"
    "        (i32.add (i32.trunc_f64_s (local.get $d))))))\n"
    /* rethrow from a catch into the caller's catch */
    "  (func $rethrower (param i32)\n"
    "    (try (do (call $f1 (local.get 0))) (catch $e (drop) (rethrow 0))))\n"
    "  (func (export \"rethrow\") (param i32) (result i32)\n"
    "    (try (result i32) (do (call $rethrower (local.get 0)) (i32.const -1))\n"
    "      (catch $e (i32.const 1000) (i32.add))))\n"
    /* delegate 0 in a function body: to the caller */
    "  (func $delegator (param i32)\n"
    "    (try (do (call $f1 (local.get 0))) (delegate 0)))\n"
    "  (func (export \"delegate-caller\") (param i32) (result i32)\n"
    "    (try (result i32) (do (call $delegator (local.get 0)) (i32.const -1))\n"
    "      (catch $e (i32.const 2000) (i32.add))))\n"
    /* catch_ref keeps the exnref in a local; throw_ref later, elsewhere */
    "  (func (export \"exnref-local\") (param i32) (result i32)\n"
    "    (local $x exnref) (local $r i32)\n"
    "    (block $h (result exnref)\n"
    "      (try_table (catch_all_ref $h) (call $f1 (local.get 0))) (unreachable))\n"
    "    (local.set $x)\n"
    "    (local.set $r (i32.const 30000))\n"
    "    (block $k (result i32)\n"
    "      (try_table (result i32) (catch $e $k) (throw_ref (local.get $x))))\n"
    "    (local.get $r) (i32.add))\n"
    /* a payload of two values of other types */
    "  (func (export \"two-values\") (param i32) (result i32) (local $k i64)\n"
    "    (block $h (result f64 i64)\n"
    "      (try_table (catch $g $h)\n"
    "        (throw $g (f64.convert_i32_s (local.get 0)) (i64.const 5)))\n"
    "      (unreachable))\n"
    "    (local.set $k) (i32.trunc_f64_s) (i32.add (i32.wrap_i64 (local.get $k))))\n"
    /* return_call leaves the try: its handler no longer applies */
    "  (func $tail (param i32) (result i32)\n"
    "    (try (result i32) (do (return_call $throws-i32 (local.get 0))) (catch_all (i32.const -5))))\n"
    "  (func $throws-i32 (param i32) (result i32) (throw $e (local.get 0)))\n"
    "  (func (export \"tail\") (param i32) (result i32)\n"
    "    (try (result i32) (do (call $tail (local.get 0))) (catch $e (i32.const 3000) (i32.add))))\n"
    /* running out of stack in a try is a trap: catch_all does not see it */
    "  (func $inf (param i32) (result i32) (call $inf (local.get 0)))\n"
    "  (func (export \"exhaust\") (param i32) (result i32)\n"
    "    (try (result i32) (do (call $inf (local.get 0))) (catch_all (i32.const 1))))\n"
    /* every frame catches and throws again one higher */
    "  (func $rec (param i32)\n"
    "    (try (do (if (local.get 0) (then (call $rec (i32.sub (local.get 0) (i32.const 1))))\n"
    "                 (else (throw $e (i32.const 0)))))\n"
    "      (catch $e (throw $e (i32.add (i32.const 1))))))\n"
    "  (func $plain (param i32) (result i32)\n"
    "    (if (result i32) (local.get 0) (then (call $plain (i32.sub (local.get 0) (i32.const 1))))\n"
    "      (else (i32.const 0))))\n"
    "  (func (export \"recursion\") (param i32) (result i32)\n"
    "    (try (result i32) (do (call $rec (local.get 0)) (i32.const -1)) (catch $e))\n"
    "    (call $plain (i32.const 9990)) (i32.add)))\n";

START_TEST(within_instance) {
  tl_module *m = parse(MOD);
  tl_store *s = jit_store();
  tl_instance *inst = inst_of(s, m, NULL, _i);
  ck_assert_int_eq(ok1(inst, "three-deep", 7), 10 + 45 + 5);
  ck_assert_int_eq(ok1(inst, "rethrow", 7), 1010);
  ck_assert_int_eq(ok1(inst, "delegate-caller", 7), 2010);
  ck_assert_int_eq(ok1(inst, "exnref-local", 7), 30010);
  ck_assert_int_eq(ok1(inst, "two-values", 7), 12);
  ck_assert_int_eq(ok1(inst, "tail", 7), 3007);
  int32_t v;
  tl_error err;
  ck_assert_int_eq(call1(inst, "exhaust", 0, &v, &err), TL_E_EXHAUSTED);
  for (int k = 0; k < 20; k++) ck_assert_int_eq(ok1(inst, "recursion", 4000), 4001);
  ck_assert_int_eq(ok1(inst, "three-deep", 1), 4 + 45 + 5);   /* still usable */
  tl_store_free(s);
  tl_module_free(m);
}
END_TEST

/* C calls B's export, which calls A's thrower; B catches another tag only.
 * The exception leaves A's code, then B's, and C catches it. */
START_TEST(two_instance_boundaries) {
  tl_module *a = parse("(module (tag $t (export \"t\") (param i32))\n"
                       "  (func (export \"throw\") (param i32) (throw $t (local.get 0))))");
  tl_module *b = parse("(module (func $throw (import \"a\" \"throw\") (param i32))\n"
                       "  (tag $own (param i32))\n"
                       "  (func (export \"mid\") (param i32)\n"
                       "    (try (do (call $throw (i32.add (local.get 0) (i32.const 1)))) (catch $own (drop)))))");
  tl_module *c = parse("(module (func $mid (import \"b\" \"mid\") (param i32))\n"
                       "  (tag $t (import \"a\" \"t\") (param i32))\n"
                       "  (func (export \"top\") (param i32) (result i32)\n"
                       "    (block $h (result i32) (try_table (result i32) (catch $t $h)\n"
                       "      (call $mid (local.get 0)) (i32.const -1)))))");
  tl_store *s = jit_store();
  tl_linker *lk = tl_linker_new();
  tl_instance *ia = inst_of(s, a, lk, _i);
  tl_linker_define_instance(lk, "a", ia);
  tl_instance *ib = inst_of(s, b, lk, _i);
  tl_linker_define_instance(lk, "b", ib);
  tl_instance *ic = inst_of(s, c, lk, _i);
  for (int k = 0; k < 3; k++) ck_assert_int_eq(ok1(ic, "top", 41), 42);
  int32_t v;
  tl_error err;
  ck_assert_int_eq(call1(ib, "mid", 1, &v, &err), TL_E_EXCEPTION);
  ck_assert_str_eq(err.msg, "uncaught exception: tag t");
  tl_linker_free(lk);
  tl_store_free(s);
  tl_module_free(c);
  tl_module_free(b);
  tl_module_free(a);
}
END_TEST

static Suite *eh_suite(void) {
  Suite *su = suite_create("jit_eh");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, within_instance, 0, 2);
  tcase_add_loop_test(tc, two_instance_boundaries, 0, 2);
  suite_add_tcase(su, tc);
  return su;
}

TL_CHECK_MAIN(eh_suite)
