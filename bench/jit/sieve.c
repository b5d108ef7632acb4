/* sieve.c — sieve of Eratosthenes over a byte array, repeated. */
#include <stdio.h>
#include <string.h>
#define N 4000000
static unsigned char flags[N + 1];
int main(void) {
  unsigned total = 0;
  for (int rep = 0; rep < 30; rep++) {
    memset(flags, 1, sizeof flags);
    unsigned count = 0;
    for (int i = 2; i <= N; i++)
      if (flags[i]) {
        count++;
        for (int k = i + i; k <= N; k += i) flags[k] = 0;
      }
    total += count;
  }
  printf("sieve %u\n", total);
  return 0;
}
