/* leb_test.c — LEB128 decoding limits and minimal encoding (leb128.c). */
#include "wasm-io/wasmio.h"

#include <check.h>
#include <stdlib.h>

#define N(a) (a), (a) + sizeof(a)

START_TEST(u32_small_and_max) {
  uint32_t v;
  const uint8_t a[] = {0x7f}, b[] = {0xff, 0xff, 0xff, 0xff, 0x0f}, c[] = {0x80, 0x01};
  ck_assert_uint_eq(tl_leb_read_u32(N(a), &v), 1);
  ck_assert_uint_eq(v, 127);
  ck_assert_uint_eq(tl_leb_read_u32(N(b), &v), 5);
  ck_assert_uint_eq(v, UINT32_MAX);
  ck_assert_uint_eq(tl_leb_read_u32(N(c), &v), 2);
  ck_assert_uint_eq(v, 128);
} END_TEST

START_TEST(u32_overlong_rejected) {
  uint32_t v;
  const uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  const uint8_t big[] = {0xff, 0xff, 0xff, 0xff, 0x1f};  /* 33 bits */
  const uint8_t pad[] = {0x80, 0x80, 0x80, 0x80, 0x00};  /* 5 bytes, zero: fine */
  ck_assert_uint_eq(tl_leb_read_u32(N(six), &v), 0);
  ck_assert_uint_eq(tl_leb_read_u32(N(big), &v), 0);
  ck_assert_uint_eq(tl_leb_read_u32(N(pad), &v), 5);
  ck_assert_uint_eq(v, 0);
} END_TEST

START_TEST(truncated_rejected) {
  uint32_t v;
  uint64_t w;
  int32_t s;
  const uint8_t a[] = {0x80, 0x80};
  ck_assert_uint_eq(tl_leb_read_u32(N(a), &v), 0);
  ck_assert_uint_eq(tl_leb_read_u64(N(a), &w), 0);
  ck_assert_uint_eq(tl_leb_read_s32(N(a), &s), 0);
  ck_assert_uint_eq(tl_leb_read_u32(a, a, &v), 0);
} END_TEST

START_TEST(s32_sign_bits) {
  int32_t v;
  const uint8_t m1[] = {0x7f}, min[] = {0x80, 0x80, 0x80, 0x80, 0x78};
  const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0x07};
  const uint8_t badneg[] = {0x80, 0x80, 0x80, 0x80, 0x70}; /* unused bits not sign */
  const uint8_t badpos[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
  const uint8_t padneg[] = {0xff, 0xff, 0xff, 0xff, 0x7f}; /* -1 in 5 bytes: fine */
  ck_assert_uint_eq(tl_leb_read_s32(N(m1), &v), 1);
  ck_assert_int_eq(v, -1);
  ck_assert_uint_eq(tl_leb_read_s32(N(min), &v), 5);
  ck_assert_int_eq(v, INT32_MIN);
  ck_assert_uint_eq(tl_leb_read_s32(N(max), &v), 5);
  ck_assert_int_eq(v, INT32_MAX);
  ck_assert_uint_eq(tl_leb_read_s32(N(badneg), &v), 0);
  ck_assert_uint_eq(tl_leb_read_s32(N(badpos), &v), 0);
  ck_assert_uint_eq(tl_leb_read_s32(N(padneg), &v), 5);
  ck_assert_int_eq(v, -1);
} END_TEST

START_TEST(u64_and_s64_limits) {
  uint64_t u;
  int64_t s;
  const uint8_t umax[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  const uint8_t ubad[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03};
  const uint8_t smin[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f};
  const uint8_t sbad[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x41};
  ck_assert_uint_eq(tl_leb_read_u64(N(umax), &u), 10);
  ck_assert(u == UINT64_MAX);
  ck_assert_uint_eq(tl_leb_read_u64(N(ubad), &u), 0);
  ck_assert_uint_eq(tl_leb_read_s64(N(smin), &s), 10);
  ck_assert(s == INT64_MIN);
  ck_assert_uint_eq(tl_leb_read_s64(N(sbad), &s), 0);
} END_TEST

START_TEST(s33_block_type_range) {
  int64_t v;
  const uint8_t a[] = {0x40}, idx[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
  ck_assert_uint_eq(tl_leb_read_s33(N(a), &v), 1);
  ck_assert_int_eq(v, -64);
  ck_assert_uint_eq(tl_leb_read_s33(N(idx), &v), 5);
  ck_assert(v == 0xffffffffLL);
} END_TEST

START_TEST(write_round_trips) {
  static const int64_t vals[] = {0, 1, -1, 63, 64, -64, -65, 127, 128, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    tl_buf b = {0};
    int64_t s;
    tl_leb_write_s64(&b, vals[i]);
    ck_assert_uint_eq(tl_leb_read_s64(b.p, b.p + b.n, &s), b.n);
    ck_assert(s == vals[i]);
    tl_buf_free(&b);
    uint64_t u;
    tl_leb_write_u64(&b, (uint64_t)vals[i]);
    ck_assert_uint_eq(tl_leb_read_u64(b.p, b.p + b.n, &u), b.n);
    ck_assert(u == (uint64_t)vals[i]);
    tl_buf_free(&b);
  }
  tl_buf b = {0};
  tl_leb_write_u32(&b, 127);
  ck_assert_uint_eq(b.n, 1);
  tl_buf_free(&b);
} END_TEST

int main(void) {
  Suite *s = suite_create("leb128");
  TCase *tc = tcase_create("leb128");
  tcase_add_test(tc, u32_small_and_max);
  tcase_add_test(tc, u32_overlong_rejected);
  tcase_add_test(tc, truncated_rejected);
  tcase_add_test(tc, s32_sign_bits);
  tcase_add_test(tc, u64_and_s64_limits);
  tcase_add_test(tc, s33_block_type_range);
  tcase_add_test(tc, write_round_trips);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
