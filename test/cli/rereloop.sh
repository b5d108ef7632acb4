#!/usr/bin/env bash
# rereloop.sh — --rereloop keeps what a C program does. A WASI program
# (recursion, a switch state machine, function pointers, strings, printf)
# is compiled with clang at -O0, -O2 and -Os in the test run; after
# tilt-opt --rereloop and --rereloop -O2 it must print what the native gcc
# build prints (or, without gcc, what the unoptimized module prints) and
# exit the same, under the JIT and the interpreter. At -O0 every program
# used to print nothing: musl's printf_core tees a local in a br_if
# condition, and jump threading took the local's value from before it.
. "$(dirname "$0")/common.inc"
[ -n "${TILT_RUN:-}" ] || { echo "SKIP: tilt-run is not built"; exit 77; }
need clang

cat > prog.c <<'C'
#include <stdio.h>
#include <string.h>

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static int add(int a, int b) { return a + b; }
static int mul(int a, int b) { return a * b; }
static int sub(int a, int b) { return a - b; }

/* counts words, numbers and punctuation of s with a state machine */
static void scan(const char *s, int *words, int *nums, int *punct) {
  enum { OUT, WORD, NUM } st = OUT;
  for (;; s++) {
    char c = *s;
    switch (st) {
    case OUT:
      if (c >= '0' && c <= '9') { st = NUM; ++*nums; }
      else if ((c | 32) >= 'a' && (c | 32) <= 'z') { st = WORD; ++*words; }
      else if (c && c != ' ') ++*punct;
      break;
    case WORD:
      if (!((c | 32) >= 'a' && (c | 32) <= 'z')) { st = OUT; s--; }
      break;
    case NUM:
      if (!(c >= '0' && c <= '9')) { st = OUT; s--; }
      break;
    }
    if (!c) break;
  }
}

int main(int argc, char **argv) {
  (void)argv;
  int (*ops[])(int, int) = {add, mul, sub};
  int acc = argc;
  for (int i = 1; i < 40; i++) acc = ops[i % 3](acc, i) % 100003;
  char buf[64];
  strcpy(buf, "rereloop");
  size_t n = strlen(buf);
  for (size_t i = 0; i < n / 2; i++) { char t = buf[i]; buf[i] = buf[n - 1 - i]; buf[n - 1 - i] = t; }
  int w = 0, d = 0, p = 0;
  scan("Hello, world: 42 apples and 7 pears; done.", &w, &d, &p);
  printf("fib=%d acc=%d rev=%s scan=%d/%d/%d\n", fib(20), acc, buf, w, d, p);
  printf("%5.2f|%-4s|%x|%c\n", 2.5 * acc / 1000, "ab", 48879u, 'Z');
  return acc % 7;
}
C

for lvl in O0 O2 Os; do
  if ! clang --target=wasm32-wasi --sysroot=/usr -$lvl -w prog.c -o prog-$lvl.wasm 2>cc.log; then
    echo "SKIP: cannot compile C for wasm32-wasi (need clang, lld, wasi-libc): $(head -c 300 cc.log)"
    exit 77
  fi
done
if command -v gcc >/dev/null && gcc -O1 -w prog.c -o prog.native; then
  ref=native; want=$(./prog.native); want_rc=$?
else
  ref=unoptimized; want=$("$TILT_RUN" --interp prog-O0.wasm); want_rc=$?
fi
check_sh "the program prints something ($ref)" 'test -n "$want"'
for lvl in O0 O2 Os; do
  for flags in "--rereloop" "--rereloop -O2"; do
    if ! "$TILT_OPT" $flags prog-$lvl.wasm -o out.wasm 2>opt.log; then
      fail "$lvl tilt-opt $flags: $(head -c 500 opt.log)"
      continue
    fi
    for engine in "" --interp; do
      got=$("$TILT_RUN" $engine out.wasm 2>run.log); rc=$?
      if [ "$got" = "$want" ] && [ $rc = $want_rc ]; then pass "$lvl $flags ${engine:-(JIT)}: same output as $ref"
      else fail "$lvl $flags ${engine:-(JIT)}: status $rc, output [$got] $(head -c 300 run.log); want status $want_rc, [$want] ($ref)"; fi
    done
  done
done
finish
