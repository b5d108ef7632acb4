/* tilt-run — runs WebAssembly on tilt's x86-64 JIT (default) or its
 * reference interpreter (--interp).
 *   tilt-run [OPTIONS] prog.wasm [ARGS...]     WASI command: calls _start with
 *                                              stdin/stdout/stderr, exits with
 *                                              the program's status
 *   tilt-run [OPTIONS] --invoke NAME mod.wasm [ARG...]
 *                                              calls an export, prints results
 *   tilt-run --wast [--interp|--jit] [-v] [--skip-list F] [--print-check] [-ON] FILE.wast...
 *                                              runs spec scripts (wast.c)
 * A trap prints "error: trap: REASON" and exits 134. An uncaught wasm
 * exception prints "error: uncaught exception: tag T" and exits 1.
 * Options: --fuel N (instruction budget: the interpreter counts
 * instructions, the JIT charges function entries and loop iterations by
 * their instruction counts; both stop with "fuel exhausted"), --max-depth N
 * (call frames), --interp / --jit (engine), -O2 (tl_module_optimize first, the
 * JIT then compiles the written bytes), --compile-only (compile every
 * function, print time and code size), --eager (compile every function
 * before running; by default each compiles at its first call), --threads N
 * (threads for --eager/--compile-only; default one per core), --stats (JIT:
 * print how many functions were compiled and the code size to stderr),
 * --no-avx (the JIT's SIMD code in SSE forms even where the CPU has AVX),
 * --relaxed-native (the interpreter's relaxed SIMD picks what the JIT
 * picks; default: the spec's deterministic profile; also for --wast).
 * TILT_ENGINE=interp in the environment makes the interpreter the default. */
#include "cli.h"
#include "host/host.h"
#include "wast.h"
#include "ir.h"
#include "runtime/runtime.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static void usage(void) {
  fprintf(stderr, "usage: tilt-run [--interp|--jit] [-O2] [--eager] [--compile-only] [--fuel N]\n"
                  "                [--max-depth N] [--threads N] [--stats] [--no-avx] [--relaxed-native]\n"
                  "                prog.wasm [ARGS...]\n"
                  "       tilt-run [OPTIONS] --invoke NAME mod.wasm [ARG...]\n"
                  "       tilt-run --wast [--interp|--jit] [--relaxed-native] [-v] [--skip-list F] [--print-check] [-ON]\n"
                  "                FILE.wast...\n");
  exit(2);
}

static bool parse_arg(const char *s, uint32_t type, tl_value *v) {
  char *end;
  memset(v, 0, sizeof *v);
  v->type = type;
  switch (type) {
  case TL_VAL_I32: v->of.i32 = (int32_t)strtoll(s, &end, 0); break;
  case TL_VAL_I64: v->of.i64 = (int64_t)strtoull(s, &end, 0); break;
  case TL_VAL_F32: { float f = strtof(s, &end); memcpy(&v->of.f32, &f, 4); break; }
  case TL_VAL_F64: { double d = strtod(s, &end); memcpy(&v->of.f64, &d, 8); break; }
  default: return false;
  }
  return *s && !*end;
}

/* A value of the any hierarchy (runtime.h's encoding): "anyref:null",
 * "i31ref:N" (signed), "structref:non-null", "arrayref:non-null",
 * "anyref:non-null" (an internalized host value). false: not one. */
static bool gc_value(const tl_value *v) {
  uint32_t t = v->type;
  if (t < TL_REF_BASE) return false;
  uint32_t ht = tl_ref_heap(t);
  if (ht == TL_HT_FUNC || ht == TL_HT_NOFUNC || ht == TL_HT_EXTERN || ht == TL_HT_NOEXTERN || ht == TL_HT_EXN ||
      ht == TL_HT_NOEXN)
    return false;
  uint64_t w = (uint64_t)(uintptr_t)v->of.ref;
  const tl_gcobj *o = tl_gc_is_obj(w) ? (const tl_gcobj *)(uintptr_t)w : NULL;
  if (tl_heap_is_def(ht) && !o && w) {   /* a typed function reference */
    printf("funcref:non-null\n");
    return true;
  }
  uint32_t x = (uint32_t)(w >> 1) & 0x7fffffffu;
  if (!w) printf("anyref:null\n");
  else if ((w & 1) && !(w & TL_GC_HOST)) printf("i31ref:%" PRId32 "\n", (int32_t)(x << 1) >> 1);
  else if (o) printf("%s:non-null\n", o->rtt->kind == TL_DT_STRUCT ? "structref" : "arrayref");
  else printf("anyref:non-null\n");
  return true;
}

static void print_value(const tl_value *v) {
  switch (v->type) {
  case TL_VAL_I32: printf("i32:%" PRId32 "\n", v->of.i32); break;
  case TL_VAL_I64: printf("i64:%" PRId64 "\n", v->of.i64); break;
  case TL_VAL_F32: { float f; memcpy(&f, &v->of.f32, 4); printf("f32:%.9g\n", (double)f); break; }
  case TL_VAL_F64: { double d; memcpy(&d, &v->of.f64, 8); printf("f64:%.17g\n", d); break; }
  case TL_VAL_V128:
    printf("v128:");
    for (int i = 0; i < 16; i++) printf("%02x", v->of.v128[i]);
    printf("\n");
    break;
  default:
    if (!gc_value(v)) printf("%s:%s\n", v->type == TL_VAL_FUNCREF ? "funcref" : "externref",
                             v->of.ref ? "non-null" : "null");
  }
}

/* -O<n>: optimize, write, read back (the JIT compiles body bytes). */
static tl_module *optimized(tl_module *m, int level, tl_error *err) {
  uint8_t *out = NULL;
  size_t n = 0;
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  tl_module *r = NULL;
  if (tl_module_optimize(m, (uint32_t)level, 0, NULL, err) == TL_OK &&
      tl_module_write(m, NULL, &out, &n, err) == TL_OK)
    r = tl_module_read(out, n, &ro, err);
  free(out);
  tl_module_free(m);
  return r;
}

static tl_status stub_import(tl_host_call *call, void *user, const tl_value *args, tl_value *results,
                             tl_error *err) {
  (void)call, (void)user, (void)args, (void)results;
  return tl_errorf(err, TL_E_TRAP, TL_NO_OFFSET, "import not available with --compile-only");
}

/* --compile-only: fresh tables, memories and globals for the module's
 * imports of them (function imports get stub_import). */
static void stub_imports(tl_module *m, tl_store *s, tl_linker *l) {
  for (uint32_t k = 0; k < m->nimported_funcs; k++)
    tl_linker_define_fallback(l, TL_FUNC(m, k)->imp.module, stub_import, NULL);
  for (uint32_t k = 0; k < m->nimported_tables; k++) {
    tl_table *t = TL_TABLE(m, k);
    uint32_t max = t->max > UINT32_MAX ? UINT32_MAX : (uint32_t)t->max;
    tl_extern x = tl_host_table_new(s, t->elem, (uint32_t)t->min, max, t->has_max);
    tl_linker_define_n(l, t->imp.module, t->imp.module_len, t->imp.name, t->imp.name_len, x);
  }
  for (uint32_t k = 0; k < m->nimported_memories; k++) {
    tl_memory *mm = TL_MEMORY(m, k);
    uint32_t max = mm->max > 65536 ? 65536 : (uint32_t)mm->max;
    tl_extern x = mm->shared ? tl_host_shared_memory_new(s, (uint32_t)mm->min, max)
                             : tl_host_memory_new(s, (uint32_t)mm->min, max, mm->has_max);
    tl_linker_define_n(l, mm->imp.module, mm->imp.module_len, mm->imp.name, mm->imp.name_len, x);
  }
  for (uint32_t k = 0; k < m->nimported_globals; k++) {
    tl_global *g = TL_GLOBAL(m, k);
    tl_value v;
    memset(&v, 0, sizeof v);
    v.type = (uint32_t)g->type;
    tl_extern x = tl_host_global_new(s, v, g->mut);
    tl_linker_define_n(l, g->imp.module, g->imp.module_len, g->imp.name, g->imp.name_len, x);
  }
}

/* Runs and reports: returns the process exit status. */
static int report(tl_status st, const tl_error *err, const tl_wasi *w) {
  if (st == TL_OK) return 0;
  if (st == TL_E_EXIT) return w->exit_code & 0xff;
  fflush(stdout);
  if (st == TL_E_TRAP) fprintf(stderr, "error: trap: %s\n", err->msg);
  else fprintf(stderr, "error: %s\n", err->msg);
  return st == TL_E_TRAP || st == TL_E_EXHAUSTED ? 134 : 1;
}

static int invoke(tl_instance *inst, const char *name, int argc, char **argv, tl_wasi *w) {
  tl_extern fn;
  if (tl_instance_export(inst, name, &fn) || fn.kind != TL_EXTERNKIND_FUNC) {
    cli_fail("no exported function '%s'", name);
    return 1;
  }
  const uint32_t *pt, *rt;
  uint32_t np, nr, nres = 0;
  tl_func_type_of(fn, &pt, &np, &rt, &nr);
  if ((uint32_t)argc != np) {
    cli_fail("'%s' takes %u arguments, %d given", name, np, argc);
    return 1;
  }
  tl_value *args = calloc(np + 1, sizeof *args), *res = calloc(nr + 1, sizeof *res);
  int rc = 0;
  for (uint32_t i = 0; i < np; i++)
    if (!parse_arg(argv[i], pt[i], &args[i])) {
      cli_fail("bad argument '%s'", argv[i]);
      rc = 1;
    }
  if (!rc) {
    tl_error err = {0};
    tl_status st = tl_invoke(inst, name, args, np, res, nr, &nres, &err);
    for (uint32_t i = 0; st == TL_OK && i < nres; i++) print_value(&res[i]);
    rc = report(st, &err, w);
  }
  free(args);
  free(res);
  return rc;
}

int main(int argc, char **argv) {
  cli_init(argv[0]);
  for (int k = 1; k < argc; k++)          /* --no-avx: every mode, then out of the way */
    if (!strcmp(argv[k], "--no-avx")) {
      tl_jit_use_avx(false);
      memmove(argv + k, argv + k + 1, (size_t)(argc - k) * sizeof *argv);
      argc--;
      break;
    }
  for (int k = 1; k < argc; k++)
    if (!strcmp(argv[k], "--wast")) return tl_wast_main(argc, argv);
  const char *inv = NULL;
  uint64_t fuel = 0;
  uint32_t depth = 0;
  int engine = TL_ENGINE_JIT, opt = 0;
  bool jit_asked = false;
  const char *env_engine = getenv("TILT_ENGINE");
  if (env_engine && !strcmp(env_engine, "interp")) engine = TL_ENGINE_INTERP;
  bool compile_only = false, eager = false, stats = false;
  int relaxed = TL_RELAXED_DETERMINISTIC;
  int threads = 0;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "--invoke") && i + 1 < argc) inv = argv[++i];
    else if (!strcmp(argv[i], "--interp")) engine = TL_ENGINE_INTERP;
    else if (!strcmp(argv[i], "--jit")) engine = TL_ENGINE_JIT, jit_asked = true;
    else if (!strncmp(argv[i], "-O", 2) && argv[i][2] >= '0' && argv[i][2] <= '4' && !argv[i][3]) opt = argv[i][2] - '0';
    else if (!strcmp(argv[i], "--compile-only")) compile_only = true;
    else if (!strcmp(argv[i], "--eager")) eager = true;
    else if (!strcmp(argv[i], "--stats")) stats = true;
    else if (!strcmp(argv[i], "--relaxed-native")) relaxed = TL_RELAXED_NATIVE;
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--fuel") && i + 1 < argc) fuel = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--max-depth") && i + 1 < argc) depth = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--")) { i++; break; }
    else usage();
  }
  if (i >= argc) usage();
  const char *path = argv[i];
  uint8_t *bytes;
  size_t n;
  if (cli_read_file(path, &bytes, &n)) {
    cli_fail("cannot read %s", path);
    return 1;
  }
  tl_error err = {0};
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  ro.lazy_bodies = engine == TL_ENGINE_JIT && !opt; /* the JIT compiles bytes: no IR */
  tl_module *m = tl_module_read_any(bytes, n, &ro, &err);
  free(bytes);
  if (!m) {
    cli_print_error(path, &err);
    return 1;
  }
  if (opt && (m = optimized(m, opt, &err)) == NULL) {
    cli_print_error(path, &err);
    return 1;
  }
  if (engine == TL_ENGINE_JIT && !jit_asked && tl_module_uses_gc(m)) {
    /* the JIT refuses typed references and gc: they run on the interpreter
     * (which decodes the lazy bodies when it instantiates) */
    engine = TL_ENGINE_INTERP;
  }
  tl_wasi w = {argc - i, argv + i, environ, 0, 1, 2, 0, false, NULL, NULL};
  tl_store *s = tl_store_new();
  tl_store_set_engine(s, engine);
  tl_store_set_relaxed(s, relaxed);
  if (fuel) tl_store_set_fuel(s, fuel);
  if (depth) tl_store_set_max_depth(s, depth);
  tl_linker *l = tl_linker_new();
  tl_wasi_define(l, s, &w);
  tl_spectest_define(l, s, true);
  int rc;
  if (compile_only) stub_imports(m, s, l);   /* compile modules of any embedding */
  tl_instance *inst = tl_instantiate(s, m, l, &err);
  if (inst && (compile_only || eager) && engine == TL_ENGINE_JIT) {
    size_t code = 0;
    double sec[2] = {0, 0};
    tl_status st = tl_jit_compile_instance(inst, threads, &code, sec, &err);
    if (st) {
      rc = report(st, &err, &w);
      if (st == TL_E_UNSUPPORTED) rc = 1;
      goto done;
    }
    if (compile_only) {
      tl_jit_stats js;
      tl_jit_get_stats(inst, &js);
      printf("compiled %u functions in %.3f ms CPU, %.3f ms wall, %zu bytes of code"
             " (%.3f ms critical path)\n",
             tl_function_count(m), sec[0] * 1e3, sec[1] * 1e3, code, js.critical * 1e3);
      rc = 0;
      goto done;
    }
  }
  if (!inst) {
    rc = err.code == TL_E_EXIT ? (w.exit_code & 0xff) : report(err.code, &err, &w);
    if (err.code == TL_E_LINK || err.code == TL_E_UNSUPPORTED) rc = 1;
  } else if (inv) {
    rc = invoke(inst, inv, argc - i - 1, argv + i + 1, &w);
  } else {
    uint32_t nres;
    tl_status st = tl_invoke(inst, "_start", NULL, 0, NULL, 0, &nres, &err);
    rc = report(st, &err, &w);
  }
done:
  fflush(stdout);
  if (stats && inst && engine == TL_ENGINE_JIT) {
    tl_jit_stats js;
    tl_jit_get_stats(inst, &js);
    fprintf(stderr, "jit: %u of %u functions compiled, %zu bytes of code\n", js.compiled,
            tl_function_count(m) - m->nimported_funcs, js.code_bytes);
  }
  tl_linker_free(l);
  tl_store_free(s);
  tl_module_free(m);
  return rc;
}
