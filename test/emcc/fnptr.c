/* fnptr.c — function pointers through a table, qsort, setjmp/longjmp,
 * printf of floats, and malloc'd memory that grows. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*binop)(int, int);
static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static int cmp_desc(const void *a, const void *b) { return *(const int *)b - *(const int *)a; }

static jmp_buf env;
static void deep(int n) {
  if (n == 0) longjmp(env, 42);
  deep(n - 1);
}

int main(void) {
  binop ops[] = {add, sub, mul};
  int acc = 1;
  for (int i = 0; i < 12; i++) acc = ops[i % 3](acc, i + 2);
  printf("acc %d\n", acc);
  int n = 1000, *v = malloc(n * sizeof *v);
  for (int i = 0; i < n; i++) v[i] = (i * 7919) % 1009;
  qsort(v, n, sizeof *v, cmp_desc);
  printf("top %d %d %d\n", v[0], v[1], v[2]);
  long sum = 0;
  for (int round = 0; round < 20; round++) {
    char *big = malloc(1 << 20);
    memset(big, round, 1 << 20);
    sum += big[12345];
    free(big);
  }
  printf("sum %ld\n", sum);
  int r = setjmp(env);
  if (!r) deep(10);
  printf("longjmp %d\n", r);
  printf("float %.3f %g\n", 3.14159 * acc, 1e-7 * v[0]);
  free(v);
  return 0;
}
