/* deep_test.c — pathological inputs built in memory: 100,000-deep blocks,
 * loops and ifs, 100,000-long operand chains (binary, unary, calls), each of
 * which must read, validate, write, re-read and print on a thread with a
 * 1 MiB stack (100,000 frames of even 16 bytes would not fit, so this proves
 * nothing recurses on nesting depth, with or without ASan); plus inputs that must
 * be rejected quickly without allocating: 100 MB of zeroes, and sections
 * that declare billions of entries in a few bytes. Public API only. */
#include "tilt.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { DEPTH = 100000 };

/* ------------------------------------------------------------ byte buffer */
typedef struct { uint8_t *p; size_t n, cap; } bb;

static void bb_byte(bb *b, uint8_t v) {
  if (b->n == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 256;
    b->p = realloc(b->p, b->cap);
    ck_assert_ptr_nonnull(b->p);
  }
  b->p[b->n++] = v;
}

static void bb_bytes(bb *b, const void *p, size_t n) {
  for (size_t i = 0; i < n; i++) bb_byte(b, ((const uint8_t *)p)[i]);
}

static void bb_u32(bb *b, uint32_t v) {
  do {
    uint8_t c = v & 0x7f;
    v >>= 7;
    bb_byte(b, c | (v ? 0x80 : 0));
  } while (v);
}

static void bb_section(bb *m, uint8_t id, const bb *content) {
  bb_byte(m, id);
  bb_u32(m, (uint32_t)content->n);
  bb_bytes(m, content->p, content->n);
}

#define B(b, ...) bb_bytes(b, (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__}))

static const uint8_t header[] = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};

/* A module with types 0: [] -> [] and 1: [i32] -> [i32], and one function
 * per body (code without locals or the final end) with the given type. */
static bb module_of(int nfunc, const uint32_t *types, bb *bodies) {
  bb m = {0}, s = {0};
  bb_bytes(&m, header, sizeof header);
  B(&s, 2, 0x60, 0, 0, 0x60, 1, 0x7f, 1, 0x7f);
  bb_section(&m, 1, &s);
  s.n = 0;
  bb_u32(&s, (uint32_t)nfunc);
  for (int i = 0; i < nfunc; i++) bb_u32(&s, types[i]);
  bb_section(&m, 3, &s);
  s.n = 0;
  bb_u32(&s, (uint32_t)nfunc);
  for (int i = 0; i < nfunc; i++) {
    bb_byte(&bodies[i], 0x0b);
    bb_u32(&s, (uint32_t)bodies[i].n + 1);
    bb_byte(&s, 0); /* no local declarations */
    bb_bytes(&s, bodies[i].p, bodies[i].n);
    free(bodies[i].p);
  }
  bb_section(&m, 10, &s);
  free(s.p);
  return m;
}

static bb module_of_body(bb body) {
  uint32_t t = 0;
  return module_of(1, &t, &body);
}

/* read, validate, write, read, write, print: all must succeed, the writer's
 * output must be a fixed point, and the module is freed. */
static void roundtrip_here(bb m) {
  tl_read_options ro = {.features = TL_FEATURES_ALL};
  tl_write_options wo = {.debug_names = true};
  tl_error e;
  tl_module *m1 = tl_module_read(m.p, m.n, &ro, &e);
  ck_assert_msg(m1, "read: 0x%llx: %s", (unsigned long long)e.offset, e.msg);
  ck_assert_msg(tl_module_validate(m1, &e) == TL_OK, "validate: %s", e.msg);
  uint8_t *w1, *w2;
  size_t n1, n2;
  ck_assert_msg(tl_module_write(m1, &wo, &w1, &n1, &e) == TL_OK, "write: %s", e.msg);
  char *p1 = tl_module_print(m1);
  ck_assert_ptr_nonnull(p1);
  tl_module *m2 = tl_module_read(w1, n1, &ro, &e);
  ck_assert_msg(m2, "re-read: 0x%llx: %s", (unsigned long long)e.offset, e.msg);
  ck_assert_msg(tl_module_validate(m2, &e) == TL_OK, "re-validate: %s", e.msg);
  ck_assert_msg(tl_module_write(m2, &wo, &w2, &n2, &e) == TL_OK, "re-write: %s", e.msg);
  char *p2 = tl_module_print(m2);
  ck_assert_ptr_nonnull(p2);
  ck_assert_msg(n1 == n2 && !memcmp(w1, w2, n1), "writer output is not a fixed point");
  ck_assert_uint_gt(strlen(p2), DEPTH);
  free(p1), free(p2), free(w1), free(w2);
  tl_module_free(m1);
  tl_module_free(m2);
  free(m.p);
}

static void *roundtrip_thread(void *arg) {
  roundtrip_here(*(bb *)arg);
  return NULL;
}

/* roundtrip_here on a thread with a 1 MiB stack. */
static void roundtrip(bb m) {
  pthread_attr_t a;
  pthread_t t;
  ck_assert_int_eq(pthread_attr_init(&a), 0);
  ck_assert_int_eq(pthread_attr_setstacksize(&a, (size_t)1 << 20), 0);
  ck_assert_int_eq(pthread_create(&t, &a, roundtrip_thread, &m), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  pthread_attr_destroy(&a);
}

/* ------------------------------------------------------------- deep code */
START_TEST(deep_blocks) {
  bb f = {0};
  for (int i = 0; i < DEPTH; i++) B(&f, 0x02, 0x40);      /* block */
  B(&f, 0x41, 0x00, 0x0d);                                 /* i32.const 0; br_if */
  bb_u32(&f, DEPTH - 1);                                   /* to the outermost */
  for (int i = 0; i < DEPTH; i++) B(&f, 0x0b);
  roundtrip(module_of_body(f));
}
END_TEST

START_TEST(deep_loops_and_ifs) {
  bb f = {0};
  for (int i = 0; i < DEPTH; i++) {
    if (i % 2) B(&f, 0x03, 0x40);                          /* loop */
    else B(&f, 0x41, 0x01, 0x04, 0x40);                    /* i32.const 1; if */
  }
  B(&f, 0x41, 0x00, 0x0d, 0x01);                           /* br_if 1: the 2nd loop/if out */
  for (int i = DEPTH - 1; i >= 0; i--) {
    if (i % 4 == 0) B(&f, 0x05, 0x01);                     /* some ifs: else nop */
    B(&f, 0x0b);
  }
  roundtrip(module_of_body(f));
}
END_TEST

START_TEST(deep_block_results) {
  bb f = {0};                                              /* (block (result i32) ...) */
  for (int i = 0; i < DEPTH; i++) B(&f, 0x02, 0x7f);
  B(&f, 0x41, 0x07);
  for (int i = 0; i < DEPTH; i++) B(&f, 0x0b);
  B(&f, 0x1a);                                             /* drop */
  roundtrip(module_of_body(f));
}
END_TEST

START_TEST(wide_add_chain) {
  bb f = {0};
  B(&f, 0x41, 0x00);
  for (int i = 0; i < DEPTH; i++) B(&f, 0x41, 0x01, 0x6a); /* i32.const 1; i32.add */
  B(&f, 0x1a);
  roundtrip(module_of_body(f));
}
END_TEST

START_TEST(deep_unary_chain) {
  bb f = {0};
  B(&f, 0x41, 0x00);
  for (int i = 0; i < DEPTH; i++) B(&f, 0x45);             /* i32.eqz */
  B(&f, 0x1a);
  roundtrip(module_of_body(f));
}
END_TEST

START_TEST(deep_call_operands) {
  bb f[2] = {{0}, {0}};
  uint32_t types[2] = {0, 1};
  B(&f[0], 0x41, 0x00);
  for (int i = 0; i < DEPTH; i++) B(&f[0], 0x10, 0x01);    /* call 1 */
  B(&f[0], 0x1a);
  B(&f[1], 0x20, 0x00);                                    /* local.get 0 */
  roundtrip(module_of(2, types, f));
}
END_TEST

START_TEST(many_functions) {
  enum { N = 20000 };
  bb *f = calloc(N, sizeof *f);
  uint32_t *types = calloc(N, sizeof *types);
  for (int i = 0; i < N; i++) {
    B(&f[i], 0x10);                                        /* call the next one */
    bb_u32(&f[i], (uint32_t)(i + 1) % N);
  }
  roundtrip(module_of(N, types, f));
  free(f), free(types);
}
END_TEST

/* ------------------------------------------------------- must be rejected */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long maxrss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* Reads bytes that must fail: quickly, and without growing the peak RSS by
 * more than 64 MB beyond the input; returns the error. */
static tl_error rejected(const uint8_t *p, size_t n) {
  tl_read_options ro = {.features = TL_FEATURES_ALL};
  tl_error e;
  long rss0 = maxrss_kb();
  double t0 = now();
  tl_module *m = tl_module_read(p, n, &ro, &e);
  double dt = now() - t0;
  long grew = maxrss_kb() - rss0;
  if (m) tl_module_free(m);
  ck_assert_msg(!m, "accepted a module that must be rejected");
  ck_assert_int_ne(e.code, TL_OK);
  ck_assert_msg(dt < 2.0, "took %.2f s to reject", dt);
  ck_assert_msg(grew < 64 * 1024, "peak RSS grew by %ld kB", grew);
  return e;
}

START_TEST(zeroes_100mb) {
  size_t n = (size_t)100 << 20;
  uint8_t *z = calloc(n, 1);
  ck_assert_ptr_nonnull(z);
  memset(z, 0, n); /* touch it, so the RSS check measures the reader only */
  tl_error e = rejected(z, n);
  ck_assert_int_eq(e.code, TL_E_MALFORMED);
  ck_assert_uint_eq(e.offset, 0);
  free(z);
}
END_TEST

/* A section whose vector count is 4,000,000,000 with nothing behind it. */
static void huge_count(uint8_t id, const uint8_t *prefix, size_t nprefix) {
  bb m = {0}, s = {0};
  bb_bytes(&m, header, sizeof header);
  bb_bytes(&m, prefix, nprefix);
  size_t at = m.n + 2;
  bb_u32(&s, 4000000000u);
  B(&s, 0x00, 0x00, 0x00, 0x00);
  bb_section(&m, id, &s);
  tl_error e = rejected(m.p, m.n);
  ck_assert_msg(e.offset != TL_NO_OFFSET && e.offset >= at - 2 && e.offset <= m.n,
                "offset 0x%llx outside the section", (unsigned long long)e.offset);
  free(m.p), free(s.p);
}

static const uint8_t one_type[] = {0x01, 0x04, 0x01, 0x60, 0x00, 0x00};

START_TEST(four_billion_functions) { huge_count(3, one_type, sizeof one_type); }
END_TEST

START_TEST(four_billion_types) { huge_count(1, NULL, 0); }
END_TEST

START_TEST(four_billion_bodies) {
  const uint8_t pre[] = {0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00};
  huge_count(10, pre, sizeof pre);
}
END_TEST

START_TEST(four_billion_locals) {
  bb m = {0}, s = {0};
  bb_bytes(&m, header, sizeof header);
  B(&m, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00);
  B(&s, 0x01, 0x08, 0x01);        /* one 8-byte body with one local entry */
  bb_u32(&s, 4000000000u);        /* of 4e9 (5 bytes) */
  B(&s, 0x7f, 0x0b);              /* i32 locals; end */
  bb_section(&m, 10, &s);
  rejected(m.p, m.n);
  free(m.p), free(s.p);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("deep");
  TCase *deep = tcase_create("deep");
  tcase_set_timeout(deep, 300);
  tcase_add_test(deep, deep_blocks);
  tcase_add_test(deep, deep_loops_and_ifs);
  tcase_add_test(deep, deep_block_results);
  tcase_add_test(deep, wide_add_chain);
  tcase_add_test(deep, deep_unary_chain);
  tcase_add_test(deep, deep_call_operands);
  tcase_add_test(deep, many_functions);
  suite_add_tcase(s, deep);
  TCase *bad = tcase_create("bad");
  tcase_set_timeout(bad, 60);
  tcase_add_test(bad, zeroes_100mb);
  tcase_add_test(bad, four_billion_functions);
  tcase_add_test(bad, four_billion_types);
  tcase_add_test(bad, four_billion_bodies);
  tcase_add_test(bad, four_billion_locals);
  suite_add_tcase(s, bad);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
