/* varargs.c — variadic functions: a small formatter over va_list with
 * ints, 64-bit ints, doubles, strings and chars, va_copy for a second
 * pass, sums of mixed argument lists, and vsnprintf. */
#include <stdarg.h>
#include <string.h>
#include "common.h"

static int32_t sum_ints(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int32_t s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, int32_t);
  va_end(ap);
  return s;
}

static double mean(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, double);
  va_end(ap);
  return n ? s / n : 0;
}

/* format: i = int32, L = int64, d = double, s = string, c = char */
static uint32_t mixed(const char *fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  uint32_t h = 0;
  for (const char *f = fmt; *f; f++) {
    switch (*f) {
    case 'i': h = h * 31 + (uint32_t)va_arg(ap, int32_t); break;
    case 'L': h = h * 31 + (uint32_t)(va_arg(ap, int64_t) >> 7); break;
    case 'd': h = h * 31 + (uint32_t)(int32_t)(va_arg(ap, double) * 100); break;
    case 's': for (const char *s = va_arg(ap, const char *); *s; s++) h = h * 31 + (uint8_t)*s; break;
    case 'c': h = h * 31 + (uint32_t)va_arg(ap, int); break;
    }
  }
  va_end(ap);
  int count = 0;
  for (const char *f = fmt; *f; f++) {
    switch (*f) {
    case 'i': (void)va_arg(again, int32_t); break;
    case 'L': (void)va_arg(again, int64_t); break;
    case 'd': (void)va_arg(again, double); break;
    case 's': count += (int)strlen(va_arg(again, const char *)); break;
    case 'c': (void)va_arg(again, int); break;
    }
  }
  va_end(again);
  printf("mixed(%s) = %08" PRIx32 " (%d string bytes)\n", fmt, h, count);
  return h;
}

static char outbuf[512];
static int outlen;
static void emit(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(outbuf + outlen, sizeof outbuf - (unsigned)outlen, fmt, ap);
  va_end(ap);
  if (n > 0) outlen += n;
}

static int64_t forward(int depth, int n, va_list ap) {
  if (depth > 0) return forward(depth - 1, n, ap);
  int64_t s = 0;
  for (int i = 0; i < n; i++) s = s * 3 + va_arg(ap, int64_t);
  return s;
}
static int64_t forward_start(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int64_t r = forward(3, n, ap);
  va_end(ap);
  return r;
}

int main(void) {
  int32_t s = sum_ints(10, 1, -2, 3, -4, 5, 600, -700, 800, 2147483, -9);
  printf("sum_ints %" PRId32 "\n", s);
  ck((uint32_t)s);
  printf("mean %.6f\n", mean(5, 1.5, 2.25, -3.0, 100.125, 7.0));
  ck(mixed("iLdsc", (int32_t)-5, (int64_t)0x123456789abcll, 3.14159, "hello", 'x'));
  ck(mixed("ssdLi", "a", "longer string", -2.5, (int64_t)-1, (int32_t)77));
  ck(mixed("", 0));
  ck(mixed("dddddddd", 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.5));
  for (int i = 0; i < 6; i++) emit("[%d:%s:%.2f]", i, i % 2 ? "odd" : "even", i * 1.25);
  emit(" %" PRId64 " %c%c", (int64_t)-9000000000ll, 'o', 'k');
  printf("%s\n", outbuf);
  ck((uint32_t)outlen);
  int64_t f = forward_start(5, (int64_t)1, (int64_t)-2, (int64_t)3000000000ll, (int64_t)4, (int64_t)5);
  printf("forward %" PRId64 "\n", f);
  ck64((uint64_t)f);
  ck_print("varargs");
  return 0;
}
