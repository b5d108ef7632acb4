/* funcptr.c — function pointers: an operator table, callbacks with a
 * context pointer, a tiny vtable "object system", pointers returned from
 * functions and compared, and a chain of transformations. */
#include <string.h>
#include "common.h"

typedef int32_t (*binop)(int32_t, int32_t);
static int32_t op_add(int32_t a, int32_t b) { return a + b; }
static int32_t op_sub(int32_t a, int32_t b) { return a - b; }
static int32_t op_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
static int32_t op_max(int32_t a, int32_t b) { return a > b ? a : b; }
static int32_t op_xor(int32_t a, int32_t b) { return a ^ b; }
static const binop ops[] = {op_add, op_sub, op_mul, op_max, op_xor};
static const char *op_names[] = {"add", "sub", "mul", "max", "xor"};

static int32_t fold(const int32_t *v, int n, binop f, int32_t init) {
  for (int i = 0; i < n; i++) init = f(init, v[i]);
  return init;
}

typedef void (*visitor)(void *ctx, int32_t v);
static void each(const int32_t *v, int n, visitor f, void *ctx) {
  for (int i = 0; i < n; i++) f(ctx, v[i]);
}
struct stats { int32_t min, max, count; int64_t sum; };
static void collect(void *ctx, int32_t v) {
  struct stats *s = ctx;
  if (s->count == 0 || v < s->min) s->min = v;
  if (s->count == 0 || v > s->max) s->max = v;
  s->sum += v;
  s->count++;
}
static void hash_it(void *ctx, int32_t v) { *(uint32_t *)ctx = (*(uint32_t *)ctx ^ (uint32_t)v) * 0x01000193u; }

struct shape;
struct shape_ops {
  const char *name;
  int32_t (*area)(const struct shape *);
  int32_t (*perimeter)(const struct shape *);
  void (*scale)(struct shape *, int32_t);
};
struct shape { const struct shape_ops *ops; int32_t a, b; };
static int32_t rect_area(const struct shape *s) { return s->a * s->b; }
static int32_t rect_perim(const struct shape *s) { return 2 * (s->a + s->b); }
static void rect_scale(struct shape *s, int32_t k) { s->a *= k; s->b *= k; }
static int32_t sq_area(const struct shape *s) { return s->a * s->a; }
static int32_t sq_perim(const struct shape *s) { return 4 * s->a; }
static void sq_scale(struct shape *s, int32_t k) { s->a *= k; }
static int32_t tri_area(const struct shape *s) { return s->a * s->b / 2; }
static int32_t tri_perim(const struct shape *s) { return s->a + s->b + (s->a > s->b ? s->a : s->b); }
static const struct shape_ops rect_ops = {"rect", rect_area, rect_perim, rect_scale};
static const struct shape_ops sq_ops = {"square", sq_area, sq_perim, sq_scale};
static const struct shape_ops tri_ops = {"triangle", tri_area, tri_perim, rect_scale};

static int32_t inc(int32_t x) { return x + 1; }
static int32_t dbl(int32_t x) { return x * 2; }
static int32_t neg(int32_t x) { return -x; }
static int32_t sqr(int32_t x) { return (int32_t)((uint32_t)x * (uint32_t)x); }
typedef int32_t (*unop)(int32_t);
static unop pick(int i) {
  switch (i % 4) {
  case 0: return inc;
  case 1: return dbl;
  case 2: return neg;
  default: return sqr;
  }
}

int main(void) {
  int32_t v[16];
  for (int i = 0; i < 16; i++) v[i] = (int32_t)(rng() % 2001) - 1000;
  for (int i = 0; i < 5; i++) {
    int32_t r = fold(v, 16, ops[i], i == 2 ? 1 : 0);
    printf("fold %s = %" PRId32 "\n", op_names[i], r);
    ck((uint32_t)r);
  }
  struct stats st;
  memset(&st, 0, sizeof st);
  each(v, 16, collect, &st);
  uint32_t h = 2166136261u;
  each(v, 16, hash_it, &h);
  printf("min %" PRId32 " max %" PRId32 " sum %" PRId64 " hash %08" PRIx32 "\n", st.min, st.max, st.sum, h);
  ck(h);

  struct shape shapes[6] = {{&rect_ops, 3, 4}, {&sq_ops, 5, 0}, {&tri_ops, 6, 8},
                            {&sq_ops, 2, 0}, {&rect_ops, 7, 1}, {&tri_ops, 3, 3}};
  for (int i = 0; i < 6; i++) {
    struct shape *s = &shapes[i];
    s->ops->scale(s, i + 1);
    printf("%s area %" PRId32 " perimeter %" PRId32 "\n", s->ops->name, s->ops->area(s), s->ops->perimeter(s));
    ck((uint32_t)s->ops->area(s));
  }

  int32_t x = 3;
  for (int i = 0; i < 12; i++) {
    unop f = pick((int)(rng() % 97));
    x = f(x) % 100000;
    if (f == neg) ck(0xdead);
    ck((uint32_t)x);
  }
  printf("chain result %" PRId32 "\n", x);
  binop volatile_pick = ops[(uint32_t)x % 5];
  printf("picked %s\n", volatile_pick == op_add ? "add" : volatile_pick == op_mul ? "mul" : "other");
  ck_print("funcptr");
  return 0;
}
