/* fuzz.h — the random module generator behind tilt-fuzz, tilt-opt
 * --translate-to-fuzz and the gen_* libFuzzer targets. Any byte string is
 * an entropy source that turns into a VALID module (tl_module_validate and
 * wasm-validate accept it); once the bytes run out every choice is the
 * simplest one, so generation always ends. Generated code terminates: a
 * hang-limit global is decremented at every function entry and loop header
 * and traps with unreachable at zero; exports "hang_reset_N" put it back. */
#ifndef TILT_FUZZ_H
#define TILT_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tilt.h"

/* THE switch for exception handling in code the fuzzers run (1: the
 * interpreter and the JIT execute EH). A generator call that names
 * neither TL_FUZZ_EH_ON nor TL_FUZZ_EH_OFF follows it, so tilt-fuzz's
 * executing modes (opt, v8), the gen_modes libFuzzer target and tilt-opt
 * --translate-to-fuzz get EH through it; tilt-fuzz roundtrip and opt-valid
 * (nothing runs) and jit (the JIT runs EH: src/jit/eh.c) ask for EH
 * unless --no-eh. */
#define TL_FUZZ_EXEC_EH 1

/* Bits of tl_fuzz_options.features outside TL_FEATURES_ALL: emit tags,
 * try/catch/delegate/rethrow, try_table/throw_ref and exnref (when the
 * exception-handling feature is on), or never; with TL_FUZZ_EH_LEGACY only
 * the legacy forms (try/catch/delegate/rethrow, no exnref: V8 in node 20). */
#define TL_FUZZ_EH_ON  (1u << 29)
#define TL_FUZZ_EH_OFF (1u << 30)
#define TL_FUZZ_EH_LEGACY (1u << 28)
/* Another: emit GC types (structs, arrays, function types in rec groups,
 * subtyping) and GC and typed-reference instructions (the gc feature on).
 * Off unless asked: the JIT does not run GC code, and without it a byte
 * string gives the module it always gave. */
#define TL_FUZZ_GC_ON (1u << 27)

typedef struct {
  uint32_t features;   /* TL_FEATURE_* the module may use (0 = all), and
                          TL_FUZZ_EH_ON or _OFF */
  uint32_t max_funcs;  /* defined functions; 0 = 6 */
  uint32_t max_nodes;  /* expression budget per function; 0 = 250 */
} tl_fuzz_options;

/* A valid module from bytes (NULL only when out of memory). */
tl_module *tl_fuzz_generate(const uint8_t *data, size_t size, const tl_fuzz_options *opt);
/* src/fuzz/textcheck.c: false when m has IR forms the printer cannot give
 * a faithful text yet (tuple locals, unreachable-typed constructs), so the
 * print -> parse oracle does not apply. */
bool tl_fuzz_text_comparable(tl_module *m);
/* n pseudo-random bytes from seed (splitmix64): `tilt-fuzz --seed S`. */
void tl_fuzz_seed_bytes(uint64_t seed, uint8_t *out, size_t n);

/* src/fuzz_exec.c: tl_module_fuzz_exec with a choice of fuel and engine. */
typedef struct {
  uint64_t fuel;          /* instructions each export call may run (0 = no limit) */
  uint64_t command_fuel;  /* the same for a WASI command's _start (0 = fuel) */
  int engine;             /* TL_ENGINE_INTERP or TL_ENGINE_JIT */
  int relaxed;            /* the interpreter's relaxed SIMD profile (TL_RELAXED_*) */
} tl_fuzz_exec_options;
char *tl_fuzz_exec(tl_module *m, const tl_fuzz_exec_options *o);
/* tl_module_fuzz_exec on engine TL_ENGINE_INTERP or TL_ENGINE_JIT. */
char *tl_module_fuzz_exec_engine(tl_module *m, uint64_t fuel, int engine);
/* What those give a WASI command's _start at least (about 1.5 s of the
 * interpreter), so that a small program gets to its output. */
#define TL_FUZZ_COMMAND_FUEL 1000000000ull

/* Two fuzz-exec logs compared. A log ends at its first "[stop" line (fuel
 * or call stack ran out, at a point that depends on the code), so they are
 * compared up to the first stop in either; the export running there, and
 * those after it, are not compared: inconclusive. */
typedef struct {
  bool differ;           /* they differ where both ran */
  uint32_t compared;     /* exports both logs ran to their end, alike */
  const char *stop[2];   /* the "[stop" line of a and of b, or NULL */
  const char *cut;       /* with a stop, the "[export" line in a of the
                            export cut short (NULL: it stopped while
                            instantiating, or there was no stop) */
} tl_fuzz_verdict;
void tl_fuzz_exec_compare(const char *a, const char *b, tl_fuzz_verdict *out);
/* Nothing was compared because a log stopped first. */
static inline bool tl_fuzz_inconclusive(const tl_fuzz_verdict *v) {
  return !v->differ && !v->compared && (v->stop[0] || v->stop[1]);
}

/* Every float operator's NaN result becomes +0 (src/fuzz/denan.c), so
 * engines that pick NaN bits differently (both correct) agree. */
void tl_fuzz_denan(tl_module *m);

/* Hang limit the generated code starts with (and hang_reset_N restores). */
#define TL_FUZZ_HANG_LIMIT 64

#endif
