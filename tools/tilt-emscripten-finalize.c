/* tilt-emscripten-finalize — Binaryen's wasm-emscripten-finalize command
 * line on libtilt, as emcc 3.1.x runs it on every link:
 *   wasm-emscripten-finalize --minimize-wasm-changes [-g] [--bigint]
 *     [--no-dyncalls | --dyncalls-i64] [--no-legalize-javascript-ffi]
 *     [--pass-arg=legalize-js-interface-export-originals] [--side-module]
 *     [--separate-data-segments=FILE --global-base=N] [--standalone-wasm]
 *     IN.wasm [-o OUT.wasm] [--detect-features]
 * The module changes and the metadata JSON printed on stdout are
 * tl_module_emscripten_finalize's; "features" lists the input's
 * target_features section (plus --enable-FEATURE flags), as Binaryen's.
 * --dwarf (emcc -g) keeps the DWARF sections, their code addresses and
 * line table mapped to the new code (tl_read_options.dwarf); with source
 * maps (emcc -gsource-map, which strips DWARF right after) DWARF is
 * dropped and the map has the lines. Flags tilt does not implement
 * (--all-features) are errors naming the flag. Installed as
 * tilt-emscripten-finalize, and as wasm-emscripten-finalize with
 * -DTILT_BINARYEN_NAMES=ON. Exit status: 0 on success, 1 on any error. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TILT_VERSION
#define TILT_VERSION "unknown"
#endif
#ifndef TILT_BINARYEN_VERSION
#define TILT_BINARYEN_VERSION 106
#endif

typedef struct {
  const char *in, *out, *mem_file;
  const char *in_map, *out_map, *map_url; /* source maps */
  bool emit_text, no_metadata, debug_names, has_base, dwarf;
  unsigned long long global_base;
  uint32_t feature_flags_on, feature_flags_off;
  tl_emscripten_options fo;
} opts;

typedef enum { O_OUTPUT, O_DEBUG, O_DWARF, O_TEXT, O_NO_META, O_BASE, O_SIDE, O_ISM, O_NO_LEGAL,
               O_BIGINT, O_OSM, O_OSU, O_SEPARATE, O_STACK, O_STANDALONE, O_MINIMIZE, O_NO_DYN,
               O_DYN_I64, O_PASS_ARG, O_DETECT, O_MVP, O_ALL, O_QUIET, O_HELP, O_VERSION } opt_id;

/* Flag table — id, long name, short name (or NULL), takes an argument, help. */
static const cli_flag flags[] = {
  {O_OUTPUT, "--output", "-o", true, "output file (without one no module is written)"},
  {O_DEBUG, "--debuginfo", "-g", false, "keep names (write the name section)"},
  {O_DWARF, "--dwarf", NULL, false, "keep DWARF, its line table and code addresses updated (dropped with source maps)"},
  {O_TEXT, "--emit-text", "-S", false, "write text (to stdout without -o), the metadata in a comment"},
  {O_NO_META, "--no-emit-metadata", "-n", false, "do not print the metadata JSON"},
  {O_BASE, "--global-base", NULL, true, "the address static data starts at (with --separate-data-segments)"},
  {O_SIDE, "--side-module", NULL, false, "the input is an Emscripten side module"},
  {O_ISM, "--input-source-map", "-ism", true, "the input's source map"},
  {O_NO_LEGAL, "--no-legalize-javascript-ffi", "-nj", false, "legalize only dynCall_ exports and invoke_ imports"},
  {O_BIGINT, "--bigint", "-bi", false, "JS has BigInt integration: no legalization"},
  {O_OSM, "--output-source-map", "-osm", true, "write the output's source map to this file"},
  {O_OSU, "--output-source-map-url", "-osu", true, "the URL a sourceMappingURL section gives for the map"},
  {O_SEPARATE, "--separate-data-segments", NULL, true, "write the data segments to FILE as one memory image"},
  {O_STACK, "--check-stack-overflow", NULL, false, "check the stack pointer on every write (stack-check)"},
  {O_STANDALONE, "--standalone-wasm", NULL, false, "a standalone (WASI) module: no dynCalls, no main rename"},
  {O_MINIMIZE, "--minimize-wasm-changes", NULL, false, "accepted (Binaryen 108 ignores it too)"},
  {O_NO_DYN, "--no-dyncalls", NULL, false, "add no dynCall_ exports"},
  {O_DYN_I64, "--dyncalls-i64", NULL, false, "dynCall_ exports only for signatures with i64"},
  {O_PASS_ARG, "--pass-arg", "-pa", true, "legalize-js-interface-export-originals (the only one)"},
  {O_DETECT, "--detect-features", NULL, false, "accepted: features come from the target_features section"},
  {O_MVP, "--mvp-features", "-mvp", false, "no features besides the target_features section's"},
  {O_ALL, "--all-features", "-all", false, "not supported (error)"},
  {O_QUIET, "--quiet", "-q", false, "hide warnings"},
  {O_HELP, "--help", "-h", false, "show this help and exit"},
  {O_VERSION, "--version", NULL, false, "show the version and exit"},
};
#define NFLAGS (sizeof flags / sizeof flags[0])

static void help(void) {
  printf("usage: wasm-emscripten-finalize IN.wasm [-o OUT.wasm] [options]\n\n"
         "Emscripten's post-link step: dynCall_ exports, JS interface legalization,\n"
         "EM_ASM/EM_JS extraction; prints the metadata JSON emcc reads.\n\noptions:\n");
  cli_print_flags(flags, NFLAGS);
  printf("  --enable-FEATURE, --disable-FEATURE (as tilt-opt)\n");
}

static bool pass_arg(opts *o, const char *arg) {
  const char *key = "legalize-js-interface-export-originals", *at = strchr(arg, '@');
  size_t n = at ? (size_t)(at - arg) : strlen(arg);
  if (n != strlen(key) || memcmp(arg, key, n))
    return cli_fail("--pass-arg '%s': only legalize-js-interface-export-originals is supported", arg), false;
  o->fo.export_originals = !at || at[1];
  return true;
}

static bool unsupported(const char *flag) {
  cli_fail("%s is not supported by tilt's wasm-emscripten-finalize", flag);
  return false;
}

/* false: stop (an error was printed, or --help / --version ran). */
static bool apply(opts *o, opt_id id, const char *arg) {
  char *end;
  switch (id) {
  case O_OUTPUT: o->out = arg; break;
  case O_DEBUG: o->debug_names = true; break;
  case O_DWARF: o->dwarf = true; break;
  case O_TEXT: o->emit_text = true; break;
  case O_NO_META: o->no_metadata = true; break;
  case O_BASE:
    errno = 0;
    o->global_base = strtoull(arg, &end, 0);
    if (errno || !*arg || *end) return cli_fail("--global-base: bad number '%s'", arg), false;
    o->has_base = true;
    break;
  case O_SIDE: case O_MINIMIZE: case O_DETECT: case O_QUIET: break;
  case O_ISM: o->in_map = arg; break;
  case O_OSM: o->out_map = arg; break;
  case O_OSU: o->map_url = arg; break;
  case O_STACK: o->fo.check_stack_overflow = true; break;
  case O_ALL: return unsupported("--all-features");
  case O_NO_LEGAL: o->fo.minimal_legalize = true; break;
  case O_BIGINT: o->fo.bigint = true; break;
  case O_SEPARATE: o->mem_file = arg; break;
  case O_STANDALONE: o->fo.standalone = true; break;
  case O_NO_DYN: o->fo.no_dyncalls = true; break;
  case O_DYN_I64: o->fo.dyncalls_i64 = true; break;
  case O_PASS_ARG: return pass_arg(o, arg);
  case O_MVP: o->feature_flags_on = 0; break;
  case O_HELP: help(); exit(0);
  case O_VERSION: cli_print_version(TILT_VERSION, TILT_BINARYEN_VERSION); exit(0);
  }
  return true;
}

static int parse_flag(void *ctx, int argc, char **argv, int i) {
  opts *o = ctx;
  const char *arg;
  bool bad, ok;
  const cli_flag *f = cli_match_flag(flags, NFLAGS, argc, argv, &i, &arg, &bad);
  if (f) return apply(o, (opt_id)f->id, arg) ? i : -1;
  if (bad) return -1;
  uint32_t on = o->feature_flags_on;
  if (cli_feature_flag(&on, argv[i], &ok)) {
    if (!strncmp(argv[i], "--disable-", 10)) o->feature_flags_off |= o->feature_flags_on & ~on;
    o->feature_flags_on = on;
    return ok ? i : -1;
  }
  return cli_fail("unknown option '%s'", argv[i]), -1;
}

/* ---- target_features: the features Binaryen lists in the metadata ---- */
static const struct { const char *llvm; uint32_t bit; } llvm_features[] = {
  {"atomics", TL_FEATURE_THREADS}, {"bulk-memory", TL_FEATURE_BULK_MEMORY},
  {"exception-handling", TL_FEATURE_EXCEPTION_HANDLING}, {"mutable-globals", TL_FEATURE_MUTABLE_GLOBALS},
  {"nontrapping-fptoint", TL_FEATURE_NONTRAPPING_FPTOINT}, {"sign-ext", TL_FEATURE_SIGN_EXT},
  {"simd128", TL_FEATURE_SIMD}, {"tail-call", TL_FEATURE_TAIL_CALL},
  {"reference-types", TL_FEATURE_REFERENCE_TYPES}, {"multivalue", TL_FEATURE_MULTIVALUE},
  {"extended-const", TL_FEATURE_EXTENDED_CONST},
};

static bool leb(const uint8_t *p, size_t n, size_t *i, uint32_t *out) {
  uint64_t v = 0;
  for (unsigned s = 0; s < 35 && *i < n; s += 7) {
    uint8_t b = p[(*i)++];
    v |= (uint64_t)(b & 0x7f) << s;
    if (!(b & 0x80)) return *out = (uint32_t)v, v <= UINT32_MAX;
  }
  return false;
}

/* The used ('+') and required ('=') features of section payload p[0..n). */
static bool section_features(const char *in, const uint8_t *p, size_t n, uint32_t *out) {
  size_t i = 0;
  uint32_t count, len;
  if (!leb(p, n, &i, &count)) return false;
  for (uint32_t k = 0; k < count; k++) {
    if (i >= n) return false;
    uint8_t prefix = p[i++];
    if (!leb(p, n, &i, &len) || len > n - i) return false;
    bool known = false;
    for (size_t j = 0; j < sizeof llvm_features / sizeof llvm_features[0]; j++)
      if (strlen(llvm_features[j].llvm) == len && !memcmp(p + i, llvm_features[j].llvm, len)) {
        known = true;
        if (prefix == '+' || prefix == '=') *out |= llvm_features[j].bit;
      }
    if (!known && (prefix == '+' || prefix == '='))
      return fprintf(stderr, "%s: error: target_features: feature '%.*s' is not supported\n", in, (int)len,
                     (const char *)p + i), false;
    i += len;
  }
  return true;
}

static bool target_features(const char *in, const uint8_t *p, size_t n, uint32_t *out) {
  *out = 0;
  for (size_t i = 8; i < n;) {
    uint8_t id = p[i++];
    uint32_t size, len;
    if (!leb(p, n, &i, &size) || size > n - i) return true; /* the reader reports it */
    size_t end = i + size, j = i;
    if (id == 0 && leb(p, end, &j, &len) && len <= end - j && len == 15 && !memcmp(p + j, "target_features", 15) &&
        !section_features(in, p + j + 15, end - j - 15, out))
      return false;
    i = end;
  }
  return true;
}

static tl_module *load(opts *o) {
  uint8_t *bytes;
  size_t size;
  if (cli_read_file(o->in, &bytes, &size)) return NULL;
  uint32_t feats = 0;
  if (tl_is_binary(bytes, size) && !target_features(o->in, bytes, size, &feats)) return free(bytes), NULL;
  o->fo.features = (feats | o->feature_flags_on) & ~o->feature_flags_off;
  tl_read_options ro = {.features = TL_FEATURES_ALL, .no_body_bytes = true,
                        .dwarf = o->fo.keep_dwarf};
  if (cli_read_source_map(o->in_map, &ro)) return free(bytes), NULL;
  tl_error err;
  tl_module *m = tl_module_read_any(bytes, size, &ro, &err);
  free(bytes);
  free((void *)ro.source_map);
  if (!m) cli_print_read_error(o->in, o->in_map, &err);
  return m;
}

/* Binaryen's finalize writes no target_features section (108: the
 * features go to the metadata's "features" list instead; wasm-ld puts the
 * section after the code, so no source map offset moves). */
static bool is_target_features(const char *name, size_t len, void *ctx) {
  (void)ctx;
  return len == 15 && !memcmp(name, "target_features", 15);
}

static int write_module(const opts *o, tl_module *m, const char *meta) {
  if (o->emit_text) {
    char *text = tl_module_print(m);
    if (!text) return cli_fail("out of memory"), 1;
    size_t tn = strlen(text), mn = meta ? strlen(meta) : 0;
    char *all = malloc(tn + mn + 64);
    if (!all) return free(text), cli_fail("out of memory"), 1;
    int n = sprintf(all, "%s", text);
    if (meta) n += sprintf(all + n, "(;\n--BEGIN METADATA --\n%s-- END METADATA --\n;)\n", meta);
    int rc = cli_write_file(o->out ? o->out : "-", all, (size_t)n);
    free(text);
    free(all);
    return rc;
  }
  tl_write_options wo = {.debug_names = o->debug_names, .source_map_url = o->map_url, .dwarf = true};
  char *map = NULL;
  if (o->out_map) wo.source_map = &map;
  uint8_t *bytes;
  size_t size;
  tl_error err;
  if (tl_module_write(m, &wo, &bytes, &size, &err) != TL_OK) return cli_print_error(o->out, &err), 1;
  size = cli_strip_custom(bytes, size, is_target_features, NULL);
  int rc = cli_write_file(o->out, bytes, size);
  free(bytes);
  return rc ? (free(map), rc) : cli_write_source_map(o->out_map, map);
}

static int separate(const opts *o, tl_module *m) {
  if (!o->mem_file) return 0;
  if (!o->has_base) return cli_fail("--separate-data-segments needs --global-base"), 1;
  uint8_t *mem;
  size_t n;
  tl_error err;
  if (tl_module_separate_data(m, o->global_base, &mem, &n, &err) != TL_OK)
    return cli_print_error(o->in, &err), 1;
  int rc = cli_write_file(o->mem_file, mem, n);
  free(mem);
  return rc;
}

int main(int argc, char **argv) {
  opts o = {0};
  cli_init(argv[0]);
  if (!cli_parse_args(argc, argv, parse_flag, &o, &o.in)) return 1;
  /* emcc -gsource-map passes --dwarf with the maps: the map carries the
   * lines, and emcc strips DWARF right after (wasm-opt --strip-dwarf) */
  o.fo.keep_dwarf = o.dwarf && !o.in_map && !o.out_map;
  bool write = o.out || o.emit_text;
  o.fo.no_bodies = !write;
  tl_module *m = load(&o);
  if (!m) return 1;
  char *meta = NULL;
  tl_error err;
  int rc = 0;
  if (tl_module_emscripten_finalize(m, &o.fo, NULL, o.no_metadata ? NULL : &meta, &err) != TL_OK) {
    cli_print_error(o.in, &err);
    rc = 1;
  }
  if (!rc && write && tl_module_validate(m, &err) != TL_OK) {
    cli_print_error(o.in, &err);
    rc = 1;
  }
  if (!rc) rc = separate(&o, m);
  if (!rc && write) rc = write_module(&o, m, o.emit_text ? meta : NULL);
  if (!rc && meta && !o.emit_text) fputs(meta, stdout);
  free(meta);
  tl_module_free(m);
  return rc;
}
