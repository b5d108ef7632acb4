/* gen_modes.c — libFuzzer target over the tilt-fuzz generator: the input's
 * first byte picks a mode, the rest becomes a valid module (src/fuzz):
 *   0 roundtrip  validates; write, read, write, read, write: the last two
 *                writes are the same bytes and read to the same printed IR
 *                (as `tilt-fuzz roundtrip`: the first write normalizes)
 *   1 pass       one registered pass that keeps behaviour (byte 2 picks
 *                it): still valid, same
 *                fuzz-exec log (compared up to the first "[stop" line)
 *   2 pipeline   -O1..-O4, -Os, -Oz (byte 2 picks it): the same
 *   3 jit        interpreter against JIT, before and after -O2 (no SIMD)
 * Any divergence prints what differed and aborts. GEN_MODES_ONLY=K runs
 * mode K on every input. Built only with
 * -DTILT_FUZZ=ON (clang; test/fuzzgen.cmake); run by test/fuzz/run.sh. */
#include "fuzz/fuzz.h"
#include "fuzz/reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUEL (1u << 20)

static void die(const char *what, const char *a, const char *b) {
  fprintf(stderr, "gen_modes: %s\n", what);
  if (a) fprintf(stderr, "--- before\n%s", a);
  if (b) fprintf(stderr, "--- after\n%s", b);
  abort();
}

static uint8_t *write_or_die(tl_module *m, size_t *n) {
  uint8_t *w = NULL;
  tl_write_options wo = {0};
  tl_error err;
  if (tl_module_write(m, &wo, &w, n, &err) != TL_OK) die(err.msg, NULL, NULL);
  return w;
}

static tl_module *read_or_die(const uint8_t *w, size_t n) {
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  tl_error err;
  tl_module *m = tl_module_read(w, n, &ro, &err);
  if (!m) die(err.msg, NULL, NULL);
  return m;
}

static void roundtrip(const uint8_t *w, size_t n) {
  tl_module *a = read_or_die(w, n);
  size_t n1, n2;
  uint8_t *w1 = write_or_die(a, &n1);
  tl_module *b = read_or_die(w1, n1);
  uint8_t *w2 = write_or_die(b, &n2);
  tl_module *c = read_or_die(w2, n2);
  if (n1 != n2 || memcmp(w1, w2, n1)) die("second write differs from the first", NULL, NULL);
  char *pb = tl_module_print(b), *pc = tl_module_print(c);
  if (strcmp(pb, pc)) die("printed IR differs after a round trip", pb, pc);
  free(pb);
  free(pc);
  free(w1);
  free(w2);
  tl_module_free(a);
  tl_module_free(b);
  tl_module_free(c);
}

/* Runs one pass (name) or a pipeline (level/shrink) and compares logs. */
static void optimize(const uint8_t *w, size_t n, const char *name, uint32_t level, uint32_t shrink) {
  tl_module *a = read_or_die(w, n), *b = read_or_die(w, n);
  char *la = tl_module_fuzz_exec(a, FUEL);
  tl_pass_options po = {0};
  po.threads = 1;
  /* optimize-added-constants* refuse to run without it (as in wasm-opt) */
  po.low_memory_unused = name && !strncmp(name, "optimize-added-constants", 24);
  tl_error err;
  tl_status rc = name ? tl_module_run_passes(b, &name, 1, &po, &err) : tl_module_optimize(b, level, shrink, &po, &err);
  if (rc != TL_OK || tl_module_validate(b, &err) != TL_OK) {
    fprintf(stderr, "gen_modes: pass %s / -O%u shrink %u\n", name ? name : "-", level, shrink);
    die(err.msg, NULL, NULL);
  }
  char *lb = tl_module_fuzz_exec(b, FUEL);
  if (!tl_fuzz_same_behaviour(la, lb)) {
    fprintf(stderr, "gen_modes: pass %s / -O%u shrink %u\n", name ? name : "-", level, shrink);
    die("behaviour differs after optimizing", la, lb);
  }
  free(la);
  free(lb);
  tl_module_free(a);
  tl_module_free(b);
}

/* The JIT compiles a function from its bytes in the input (f->code), not
 * from the IR, so the optimized module is written and read back first. */
static void jit(const uint8_t *w, size_t n) {
  tl_module *m = read_or_die(w, n);
  for (int pass = 0; pass < 2; pass++) {
    if (pass) {
      tl_pass_options po = {0};
      po.threads = 1;
      tl_error err;
      if (tl_module_optimize(m, 2, 0, &po, &err) != TL_OK) die(err.msg, NULL, NULL);
      size_t on;
      uint8_t *ow = write_or_die(m, &on);
      tl_module_free(m);
      m = read_or_die(ow, on);
      free(ow);
    }
    char *a = tl_module_fuzz_exec_engine(m, 0, TL_ENGINE_INTERP);
    char *b = tl_module_fuzz_exec_engine(m, 0, TL_ENGINE_JIT);
    if (!tl_fuzz_same_behaviour(a, b)) die(pass ? "interpreter and JIT differ after -O2" : "interpreter and JIT differ", a, b);
    free(a);
    free(b);
  }
  tl_module_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  /* GEN_MODES_ONLY=K: every input runs mode K (to fuzz one mode, or to
   * get past a known failure in another) */
  static int only = -2;
  if (only == -2) only = getenv("GEN_MODES_ONLY") ? atoi(getenv("GEN_MODES_ONLY")) % 4 : -1;
  uint32_t mode = only >= 0 ? (uint32_t)only : data[0] % 4, pick = data[1];
  tl_fuzz_options fo = {0, 0, 0};
  if (mode == 3) fo.features = (TL_FEATURES_ALL & ~TL_FEATURE_SIMD) | TL_FUZZ_EH_OFF; /* the JIT refuses EH */
  tl_module *m = tl_fuzz_generate(data + 2, size - 2, &fo);
  if (!m) return 0;
  tl_error err;
  if (tl_module_validate(m, &err) != TL_OK) die(err.msg, NULL, NULL);
  size_t n;
  uint8_t *w = write_or_die(m, &n);
  tl_module_free(m);
  /* the registered passes that keep behaviour (as tilt-fuzz opt): not
   * those replacing instructions by traps (remove-relaxed-simd), nor those
   * changing the interface (generate-dyncalls adds exports,
   * legalize-js-interface splits i64s: the log differs by design) */
  static uint32_t np, passes[256];
  if (!np)
    for (uint32_t i = 0; tl_pass_name(i) && np < 256; i++)
      if (tl_pass_keeps_behaviour(i)) passes[np++] = i;
  static const uint32_t lv[6][2] = {{1, 0}, {2, 0}, {3, 0}, {4, 0}, {2, 1}, {2, 2}};
  switch (mode) {
  case 0: roundtrip(w, n); break;
  case 1: if (np) optimize(w, n, tl_pass_name(passes[pick % np]), 0, 0); break;
  case 2: optimize(w, n, NULL, lv[pick % 6][0], lv[pick % 6][1]); break;
  default: jit(w, n); break;
  }
  free(w);
  return 0;
}
