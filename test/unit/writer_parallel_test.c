/* writer_parallel_test.c — the writer and the validator on the pass pool:
 * a module with enough nodes (TL_PAR_MIN_NODES, whether the C API built it
 * or it was read) goes parallel and must give the bytes and the first error
 * that the serial path gives (forced by a locked arena, as while passes
 * run), including bodies that need block types the module lacks (redone in
 * function order) and label names. A consuming write
 * (tl_module_write_and_free) gives the bytes tl_module_write gives, frees
 * each body that only its function uses, and reports the same first error. */
#include "ir.h"
#include "wasm-io/wasmio.h"
#include "tilt.h"

#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { NFUNCS = 900 };   /* about 38,000 nodes */

static tl_expr *pair(tl_module *m, int32_t a, int64_t b) {
  tl_expr *e = tl_expr_new(m, TL_OP_TUPLE_MAKE, 0);
  tl_expr_push_kid(m, e, tl_make_const_i32(m, a));
  tl_expr_push_kid(m, e, tl_make_const_i64(m, b));
  tl_expr_finalize(m, NULL, e);
  return e;
}

/* nfuncs functions [] -> []; every 7th drops a (i32, i64) block (no type
 * []->[i32 i64] in the module: the writer adds one), every 11th a named
 * block. Built with the C API: no code bytes (code_size 0). */
static tl_module *build(uint32_t nfuncs) {
  tl_module *m = tl_module_alloc();
  m->features = TL_FEAT_ALL;
  for (uint32_t i = 0; i < nfuncs; i++) {
    tl_func *f = tl_module_add_func(m);
    f->type = tl_functype_intern(m, TL_NONE, TL_NONE);
    uint32_t l = tl_func_new_label(m, f);
    f->body = tl_make_block(m, TL_OP_BLOCK, l, NULL, 0);
    for (int32_t k = 0; k < 20; k++) tl_expr_push_kid(m, f->body, tl_make_drop(m, tl_make_const_i32(m, k)));
    if (i % 7 == 3) {
      uint32_t bl = tl_func_new_label(m, f);
      tl_expr *v = pair(m, (int32_t)i, 5);
      tl_expr_push_kid(m, f->body, tl_make_drop(m, tl_make_block(m, TL_OP_BLOCK, bl, &v, 1)));
    }
    if (i % 11 == 5) {
      uint32_t bl = tl_func_new_label(m, f);
      tl_expr *v = tl_make_const_i32(m, 7);
      tl_expr_push_kid(m, f->body, tl_make_drop(m, tl_make_block(m, TL_OP_BLOCK, bl, &v, 1)));
      f->label_name = tl_arena_alloc(&m->arena, f->nlabel * sizeof *f->label_name, 8);
      memset(f->label_name, 0, f->nlabel * sizeof *f->label_name);
      f->label_name[bl] = "named";
      f->label_cap = f->nlabel;
    }
    tl_expr_finalize(m, f, f->body);
  }
  return m;
}

static void write_ok(tl_module *m, bool names, bool stack, tl_buf *out) {
  tl_write_options o = {.debug_names = names, .optimize_stack = stack};
  tl_error err = {0};
  ck_assert_msg(tl_write(m, &o, out, &err) == TL_OK, "tl_write: %s", err.msg);
}

/* A recursive mutex on the arena, as the pass runner sets while function
 * passes run: the validator and the writer then stay serial. */
static pthread_mutex_t serial_lock;
static tl_module *serial(tl_module *m) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&serial_lock, &attr);
  pthread_mutexattr_destroy(&attr);
  m->arena.lock = &serial_lock;
  return m;
}

static void destroy_serial(tl_module *m) {
  m->arena.lock = NULL;
  tl_module_destroy(m);
  pthread_mutex_destroy(&serial_lock);
}

START_TEST(same_bytes) {
  tl_module *par = build(NFUNCS), *ser = serial(build(NFUNCS));
  ck_assert(tl_module_has_nodes(par, TL_PAR_MIN_NODES));
  tl_error err = {0};
  ck_assert_msg(tl_validate_module(par, &err) == TL_OK, "%s", err.msg);
  for (int v = 0; v < 4; v++) {
    tl_buf a = {0}, b = {0};
    write_ok(par, v & 1, v & 2, &a);
    write_ok(ser, v & 1, v & 2, &b);
    ck_assert_uint_eq(a.n, b.n);
    ck_assert(!memcmp(a.p, b.p, a.n));
    tl_buf_free(&a);
    tl_buf_free(&b);
  }
  tl_module_destroy(par);
  destroy_serial(ser);
}
END_TEST

/* The parallel decision counts nodes: the same for a module the C API
 * built (no code bytes) and for it read back (code bytes), and off for a
 * small one either way. */
START_TEST(api_and_read_alike) {
  for (int big = 0; big < 2; big++) {
    tl_module *api = build(big ? NFUNCS : 40);
    tl_buf w = {0};
    write_ok(api, false, false, &w);
    tl_read_options ro = {0};
    ro.features = TL_FEATURES_ALL;
    tl_error err = {0};
    tl_module *rd = tl_module_read(w.p, w.n, &ro, &err);
    ck_assert_msg(rd, "%s", err.msg);
    ck_assert(TL_FUNC(rd, 0)->code_size > 0 && TL_FUNC(api, 0)->code_size == 0);
    ck_assert_int_eq(tl_module_has_nodes(api, TL_PAR_MIN_NODES), big);
    ck_assert_int_eq(tl_module_has_nodes(rd, TL_PAR_MIN_NODES), big);
    /* the read module's bytes: parallel (2 threads) = serial */
    tl_buf a = {0}, b = {0};
    tl_write_options o2 = {.threads = 2}, o1 = {.threads = 1};
    ck_assert(tl_write(rd, &o2, &a, &err) == TL_OK);
    ck_assert(tl_write(serial(rd), &o1, &b, &err) == TL_OK);
    ck_assert(a.n == b.n && !memcmp(a.p, b.p, a.n));
    tl_buf_free(&a);
    tl_buf_free(&b);
    tl_buf_free(&w);
    destroy_serial(rd);
    tl_module_destroy(api);
  }
}
END_TEST

/* Two broken bodies: the lower index reports, as serially. */
START_TEST(first_error) {
  tl_module *par = build(NFUNCS), *ser = serial(build(NFUNCS));
  tl_module *ms[2] = {par, ser};
  tl_error e[2];
  for (int k = 0; k < 2; k++) {
    TL_FUNC(ms[k], 250)->body->kid[3]->type = TL_I64;  /* drop typed i64 */
    TL_FUNC(ms[k], 120)->body->kid[5]->type = TL_F32;
    memset(&e[k], 0, sizeof e[k]);
    ck_assert(tl_validate_module(ms[k], &e[k]) != TL_OK);
  }
  ck_assert_uint_eq(e[0].func_index, 120);
  ck_assert_uint_eq(e[0].code, e[1].code);
  ck_assert_uint_eq(e[0].func_index, e[1].func_index);
  ck_assert_str_eq(e[0].msg, e[1].msg);
  tl_module_destroy(par);
  destroy_serial(ser);
}
END_TEST

/* Reads bytes with all features; fails the test on error. */
static tl_module *read_all(const tl_buf *w) {
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  tl_error err = {0};
  tl_module *m = tl_module_read(w->p, w->n, &ro, &err);
  ck_assert_msg(m, "%s", err.msg);
  return m;
}

/* tl_module_write_and_free on a module built like b: the same bytes as
 * tl_module_write on a, for threads 1 and 2, names and stack code on/off. */
static void consume_alike(tl_module *(*make)(const tl_buf *), const tl_buf *src) {
  for (int v = 0; v < 8; v++) {
    tl_write_options o = {.debug_names = v & 1, .optimize_stack = v & 2,
                          .threads = v & 4 ? 1 : 2};
    tl_module *a = make(src), *b = make(src);
    uint8_t *pa, *pb;
    size_t na, nb;
    tl_error err = {0};
    ck_assert_msg(tl_module_write(a, &o, &pa, &na, &err) == TL_OK, "%s", err.msg);
    ck_assert_msg(tl_module_write_and_free(b, &o, &pb, &nb, &err) == TL_OK, "%s", err.msg);
    ck_assert_uint_eq(na, nb);
    ck_assert(!memcmp(pa, pb, na));
    free(pa);
    free(pb);
    tl_module_destroy(a);
  }
}

static tl_module *make_read(const tl_buf *w) { return read_all(w); }

static tl_module *make_optimized(const tl_buf *w) {
  tl_module *m = read_all(w);
  const char *names[] = {"vacuum", "remove-unused-names", "merge-blocks"};
  tl_error err = {0};
  ck_assert_msg(tl_module_run_passes(m, names, 3, NULL, &err) == TL_OK, "%s", err.msg);
  return m;
}

static tl_module *make_built(const tl_buf *w) {
  (void)w;
  return build(NFUNCS);
}

START_TEST(consume_same_bytes) {
  for (int big = 0; big < 2; big++) {
    tl_module *api = build(big ? NFUNCS : 40);
    tl_buf w = {0};
    write_ok(api, true, false, &w);
    tl_module_destroy(api);
    consume_alike(make_read, &w);       /* no sweep yet: the writer sweeps */
    consume_alike(make_optimized, &w);  /* the pass runner's last sweep */
    tl_buf_free(&w);
  }
  consume_alike(make_built, NULL);      /* nodes in m->nodes: none freed */
}
END_TEST

/* Which body memory goes: a read module's bodies each have a block of their
 * own; a block two bodies share stays until the module goes. */
START_TEST(consume_frees_own_blocks) {
  tl_module *api = build(40);
  tl_buf w = {0};
  write_ok(api, false, false, &w);
  tl_module_destroy(api);
  tl_module *m = read_all(&w);
  tl_nodes_sweep(m);
  ck_assert_uint_gt(tl_nodes_free_body(m, 3), 0);
  ck_assert_ptr_null(TL_FUNC(m, 3)->body);
  ck_assert_uint_eq(tl_nodes_free_body(m, 3), 0);    /* gone already */
  TL_FUNC(m, 5)->body = TL_FUNC(m, 6)->body;          /* 5 and 6 share a block */
  tl_nodes_sweep(m);
  ck_assert_uint_eq(tl_nodes_free_body(m, 5), 0);
  ck_assert_uint_eq(tl_nodes_free_body(m, 6), 0);
  ck_assert_uint_gt(tl_nodes_free_body(m, 7), 0);
  tl_module_destroy(m);                               /* ASan: no leak, no double free */
  tl_buf_free(&w);
}
END_TEST

/* A broken body: the consuming write reports what tl_module_write reports
 * and frees the module anyway. */
START_TEST(consume_first_error) {
  for (int big = 0; big < 2; big++) {
    tl_module *ms[2] = {build(big ? NFUNCS : 40), build(big ? NFUNCS : 40)};
    tl_error e[2];
    uint8_t *p;
    size_t n;
    for (int k = 0; k < 2; k++) {
      for (uint32_t fi = 12; fi <= 25; fi += 13) {   /* a br to a label out of range */
        tl_expr *br = tl_expr_new(ms[k], TL_OP_BR, 0);
        br->imm.label = 999;
        TL_FUNC(ms[k], fi)->body->kid[3] = br;
      }
      memset(&e[k], 0, sizeof e[k]);
    }
    ck_assert(tl_module_write(ms[0], NULL, &p, &n, &e[0]) != TL_OK);
    ck_assert(tl_module_write_and_free(ms[1], NULL, &p, &n, &e[1]) != TL_OK);
    ck_assert_uint_eq(e[0].code, e[1].code);
    ck_assert_uint_eq(e[0].func_index, 12);
    ck_assert_uint_eq(e[0].func_index, e[1].func_index);
    ck_assert_str_eq(e[0].msg, e[1].msg);
    tl_module_destroy(ms[0]);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("writer_parallel");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, same_bytes);
  tcase_add_test(tc, first_error);
  tcase_add_test(tc, api_and_read_alike);
  tcase_add_test(tc, consume_same_bytes);
  tcase_add_test(tc, consume_frees_own_blocks);
  tcase_add_test(tc, consume_first_error);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
