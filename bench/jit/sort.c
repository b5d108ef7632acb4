/* sort.c — quicksort and insertion sort of pseudo-random integers. */
#include <stdint.h>
#include <stdio.h>
#define N 1000000
static int32_t v[N];
static void qs(int32_t *a, int lo, int hi) {
  while (hi - lo > 16) {
    int32_t p = a[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (a[i] < p) i++;
      while (a[j] > p) j--;
      if (i <= j) { int32_t t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    if (j - lo < hi - i) { qs(a, lo, j); lo = i; } else { qs(a, i, hi); hi = j; }
  }
  for (int i = lo + 1; i <= hi; i++) {
    int32_t x = a[i];
    int k = i - 1;
    while (k >= lo && a[k] > x) { a[k + 1] = a[k]; k--; }
    a[k + 1] = x;
  }
}
int main(void) {
  uint32_t s = 12345, check = 0;
  for (int rep = 0; rep < 10; rep++) {
    for (int i = 0; i < N; i++) { s = s * 1103515245u + 12345u; v[i] = (int32_t)(s >> 1); }
    qs(v, 0, N - 1);
    for (int i = 0; i < N; i += 1000) check = check * 31 + (uint32_t)v[i];
  }
  printf("sort %u\n", check);
  return 0;
}
