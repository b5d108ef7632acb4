/* expr.c — a recursive-descent parser and evaluator for integer
 * expressions: + - * / % with precedence, unary minus and !, comparison
 * and logical operators with short-circuit, parentheses, variables
 * assigned with '=', and error reporting with a position. */
#include <ctype.h>
#include <string.h>
#include "common.h"

static const char *src, *pos;
static int err;
static int64_t vars[26];

static void skip(void) {
  while (*pos == ' ') pos++;
}
static int accept(const char *op) {
  skip();
  size_t n = strlen(op);
  if (strncmp(pos, op, n) == 0) {
    pos += n;
    return 1;
  }
  return 0;
}
static void fail(void) {
  if (!err) err = (int)(pos - src) + 1;
}

static int64_t expr(void);
static int64_t primary(void) {
  skip();
  if (err) return 0;
  if (accept("(")) {
    int64_t v = expr();
    if (!accept(")")) fail();
    return v;
  }
  if (accept("-")) return -primary();
  if (accept("!")) return !primary();
  if (isdigit((unsigned char)*pos)) {
    int64_t v = 0;
    while (isdigit((unsigned char)*pos)) v = v * 10 + (*pos++ - '0');
    return v;
  }
  if (*pos >= 'a' && *pos <= 'z') {
    int v = *pos++ - 'a';
    if (accept("=") && *pos != '=') return vars[v] = expr();
    if (pos[-1] == '=') pos--; /* it was "==": give it back */
    return vars[v];
  }
  fail();
  return 0;
}
static int64_t term(void) {
  int64_t v = primary();
  for (;;) {
    if (accept("*")) v *= primary();
    else if (accept("/")) {
      int64_t d = primary();
      if (d == 0) { fail(); return 0; }
      v /= d;
    } else if (accept("%")) {
      int64_t d = primary();
      if (d == 0) { fail(); return 0; }
      v %= d;
    } else return v;
  }
}
static int64_t sum(void) {
  int64_t v = term();
  for (;;) {
    if (accept("+")) v += term();
    else if (accept("-")) v -= term();
    else return v;
  }
}
static int64_t cmp(void) {
  int64_t v = sum();
  for (;;) {
    if (accept("<=")) v = v <= sum();
    else if (accept(">=")) v = v >= sum();
    else if (accept("<")) v = v < sum();
    else if (accept(">")) v = v > sum();
    else if (accept("==")) v = v == sum();
    else if (accept("!=")) v = v != sum();
    else return v;
  }
}
static int64_t land(void) {
  int64_t v = cmp();
  while (accept("&&")) {
    int64_t r = cmp();
    v = v && r;
  }
  return v;
}
static int64_t expr(void) {
  int64_t v = land();
  while (accept("||")) {
    int64_t r = land();
    v = v || r;
  }
  return v;
}

int main(void) {
  const char *lines[] = {
      "1 + 2 * 3", "(1 + 2) * 3", "100 / 7 % 5", "-(-(-4)) * 2", "a = 6 * 7", "b = a - 2", "a * b - a / b",
      "a > b && b > 0", "!(a == 42) || 0", "x = y = 5", "x + y == 10", "2 * (3 + 4) * (5 - 6) / 7",
      "1 / 0", "3 + * 4", "(1 + 2", "c = 1000000 * 1000000", "c / 999983 % 1000", "7 <= 7 && 7 >= 8 || 1 != 2",
      "z", "q = (a + b + c) % 97", "((((((((((1))))))))))+2",
  };
  int errors = 0;
  for (unsigned i = 0; i < sizeof lines / sizeof *lines; i++) {
    src = pos = lines[i];
    err = 0;
    int64_t v = expr();
    skip();
    if (!err && *pos) fail();
    if (err) {
      printf("%-28s error at column %d\n", lines[i], err);
      errors++;
      ck((uint32_t)err);
    } else {
      printf("%-28s = %" PRId64 "\n", lines[i], v);
      ck64((uint64_t)v);
    }
  }
  ck_print("expr");
  return errors;
}
