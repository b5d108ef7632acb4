/* oom_test.c — out of memory is an error, never a crash, an abort or a
 * leak: with the test hook tl_scratch_fail_nth failing the 1st, 2nd, ...
 * allocation of any kind (scratch, vector and buffer growth, arena chunks,
 * module tables), reading (binary on one and two threads, text), the
 * writer, the validator, the printer, fuzz-exec on the interpreter and the
 * JIT, instantiating and invoking on both engines, every registered pass
 * alone, whole -O2 / -Os / -O3 / -Oz pipelines followed by a write, and the
 * C API builders either succeed (a failure they can work around), leaving
 * a module that validates, or fail with TL_E_NOMEM and an "out of memory"
 * message, leaving nothing allocated (LeakSanitizer in the sanitizer
 * build). A pass that refuses a module must refuse it the same way under
 * failures. Inputs are generated modules (src/fuzz) plus two handmade
 * ones. */
#include "fuzz/fuzz.h"
#include "ir/ir.h"
#include "wasm-io/wasmio.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_main.h"

enum { MAX_N = 200000 };

typedef struct {
  const uint8_t *w;
  size_t n;
  uint32_t threads;        /* op_read: reader threads */
  bool text;               /* op_read: w is text */
  bool lazy;               /* op_read: lazy bodies, then a renumbering pass, a decoding one and a write */
} input;

static tl_module *read_in(const input *in) {
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  tl_error err;
  tl_module *m = tl_module_read(in->w, in->n, &ro, &err);
  ck_assert_msg(m != NULL, "read: %s", err.msg);
  return m;
}

typedef tl_status (*op_fn)(tl_module *m, const void *arg, tl_error *err);

static tl_status op_write(tl_module *m, const void *arg, tl_error *err) {
  (void)arg;
  tl_write_options o = {.debug_names = true, .optimize_stack = true, .threads = 1};
  uint8_t *p = NULL;
  size_t n = 0;
  tl_status st = tl_module_write(m, &o, &p, &n, err);
  free(p);
  return st;
}

static tl_status op_validate(tl_module *m, const void *arg, tl_error *err) {
  (void)arg;
  return tl_module_validate(m, err);
}

static tl_status op_pass(tl_module *m, const void *arg, tl_error *err) {
  const char *name = arg;
  tl_pass_options po = {0};
  po.threads = 1;
  return tl_module_run_passes(m, &name, 1, &po, err);
}

/* fuzz-exec and the printer report nothing: they must only survive. */
static tl_status op_exec(tl_module *m, const void *arg, tl_error *err) {
  (void)arg, (void)err;
  free(tl_module_fuzz_exec(m, 1u << 16));
  return TL_OK;
}

static tl_status op_exec_jit(tl_module *m, const void *arg, tl_error *err) {
  (void)arg, (void)err;
  free(tl_module_fuzz_exec_engine(m, 1u << 16, TL_ENGINE_JIT));
  return TL_OK;
}

static tl_status op_print(tl_module *m, const void *arg, tl_error *err) {
  (void)arg, (void)err;
  free(tl_module_print(m));
  return TL_OK;
}

/* Reading (binary: on one thread and on two, the parallel decode; text:
 * the module as printed): the module read is freed at once. */
static tl_status op_read(tl_module *m, const void *arg, tl_error *err) {
  (void)m;
  const input *in = arg;
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  ro.threads = in->threads;
  ro.lazy_bodies = in->lazy;
  tl_module *r = in->text ? tl_module_parse_text((const char *)in->w, in->n, &ro, err)
                          : tl_module_read(in->w, in->n, &ro, err);
  tl_status st = r ? TL_OK : err->code;
  if (r && in->lazy) {
    static const char *const passes[] = {"remove-unused-module-elements", "precompute"};
    tl_pass_options po = {.threads = in->threads};
    st = tl_module_run_passes(r, passes, 2, &po, err);
    if (!st) st = op_write(r, NULL, err);
  }
  tl_module_free(r);
  return st;
}

/* The execution API outside any scope: instantiate (import a.f a host
 * function) and invoke main(3) with fuel, on the engine *arg. */
static tl_status host_nop(tl_host_call *call, void *user, const tl_value *args, tl_value *results,
                          tl_error *err) {
  (void)call, (void)user, (void)args, (void)results, (void)err;
  return TL_OK;
}

static tl_status op_run(tl_module *m, const void *arg, tl_error *err) {
  tl_store *s = tl_store_new();
  tl_linker *l = tl_linker_new();
  tl_status st = TL_E_NOMEM;
  if (s && l) {
    tl_store_set_engine(s, *(const int *)arg);
    tl_store_set_fuel(s, 100000);
    static const uint32_t i32[] = {TL_TYPE_I32};
    tl_linker_define(l, "a", "f", tl_host_func_new(s, i32, 1, NULL, 0, host_nop, NULL));
    tl_instance *inst = tl_instantiate(s, m, l, err);
    st = inst ? TL_OK : err->code;
    if (inst) {
      tl_value x = {.type = TL_TYPE_I32, .of.i32 = 3}, r[1];
      uint32_t nr = 0;
      st = tl_invoke(inst, "main", &x, 1, r, 1, &nr, err);
    }
  } else {
    tl_nomem(err, "store");
  }
  tl_linker_free(l);
  tl_store_free(s);
  return st;
}

/* -O<opt> at shrink level <shrink> on one thread (low_memory_unused adds
 * optimize-added-constants), then a write with stack optimization. */
typedef struct {
  uint32_t opt, shrink;
  bool low_memory_unused;
} level;

static tl_status op_optimize_write(tl_module *m, const void *arg, tl_error *err) {
  const level *l = arg;
  tl_pass_options po = {0};
  po.threads = 1;
  po.low_memory_unused = l->low_memory_unused;
  tl_status st = tl_module_optimize(m, l->opt, l->shrink, &po, err);
  return st == TL_OK ? op_write(m, NULL, err) : st;
}

static const char *op_name(op_fn op, const void *arg) {
  return op == op_pass ? arg : op == op_optimize_write ? "optimize+write" : op == op_read ? "read" : op == op_run ? "run" : "op";
}

/* Fails the n-th scratch allocation of op for n = 1, 2, ... until op runs
 * through with the failure not reached; returns how many runs reported
 * TL_E_NOMEM. */
/* TILT_OOM_STRIDE=k (default 1: all): after the first 4 allocations, only
 * every k-th is failed, from an offset taken from TILT_SAMPLE_SEED (CI sets
 * it per commit), so every allocation comes up within k commits. */
static uint64_t env_u64(const char *name, uint64_t dflt) {
  const char *s = getenv(name);
  return s && *s ? strtoull(s, NULL, 0) : dflt;
}

static uint64_t next_n(uint64_t n) {
  uint64_t k = env_u64("TILT_OOM_STRIDE", 1);
  if (k <= 1 || n < 4) return n + 1;
  uint64_t off = env_u64("TILT_SAMPLE_SEED", 0) % k;
  uint64_t next = n + 1;
  while (next % k != off) next++;
  return next;
}

/* What op does with no failure injected (a pass may refuse a module). */
static tl_status baseline(const input *in, op_fn op, const void *arg) {
  tl_module *m = read_in(in);
  tl_error err;
  memset(&err, 0, sizeof err);
  tl_status st = op(m, arg, &err);
  tl_module_free(m);
  return st;
}

static uint32_t fail_each(const input *in, op_fn op, const void *arg) {
  uint32_t nomem = 0;
  tl_status base = baseline(in, op, arg);
  for (uint64_t n = 1; n <= MAX_N; n = next_n(n)) {
    tl_module *m = read_in(in);
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_scratch_fail_nth(n);
    tl_status st = op(m, arg, &err);
    bool reached = tl_scratch_fail_nth(0) == 0;
    ck_assert_msg(st == base || st == TL_E_NOMEM, "%s, failing allocation %u: status %d (%s)",
                  op_name(op, arg), (unsigned)n, (int)st, err.msg);
    if (st == TL_OK && base == TL_OK) {
      tl_status v = tl_module_validate(m, &err);
      ck_assert_msg(v == TL_OK, "%s, failing allocation %u survived but invalid: %s", op_name(op, arg),
                    (unsigned)n, err.msg);
    } else if (st == TL_E_NOMEM) {
      ck_assert_int_eq(err.code, TL_E_NOMEM);
      ck_assert_msg(strstr(err.msg, "out of memory") != NULL, "message: %s", err.msg);
      nomem++;
    }
    tl_module_free(m);
    if (!reached) {
      if (getenv("OOM_TEST_VERBOSE"))
        fprintf(stderr, "%s: %u allocations, %u TL_E_NOMEM\n", op_name(op, arg), (unsigned)n - 1, nomem);
      ck_assert_int_eq(st, base);
      return nomem;
    }
  }
  ck_abort_msg("more than %d scratch allocations", MAX_N);
  return nomem;
}

static const char *const passes[] = {"duplicate-import-elimination", "flatten", "memory-packing",
                                     "reorder-functions", "reorder-globals", "rereloop"};

static void run_all(const input *in, bool jit, uint32_t *write_nomem, uint32_t *pass_nomem) {
  *write_nomem += fail_each(in, op_write, NULL);
  fail_each(in, op_validate, NULL);
  fail_each(in, op_exec, NULL);
#if defined(__x86_64__)
  if (jit) fail_each(in, op_exec_jit, NULL);
#endif
  fail_each(in, op_print, NULL);
  for (size_t i = 0; i < sizeof passes / sizeof *passes; i++) *pass_nomem += fail_each(in, op_pass, passes[i]);
}

/* The module tilt-fuzz --seed <seed> generates from nbytes of input, as
 * bytes (malloc'd: the caller frees in.w). */
static input generate(uint64_t seed, size_t nbytes, bool names) {
  uint8_t bytes[2048];
  ck_assert_uint_le(nbytes, sizeof bytes);
  tl_fuzz_seed_bytes(seed, bytes, nbytes);
  tl_fuzz_options fo = {TL_FEATURES_ALL, 0, 0};
  tl_module *g = tl_fuzz_generate(bytes, nbytes, &fo);
  ck_assert_ptr_nonnull(g);
  tl_error err;
  uint8_t *w = NULL;
  size_t n = 0;
  tl_write_options wo = {.debug_names = names};
  ck_assert_int_eq(tl_module_write(g, &wo, &w, &n, &err), TL_OK);
  tl_module_free(g);
  return (input){w, n, 1, false, false};
}

/* Generated modules. */
START_TEST(generated) {
  uint32_t wn = 0, pn = 0;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    input in = generate(seed, 2048, true);
    run_all(&in, false, &wn, &pn);
    free((void *)in.w);
  }
  ck_assert_uint_gt(wn, 0);
  ck_assert_uint_gt(pn, 0);
}
END_TEST

/* wat2wasm --debug-names of
 * (module
 *   (import "a" "f" (func $f0 (param i32)))
 *   (import "a" "f" (func $f1 (param i32)))
 *   (memory 1)
 *   (global $g0 (mut i32) (i32.const 0))
 *   ... (global (mut i32) (i32.const k)) for k = 1..128 ...
 *   (global $g129 (mut i32) (i32.const 129))
 *   (func $main (export "main") (param $x i32) (result i32) (local $t i32)
 *     (block $out
 *       (loop $top
 *         (call $f0 (local.get $x))
 *         (call $f1 (local.get $x))
 *         (global.set $g129 (i32.add (global.get $g129) (i32.const 1)))
 *         (local.set $t (i32.load (i32.const 8)))
 *         (br_table $out $top $out (local.tee $x (i32.sub (local.get $x) (local.get $t))))))
 *     (i32.add (global.get $g129) (call $two (global.get $g0))))
 *   (func $two (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
 *   (data (i32.const 0) "\00\00\00\00\00\00\00\00\01\02\00\00\00\00\00\00\00\00\00\05"))
 * duplicate imports, zeros in a segment, 130 globals (reorder-globals
 * needs 128), two functions, a br_table in a loop. */
static const uint8_t small[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x02, 0x60,
    0x01, 0x7f, 0x00, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x02, 0x0d, 0x02, 0x01,
    0x61, 0x01, 0x66, 0x00, 0x00, 0x01, 0x61, 0x01, 0x66, 0x00, 0x00, 0x03,
    0x03, 0x02, 0x01, 0x01, 0x05, 0x03, 0x01, 0x00, 0x01, 0x06, 0xce, 0x05,
    0x82, 0x01, 0x7f, 0x01, 0x41, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0x01, 0x0b,
    0x7f, 0x01, 0x41, 0x02, 0x0b, 0x7f, 0x01, 0x41, 0x03, 0x0b, 0x7f, 0x01,
    0x41, 0x04, 0x0b, 0x7f, 0x01, 0x41, 0x05, 0x0b, 0x7f, 0x01, 0x41, 0x06,
    0x0b, 0x7f, 0x01, 0x41, 0x07, 0x0b, 0x7f, 0x01, 0x41, 0x08, 0x0b, 0x7f,
    0x01, 0x41, 0x09, 0x0b, 0x7f, 0x01, 0x41, 0x0a, 0x0b, 0x7f, 0x01, 0x41,
    0x0b, 0x0b, 0x7f, 0x01, 0x41, 0x0c, 0x0b, 0x7f, 0x01, 0x41, 0x0d, 0x0b,
    0x7f, 0x01, 0x41, 0x0e, 0x0b, 0x7f, 0x01, 0x41, 0x0f, 0x0b, 0x7f, 0x01,
    0x41, 0x10, 0x0b, 0x7f, 0x01, 0x41, 0x11, 0x0b, 0x7f, 0x01, 0x41, 0x12,
    0x0b, 0x7f, 0x01, 0x41, 0x13, 0x0b, 0x7f, 0x01, 0x41, 0x14, 0x0b, 0x7f,
    0x01, 0x41, 0x15, 0x0b, 0x7f, 0x01, 0x41, 0x16, 0x0b, 0x7f, 0x01, 0x41,
    0x17, 0x0b, 0x7f, 0x01, 0x41, 0x18, 0x0b, 0x7f, 0x01, 0x41, 0x19, 0x0b,
    0x7f, 0x01, 0x41, 0x1a, 0x0b, 0x7f, 0x01, 0x41, 0x1b, 0x0b, 0x7f, 0x01,
    0x41, 0x1c, 0x0b, 0x7f, 0x01, 0x41, 0x1d, 0x0b, 0x7f, 0x01, 0x41, 0x1e,
    0x0b, 0x7f, 0x01, 0x41, 0x1f, 0x0b, 0x7f, 0x01, 0x41, 0x20, 0x0b, 0x7f,
    0x01, 0x41, 0x21, 0x0b, 0x7f, 0x01, 0x41, 0x22, 0x0b, 0x7f, 0x01, 0x41,
    0x23, 0x0b, 0x7f, 0x01, 0x41, 0x24, 0x0b, 0x7f, 0x01, 0x41, 0x25, 0x0b,
    0x7f, 0x01, 0x41, 0x26, 0x0b, 0x7f, 0x01, 0x41, 0x27, 0x0b, 0x7f, 0x01,
    0x41, 0x28, 0x0b, 0x7f, 0x01, 0x41, 0x29, 0x0b, 0x7f, 0x01, 0x41, 0x2a,
    0x0b, 0x7f, 0x01, 0x41, 0x2b, 0x0b, 0x7f, 0x01, 0x41, 0x2c, 0x0b, 0x7f,
    0x01, 0x41, 0x2d, 0x0b, 0x7f, 0x01, 0x41, 0x2e, 0x0b, 0x7f, 0x01, 0x41,
    0x2f, 0x0b, 0x7f, 0x01, 0x41, 0x30, 0x0b, 0x7f, 0x01, 0x41, 0x31, 0x0b,
    0x7f, 0x01, 0x41, 0x32, 0x0b, 0x7f, 0x01, 0x41, 0x33, 0x0b, 0x7f, 0x01,
    0x41, 0x34, 0x0b, 0x7f, 0x01, 0x41, 0x35, 0x0b, 0x7f, 0x01, 0x41, 0x36,
    0x0b, 0x7f, 0x01, 0x41, 0x37, 0x0b, 0x7f, 0x01, 0x41, 0x38, 0x0b, 0x7f,
    0x01, 0x41, 0x39, 0x0b, 0x7f, 0x01, 0x41, 0x3a, 0x0b, 0x7f, 0x01, 0x41,
    0x3b, 0x0b, 0x7f, 0x01, 0x41, 0x3c, 0x0b, 0x7f, 0x01, 0x41, 0x3d, 0x0b,
    0x7f, 0x01, 0x41, 0x3e, 0x0b, 0x7f, 0x01, 0x41, 0x3f, 0x0b, 0x7f, 0x01,
    0x41, 0xc0, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xc1, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xc2, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xc3, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xc4, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xc5, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xc6, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xc7, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xc8, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xc9, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xca, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xcb, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xcc, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xcd, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xce, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xcf, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xd0, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xd1, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xd2, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xd3, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xd4, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xd5, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xd6, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xd7, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xd8, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xd9, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xda, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xdb, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xdc, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xdd, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xde, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xdf, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xe0, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xe1, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xe2, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xe3, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xe4, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xe5, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xe6, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xe7, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xe8, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xe9, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xea, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xeb, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xec, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xed, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xee, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xef, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xf0, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xf1, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xf2, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xf3, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xf4, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xf5, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xf6, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xf7, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xf8, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xf9, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xfa, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xfb, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xfc, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xfd, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0xfe, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0xff, 0x00, 0x0b, 0x7f, 0x01,
    0x41, 0x80, 0x01, 0x0b, 0x7f, 0x01, 0x41, 0x81, 0x01, 0x0b, 0x07, 0x08,
    0x01, 0x04, 0x6d, 0x61, 0x69, 0x6e, 0x00, 0x02, 0x0a, 0x40, 0x02, 0x36,
    0x01, 0x01, 0x7f, 0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x10, 0x00, 0x20,
    0x00, 0x10, 0x01, 0x23, 0x81, 0x01, 0x41, 0x01, 0x6a, 0x24, 0x81, 0x01,
    0x41, 0x08, 0x28, 0x02, 0x00, 0x21, 0x01, 0x20, 0x00, 0x20, 0x01, 0x6b,
    0x22, 0x00, 0x0e, 0x02, 0x01, 0x00, 0x01, 0x0b, 0x0b, 0x23, 0x81, 0x01,
    0x23, 0x00, 0x10, 0x03, 0x6a, 0x0b, 0x07, 0x00, 0x20, 0x00, 0x41, 0x02,
    0x6c, 0x0b, 0x0b, 0x1a, 0x01, 0x00, 0x41, 0x00, 0x0b, 0x14, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x3a, 0x04, 0x6e, 0x61, 0x6d,
    0x65, 0x01, 0x14, 0x04, 0x00, 0x02, 0x66, 0x30, 0x01, 0x02, 0x66, 0x31,
    0x02, 0x04, 0x6d, 0x61, 0x69, 0x6e, 0x03, 0x03, 0x74, 0x77, 0x6f, 0x02,
    0x0f, 0x04, 0x00, 0x00, 0x01, 0x00, 0x02, 0x02, 0x00, 0x01, 0x78, 0x01,
    0x01, 0x74, 0x03, 0x00, 0x07, 0x0c, 0x02, 0x00, 0x02, 0x67, 0x30, 0x81,
    0x01, 0x04, 0x67, 0x31, 0x32, 0x39
};

START_TEST(handmade) {
  input in = {small, sizeof small, 1, false, false};
  tl_module *m = read_in(&in);
  tl_module_free(m);
  uint32_t wn = 0, pn = 0;
  run_all(&in, true, &wn, &pn);
  ck_assert_uint_gt(wn, 0);
  ck_assert_uint_gt(pn, 0);
}
END_TEST

/* wat2wasm of
 * (module
 *   (import "a" "f" (func $imp (param i32)))
 *   (memory 1)
 *   (global $g (mut i32) (i32.const 7))
 *   (table 2 funcref)
 *   (elem (i32.const 0) $add $twice)
 *   (type $t (func (param i32) (result i32)))
 *   (func $add (param $a i32) (result i32)
 *     (block $b (result i32)
 *       (block $c (result i32)
 *         (br_if $c (local.get $a) (i32.eqz (local.get $a)))
 *         (drop)
 *         (i32.add (local.get $a) (global.get $g)))))
 *   (func $twice (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2)))
 *   (func $once (param $x i32) (result i32) (local $y i32)
 *     (local.set $y (i32.load (local.get $x)))
 *     (if (local.get $y) (then (call $imp (local.get $y)) (return (i32.const 1))))
 *     (i32.add (local.get $y) (call $twice (local.get $x))))
 *   (func $main (export "main") (param $x i32) (result i32) (local $t i32) (local $u i64)
 *     (block $out
 *       (loop $top
 *         (call $imp (local.get $x))
 *         (global.set $g (i32.add (global.get $g) (i32.const 1)))
 *         (local.set $t (call $once (i32.load (i32.const 8))))
 *         (local.set $u (i64.extend_i32_u (local.get $t)))
 *         (i64.store (i32.const 16) (local.get $u))
 *         (if (i32.eq (local.get $t) (i32.const 3)) (then (br $out) (nop) (unreachable)))
 *         (br_table $out $top $out (local.tee $x (i32.sub (local.get $x) (local.get $t))))))
 *     (drop (i32.const 5))
 *     (i32.add (call_indirect (type $t) (local.get $x) (i32.const 1))
 *              (i32.add (call $add (global.get $g)) (call $twice (i32.const 3)))))
 *   (data (i32.const 0) "\00\00\00\00\00\00\00\00\01\02\00\00\00\05")) */
static const uint8_t pipeline_small[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x02, 0x60,
    0x01, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x00, 0x02, 0x07, 0x01, 0x01,
    0x61, 0x01, 0x66, 0x00, 0x01, 0x03, 0x05, 0x04, 0x00, 0x00, 0x00, 0x00,
    0x04, 0x04, 0x01, 0x70, 0x00, 0x02, 0x05, 0x03, 0x01, 0x00, 0x01, 0x06,
    0x06, 0x01, 0x7f, 0x01, 0x41, 0x07, 0x0b, 0x07, 0x08, 0x01, 0x04, 0x6d,
    0x61, 0x69, 0x6e, 0x00, 0x04, 0x09, 0x08, 0x01, 0x00, 0x41, 0x00, 0x0b,
    0x02, 0x01, 0x02, 0x0a, 0x97, 0x01, 0x04, 0x15, 0x00, 0x02, 0x7f, 0x02,
    0x7f, 0x20, 0x00, 0x20, 0x00, 0x45, 0x0d, 0x00, 0x1a, 0x20, 0x00, 0x23,
    0x00, 0x6a, 0x0b, 0x0b, 0x0b, 0x07, 0x00, 0x20, 0x00, 0x41, 0x02, 0x6c,
    0x0b, 0x1e, 0x01, 0x01, 0x7f, 0x20, 0x00, 0x28, 0x02, 0x00, 0x21, 0x01,
    0x20, 0x01, 0x04, 0x40, 0x20, 0x01, 0x10, 0x00, 0x41, 0x01, 0x0f, 0x0b,
    0x20, 0x01, 0x20, 0x00, 0x10, 0x02, 0x6a, 0x0b, 0x58, 0x02, 0x01, 0x7f,
    0x01, 0x7e, 0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x10, 0x00, 0x23, 0x00,
    0x41, 0x01, 0x6a, 0x24, 0x00, 0x41, 0x08, 0x28, 0x02, 0x00, 0x10, 0x03,
    0x21, 0x01, 0x20, 0x01, 0xad, 0x21, 0x02, 0x41, 0x10, 0x20, 0x02, 0x37,
    0x03, 0x00, 0x20, 0x01, 0x41, 0x03, 0x46, 0x04, 0x40, 0x0c, 0x02, 0x01,
    0x00, 0x0b, 0x20, 0x00, 0x20, 0x01, 0x6b, 0x22, 0x00, 0x0e, 0x02, 0x01,
    0x00, 0x01, 0x0b, 0x0b, 0x41, 0x05, 0x1a, 0x20, 0x00, 0x41, 0x01, 0x11,
    0x00, 0x00, 0x23, 0x00, 0x10, 0x01, 0x41, 0x03, 0x10, 0x02, 0x6a, 0x6a,
    0x0b, 0x0b, 0x14, 0x01, 0x00, 0x41, 0x00, 0x0b, 0x0e, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x05,
};

static const level pipeline_levels[] = {{2, 0, false}, {2, 1, false}, {3, 0, false}, {2, 2, false}, {2, 1, true}};

/* One test per level (loop tests), so each has the whole timeout. */
/* Instantiating and running, on the interpreter and the JIT. */
START_TEST(running) {
  static const int engines[] = {TL_ENGINE_INTERP, TL_ENGINE_JIT};
  input in = {pipeline_small, sizeof pipeline_small, 1, false, false};
  ck_assert_uint_gt(fail_each(&in, op_run, &engines[_i]), 0);
}
END_TEST

START_TEST(pipeline_handmade) {
  input in = {pipeline_small, sizeof pipeline_small, 1, false, false};
  ck_assert_uint_gt(fail_each(&in, op_optimize_write, &pipeline_levels[_i]), 0);
}
END_TEST

/* -O2 and -Os on generated modules, one test per seed. */
START_TEST(pipeline_generated) {
  input in = generate((uint64_t)_i, 1024, false);
  fail_each(&in, op_optimize_write, &pipeline_levels[0]);
  fail_each(&in, op_optimize_write, &pipeline_levels[1]);
  free((void *)in.w);
}
END_TEST

/* Every registered pass alone, on the handmade module and a generated
 * one (a pass that refuses a module must refuse it the same way). */
START_TEST(every_pass) {
  const char *name = tl_pass_name((uint32_t)_i);
  ck_assert_ptr_nonnull(name);
  input in = {pipeline_small, sizeof pipeline_small, 0, false, false};
  fail_each(&in, op_pass, name);
  input g = generate(5 + (uint64_t)_i % 3, 1024, true);
  fail_each(&g, op_pass, name);
  free((void *)g.w);
}
END_TEST

static uint32_t npasses(void) {
  uint32_t n = 0;
  while (tl_pass_name(n)) n++;
  return n;
}

/* Reading binary (serial, parallel) and text. */
START_TEST(reading) {
  input g = generate(9, 2048, true);
  ck_assert_uint_gt(fail_each(&g, op_read, &g), 0);
  g.threads = 2;
  ck_assert_uint_gt(fail_each(&g, op_read, &g), 0);
  g.lazy = true; /* checked, not decoded; then renumbered as bytes, decoded by a pass, written */
  ck_assert_uint_gt(fail_each(&g, op_read, &g), 0);
  g.threads = 1;
  ck_assert_uint_gt(fail_each(&g, op_read, &g), 0);
  g.lazy = false;
  tl_module *m = read_in(&g);
  char *text = tl_module_print(m);
  ck_assert_ptr_nonnull(text);
  tl_module_free(m);
  input t = {(const uint8_t *)text, strlen(text), 1, true, false};
  ck_assert_uint_gt(fail_each(&g, op_read, &t), 0);
  free(text);
  free((void *)g.w);
}
END_TEST

/* The builders (tilt.h's C API): a module with a loop, a call and a global
 * built call by call; a builder that runs out of memory returns its
 * failure value and the last error says "out of memory"; the module is then
 * freed (LeakSanitizer: nothing is left). Returns whether every call
 * worked. */
#define NEED(x) if (!(x)) return false
static bool build_with_api(tl_module *m) {
  uint32_t t, g, f;
  NEED((t = tl_add_type(m, TL_TYPE_I32, TL_TYPE_I32)) != TL_INVALID_INDEX);
  tl_expr_ref seven;
  NEED(seven = tl_build_const_i32(m, 7));
  NEED((g = tl_add_global(m, "g", TL_TYPE_I32, true, seven)) != TL_INVALID_INDEX);
  NEED((f = tl_add_function(m, "f", t, NULL, 0, NULL)) != TL_INVALID_INDEX);
  tl_expr_ref loop = NULL;
  for (int k = 0; k < 40; k++) { /* enough nodes for several arena chunks */
    tl_label_t top;
    tl_expr_ref a, b, c, sum, kids[3];
    NEED((top = tl_new_label(m, f)) != TL_LABEL_NONE);
    NEED(a = tl_build_global_get(m, g));
    NEED(b = tl_build_local_get(m, f, 0));
    NEED(sum = tl_build_binary(m, "i32.add", a, b));
    NEED(kids[0] = tl_build_global_set(m, g, sum));
    NEED(c = tl_build_local_get(m, f, 0));
    NEED(kids[1] = tl_build_br_if(m, f, top, c, NULL));
    NEED(a = tl_build_const_i32(m, k));
    NEED(kids[2] = tl_build_call(m, f, &a, 1));
    NEED(loop = tl_build_loop(m, f, top, kids, 3, TL_TYPE_I32));
  }
  NEED(tl_function_set_body(m, f, loop) == TL_OK);
  return tl_add_export(m, TL_EXPORT_FUNC, f, "f") == TL_OK;
}
#undef NEED

/* The Relooper API on a built function: an irreducible loop (entry jumps
 * into both top and middle), structured with a dispatch (split budget 0)
 * or by splitting. False when a call failed (then for want of memory). */
#define NEED(x) if (!(x)) return false
static bool reloop_with_api(tl_module *m, uint64_t budget) {
  uint32_t t, f;
  NEED((t = tl_add_type(m, TL_TYPE_I32, TL_TYPE_NONE)) != TL_INVALID_INDEX);
  NEED((f = tl_add_function(m, "f", t, NULL, 0, NULL)) != TL_INVALID_INDEX);
  tl_relooper *r = tl_relooper_create(m, f);
  NEED(r);
  tl_relooper_set_split_budget(r, budget);
  bool ok = true;
  tl_rblock b[6];
  for (int i = 0; i < 6 && ok; i++) {
    tl_expr_ref k = tl_build_const_i32(m, i), code = k ? tl_build_drop(m, k) : NULL;
    ok = code && (b[i] = tl_relooper_add_block(r, code)) != TL_RBLOCK_INVALID;
  }
  for (int i = 1; i < 6 && ok; i++) { /* 0 -> i, i -> i+1, i -> 1 on the param */
    tl_expr_ref c = tl_build_local_get(m, f, 0);
    ok = c && tl_relooper_add_branch(r, b[0], b[i], c, NULL) == TL_OK;
    tl_expr_ref c2 = ok ? tl_build_local_get(m, f, 0) : NULL;
    if (ok && i < 5) ok = c2 && tl_relooper_add_branch(r, b[i], b[i + 1], c2, NULL) == TL_OK;
    if (ok) ok = tl_relooper_add_branch(r, b[i], b[1 + i % 2], NULL, NULL) == TL_OK;
  }
  tl_expr_ref body = ok ? tl_relooper_render(r, b[0], UINT32_MAX) : NULL;
  tl_relooper_dispose(r);
  NEED(body);
  return tl_function_set_body(m, f, body) == TL_OK;
}
#undef NEED

/* Each relooper failure must be for want of memory: the module's last
 * error (the builders') or, for a relooper call, nothing else went wrong
 * (the graph is well formed), so a failure with no builder error is the
 * relooper's out of memory. */
START_TEST(relooper) {
  for (uint64_t budget = 0; budget <= 1000; budget += 1000) {
    uint32_t failed = 0;
    for (uint64_t n = 1; n <= MAX_N; n++) {
      tl_module *m = tl_module_create();
      tl_scratch_fail_nth(n);
      bool ok = m && reloop_with_api(m, budget);
      bool reached = tl_scratch_fail_nth(0) == 0;
      if (!ok && m) {
        tl_status code = tl_module_last_error(m)->code;
        ck_assert_msg(code == TL_OK || code == TL_E_NOMEM, "%s", tl_module_last_error(m)->msg);
        failed++;
      }
      if (ok) {
        tl_error err;
        ck_assert_msg(tl_module_validate(m, &err) == TL_OK, "%s", err.msg);
      }
      tl_module_free(m);
      if (!reached) {
        ck_assert(ok);
        ck_assert_uint_gt(failed, 0);
        break;
      }
    }
  }
}
END_TEST

START_TEST(builders) {
  uint32_t nomem = 0;
  for (uint64_t n = 1; n <= MAX_N; n++) {
    tl_module *m = tl_module_create();
    tl_scratch_fail_nth(n);
    bool ok = m && build_with_api(m);
    bool reached = tl_scratch_fail_nth(0) == 0;
    if (!ok && m) {
      ck_assert_int_eq(tl_module_last_error(m)->code, TL_E_NOMEM);
      ck_assert_msg(strstr(tl_module_last_error(m)->msg, "out of memory") != NULL, "%s",
                    tl_module_last_error(m)->msg);
      nomem++;
    }
    if (ok) {
      tl_error err;
      ck_assert_msg(tl_module_validate(m, &err) == TL_OK, "%s", err.msg);
    }
    tl_module_free(m);
    if (!reached) {
      ck_assert(ok);
      ck_assert_uint_gt(nomem, 0);
      return;
    }
  }
  ck_abort_msg("more than %d allocations", MAX_N);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("oom");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, handmade);
  tcase_add_test(tc, generated);
  tcase_add_loop_test(tc, pipeline_handmade, 0, sizeof pipeline_levels / sizeof *pipeline_levels);
  tcase_add_loop_test(tc, pipeline_generated, 1, 7);
  tcase_add_test(tc, reading);
  tcase_add_test(tc, builders);
  tcase_add_test(tc, relooper);
#if defined(__x86_64__)
  tcase_add_loop_test(tc, running, 0, 2);
#else
  tcase_add_loop_test(tc, running, 0, 1);
#endif
  tcase_add_loop_test(tc, every_pass, 0, (int)npasses());
  suite_add_tcase(s, tc);
  return s;
}

TL_CHECK_MAIN(suite)
