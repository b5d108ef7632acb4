/* tilt-fuzz — random valid modules (src/fuzz) and the differential modes
 * that use them: roundtrip, opt, jit, v8, cfg; plus gen, a reducer and two
 * small helpers for tests (planted, count); the reducer engine is
 * src/fuzz/reduce.c. Every mode prints a progress
 * line (iterations, speed, failures), exits 1 on any divergence, and writes
 * each failing module with its seed and the command that reproduces it to
 * --out-dir. Iteration i uses seed S+i; its input is tl_fuzz_seed_bytes. */
#include "cli.h"
#include "fuzz/fuzz.h"
#include "fuzz/reduce.h"
#include "ir/ir.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#define GEN_BYTES 4096
/* Instructions each export call may run (--fuel N). */
static uint64_t g_fuel = 1u << 22;

typedef struct {
  const char *mode, *out, *out_dir, *input, *command, *pass;
  uint64_t seed, iterations;
  double seconds;
  uint32_t validate_every, count, timeout;
  bool quiet;
} opts;

/* Features the generator may use (--disable NAME removes one). */
static uint32_t g_features = TL_FEATURES_ALL;
static char g_extra[512];  /* the --disable flags, for reproduce lines */
/* --closed-world: passes and pipelines run with tl_pass_options.closed_world
 * (sound here: the generated modules import and export only functions of
 * scalars, so nothing outside makes or inspects their GC objects). */
static bool g_closed_world;
/* Exception handling in generated modules: TL_FUZZ_EH_ON (roundtrip,
 * opt-valid, jit, --eh), TL_FUZZ_EH_OFF (--no-eh), or 0: fuzz.h's
 * TL_FUZZ_EXEC_EH decides (the other modes that execute). */
static uint32_t g_eh;
static uint32_t g_eh_legacy;   /* v8: TL_FUZZ_EH_LEGACY (node 20 has no exnref) */
/* GC in generated modules (fuzz.h TL_FUZZ_GC_ON): GC_ALL (--gc), GC_NONE
 * (--no-gc; the default where something runs that refuses GC: jit, v8,
 * cfg; gen: its modules are wabt's to validate), or GC_SOME: one seed in
 * four (roundtrip, opt, opt-valid). */
enum { GC_NONE, GC_SOME, GC_ALL, GC_UNSET };
static int g_gc = GC_UNSET;
static uint32_t gc_bit(uint64_t seed) {
  return g_gc == GC_ALL || (g_gc == GC_SOME && seed % 4 == 3) ? TL_FUZZ_GC_ON : 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static tl_read_options all_features(void) {
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  return ro;
}

static tl_module *gen_seed(uint64_t seed, uint32_t features) {
  uint8_t buf[GEN_BYTES];
  tl_fuzz_seed_bytes(seed, buf, sizeof buf);
  tl_fuzz_options fo = {((features ? features : TL_FEATURES_ALL) & g_features) | g_eh | g_eh_legacy | gc_bit(seed),
                        0, 0};
  return tl_fuzz_generate(buf, sizeof buf, &fo);
}

static bool write_mod(tl_module *m, uint8_t **out, size_t *n) {
  tl_error err;
  tl_write_options wo = {0};
  return tl_module_write(m, &wo, out, n, &err) == TL_OK;
}

static tl_module *read_mod(const uint8_t *p, size_t n, tl_error *err) {
  tl_read_options ro = all_features();
  return tl_module_read(p, n, &ro, err);
}

/* v8-check FILE: the module batch_v8 runs instead of generated ones. */
static const uint8_t *g_v8_in;
static size_t g_v8_inn;

/* What wabt 1.0.32's wasm-validate can read: no exnref or try_table (no
 * tags), no 64-bit table, no memarg offset over 32 bits (64-bit memories
 * it reads). */
static bool wabt_reads(const tl_module *m) {
  if (m->tags.n || m->nbig || tl_module_uses_gc(m)) return false; /* wabt 1.0.32 reads no GC either */
  for (uint32_t t = 0; t < m->tables.n; t++)
    if (tl_table_is64(m, t)) return false;
  return true;
}

static bool ext_validate(const char *path) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "wasm-validate --enable-threads --enable-tail-call --enable-extended-const "
           "--enable-relaxed-simd --enable-multi-memory --enable-memory64 '%s' >&2", path);
  return system(cmd) == 0;
}

/* ------------------------------------------------------------ failures */
typedef struct {
  const opts *o;
  uint64_t failures;
  uint64_t inconclusive;   /* iterations (v8: modules) that compared nothing somewhere */
  bool cut;                /* this iteration's comparison compared nothing */
  uint64_t text_compared;  /* roundtrip: modules whose printed text was parsed back */
} run;

/* Two fuzz-exec logs: false when they differ. When a log stopped (fuel or
 * call stack ran out) before any export was compared, the iteration is
 * inconclusive: counted apart, never as a pass. */
static bool same_logs(run *r, const char *a, const char *b) {
  tl_fuzz_verdict v;
  tl_fuzz_exec_compare(a, b, &v);
  if (tl_fuzz_inconclusive(&v)) r->cut = true;
  return !v.differ;
}

static void end_iteration(run *r) {
  r->inconclusive += r->cut;
  r->cut = false;
}

static void fail(run *r, uint64_t seed, const uint8_t *wasm, size_t n, const char *why,
                 const char *detail) {
  r->failures++;
  if (g_v8_in) return;  /* v8-check FILE: the exit code says it */
  mkdir(r->o->out_dir, 0777);
  char path[512];
  snprintf(path, sizeof path, "%s/%s-%" PRIu64 ".wasm", r->o->out_dir, r->o->mode, seed);
  if (wasm) cli_write_file(path, wasm, n);
  fprintf(stderr, "\n[%s] FAILURE seed %" PRIu64 ": %s\n  module: %s\n  reproduce: tilt-fuzz %s --seed %" PRIu64
          " --iterations 1%s\n", r->o->mode, seed, why, path, r->o->mode, seed, g_extra);
  char tpath[600];
  snprintf(tpath, sizeof tpath, "%s/%s-%" PRIu64 ".txt", r->o->out_dir, r->o->mode, seed);
  FILE *f = fopen(tpath, "w");
  if (f) {
    fprintf(f, "seed %" PRIu64 "\n%s\nreproduce: tilt-fuzz %s --seed %" PRIu64 " --iterations 1%s\n%s\n",
            seed, why, r->o->mode, seed, g_extra, detail ? detail : "");
    fclose(f);
  }
}

/* ------------------------------------------------------------ roundtrip */
/* The printer and the text reader agree: the printed module parses back
 * and prints the same. */
/* Modules with IR forms that have no faithful text yet are left out
 * (tl_fuzz_text_comparable). */
static void text_roundtrip(run *r, uint64_t seed, const uint8_t *w0, size_t n0, tl_module *m0,
                           const char *printed) {
  if (!tl_fuzz_text_comparable(m0)) return;
  r->text_compared++;
  tl_read_options ro = all_features();
  tl_error err;
  tl_module *m = tl_module_parse_text(printed, strlen(printed), &ro, &err);
  if (!m) {
    char why[400];
    snprintf(why, sizeof why, "the printed module does not parse back (line %u col %u: %.300s)",
             err.line, err.col, err.msg);
    fail(r, seed, w0, n0, why, printed);
    return;
  }
  char *again = tl_module_print(m);
  if (strcmp(again, printed)) fail(r, seed, w0, n0, "printed text parses back to a different module", again);
  free(again);
  tl_module_free(m);
}

/* Lazy bodies against the full read: w0 read lazily and written, then read
 * fully and written, gives w1; and each of a few corruptions of w0 gets the
 * same verdict and error from both reads (the checker of reader_check.c
 * against the decoder). */
static void lazy_leg(run *r, uint64_t seed, const uint8_t *w0, size_t n0, const uint8_t *w1, size_t n1) {
  tl_read_options ro = all_features(), lo = ro;
  lo.lazy_bodies = true;
  tl_error e1 = {0}, e2 = {0};
  uint8_t *wl = NULL, *wr = NULL;
  size_t nl = 0, nr = 0;
  tl_module *ml = tl_module_read(w0, n0, &lo, &e2), *mr = NULL;
  if (!ml || !write_mod(ml, &wl, &nl) || !(mr = read_mod(wl, nl, &e2)) || !write_mod(mr, &wr, &nr))
    fail(r, seed, w0, n0, "lazy read/write failed", e2.msg);
  else if (nr != n1 || memcmp(wr, w1, n1))
    fail(r, seed, w0, n0, "the lazy write, read fully and written, differs from the full write", NULL);
  if (ml) tl_module_free(ml);
  if (mr) tl_module_free(mr);
  free(wl), free(wr);
  wl = wr = NULL;
  /* remove-unused-module-elements renumbers lazy bodies' bytes: read fully
   * and written, the same as the pass on the full read */
  const char *rume = "remove-unused-module-elements";
  uint8_t *wa = NULL;
  size_t na = 0;
  tl_module *ma = read_mod(w0, n0, &e1);
  ml = tl_module_read(w0, n0, &lo, &e2);
  mr = NULL;
  if (!ma || !ml || tl_module_run_passes(ma, &rume, 1, NULL, &e1) || !write_mod(ma, &wa, &na) ||
      tl_module_run_passes(ml, &rume, 1, NULL, &e2) || !write_mod(ml, &wl, &nl) || !(mr = read_mod(wl, nl, &e2)) ||
      !write_mod(mr, &wr, &nr))
    fail(r, seed, w0, n0, "remove-unused-module-elements on the lazy or the full read failed", e2.msg);
  else if (nr != na || memcmp(wr, wa, na))
    fail(r, seed, w0, n0, "remove-unused-module-elements: the lazy result, read fully and written, differs", NULL);
  if (ma) tl_module_free(ma);
  if (ml) tl_module_free(ml);
  if (mr) tl_module_free(mr);
  free(wa), free(wl), free(wr);
  uint8_t *bad = n0 ? malloc(n0) : NULL;
  uint64_t st = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int k = 0; bad && k < 4; k++) {
    memcpy(bad, w0, n0);
    for (int j = 0; j < 1 + k; j++) {
      st = st * 6364136223846793005ull + 1442695040888963407ull;
      bad[(st >> 33) % n0] ^= (uint8_t)(1u << ((st >> 20) & 7));
    }
    tl_module *a = tl_module_read(bad, n0, &ro, &e1), *b = tl_module_read(bad, n0, &lo, &e2);
    if (a && tl_module_validate(a, &e1) != TL_OK) tl_module_free(a), a = NULL;
    if (b && tl_module_validate(b, &e2) != TL_OK) tl_module_free(b), b = NULL;
    if (!a != !b || (!a && (e1.code != e2.code || e1.offset != e2.offset || strcmp(e1.msg, e2.msg)))) {
      char why[400];
      snprintf(why, sizeof why, "full read: %s; lazy read: %s", a ? "ok" : e1.msg, b ? "ok" : e2.msg);
      fail(r, seed, bad, n0, "a corrupted module: the lazy read and the full read disagree", why);
    }
    if (a) tl_module_free(a);
    if (b) tl_module_free(b);
  }
  free(bad);
}

static void iter_roundtrip(run *r, uint64_t seed, uint64_t i) {
  tl_module *m0 = gen_seed(seed, 0);
  tl_error err;
  uint8_t *w0 = NULL, *w1 = NULL, *w2 = NULL;
  size_t n0 = 0, n1 = 0, n2 = 0;
  tl_module *m1 = NULL, *m2 = NULL, *m3 = NULL;
  char *p2 = NULL, *p3 = NULL;
  if (tl_module_validate(m0, &err) != TL_OK) {
    char *p = tl_module_print(m0);
    fail(r, seed, NULL, 0, err.msg, p);
    free(p);
    goto out;
  }
  if (!write_mod(m0, &w0, &n0)) { fail(r, seed, NULL, 0, "write of the generated module failed", NULL); goto out; }
  if (!(m1 = read_mod(w0, n0, &err))) { fail(r, seed, w0, n0, "re-read failed", err.msg); goto out; }
  if (!write_mod(m1, &w1, &n1) || !(m2 = read_mod(w1, n1, &err)) || !write_mod(m2, &w2, &n2) ||
      !(m3 = read_mod(w2, n2, &err))) {
    fail(r, seed, w0, n0, "write/read cycle failed", err.msg);
    goto out;
  }
  p2 = tl_module_print(m2);
  p3 = tl_module_print(m3);
  if (n1 != n2 || memcmp(w1, w2, n1)) fail(r, seed, w0, n0, "second write differs from the first", NULL);
  else if (strcmp(p2, p3)) fail(r, seed, w0, n0, "printed IR differs after a round trip", p3);
  else text_roundtrip(r, seed, w0, n0, m2, p2);
  lazy_leg(r, seed, w0, n0, w1, n1);
  if (r->o->validate_every && i % r->o->validate_every == 0 && wabt_reads(m0)) {
    char path[512];
    snprintf(path, sizeof path, "/tmp/tilt-fuzz-%d.wasm", (int)getpid());
    cli_write_file(path, w0, n0);
    if (!ext_validate(path)) fail(r, seed, w0, n0, "wasm-validate rejects the module", NULL);
    unlink(path);
  }
out:
  free(p2); free(p3); free(w0); free(w1); free(w2);
  tl_module_free(m0);
  if (m1) tl_module_free(m1);
  if (m2) tl_module_free(m2);
  if (m3) tl_module_free(m3);
}

/* ------------------------------------------------------------------ opt */
/* The passes the fuzzer draws from: for opt, all but those renaming
 * imports or exports (their output behaves the same only under a host told
 * the map) and those with traps or wraps where the input had none
 * (remove-relaxed-simd, memory64-lowering); opt-valid (all: nothing runs)
 * takes every pass. Returns how many; *names points at them. */
static const char *g_only[64];  /* --passes: the pool, when given */
static uint32_t g_nonly;

static uint32_t fuzz_passes(bool all, const char *const **names) {
  static const char *list[2][256];
  static uint32_t n[2];
  if (g_nonly) {
    *names = g_only;
    return g_nonly;
  }
  if (!n[all])
    for (uint32_t i = 0; tl_pass_name(i) && n[all] < 256; i++)
      if (all || tl_pass_keeps_behaviour(i)) list[all][n[all]++] = tl_pass_name(i);
  *names = list[all];
  return n[all];
}

/* Runs passes (names) or a pipeline (names NULL: level/shrink) on a fresh
 * read of w and compares with the base log; false on divergence. */
static bool check_opt(run *r, uint64_t seed, const uint8_t *w, size_t n, const char *base,
                      const char *const *names, uint32_t nn, uint32_t level, uint32_t shrink) {
  tl_error err;
  tl_module *m = read_mod(w, n, &err);
  if (!m) return true;
  tl_pass_options po = {0};
  po.threads = 1;
  po.closed_world = g_closed_world;
  /* optimize-added-constants* refuse to run without it (as in wasm-opt) */
  for (uint32_t i = 0; names && i < nn; i++)
    if (!strncmp(names[i], "optimize-added-constants", 24)) po.low_memory_unused = true;
  /* multi-memory-lowering refuses 64-bit memories by design (as wasm-opt's) */
  bool mem64 = false;
  for (uint32_t i = 0; i < m->memories.n; i++) mem64 |= tl_memory_is64(m, i);
  for (uint32_t i = 0; mem64 && names && i < nn; i++)
    if (!strncmp(names[i], "multi-memory-lowering", 21)) {
      tl_module_free(m);
      return true;
    }
  char what[512] = "", spec[512] = "";  /* spec: the same as `reduce --pass` takes */
  tl_status rc;
  if (names) {
    size_t k = 0, q = 0;
    for (uint32_t i = 0; i < nn && k < sizeof what - 40; i++) {
      k += (size_t)snprintf(what + k, sizeof what - k, "--%s ", names[i]);
      q += (size_t)snprintf(spec + q, sizeof spec - q, "%s%s", i ? "," : "", names[i]);
    }
    if (po.low_memory_unused) snprintf(what + k, sizeof what - k, "--low-memory-unused ");
    rc = tl_module_run_passes(m, names, nn, &po, &err);
  } else {
    if (shrink) snprintf(what, sizeof what, "-O%s", shrink == 1 ? "s" : "z");
    else snprintf(what, sizeof what, "-O%u", level);
    snprintf(spec, sizeof spec, "%s", what + 1);
    rc = tl_module_optimize(m, level, shrink, &po, &err);
  }
  bool ok = true;
  char why[2048];
  if (rc == TL_E_UNSUPPORTED && (!strncmp(err.msg, "memory64-lowering:", 18) || !strncmp(err.msg, "fpcast-emu:", 11) ||
                                 !strncmp(err.msg, "safe-heap:", 10) || !strncmp(err.msg, "asyncify:", 9) ||
                                 !strncmp(err.msg, "mod-asyncify-", 13) || !strncmp(err.msg, "cfp", 3))) {
    /* refused by design (a memory over 4 GiB, an offset reading an i64
     * global; a v128 or reference param, over 16 params; asyncify of EH,
     * tail calls, reference locals, twice; mod-asyncify-* before asyncify;
     * cfp and cfp-reftest without --closed-world) */
  } else if (rc != TL_OK) {
    snprintf(why, sizeof why, "passes %s failed: %s", what, err.msg);
    fail(r, seed, w, n, why, NULL);
    ok = false;
  } else if (tl_module_validate(m, &err) != TL_OK) {
    snprintf(why, sizeof why, "after %s the module does not validate: %s", what, err.msg);
    fail(r, seed, w, n, why, NULL);
    ok = false;
  } else if (!base) { /* opt-valid: nothing runs; the output must write and read back */
    uint8_t *ow = NULL;
    size_t on = 0;
    tl_module *back = write_mod(m, &ow, &on) ? read_mod(ow, on, &err) : NULL;
    if (!back) {
      snprintf(why, sizeof why, "after %s the module does not write and read back: %s", what, ow ? err.msg : "write failed");
      fail(r, seed, w, n, why, NULL);
      ok = false;
    } else {
      tl_module_free(back);
    }
    free(ow);
  } else {
    char *log = tl_module_fuzz_exec(m, g_fuel);
    if (!same_logs(r, base, log)) {
      snprintf(why, sizeof why, "behaviour differs after %s (compare tilt-fuzz exec IN with tilt-opt %sIN -o OUT; "
               "tilt-fuzz exec OUT; shrink it: tilt-fuzz reduce IN --pass %s -o SMALL.wasm)", what, what, spec);
      size_t dl = strlen(base) + strlen(log) + 64;
      char *d = malloc(dl);
      snprintf(d, dl, "--- before\n%s--- after\n%s", base, log);
      fail(r, seed, w, n, why, d);
      free(d);
      ok = false;
    }
    free(log);
  }
  tl_module_free(m);
  return ok;
}

static uint64_t mix(uint64_t x) {
  uint8_t b[8];
  tl_fuzz_seed_bytes(x, b, 8);
  uint64_t v;
  memcpy(&v, b, 8);
  return v;
}

/* The pass and level come from the seed, not the iteration's index, so
 * `--seed S --iterations 1` repeats exactly what seed S ran in any run
 * (seed - 1: what runs from seed 1 always did). */
static void iter_opt(run *r, uint64_t seed, uint64_t i) {
  (void)i;
  uint64_t k0 = seed - 1;
  tl_module *m0 = gen_seed(seed, 0);
  uint8_t *w = NULL;
  size_t n = 0;
  if (!write_mod(m0, &w, &n)) { tl_module_free(m0); return; }
  tl_module_free(m0);
  tl_error err;
  tl_module *m = read_mod(w, n, &err);
  if (!m) { fail(r, seed, w, n, "re-read failed", err.msg); free(w); return; }
  char *base = tl_module_fuzz_exec(m, g_fuel);
  tl_module_free(m);
  const char *const *pool;
  uint32_t np = fuzz_passes(false, &pool);
  /* each pass on its own: one per iteration, in turn */
  const char *one = pool[k0 % np];
  check_opt(r, seed, w, n, base, &one, 1, 0, 0);
  /* a pipeline */
  static const uint32_t lv[6][2] = {{1, 0}, {2, 0}, {3, 0}, {4, 0}, {2, 1}, {2, 2}};
  check_opt(r, seed, w, n, base, NULL, 0, lv[k0 % 6][0], lv[k0 % 6][1]);
  /* a random list */
  const char *list[6];
  uint64_t x = mix(seed ^ 0x5eed);
  uint32_t nl = 1 + (uint32_t)(x % 6);
  for (uint32_t k = 0; k < nl; k++) list[k] = pool[mix(x + k) % np];
  check_opt(r, seed, w, n, base, list, nl, 0, 0);
  free(base);
  free(w);
}

/* opt-valid: iter_opt's passes and pipelines, checked for valid output
 * that writes and reads back, without running anything (so it covers
 * exception handling before the engines run it). */
static void iter_opt_valid(run *r, uint64_t seed, uint64_t i) {
  (void)i;
  uint64_t k0 = seed - 1;
  tl_module *m0 = gen_seed(seed, 0);
  uint8_t *w = NULL;
  size_t n = 0;
  bool ok = write_mod(m0, &w, &n);
  tl_module_free(m0);
  if (!ok) return;
  const char *const *pool;
  uint32_t np = fuzz_passes(true, &pool);
  const char *one = pool[k0 % np];
  check_opt(r, seed, w, n, NULL, &one, 1, 0, 0);
  static const uint32_t lv[6][2] = {{1, 0}, {2, 0}, {3, 0}, {4, 0}, {2, 1}, {2, 2}};
  check_opt(r, seed, w, n, NULL, NULL, 0, lv[k0 % 6][0], lv[k0 % 6][1]);
  const char *list[6];
  uint64_t x = mix(seed ^ 0x5eed);
  uint32_t nl = 1 + (uint32_t)(x % 6);
  for (uint32_t k = 0; k < nl; k++) list[k] = pool[mix(x + k) % np];
  check_opt(r, seed, w, n, NULL, list, nl, 0, 0);
  free(w);
}

/* ------------------------------------------------------------------ jit */
static void iter_jit(run *r, uint64_t seed, uint64_t i) {
  (void)i;
  /* relaxed SIMD included: the interpreter runs the JIT's (native) profile */
  tl_module *m = gen_seed(seed, 0);
  uint8_t *w = NULL;
  size_t n = 0;
  bool ok = write_mod(m, &w, &n);
  tl_module_free(m);
  tl_error err0;
  /* the JIT compiles f->code (the bytes read), not the IR: always run a
   * module that was read */
  if (!ok || !(m = read_mod(w, n, &err0))) { free(w); return; }
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      tl_pass_options po = {0};
      po.threads = 1;
      po.closed_world = g_closed_world;
      tl_error err;
      if (tl_module_optimize(m, 2, 0, &po, &err) != TL_OK) break;
      /* read the optimized module back so the JIT runs the optimized code */
      uint8_t *ow = NULL;
      size_t on = 0;
      tl_module *o = write_mod(m, &ow, &on) ? read_mod(ow, on, &err) : NULL;
      free(ow);
      if (!o) { fail(r, seed, w, n, "the module after -O2 does not write and read back", err.msg); break; }
      tl_module_free(m);
      m = o;
    }
    tl_fuzz_exec_options io = {g_fuel, g_fuel && g_fuel < TL_FUZZ_COMMAND_FUEL ? TL_FUZZ_COMMAND_FUEL : g_fuel,
                               TL_ENGINE_INTERP, TL_RELAXED_NATIVE};
    char *a = tl_fuzz_exec(m, &io);                                       /* both count fuel */
    tl_jit_use_avx(((seed >> 1) ^ (uint64_t)pass) & 1);   /* SIMD in VEX and in SSE forms */
    char *b = tl_module_fuzz_exec_engine(m, g_fuel, TL_ENGINE_JIT);
    if (!same_logs(r, a, b)) {
      size_t dl = strlen(a) + strlen(b) + 64;
      char *d = malloc(dl);
      snprintf(d, dl, "--- interpreter\n%s--- jit\n%s", a, b);
      fail(r, seed, w, n, pass ? "interpreter and JIT differ after -O2" : "interpreter and JIT differ", d);
      free(d);
    }
    free(a);
    free(b);
  }
  free(w);
  tl_module_free(m);
}

/* ------------------------------------------------------------------- v8 */
static const char v8_harness[] =
    "const fs=require('fs');\n"
    "const man=JSON.parse(fs.readFileSync(process.argv[2],'utf8'));\n"
    "const f32=new Float32Array(1),u32=new Uint32Array(f32.buffer);\n"
    "const f64=new Float64Array(1),u64=new BigUint64Array(f64.buffer);\n"
    "function fmt(t,v){switch(t){\n"
    " case 'i32':return 'i32:'+(v|0);\n"
    " case 'i64':return 'i64:'+BigInt.asIntN(64,BigInt(v));\n"
    " case 'f32':if(v!==v)return 'f32:nan';f32[0]=v;return 'f32:0x'+u32[0].toString(16).padStart(8,'0');\n"
    " case 'f64':if(v!==v)return 'f64:nan';f64[0]=v;return 'f64:0x'+u64[0].toString(16).padStart(16,'0');\n"
    " default:return t+':'+(v===null?'null':'nonnull');}}\n"
    "function arg(t,i){switch(t){case 'i32':return 3+7*i;case 'i64':return BigInt(-5-i);\n"
    " case 'f32':return 1.5;case 'f64':return -2.5;default:return null;}}\n"
    "let out='';\n"
    "for(const m of man){out+='### '+m.file+'\\n';\n"
    " const imp={'fuzzing-support':{}};\n"
    " for(const t of ['i32','i64','f32','f64'])imp['fuzzing-support']['log-'+t]=(x)=>{out+='[import fuzzing-support.log-'+t+'('+fmt(t,x)+')]\\n';};\n"
    " let inst;\n"
    " try{inst=new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(m.file)),imp);}\n"
    " catch(e){out+='[instantiate: '+e.message+']\\n';continue;}\n"
    " for(const x of m.exports){out+='[export \"'+x.name+'\"]\\n';\n"
    "  try{let r=inst.exports[x.name](...x.params.map(arg));\n"
    "   if(x.results.length==1)r=[r];else if(x.results.length==0)r=[];\n"
    "   out+='  ->'+x.results.map((t,i)=>' '+fmt(t,r[i])).join('')+'\\n';}\n"
    "  catch(e){if(e instanceof WebAssembly.RuntimeError)out+='  -> trap: '+e.message+'\\n';\n"
    "   else if(e instanceof WebAssembly.Exception)out+='  -> uncaught exception\\n';\n"
    "   else{out+='[stop: '+e.message+']\\n';break;}}}}\n"
    "process.stdout.write(out);\n";

/* Trap reasons and instantiation errors are worded differently by V8. */
static void normalize_v8(char *s) {
  char *o = s;
  for (char *p = s; *p;) {
    char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
    if (!strncmp(p, "  -> trap", 9)) { memcpy(o, "  -> trap\n", 10); o += 10; }
    else if (!strncmp(p, "  -> uncaught exception", 23)) { memcpy(o, "  -> uncaught exception\n", 24); o += 24; }
    else if (!strncmp(p, "[instantiate", 12)) { memcpy(o, "[instantiate]\n", 14); o += 14; }
    else { memmove(o, p, len); o += len; }
    p += len;
  }
  *o = 0;
}

static void sig_json(FILE *f, tl_module *m, tl_type t) {
  fprintf(f, "[");
  for (uint32_t i = 0; i < tl_type_arity(m, t); i++)
    fprintf(f, "%s\"%s\"", i ? "," : "", tl_type_name(tl_type_at(m, t, i)));
  fprintf(f, "]");
}

#define V8_BATCH 32
static void batch_v8(run *r, uint64_t seed0, uint32_t nb, const char *dir) {
  char man[600], path[600];
  snprintf(man, sizeof man, "%s/manifest.json", dir);
  FILE *mf = fopen(man, "w");
  if (!mf) return;
  char **logs = calloc(nb, sizeof *logs);
  uint8_t **ws = calloc(nb, sizeof *ws);
  size_t *ns = calloc(nb, sizeof *ns);
  fprintf(mf, "[");
  for (uint32_t k = 0; k < nb; k++) {
    tl_error err;
    /* no relaxed SIMD: V8 picks its hardware's answer (a fused madd, say),
     * the interpreter the spec's deterministic one; both are right */
    tl_module *m = g_v8_in ? read_mod(g_v8_in, g_v8_inn, &err)
                           : gen_seed(seed0 + k, TL_FEATURES_ALL & ~TL_FEATURE_EXTENDED_CONST &
                                                     ~TL_FEATURE_RELAXED_SIMD & ~TL_FEATURE_MULTI_MEMORY &
                                                     ~TL_FEATURE_MEMORY64);
    if (!m) break;
    tl_fuzz_denan(m);   /* NaN bits are the engines' choice: not compared */
    write_mod(m, &ws[k], &ns[k]);
    snprintf(path, sizeof path, "%s/m%u.wasm", dir, k);
    cli_write_file(path, ws[k], ns[k]);
    logs[k] = tl_module_fuzz_exec(m, g_fuel);
    fprintf(mf, "%s{\"file\":\"%s\",\"exports\":[", k ? "," : "", path);
    for (uint32_t e = 0, c = 0; e < m->exports.n; e++) {
      tl_export *x = TL_EXPORT(m, e);
      if (x->kind != TL_EXTERN_FUNC) continue;
      tl_functype *ft = TL_FTYPE(m, TL_FUNC(m, x->index)->type);
      fprintf(mf, "%s{\"name\":\"%s\",\"params\":", c++ ? "," : "", x->name);
      sig_json(mf, m, ft->params);
      fprintf(mf, ",\"results\":");
      sig_json(mf, m, ft->results);
      fprintf(mf, "}");
    }
    fprintf(mf, "]}");
    tl_module_free(m);
  }
  fprintf(mf, "]\n");
  fclose(mf);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "node %s/harness.js %s", dir, man);
  FILE *p = popen(cmd, "r");
  tl_buf out = {0};
  char chunk[4096];
  size_t got;
  while (p && (got = fread(chunk, 1, sizeof chunk, p)) > 0) tl_buf_put(&out, chunk, got);
  if (p) pclose(p);
  tl_buf_byte(&out, 0);
  char *s = (char *)out.p;
  for (uint32_t k = 0; k < nb; k++) {
    snprintf(path, sizeof path, "### %s/m%u.wasm\n", dir, k);
    char *a = s ? strstr(s, path) : NULL;
    char *v8 = NULL;
    if (a) {
      a += strlen(path);
      char *end = strstr(a, "### ");
      size_t len = end ? (size_t)(end - a) : strlen(a);
      v8 = malloc(len + 1);
      memcpy(v8, a, len);
      v8[len] = 0;
    } else {
      v8 = strdup("(no output from node)\n");
    }
    normalize_v8(v8);
    normalize_v8(logs[k]);
    if (!same_logs(r, logs[k], v8)) {
      size_t dl = strlen(logs[k]) + strlen(v8) + 64;
      char *d = malloc(dl);
      snprintf(d, dl, "--- tilt\n%s--- v8\n%s", logs[k], v8);
      fail(r, seed0 + k, ws[k], ns[k], "tilt's interpreter and V8 differ", d);
      free(d);
    }
    end_iteration(r);
    free(v8);
    free(logs[k]);
    free(ws[k]);
  }
  tl_buf_free(&out);
  free(logs);
  free(ws);
  free(ns);
}

/* ------------------------------------------------------------------ cfg */
/* A random CFG: block b logs b, updates x = x*5 + b + 1 and goes to the
 * first edge whose condition ((x >> s) & 1) holds, else the default. The
 * direct walk computes the same log in C; both stop after 40 blocks with a
 * trap (the relooped code traps with unreachable). */
typedef struct { uint32_t to, shift; bool uncond; } cedge;

static void iter_cfg(run *r, uint64_t seed, uint64_t i) {
  (void)i;
  uint8_t b[512];
  tl_fuzz_seed_bytes(seed, b, sizeof b);
  uint32_t pos = 0, nb = 1 + b[pos++] % 10;
  cedge e[10][4];
  uint32_t ne[10];
  for (uint32_t k = 0; k < nb; k++) {
    ne[k] = b[pos++] % 4;
    for (uint32_t j = 0; j < ne[k]; j++)
      {
      uint32_t to = b[pos++] % nb, sh = b[pos++] % 8;
      e[k][j] = (cedge){to, sh, j + 1 == ne[k]};
    }
  }
  tl_module *m = tl_module_create();
  tl_module_set_features(m, TL_FEATURES_ALL);
  uint32_t logi = tl_add_function_import(m, NULL, "fuzzing-support", "log-i32",
                                         tl_add_type(m, TL_TYPE_I32, TL_TYPE_NONE));
  uint32_t fn = tl_add_function(m, "cfg", tl_add_type(m, TL_TYPE_NONE, TL_TYPE_NONE), NULL, 0, NULL);
  uint32_t x = tl_function_add_var(m, fn, TL_TYPE_I32), steps = tl_function_add_var(m, fn, TL_TYPE_I32);
  tl_relooper *rl = tl_relooper_create(m, fn);
  tl_rblock rb[10];
  for (uint32_t k = 0; k < nb; k++) {
    tl_expr_ref c[4];
    c[0] = tl_build_if(m, fn, TL_LABEL_NONE,
                       tl_build_binary(m, "i32.ge_u", tl_build_local_get(m, fn, steps), tl_build_const_i32(m, 40)),
                       tl_build_unreachable(m), NULL);
    c[1] = tl_build_local_set(m, fn, steps, tl_build_binary(m, "i32.add", tl_build_local_get(m, fn, steps),
                                                             tl_build_const_i32(m, 1)));
    tl_expr_ref arg = tl_build_const_i32(m, (int32_t)k);
    c[2] = tl_build_call(m, logi, &arg, 1);
    c[3] = tl_build_local_set(m, fn, x, tl_build_binary(m, "i32.add",
        tl_build_binary(m, "i32.mul", tl_build_local_get(m, fn, x), tl_build_const_i32(m, 5)),
        tl_build_const_i32(m, (int32_t)k + 1)));
    rb[k] = tl_relooper_add_block(rl, tl_build_block(m, fn, TL_LABEL_NONE, c, 4, TL_TYPE_NONE));
  }
  for (uint32_t k = 0; k < nb; k++)
    for (uint32_t j = 0; j < ne[k]; j++) {
      tl_expr_ref cond = e[k][j].uncond ? NULL
          : tl_build_binary(m, "i32.and", tl_build_binary(m, "i32.shr_u", tl_build_local_get(m, fn, x),
                                                        tl_build_const_i32(m, (int32_t)e[k][j].shift)),
                            tl_build_const_i32(m, 1));
      tl_relooper_add_branch(rl, rb[k], rb[e[k][j].to], cond, NULL);
    }
  tl_expr_ref body = tl_relooper_render_and_dispose(rl, rb[0], UINT32_MAX);
  tl_function_set_body(m, fn, body);
  tl_add_export(m, TL_EXPORT_FUNC, fn, "cfg");
  tl_error err;
  uint8_t *w = NULL;
  size_t n = 0;
  write_mod(m, &w, &n);
  if (tl_module_validate(m, &err) != TL_OK) {
    fail(r, seed, w, n, "relooper output does not validate", err.msg);
  } else {
    /* the direct walk */
    tl_buf want = {0};
    tl_buf_printf(&want, "[export \"cfg\"]\n");
    uint32_t cur = 0, xv = 0, st = 0;
    for (;;) {
      if (st >= 40) { tl_buf_printf(&want, "  -> trap: unreachable\n"); break; }
      st++;
      tl_buf_printf(&want, "[import fuzzing-support.log-i32(i32:%u)]\n", cur);
      xv = xv * 5 + cur + 1;
      uint32_t next = UINT32_MAX;
      bool def = false;
      for (uint32_t j = 0; j < ne[cur] && next == UINT32_MAX; j++)
        if (e[cur][j].uncond || ((xv >> e[cur][j].shift) & 1)) next = e[cur][j].to, def = true;
      (void)def;
      if (next == UINT32_MAX) {
        /* no condition held: the default is an unconditional edge if any */
        tl_buf_printf(&want, "  ->\n");
        break;
      }
      cur = next;
    }
    tl_buf_byte(&want, 0);
    char *got = tl_module_fuzz_exec(m, g_fuel);
    char *trap = strstr(got, "  -> trap:");
    if (trap) { trap[0] = 0; strcat(got, "  -> trap: unreachable\n"); }
    if (!same_logs(r, (char *)want.p, got)) {
      size_t dl = strlen(got) + want.n + 64;
      char *d = malloc(dl);
      snprintf(d, dl, "--- walk\n%s--- relooped\n%s", (char *)want.p, got);
      fail(r, seed, w, n, "relooped code and the direct CFG walk differ", d);
      free(d);
    }
    free(got);
    tl_buf_free(&want);
  }
  free(w);
  tl_module_free(m);
}

/* --------------------------------------------------------------- driver */
/* An iteration that runs longer than --timeout seconds is a failure (a
 * hang): the alarm handler prints the prepared message and exits 1. */
static char g_hang_msg[2048];
static void on_alarm(int sig) {
  (void)sig;
  if (write(2, g_hang_msg, strlen(g_hang_msg)) < 0) {}
  _exit(1);
}

static int run_mode(const opts *o) {
  run r = {.o = o};
  void (*it)(run *, uint64_t, uint64_t) = NULL;
  bool v8 = !strcmp(o->mode, "v8") || !strcmp(o->mode, "v8-check");
  if (!strcmp(o->mode, "roundtrip")) it = iter_roundtrip;
  else if (!strcmp(o->mode, "opt")) it = iter_opt;
  else if (!strcmp(o->mode, "opt-valid")) it = iter_opt_valid;
  else if (!strcmp(o->mode, "jit")) it = iter_jit;
  else if (!strcmp(o->mode, "cfg")) it = iter_cfg;
  else if (!v8) { cli_fail("unknown mode %s", o->mode); return 2; }
  char dir[256] = "";
  if (v8) {
    snprintf(dir, sizeof dir, "/tmp/tilt-fuzz-v8-%d", (int)getpid());
    mkdir(dir, 0777);
    char hp[300];
    snprintf(hp, sizeof hp, "%s/harness.js", dir);
    cli_write_file(hp, v8_harness, sizeof v8_harness - 1);
  }
  double t0 = now(), last = t0;
  uint64_t i = 0;
  signal(SIGALRM, on_alarm);
  while ((o->seconds > 0 ? now() - t0 < o->seconds : i < o->iterations)) {
    snprintf(g_hang_msg, sizeof g_hang_msg,
             "\n[%s] FAILURE seed %" PRIu64 ": hang (over %us)\n  reproduce: tilt-fuzz %s --seed %" PRIu64
             " --iterations %d%s\n", o->mode, o->seed + i, o->timeout, o->mode, o->seed + i, v8 ? V8_BATCH : 1,
             g_extra);
    alarm(o->timeout);
    if (v8) {
      uint64_t nb = V8_BATCH;
      if (o->seconds <= 0 && o->iterations - i < nb) nb = o->iterations - i;
      batch_v8(&r, o->seed + i, (uint32_t)nb, dir);
      i += nb;
    } else {
      it(&r, o->seed + i, i);
      end_iteration(&r);
      i++;
    }
    double t = now();
    if (!o->quiet && t - last > 1.0) {
      fprintf(stderr, "\r[%s] %" PRIu64 " iterations, %.1f/s, %" PRIu64 " failures, %" PRIu64 " inconclusive",
              o->mode, i, (double)i / (t - t0), r.failures, r.inconclusive);
      last = t;
    }
  }
  alarm(0);
  double t = now() - t0;
  fprintf(stderr, "%s[%s] %" PRIu64 " iterations in %.1fs, %.1f/s, %" PRIu64 " failures, %" PRIu64
          " inconclusive (seeds %" PRIu64 "..%" PRIu64 ")\n", o->quiet ? "" : "\r", o->mode, i, t,
          t > 0 ? (double)i / t : 0.0, r.failures, r.inconclusive, o->seed, o->seed + (i ? i - 1 : 0));
  if (it == iter_roundtrip)
    fprintf(stderr, "[roundtrip] %" PRIu64 " printed modules parsed back and printed the same (the rest have "
            "tuple locals or unreachable constructs, which have no faithful text yet)\n", r.text_compared);
  if (r.inconclusive)
    fprintf(stderr, "[%s] %" PRIu64 " inconclusive: an execution ran out of fuel or call stack before any export "
            "was compared (--fuel N gives each call N instructions; now %" PRIu64 ")\n", o->mode, r.inconclusive,
            g_fuel);
  if (v8) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) {}
  }
  return r.failures ? 1 : 0;
}

/* ------------------------------------------------------- gen and helpers */
static int do_gen(const opts *o) {
  uint8_t *in = NULL;
  size_t n = 0;
  if (o->input && cli_read_file(o->input, &in, &n)) { cli_fail("cannot read %s", o->input); return 2; }
  uint32_t count = o->count ? o->count : 1;
  for (uint32_t k = 0; k < count; k++) {
    tl_fuzz_options fo = {g_features | g_eh | (g_gc == GC_ALL ? TL_FUZZ_GC_ON : 0), 0, 0};
    tl_module *m = in ? tl_fuzz_generate(in, n, &fo) : gen_seed(o->seed + k, 0);
    tl_error err;
    if (tl_module_validate(m, &err) != TL_OK) {
      fprintf(stderr, "tilt-fuzz: seed %" PRIu64 ": generated module does not validate (func %u): %s\n", o->seed + k, err.func_index, err.msg);
      if (getenv("TILT_FUZZ_DUMP")) { char *t = tl_module_print(m); if (t) fputs(t, stderr); free(t); }
      tl_module_free(m);
      free(in);
      return 1;
    }
    if (getenv("TILT_FUZZ_DUMP")) { char *t = tl_module_print(m); if (t) fputs(t, stdout); free(t); }
    uint8_t *w = NULL;
    size_t wn = 0;
    write_mod(m, &w, &wn);
    char path[600];
    if (count == 1) snprintf(path, sizeof path, "%s", o->out ? o->out : "fuzz.wasm");
    else snprintf(path, sizeof path, "%s/%" PRIu64 ".wasm", o->out ? o->out : ".", o->seed + k);
    if (cli_write_file(path, w, wn)) { free(w); tl_module_free(m); free(in); return 2; }
    free(w);
    tl_module_free(m);
  }
  free(in);
  return 0;
}

/* The planted bug (a test-only pass, never registered): i64.clz becomes
 * i64.ctz. `planted FILE` exits 1 when that changes FILE's fuzz-exec log
 * (the bug shows); the reducer's test shrinks such a module. `count FILE`
 * prints its IR node count. */
static void planted_visit(tl_walk *w, tl_expr **slot) {
  (void)w;
  if ((*slot)->op == TL_OP_I64_CLZ) (*slot)->op = TL_OP_I64_CTZ;
}

static tl_status planted_pass(tl_module *m, void *ctx, tl_error *err) {
  (void)ctx;
  (void)err;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    tl_walk_post(m, f, &f->body, planted_visit, NULL);
  }
  return TL_OK;
}

/* A registered pass, a pass list "a,b,c", -O levels ("O2", "Os") or
 * "planted": what `reduce --pass` and the divergence predicate apply. */
static tl_status named_pass(tl_module *m, void *ctx, tl_error *err) {
  const char *spec = ctx;
  if (!strcmp(spec, "planted")) return planted_pass(m, NULL, err);
  tl_pass_options po = {0};
  po.threads = 1;
  po.closed_world = g_closed_world;
  po.low_memory_unused = strstr(spec, "optimize-added-constants") != NULL;
  if (spec[0] == 'O' && spec[1] && !spec[2]) {
    uint32_t level = spec[1] >= '0' && spec[1] <= '4' ? (uint32_t)(spec[1] - '0') : 2;
    uint32_t shrink = spec[1] == 's' ? 1 : spec[1] == 'z' ? 2 : 0;
    return tl_module_optimize(m, level, shrink, &po, err);
  }
  char buf[1024];
  const char *names[64];
  uint32_t n = 0;
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *t = strtok(buf, ","); t && n < 64; t = strtok(NULL, ",")) names[n++] = t;
  return tl_module_run_passes(m, names, n, &po, err);
}

static int do_inspect(const char *what, const char *path) {
  uint8_t *p = NULL;
  size_t n = 0;
  if (cli_read_file(path, &p, &n)) return 2;
  tl_error err;
  tl_module *m = read_mod(p, n, &err);
  if (!m) { free(p); return 2; }
  int rc = 0;
  if (!strncmp(what, "exec", 4)) {
    char *log = tl_module_fuzz_exec_engine(m, g_fuel, what[4] ? TL_ENGINE_JIT : TL_ENGINE_INTERP);
    fputs(log, stdout);
    free(log);
  } else if (!strcmp(what, "count")) {
    uint64_t nodes = 0;
    for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) nodes += tl_expr_count(TL_FUNC(m, i)->body);
    printf("%" PRIu64 "\n", nodes);
  } else {
    rc = tl_reduce_diverges(p, n, planted_pass, NULL, g_fuel) ? 1 : 0;
  }
  tl_module_free(m);
  free(p);
  return rc;
}

/* -------------------------------------------------------------- reducer */
typedef struct {
  const opts *o;
  char cand[600];
  double t0;
} reduce_ctx;

/* --command: run it on the candidate written to a file; a non-zero exit
 * (or death by a signal) is "still fails". */
static bool command_fails(const uint8_t *w, size_t n, void *vctx) {
  reduce_ctx *c = vctx;
  if (cli_write_file(c->cand, w, n)) return false;
  char cmd[4096];
  const char *command = c->o->command, *at = strstr(command, "{}");
  if (at) snprintf(cmd, sizeof cmd, "%.*s%s%s", (int)(at - command), command, c->cand, at + 2);
  else snprintf(cmd, sizeof cmd, "%s %s", command, c->cand);
  strncat(cmd, " >/dev/null 2>&1", sizeof cmd - strlen(cmd) - 1);
  return system(cmd) != 0;
}

/* --pass: in process, no command at all. */
static bool pass_diverges(const uint8_t *w, size_t n, void *vctx) {
  reduce_ctx *c = vctx;
  return tl_reduce_diverges(w, n, named_pass, (void *)c->o->pass, g_fuel);
}

static void reduce_progress(const tl_reduce_stats *st, void *vctx) {
  reduce_ctx *c = vctx;
  if (c->o->quiet) return;
  fprintf(stderr, "\r[reduce] %zu bytes, round %" PRIu64 ", %" PRIu64 " tries (%" PRIu64 " kept, %" PRIu64
          " dups, %" PRIu64 " invalid), %.1fs   ", st->bytes, st->rounds, st->tries, st->kept, st->dups,
          st->invalid, now() - c->t0);
}

static int do_reduce(const opts *o) {
  uint8_t *in = NULL;
  size_t n = 0;
  if (!o->input || cli_read_file(o->input, &in, &n)) { cli_fail("reduce: cannot read the input"); return 2; }
  if (!o->command == !o->pass) { cli_fail("reduce: give --command 'CMD {}' or --pass NAME"); free(in); return 2; }
  const char *out = o->out ? o->out : "reduced.wasm";
  reduce_ctx c = {o, "", now()};
  snprintf(c.cand, sizeof c.cand, "%s.candidate.wasm", out);
  tl_reduce_options ro = {0};
  ro.interesting = o->command ? command_fails : pass_diverges;
  ro.ctx = &c;
  ro.max_seconds = o->seconds;
  ro.progress = reduce_progress;
  tl_reduce_stats st;
  tl_error err;
  uint8_t *best = NULL;
  size_t bn = 0;
  tl_status s = tl_reduce(in, n, &ro, &best, &bn, &st, &err);
  unlink(c.cand);
  free(in);
  if (s != TL_OK) { cli_fail("%s", err.msg); return 2; }
  int rc = cli_write_file(out, best, bn) ? 2 : 0;
  fprintf(stderr, "%stilt-fuzz reduce: %zu -> %zu bytes in %.1fs: %" PRIu64 " rounds, %" PRIu64 " tries (%" PRIu64
          " kept, %" PRIu64 " duplicates, %" PRIu64 " invalid) -> %s\n", o->quiet ? "" : "\n", n, bn, now() - c.t0,
          st.rounds, st.tries, st.kept, st.dups, st.invalid, out);
  free(best);
  return rc;
}

static int usage(FILE *f, int rc) {
  fprintf(f,
          "usage: tilt-fuzz MODE [--seed S] [--iterations N | --seconds T] [--out-dir D]\n"
          "  --disable FEATURE: the generator does not use it (wasm-opt names: simd, multivalue, ...)\n"
          "  --eh | --no-eh: exception handling in generated modules (default: on in roundtrip,\n"
          "         opt-valid and jit, else as fuzz.h's TL_FUZZ_EXEC_EH says)\n"
          "  --gc | --no-gc: GC types and instructions in every generated module, or in none\n"
          "         (default: one seed in four in roundtrip, opt and opt-valid; none elsewhere;\n"
          "         jit and v8 refuse --gc)\n"
          "  modes: roundtrip | opt | jit | v8 | cfg (differential; exit 1 on divergence)\n"
          "         opt-valid: opt's passes and pipelines, output must validate and read back (runs nothing)\n"
          "         [--timeout SEC] an iteration running longer is a failure (hang; default 30)\n"
          "         [--validate-every N] roundtrip: run wasm-validate every N iterations (0 never)\n"
          "         [--passes a,b,c] opt, opt-valid: draw passes from these only\n"
          "         [--closed-world] opt, opt-valid, reduce: passes and pipelines assume a closed world\n"
          "         (the GC passes that need it run; cfp refuses to run without it)\n"
          "         [--fuel N] instructions each export call may run (default 4194304); an iteration\n"
          "         where an execution ran out before any export was compared is inconclusive\n"
          "       tilt-fuzz gen [--seed S | --input BYTES] [--count N] -o OUT (a directory when N > 1)\n"
          "       tilt-fuzz reduce IN.wasm (--command 'CMD [{}]' | --pass NAME) [--seconds T] -o OUT.wasm\n"
          "         keeps the module failing: CMD exits non-zero on it ({} = the file), or (in process)\n"
          "         NAME changes its fuzz-exec log; NAME: a pass, a list a,b,c, O0..O4, Os, Oz, planted\n"
          "       tilt-fuzz exec FILE | exec-jit FILE: its observable behaviour (tl_module_fuzz_exec)\n"
          "       tilt-fuzz planted FILE: exit 1 if the test-only planted pass changes FILE's behaviour\n"
          "       tilt-fuzz count FILE: its IR node count (test helpers)\n"
          "       tilt-fuzz v8-check FILE: exit 1 if tilt's interpreter and V8 (node) differ on it\n");
  return rc;
}

/* --passes a,b,c: opt and opt-valid draw their passes from these only
 * (a campaign aimed at passes that changed). False on an unknown name. */
static bool only_passes(const char *arg) {
  static char list[1024]; /* the names point into it */
  snprintf(list, sizeof list, "%s", arg);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    uint32_t k = 0;
    while (tl_pass_name(k) && strcmp(tl_pass_name(k), tok)) k++;
    if (!tl_pass_name(k)) {
      cli_fail("--passes: unknown pass %s", tok);
      return false;
    }
    if (g_nonly < sizeof g_only / sizeof *g_only) g_only[g_nonly++] = tl_pass_name(k);
  }
  return g_nonly > 0;
}

int main(int argc, char **argv) {
  cli_init(argv[0]);
  opts o = {0};
  o.seed = 1;
  o.iterations = 100;
  o.out_dir = "fuzz-failures";
  o.validate_every = 100;
  o.timeout = 30;
  if (argc < 2) return usage(stderr, 2);
  o.mode = argv[1];
  if (!strcmp(o.mode, "--help") || !strcmp(o.mode, "-h")) return usage(stdout, 0);
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    bool more = i + 1 < argc;
    if (!strcmp(a, "--seed") && more) o.seed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(a, "--iterations") && more) o.iterations = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(a, "--seconds") && more) o.seconds = strtod(argv[++i], NULL);
    else if (!strcmp(a, "--out-dir") && more) o.out_dir = argv[++i];
    else if (!strcmp(a, "--validate-every") && more) o.validate_every = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(a, "--timeout") && more) o.timeout = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(a, "--fuel") && more) {
      g_fuel = strtoull(argv[++i], NULL, 0);
      size_t l = strlen(g_extra);
      snprintf(g_extra + l, sizeof g_extra - l, " --fuel %s", argv[i]);
    }
    else if (!strcmp(a, "--count") && more) o.count = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(a, "--input") && more) o.input = argv[++i];
    else if (!strcmp(a, "--command") && more) o.command = argv[++i];
    else if (!strcmp(a, "--pass") && more) o.pass = argv[++i];
    else if (!strcmp(a, "-o") && more) o.out = argv[++i];
    else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o.quiet = true;
    else if (!strcmp(a, "--passes") && more) {
      if (!only_passes(argv[++i])) return 2;
      size_t l = strlen(g_extra);
      snprintf(g_extra + l, sizeof g_extra - l, " --passes %s", argv[i]);
    }
    else if (!strcmp(a, "--closed-world")) {
      g_closed_world = true;
      size_t l = strlen(g_extra);
      snprintf(g_extra + l, sizeof g_extra - l, " %s", a);
    }
    else if (!strcmp(a, "--eh") || !strcmp(a, "--no-eh")) {
      g_eh = a[2] == 'e' ? TL_FUZZ_EH_ON : TL_FUZZ_EH_OFF;
      size_t l = strlen(g_extra);
      snprintf(g_extra + l, sizeof g_extra - l, " %s", a);
    }
    else if (!strcmp(a, "--gc") || !strcmp(a, "--no-gc")) {
      g_gc = a[2] == 'g' ? GC_ALL : GC_NONE;
      size_t l = strlen(g_extra);
      snprintf(g_extra + l, sizeof g_extra - l, " %s", a);
    }
    else if (!strcmp(a, "--disable") && more) {
      uint32_t f = tl_feature_from_name(argv[++i]);
      if (!f) { cli_fail("unknown feature %s", argv[i]); return 2; }
      g_features &= ~f;
      size_t l = strlen(g_extra);
      snprintf(g_extra + l, sizeof g_extra - l, " --disable %s", argv[i]);
    }
    else if (a[0] != '-' && !o.input) o.input = a;
    else { cli_fail("unknown argument %s", a); return usage(stderr, 2); }
  }
  if (!g_eh && (!strcmp(o.mode, "roundtrip") || !strcmp(o.mode, "opt-valid") || !strcmp(o.mode, "jit")))
    g_eh = TL_FUZZ_EH_ON;
  if (!strcmp(o.mode, "v8")) g_eh_legacy = TL_FUZZ_EH_LEGACY;
  if (g_gc == GC_ALL && (!strcmp(o.mode, "jit") || !strcmp(o.mode, "v8"))) {
    cli_fail("--gc: %s mode runs engines without GC (the JIT refuses GC modules, node 20's V8 has no final GC)",
             o.mode);
    return 2;
  }
  if (g_gc == GC_UNSET)
    g_gc = !strcmp(o.mode, "roundtrip") || !strcmp(o.mode, "opt") || !strcmp(o.mode, "opt-valid") ? GC_SOME
                                                                                                      : GC_NONE;
  if (!strcmp(o.mode, "gen")) return do_gen(&o);
  if (!strcmp(o.mode, "reduce")) return do_reduce(&o);
  if (!strcmp(o.mode, "v8-check")) {
    /* exit 1 when tilt's interpreter and V8 differ on FILE (for reduce --command) */
    uint8_t *p = NULL;
    size_t n = 0;
    if (!o.input || cli_read_file(o.input, &p, &n)) return usage(stderr, 2);
    g_v8_in = p;
    g_v8_inn = n;
    o.iterations = 1;
    o.quiet = true;
    int rc = run_mode(&o);
    free(p);
    return rc;
  }
  if (!strcmp(o.mode, "planted") || !strcmp(o.mode, "count") || !strcmp(o.mode, "exec") ||
      !strcmp(o.mode, "exec-jit")) {
    if (!o.input) return usage(stderr, 2);
    return do_inspect(o.mode, o.input);
  }
  return run_mode(&o);
}
