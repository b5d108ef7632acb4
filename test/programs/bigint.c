/* bigint.c — arbitrary-precision unsigned integers in base 10^9 limbs:
 * add, subtract, multiply (schoolbook), multiply and divide by a small
 * number, comparison, decimal printing; computes 120!, Fibonacci(500),
 * 2^400 and checks (a*b)/b == a and a+b-b == a. */
#include <string.h>
#include "common.h"

#define LIMBS 80
#define BASE 1000000000u
typedef struct { uint32_t d[LIMBS]; int n; } big;

static void set_small(big *a, uint32_t v) {
  memset(a, 0, sizeof *a);
  a->n = 0;
  while (v) a->d[a->n++] = v % BASE, v /= BASE;
}
static void trim(big *a) {
  while (a->n && !a->d[a->n - 1]) a->n--;
}
static void add(big *r, const big *a, const big *b) {
  uint32_t carry = 0;
  int n = a->n > b->n ? a->n : b->n;
  big t = {{0}, 0};
  for (int i = 0; i < n || carry; i++) {
    uint32_t s = carry + (i < a->n ? a->d[i] : 0) + (i < b->n ? b->d[i] : 0);
    t.d[i] = s % BASE;
    carry = s / BASE;
    t.n = i + 1;
  }
  *r = t;
  trim(r);
}
static void sub(big *r, const big *a, const big *b) { /* a >= b */
  int64_t borrow = 0;
  big t = *a;
  for (int i = 0; i < t.n; i++) {
    int64_t s = (int64_t)t.d[i] - borrow - (i < b->n ? b->d[i] : 0);
    borrow = s < 0;
    t.d[i] = (uint32_t)(s + (borrow ? BASE : 0));
  }
  *r = t;
  trim(r);
}
static void mul(big *r, const big *a, const big *b) {
  uint64_t acc[2 * LIMBS] = {0};
  for (int i = 0; i < a->n; i++)
    for (int j = 0; j < b->n; j++) {
      acc[i + j] += (uint64_t)a->d[i] * b->d[j];
      if (acc[i + j] >= 16ull * BASE * BASE) { /* keep room: push the carry on early */
        acc[i + j + 1] += acc[i + j] / BASE;
        acc[i + j] %= BASE;
      }
    }
  big t = {{0}, 0};
  uint64_t carry = 0;
  for (int i = 0; i < a->n + b->n + 1 && i < LIMBS; i++) {
    uint64_t v = acc[i] + carry;
    t.d[i] = (uint32_t)(v % BASE);
    carry = v / BASE;
    t.n = i + 1;
  }
  *r = t;
  trim(r);
}
static void mul_small(big *a, uint32_t m) {
  uint64_t carry = 0;
  for (int i = 0; i < a->n; i++) {
    uint64_t v = (uint64_t)a->d[i] * m + carry;
    a->d[i] = (uint32_t)(v % BASE);
    carry = v / BASE;
  }
  while (carry) a->d[a->n++] = (uint32_t)(carry % BASE), carry /= BASE;
}
static uint32_t div_small(big *a, uint32_t m) {
  uint64_t rem = 0;
  for (int i = a->n - 1; i >= 0; i--) {
    uint64_t v = rem * BASE + a->d[i];
    a->d[i] = (uint32_t)(v / m);
    rem = v % m;
  }
  trim(a);
  return (uint32_t)rem;
}
static int cmp(const big *a, const big *b) {
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (int i = a->n - 1; i >= 0; i--)
    if (a->d[i] != b->d[i]) return a->d[i] < b->d[i] ? -1 : 1;
  return 0;
}
static void print(const char *label, const big *a) {
  printf("%s = ", label);
  if (!a->n) printf("0");
  else {
    printf("%" PRIu32, a->d[a->n - 1]);
    for (int i = a->n - 2; i >= 0; i--) printf("%09" PRIu32, a->d[i]);
  }
  printf("\n");
  for (int i = 0; i < a->n; i++) ck(a->d[i]);
}

int main(void) {
  big f, x, y, z, t;
  set_small(&f, 1);
  for (uint32_t i = 2; i <= 120; i++) mul_small(&f, i);
  print("120!", &f);
  set_small(&x, 0);
  set_small(&y, 1);
  for (int i = 0; i < 500; i++) {
    add(&z, &x, &y);
    x = y;
    y = z;
  }
  print("fib(500)", &x);
  set_small(&t, 2);
  set_small(&z, 1);
  for (int e = 400, bit = 0; e; e >>= 1, bit++) {
    if (e & 1) mul(&z, &z, &t);
    mul(&t, &t, &t);
  }
  print("2^400", &z);
  big p;
  mul(&p, &f, &x);
  big q = p;
  uint32_t digsum = 0;
  while (q.n) digsum += div_small(&q, 10);
  printf("digit sum of 120! * fib(500) = %" PRIu32 "\n", digsum);
  ck(digsum);
  big back = p;
  uint32_t rem = div_small(&back, 7);
  printf("(120! * fib(500)) mod 7 = %" PRIu32 "\n", rem);
  big s, d;
  add(&s, &f, &z);
  sub(&d, &s, &z);
  int ok = cmp(&d, &f) == 0 && cmp(&s, &f) > 0 && cmp(&z, &s) < 0;
  set_small(&y, 999999937);
  mul(&s, &x, &y);
  for (int i = 0; i < 1; i++) div_small(&s, 999999937);
  ok = ok && cmp(&s, &x) == 0;
  printf("identities %s\n", ok ? "hold" : "FAIL");
  ck_print("bigint");
  return !ok;
}
