/* type_test.c — value types, interned tuples and interned function types
 * (type.c): equal tuples share one id, different ones do not, arity and
 * components read back, and ids stay stable as the table grows. */
#include "ir.h"

#include <check.h>
#include <stdlib.h>
#include "check_main.h"

START_TEST(basic_types) {
  tl_module *m = tl_module_alloc();
  ck_assert_uint_eq(tl_type_arity(m, TL_NONE), 0);
  ck_assert_uint_eq(tl_type_arity(m, TL_UNREACHABLE), 0);
  for (tl_type t = TL_I32; t < TL_NBASIC; t++) {
    ck_assert_uint_eq(tl_type_arity(m, t), 1);
    ck_assert_uint_eq(tl_type_at(m, t, 0), t);
    ck_assert(tl_type_is_concrete(t));
    ck_assert(!tl_type_is_tuple(t));
  }
  ck_assert(!tl_type_is_concrete(TL_NONE) && !tl_type_is_concrete(TL_UNREACHABLE));
  ck_assert(tl_type_is_ref(TL_FUNCREF) && tl_type_is_ref(TL_EXTERNREF) && !tl_type_is_ref(TL_I32));
  ck_assert_str_eq(tl_type_name(TL_I32), "i32");
  ck_assert_str_eq(tl_type_name(TL_EXTERNREF), "externref");
  ck_assert_str_eq(tl_type_name(TL_UNREACHABLE), "unreachable");
  tl_module_destroy(m);
}
END_TEST

START_TEST(tuple_interning) {
  tl_module *m = tl_module_alloc();
  tl_type a[3] = {TL_I32, TL_F64, TL_I64}, b[3] = {TL_I32, TL_F64, TL_I64};
  tl_type c[3] = {TL_I64, TL_F64, TL_I32}, d[2] = {TL_I32, TL_F64};
  tl_type ta = tl_type_tuple(m, a, 3), tb = tl_type_tuple(m, b, 3);
  tl_type tc = tl_type_tuple(m, c, 3), td = tl_type_tuple(m, d, 2);
  ck_assert(tl_type_is_tuple(ta) && tl_type_is_tuple(tc) && tl_type_is_tuple(td));
  ck_assert_uint_eq(ta, tb);   /* same tuple, same id */
  ck_assert_uint_ne(ta, tc);   /* order matters */
  ck_assert_uint_ne(ta, td);   /* a prefix is a different tuple */
  ck_assert_uint_eq(tl_type_arity(m, ta), 3);
  ck_assert_uint_eq(tl_type_arity(m, td), 2);
  for (uint32_t i = 0; i < 3; i++) {
    ck_assert_uint_eq(tl_type_at(m, ta, i), a[i]);
    ck_assert_uint_eq(tl_type_at(m, tc, i), c[i]);
  }
  ck_assert_str_eq(tl_type_name(ta), "tuple");
  /* degenerate sizes are not tuples */
  ck_assert_uint_eq(tl_type_tuple(m, a, 1), TL_I32);
  ck_assert_uint_eq(tl_type_tuple(m, a, 0), TL_NONE);
  tl_module_destroy(m);
}
END_TEST

/* Many tuples: crosses the 1024-entry blocks and several rehashes. */
START_TEST(tuple_many) {
  tl_module *m = tl_module_alloc();
  enum { N = 3000 };
  static tl_type ids[N];
  for (uint32_t i = 0; i < N; i++) {
    tl_type t[4] = {TL_I32 + i % 4, TL_I32 + (i / 4) % 4, TL_I32 + (i / 16) % 4, TL_I32 + (i / 64) % 6};
    uint32_t n = 2 + (i / 384) % 3; /* 2, 3 or 4 components */
    ids[i] = tl_type_tuple(m, t, n);
  }
  for (uint32_t i = 0; i < N; i++) {
    tl_type t[4] = {TL_I32 + i % 4, TL_I32 + (i / 4) % 4, TL_I32 + (i / 16) % 4, TL_I32 + (i / 64) % 6};
    uint32_t n = 2 + (i / 384) % 3;
    ck_assert_uint_eq(tl_type_tuple(m, t, n), ids[i]); /* stable after growth */
    ck_assert_uint_eq(tl_type_arity(m, ids[i]), n);
    for (uint32_t k = 0; k < n; k++) ck_assert_uint_eq(tl_type_at(m, ids[i], k), t[k]);
  }
  /* equal ids exactly for equal (tuple, n) pairs */
  uint32_t distinct = 0;
  for (uint32_t i = 0; i < N; i++) {
    bool seen = false;
    for (uint32_t j = 0; j < i && !seen; j++) seen = ids[j] == ids[i];
    distinct += !seen;
  }
  ck_assert_uint_eq(distinct, m->ntuples);
  tl_module_destroy(m);
}
END_TEST

START_TEST(tuples_per_module) {
  tl_module *m1 = tl_module_alloc(), *m2 = tl_module_alloc();
  tl_type a[2] = {TL_F32, TL_F32}, b[2] = {TL_I64, TL_I32};
  tl_type x1 = tl_type_tuple(m1, a, 2);
  tl_type y2 = tl_type_tuple(m2, b, 2), x2 = tl_type_tuple(m2, a, 2);
  ck_assert_uint_eq(x1, TL_TUPLE_BASE);
  ck_assert_uint_eq(y2, TL_TUPLE_BASE);
  ck_assert_uint_ne(x2, y2);
  ck_assert_uint_eq(tl_type_at(m1, x1, 0), TL_F32);
  ck_assert_uint_eq(tl_type_at(m2, y2, 0), TL_I64);
  tl_module_destroy(m1);
  tl_module_destroy(m2);
}
END_TEST

START_TEST(functype_interning) {
  tl_module *m = tl_module_alloc();
  tl_type p[2] = {TL_I32, TL_I64};
  tl_type pp = tl_type_tuple(m, p, 2);
  uint32_t t0 = tl_functype_intern(m, TL_NONE, TL_NONE);
  uint32_t t1 = tl_functype_intern(m, pp, TL_F32);
  uint32_t t2 = tl_functype_intern(m, TL_F32, pp);
  uint32_t t3 = tl_functype_intern(m, pp, TL_NONE);
  ck_assert_uint_eq(t0, 0);
  ck_assert(t1 != t0 && t2 != t1 && t3 != t1 && t3 != t2);
  ck_assert_uint_eq(tl_functype_intern(m, TL_NONE, TL_NONE), t0);
  ck_assert_uint_eq(tl_functype_intern(m, tl_type_tuple(m, p, 2), TL_F32), t1);
  ck_assert_uint_eq(m->types.n, 4);
  ck_assert_uint_eq(TL_FTYPE(m, t1)->params, pp);
  ck_assert_uint_eq(TL_FTYPE(m, t1)->results, TL_F32);
  ck_assert_uint_eq(TL_FTYPE(m, t2)->results, pp);
  /* a function's param count follows its type */
  tl_func *f = tl_module_add_func(m);
  f->type = t1;
  ck_assert_uint_eq(tl_func_nparams(m, f), 2);
  ck_assert_ptr_eq(tl_func_type(m, f), TL_FTYPE(m, t1));
  tl_module_destroy(m);
}
END_TEST

START_TEST(local_map) {
  tl_module *m = tl_module_alloc();
  tl_type p[3] = {TL_I32, TL_I64, TL_F32};
  tl_func *f = tl_module_add_func(m);
  f->type = tl_functype_intern(m, TL_NONE, TL_NONE);
  tl_func_add_local(m, f, TL_I32);
  tl_func_add_local(m, f, tl_type_tuple(m, p, 3));
  tl_func_add_local(m, f, TL_F64);
  uint32_t *base = tl_func_local_map(m, f);
  ck_assert_uint_eq(base[0], 0);
  ck_assert_uint_eq(base[1], 1);
  ck_assert_uint_eq(base[2], 4);
  ck_assert_uint_eq(base[3], 5);
  free(base);
  tl_module_destroy(m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("type");
  TCase *t = tcase_create("core");
  tcase_add_test(t, basic_types);
  tcase_add_test(t, tuple_interning);
  tcase_add_test(t, tuple_many);
  tcase_add_test(t, tuples_per_module);
  tcase_add_test(t, functype_interning);
  tcase_add_test(t, local_map);
  suite_add_tcase(s, t);
  return s;
}

TL_CHECK_MAIN(suite)
