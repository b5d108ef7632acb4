/* arena_test.c — the chunk cache (arena.c): a chunk given back is taken
 * again rather than mapped afresh, a big one is split to serve a small
 * request (mapped chunks only: not under ASan, where chunks come from
 * malloc), what it holds stays bounded by the recent demand, trimming gives
 * everything back, and an arena with a cache reuses the chunks another one
 * freed. Under ASan a chunk held by the cache is poisoned. */
#include "ir.h"

#include <check.h>
#include <string.h>
#include "check_main.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

enum { MB = 1 << 20 };

START_TEST(chunk_given_back_is_taken_again) {
  tl_chunk_cache *k = tl_chunk_cache_new();
  ck_assert_ptr_nonnull(k);
  uint8_t *a = tl_chunk_alloc(k, MB);
  ck_assert_ptr_nonnull(a);
  memset(a, 1, MB);
  tl_chunk_free(k, a);
  ck_assert_uint_ge(tl_chunk_cache_held(k), MB);
  uint8_t *b = tl_chunk_alloc(k, MB);
  ck_assert_ptr_eq(a, b);
  ck_assert_uint_eq(tl_chunk_cache_held(k), 0);
  memset(b, 2, MB); /* unpoisoned again */
  tl_chunk_free(k, b);
  tl_chunk_cache_trim(k);
  ck_assert_uint_eq(tl_chunk_cache_held(k), 0);
  tl_chunk_cache_free(k);
}
END_TEST

START_TEST(big_chunk_is_split) {
#ifndef ASAN
  tl_chunk_cache *k = tl_chunk_cache_new();
  uint8_t *a = tl_chunk_alloc(k, 4 * MB);
  tl_chunk_free(k, a);
  uint8_t *b = tl_chunk_alloc(k, MB), *c = tl_chunk_alloc(k, MB);
  ck_assert_ptr_eq(a, b);                    /* the head */
  ck_assert(c >= b + MB && c < a + 4 * MB);  /* from the tail, past b */
  memset(b, 1, MB);
  memset(c, 2, MB);
  ck_assert_uint_eq(b[MB - 1], 1);
  ck_assert_uint_ge(tl_chunk_cache_held(k), MB); /* the rest of the tail */
  tl_chunk_free(k, b);
  tl_chunk_free(k, c);
  tl_chunk_cache_free(k);
#endif
}
END_TEST

/* Demand falls from 4 MB requests to 64 KB ones: the cache lets the big
 * chunks go instead of holding them for good. */
START_TEST(cache_follows_demand) {
  tl_chunk_cache *k = tl_chunk_cache_new();
  void *big[4];
  for (int i = 0; i < 4; i++) big[i] = tl_chunk_alloc(k, 4 * MB);
  for (int i = 0; i < 4; i++) tl_chunk_free(k, big[i]);
  ck_assert_uint_le(tl_chunk_cache_held(k), 16 * MB + 4 * 4096);
  for (int i = 0; i < 200; i++) tl_chunk_free(k, tl_chunk_alloc(k, 64 * 1024));
  ck_assert_uint_lt(tl_chunk_cache_held(k), MB);
  tl_chunk_cache_free(k);
}
END_TEST

START_TEST(arenas_share_chunks) {
  tl_chunk_cache *k = tl_chunk_cache_new();
  tl_arena a, b;
  tl_arena_init(&a);
  tl_arena_init(&b);
  a.cache = b.cache = k;
  uint8_t *p = tl_arena_alloc(&a, 1000, 8);
  memset(p, 1, 1000);
  tl_arena_free(&a);
  uint8_t *q = tl_arena_alloc(&b, 1000, 8);
  ck_assert_ptr_eq(p, q);
  for (int i = 0; i < 100; i++) memset(tl_arena_alloc(&b, 100000, 8), 3, 100000); /* more chunks */
  tl_arena_free(&b);
  ck_assert_uint_gt(tl_chunk_cache_held(k), 0);
  tl_chunk_cache_free(k);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("arena");
  TCase *tc = tcase_create("chunk cache");
  tcase_add_test(tc, chunk_given_back_is_taken_again);
  tcase_add_test(tc, big_chunk_is_split);
  tcase_add_test(tc, cache_follows_demand);
  tcase_add_test(tc, arenas_share_chunks);
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
