/* hashtable.c — an open-addressing hash table with linear probing and
 * tombstones, string keys copied with malloc, growth by rehashing, a
 * word-frequency count over generated text, deletions, and an ordered
 * report of the most frequent words. */
#include <stdlib.h>
#include <string.h>
#include "common.h"

typedef struct { char *key; uint32_t hash; int32_t value; uint8_t state; } slot; /* 0 empty 1 used 2 dead */
typedef struct { slot *slots; uint32_t cap, used, dead; } table;

static uint32_t hash_str(const char *s) {
  uint32_t h = 5381;
  while (*s) h = h * 33 ^ (uint8_t)*s++;
  return h;
}
static void insert_slot(table *t, char *key, uint32_t h, int32_t v) {
  uint32_t i = h & (t->cap - 1);
  while (t->slots[i].state == 1) i = (i + 1) & (t->cap - 1);
  t->slots[i] = (slot){key, h, v, 1};
  t->used++;
}
static void grow(table *t) {
  slot *old = t->slots;
  uint32_t oc = t->cap;
  t->cap = oc ? oc * 2 : 16;
  t->slots = calloc(t->cap, sizeof(slot));
  t->used = t->dead = 0;
  for (uint32_t i = 0; i < oc; i++)
    if (old[i].state == 1) insert_slot(t, old[i].key, old[i].hash, old[i].value);
  free(old);
}
static slot *find(table *t, const char *key, uint32_t h) {
  if (!t->cap) return NULL;
  for (uint32_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    slot *s = &t->slots[i];
    if (s->state == 0) return NULL;
    if (s->state == 1 && s->hash == h && !strcmp(s->key, key)) return s;
  }
}
static void add(table *t, const char *key, int32_t delta) {
  uint32_t h = hash_str(key);
  slot *s = find(t, key, h);
  if (s) {
    s->value += delta;
    return;
  }
  if ((t->used + t->dead + 1) * 4 >= t->cap * 3) grow(t);
  size_t n = strlen(key) + 1;
  char *k = malloc(n);
  memcpy(k, key, n);
  insert_slot(t, k, h, delta);
}
static int del(table *t, const char *key) {
  slot *s = find(t, key, hash_str(key));
  if (!s) return 0;
  free(s->key);
  s->key = NULL;
  s->state = 2;
  t->used--;
  t->dead++;
  return 1;
}
static int by_count(const void *a, const void *b) {
  const slot *x = *(const slot *const *)a, *y = *(const slot *const *)b;
  if (x->value != y->value) return x->value < y->value ? 1 : -1;
  return strcmp(x->key, y->key);
}

int main(void) {
  static const char *onsets[] = {"b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "st", "tr"};
  static const char *vowels[] = {"a", "e", "i", "o", "u", "ai", "ee"};
  table t = {0};
  char word[32];
  for (int i = 0; i < 3000; i++) {
    uint32_t r = rng(), syl = 1 + (r % 3 == 0) + (r % 11 == 0);
    word[0] = 0;
    for (uint32_t s = 0; s < syl; s++) {
      /* skewed choice: small indices are more frequent */
      uint32_t a = rng() % 17, b = rng() % 7;
      a = a * a / 17;
      strcat(word, onsets[a]);
      strcat(word, vowels[b * b / 7]);
    }
    add(&t, word, 1);
  }
  printf("distinct words %" PRIu32 " capacity %" PRIu32 "\n", t.used, t.cap);
  int deleted = 0;
  for (int i = 0; i < 17; i++)
    for (int j = 0; j < 7; j += 2) {
      snprintf(word, sizeof word, "%s%s", onsets[i], vowels[j]);
      deleted += del(&t, word);
    }
  add(&t, "zzz", 500);
  add(&t, "zzz", -1);
  printf("deleted %d, now %" PRIu32 " words, %" PRIu32 " tombstones\n", deleted, t.used, t.dead);
  slot **all = malloc(t.used * sizeof *all);
  uint32_t n = 0, total = 0;
  for (uint32_t i = 0; i < t.cap; i++)
    if (t.slots[i].state == 1) all[n++] = &t.slots[i], total += (uint32_t)t.slots[i].value;
  qsort(all, n, sizeof *all, by_count);
  for (uint32_t i = 0; i < 12 && i < n; i++) printf("%-10s %" PRId32 "\n", all[i]->key, all[i]->value);
  for (uint32_t i = 0; i < n; i++) {
    ck(hash_str(all[i]->key));
    ck((uint32_t)all[i]->value);
  }
  printf("total count %" PRIu32 "\n", total);
  free(all);
  for (uint32_t i = 0; i < t.cap; i++) free(t.slots[i].key);
  free(t.slots);
  ck_print("hashtable");
  return 0;
}
