/* gotos.c — unstructured control flow: Duff's device copying with an
 * unrolled switch into a loop, gotos that jump into the middle of a loop
 * (irreducible control flow), a retry/cleanup goto ladder, a switch with
 * dense, sparse and fall-through cases, and a loop exited from a nested
 * switch by goto. */
#include <string.h>
#include "common.h"

static void duff(uint8_t *to, const uint8_t *from, int count) {
  int n = (count + 7) / 8;
  if (!count) return;
  switch (count % 8) {
  case 0: do { *to++ = *from++;
  case 7: *to++ = *from++;
  case 6: *to++ = *from++;
  case 5: *to++ = *from++;
  case 4: *to++ = *from++;
  case 3: *to++ = *from++;
  case 2: *to++ = *from++;
  case 1: *to++ = *from++;
          } while (--n > 0);
  }
}

/* Two loop headers entered from outside: jump into either half. */
static uint32_t irreducible(uint32_t x, int start_in_b) {
  uint32_t acc = 0;
  int n = 0;
  if (start_in_b) goto b;
a:
  acc = acc * 3 + x;
  x ^= x << 3;
  if (++n > 40) goto out;
b:
  acc ^= x >> 2;
  x += 0x9e37u;
  if (x & 4) goto a;
  if (++n > 40) goto out;
  goto b;
out:
  return acc ^ (uint32_t)n;
}

static int ladder(int fail_at, int *cleaned) {
  int step = 0, rc = 0;
  if (fail_at == 0) { rc = -1; goto out0; }
  step++;
  if (fail_at == 1) { rc = -2; goto out1; }
  step++;
  if (fail_at == 2) { rc = -3; goto out2; }
  step++;
  rc = step;
  *cleaned += 100;
out2:
  *cleaned += 10;
out1:
  *cleaned += 1;
out0:
  return rc * 1000 + step;
}

static int32_t classify(int32_t v) {
  int32_t r = 0;
  switch (v) {
  case 0: r += 1; /* fall through */
  case 1: r += 2; /* fall through */
  case 2: r += 4; break;
  case 3: case 4: case 5: r = 40; break;
  case 6: r = 60; break;
  case 7: r = 70; /* fall through */
  case 8: r += 8; break;
  case 100: r = 1000; break;
  case 1000: r = 7; break;
  case -1: r = -10; break;
  case 65536: r = 16; break;
  case 0x7fffffff: r = 31; break;
  case -2147483647 - 1: r = -31; break;
  default: r = v % 13;
  }
  return r;
}

static int find_pair(const int32_t *a, int n, int32_t target, int *i_out, int *j_out) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      switch ((a[i] + a[j] > target) - (a[i] + a[j] < target)) {
      case 0: *i_out = i, *j_out = j; goto found;
      case 1: if (j > i + 5) goto give_up; break;
      default: break;
      }
    }
give_up:
  return 0;
found:
  return 1;
}

int main(void) {
  uint8_t src[100], dst[100];
  for (int i = 0; i < 100; i++) src[i] = (uint8_t)(i * 7 + 3);
  for (int c = 0; c <= 20; c++) {
    memset(dst, 0, sizeof dst);
    duff(dst, src + c, 3 * c + 1);
    uint32_t h = 0;
    for (int i = 0; i < 100; i++) h = h * 31 + dst[i];
    ck(h);
  }
  printf("duff %08" PRIx32 "\n", ck_state);
  for (uint32_t x = 1; x < 2000; x += 173) {
    uint32_t a = irreducible(x, 0), b = irreducible(x, 1);
    printf("irreducible(%" PRIu32 ") = %08" PRIx32 " %08" PRIx32 "\n", x, a, b);
    ck(a + b);
  }
  int cleaned = 0;
  for (int f = 0; f < 4; f++) printf("ladder(%d) = %d\n", f, ladder(f, &cleaned));
  printf("cleaned %d\n", cleaned);
  int32_t vals[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 1000, -1, 65536, 2147483647, -2147483647 - 1, 12345, -77};
  for (unsigned i = 0; i < sizeof vals / sizeof *vals; i++) {
    int32_t r = classify(vals[i]);
    printf("%" PRId32 "%s", r, i + 1 < sizeof vals / sizeof *vals ? " " : "\n");
    ck((uint32_t)r);
  }
  int32_t arr[30];
  for (int i = 0; i < 30; i++) arr[i] = (int32_t)(i * i % 37);
  for (int32_t t = 10; t < 70; t += 11) {
    int i = -1, j = -1, ok = find_pair(arr, 30, t, &i, &j);
    printf("pair for %" PRId32 ": %d (%d, %d)\n", t, ok, i, j);
    ck((uint32_t)(ok * 10000 + i * 100 + j));
  }
  ck_print("gotos");
  return 0;
}
