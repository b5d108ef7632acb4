/* structs.c — aggregates: structs passed and returned by value, arrays of
 * structs, nested structs, unions read back through memcpy, bit-fields
 * (unsigned, in one 32-bit unit), flexible array members on the heap, and
 * compound literals. */
#include <stdlib.h>
#include <string.h>
#include "common.h"

typedef struct { int32_t x, y; } vec2;
typedef struct { vec2 min, max; } box;
typedef struct { double re, im; } cplx;
typedef struct { uint8_t tag; int64_t big; uint16_t small; } padded;
typedef struct { uint32_t kind : 3, flag : 1, count : 12, code : 16; } packed_bits;
typedef struct { uint32_t n; int32_t items[]; } flex;

static vec2 vadd(vec2 a, vec2 b) { return (vec2){a.x + b.x, a.y + b.y}; }
static vec2 vscale(vec2 a, int32_t k) { a.x *= k, a.y *= k; return a; }
static box bound(box b, vec2 p) {
  if (p.x < b.min.x) b.min.x = p.x;
  if (p.y < b.min.y) b.min.y = p.y;
  if (p.x > b.max.x) b.max.x = p.x;
  if (p.y > b.max.y) b.max.y = p.y;
  return b;
}
static cplx cmul(cplx a, cplx b) { return (cplx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
static padded make_padded(int i) { return (padded){(uint8_t)i, (int64_t)i * -1000000007ll, (uint16_t)(i * 999)}; }

int main(void) {
  vec2 p = {3, -4};
  box b = {{0, 0}, {0, 0}};
  for (int i = 0; i < 50; i++) {
    int32_t dx = (int32_t)(rng() % 21) - 10, dy = (int32_t)(rng() % 21) - 10;
    p = vadd(vscale(p, -1), (vec2){dx, dy});
    b = bound(b, p);
    ck((uint32_t)p.x ^ (uint32_t)p.y << 16);
  }
  printf("walk ends at (%" PRId32 ", %" PRId32 "), box (%" PRId32 ",%" PRId32 ")-(%" PRId32 ",%" PRId32 ")\n", p.x, p.y,
         b.min.x, b.min.y, b.max.x, b.max.y);

  cplx z = {1, 0}, w = {0.6, 0.8};
  for (int i = 0; i < 10; i++) z = cmul(z, w);
  printf("rotation^10 = %.6f %+.6fi\n", z.re, z.im);

  padded arr[5];
  for (int i = 0; i < 5; i++) arr[i] = make_padded(i + 1);
  int64_t s = 0;
  for (int i = 0; i < 5; i++) s += arr[i].big + arr[i].tag + arr[i].small;
  printf("padded sum %" PRId64 "\n", s);
  ck64((uint64_t)s);

  union { float f; uint32_t u; uint8_t b[4]; } un;
  un.f = -2.75f;
  uint32_t bits;
  memcpy(&bits, &un.f, 4);
  printf("float bits %08" PRIx32 " via union %08" PRIx32 " low byte %02x\n", bits, un.u, un.b[0]);
  double d = 1.0 / 3.0;
  uint64_t dbits;
  memcpy(&dbits, &d, 8);
  printf("double bits %016" PRIx64 "\n", dbits);
  ck64(dbits);

  packed_bits pb = {0};
  uint32_t bh = 0;
  for (uint32_t i = 0; i < 100; i++) {
    pb.kind = i;
    pb.flag = !pb.flag;
    pb.count += i * 37;
    pb.code = (uint16_t)(pb.code * 3 + i);
    bh = bh * 31 + pb.kind + pb.flag * 8 + pb.count * 16 + pb.code;
  }
  printf("bitfields kind %u flag %u count %u code %u hash %08" PRIx32 "\n", (unsigned)pb.kind, (unsigned)pb.flag,
         (unsigned)pb.count, (unsigned)pb.code, bh);
  ck(bh);

  flex *f = malloc(sizeof(flex) + 64 * sizeof(int32_t));
  f->n = 64;
  for (uint32_t i = 0; i < f->n; i++) f->items[i] = (int32_t)(i * i) - 500;
  int32_t fs = 0;
  for (uint32_t i = 0; i < f->n; i++) fs += f->items[i];
  printf("flex sum %" PRId32 "\n", fs);
  free(f);
  ck((uint32_t)fs);

  box copy = b, *bp = &copy;
  bp->min = (vec2){-1, -1};
  printf("copies independent: %d\n", b.min.x != copy.min.x || b.min.y != copy.min.y);
  struct { char name[8]; vec2 pts[3]; } shape = {"tri", {{0, 0}, {4, 0}, {0, 3}}}, shape2;
  shape2 = shape;
  shape2.pts[1].x = 40;
  int32_t area2 = shape2.pts[1].x * shape2.pts[2].y - shape2.pts[2].x * shape2.pts[1].y;
  printf("%s area*2 %" PRId32 " original x %" PRId32 "\n", shape2.name, area2, shape.pts[1].x);
  ck((uint32_t)area2);
  ck_print("structs");
  return 0;
}
