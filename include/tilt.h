/* tilt.h — the public C API of tilt, a WebAssembly optimizer and compiler.
 * This is the one header a toolchain includes; it is self-contained.
 * Handles are opaque. Functions that read input return a tl_status and fill
 * a tl_error (message plus byte offset); the library never prints, exits or
 * aborts on bad input. A module owns everything made for it: expressions
 * built with the tl_build_* functions live until tl_module_free. */
#ifndef TILT_H
#define TILT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */
typedef enum {
  TL_OK = 0,
  TL_E_MALFORMED,    /* bytes that are not a wasm binary */
  TL_E_INVALID,      /* a well-formed module that does not validate */
  TL_E_FEATURE,      /* uses a feature that is not enabled */
  TL_E_LIMIT,        /* exceeds an implementation limit */
  TL_E_NOMEM,        /* out of memory */
  TL_E_UNSUPPORTED,  /* valid, but something tilt does not handle yet */
  TL_E_IO,           /* file system */
  TL_E_TRAP,         /* execution trapped */
  TL_E_LINK,         /* instantiation: an import could not be resolved */
  TL_E_EXHAUSTED,    /* execution ran out of call stack or fuel */
  TL_E_EXIT          /* the program asked to exit (WASI proc_exit) */
} tl_status;

#define TL_NO_OFFSET UINT64_MAX
#define TL_NO_FUNC UINT32_MAX

typedef struct {
  tl_status code;
  uint64_t offset;      /* byte offset in the input, or TL_NO_OFFSET */
  uint32_t func_index;  /* function, or TL_NO_FUNC */
  char msg[160];
} tl_error;

/* ------------------------------------------------------------- features */
/* Feature bits (same values as the library's internal ones). */
#define TL_FEATURE_MUTABLE_GLOBALS     (1u << 0)
#define TL_FEATURE_SIGN_EXT            (1u << 1)
#define TL_FEATURE_NONTRAPPING_FPTOINT (1u << 2)
#define TL_FEATURE_BULK_MEMORY         (1u << 3)
#define TL_FEATURE_MULTIVALUE          (1u << 4)
#define TL_FEATURE_REFERENCE_TYPES     (1u << 5)
#define TL_FEATURE_SIMD                (1u << 6)
#define TL_FEATURE_TAIL_CALL           (1u << 7)
#define TL_FEATURE_EXTENDED_CONST      (1u << 8)
#define TL_FEATURE_THREADS             (1u << 9)
#define TL_FEATURES_ALL                ((1u << 10) - 1)
/* For tl_read_options.features, where 0 means the default set: no features
 * at all (plain MVP, --mvp-features). A bit outside TL_FEATURES_ALL. */
#define TL_FEATURES_MVP                (1u << 31)

/* The default set: what wasm-opt enables without flags. */
uint32_t tl_features_default_set(void);
/* "sign-ext", "simd", ... as wasm-opt spells them; 0 if unknown. */
uint32_t tl_feature_from_name(const char *name);
const char *tl_feature_to_name(uint32_t single_feature);

/* --------------------------------------------------------------- modules */
typedef struct tl_module tl_module;

typedef struct {
  uint32_t features;    /* enabled features; 0 means tl_features_default_set() */
  bool detect_features; /* enable whatever the module uses (--detect-features) */
  bool no_validate;     /* skip validation after reading */
} tl_read_options;

typedef struct {
  bool debug_names;     /* write the name section (-g) */
  bool strip_custom;    /* drop custom sections other than names */
} tl_write_options;

/* Reads a binary module. On failure returns NULL and fills *err. */
tl_module *tl_module_read(const uint8_t *bytes, size_t size, const tl_read_options *opt,
                          tl_error *err);
/* Writes a binary module into a malloc'd buffer the caller frees. */
tl_status tl_module_write(tl_module *m, const tl_write_options *opt, uint8_t **out,
                          size_t *out_size, tl_error *err);
/* Validates the module (context-free IR validation). */
tl_status tl_module_validate(tl_module *m, tl_error *err);
/* Prints the module as folded text into a malloc'd NUL-terminated string. */
char *tl_module_print(tl_module *m);
void tl_module_free(tl_module *m);
uint32_t tl_module_features(const tl_module *m);
void tl_module_set_features(tl_module *m, uint32_t features);

/* ---------------------------------------------------------------- passes */
/* Optimization passes are named as wasm-opt names them ("dce", "vacuum",
 * ...). Function passes run in parallel over functions; the output does not
 * depend on the thread count. */
typedef struct {
  uint32_t threads;          /* 0 = one per core */
  bool validate_each;        /* validate after every pass (debugging) */
  uint32_t nargs;            /* --pass-arg KEY@VALUE pairs */
  const char *const *arg_keys;
  const char *const *arg_values;
  /* Called after each pass with its wall time and the IR node count. */
  void (*on_pass_done)(void *user, const char *pass, double seconds, uint64_t nodes);
  void *user;
} tl_pass_options;

tl_status tl_module_run_passes(tl_module *m, const char *const *names, uint32_t n,
                               const tl_pass_options *opt, tl_error *err);
/* The registry: name and help of pass i, NULL past the last one. */
const char *tl_pass_name(uint32_t i);
const char *tl_pass_help(uint32_t i);

#ifdef __cplusplus
}
#endif
#endif
