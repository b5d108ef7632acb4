/* interp_eh_test.c — exception handling in the reference interpreter and
 * (every test again, loop index 1) the JIT, on modules in the text format:
 * catches across call frames, rethrow from nested catches, delegate to an
 * outer try, try_table catch_ref with throw_ref, uncaught exceptions
 * (TL_E_EXCEPTION naming the tag), traps that catch_all does not catch,
 * tags shared across instances, exceptions through a host function, deep
 * unwinding. More JIT cases: jit_eh_test.c. */
#include "eh_fixture.h"
#include "check_main.h"

#include <stdlib.h>

/* A store running engine _i of the loop tests: 0 interpreter, 1 JIT. */
static tl_store *store_for(int engine) {
  tl_store *s = tl_store_new();
  if (engine) tl_store_set_engine(s, TL_ENGINE_JIT);
  return s;
}

static const char *const EH_MOD =
    "(module\n"
    "  (tag $e (export \"e\") (param i32))\n"
    "  (tag $f (param i32 i32))\n"
    "  (tag (param i64))\n"
    "  (func $thrower (param i32) (throw $e (i32.add (local.get 0) (i32.const 100))))\n"
    "  (func $middle (param i32) (result i32) (call $thrower (local.get 0)) (i32.const -1))\n"
    /* caught two frames below the throw, payload through a legacy catch */
    "  (func (export \"across\") (param i32) (result i32)\n"
    "    (try (result i32) (do (call $middle (local.get 0))) (catch $e)))\n"
    /* the same through try_table */
    "  (func (export \"across-table\") (param i32) (result i32)\n"
    "    (block $h (result i32)\n"
    "      (try_table (result i32) (catch $e $h) (call $middle (local.get 0)))))\n"
    /* rethrow 1 in an inner catch rethrows the outer catch's exception */
    "  (func (export \"nested-rethrow\") (param i32) (result i32)\n"
    "    (try (result i32)\n"
    "      (do\n"
    "        (try (result i32)\n"
    "          (do (throw $e (local.get 0)))\n"
    "          (catch $e (drop)\n"
    "            (try (result i32)\n"
    "              (do (throw $f (i32.const 1) (i32.const 2)))\n"
    "              (catch $f (drop) (drop) (rethrow 1))))))\n"
    "      (catch $e (i32.add (i32.const 1000)))))\n"
    /* delegate skips the middle try's catch_all and lands in the outer one */
    "  (func (export \"delegate\") (param i32) (result i32)\n"
    "    (try $outer (result i32)\n"
    "      (do\n"
    "        (try (result i32)\n"
    "          (do (try (result i32) (do (call $thrower (local.get 0)) (i32.const -1)) (delegate $outer)))\n"
    "          (catch_all (i32.const 1))))\n"
    "      (catch $e (drop) (i32.const 2))))\n"
    /* catch_ref keeps the exception; throw_ref throws it again, the outer
     * try_table's catch takes its payload */
    "  (func (export \"catch-ref\") (param i32) (result i32)\n"
    "    (block $outer (result i32)\n"
    "      (try_table (result i32) (catch $e $outer)\n"
    "        (block $inner (result i32 exnref)\n"
    "          (try_table (result i32 exnref) (catch_ref $e $inner) (call $thrower (local.get 0)) (unreachable)))\n"
    "        (throw_ref))))\n"
    /* the first arm holds a try with catches of its own: the second arm
     * (for $f) is still this try's (tilt-fuzz opt --eh seed 6200002035:
     * the nested arms were read as the outer's, a crash) */
    "  (func (export \"arm-after-nested\") (param i32) (result i32)\n"
    "    (try (result i32)\n"
    "      (do (throw $f (local.get 0) (i32.const 2)))\n"
    "      (catch $e (drop)\n"
    "        (try (result i32) (do (i32.const 3)) (catch $e (drop) (i32.const 4)) (catch_all (i32.const 5))))\n"
    "      (catch $f (drop) (i32.add (i32.const 40)))\n"
    "      (catch_all (i32.const 6))))\n"
    /* catch_all of a try_table takes none of the payload: 40 stays below
     * (tilt-fuzz opt --eh seed 7310018692: the payload was pushed anyway) */
    "  (func (export \"catch-all-payload\") (param i32) (result i32)\n"
    "    (i32.add (i32.const 40)\n"
    "      (block (result i32)\n"
    "        (block $h (try_table (catch_all $h) (throw $f (local.get 0) (i32.const 7))))\n"
    "        (i32.const 2))))\n"
    "  (func (export \"throw-ref-null\") (result i32) (throw_ref (ref.null exn)))\n"
    "  (func (export \"uncaught\") (param i32) (result i32) (call $middle (local.get 0)))\n"
    "  (func (export \"uncaught-f\") (result i32) (throw $f (i32.const 1) (i32.const 2)))\n"
    "  (func (export \"uncaught-anon\") (result i32) (throw 2 (i64.const 1)))\n"
    /* traps pass catch_all and catch_all_ref by */
    "  (func (export \"trap-legacy\") (param i32) (result i32)\n"
    "    (try (result i32) (do (i32.div_u (i32.const 1) (local.get 0))) (catch_all (i32.const 7))))\n"
    "  (func (export \"trap-table\") (param i32) (result i32)\n"
    "    (block $h\n"
    "      (try_table (catch_all $h) (drop (i32.div_u (i32.const 1) (local.get 0)))))\n"
    "    (i32.const 7))\n"
    /* a throw 1000 frames down, caught at the top: unwinding is iterative */
    "  (func $down (param i32) (result i32)\n"
    "    (if (result i32) (local.get 0)\n"
    "      (then (call $down (i32.sub (local.get 0) (i32.const 1))))\n"
    "      (else (throw $e (i32.const 5)))))\n"
    "  (func (export \"deep\") (param i32) (result i32)\n"
    "    (try (result i32) (do (call $down (local.get 0))) (catch $e))))\n";

START_TEST(catch_rethrow_delegate) {
  tl_module *m = parse(EH_MOD);
  tl_store *s = store_for(_i);
  tl_error err = {0};
  tl_instance *inst = tl_instantiate(s, m, NULL, &err);
  ck_assert_msg(inst != NULL, "%s", err.msg);
  ck_assert_int_eq(ok1(inst, "across", 1), 101);
  ck_assert_int_eq(ok1(inst, "across-table", 2), 102);
  ck_assert_int_eq(ok1(inst, "nested-rethrow", 3), 1003);
  ck_assert_int_eq(ok1(inst, "delegate", 0), 2);
  ck_assert_int_eq(ok1(inst, "catch-ref", 4), 104);
  ck_assert_int_eq(ok1(inst, "deep", 1000), 5);
  ck_assert_int_eq(ok1(inst, "arm-after-nested", 2), 42);
  ck_assert_int_eq(ok1(inst, "catch-all-payload", 9), 42);
  /* a caught exception leaves the instance usable: the same calls again */
  ck_assert_int_eq(ok1(inst, "across", 9), 109);
  tl_store_free(s);
  tl_module_free(m);
}
END_TEST

START_TEST(uncaught_and_traps) {
  tl_module *m = parse(EH_MOD);
  tl_store *s = store_for(_i);
  tl_error err = {0};
  tl_instance *inst = tl_instantiate(s, m, NULL, &err);
  ck_assert_ptr_nonnull(inst);
  int32_t v;
  ck_assert_int_eq(call1(inst, "uncaught", 1, &v, &err), TL_E_EXCEPTION);
  ck_assert_str_eq(err.msg, "uncaught exception: tag e");   /* its export name */
  ck_assert_int_eq(call1(inst, "uncaught-f", -1, &v, &err), TL_E_EXCEPTION);
  ck_assert_str_eq(err.msg, "uncaught exception: tag $f");  /* not exported: its $id */
  ck_assert_int_eq(call1(inst, "uncaught-anon", -1, &v, &err), TL_E_EXCEPTION);
  ck_assert_str_eq(err.msg, "uncaught exception: tag 2");   /* nor named: its index */
  ck_assert_int_eq(call1(inst, "throw-ref-null", -1, &v, &err), TL_E_TRAP);
  ck_assert_str_eq(err.msg, "null exception reference");
  ck_assert_int_eq(call1(inst, "trap-legacy", 0, &v, &err), TL_E_TRAP);
  ck_assert_str_eq(err.msg, "integer divide by zero");
  ck_assert_int_eq(call1(inst, "trap-table", 0, &v, &err), TL_E_TRAP);
  ck_assert_str_eq(err.msg, "integer divide by zero");
  ck_assert_int_eq(ok1(inst, "trap-legacy", 1), 1);
  ck_assert_int_eq(ok1(inst, "trap-table", 1), 7);
  tl_store_free(s);
  tl_module_free(m);
}
END_TEST

/* Instance A exports a tag and a thrower; B imports both: B's catch of the
 * imported tag takes A's exception; B's own tag of the same type does not. */
START_TEST(across_instances) {
  tl_module *a = parse("(module (tag $t (export \"t\") (param i32))\n"
                       "  (func (export \"throw\") (param i32) (throw $t (local.get 0))))");
  tl_module *b = parse("(module (func $throw (import \"a\" \"throw\") (param i32))\n"
                       "  (tag $t (import \"a\" \"t\") (param i32)) (tag $own (param i32))\n"
                       "  (table funcref (elem $throw))\n"
                       "  (func (export \"imported\") (param i32) (result i32)\n"
                       "    (block $h (result i32) (try_table (result i32) (catch $t $h)\n"
                       "      (call_indirect (param i32) (local.get 0) (i32.const 0)) (i32.const -1))))\n"
                       "  (func (export \"own\") (param i32) (result i32)\n"
                       "    (try (result i32) (do (call $throw (local.get 0)) (i32.const -1))\n"
                       "      (catch $own) (catch_all (i32.const -2)))))");
  tl_store *s = store_for(_i);
  tl_error err = {0};
  tl_instance *ia = tl_instantiate(s, a, NULL, &err);
  ck_assert_ptr_nonnull(ia);
  tl_linker *lk = tl_linker_new();
  tl_linker_define_instance(lk, "a", ia);
  tl_instance *ib = tl_instantiate(s, b, lk, &err);
  ck_assert_msg(ib != NULL, "%s", err.msg);
  ck_assert_int_eq(ok1(ib, "imported", 42), 42);
  ck_assert_int_eq(ok1(ib, "own", 42), -2);
  tl_linker_free(lk);
  tl_store_free(s);
  tl_module_free(b);
  tl_module_free(a);
}
END_TEST

typedef struct { tl_store *s; tl_extern thrower; } reenter;

/* A host function calling back into wasm and returning its status: an
 * exception the wasm call ends in goes on into the host's caller. */
static tl_status host_calls_back(tl_host_call *call, void *user, const tl_value *args,
                                 tl_value *results, tl_error *err) {
  (void)call;
  (void)results;
  reenter *r = user;
  uint32_t nr = 0;
  return tl_func_call(r->s, r->thrower, args, 1, NULL, 0, &nr, err);
}

START_TEST(through_host) {
  tl_module *m = parse("(module (func $host (import \"env\" \"host\") (param i32))\n"
                       "  (tag $e (param i32))\n"
                       "  (func (export \"throw\") (param i32) (throw $e (local.get 0)))\n"
                       "  (func (export \"via-host\") (param i32) (result i32)\n"
                       "    (try (result i32) (do (call $host (local.get 0)) (i32.const -1)) (catch $e))))");
  tl_store *s = store_for(_i);
  reenter r = {s, {0, NULL}};
  tl_linker *lk = tl_linker_new();
  uint32_t t32 = TL_VAL_I32;
  tl_linker_define(lk, "env", "host", tl_host_func_new(s, &t32, 1, NULL, 0, host_calls_back, &r));
  tl_error err = {0};
  tl_instance *inst = tl_instantiate(s, m, lk, &err);
  ck_assert_msg(inst != NULL, "%s", err.msg);
  ck_assert_int_eq(tl_instance_export(inst, "throw", &r.thrower), TL_OK);
  ck_assert_int_eq(ok1(inst, "via-host", 77), 77);
  tl_linker_free(lk);
  tl_store_free(s);
  tl_module_free(m);
}
END_TEST

static Suite *eh_suite(void) {
  Suite *su = suite_create("interp_eh");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, catch_rethrow_delegate, 0, 2);
  tcase_add_loop_test(tc, uncaught_and_traps, 0, 2);
  tcase_add_loop_test(tc, across_instances, 0, 2);
  tcase_add_loop_test(tc, through_host, 0, 2);
  suite_add_tcase(su, tc);
  return su;
}

TL_CHECK_MAIN(eh_suite)
