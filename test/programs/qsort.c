/* qsort.c — libc qsort and bsearch with several comparators over an
 * array of records: by integer key, by name (strcmp), by a double, in
 * reverse, and by a composite key; every comparator is a total order
 * (ties broken by the record id), so the order does not depend on which
 * qsort algorithm the C library uses. */
#include <stdlib.h>
#include <string.h>
#include "common.h"

typedef struct { int32_t id, key; double score; char name[12]; } rec;

static int by_key(const void *a, const void *b) {
  const rec *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}
static int by_name(const void *a, const void *b) {
  const rec *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->id > y->id) - (x->id < y->id);
}
static int by_score_desc(const void *a, const void *b) {
  const rec *x = a, *y = b;
  if (x->score != y->score) return x->score < y->score ? 1 : -1;
  return (x->id > y->id) - (x->id < y->id);
}
static int by_composite(const void *a, const void *b) {
  const rec *x = a, *y = b;
  int32_t kx = x->key % 10, ky = y->key % 10;
  if (kx != ky) return kx < ky ? -1 : 1;
  if (x->name[0] != y->name[0]) return x->name[0] < y->name[0] ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}
static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}
static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static rec recs[400];

static uint32_t digest(void) {
  uint32_t h = 0;
  for (int i = 0; i < 400; i++) h = h * 131 + (uint32_t)recs[i].id;
  return h;
}

int main(void) {
  static const char *syll[] = {"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi"};
  for (int i = 0; i < 400; i++) {
    recs[i].id = i;
    recs[i].key = (int32_t)(rng() % 150);
    recs[i].score = (double)(rng() % 1000) / 8.0;
    uint32_t a = rng() % 8, b = rng() % 8, c = rng() % 8; /* sequenced: argument order is unspecified */
    snprintf(recs[i].name, sizeof recs[i].name, "%s%s%s", syll[a], syll[b], syll[c]);
  }
  int (*cmps[])(const void *, const void *) = {by_key, by_name, by_score_desc, by_composite};
  const char *names[] = {"key", "name", "score desc", "composite"};
  int bad = 0;
  for (int c = 0; c < 4; c++) {
    qsort(recs, 400, sizeof(rec), cmps[c]);
    for (int i = 1; i < 400; i++)
      if (cmps[c](&recs[i - 1], &recs[i]) >= 0) bad++;
    printf("by %-10s first id %3" PRId32 " (%s, key %" PRId32 ", score %.3f) last id %3" PRId32 " digest %08" PRIx32 "\n",
           names[c], recs[0].id, recs[0].name, recs[0].key, recs[0].score, recs[399].id, digest());
    ck(digest());
  }
  qsort(recs, 400, sizeof(rec), by_key);
  rec probe = {0};
  int found = 0;
  for (int32_t k = 0; k < 160; k += 9) {
    /* bsearch needs a unique match: look for the smallest id with this key */
    probe.key = k;
    probe.id = -1;
    int lo = 0, hi = 400;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (by_key(&recs[mid], &probe) < 0) lo = mid + 1; else hi = mid;
    }
    if (lo < 400 && recs[lo].key == k) {
      rec *r = bsearch(&recs[lo], recs, 400, sizeof(rec), by_key);
      found += r == &recs[lo];
      ck((uint32_t)recs[lo].id);
    }
  }
  printf("found %d keys by bsearch\n", found);

  int32_t nums[64];
  for (int i = 0; i < 64; i++) nums[i] = (int32_t)(rng() % 100) - 50;
  qsort(nums, 64, sizeof nums[0], cmp_i32);
  int32_t want = nums[17];
  int32_t *hit = bsearch(&want, nums, 64, sizeof nums[0], cmp_i32);
  printf("ints: %" PRId32 " .. %" PRId32 ", bsearch %" PRId32 " -> %s\n", nums[0], nums[63], want,
         hit && *hit == want ? "found" : "missing");
  const char *words[] = {"pear", "apple", "fig", "banana", "cherry", "date", "kiwi", "grape", "lemon", "mango"};
  qsort(words, 10, sizeof words[0], cmp_str);
  for (int i = 0; i < 10; i++) printf("%s%s", words[i], i < 9 ? " " : "\n");
  const char *key = "kiwi";
  const char **w = bsearch(&key, words, 10, sizeof words[0], cmp_str);
  printf("kiwi at %d\n", w ? (int)(w - words) : -1);
  ck_print("qsort");
  return bad;
}
