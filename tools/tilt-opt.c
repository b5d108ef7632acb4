/* tilt-opt — the wasm-opt compatible command line: read a binary module,
 * validate it, run passes (--<pass> flags and -O levels, in the order
 * given, as wasm-opt does), and write it back as binary (-o) or text (-S,
 * --print).
 * One table (flags[]) drives both parsing and --help. Only the public API
 * (tilt.h) is used. Every flag we do not implement is an error that says so;
 * nothing is silently ignored. Exit status: 0 on success, 1 on any error. */
#include "cli.h"
#include "fuzz/fuzz.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifndef TILT_VERSION
#define TILT_VERSION "unknown"
#endif
#ifndef TILT_BINARYEN_VERSION
#define TILT_BINARYEN_VERSION 106
#endif

typedef struct {
  const char *in, *out;
  const char *in_name;     /* for messages: in, or "<stdin>" for "-" */
  bool emit_text, print, debug_names, validate, quiet, detect;
  uint32_t features;       /* running set; --enable/--disable apply in order */
  bool strip_debug, strip_dwarf, strip_producers, strip_target_features;
  const char **passes;     /* the passes to run, -O levels expanded */
  uint32_t npasses;
  const char **skip;       /* --skip-pass names */
  uint32_t nskip;
  const char **arg_keys, **arg_values; /* --pass-arg KEY@VALUE */
  uint32_t nargs;
  bool converge, debug, debug_ir, fuzz_exec, translate_to_fuzz;
  uint64_t fuzz_fuel;      /* --fuzz-exec-fuel: 0 = the defaults below */
  uint32_t threads;
  /* The last -O flag's levels (wasm-opt: they hold for every pass; -Os
   * when none is given) and the memory assumptions passes may make. */
  uint32_t opt_level, shrink_level;
  bool low_memory_unused, zero_filled_memory, closed_world;
  int stack_ir;            /* optimize the written stack code: 1 on, -1 off, 0 by -O level */
  cli_file input;          /* a binary input the module's lazy bodies point into */
  const char *in_map, *out_map, *map_url; /* source maps: -ism, -osm, -osu */
} opts;

/* Stands in the pass list where an -O flag was given; expanded when the
 * passes run, once every flag that shapes the pipeline is known. */
static const char default_pipeline[] = "<-O pipeline>";

typedef enum {
  O_OUTPUT, O_TEXT, O_PRINT, O_DEBUG, O_VALIDATE, O_NO_VALIDATE, O_ALL, O_MVP,
  O_DETECT, O_STRIP_DEBUG, O_STRIP_DWARF, O_STRIP_PRODUCERS, O_STRIP_TARGET_FEATURES,
  O_QUIET, O_HELP, O_VERSION, O_PASS_ARG, O_OPT_LEVEL, O_SHRINK_LEVEL, O_CONVERGE, O_DEBUG_PASSES, O_THREADS, O_FUZZ_EXEC,
  O_SKIP_PASS, O_TRANSLATE_TO_FUZZ, O_LOW_MEMORY_UNUSED, O_CLOSED_WORLD, O_ZERO_FILLED_MEMORY,
  O_STACK_IR, O_NO_STACK_IR, O_FUZZ_FUEL, O_DEBUG_IR, O_ISM, O_OSM, O_OSU
} opt_id;

/* Flag table — id, long name, short name (or NULL), takes an argument, help. */
static const cli_flag flags[] = {
  {O_OUTPUT, "--output", "-o", true, "output file ('-' for stdout)"},
  {O_TEXT, "--emit-text", "-S", false, "emit text instead of binary (to stdout without -o)"},
  {O_PRINT, "--print", NULL, false, "print the module as text to stdout"},
  {O_DEBUG, "--debuginfo", "-g", false, "keep names (write the name section) and DWARF, its code addresses updated (without source maps or --strip-dwarf)"},
  {O_VALIDATE, "--validate", NULL, false, "validate the module (the default)"},
  {O_NO_VALIDATE, "--no-validation", "-n", false, "skip validation, assume the input is valid"},
  {O_ALL, "--all-features", "-all", false, "enable all features"},
  {O_MVP, "--mvp-features", "-mvp", false, "disable all non-MVP features"},
  {O_DETECT, "--detect-features", NULL, false, "enable the features the module uses"},
  {O_STRIP_DEBUG, "--strip-debug", NULL, false, "strip debug info (names, DWARF, source map URL)"},
  {O_STRIP_DWARF, "--strip-dwarf", NULL, false, "strip DWARF debug info"},
  {O_STRIP_PRODUCERS, "--strip-producers", NULL, false, "strip the producers section"},
  {O_STRIP_TARGET_FEATURES, "--strip-target-features", NULL, false,
   "strip the target_features section"},
  {O_QUIET, "--quiet", "-q", false, "hide warnings"},
  {O_PASS_ARG, "--pass-arg", "-pa", true, "KEY@VALUE argument for passes"},
  {O_OPT_LEVEL, "--optimize-level", "-ol", true, "optimization level (0-4) the passes run at, without running the pipeline"},
  {O_SHRINK_LEVEL, "--shrink-level", "-s", true, "shrink level (0-2) the passes run at, without running the pipeline"},
  {O_CONVERGE, "--converge", "-c", false, "run the passes again while the binary shrinks"},
  {O_DEBUG_PASSES, "--debug", "-d", false,
   "print each pass's time and IR size, validate after every pass (and after each pass an -optimizing pass runs)"},
  {O_DEBUG_IR, "--debug-ir", NULL, false,
   "print the module's IR as text to stderr after every pass (and after each pass an -optimizing pass runs)"},
  {O_THREADS, "--threads", NULL, true, "N threads for passes, validation and writing (default: one per core)"},
  {O_FUZZ_EXEC, "--fuzz-exec", NULL, false,
   "run the exports before and after the passes and compare what they do"},
  {O_FUZZ_FUEL, "--fuzz-exec-fuel", NULL, true,
   "instructions each export call may run under --fuzz-exec (default 10000000; 1000000000 for a WASI _start)"},
  {O_SKIP_PASS, "--skip-pass", "-sp", true, "skip this pass when it comes up in a pipeline"},
  {O_TRANSLATE_TO_FUZZ, "--translate-to-fuzz", "-ttf", false,
   "use the input's bytes as entropy for a random valid module (tilt-fuzz)"},
  {O_CLOSED_WORLD, "--closed-world", "-cw", false,
   "assume no code outside the module makes or inspects its GC types (-O then adds the closed-world GC passes: type-refining, gto, cfp, ...; cfp needs it)"},
  {O_LOW_MEMORY_UNUSED, "--low-memory-unused", "-lmu", false,
   "assume addresses below 1024 are never accessed (lets passes fold added constants)"},
  {O_ZERO_FILLED_MEMORY, "--zero-filled-memory", "-ufm", false,
   "assume an imported memory starts zero-filled (lets memory-packing drop zeros)"},
  {O_STACK_IR, "--optimize-stack-ir", "--generate-stack-ir", false,
   "optimize the stack code as written (on by default at -O2+, -Os, -Oz)"},
  {O_NO_STACK_IR, "--no-optimize-stack-ir", NULL, false, "write the stack code as it is"},
  {O_ISM, "--input-source-map", "-ism", true, "the input's source map (its locations follow the code through the passes)"},
  {O_OSM, "--output-source-map", "-osm", true, "write the output's source map to this file"},
  {O_OSU, "--output-source-map-url", "-osu", true, "the URL a sourceMappingURL section gives for the output's map"},
  {O_HELP, "--help", "-h", false, "show this help and exit"},
  {O_VERSION, "--version", NULL, false, "show the version and exit"},
};
#define NFLAGS (sizeof flags / sizeof flags[0])

/* The registry's passes of one group: 0 those keeping behaviour, 1 those
 * renaming imports/exports, 2 those replacing instructions by traps. */
static void print_passes(int group) {
  for (uint32_t i = 0; tl_pass_name(i); i++) {
    int g = tl_pass_keeps_behaviour(i) ? 0 : tl_pass_changes_interface(i) ? 1 : 2;
    if (g != group) continue;
    char name[64];
    snprintf(name, sizeof name, "--%s", tl_pass_name(i));
    printf("  %-34s %s\n", name, tl_pass_help(i));
  }
}

static void help(void) {
  printf("usage: tilt-opt [options] IN.wasm [-o OUT]\n\n"
         "Reads a WebAssembly binary ('-' for stdin), validates it and writes it\n"
         "back. Without -o, -S or --print nothing is written.\n\noptions:\n");
  cli_print_flags(flags, NFLAGS);
  printf("\nfeatures (default:");
  for (uint32_t b = 1; b & TL_FEATURES_ALL; b <<= 1)
    if (tl_features_default_set() & b) printf(" %s", tl_feature_to_name(b));
  printf("):\n");
  for (uint32_t b = 1; b & TL_FEATURES_ALL; b <<= 1)
    printf("  --enable-%s, --disable-%s\n", tl_feature_to_name(b), tl_feature_to_name(b));
  printf("\noptimization levels:\n  -O0 .. -O4, -Os, -Oz, -O (= -Os)\n"
         "\noptimization passes (run in the order given):\n");
  print_passes(0);
  printf("\ninterface passes (rename imports or exports; the host applies the map they print):\n");
  print_passes(1);
  printf("\nfeature lowering passes (behaviour can change where the help says so):\n");
  print_passes(2);
}

static void push_str(const char ***v, uint32_t *n, const char *s) {
  const char **nv = realloc((void *)*v, (*n + 1) * sizeof **v);
  if (!nv) {
    cli_fail("out of memory");
    exit(1);
  }
  nv[(*n)++] = s;
  *v = nv;
}

static void pass_arg(opts *o, const char *arg) {
  const char *at = strchr(arg, '@');
  char *key = strdup(arg);
  if (!key) exit(1);
  if (at) key[at - arg] = 0;
  push_str(&o->arg_keys, &o->nargs, key);
  o->nargs--;
  push_str(&o->arg_values, &o->nargs, at ? at + 1 : "1");
}

static void apply(opts *o, opt_id id, const char *arg) {
  switch (id) {
  case O_PASS_ARG: pass_arg(o, arg); break;
  case O_OPT_LEVEL: o->opt_level = (uint32_t)strtoul(arg, NULL, 10); break;
  case O_SHRINK_LEVEL: o->shrink_level = (uint32_t)strtoul(arg, NULL, 10); break;
  case O_CONVERGE: o->converge = true; break;
  case O_DEBUG_PASSES: o->debug = true; break;
  case O_DEBUG_IR: o->debug_ir = true; break;
  case O_THREADS: o->threads = (uint32_t)strtoul(arg, NULL, 10); break;
  case O_FUZZ_EXEC: o->fuzz_exec = true; break;
  case O_FUZZ_FUEL: o->fuzz_fuel = strtoull(arg, NULL, 10); break;
  case O_TRANSLATE_TO_FUZZ: o->translate_to_fuzz = true; break;
  case O_SKIP_PASS: push_str(&o->skip, &o->nskip, arg); break;
  case O_OUTPUT: o->out = arg; break;
  case O_ISM: o->in_map = arg; break;
  case O_OSM: o->out_map = arg; break;
  case O_OSU: o->map_url = arg; break;
  case O_TEXT: o->emit_text = true; break;
  case O_PRINT: o->print = true; break;
  case O_DEBUG: o->debug_names = true; break;
  case O_VALIDATE: o->validate = true; break;
  case O_NO_VALIDATE: o->validate = false; break;
  case O_ALL: o->features = TL_FEATURES_ALL; break;
  case O_MVP: o->features = 0; break;
  case O_DETECT: o->detect = true; break;
  case O_STRIP_DEBUG: o->strip_debug = true; break;
  case O_STRIP_DWARF: o->strip_dwarf = true; break;
  case O_STRIP_PRODUCERS: o->strip_producers = true; break;
  case O_STRIP_TARGET_FEATURES: o->strip_target_features = true; break;
  case O_QUIET: o->quiet = true; break;
  case O_LOW_MEMORY_UNUSED: o->low_memory_unused = true; break;
  case O_CLOSED_WORLD: o->closed_world = true; break;
  case O_ZERO_FILLED_MEMORY: o->zero_filled_memory = true; break;
  case O_STACK_IR: o->stack_ir = 1; break;
  case O_NO_STACK_IR: o->stack_ir = -1; break;
  case O_HELP: help(); exit(0);
  case O_VERSION: cli_print_version(TILT_VERSION, TILT_BINARYEN_VERSION); exit(0);
  }
}

/* -O, -O0..-O4, -Os, -Oz: the level's pipeline, at this point of the list. */
static bool opt_level_flag(opts *o, const char *a) {
  uint32_t opt, shrink = 0;
  if (!strcmp(a, "-O")) opt = 2, shrink = 1;
  else if (!strcmp(a, "-Os")) opt = 2, shrink = 1;
  else if (!strcmp(a, "-Oz")) opt = 2, shrink = 2;
  else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '4' && !a[3]) opt = (uint32_t)(a[2] - '0');
  else return false;
  o->opt_level = opt, o->shrink_level = shrink;
  push_str(&o->passes, &o->npasses, default_pipeline);
  return true;
}

/* --NAME for every pass in the registry. */
static bool pass_flag(opts *o, const char *a) {
  if (strncmp(a, "--", 2)) return false;
  for (uint32_t i = 0; tl_pass_name(i); i++) {
    if (strcmp(a + 2, tl_pass_name(i))) continue;
    push_str(&o->passes, &o->npasses, tl_pass_name(i));
    return true;
  }
  return false;
}

/* One flag of the table, a feature, an -O level or a pass; returns the
 * index of the last argument used, or -1 on an error. */
static int parse_flag(void *ctx, int argc, char **argv, int i) {
  opts *o = ctx;
  const char *arg;
  bool bad, ok;
  const cli_flag *f = cli_match_flag(flags, NFLAGS, argc, argv, &i, &arg, &bad);
  if (f) apply(o, (opt_id)f->id, arg);
  else if (bad) return -1;
  else if (cli_feature_flag(&o->features, argv[i], &ok)) return ok ? i : -1;
  else if (!opt_level_flag(o, argv[i]) && !pass_flag(o, argv[i]))
    return cli_fail("unknown option '%s'", argv[i]), -1;
  return i;
}

static bool parse(opts *o, int argc, char **argv) {
  if (!cli_parse_args(argc, argv, parse_flag, o, &o->in)) return false;
  o->in_name = strcmp(o->in, "-") ? o->in : "<stdin>";
  return true;
}

/* Which custom sections the strip flags remove from the written bytes. */
static bool drop_custom(const char *name, size_t len, void *ctx) {
  const opts *o = ctx;
#define IS(s) (len == sizeof(s) - 1 && !memcmp(name, s, len))
  bool dwarf = len >= 7 && !memcmp(name, ".debug_", 7);
  if ((o->strip_debug || o->strip_dwarf) && dwarf) return true;
  if (o->strip_debug && (IS("name") || IS("sourceMappingURL"))) return true;
  if (o->strip_producers && IS("producers")) return true;
  return o->strip_target_features && IS("target_features");
#undef IS
}

static int write_text(tl_module *m, const char *path) {
  char *text = tl_module_print(m);
  if (!text) return cli_fail("out of memory"), 1;
  int rc = cli_write_file(path, text, strlen(text));
  free(text);
  return rc;
}

/* wasm-opt optimizes the stack form (Stack IR) when an -O flag gives
 * opt level >= 2 or shrink level >= 1; the writer does it for us. */
static bool optimize_stack(const opts *o) {
  if (o->stack_ir) return o->stack_ir > 0;
  bool level = false;
  for (uint32_t i = 0; i < o->npasses; i++) level |= o->passes[i] == default_pipeline;
  return level && (o->opt_level >= 2 || o->shrink_level >= 1);
}

/* The last use of m: each body is freed as soon as it is encoded. */
static int write_binary(opts *o, tl_module *m) {
  tl_write_options wo = {.debug_names = o->debug_names && !o->strip_debug,
                         .optimize_stack = optimize_stack(o), .threads = o->threads,
                         .source_map_url = o->strip_debug ? NULL : o->map_url, .dwarf = true};
  char *map = NULL;
  if (o->out_map) wo.source_map = &map;
  uint8_t *bytes;
  size_t size;
  tl_error err = {0};
  if (tl_module_write_and_free(m, &wo, &bytes, &size, &err) != TL_OK) {
    cli_print_error(o->out, &err);
    return 1;
  }
  size = cli_strip_custom(bytes, size, drop_custom, o);
  int rc = cli_write_file(o->out, bytes, size);
  free(bytes);
  return rc ? (free(map), rc) : cli_write_source_map(o->out_map, map);
}

/* Prints and writes what the flags ask for; frees m. */
static int emit(opts *o, tl_module *m) {
  int rc = o->print ? write_text(m, "-") : 0;
  if (!rc && o->out && !o->emit_text) return write_binary(o, m);
  if (!rc && o->out) rc = write_text(m, o->out);
  else if (!rc && o->emit_text && !o->print) rc = write_text(m, "-");
  else if (!rc && !o->print && !o->quiet)
    fprintf(stderr, "tilt-opt: warning: no output file specified, not emitting output\n");
  tl_module_free(m);
  return rc;
}

/* tl_read_options.on_text_parsed: the text's pages are given back before
 * the binary made from it is read (the two would add up at the peak). */
static void release_text(void *user, const char *text, size_t size) {
  (void)text, (void)size;
  cli_file_release(user);
}
/* tl_read_options.on_text_window: what a pass of the text reader has gone
 * over is given back as it goes, so a huge text is resident a window at a
 * time (each pass faults it in again from the page cache). */
static void release_text_prefix(void *user, const char *text, size_t done) {
  (void)text;
  cli_file_release_prefix(user, done);
}

/* -g with DWARF sections and no source maps or strip flags: DWARF is kept
 * right (wasm-opt's shouldPreserveDWARF). */
static bool keep_dwarf(const opts *o) {
  return o->debug_names && !o->strip_debug && !o->strip_dwarf && !o->in_map && !o->out_map;
}

static tl_module *load(opts *o) {
  cli_file in;
  if (cli_map_file(o->in, &in)) return NULL;
  if (o->translate_to_fuzz) { /* src/fuzz: any bytes -> a valid module */
    tl_module *fm = tl_fuzz_generate(in.p, in.n, NULL);
    cli_file_free(&in);
    return fm;
  }
  /* features == 0 means the default set to the reader; "none" is spelled
   * TL_FEATURES_MVP there. */
  tl_read_options ro = {.features = o->features ? o->features : TL_FEATURES_MVP,
                        .detect_features = o->detect, .no_validate = true,
                        .no_body_bytes = true, /* nothing here JITs */
                        .lazy_bodies = true, /* IR only where something reads a body */
                        .borrow_bytes = true, /* into the mapping, kept in o->input */
                        .threads = o->threads, .on_text_parsed = release_text,
                        .on_text_window = release_text_prefix, .user = &in, .dwarf = keep_dwarf(o)};
  if (cli_read_source_map(o->in_map, &ro)) return cli_file_free(&in), NULL;
  tl_error err = {0};
  tl_module *m = tl_module_read_any(in.p, in.n, &ro, &err);
  if (m && tl_is_binary(in.p, in.n)) o->input = in; /* freed after the output is written */
  else cli_file_free(&in);
  free((void *)ro.source_map);
  /* validated here, as tl_module_read would, once the input bytes are gone
   * (they and the validator's scratch would add up at the peak) */
  if (m && o->validate && tl_module_validate(m, &err) != TL_OK) {
    tl_module_free(m);
    cli_file_free(&o->input);
    m = NULL;
  }
  if (!m) {
    cli_print_read_error(o->in_name, o->in_map, &err);
    return NULL;
  }
  if (!o->features && !o->detect) tl_module_set_features(m, 0);
  return m;
}

/* Pass reports (minify-imports' mapping, print-function-map) go to stdout,
 * before any text output, as wasm-opt's do. */
static void pass_output(void *user, const char *text, size_t len) {
  (void)user;
  fwrite(text, 1, len, stdout);
  fflush(stdout);
}

/* on_pass_done's user: what --debug and --debug-ir report. */
typedef struct {
  opts *o;
  tl_module *m;
} reporter;

/* --debug: the pass's time and node count; --debug-ir: the IR after it. */
static void report_pass(void *user, const char *pass, double seconds, uint64_t nodes) {
  const reporter *r = user;
  if (r->o->debug)
    fprintf(stderr, "[pass] %-32s %9.3f ms  %10llu nodes\n", pass, seconds * 1e3,
            (unsigned long long)nodes);
  if (!r->o->debug_ir) return;
  char *text = tl_module_print(r->m);
  fprintf(stderr, ";; IR after pass %s\n%s", pass, text ? text : ";; (out of memory printing)\n");
  free(text);
}

/* on_bodies_decoded: the input's pages go back while the passes hold the
 * IR (a body still lazy at the output reads them again from the file). */
static void release_input(void *user) {
  const reporter *r = user;
  cli_file_release(&r->o->input);
}

static size_t binary_size(tl_module *m) {
  uint8_t *bytes;
  size_t size = 0;
  tl_error err = {0};
  if (tl_module_write(m, NULL, &bytes, &size, &err) != TL_OK) return 0;
  free(bytes);
  return size;
}

static bool skipped(const opts *o, const char *name) {
  for (uint32_t k = 0; k < o->nskip; k++)
    if (!strcmp(o->skip[k], name)) return true;
  return false;
}

/* The pass list with -O pipelines expanded, minus --skip-pass names;
 * malloc'd, count in *n. */
static const char **kept_passes(const opts *o, const tl_pass_options *po, uint32_t *n) {
  enum { PIPE_MAX = 256 };
  const char *pipe[PIPE_MAX];
  uint32_t npipe = tl_pipeline_for(po, pipe, PIPE_MAX);
  const char **out = calloc((size_t)o->npasses * (npipe + 1) + 1, sizeof *out);
  if (!out) return NULL;
  *n = 0;
  for (uint32_t i = 0; i < o->npasses; i++) {
    bool level = o->passes[i] == default_pipeline;
    for (uint32_t j = 0; j < (level ? npipe : 1); j++) {
      const char *name = level ? pipe[j] : o->passes[i];
      if (skipped(o, name)) continue;
      out[(*n)++] = name;
      if (!level && po->preserve_dwarf && tl_pass_invalidates_dwarf(name)) /* as wasm-opt warns */
        fprintf(stderr, "tilt-opt: warning: running pass '%s' which is not fully compatible with DWARF\n", name);
    }
  }
  return out;
}

static int run_passes(opts *o, tl_module *m) {
  if (!o->npasses) return 0;
  reporter rep = {o, m};
  tl_pass_options po = {.threads = o->threads, .validate_each = o->debug, .nargs = o->nargs,
                        .arg_keys = o->arg_keys, .arg_values = o->arg_values,
                        .on_pass_done = o->debug || o->debug_ir ? report_pass : NULL,
                        .user = &rep,
                        .optimize_level = o->opt_level, .shrink_level = o->shrink_level,
                        .low_memory_unused = o->low_memory_unused, .closed_world = o->closed_world,
                        .gc = tl_module_uses_gc(m),
                        .zero_filled_memory = o->zero_filled_memory,
                        .on_output = pass_output, .on_bodies_decoded = release_input,
                        .preserve_dwarf = tl_module_has_dwarf(m)};
  uint32_t n;
  const char **names = kept_passes(o, &po, &n);
  if (!names) return cli_fail("out of memory"), 1;
  tl_error err = {0};
  size_t size = o->converge ? binary_size(m) : 0;
  int rc = 0;
  for (;;) {
    if (tl_module_run_passes(m, names, n, &po, &err) != TL_OK) {
      cli_print_error(o->in_name, &err);
      rc = 1;
      break;
    }
    if (!o->converge) break;
    size_t now = binary_size(m);
    if (now >= size) break;
    size = now;
  }
  free(names);
  return rc;
}

/* --fuzz-exec: each export call may run FUZZ_FUEL instructions, a WASI
 * command's _start TL_FUZZ_COMMAND_FUEL (a program runs to its output);
 * --fuzz-exec-fuel N sets both. */
enum { FUZZ_FUEL = 10000000 };

static char *fuzz_log(const opts *o, tl_module *m) {
  tl_fuzz_exec_options fo = {o->fuzz_fuel ? o->fuzz_fuel : FUZZ_FUEL,
                             o->fuzz_fuel ? o->fuzz_fuel : TL_FUZZ_COMMAND_FUEL, TL_ENGINE_INTERP,
                             TL_RELAXED_DETERMINISTIC};
  return tl_fuzz_exec(m, &fo);
}

/* The reason in a "[stop: REASON]" line, as a length and a pointer. */
static int stop_reason(const char *stop, const char **text) {
  const char *end = stop ? strchr(stop, ']') : NULL;
  *text = stop ? stop + 7 : "";
  return end && end > stop + 7 ? (int)(end - stop - 7) : 0;
}

static void fuel_hint(const opts *o) {
  if (o->fuzz_fuel) printf("; each call may run %llu instructions", (unsigned long long)o->fuzz_fuel);
  else printf("; each call may run %d instructions (a WASI command's _start %llu)", FUZZ_FUEL, TL_FUZZ_COMMAND_FUEL);
  printf(": --fuzz-exec-fuel N gives more");
}

/* The inconclusive part of a comparison, for the user: which export, what
 * stopped it before and after the passes, how to give it more fuel. */
static void report_inconclusive(const opts *o, const tl_fuzz_verdict *v) {
  const char *rb, *ra;
  int nb = stop_reason(v->stop[0], &rb), na = stop_reason(v->stop[1], &ra);
  const char *what = v->cut ? v->cut + 1 : "instantiation";
  int nw = v->cut ? (int)(strchr(v->cut, ']') - v->cut - 1) : (int)strlen(what);
  printf("[fuzz-exec] %.*s: inconclusive, not compared: ", nw, what);
  if (v->stop[0] && v->stop[1] && na == nb && !strncmp(ra, rb, (size_t)na))
    printf("%.*s before the passes and after them", nb, rb);
  else if (v->stop[0] && v->stop[1])
    printf("%.*s before the passes, %.*s after them", nb, rb, na, ra);
  else if (v->stop[0])
    printf("%.*s before the passes (after them it went on)", nb, rb);
  else
    printf("%.*s after the passes (before them it went on)", na, ra);
  if ((v->stop[0] && strstr(v->stop[0], "fuel")) || (v->stop[1] && strstr(v->stop[1], "fuel")))
    fuel_hint(o);
  printf("\n");
  if (v->compared)
    printf("[fuzz-exec] the same after the passes for the %u export%s before it; none after it ran\n",
           v->compared, v->compared == 1 ? "" : "s");
  else
    printf("[fuzz-exec] inconclusive: nothing was compared\n");
  fprintf(stderr, "%s: warning: fuzz-exec: %s%.*s was cut short (%.*s)\n", o->in_name,
          v->compared ? "" : "nothing compared: ", nw, what, v->stop[0] ? nb : na, v->stop[0] ? rb : ra);
}

/* Before/after logs: different is an error; a stop (fuel or call stack
 * ran out) leaves the rest not compared, which is said, never "the same". */
static int compare_logs(const opts *o, const char *before, const char *after) {
  tl_fuzz_verdict v;
  tl_fuzz_exec_compare(before, after, &v);
  printf("[fuzz-exec] before the passes:\n%s", before);
  if (v.differ || v.stop[0] || v.stop[1]) printf("[fuzz-exec] after the passes:\n%s", after);
  if (v.differ) {
    fprintf(stderr, "%s: error: fuzz-exec: the passes changed what the module does\n", o->in_name);
    return 1;
  }
  if (v.stop[0] || v.stop[1]) report_inconclusive(o, &v);
  else if (!v.compared) printf("[fuzz-exec] the same after the passes (no export was called)\n");
  else printf("[fuzz-exec] the same after the passes (%u export%s compared)\n", v.compared, v.compared == 1 ? "" : "s");
  return 0;
}

static void free_opts(opts *o) {
  for (uint32_t i = 0; i < o->nargs; i++) free((void *)o->arg_keys[i]);
  free(o->arg_keys);
  free(o->arg_values);
  free(o->passes);
  free(o->skip);
}

/* Memory: one malloc arena for every thread (the pass threads free each
 * other's node blocks, which per-thread arenas would keep apart); a fixed
 * mmap threshold (glibc raises it to the size of each big block freed, and
 * then the output buffer grows by copying within the heap); a heap that
 * grows and shrinks 16 MB at a time (the default 128 KB gives pages back
 * and faults them in again every time the passes' scratch comes and goes:
 * a third more page faults, half the system time, on a 1 MB module); and
 * the free pages the passes left go back before the output is built. */
static void malloc_setup(void) {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TOP_PAD, 16 * 1024 * 1024);
#endif
}

static void malloc_give_back(void) {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

int main(int argc, char **argv) {
  malloc_setup();
  opts o = {.validate = true, .features = tl_features_default_set(), .opt_level = 2,
            .shrink_level = 1};
  cli_init(argv[0]);
  tl_module *m = parse(&o, argc, argv) ? load(&o) : NULL;
  if (!m) return free_opts(&o), 1;
  char *before = o.fuzz_exec ? fuzz_log(&o, m) : NULL;
  int rc = run_passes(&o, m);
  /* the bodies the passes decoded need no input: its pages go back (a
   * lazy one left will read them again from the file as it is written) */
  if (o.npasses) cli_file_release(&o.input);
  if (!rc && before) {
    char *after = fuzz_log(&o, m);
    rc = compare_logs(&o, before, after);
    free(after);
  }
  free(before);
  tl_error err = {0};
  if (!rc && o.validate && tl_module_validate(m, &err) != TL_OK) {
    cli_print_error(o.in_name, &err);
    rc = 1;
  }
  malloc_give_back();
  if (!rc) rc = emit(&o, m);
  else tl_module_free(m);
  cli_file_free(&o.input);
  free_opts(&o);
  return rc;
}
