/* reader_test.c — the binary reader (reader.c, reader_code.c, names.c) on
 * hand-made modules: each class of bad input with its offset, limits, deep
 * nesting on a small C stack, multi-value, block params, effect order,
 * dead code, features and the name / target_features sections. */
#include "wasm-io/wasmio.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S(lit) (const uint8_t *)(lit), sizeof(lit) - 1

static void hdr(tl_buf *b) { tl_buf_put(b, "\0asm\1\0\0\0", 8); }

static void sec(tl_buf *b, uint8_t id, const uint8_t *p, size_t n) {
  tl_buf_byte(b, id);
  tl_leb_write_u32(b, (uint32_t)n);
  tl_buf_put(b, p, n);
}

/* Code section with the given bodies (each: locals + code + end). */
static void code(tl_buf *b, const uint8_t **bodies, const size_t *sizes, uint32_t n) {
  tl_buf c = {0};
  tl_leb_write_u32(&c, n);
  for (uint32_t i = 0; i < n; i++) {
    tl_leb_write_u32(&c, (uint32_t)sizes[i]);
    tl_buf_put(&c, bodies[i], sizes[i]);
  }
  sec(b, 10, c.p, c.n);
  tl_buf_free(&c);
}

static tl_status rd(tl_buf *b, uint32_t feat, tl_module **m, tl_error *e) {
  tl_read_options o = {.features = feat};
  tl_status s = tl_read(b->p, b->n, &o, m, e);
  tl_buf_free(b);
  return s;
}

/* One function of type [] -> [] (or the given type section) and body. */
static tl_status one(const uint8_t *types, size_t nt, const uint8_t *body, size_t nb, uint32_t feat,
                     tl_module **m, tl_error *e) {
  tl_buf b = {0};
  hdr(&b);
  sec(&b, 1, types, nt);
  sec(&b, 3, S("\x01\x00"));
  code(&b, &body, &nb, 1);
  return rd(&b, feat, m, e);
}
#define VOID_T S("\x01\x60\x00\x00")

static tl_expr *body_kid(tl_module *m, uint32_t f, uint32_t i) {
  tl_expr *b = TL_FUNC(m, f)->body;
  ck_assert_uint_lt(i, b->nkid);
  return b->kid[i];
}

/* ------------------------------------------------------------ good input */
START_TEST(minimal_module) {
  tl_buf b = {0};
  tl_module *m;
  tl_error e;
  hdr(&b);
  ck_assert_int_eq(rd(&b, 0, &m, &e), TL_OK);
  ck_assert_uint_eq(m->funcs.n, 0);
  ck_assert_uint_eq(m->features, tl_features_default());
  tl_module_destroy(m);
  ck_assert_int_eq(one(VOID_T, S("\x00\x0b"), 0, &m, &e), TL_OK);
  ck_assert_uint_eq(TL_FUNC(m, 0)->body->op, TL_OP_BLOCK);
  ck_assert_uint_eq(TL_FUNC(m, 0)->body->imm.block.label, 0);
  ck_assert_uint_eq(TL_FUNC(m, 0)->body->nkid, 0);
  tl_module_destroy(m);
} END_TEST

/* ------------------------------------------------------------- bad input */
static void expect(tl_buf *b, tl_status code, uint64_t off) {
  tl_module *m = (tl_module *)1;
  tl_error e;
  ck_assert_int_eq(rd(b, 0, &m, &e), code);
  ck_assert_ptr_null(m);
  ck_assert_uint_eq(e.code, code);
  ck_assert_uint_eq(e.offset, off);
}

START_TEST(bad_header) {
  tl_buf b = {0};
  tl_buf_put(&b, "\0asX\1\0\0\0", 8);
  expect(&b, TL_E_MALFORMED, 0);
  tl_buf_put(&b, "\0asm\2\0\0\0", 8);
  expect(&b, TL_E_MALFORMED, 4);
  tl_buf_put(&b, "\0as", 3);
  expect(&b, TL_E_MALFORMED, 0);
} END_TEST

START_TEST(zeroes_fail_at_once) {
  size_t n = 100u << 20;
  uint8_t *z = calloc(n, 1);
  ck_assert_ptr_nonnull(z);
  tl_module *m;
  tl_error e;
  ck_assert_int_eq(tl_read(z, n, NULL, &m, &e), TL_E_MALFORMED);
  ck_assert_uint_eq(e.offset, 0);
  free(z);
} END_TEST

START_TEST(bad_sections) {
  tl_buf b = {0};
  hdr(&b); tl_buf_put(&b, "\x01\x05\x01", 3);                       /* size past the end */
  expect(&b, TL_E_MALFORMED, 8);
  hdr(&b); tl_buf_put(&b, "\x01\x80\x80\x80\x80\x80\x00", 7);       /* overlong size */
  expect(&b, TL_E_MALFORMED, 9);
  hdr(&b); tl_buf_put(&b, "\x01\x05\xff\xff\xff\x0f\x00", 7);       /* count > bytes left */
  expect(&b, TL_E_MALFORMED, 10);
  hdr(&b); tl_buf_put(&b, "\x01\x05\x01\x60\x00\x00\x00", 7);       /* size mismatch */
  expect(&b, TL_E_MALFORMED, 14);
  hdr(&b); tl_buf_put(&b, "\x03\x01\x00\x01\x01\x00", 6);           /* type after function */
  expect(&b, TL_E_MALFORMED, 11);
  hdr(&b); tl_buf_put(&b, "\x01\x01\x00\x01\x01\x00", 6);           /* duplicate section */
  expect(&b, TL_E_MALFORMED, 11);
  hdr(&b); tl_buf_put(&b, "\x0e\x00", 2);                           /* unknown id */
  expect(&b, TL_E_MALFORMED, 8);
} END_TEST

START_TEST(bad_counts) {
  tl_buf b = {0};
  const uint8_t *body = (const uint8_t *)"\x00\x0b";
  size_t nb = 2;
  hdr(&b); sec(&b, 1, VOID_T); sec(&b, 3, S("\x02\x00\x00")); code(&b, &body, &nb, 1);
  expect(&b, TL_E_MALFORMED, 21);                                    /* function/code count */
  hdr(&b); sec(&b, 1, VOID_T); sec(&b, 3, S("\x01\x00"));
  expect(&b, TL_E_MALFORMED, 18);                                    /* no code section */
  hdr(&b); sec(&b, 5, S("\x01\x00\x01")); sec(&b, 12, S("\x02")); sec(&b, 11, S("\x00"));
  expect(&b, TL_E_MALFORMED, 18);                                    /* data count */
  hdr(&b); sec(&b, 5, S("\x01\x00\x01")); sec(&b, 12, S("\x01"));
  expect(&b, TL_E_MALFORMED, 16);                                    /* data count, no data */
} END_TEST

START_TEST(bad_utf8_name) {
  tl_buf b = {0};
  const uint8_t *body = (const uint8_t *)"\x00\x0b";
  size_t nb = 2;
  hdr(&b); sec(&b, 1, VOID_T); sec(&b, 3, S("\x01\x00"));
  sec(&b, 7, S("\x01\x01\xff\x00\x00"));
  code(&b, &body, &nb, 1);
  expect(&b, TL_E_MALFORMED, 22);
  hdr(&b); sec(&b, 0, S("\x02\xc0\x80"));                            /* overlong encoding */
  expect(&b, TL_E_MALFORMED, 11);
} END_TEST

/* A body in the one-function module starts at offset 22. */
static void expect_body(const uint8_t *body, size_t nb, uint32_t feat, tl_status code, uint64_t off,
                        const char *msg) {
  tl_module *m = NULL;
  tl_error e;
  ck_assert_int_eq(one(VOID_T, body, nb, feat, &m, &e), code);
  ck_assert_ptr_null(m);
  ck_assert_uint_eq(e.offset, off);
  ck_assert_uint_eq(e.func_index, 0);
  if (msg) ck_assert_str_eq(e.msg, msg);
}

START_TEST(bad_bodies) {
  expect_body(S("\x00\xff\x0b"), 0, TL_E_MALFORMED, 23, "illegal opcode 0xff");
  expect_body(S("\x00\x0b\x01"), 0, TL_E_MALFORMED, 24, NULL);      /* junk after end */
  expect_body(S("\x00\x01"), 0, TL_E_MALFORMED, 24, NULL);          /* missing end */
  expect_body(S("\x00\x41\x01\x43\x00\x00\x80\x3f\x6a\x1a\x0b"), 0, TL_E_INVALID, 30,
              "type mismatch in i32.add, expected i32 but got f32");
  expect_body(S("\x00\x6a\x1a\x0b"), 0, TL_E_INVALID, 23, NULL);    /* empty stack */
  expect_body(S("\x00\x41\x01\x0b"), 0, TL_E_INVALID, 25, NULL);    /* value left over */
  expect_body(S("\x00\x0c\x01\x0b"), 0, TL_E_INVALID, 23, "unknown label 1");
  expect_body(S("\x00\x20\x00\x1a\x0b"), 0, TL_E_INVALID, 23, "unknown local 0");
  expect_body(S("\x00\x41\x00\x28\x02\x00\x1a\x0b"), 0, TL_E_INVALID, 25, NULL); /* no memory */
  expect_body(S("\x00\x41\x00\xfd\x0f\x1a\x0b"), 0, TL_E_FEATURE, 25, "i8x16.splat requires --enable-simd");
  expect_body(S("\x00\xd2\x00\x1a\x0b"), TL_FEATURES_ALL, TL_E_INVALID, 23, "undeclared function reference 0");
  expect_body(S("\x00\x04\x7f\x41\x01\x0b\x1a\x0b"), 0, TL_E_INVALID, 23, NULL); /* if without else */
  expect_body(S("\x00\x02\x40\x41\x01\x0b\x0b"), 0, TL_E_INVALID, 27, NULL);     /* block leaves value */
}
END_TEST

static void body_with_locals(tl_buf *b, uint32_t n) {
  tl_buf body = {0};
  tl_buf_byte(&body, 1);
  tl_leb_write_u32(&body, n);
  tl_buf_put(&body, "\x7f\x0b", 2);
  const uint8_t *p = body.p;
  size_t sz = body.n;
  hdr(b); sec(b, 1, VOID_T); sec(b, 3, S("\x01\x00")); code(b, &p, &sz, 1);
  tl_buf_free(&body);
}

START_TEST(locals_limit) {
  tl_buf b = {0};
  tl_module *m;
  tl_error e;
  body_with_locals(&b, 50000);
  ck_assert_int_eq(rd(&b, 0, &m, &e), TL_OK);
  ck_assert_uint_eq(TL_FUNC(m, 0)->nlocal, 50000);
  tl_module_destroy(m);
  body_with_locals(&b, 50001);
  ck_assert_int_eq(rd(&b, 0, &m, &e), TL_E_LIMIT);
  body_with_locals(&b, 0xffffffffu);
  ck_assert_int_eq(rd(&b, 0, &m, &e), TL_E_LIMIT);
} END_TEST

/* ------------------------------------------------------- deep nesting */
enum { DEPTH = 100000 };
static void *deep_read(void *arg) {
  tl_buf body = {0}, b = {0};
  tl_buf_byte(&body, 0);
  for (int i = 0; i < DEPTH; i++) tl_buf_put(&body, "\x02\x40", 2);
  for (int i = 0; i <= DEPTH; i++) tl_buf_byte(&body, 0x0b);
  const uint8_t *p = body.p;
  size_t sz = body.n;
  hdr(&b); sec(&b, 1, VOID_T); sec(&b, 3, S("\x01\x00")); code(&b, &p, &sz, 1);
  tl_buf_free(&body);
  tl_read_options o = {.no_validate = true};
  tl_error e;
  tl_module *m;
  tl_status s = tl_read(b.p, b.n, &o, &m, &e);
  tl_buf_free(&b);
  if (s == TL_OK) {
    tl_expr *x = TL_FUNC(m, 0)->body;
    int depth = 0;
    while (x->nkid) { x = x->kid[0]; depth++; }
    s = depth == DEPTH && TL_FUNC(m, 0)->nlabel == DEPTH + 1 ? TL_OK : TL_E_INVALID;
    tl_module_destroy(m);
  }
  *(tl_status *)arg = s;
  return NULL;
}

START_TEST(deep_nesting_small_stack) {
  pthread_attr_t a;
  pthread_t t;
  tl_status s = TL_E_IO;
  pthread_attr_init(&a);
  pthread_attr_setstacksize(&a, 512 * 1024);
  ck_assert_int_eq(pthread_create(&t, &a, deep_read, &s), 0);
  pthread_join(t, NULL);
  pthread_attr_destroy(&a);
  ck_assert_int_eq(s, TL_OK);
} END_TEST

/* ------------------------------------------------------------ shapes */
/* types: 0 [] -> [i32], 1 [] -> [], 2 [] -> [i32 i32], 3 [i32 i32] -> [i32] */
#define TYPES S("\x04\x60\x00\x01\x7f\x60\x00\x00\x60\x00\x02\x7f\x7f\x60\x02\x7f\x7f\x01\x7f")

static tl_module *funcs(const char *fsec, size_t nf, const uint8_t **bodies, const size_t *sizes, uint32_t n) {
  tl_buf b = {0};
  tl_module *m = NULL;
  tl_error e;
  hdr(&b); sec(&b, 1, TYPES); sec(&b, 3, (const uint8_t *)fsec, nf); code(&b, bodies, sizes, n);
  tl_status s = rd(&b, TL_FEATURES_ALL, &m, &e);
  if (s) fprintf(stderr, "read: 0x%llx: %s\n", (unsigned long long)e.offset, e.msg);
  ck_assert_int_eq(s, TL_OK);
  return m;
}

START_TEST(effect_order_spills) {
  /* f0: i32.const 7; f1: nop; f2: call 0; call 1; drop; f3: i32.const 1; call 1; drop */
  const uint8_t *bodies[] = {(const uint8_t *)"\x00\x41\x07\x0b", (const uint8_t *)"\x00\x0b",
                             (const uint8_t *)"\x00\x10\x00\x10\x01\x1a\x0b",
                             (const uint8_t *)"\x00\x41\x01\x10\x01\x1a\x0b"};
  const size_t sizes[] = {4, 2, 7, 7};
  tl_module *m = funcs("\x04\x00\x01\x01\x01", 5, bodies, sizes, 4);
  ck_assert_uint_eq(TL_FUNC(m, 2)->body->nkid, 3);
  tl_expr *set = body_kid(m, 2, 0), *call = body_kid(m, 2, 1), *drop = body_kid(m, 2, 2);
  ck_assert_uint_eq(set->op, TL_OP_LOCAL_SET);
  ck_assert_uint_eq(set->kid[0]->op, TL_OP_CALL);
  ck_assert_uint_eq(set->kid[0]->imm.index, 0);
  ck_assert_uint_eq(call->op, TL_OP_CALL);
  ck_assert_uint_eq(call->imm.index, 1);
  ck_assert_uint_eq(drop->op, TL_OP_DROP);
  ck_assert_uint_eq(drop->kid[0]->op, TL_OP_LOCAL_GET);
  ck_assert_uint_eq(drop->kid[0]->imm.index, set->imm.index);
  /* a constant needs no spill */
  ck_assert_uint_eq(TL_FUNC(m, 3)->body->nkid, 2);
  ck_assert_uint_eq(body_kid(m, 3, 0)->op, TL_OP_CALL);
  ck_assert_uint_eq(body_kid(m, 3, 1)->kid[0]->op, TL_OP_I32_CONST);
  tl_module_destroy(m);
} END_TEST

START_TEST(multivalue_and_params) {
  /* f0 (type 2): i32.const 1; i32.const 2
   * f1 (type 0): call 0; i32.add
   * f2 (type 0): i32.const 1; i32.const 2; block (type 3) i32.add end
   * f3 (type 2): call 0  (the tuple is the result as is)
   * f4 (type 0): i32.const 1; i32.const 2; loop (type 3) i32.add end */
  const uint8_t *bodies[] = {(const uint8_t *)"\x00\x41\x01\x41\x02\x0b", (const uint8_t *)"\x00\x10\x00\x6a\x0b",
                             (const uint8_t *)"\x00\x41\x01\x41\x02\x02\x03\x6a\x0b\x0b",
                             (const uint8_t *)"\x00\x10\x00\x0b",
                             (const uint8_t *)"\x00\x41\x01\x41\x02\x03\x03\x6a\x0b\x0b"};
  const size_t sizes[] = {6, 5, 10, 4, 10};
  tl_module *m = funcs("\x05\x02\x00\x00\x02\x00", 6, bodies, sizes, 5);
  tl_expr *t = body_kid(m, 0, 0);
  ck_assert_uint_eq(t->op, TL_OP_TUPLE_MAKE);
  ck_assert(tl_type_is_tuple(TL_FUNC(m, 0)->body->type));
  ck_assert_uint_eq(TL_FUNC(m, 1)->body->nkid, 2);
  ck_assert_uint_eq(body_kid(m, 1, 0)->op, TL_OP_LOCAL_SET);
  tl_expr *add = body_kid(m, 1, 1);
  ck_assert_uint_eq(add->op, TL_OP_I32_ADD);
  ck_assert_uint_eq(add->kid[0]->op, TL_OP_TUPLE_EXTRACT);
  ck_assert_uint_eq(add->kid[0]->imm.index, 0);
  ck_assert_uint_eq(add->kid[1]->imm.index, 1);
  ck_assert_uint_eq(TL_FUNC(m, 2)->body->nkid, 3);
  ck_assert_uint_eq(body_kid(m, 2, 0)->op, TL_OP_LOCAL_SET);
  ck_assert_uint_eq(body_kid(m, 2, 1)->op, TL_OP_LOCAL_SET);
  tl_expr *blk = body_kid(m, 2, 2);
  ck_assert_uint_eq(blk->op, TL_OP_BLOCK);
  ck_assert_uint_eq(blk->imm.block.bt, 3);
  ck_assert_uint_eq(blk->type, TL_I32);
  ck_assert_uint_eq(blk->kid[0]->kid[0]->op, TL_OP_LOCAL_GET);
  ck_assert_uint_eq(body_kid(m, 3, 0)->op, TL_OP_CALL);
  ck_assert_uint_eq(body_kid(m, 4, 2)->op, TL_OP_LOOP);
  ck_assert_uint_eq(tl_validate_module(m, NULL), TL_OK);
  tl_module_destroy(m);
} END_TEST

START_TEST(loop_param_branches) {
  /* f0 (type 0): i32.const 1; i32.const 2; loop (type 3) i32.const 0; br_if 0; i32.add end
   * f1 (type 0): i32.const 1; i32.const 2; loop (type 3) br 0 end */
  const uint8_t *bodies[] = {(const uint8_t *)"\x00\x41\x01\x41\x02\x03\x03\x41\x00\x0d\x00\x6a\x0b\x0b",
                             (const uint8_t *)"\x00\x41\x01\x41\x02\x03\x03\x0c\x00\x0b\x0b"};
  const size_t sizes[] = {14, 11};
  tl_module *m = funcs("\x02\x00\x00", 3, bodies, sizes, 2);
  tl_expr *loop = body_kid(m, 0, 2);
  ck_assert_uint_eq(loop->op, TL_OP_LOOP);
  ck_assert_uint_eq(loop->type, TL_I32);
  loop = body_kid(m, 1, 2);
  ck_assert_uint_eq(loop->op, TL_OP_LOOP);
  ck_assert_uint_eq(loop->type, TL_UNREACHABLE);
  ck_assert_uint_eq(tl_validate_module(m, NULL), TL_OK);
  tl_module_destroy(m);
} END_TEST

START_TEST(br_table_to_loop_with_params) {
  /* types: 0 [] -> [i32 i32], 1 [i32 i32] -> [i32 i32]; body: i32.const 1;
   * i32.const 2; loop (type 1) i32.const 1; br_table 1 0 end */
  tl_buf b = {0};
  tl_module *m;
  tl_error e;
  const uint8_t *body = (const uint8_t *)"\x00\x41\x01\x41\x02\x03\x01\x41\x01\x0e\x01\x01\x00\x0b\x0b";
  size_t nb = 15;
  hdr(&b);
  sec(&b, 1, S("\x02\x60\x00\x02\x7f\x7f\x60\x02\x7f\x7f\x02\x7f\x7f"));
  sec(&b, 3, S("\x01\x00"));
  code(&b, &body, &nb, 1);
  ck_assert_int_eq(rd(&b, TL_FEATURES_ALL, &m, &e), TL_OK);
  tl_expr *loop = body_kid(m, 0, 2);
  ck_assert_uint_eq(loop->op, TL_OP_LOOP);
  ck_assert_uint_eq(loop->kid[0]->op, TL_OP_BLOCK);       /* the trampoline */
  ck_assert_uint_eq(tl_validate_module(m, NULL), TL_OK);
  tl_module_destroy(m);
  /* without multivalue: a feature error naming the flag */
  hdr(&b);
  sec(&b, 1, S("\x02\x60\x00\x02\x7f\x7f\x60\x02\x7f\x7f\x02\x7f\x7f"));
  ck_assert_int_eq(rd(&b, 0, &m, &e), TL_E_FEATURE);
  ck_assert_str_eq(e.msg, "multiple results requires --enable-multivalue");
} END_TEST

START_TEST(label_names) {
  /* block block end end, labels named "a" and "b" (wasm label 0 and 1) */
  tl_buf b = {0};
  tl_module *m;
  tl_error e;
  const uint8_t *body = (const uint8_t *)"\x00\x02\x40\x02\x40\x0b\x0b\x0b";
  size_t nb = 8;
  hdr(&b); sec(&b, 1, VOID_T); sec(&b, 3, S("\x01\x00")); code(&b, &body, &nb, 1);
  sec(&b, 0, S("\x04name\x03\x09\x01\x00\x02\x00\x01" "a\x01\x01" "b"));
  ck_assert_int_eq(rd(&b, 0, &m, &e), TL_OK);
  tl_func *f = TL_FUNC(m, 0);
  ck_assert_uint_eq(f->nlabel, 3);
  ck_assert_ptr_nonnull(f->label_name);
  ck_assert_ptr_null(f->label_name[0]);
  ck_assert_str_eq(f->label_name[1], "a");
  ck_assert_str_eq(f->label_name[2], "b");
  tl_module_destroy(m);
} END_TEST

START_TEST(dead_code_after_br) {
  /* block br 0; i32.add; drop end */
  tl_module *m;
  tl_error e;
  ck_assert_int_eq(one(VOID_T, S("\x00\x02\x40\x0c\x00\x6a\x1a\x0b\x0b"), 0, &m, &e), TL_OK);
  tl_expr *blk = body_kid(m, 0, 0);
  ck_assert_uint_eq(blk->op, TL_OP_BLOCK);
  ck_assert_uint_eq(blk->type, TL_NONE);
  ck_assert_uint_eq(blk->nkid, 2);
  ck_assert_uint_eq(blk->kid[0]->op, TL_OP_BR);
  tl_expr *drop = blk->kid[1];
  ck_assert_uint_eq(drop->op, TL_OP_DROP);
  ck_assert_uint_eq(drop->type, TL_UNREACHABLE);
  ck_assert_uint_eq(drop->kid[0]->op, TL_OP_I32_ADD);
  ck_assert_uint_eq(drop->kid[0]->kid[0]->op, TL_OP_UNREACHABLE);
  ck_assert_uint_eq(drop->kid[0]->kid[1]->op, TL_OP_UNREACHABLE);
  tl_module_destroy(m);
  /* values below an unreachable are dropped: i32.const 1; unreachable */
  ck_assert_int_eq(one(VOID_T, S("\x00\x41\x01\x00\x0b"), 0, &m, &e), TL_OK);
  ck_assert_uint_eq(body_kid(m, 0, 0)->op, TL_OP_DROP);
  ck_assert_uint_eq(body_kid(m, 0, 1)->op, TL_OP_UNREACHABLE);
  ck_assert_uint_eq(TL_FUNC(m, 0)->body->type, TL_UNREACHABLE);
  tl_module_destroy(m);
} END_TEST

START_TEST(if_arms) {
  /* [] -> [i32]: i32.const 1; if (result i32) i32.const 2; i32.const 3; i32.add else i32.const 4 end */
  tl_module *m;
  tl_error e;
  ck_assert_int_eq(one(S("\x01\x60\x00\x01\x7f"),
                       S("\x00\x41\x01\x04\x7f\x41\x02\x41\x03\x6a\x05\x41\x04\x0b\x0b"), 0, &m, &e), TL_OK);
  tl_expr *iff = body_kid(m, 0, 0);
  ck_assert_uint_eq(iff->op, TL_OP_IF);
  ck_assert_uint_eq(iff->nkid, 3);
  ck_assert_uint_eq(iff->imm.block.label, 1);
  ck_assert_uint_eq(iff->kid[1]->op, TL_OP_I32_ADD);
  ck_assert_uint_eq(iff->kid[2]->op, TL_OP_I32_CONST);
  ck_assert_uint_eq(iff->type, TL_I32);
  tl_module_destroy(m);
} END_TEST

START_TEST(names_and_features) {
  /* type [i32] -> [], one function with a v128.const; name section names
   * the function "f" and its local 0 "x"; target_features says +simd128 +atomics. */
  tl_buf b = {0};
  tl_module *m;
  tl_error e;
  const uint8_t *body = (const uint8_t *)"\x00\xfd\x0c\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x1a\x0b";
  size_t nb = 21;
  hdr(&b); sec(&b, 1, S("\x01\x60\x01\x7f\x00")); sec(&b, 3, S("\x01\x00")); code(&b, &body, &nb, 1);
  sec(&b, 0, S("\x04name\x01\x04\x01\x00\x01" "f\x02\x06\x01\x00\x01\x00\x01x"));
  sec(&b, 0, S("\x0ftarget_features\x02\x2b\x07simd128\x2b\x07" "atomics"));
  ck_assert_int_eq(rd(&b, 0, &m, &e), TL_OK);
  ck_assert_str_eq(TL_FUNC(m, 0)->name, "f");
  ck_assert_str_eq(TL_FUNC(m, 0)->local_name[0], "x");
  ck_assert(m->features & TL_FEAT_SIMD);
  ck_assert(m->features & TL_FEAT_THREADS);
  ck_assert_uint_eq(m->customs.n, 1);
  ck_assert_str_eq(TL_VEC_AT(&m->customs, tl_custom, 0).name, "target_features");
  ck_assert_uint_eq(TL_VEC_AT(&m->customs, tl_custom, 0).after, 10);
  tl_module_destroy(m);
  /* a malformed name section is ignored */
  hdr(&b); sec(&b, 0, S("\x04name\x01\x09\x01\x00\x01" "f"));
  ck_assert_int_eq(rd(&b, 0, &m, &e), TL_OK);
  tl_module_destroy(m);
  /* detect_features: the module's use decides */
  hdr(&b); sec(&b, 1, S("\x01\x60\x01\x7f\x00")); sec(&b, 3, S("\x01\x00")); code(&b, &body, &nb, 1);
  tl_read_options o = {.detect_features = true};
  ck_assert_int_eq(tl_read(b.p, b.n, &o, &m, &e), TL_OK);
  tl_buf_free(&b);
  ck_assert(m->features & TL_FEAT_SIMD);
  tl_module_destroy(m);
} END_TEST

/* write(read(x)), and its size. */
static void rewrite(const uint8_t *p, size_t n, tl_buf *out) {
  tl_module *m = NULL;
  tl_error e = {0};
  tl_read_options o = {.features = TL_FEATURES_ALL};
  tl_write_options wo = {0};
  ck_assert_int_eq(tl_read(p, n, &o, &m, &e), TL_OK);
  out->n = 0;
  ck_assert_int_eq(tl_write(m, &wo, out, &e), TL_OK);
  tl_module_destroy(m);
}

/* Read+write reaches a fixed point at once (w1 == w2) and does not grow:
 * tuple results dropped from the top (scratch tuple.extracts are not
 * spilled again), a call kept on the stack across a local.set (Go code),
 * a value spilled across an elided tuple set, operands before dead code. */
START_TEST(rewrite_fixed_point) {
  static const uint8_t tuple_drop[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x02, 0x60, 0x00, 0x01, 0x7f, 0x60, 0x00, 0x02,
    0x7f, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, 0x0a, 0x0c, 0x01, 0x0a, 0x00,
    0x02, 0x01, 0x41, 0x01, 0x41, 0x02, 0x0b, 0x1a, 0x0b};
  static const uint8_t stacky[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x60, 0x00, 0x01, 0x7f, 0x60, 0x00, 0x00,
    0x03, 0x03, 0x02, 0x00, 0x01, 0x06, 0x06, 0x01, 0x7f, 0x01, 0x41, 0x00, 0x0b, 0x07, 0x05, 0x01, 0x01, 0x66,
    0x00, 0x01, 0x0a, 0x16, 0x02, 0x04, 0x00, 0x41, 0x01, 0x0b, 0x0f, 0x01, 0x01, 0x7f, 0x02, 0x40, 0x10, 0x00,
    0x23, 0x00, 0x21, 0x00, 0x0d, 0x00, 0x0b, 0x0b};
  static const uint8_t mixed[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x14, 0x04, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7f, 0x02,
    0x7f, 0x7f, 0x60, 0x00, 0x03, 0x7f, 0x7e, 0x7f, 0x60, 0x00, 0x01, 0x7f, 0x03, 0x04, 0x03, 0x00, 0x01, 0x03,
    0x0a, 0x3b, 0x03, 0x02, 0x00, 0x0b, 0x22, 0x00, 0x20, 0x00, 0x04, 0x7f, 0x10, 0x00, 0x41, 0x08, 0x05, 0x41,
    0x09, 0x0b, 0x20, 0x00, 0x04, 0x02, 0x41, 0x01, 0x42, 0x02, 0x41, 0x03, 0x05, 0x41, 0x7f, 0x42, 0x7e, 0x41,
    0x7d, 0x0b, 0x1a, 0x1a, 0x0b, 0x13, 0x01, 0x01, 0x7f, 0x41, 0x00, 0x21, 0x00, 0x20, 0x00, 0x03, 0x7f, 0x03,
    0x7f, 0x0c, 0x01, 0x0b, 0x0b, 0x6a, 0x0b};
  struct { const uint8_t *p; size_t n; bool no_growth; } cases[] = {
    {tuple_drop, sizeof tuple_drop, true}, {stacky, sizeof stacky, true}, {mixed, sizeof mixed, false}};
  /* relaxed SIMD: f32x4.relaxed_madd (0xfd 261, two LEB bytes) after
   * unreachable needs relaxed-simd and simd, each named when missing */
  tl_module *m = NULL;
  tl_error e = {0};
#define MADD S("\x00\x00\xfd\x85\x02\x1a\x0b")
  ck_assert_int_eq(one(VOID_T, MADD, TL_FEATURES_ALL & ~TL_FEATURE_RELAXED_SIMD, &m, &e), TL_E_FEATURE);
  ck_assert(strstr(e.msg, "f32x4.relaxed_madd requires --enable-relaxed-simd"));
  ck_assert_int_eq(one(VOID_T, MADD, TL_FEATURES_ALL & ~TL_FEATURE_SIMD, &m, &e), TL_E_FEATURE);
  ck_assert(strstr(e.msg, "requires --enable-simd"));
  ck_assert_int_eq(one(VOID_T, MADD, TL_FEATURES_ALL, &m, &e), TL_OK);
  tl_module_destroy(m);
  m = NULL;
#undef MADD
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tl_buf w1 = {0}, w2 = {0};
    rewrite(cases[i].p, cases[i].n, &w1);
    rewrite(w1.p, w1.n, &w2);
    if (cases[i].no_growth) ck_assert_uint_le(w1.n, cases[i].n);
    ck_assert_uint_eq(w1.n, w2.n);
    ck_assert(!memcmp(w1.p, w2.p, w1.n));
    tl_buf_free(&w1);
    tl_buf_free(&w2);
  }
} END_TEST

/* ----------------------------------------------- the parallel decode */
/* n functions [] -> [] of about 22 * reps bytes each (sizes unlike their
 * order), each a run of block/loop pairs with a spill (scratch locals past
 * the declared ones); body bad_op starts with an illegal opcode, body
 * bad_type with a select on an empty stack, body cut claims a million bytes
 * more than it has (and the section ends there); the name section names
 * labels in functions 5 and n - 1. */
#define NONE UINT32_MAX
static const uint8_t chunk[] = {0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x41, 0x00, 0x21, 0x00, 0x41,
                                0x01, 0x6a, 0x22, 0x00, 0x41, 0x0a, 0x48, 0x0d, 0x00, 0x0b, 0x0b};

static void big_module(tl_buf *b, uint32_t n, uint32_t base, uint32_t span, uint32_t bad_op,
                       uint32_t bad_type, uint32_t cut) {
  tl_buf fs = {0}, c = {0}, body = {0}, names = {0}, sub = {0};
  hdr(b);
  sec(b, 1, VOID_T);
  tl_leb_write_u32(&fs, n);
  for (uint32_t i = 0; i < n; i++) tl_buf_byte(&fs, 0);
  sec(b, 3, fs.p, fs.n);
  tl_leb_write_u32(&c, n);
  for (uint32_t i = 0; i < n && i <= cut; i++) {
    body.n = 0;
    tl_buf_put(&body, "\x01\x01\x7f", 3);
    if (i == bad_op) tl_buf_byte(&body, 0xff);
    if (i == bad_type) tl_buf_byte(&body, 0x1b);
    for (uint32_t k = base + (i * 37) % span; k-- > 0;) tl_buf_put(&body, chunk, sizeof chunk);
    tl_buf_byte(&body, 0x0b);
    tl_leb_write_u32(&c, (uint32_t)body.n + (i == cut ? 1000000 : 0));
    tl_buf_put(&c, body.p, body.n);
  }
  sec(b, 10, c.p, c.n);
  if (cut == NONE) { /* labels: function 5 wasm label 1 "y", function n-1 label 0 "z" */
    tl_buf_put(&sub, "\x02\x05\x01\x01\x01y", 6);
    tl_leb_write_u32(&sub, n - 1);
    tl_buf_put(&sub, "\x01\x00\x01z", 4);
    tl_buf_put(&names, "\x04name\x03", 6);
    tl_leb_write_u32(&names, (uint32_t)sub.n);
    tl_buf_put(&names, sub.p, sub.n);
    sec(b, 0, names.p, names.n);
  }
  tl_buf_free(&fs);
  tl_buf_free(&c);
  tl_buf_free(&body);
  tl_buf_free(&names);
  tl_buf_free(&sub);
}

static tl_status read_t(const tl_buf *b, uint32_t threads, tl_module **m, tl_error *e) {
  tl_read_options o = {.threads = threads};
  memset(e, 0, sizeof *e);
  *m = tl_module_read(b->p, b->n, &o, e);
  return *m ? TL_OK : e->code;
}

/* Lazy bodies: checked, kept as bytes (body NULL), copied verbatim by the
 * writer; the printer and a C API call naming the function decode them. */
START_TEST(lazy_bodies) {
  tl_buf b = {0};
  hdr(&b);
  sec(&b, 1, S("\x01\x60\x00\x01\x7f"));
  sec(&b, 3, S("\x02\x00\x00"));
  /* f: a block holding i32.const 7 with its LEB padded to 3 bytes; g: call f */
  const uint8_t *bodies[2] = {(const uint8_t *)"\x00\x02\x7f\x41\x87\x80\x00\x0b\x0b",
                              (const uint8_t *)"\x01\x01\x7e\x10\x00\x0b"};
  size_t sizes[2] = {9, 6};
  code(&b, bodies, sizes, 2);
  tl_read_options o = {.lazy_bodies = true};
  tl_error e = {0};
  tl_module *m = tl_module_read(b.p, b.n, &o, &e);
  ck_assert_ptr_nonnull(m);
  for (uint32_t i = 0; i < 2; i++) {
    ck_assert(TL_FUNC(m, i)->lazy);
    ck_assert_ptr_null(TL_FUNC(m, i)->body);
  }
  ck_assert_uint_eq(TL_FUNC(m, 1)->nlocal, 1); /* the locals are read */
  ck_assert_int_eq(tl_module_validate(m, &e), TL_OK);
  uint8_t *out = NULL;
  size_t n = 0;
  ck_assert_int_eq(tl_module_write(m, NULL, &out, &n, &e), TL_OK);
  ck_assert_uint_eq(n, b.n);
  ck_assert_mem_eq(out, b.p, n); /* padding and all */
  free(out);
  /* the C API decodes what it touches: g gains a local, f stays bytes */
  ck_assert_uint_eq(tl_function_add_var(m, 1, TL_TYPE_F64), 1);
  ck_assert(!TL_FUNC(m, 1)->lazy && TL_FUNC(m, 1)->body && TL_FUNC(m, 0)->lazy);
  ck_assert_int_eq(tl_module_write(m, NULL, &out, &n, &e), TL_OK);
  ck_assert_uint_eq(n, b.n + 2); /* one more local declaration: 1 x f64 */
  free(out);
  char *text = tl_module_print(m); /* decodes the rest */
  ck_assert_ptr_nonnull(strstr(text, "i32.const 7"));
  ck_assert(!TL_FUNC(m, 0)->lazy && TL_FUNC(m, 0)->body);
  free(text);
  ck_assert_int_eq(tl_module_write(m, NULL, &out, &n, &e), TL_OK);
  ck_assert_uint_lt(n, b.n + 2); /* the padding is gone once decoded */
  free(out);
  tl_module_free(m);
  tl_buf_free(&b);
} END_TEST

static void count_call(void *user) { ++*(int *)user; }

/* tl_pass_options.on_bodies_decoded: once, when the last lazy body is
 * decoded (a module pass that reads bodies, or a function pass stack);
 * never while one stays lazy or when none was. */
static int run_counting(tl_module *m, const char *const *names, uint32_t n) {
  int calls = 0;
  tl_pass_options po = {.threads = 1, .on_bodies_decoded = count_call, .user = &calls};
  tl_error e = {0};
  ck_assert_int_eq(tl_module_run_passes(m, names, n, &po, &e), TL_OK);
  return calls;
}

START_TEST(bodies_decoded_hook) {
  tl_buf b = {0};
  hdr(&b);
  sec(&b, 1, S("\x01\x60\x00\x01\x7f"));
  sec(&b, 3, S("\x02\x00\x00"));
  sec(&b, 7, S("\x02\x01\x66\x00\x00\x01\x67\x00\x01")); /* export both */
  const uint8_t *bodies[2] = {(const uint8_t *)"\x00\x41\x07\x0b",
                              (const uint8_t *)"\x00\x10\x00\x0b"};
  size_t sizes[2] = {4, 4};
  code(&b, bodies, sizes, 2);
  tl_read_options o = {.lazy_bodies = true};
  tl_error e = {0};
  /* a lazy module pass decodes nothing: no call */
  tl_module *m = tl_module_read(b.p, b.n, &o, &e);
  ck_assert_ptr_nonnull(m);
  const char *rume[] = {"remove-unused-module-elements"};
  ck_assert_int_eq(run_counting(m, rume, 1), 0);
  ck_assert(TL_FUNC(m, 0)->lazy && TL_FUNC(m, 1)->lazy);
  /* function passes then a module pass: called once, after the first stack */
  const char *mixed[] = {"vacuum", "dce", "directize", "vacuum"};
  ck_assert_int_eq(run_counting(m, mixed, 4), 1);
  ck_assert(!TL_FUNC(m, 0)->lazy && !TL_FUNC(m, 1)->lazy);
  ck_assert_int_eq(run_counting(m, mixed, 4), 0); /* nothing lazy any more */
  tl_module_free(m);
  /* a module pass that reads bodies decodes them all first */
  m = tl_module_read(b.p, b.n, &o, &e);
  ck_assert_ptr_nonnull(m);
  const char *dfe[] = {"duplicate-function-elimination"};
  ck_assert_int_eq(run_counting(m, dfe, 1), 1);
  tl_module_free(m);
  tl_buf_free(&b);
} END_TEST

START_TEST(parallel_same_ir) {
  tl_buf b = {0}, w1 = {0};
  big_module(&b, 400, 10, 60, NONE, NONE, NONE);
  ck_assert_uint_gt(b.n, 300 * 1024); /* above the reader's parallel threshold */
  static const uint32_t threads[] = {1, 2, 4, 0};
  tl_module *m1 = NULL;
  for (uint32_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
    tl_module *m;
    tl_error e;
    ck_assert_int_eq(read_t(&b, threads[k], &m, &e), TL_OK);
    tl_func *f5 = TL_FUNC(m, 5), *fl = TL_FUNC(m, 399);
    ck_assert_ptr_nonnull(f5->label_name);
    ck_assert_str_eq(f5->label_name[2], "y");
    ck_assert_str_eq(fl->label_name[1], "z");
    ck_assert_uint_gt(fl->nlocal, 1 + 8); /* grew past the first room */
    ck_assert_ptr_nonnull(fl->code);
    tl_write_options o = {.debug_names = true, .threads = 1};
    tl_buf w = {0};
    ck_assert_int_eq(tl_write(m, &o, &w, &e), TL_OK);
    if (!m1) {
      m1 = m;
      w1 = w;
      continue;
    }
    ck_assert_uint_eq(m->ntuples, m1->ntuples);
    for (uint32_t i = 0; i < 400; i++) {
      tl_func *f = TL_FUNC(m, i), *g = TL_FUNC(m1, i);
      ck_assert_uint_eq(f->nlocal, g->nlocal);
      ck_assert_uint_eq(f->nlabel, g->nlabel);
      ck_assert_uint_eq(f->code_size, g->code_size);
      ck_assert_uint_eq(f->body_offset, g->body_offset);
      ck_assert(!memcmp(f->local, g->local, f->nlocal * sizeof *f->local));
      ck_assert(!memcmp(f->code, g->code, f->code_size));
    }
    ck_assert_uint_eq(w.n, w1.n);
    ck_assert(!memcmp(w.p, w1.p, w.n));
    tl_buf_free(&w);
    tl_module_destroy(m);
  }
  tl_module_destroy(m1);
  tl_buf_free(&w1);
  tl_buf_free(&b);
} END_TEST

START_TEST(parallel_errors) {
  static const struct { uint32_t bad_op, bad_type, cut; } cases[] = {
      {100, 300, NONE}, {300, 100, NONE}, {NONE, 300, NONE}, {399, NONE, NONE},
      {100, NONE, 350}, {NONE, NONE, 350}, {NONE, 360, 350}, {NONE, NONE, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tl_buf b = {0};
    big_module(&b, 400, 10, 60, cases[i].bad_op, cases[i].bad_type, cases[i].cut);
    tl_error e1, e;
    tl_module *m;
    tl_status s1 = read_t(&b, 1, &m, &e1);
    ck_assert_int_ne(s1, TL_OK);
    for (uint32_t t = 2; t <= 4; t += 2) {
      ck_assert_int_eq(read_t(&b, t, &m, &e), s1);
      ck_assert_ptr_null(m);
      ck_assert_uint_eq(e.code, e1.code);
      ck_assert_uint_eq(e.offset, e1.offset);
      ck_assert_uint_eq(e.func_index, e1.func_index);
      ck_assert_str_eq(e.msg, e1.msg);
    }
    tl_buf_free(&b);
  }
} END_TEST

/* Out of memory in the parallel decode (workers and the joins after): the
 * read fails with TL_E_NOMEM or succeeds, and leaks nothing (ASan). */
START_TEST(parallel_out_of_memory) {
  tl_buf b = {0};
  big_module(&b, 40, 300, 200, NONE, NONE, NONE);
  ck_assert_uint_gt(b.n, 300 * 1024);
  uint32_t failed = 0;
  for (uint64_t n = 1; n < 100000; n += n < 64 ? 1 : 5) { /* every early one, then a sample */
    tl_module *m;
    tl_error e;
    tl_scratch_fail_nth(n);
    tl_status s = read_t(&b, 2, &m, &e);
    bool reached = tl_scratch_fail_nth(0) == 0;
    if (s == TL_OK) {
      tl_module_destroy(m);
    } else {
      ck_assert_int_eq(s, TL_E_NOMEM);
      ck_assert_uint_eq(e.code, TL_E_NOMEM);
      ck_assert_msg(!strncmp(e.msg, "out of memory", 13), "%s", e.msg);
    }
    failed += s != TL_OK;
    if (!reached) break;
  }
  ck_assert_uint_gt(failed, 50);
  tl_buf_free(&b);
} END_TEST

int main(void) {
  Suite *s = suite_create("reader");
  TCase *tc = tcase_create("reader");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, minimal_module);
  tcase_add_test(tc, lazy_bodies);
  tcase_add_test(tc, bodies_decoded_hook);
  tcase_add_test(tc, rewrite_fixed_point);
  tcase_add_test(tc, bad_header);
  tcase_add_test(tc, zeroes_fail_at_once);
  tcase_add_test(tc, bad_sections);
  tcase_add_test(tc, bad_counts);
  tcase_add_test(tc, bad_utf8_name);
  tcase_add_test(tc, bad_bodies);
  tcase_add_test(tc, locals_limit);
  tcase_add_test(tc, deep_nesting_small_stack);
  tcase_add_test(tc, effect_order_spills);
  tcase_add_test(tc, multivalue_and_params);
  tcase_add_test(tc, loop_param_branches);
  tcase_add_test(tc, dead_code_after_br);
  tcase_add_test(tc, br_table_to_loop_with_params);
  tcase_add_test(tc, label_names);
  tcase_add_test(tc, if_arms);
  tcase_add_test(tc, names_and_features);
  tcase_add_test(tc, parallel_same_ir);
  tcase_add_test(tc, parallel_errors);
  tcase_add_test(tc, parallel_out_of_memory);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
