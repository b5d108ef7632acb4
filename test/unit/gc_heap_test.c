/* gc_heap_test.c — the store's GC heap (src/runtime/gc_heap.c) under the
 * interpreter: an allocation loop stays in bounded memory, collections free
 * what is unreachable and keep what globals, tables, locals and operands
 * reach, a million-object chain is marked without recursion, the store's
 * destruction frees everything (ASan), i31 and host values cross the
 * any/extern boundary losslessly, and equal types of two modules are one
 * runtime type (casts across modules), objects of every size class and
 * big ones mix. */
#include "eh_fixture.h"
#include "check_main.h"
#include "runtime/runtime.h"

static const char *const LIST_MOD =
    "(module\n"
    "  (type $node (struct (field $v i64) (field $next (ref null $node))))\n"
    "  (type $junk (array (mut i8)))\n"
    "  (global $head (mut (ref null $node)) (ref.null $node))\n"
    "  (table $t 4 anyref)\n"
    /* n nodes onto $head, with garbage in between */
    "  (func (export \"build\") (param $n i32) (result i32)\n"
    "    (loop $l\n"
    "      (drop (array.new_default $junk (i32.const 100)))\n"
    "      (global.set $head (struct.new $node (i64.extend_i32_u (local.get $n)) (global.get $head)))\n"
    "      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))\n"
    "    (i32.const 0))\n"
    "  (func (export \"sum\") (param i32) (result i32)\n"
    "    (local $p (ref null $node)) (local $s i64)\n"
    "    (local.set $p (global.get $head))\n"
    "    (block $done (loop $l\n"
    "      (br_if $done (ref.is_null (local.get $p)))\n"
    "      (local.set $s (i64.add (local.get $s) (struct.get $node $v (local.get $p))))\n"
    "      (local.set $p (struct.get $node $next (local.get $p)))\n"
    "      (br $l)))\n"
    "    (i32.wrap_i64 (local.get $s)))\n"
    "  (func (export \"clear\") (param i32) (result i32)\n"
    "    (global.set $head (ref.null $node)) (i32.const 0))\n"
    /* garbage only: n arrays, none kept */
    "  (func (export \"churn\") (param $n i32) (result i32)\n"
    "    (loop $l\n"
    "      (drop (array.new_default $junk (i32.const 1000)))\n"
    "      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))\n"
    "    (i32.const 0))\n"
    /* a local and an operand survive collections run by churn */
    "  (func (export \"held\") (param $x i32) (result i32)\n"
    "    (local $a (ref null $node))\n"
    "    (local.set $a (struct.new $node (i64.const 7) (ref.null $node)))\n"
    "    (struct.new $node (i64.const 35) (local.get $a))\n"
    "    (drop (call 3 (i32.const 5000)))\n"
    "    (i32.wrap_i64 (i64.add (struct.get $node $v)\n"
    "      (struct.get $node $v (local.get $a)))))\n"
    /* table entries are roots */
    "  (func (export \"table_put\") (param $x i32) (result i32)\n"
    "    (table.set $t (i32.const 1) (struct.new $node (i64.extend_i32_u (local.get $x)) (ref.null $node)))\n"
    "    (i32.const 0))\n"
    "  (func (export \"table_get\") (param i32) (result i32)\n"
    "    (i32.wrap_i64 (struct.get $node $v (ref.cast (ref $node) (table.get $t (i32.const 1))))))\n"
    ")\n";

static tl_instance *inst_of(tl_store *s, tl_module *m) {
  tl_error err = {0};
  tl_instance *inst = tl_instantiate(s, m, NULL, &err);
  ck_assert_msg(inst != NULL, "instantiate: %s", err.msg);
  return inst;
}

static size_t live_objects(tl_store *s) {
  size_t n, bytes;
  uint64_t c;
  tl_gc_stats(s, &n, &bytes, &c);
  return n;
}

static uint64_t collections(tl_store *s) {
  size_t n, bytes;
  uint64_t c;
  tl_gc_stats(s, &n, &bytes, &c);
  return c;
}

START_TEST(gc_loop_bounded) {
  tl_module *m = parse(LIST_MOD);
  tl_store *s = tl_store_new();
  tl_gc_set_threshold(s, 1 << 20);
  tl_instance *inst = inst_of(s, m);
  ok1(inst, "churn", 200000);   /* ~200 MB allocated in all */
  size_t n, bytes;
  uint64_t c;
  tl_gc_stats(s, &n, &bytes, &c);
  ck_assert_uint_gt(c, 100);
  ck_assert_uint_lt(bytes, (size_t)4 << 20);
  ck_assert_uint_lt(n, 2000);
  tl_store_free(s);
  tl_module_free(m);
} END_TEST

START_TEST(gc_keeps_reachable_frees_rest) {
  tl_module *m = parse(LIST_MOD);
  tl_store *s = tl_store_new();
  tl_gc_set_threshold(s, 64 << 10);
  tl_instance *inst = inst_of(s, m);
  ok1(inst, "build", 20000);
  ck_assert_uint_gt(collections(s), 10);
  ck_assert_int_eq(ok1(inst, "sum", 0), 20000 * 20001 / 2);
  tl_gc_collect(s, NULL);
  ck_assert_uint_eq(live_objects(s), 20000);   /* the list; the garbage arrays are gone */
  ok1(inst, "clear", 0);
  tl_gc_collect(s, NULL);
  ck_assert_uint_eq(live_objects(s), 0);
  tl_store_free(s);
  tl_module_free(m);
} END_TEST

START_TEST(gc_locals_operands_tables) {
  tl_module *m = parse(LIST_MOD);
  tl_store *s = tl_store_new();
  tl_gc_set_threshold(s, 16 << 10);
  tl_instance *inst = inst_of(s, m);
  ck_assert_int_eq(ok1(inst, "held", 0), 42);
  ck_assert_uint_gt(collections(s), 10);
  ok1(inst, "table_put", 99);
  ok1(inst, "churn", 2000);
  ck_assert_int_eq(ok1(inst, "table_get", 0), 99);
  tl_store_free(s);
  tl_module_free(m);
} END_TEST

/* A chain of a million nodes: marking it must not recurse (ASan's stack
 * would overflow long before). */
START_TEST(gc_deep_chain) {
  tl_module *m = parse(LIST_MOD);
  tl_store *s = tl_store_new();
  tl_instance *inst = inst_of(s, m);
  ok1(inst, "build", 1000000);
  tl_gc_collect(s, NULL);
  ck_assert_uint_eq(live_objects(s), 1000000);
  ck_assert_int_eq(ok1(inst, "sum", 0), (int32_t)(uint32_t)(1000000ull * 1000001 / 2));
  tl_store_free(s);   /* frees the million nodes (ASan: no leak) */
  tl_module_free(m);
} END_TEST

static const char *const CONV_MOD =
    "(module\n"
    "  (func (export \"i31_roundtrip\") (param $x i32) (result i32)\n"
    "    (i31.get_s (ref.cast (ref i31) (any.convert_extern (extern.convert_any (ref.i31 (local.get $x)))))))\n"
    "  (func (export \"host_is_i31\") (param externref) (result i32)\n"
    "    (ref.test (ref i31) (any.convert_extern (local.get 0))))\n"
    "  (func (export \"host_back\") (param externref) (result externref)\n"
    "    (extern.convert_any (any.convert_extern (local.get 0))))\n"
    ")\n";

START_TEST(gc_extern_any_roundtrip) {
  tl_module *m = parse(CONV_MOD);
  tl_store *s = tl_store_new();
  tl_instance *inst = inst_of(s, m);
  ck_assert_int_eq(ok1(inst, "i31_roundtrip", 0x7ffffffb), -5);   /* ok1: a negative arg is none */
  ck_assert_int_eq(ok1(inst, "i31_roundtrip", 0x40000000), -0x40000000);
  for (uintptr_t h = 1; h < 4; h++) {   /* odd host values are not i31s */
    tl_value a, r;
    memset(&a, 0, sizeof a);
    a.type = TL_VAL_EXTERNREF;
    a.of.ref = (void *)h;
    uint32_t nr = 0;
    tl_error err = {0};
    ck_assert_int_eq(tl_invoke(inst, "host_is_i31", &a, 1, &r, 1, &nr, &err), TL_OK);
    ck_assert_int_eq(r.of.i32, 0);
    ck_assert_int_eq(tl_invoke(inst, "host_back", &a, 1, &r, 1, &nr, &err), TL_OK);
    ck_assert_ptr_eq(r.of.ref, (void *)h);
  }
  /* bit 63 marks an internalized any value: a host value with it set that
   * names no object is refused, not dereferenced */
  tl_value a, r;
  memset(&a, 0, sizeof a);
  a.type = TL_VAL_EXTERNREF;
  a.of.ref = (void *)(uintptr_t)(TL_GC_HOST | 0x1000);
  uint32_t nr = 0;
  tl_error err = {0};
  ck_assert_int_eq(tl_invoke(inst, "host_is_i31", &a, 1, &r, 1, &nr, &err), TL_E_INVALID);
  a.of.ref = (void *)(uintptr_t)(TL_GC_HOST | 0x1001);   /* an i31 internalized: fine */
  ck_assert_int_eq(tl_invoke(inst, "host_is_i31", &a, 1, &r, 1, &nr, &err), TL_OK);
  ck_assert_int_eq(r.of.i32, 1);
  tl_store_free(s);
  tl_module_free(m);
} END_TEST

/* Two modules with the same rec group: an object of one passes the other's cast. */
START_TEST(gc_types_shared_across_modules) {
  const char *a = "(module (rec (type $p (sub (struct (field i32)))) (type $q (sub $p (struct (field i32) (field f64)))))\n"
                  "  (func (export \"make\") (result anyref) (struct.new $q (i32.const 3) (f64.const 1))))\n";
  const char *b = "(module (rec (type $p (sub (struct (field i32)))) (type $q (sub $p (struct (field i32) (field f64)))))\n"
                  "  (type $other (struct (field i32)))\n"
                  "  (import \"a\" \"make\" (func $make (result anyref)))\n"
                  "  (func (export \"is_p\") (result i32) (ref.test (ref $p) (call $make)))\n"
                  "  (func (export \"is_other\") (result i32) (ref.test (ref $other) (call $make)))\n"
                  "  (func (export \"get\") (result i32) (struct.get $p 0 (ref.cast (ref $p) (call $make)))))\n";
  tl_module *ma = parse(a), *mb = parse(b);
  tl_store *s = tl_store_new();
  tl_instance *ia = inst_of(s, ma);
  tl_linker *l = tl_linker_new();
  tl_linker_define_instance(l, "a", ia);
  tl_error err = {0};
  tl_instance *ib = tl_instantiate(s, mb, l, &err);
  ck_assert_msg(ib != NULL, "%s", err.msg);
  ck_assert_int_eq(ok1(ib, "is_p", -1), 1);
  ck_assert_int_eq(ok1(ib, "is_other", -1), 0);
  ck_assert_int_eq(ok1(ib, "get", -1), 3);
  tl_linker_free(l);
  tl_store_free(s);
  tl_module_free(ma);
  tl_module_free(mb);
} END_TEST

/* An object whose only reference is an exception's payload (as an
 * externref), kept as an exnref across collections, survives them. (Block
 * types of gc references do not read from text yet: the payload goes
 * through extern.) */
START_TEST(gc_exception_payload_root) {
  const char *text =
      "(module\n"
      "  (type $box (struct (field i32)))\n"
      "  (type $junk (array i8))\n"
      "  (tag $t (param externref))\n"
      "  (func $churn (local $i i32)\n"
      "    (loop $l (drop (array.new_default $junk (i32.const 4096)))\n"
      "      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 2000)))))\n"
      "  (func (export \"f\") (result i32) (local $x exnref)\n"
      "    (local.set $x (block $h (result exnref)\n"
      "      (try_table (catch_all_ref $h) (throw $t (extern.convert_any (struct.new $box (i32.const 41)))))\n"
      "      (unreachable)))\n"
      "    (call $churn)\n"
      "    (i32.add (i32.const 1) (struct.get $box 0 (ref.cast (ref $box) (any.convert_extern (block $c (result externref)\n"
      "      (try_table (catch $t $c) (throw_ref (local.get $x)))\n"
      "      (unreachable))))))))\n";
  tl_module *m = parse(text);
  tl_store *s = tl_store_new();
  tl_gc_set_threshold(s, 16 << 10);
  tl_instance *inst = inst_of(s, m);
  ck_assert_int_eq(ok1(inst, "f", -1), 42);
  ck_assert_uint_gt(collections(s), 10);
  tl_store_free(s);
  tl_module_free(m);
} END_TEST

/* Objects of every size class and big ones, replaced at random in a table
 * of 1000 while collections run: what survives is what the table holds. */
START_TEST(gc_mixed_sizes) {
  const char *text =
      "(module\n"
      "  (type $v (array (mut i32)))\n"
      "  (type $o (array (mut (ref null $v))))\n"
      "  (func (export \"f\") (result i32) (local $out (ref null $o)) (local $i i32) (local $n i32) (local $s i32)\n"
      "    (local.set $out (array.new_default $o (i32.const 1000)))\n"
      "    (loop $l\n"
      "      (local.set $n (i32.rem_u (i32.mul (local.get $i) (i32.const 7919)) (i32.const 1500)))\n"
      "      (array.set $o (local.get $out) (i32.rem_u (local.get $i) (i32.const 1000))\n"
      "        (array.new $v (local.get $i) (local.get $n)))\n"
      "      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 100000))))\n"
      "    (local.set $i (i32.const 0))\n"
      "    (loop $m\n"
      "      (local.set $n (array.len (array.get $o (local.get $out) (local.get $i))))\n"
      "      (local.set $s (i32.add (local.get $s) (local.get $n)))\n"
      "      (if (local.get $n) (then (local.set $s (i32.add (local.get $s)\n"
      "        (array.get $v (array.get $o (local.get $out) (local.get $i)) (i32.const 0))))))\n"
      "      (br_if $m (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 1000))))\n"
      "    (local.get $s)))\n";
  tl_module *m = parse(text);
  tl_store *s = tl_store_new();
  tl_gc_set_threshold(s, 256 << 10);
  tl_instance *inst = inst_of(s, m);
  ck_assert_int_eq(ok1(inst, "f", -1), 100149000);   /* computed by the loop's model in Python */
  ck_assert_uint_gt(collections(s), 50);
  tl_gc_collect(s, NULL);
  ck_assert_uint_eq(live_objects(s), 0);   /* the table was a local of the finished call */
  tl_store_free(s);
  tl_module_free(m);
} END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gc_heap");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, gc_loop_bounded);
  tcase_add_test(tc, gc_keeps_reachable_frees_rest);
  tcase_add_test(tc, gc_locals_operands_tables);
  tcase_add_test(tc, gc_deep_chain);
  tcase_add_test(tc, gc_extern_any_roundtrip);
  tcase_add_test(tc, gc_types_shared_across_modules);
  tcase_add_test(tc, gc_exception_payload_root);
  tcase_add_test(tc, gc_mixed_sizes);
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
