/* flatten_test.c — the flatten pass on 100,000-deep inputs built as bytes:
 * nested value blocks, an operand chain whose last operand tees the local
 * the others read, nested ifs with values, and a br_if with a value out of
 * every block. The pass runs on a thread with a 1 MiB stack (nothing may
 * recurse on nesting depth); the result must validate, be flat (operands
 * are local.get, constants or unreachable; only a local.set's value nests;
 * no block, loop or if but the body has a value) and compute what the input
 * computed (the interpreter, before and after). */
#include "ir.h"
#include "wasm-io/wasmio.h"

#include "check_main.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { DEPTH = 100000 };

/* A module exporting "f": (i32) -> i32 with one i32 local and this code
 * (without the final end). */
static void module_bytes(tl_buf *m, const tl_buf *code) {
  static const uint8_t head[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
                                 0x01, 0x06, 0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f,
                                 0x03, 0x02, 0x01, 0x00,
                                 0x07, 0x05, 0x01, 0x01, 'f', 0x00, 0x00};
  tl_buf body = {0}, sec = {0};
  tl_buf_put(&body, (const uint8_t[]){1, 1, 0x7f}, 3);
  tl_buf_put(&body, code->p, code->n);
  tl_buf_byte(&body, 0x0b);
  tl_buf_byte(&sec, 1);
  tl_leb_write_u32(&sec, (uint32_t)body.n);
  tl_buf_put(&sec, body.p, body.n);
  tl_buf_put(m, head, sizeof head);
  tl_buf_byte(m, 10);
  tl_leb_write_u32(m, (uint32_t)sec.n);
  tl_buf_put(m, sec.p, sec.n);
  tl_buf_free(&body);
  tl_buf_free(&sec);
}

static void repeat(tl_buf *b, const uint8_t *p, size_t n, int times) {
  for (int i = 0; i < times; i++) tl_buf_put(b, p, n);
}
#define REP(b, times, ...) \
  repeat(b, (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}), times)

static bool is_leaf(const tl_expr *e) {
  return e->op == TL_OP_LOCAL_GET || e->op == TL_OP_UNREACHABLE || e->op == TL_OP_I32_CONST;
}

/* Counts what is not flat into *(uint32_t *)w->ctx. */
static void flat_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  uint32_t *bad = w->ctx;
  if (tl_ops[e->op].flags & TL_F_CONTROL) {
    if (e != w->f->body && tl_type_is_concrete(e->type)) ++*bad;
    return;
  }
  if (e->op == TL_OP_LOCAL_TEE) ++*bad;
  if (e->op == TL_OP_LOCAL_SET) return;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (!is_leaf(e->kid[i])) ++*bad;
}

static void *flatten_thread(void *arg) {
  tl_module *m = arg;
  tl_error e;
  const char *pass = "flatten";
  ck_assert_msg(tl_module_run_passes(m, &pass, 1, NULL, &e) == TL_OK, "flatten: %s", e.msg);
  ck_assert_msg(tl_module_validate(m, &e) == TL_OK, "validate: %s", e.msg);
  uint32_t bad = 0;
  tl_func *f = TL_FUNC(m, 0);
  tl_walk_post(m, f, &f->body, flat_visit, &bad);
  ck_assert_uint_eq(bad, 0);
  return NULL;
}

static int32_t run(tl_module *m, int32_t x) {
  tl_error e;
  tl_store *s = tl_store_new();
  tl_instance *inst = tl_instantiate(s, m, NULL, &e);
  ck_assert_msg(inst, "instantiate: %s", e.msg);
  tl_value arg = {.type = TL_VAL_I32, .of.i32 = x}, res;
  uint32_t nres = 0;
  ck_assert_msg(tl_invoke(inst, "f", &arg, 1, &res, 1, &nres, &e) == TL_OK, "invoke: %s", e.msg);
  ck_assert_uint_eq(nres, 1);
  tl_store_free(s);
  return res.of.i32;
}

/* Flattens the code's module on a 1 MiB stack; f(x) must still be want. */
static void check(tl_buf *code, int32_t x, int32_t want) {
  tl_buf b = {0};
  module_bytes(&b, code);
  tl_buf_free(code);
  tl_read_options ro = {.features = TL_FEATURES_ALL};
  tl_error e;
  tl_module *m = tl_module_read(b.p, b.n, &ro, &e);
  ck_assert_msg(m, "read: 0x%llx: %s", (unsigned long long)e.offset, e.msg);
  ck_assert_int_eq(run(m, x), want);
  pthread_attr_t a;
  pthread_t t;
  ck_assert_int_eq(pthread_attr_init(&a), 0);
  ck_assert_int_eq(pthread_attr_setstacksize(&a, (size_t)1 << 20), 0);
  ck_assert_int_eq(pthread_create(&t, &a, flatten_thread, m), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  pthread_attr_destroy(&a);
  ck_assert_int_eq(run(m, x), want);
  tl_module_free(m);
  tl_buf_free(&b);
}

START_TEST(deep_value_blocks) {
  tl_buf c = {0};
  REP(&c, DEPTH, 0x02, 0x7f);
  REP(&c, 1, 0x20, 0x00);
  REP(&c, DEPTH, 0x0b);
  check(&c, 5, 5);
} END_TEST

/* x + (x + (... + (local.tee 0 (i32.const 1)))): every x is read before
 * the tee writes it, so f(5) is 5 * DEPTH + 1. */
START_TEST(deep_operands_then_tee) {
  tl_buf c = {0};
  REP(&c, DEPTH, 0x20, 0x00);
  REP(&c, 1, 0x41, 0x01, 0x22, 0x00);
  REP(&c, DEPTH, 0x6a);
  check(&c, 5, 5 * DEPTH + 1);
} END_TEST

START_TEST(deep_value_ifs) {
  for (int32_t x = 0; x < 2; x++) {
    tl_buf c = {0};
    REP(&c, DEPTH, 0x20, 0x00, 0x04, 0x7f);
    REP(&c, 1, 0x41, 0x01);
    REP(&c, DEPTH, 0x05, 0x41, 0x02, 0x0b);
    check(&c, x, x ? 1 : 2);
  }
} END_TEST

/* DEPTH value blocks; the innermost br_ifs 7 out of all of them, else 9. */
START_TEST(deep_br_if_value) {
  for (int32_t x = 0; x < 2; x++) {
    tl_buf c = {0};
    REP(&c, DEPTH, 0x02, 0x7f);
    REP(&c, 1, 0x41, 0x07, 0x20, 0x00, 0x0d);
    tl_leb_write_u32(&c, DEPTH - 1);
    REP(&c, 1, 0x1a, 0x41, 0x09);
    REP(&c, DEPTH, 0x0b);
    check(&c, x, x ? 7 : 9);
  }
} END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("flatten");
  TCase *tc = tcase_create("deep");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, deep_value_blocks);
  tcase_add_test(tc, deep_operands_then_tee);
  tcase_add_test(tc, deep_value_ifs);
  tcase_add_test(tc, deep_br_if_value);
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
