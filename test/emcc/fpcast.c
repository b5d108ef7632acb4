/* fpcast.c — built with -sEMULATE_FUNCTION_POINTER_CASTS (test/cli/emcc.sh):
 * calls through function pointers cast to other signatures, which trap in
 * wasm without wasm-opt --fpcast-emu. fpcast.out is what the Binaryen build
 * prints (natively these calls are undefined behaviour). */
#include <stdio.h>
typedef int (*fn2)(int, int);
typedef void (*fnv)(void);
typedef double (*fnd)(double);
static int add3(int a, int b, int c) { return a + b + c; }
static int one(int a) { return a * 10; }
static void say(const char *s) { printf("say %s\n", s ? s : "(null)"); }
static double half(double x) { return x / 2; }
static float twice(float x) { return x * 2; }
int main(void) {
  fn2 f = (fn2)add3;            /* a missing argument reads as 0 */
  printf("add3 %d\n", f(1, 2));
  f = (fn2)one;                 /* an extra argument is ignored */
  printf("one %d\n", f(4, 5));
  fnv v = (fnv)say;
  ((void (*)(const char *))v)("hi");
  fnd d = half;
  printf("half %.2f\n", d(5.0));
  float (*t)(float) = twice;
  printf("twice %.2f\n", (double)t(1.25f));
  int (*r)(int, int) = (int (*)(int, int))say;  /* result ignored: none reads as 0 */
  r(0, 0);
  return 0;
}
