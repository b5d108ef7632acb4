/* diff.c — differential test of the JIT against the interpreter: for every
 * module given (the .wasm files wast2json writes for the spec suite), both
 * engines instantiate it against spectest and call every exported function
 * with the same argument sets, in the same order; statuses, trap reasons
 * and results must agree (scalar NaNs agree with any payload, v128 lanes
 * bit for bit; funcrefs by nullness). The interpreter runs first with fuel, so the JIT only runs
 * calls known to finish. Modules that do not read or link are skipped.
 * usage: jit-diff FILE.wasm...   (exit 1 on any mismatch) */
#include "host/host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(sz > 0 ? (size_t)sz : 1);
  *n = b ? fread(b, 1, (size_t)(sz > 0 ? sz : 0), f) : 0;
  fclose(f);
  return b;
}

static bool same(const tl_value *a, const tl_value *b) {
  if (a->type != b->type) return false;
  switch (a->type) {
  case TL_VAL_I32: return a->of.i32 == b->of.i32;
  case TL_VAL_I64: return a->of.i64 == b->of.i64;
  case TL_VAL_F32: {
    bool na = (a->of.f32 & 0x7fffffff) > 0x7f800000, nb = (b->of.f32 & 0x7fffffff) > 0x7f800000;
    return na || nb ? na == nb : a->of.f32 == b->of.f32;
  }
  case TL_VAL_F64: {
    uint64_t m = 0x7fffffffffffffffull, inf = 0x7ff0000000000000ull;
    bool na = (a->of.f64 & m) > inf, nb = (b->of.f64 & m) > inf;
    return na || nb ? na == nb : a->of.f64 == b->of.f64;
  }
  case TL_VAL_FUNCREF: return (a->of.ref == NULL) == (b->of.ref == NULL);
  case TL_VAL_EXTERNREF: return a->of.ref == b->of.ref;
  default: return memcmp(a->of.v128, b->of.v128, 16) == 0;
  }
}

static void arg(tl_value *v, uint32_t type, int set, uint32_t i) {
  static const int64_t ints[3] = {0, 1, -7};
  memset(v, 0, sizeof *v);
  v->type = type;
  int64_t k = ints[set] + (set == 2 ? (int64_t)i : 0);
  switch (type) {
  case TL_VAL_I32: v->of.i32 = (int32_t)k; break;
  case TL_VAL_I64: v->of.i64 = k * 1000003; break;
  case TL_VAL_F32: { float f = (float)k * 1.5f; memcpy(&v->of.f32, &f, 4); break; }
  case TL_VAL_F64: { double d = (double)k * 2.25; memcpy(&v->of.f64, &d, 8); break; }
  case TL_VAL_V128:                     /* lanes of every width see small and negative values */
    for (int j = 0; j < 16; j++) v->of.v128[j] = (uint8_t)(k * (j + 3) + (j & 1 ? 0x80 : 0));
    break;
  default: v->of.ref = NULL; break;
  }
}

typedef struct { tl_store *s; tl_linker *l; tl_instance *inst; tl_error err; } side;

static void side_open(side *x, tl_module *m, int engine) {
  memset(x, 0, sizeof *x);
  x->s = tl_store_new();
  tl_store_set_engine(x->s, engine);
  if (engine == TL_ENGINE_INTERP) tl_store_set_fuel(x->s, 20000000);
  x->l = tl_linker_new();
  tl_spectest_define(x->l, x->s, false);
  x->inst = tl_instantiate(x->s, m, x->l, &x->err);
}

static void side_close(side *x) {
  tl_linker_free(x->l);
  tl_store_free(x->s);
}

int main(int argc, char **argv) {
  unsigned modules = 0, calls = 0, bad = 0, skipped = 0;
  for (int fi = 1; fi < argc; fi++) {
    size_t n;
    uint8_t *b = slurp(argv[fi], &n);
    tl_error err = {0};
    tl_read_options ro = {0};
    ro.features = TL_FEATURES_ALL;
    tl_module *m = b ? tl_module_read(b, n, &ro, &err) : NULL;
    free(b);
    if (!m) { skipped++; continue; }
    side in, jt;
    side_open(&in, m, TL_ENGINE_INTERP);
    side_open(&jt, m, TL_ENGINE_JIT);
    modules++;
    if (!in.inst || !jt.inst) {
      if ((!in.inst && in.err.code == TL_E_LINK) || (!jt.inst && jt.err.code == TL_E_UNSUPPORTED)) skipped++;
      else if (!in.inst != !jt.inst || in.err.code != jt.err.code) {
        printf("%s: instantiation differs: interp %d %s / jit %d %s\n", argv[fi], in.err.code,
               in.inst ? "ok" : in.err.msg, jt.err.code, jt.inst ? "ok" : jt.err.msg);
        bad++;
      }
      side_close(&in);
      side_close(&jt);
      tl_module_free(m);
      continue;
    }
    bool stop = false;
    for (size_t e = 0; e < m->exports.n && !stop; e++) {
      const tl_export *ex = TL_EXPORT(m, e);
      if (ex->kind != TL_EXTERN_FUNC) continue;
      tl_extern fn;
      size_t nl = tl_name_len(ex->name, ex->name_len); /* names may hold NULs */
      if (tl_instance_export_n(in.inst, ex->name, nl, &fn)) continue;
      const uint32_t *pt, *rt;
      uint32_t np, nr;
      tl_func_type_of(fn, &pt, &np, &rt, &nr);
      tl_value *args = calloc(np + 1, sizeof *args), *r1 = calloc(nr + 1, sizeof *r1),
               *r2 = calloc(nr + 1, sizeof *r2);
      for (int set = 0; set < 3 && !stop; set++) {
        for (uint32_t i = 0; i < np; i++) arg(&args[i], pt[i], set, i);
        tl_error e1 = {0}, e2 = {0};
        uint32_t n1 = 0, n2 = 0;
        tl_store_set_fuel(in.s, 20000000);
        tl_status s1 = tl_invoke_n(in.inst, ex->name, nl, args, np, r1, nr, &n1, &e1);
        if (s1 == TL_E_EXHAUSTED && strstr(e1.msg, "fuel")) { stop = true; break; }
        tl_status s2 = tl_invoke_n(jt.inst, ex->name, nl, args, np, r2, nr, &n2, &e2);
        if (s2 == TL_E_UNSUPPORTED && strstr(e2.msg, "SIMD")) { stop = true; skipped++; break; }
        calls++;
        bool ok = s1 == s2 && (s1 != TL_OK || n1 == n2) && (s1 == TL_OK || !strcmp(e1.msg, e2.msg));
        for (uint32_t i = 0; ok && s1 == TL_OK && i < n1; i++) ok = same(&r1[i], &r2[i]);
        if (!ok) {
          printf("%s: %s (args set %d): interp %d %s / jit %d %s\n", argv[fi], ex->name, set, s1,
                 s1 ? e1.msg : "", s2, s2 ? e2.msg : "");
          for (uint32_t i = 0; s1 == TL_OK && s2 == TL_OK && i < n1; i++)
            printf("  result %u: %016llx / %016llx\n", i, (unsigned long long)r1[i].of.i64,
                   (unsigned long long)r2[i].of.i64);
          bad++;
        }
      }
      free(args);
      free(r1);
      free(r2);
    }
    side_close(&in);
    side_close(&jt);
    tl_module_free(m);
  }
  printf("jit-diff: %u modules, %u calls compared, %u mismatches, %u files skipped\n", modules,
         calls, bad, skipped);
  return bad || !modules ? 1 : 0;        /* no module compared: the set-up is broken */
}
