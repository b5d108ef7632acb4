/* asyncify.c — emcc -sASYNCIFY (test/cli/emcc.sh): emscripten_sleep unwinds and
 * rewinds the stack in a loop, in recursion and behind a function pointer, with
 * double, long long and float locals live across the pauses. */
#include <stdio.h>
#include <emscripten.h>
static int depth(int n, int acc) {
  if (n == 0) { emscripten_sleep(1); return acc; }
  int r = depth(n - 1, acc * 3 + n);
  return r + n;
}
typedef int (*fn)(int);
static int twice(int x) { emscripten_sleep(0); return x * 2; }
static int plus(int x) { return x + 1; }
fn table[2] = {twice, plus};
int main(int argc, char **argv) {
  double d = 1.5; long long q = 1LL << 40; float f = 0.25f;
  for (int i = 0; i < 5; i++) {
    printf("step %d\n", i);
    emscripten_sleep(i);
    d *= 1.5; q += i; f += 1;
    printf("after %d: %d %.3f %lld %.2f\n", i, depth(i, 1), d, q, f);
    printf("ind %d\n", table[(i + argc) & 1](i));
  }
  return 0;
}
