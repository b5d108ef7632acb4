/* sorts.c — several sorting algorithms on the same pseudo-random data:
 * bubble, insertion, selection, shell, merge (top-down, with a buffer),
 * quick (median of three, recursive on the smaller side), heap, LSD radix
 * and counting sort; each result is checked against the others. */
#include <stdlib.h>
#include <string.h>
#include "common.h"

#define N 300
typedef void (*sorter)(int32_t *, int);

static void bubble(int32_t *a, int n) {
  for (int i = 0; i < n; i++) {
    int swapped = 0;
    for (int j = 0; j + 1 < n - i; j++)
      if (a[j] > a[j + 1]) {
        int32_t t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
        swapped = 1;
      }
    if (!swapped) break;
  }
}
static void insertion(int32_t *a, int n) {
  for (int i = 1; i < n; i++) {
    int32_t v = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > v) a[j + 1] = a[j], j--;
    a[j + 1] = v;
  }
}
static void selection(int32_t *a, int n) {
  for (int i = 0; i < n; i++) {
    int m = i;
    for (int j = i + 1; j < n; j++)
      if (a[j] < a[m]) m = j;
    int32_t t = a[i];
    a[i] = a[m];
    a[m] = t;
  }
}
static void shell(int32_t *a, int n) {
  for (int gap = n / 2; gap > 0; gap = gap == 2 ? 1 : gap * 5 / 11)
    for (int i = gap; i < n; i++) {
      int32_t v = a[i];
      int j = i;
      for (; j >= gap && a[j - gap] > v; j -= gap) a[j] = a[j - gap];
      a[j] = v;
    }
}
static int32_t tmp[N];
static void merge_rec(int32_t *a, int lo, int hi) {
  if (hi - lo < 2) return;
  int mid = (lo + hi) / 2;
  merge_rec(a, lo, mid);
  merge_rec(a, mid, hi);
  int i = lo, j = mid, k = lo;
  while (i < mid && j < hi) tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
  while (i < mid) tmp[k++] = a[i++];
  while (j < hi) tmp[k++] = a[j++];
  memcpy(a + lo, tmp + lo, (size_t)(hi - lo) * sizeof *a);
}
static void merge(int32_t *a, int n) { merge_rec(a, 0, n); }
static void quick(int32_t *a, int n) {
  while (n > 8) {
    int32_t x = a[0], y = a[n / 2], z = a[n - 1];
    int32_t p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
    int i = 0, j = n - 1;
    for (;;) {
      while (a[i] < p) i++;
      while (a[j] > p) j--;
      if (i >= j) break;
      int32_t t = a[i];
      a[i] = a[j];
      a[j] = t;
      i++, j--;
    }
    int left = j + 1;
    if (left < n - left) {
      quick(a, left);
      a += left, n -= left;
    } else {
      quick(a + left, n - left);
      n = left;
    }
  }
  insertion(a, n);
}
static void sift(int32_t *a, int i, int n) {
  for (;;) {
    int l = 2 * i + 1, m = i;
    if (l < n && a[l] > a[m]) m = l;
    if (l + 1 < n && a[l + 1] > a[m]) m = l + 1;
    if (m == i) return;
    int32_t t = a[i];
    a[i] = a[m];
    a[m] = t;
    i = m;
  }
}
static void heap(int32_t *a, int n) {
  for (int i = n / 2 - 1; i >= 0; i--) sift(a, i, n);
  for (int e = n - 1; e > 0; e--) {
    int32_t t = a[0];
    a[0] = a[e];
    a[e] = t;
    sift(a, 0, e);
  }
}
static void radix(int32_t *a, int n) {
  for (int shift = 0; shift < 32; shift += 8) {
    uint32_t count[257] = {0};
    for (int i = 0; i < n; i++) count[(((uint32_t)a[i] ^ 0x80000000u) >> shift & 255) + 1]++;
    for (int b = 0; b < 256; b++) count[b + 1] += count[b];
    for (int i = 0; i < n; i++) tmp[count[((uint32_t)a[i] ^ 0x80000000u) >> shift & 255]++] = a[i];
    memcpy(a, tmp, (size_t)n * sizeof *a);
  }
}
static void counting(int32_t *a, int n) { /* values are known to lie in [-5000, 5000) */
  static uint16_t cnt[10000];
  memset(cnt, 0, sizeof cnt);
  for (int i = 0; i < n; i++) cnt[a[i] + 5000]++;
  int k = 0;
  for (int v = 0; v < 10000; v++)
    while (cnt[v]--) a[k++] = v - 5000;
}

static int32_t data[N], work[N], ref[N];

int main(void) {
  sorter sorts[] = {bubble, insertion, selection, shell, merge, quick, heap, radix, counting};
  const char *names[] = {"bubble", "insertion", "selection", "shell", "merge", "quick", "heap", "radix", "counting"};
  int bad = 0;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < N; i++) {
      switch (round) {
      case 0: data[i] = (int32_t)(rng() % 10000) - 5000; break;
      case 1: data[i] = (int32_t)(i * 37 % 101) - 50; break; /* many duplicates */
      default: data[i] = N - i - 2500; break;                /* reversed */
      }
    }
    for (int s = 0; s < 9; s++) {
      memcpy(work, data, sizeof work);
      sorts[s](work, N);
      if (s == 0) memcpy(ref, work, sizeof ref);
      int sorted = 1;
      for (int i = 1; i < N; i++)
        if (work[i - 1] > work[i]) sorted = 0;
      int same = memcmp(work, ref, sizeof ref) == 0;
      if (!sorted || !same) {
        printf("round %d: %s: sorted %d same %d\n", round, names[s], sorted, same);
        bad++;
      }
    }
    uint32_t h = 0;
    for (int i = 0; i < N; i++) h = h * 31 + (uint32_t)ref[i];
    printf("round %d: min %" PRId32 " median %" PRId32 " max %" PRId32 " hash %08" PRIx32 "\n", round, ref[0],
           ref[N / 2], ref[N - 1], h);
    ck(h);
  }
  printf("%d disagreements\n", bad);
  ck_print("sorts");
  return bad;
}
