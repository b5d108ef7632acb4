/* loops.c — nested and early-exit loops: a prime sieve, Collatz lengths,
 * triangular sums, do-while and continue/break mixes. */
#include "common.h"

static uint8_t composite[20000];

int main(void) {
  int n = 20000, count = 0;
  for (int i = 2; i * i < n; i++)
    if (!composite[i])
      for (int j = i * i; j < n; j += i) composite[j] = 1;
  for (int i = 2; i < n; i++)
    if (!composite[i]) {
      count++;
      ck((uint32_t)i);
    }
  printf("primes below %d: %d\n", n, count);

  int best = 0, best_len = 0;
  for (int s = 1; s < 3000; s++) {
    uint32_t x = (uint32_t)s;
    int len = 0;
    do {
      x = (x & 1) ? 3 * x + 1 : x / 2;
      len++;
    } while (x != 1);
    if (len > best_len) {
      best_len = len;
      best = s;
    }
  }
  printf("longest collatz below 3000: %d (%d steps)\n", best, best_len);

  uint64_t tri = 0;
  for (int i = 0; i < 300; i++)
    for (int j = 0; j <= i; j++) {
      if ((i + j) % 7 == 3) continue;
      if (j > 250) break;
      tri += (uint64_t)(i * j) ^ (uint64_t)j;
    }
  printf("triangle sum %" PRIu64 "\n", tri);
  ck64(tri);

  int k = 0, w = 0;
  while (1) {
    k++;
    if (k % 3 == 0) continue;
    w += k;
    if (w > 5000) break;
  }
  printf("while: k=%d w=%d\n", k, w);
  ck((uint32_t)(k * 31 + w));

  /* a countdown loop with an unsigned wrap condition */
  uint32_t acc = 0;
  for (uint32_t u = 100; u-- > 0;) acc = acc * 33 + u;
  printf("countdown %" PRIu32 "\n", acc);
  ck(acc);
  ck_print("loops");
  return 0;
}
