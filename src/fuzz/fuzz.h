/* fuzz.h — the random module generator behind tilt-fuzz, tilt-opt
 * --translate-to-fuzz and the gen_* libFuzzer targets. Any byte string is
 * an entropy source that turns into a VALID module (tl_module_validate and
 * wasm-validate accept it); once the bytes run out every choice is the
 * simplest one, so generation always ends. Generated code terminates: a
 * hang-limit global is decremented at every function entry and loop header
 * and traps with unreachable at zero; exports "hang_reset_N" put it back. */
#ifndef TILT_FUZZ_H
#define TILT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "tilt.h"

typedef struct {
  uint32_t features;   /* TL_FEATURE_* the module may use; 0 = all */
  uint32_t max_funcs;  /* defined functions; 0 = 6 */
  uint32_t max_nodes;  /* expression budget per function; 0 = 250 */
} tl_fuzz_options;

/* A valid module from bytes (NULL only when out of memory). */
tl_module *tl_fuzz_generate(const uint8_t *data, size_t size, const tl_fuzz_options *opt);
/* n pseudo-random bytes from seed (splitmix64): `tilt-fuzz --seed S`. */
void tl_fuzz_seed_bytes(uint64_t seed, uint8_t *out, size_t n);

/* tl_module_fuzz_exec on engine TL_ENGINE_INTERP or TL_ENGINE_JIT
 * (src/fuzz_exec.c). */
char *tl_module_fuzz_exec_engine(tl_module *m, uint64_t fuel, int engine);

/* Every float operator's NaN result becomes +0 (src/fuzz/denan.c), so
 * engines that pick NaN bits differently (both correct) agree. */
void tl_fuzz_denan(tl_module *m);

/* Hang limit the generated code starts with (and hang_reset_N restores). */
#define TL_FUZZ_HANG_LIMIT 64

#endif
