/* reduce.h — the test-case reducer behind `tilt-fuzz reduce` (reduce.c):
 * shrinks a module while a predicate keeps calling it interesting (for
 * instance "this command still fails" or "this pass still changes the
 * fuzz-exec log"). Edits are made on the IR in memory; every candidate is
 * validated and written, and only valid, new (by hash) and no larger
 * candidates reach the predicate. The result is the smallest interesting
 * module found; it is interesting whenever the input was. */
#ifndef TILT_FUZZ_REDUCE_H
#define TILT_FUZZ_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tilt.h"

/* true: the candidate (a valid module's bytes) is still interesting. */
typedef bool (*tl_reduce_pred)(const uint8_t *wasm, size_t n, void *ctx);

typedef struct {
  uint64_t tries;     /* candidates given to the predicate */
  uint64_t kept;      /* ... that were interesting (each a new best) */
  uint64_t dups;      /* candidates skipped: bytes seen before */
  uint64_t invalid;   /* candidates skipped: did not validate */
  uint64_t rounds;    /* passes over the whole module */
  size_t bytes;       /* size of the current best */
} tl_reduce_stats;

typedef struct {
  tl_reduce_pred interesting;
  void *ctx;
  double max_seconds;  /* stop early (keeping the best so far); 0 = none */
  /* called after every kept candidate and every round, if set */
  void (*progress)(const tl_reduce_stats *st, void *ctx);
} tl_reduce_options;

/* Reduces in[0..n). *out (malloc'd) gets the smallest interesting module.
 * TL_E_INVALID if the input does not read or is not interesting. */
tl_status tl_reduce(const uint8_t *in, size_t n, const tl_reduce_options *o, uint8_t **out, size_t *outn,
                    tl_reduce_stats *st, tl_error *err);

/* A built-in predicate: true when applying `apply` to a fresh read of wasm
 * fails, leaves an invalid module, or changes tl_module_fuzz_exec's log
 * (compared as tl_fuzz_same_behaviour does). */
typedef tl_status (*tl_reduce_apply)(tl_module *m, void *ctx, tl_error *err);
bool tl_reduce_diverges(const uint8_t *wasm, size_t n, tl_reduce_apply apply, void *ctx, uint64_t fuel);

/* Two fuzz-exec logs do not differ: equal up to the first "[stop" line of
 * either (running out of fuel may happen at different points), and equal
 * in full when neither stopped (tl_fuzz_exec_compare says what was
 * compared). */
bool tl_fuzz_same_behaviour(const char *a, const char *b);

#endif
