/* spectest.c — the "spectest" module the spec test suite imports: print
 * functions (silent unless verbose), four globals holding 666 / 666.6, a
 * funcref table of 10 (max 20) and a 64-bit one (table64), a memory of 1 page (max 2) and a shared
 * memory of 1 page (max 2) for the threads tests. */
#include "host.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static tl_status print(tl_host_call *c, void *user, const tl_value *a, tl_value *r, tl_error *err) {
  (void)c; (void)r; (void)err;
  if (!user) return TL_OK;
  /* the number of args is not passed; print callbacks know their own */
  return TL_OK;
}

#define PRINTER(NAME, N, FMT)                                                              \
  static tl_status NAME(tl_host_call *c, void *user, const tl_value *a, tl_value *r,       \
                        tl_error *err) {                                                   \
    (void)c; (void)r; (void)err;                                                           \
    if (user) for (int i = 0; i < (N); i++) FMT;                                           \
    return TL_OK;                                                                          \
  }
PRINTER(print_i32, 1, printf("spectest.print_i32(%" PRId32 ")\n", a[i].of.i32))
PRINTER(print_i64, 1, printf("spectest.print_i64(%" PRId64 ")\n", a[i].of.i64))
PRINTER(print_f32, 1, printf("spectest.print_f32(0x%08" PRIx32 ")\n", a[i].of.f32))
PRINTER(print_f64, 1, printf("spectest.print_f64(0x%016" PRIx64 ")\n", a[i].of.f64))
PRINTER(print_i32_f32, 1, printf("spectest.print_i32_f32(%" PRId32 ", 0x%08" PRIx32 ")\n",
                                 a[0].of.i32, a[1].of.f32))
PRINTER(print_f64_f64, 1, printf("spectest.print_f64_f64(0x%016" PRIx64 ", 0x%016" PRIx64 ")\n",
                                 a[0].of.f64, a[1].of.f64))

static const tl_host_def defs[] = {
  {"spectest", "print", "", print},
  {"spectest", "print_i32", "i", print_i32},
  {"spectest", "print_i64", "I", print_i64},
  {"spectest", "print_f32", "f", print_f32},
  {"spectest", "print_f64", "F", print_f64},
  {"spectest", "print_i32_f32", "if", print_i32_f32},
  {"spectest", "print_f64_f64", "FF", print_f64_f64},
};

static tl_extern global(tl_store *s, uint32_t type, uint64_t bits) {
  tl_value v;
  memset(&v, 0, sizeof v);
  v.type = type;
  if (type == TL_VAL_I32 || type == TL_VAL_F32) v.of.i32 = (int32_t)(uint32_t)bits;
  else v.of.i64 = (int64_t)bits;
  return tl_host_global_new(s, v, false);
}

void tl_spectest_define(tl_linker *l, tl_store *s, bool verbose) {
  static int on = 1;
  tl_host_define_all(l, s, defs, sizeof defs / sizeof defs[0], verbose ? (void *)&on : NULL);
  float f = 666.6f;
  double d = 666.6;
  uint32_t fb;
  uint64_t db;
  memcpy(&fb, &f, 4);
  memcpy(&db, &d, 8);
  tl_linker_define(l, "spectest", "global_i32", global(s, TL_VAL_I32, 666));
  tl_linker_define(l, "spectest", "global_i64", global(s, TL_VAL_I64, 666));
  tl_linker_define(l, "spectest", "global_f32", global(s, TL_VAL_F32, fb));
  tl_linker_define(l, "spectest", "global_f64", global(s, TL_VAL_F64, db));
  tl_linker_define(l, "spectest", "table", tl_host_table_new(s, TL_VAL_FUNCREF, 10, 20, true));
  tl_linker_define(l, "spectest", "table64", tl_host_table64_new(s, TL_VAL_FUNCREF, 10, 20, true));
  tl_linker_define(l, "spectest", "memory", tl_host_memory_new(s, 1, 2, true));
  tl_linker_define(l, "spectest", "shared_memory", tl_host_shared_memory_new(s, 1, 2));
}
