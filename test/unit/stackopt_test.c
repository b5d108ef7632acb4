/* stackopt_test.c — the writer's stack optimization (optimize_stack) on
 * hand-encoded functions: exact bytes of the optimized body for a removed
 * local.set/local.get pair, a set turned tee, a set dropped per pair
 * (or kept as a tee when a loop, branch or if lets another get read it), removed blocks (with branch
 * depths re-encoded), dead code after a removed block, an unreachable after
 * a loop that never falls through (dropped, or kept where the stack must
 * hold a value), and pairs that must stay; 100,000 nested blocks; wasm-validate of each output when wabt is
 * there. */
#include "ir.h"
#include "wasm-io/wasmio.h"
#include "wasm_validate.h"

#include "check_main.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Types ()->i32, (i32)->(), (i32)->i32; f0: () -> 7, f1: (i32) -> (),
 * f2: (i32) -> i32 with one i32 local and the body under test. */
static void module_bytes(tl_buf *b, const uint8_t *body, size_t n) {
  static const uint8_t head[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
                                 0x01, 0x0e, 0x03, 0x60, 0x00, 0x01, 0x7f, 0x60, 0x01, 0x7f,
                                 0x00, 0x60, 0x01, 0x7f, 0x01, 0x7f,
                                 0x03, 0x04, 0x03, 0x00, 0x01, 0x02};
  static const uint8_t f01[] = {0x04, 0x00, 0x41, 0x07, 0x0b, 0x02, 0x00, 0x0b};
  tl_buf code = {0};
  tl_buf_byte(&code, 3);
  tl_buf_put(&code, f01, sizeof f01);
  tl_leb_write_u32(&code, (uint32_t)n + 3);
  tl_buf_byte(&code, 1), tl_buf_byte(&code, 1), tl_buf_byte(&code, 0x7f);
  tl_buf_put(&code, body, n);
  tl_buf_put(b, head, sizeof head);
  tl_buf_byte(b, 10);
  tl_leb_write_u32(b, (uint32_t)code.n);
  tl_buf_put(b, code.p, code.n);
  tl_buf_free(&code);
}

/* The body (after the locals) of the last function of a written module. */
static void last_body(const tl_buf *w, tl_buf *out) {
  const uint8_t *p = w->p + 8, *end = w->p + w->n;
  uint32_t size, n = 0, cnt, runs;
  while (p < end && *p != 10) {
    p++;
    p += tl_leb_read_u32(p, end, &size);
    p += size;
  }
  ck_assert_msg(p < end, "no code section");
  p++;
  p += tl_leb_read_u32(p, end, &size);
  p += tl_leb_read_u32(p, end, &cnt);
  for (uint32_t i = 0; i < cnt; i++) {
    p += tl_leb_read_u32(p, end, &size);
    if (i + 1 < cnt) {
      p += size;
      continue;
    }
    const uint8_t *e = p + size;
    p += tl_leb_read_u32(p, e, &runs);
    for (uint32_t r = 0; r < runs; r++) p += tl_leb_read_u32(p, e, &n) + 1;
    tl_buf_put(out, p, (size_t)(e - p));
  }
}

/* Reads the module with body as f2, writes it with (opt) or without the
 * stack optimization; f2's written body in out. */
static void rewrite(const uint8_t *body, size_t n, bool opt, tl_buf *out) {
  tl_buf in = {0}, w = {0};
  module_bytes(&in, body, n);
  tl_module *m = NULL;
  tl_error err = {0};
  ck_assert_msg(tl_read(in.p, in.n, NULL, &m, &err) == TL_OK, "read: %s", err.msg);
  tl_write_options o = {.optimize_stack = opt};
  ck_assert_msg(tl_write(m, &o, &w, &err) == TL_OK, "write: %s", err.msg);
  if (have_validator()) ck_assert_msg(validates(&w), "wasm-validate rejected the output");
  last_body(&w, out);
  tl_module_free(m);
  tl_buf_free(&in);
  tl_buf_free(&w);
}

static void expect(const uint8_t *body, size_t n, const uint8_t *want, size_t nwant) {
  tl_buf got = {0};
  rewrite(body, n, true, &got);
  bool same = got.n == nwant && !memcmp(got.p, want, nwant);
  if (!same) {
    fprintf(stderr, "got:");
    for (size_t i = 0; i < got.n; i++) fprintf(stderr, " %02x", got.p[i]);
    fprintf(stderr, "\n");
  }
  ck_assert_msg(same, "optimized body differs");
  tl_buf_free(&got);
}

/* The optimization leaves body as the plain writer writes it. */
static void unchanged(const uint8_t *body, size_t n) {
  tl_buf plain = {0};
  rewrite(body, n, false, &plain);
  expect(body, n, plain.p, plain.n);
  tl_buf_free(&plain);
}

#define B(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

/* local.set 1 (call 0); call 1 (i32.const 3); i32.add (local.get 1) (local.get 0):
 * the call's value stays on the stack under the balanced call. */
START_TEST(pair_removed) {
  expect(B(0x10, 0x00, 0x21, 0x01, 0x41, 0x03, 0x10, 0x01, 0x20, 0x01, 0x20, 0x00, 0x6a, 0x0b),
         B(0x10, 0x00, 0x41, 0x03, 0x10, 0x01, 0x20, 0x00, 0x6a, 0x0b));
}
END_TEST

/* The local is read twice: the set becomes a tee and the first read goes. */
START_TEST(pair_to_tee) {
  expect(B(0x10, 0x00, 0x21, 0x01, 0x41, 0x03, 0x10, 0x01, 0x20, 0x01, 0x20, 0x01, 0x6a, 0x0b),
         B(0x10, 0x00, 0x22, 0x01, 0x41, 0x03, 0x10, 0x01, 0x20, 0x01, 0x6a, 0x0b));
}
END_TEST

/* Pairs that must stay. */
START_TEST(pair_kept) {
  /* local.set 1 (call 0); i32.add (local.get 0) (local.get 1): a value is
   * pushed between the set and the get, so the get's value is not on top */
  unchanged(B(0x10, 0x00, 0x21, 0x01, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x0b));
  /* the get is inside a block (branched to, so kept) */
  unchanged(B(0x10, 0x00, 0x21, 0x01, 0x02, 0x7f, 0x41, 0x09, 0x20, 0x00, 0x0d, 0x00, 0x1a,
              0x20, 0x01, 0x0b, 0x0b));
}
END_TEST

/* A write of the local between the set and the get (in a block that then
 * goes): the get reads the later set, which pairs with it; the first stays. */
START_TEST(pair_later_set) {
  expect(B(0x10, 0x00, 0x21, 0x01, 0x02, 0x40, 0x41, 0x05, 0x21, 0x01, 0x0b, 0x20, 0x01, 0x0b),
         B(0x10, 0x00, 0x21, 0x01, 0x41, 0x05, 0x0b));
}
END_TEST

/* Per pair: the local is read twice, but the other read comes before the
 * set and nothing reads the set after its get, so the set goes (no tee). */
START_TEST(pair_other_read_before) {
  expect(B(0x20, 0x01, 0x10, 0x01, 0x10, 0x00, 0x21, 0x01, 0x20, 0x01, 0x0b),
         B(0x20, 0x01, 0x10, 0x01, 0x10, 0x00, 0x0b));
}
END_TEST

/* Per pair: another get can read the set, so it stays a tee. */
START_TEST(pair_other_read_after) {
  /* loop (local.get 1; call 1; local.set 1 (call 0); br_if 0 (local.get 1)):
   * the back edge reaches the first get */
  expect(B(0x03, 0x40, 0x20, 0x01, 0x10, 0x01, 0x10, 0x00, 0x21, 0x01, 0x20, 0x01, 0x0d, 0x00,
           0x0b, 0x41, 0x00, 0x0b),
         B(0x03, 0x40, 0x20, 0x01, 0x10, 0x01, 0x10, 0x00, 0x22, 0x01, 0x0d, 0x00, 0x0b, 0x41,
           0x00, 0x0b));
  /* block (local.set 1 (call 0); br_if 0 (local.get 0); call 1 (local.get 1));
   * local.get 1: the br_if reaches the read after the block */
  expect(B(0x02, 0x40, 0x10, 0x00, 0x21, 0x01, 0x20, 0x00, 0x0d, 0x00, 0x20, 0x01, 0x10, 0x01,
           0x0b, 0x20, 0x01, 0x0b),
         B(0x02, 0x40, 0x10, 0x00, 0x22, 0x01, 0x20, 0x00, 0x0d, 0x00, 0x10, 0x01, 0x0b, 0x20,
           0x01, 0x0b));
  /* if (local.get 0) (local.set 1 (call 0); call 1 (local.get 1)) else
   * (nop); local.get 1: the read after the if (also via the else) */
  expect(B(0x20, 0x00, 0x04, 0x40, 0x10, 0x00, 0x21, 0x01, 0x20, 0x01, 0x10, 0x01, 0x0b, 0x20,
           0x01, 0x0b),
         B(0x20, 0x00, 0x04, 0x40, 0x10, 0x00, 0x22, 0x01, 0x10, 0x01, 0x0b, 0x20, 0x01, 0x0b));
}
END_TEST

/* Per pair: the other paths from the set all write the local before any
 * read: block (local.set 1 (call 0); br_if 0 (local.get 0); call 1
 * (local.get 1)); local.set 1 (i32.const 4); local.get 1: both sets go. */
START_TEST(pair_killed_later) {
  expect(B(0x02, 0x40, 0x10, 0x00, 0x21, 0x01, 0x20, 0x00, 0x0d, 0x00, 0x20, 0x01, 0x10, 0x01,
           0x0b, 0x41, 0x04, 0x21, 0x01, 0x20, 0x01, 0x0b),
         B(0x02, 0x40, 0x10, 0x00, 0x20, 0x00, 0x0d, 0x00, 0x10, 0x01, 0x0b, 0x41, 0x04, 0x0b));
}
END_TEST

/* i32.add (local.get 0) (block (result i32) (call 1 (local.get 0)) (i32.const 5)):
 * nothing branches to the block. */
START_TEST(block_removed) {
  expect(B(0x20, 0x00, 0x02, 0x7f, 0x20, 0x00, 0x10, 0x01, 0x41, 0x05, 0x0b, 0x6a, 0x0b),
         B(0x20, 0x00, 0x20, 0x00, 0x10, 0x01, 0x41, 0x05, 0x6a, 0x0b));
}
END_TEST

/* block $a (block $b (br_if $a (local.get 0))): $b goes, the br_if's depth
 * drops from 1 to 0; $a stays (branched to). */
START_TEST(block_depths) {
  expect(B(0x02, 0x40, 0x02, 0x40, 0x20, 0x00, 0x0d, 0x01, 0x0b, 0x0b, 0x41, 0x01, 0x0b),
         B(0x02, 0x40, 0x20, 0x00, 0x0d, 0x00, 0x0b, 0x41, 0x01, 0x0b));
  /* br_table through a removed block */
  expect(B(0x02, 0x40, 0x02, 0x40, 0x02, 0x40, 0x20, 0x00, 0x0e, 0x01, 0x02, 0x00, 0x0b, 0x0b,
           0x0b, 0x41, 0x01, 0x0b),
         B(0x02, 0x40, 0x02, 0x40, 0x20, 0x00, 0x0e, 0x01, 0x01, 0x00, 0x0b, 0x0b, 0x41, 0x01,
           0x0b));
}
END_TEST

/* A block that ends in unreachable: without it, what followed is dead. */
START_TEST(dead_after_block) {
  expect(B(0x02, 0x40, 0x10, 0x00, 0x1a, 0x00, 0x0b, 0x41, 0x01, 0x0b),
         B(0x10, 0x00, 0x1a, 0x00, 0x0b));
}
END_TEST

/* block $a (loop $l (br_if $a (local.get 0)) (br $l)): the writer puts an
 * unreachable after the loop (it never falls through); nothing reaches the
 * block's end that way and its stack is empty there, so it goes. Same at
 * the end of an if's then arm. */
START_TEST(unreachable_after_loop) {
  expect(B(0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x0d, 0x01, 0x0c, 0x00, 0x0b, 0x0b, 0x41, 0x01, 0x0b),
         B(0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x0d, 0x01, 0x0c, 0x00, 0x0b, 0x0b, 0x41, 0x01, 0x0b));
  expect(B(0x20, 0x00, 0x04, 0x40, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x05, 0x41, 0x01, 0x1a, 0x0b, 0x41,
           0x02, 0x0b),
         B(0x20, 0x00, 0x04, 0x40, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x05, 0x41, 0x01, 0x1a, 0x0b, 0x41,
           0x02, 0x0b));
}
END_TEST

/* It stays where the stack must hold a value: the end of a block with a
 * result, and the function's end when the function has one. */
START_TEST(unreachable_kept) {
  unchanged(B(0x02, 0x7f, 0x03, 0x40, 0x41, 0x05, 0x20, 0x00, 0x0d, 0x01, 0x1a, 0x0c, 0x00, 0x0b,
              0x00, 0x0b, 0x0b));
  unchanged(B(0x03, 0x40, 0x0c, 0x00, 0x0b, 0x00, 0x0b));
}
END_TEST

/* 100,000 nested blocks, nothing branches to them: all go, no recursion. */
START_TEST(deep_blocks) {
  enum { N = 100000 };
  tl_buf body = {0};
  for (int i = 0; i < N; i++) tl_buf_byte(&body, 0x02), tl_buf_byte(&body, 0x40);
  for (int i = 0; i < N; i++) tl_buf_byte(&body, 0x0b);
  tl_buf_byte(&body, 0x41), tl_buf_byte(&body, 0x02), tl_buf_byte(&body, 0x0b);
  expect(body.p, body.n, B(0x41, 0x02, 0x0b));
  tl_buf_free(&body);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("stackopt");
  TCase *t = tcase_create("stackopt");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, pair_removed);
  tcase_add_test(t, pair_to_tee);
  tcase_add_test(t, pair_kept);
  tcase_add_test(t, pair_later_set);
  tcase_add_test(t, pair_other_read_before);
  tcase_add_test(t, pair_other_read_after);
  tcase_add_test(t, pair_killed_later);
  tcase_add_test(t, block_removed);
  tcase_add_test(t, block_depths);
  tcase_add_test(t, dead_after_block);
  tcase_add_test(t, deep_blocks);
  tcase_add_test(t, unreachable_after_loop);
  tcase_add_test(t, unreachable_kept);
  suite_add_tcase(s, t);
  return s;
}

TL_CHECK_MAIN(suite)
