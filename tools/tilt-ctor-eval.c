/* tilt-ctor-eval — Binaryen's wasm-ctor-eval command line on libtilt, as
 * emcc runs it with -sEVAL_CTORS:
 *   wasm-ctor-eval --ctors=A,B [--kept-exports=B] [--ignore-external-input]
 *     IN.wasm -o OUT.wasm [-g] [features]
 * The exports are evaluated at build time (tl_module_ctor_eval), the module
 * tidied (memory-packing, dce, vacuum, remove-unused-module-elements, ...,
 * as Binaryen's tool does), and what happened is printed on stdout ("...success on NAME." lines, which emcc
 * counts). Installed as tilt-ctor-eval, and as wasm-ctor-eval with
 * -DTILT_BINARYEN_NAMES=ON. Exit status: 0 on success (evaluated or not),
 * 1 on any error. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TILT_VERSION
#define TILT_VERSION "unknown"
#endif
#ifndef TILT_BINARYEN_VERSION
#define TILT_BINARYEN_VERSION 106
#endif

#define MAX_NAMES 256

typedef struct {
  const char *in, *out;
  bool emit_text, debug_names, validate, detect, quiet;
  uint32_t features;
  char *ctors_arg, *kept_arg;  /* strdup'd lists, cut at the commas */
  const char *ctors[MAX_NAMES], *kept[MAX_NAMES];
  tl_ctor_eval_options eo;
} opts;

typedef enum { O_OUTPUT, O_TEXT, O_DEBUG, O_CTORS, O_KEPT, O_IGNORE_INPUT, O_VALIDATE, O_NO_VALIDATE,
               O_ALL, O_MVP, O_DETECT, O_QUIET, O_HELP, O_VERSION } opt_id;

/* Flag table — id, long name, short name (or NULL), takes an argument, help. */
static const cli_flag flags[] = {
  {O_OUTPUT, "--output", "-o", true, "output file"},
  {O_TEXT, "--emit-text", "-S", false, "emit text instead of binary"},
  {O_DEBUG, "--debuginfo", "-g", false, "keep names (write the name section) and DWARF, its code addresses updated"},
  {O_CTORS, "--ctors", "-c", true, "the exports to evaluate, in order (comma-separated)"},
  {O_KEPT, "--kept-exports", "-ke", true, "evaluated exports to keep (returning their results)"},
  {O_IGNORE_INPUT, "--ignore-external-input", "-ipi", false,
   "params are zeros, WASI args and environment are empty"},
  {O_VALIDATE, "--validate", NULL, false, "validate the module (the default)"},
  {O_NO_VALIDATE, "--no-validation", "-n", false, "skip validation"},
  {O_ALL, "--all-features", "-all", false, "enable all features"},
  {O_MVP, "--mvp-features", "-mvp", false, "disable all non-MVP features"},
  {O_DETECT, "--detect-features", NULL, false, "enable the features the module uses"},
  {O_QUIET, "--quiet", "-q", false, "print nothing on stdout"},
  {O_HELP, "--help", "-h", false, "show this help and exit"},
  {O_VERSION, "--version", NULL, false, "show the version and exit"},
};
#define NFLAGS (sizeof flags / sizeof flags[0])

static void help(void) {
  printf("usage: wasm-ctor-eval --ctors=A,B IN.wasm [-o OUT]\n\n"
         "Runs the exports (global constructors) at build time and keeps what they\n"
         "did in the module: memory as data segments, new global values; the\n"
         "evaluated exports are removed unless kept.\n\noptions:\n");
  cli_print_flags(flags, NFLAGS);
  printf("  --enable-FEATURE, --disable-FEATURE (as tilt-opt)\n");
}

/* Splits a comma-separated list (a copy of arg) into names[]. */
static bool split(const char *arg, char **copy, const char **names, uint32_t *n) {
  free(*copy);
  *copy = strdup(arg);
  if (!*copy) return cli_fail("out of memory"), false;
  *n = 0;
  for (char *p = *copy, *comma; p; p = comma ? comma + 1 : NULL) {
    comma = strchr(p, ',');
    if (comma) *comma = 0;
    if (!*p) continue;
    if (*n == MAX_NAMES) return cli_fail("more than %d names in '%s'", MAX_NAMES, arg), false;
    names[(*n)++] = p;
  }
  return true;
}

/* false: stop (an error was printed, or --help / --version ran). */
static bool apply(void *ctx, int id, const char *arg) {
  opts *o = ctx;
  switch ((opt_id)id) {
  case O_OUTPUT: o->out = arg; break;
  case O_TEXT: o->emit_text = true; break;
  case O_DEBUG: o->debug_names = true; break;
  case O_CTORS: return split(arg, &o->ctors_arg, o->ctors, &o->eo.nctors);
  case O_KEPT: return split(arg, &o->kept_arg, o->kept, &o->eo.nkept);
  case O_IGNORE_INPUT: o->eo.ignore_external_input = true; break;
  case O_VALIDATE: o->validate = true; break;
  case O_NO_VALIDATE: o->validate = false; break;
  case O_ALL: o->features = TL_FEATURES_ALL; break;
  case O_MVP: o->features = 0; break;
  case O_DETECT: o->detect = true; break;
  case O_QUIET: o->quiet = true; break;
  case O_HELP: help(); exit(0);
  case O_VERSION: cli_print_version(TILT_VERSION, TILT_BINARYEN_VERSION); exit(0);
  }
  return true;
}

/* One flag of the table or a feature; returns the index of the last
 * argument used, or -1 on an error. */
static int parse_flag(void *ctx, int argc, char **argv, int i) {
  opts *o = ctx;
  return cli_table_flag(flags, NFLAGS, &o->features, apply, o, argc, argv, i);
}

static tl_module *load(const opts *o) {
  uint8_t *bytes;
  size_t size;
  if (cli_read_file(o->in, &bytes, &size)) return NULL;
  tl_read_options ro = {.features = o->features ? o->features : TL_FEATURES_MVP,
                        .detect_features = o->detect, .no_validate = !o->validate, .dwarf = o->debug_names};
  tl_error err;
  tl_module *m = tl_module_read_any(bytes, size, &ro, &err);
  free(bytes);
  if (!m) cli_print_error(o->in, &err);
  return m;
}

static int run(opts *o, tl_module *m) {
  o->eo.ctors = o->ctors;
  o->eo.kept = o->kept;
  char *log = NULL;
  tl_error err;
  if (tl_module_ctor_eval(m, &o->eo, &log, &err) != TL_OK) return cli_print_error(o->in, &err), 1;
  if (!o->quiet) fputs(log, stdout);
  free(log);
  /* tidying after the evaluation, as Binaryen's tool does */
  static const char *const tidy[] = {"memory-packing", "remove-unused-names", "dce", "merge-blocks",
                                     "vacuum", "remove-unused-module-elements"};
  if (tl_module_run_passes(m, tidy, sizeof tidy / sizeof *tidy, NULL, &err) != TL_OK)
    return cli_print_error(o->in, &err), 1;
  if (o->validate && tl_module_validate(m, &err) != TL_OK) return cli_print_error(o->in, &err), 1;
  if (!o->out) return 0;
  if (o->emit_text) {
    char *text = tl_module_print(m);
    if (!text) return cli_fail("out of memory"), 1;
    int rc = cli_write_file(o->out, text, strlen(text));
    free(text);
    return rc;
  }
  tl_write_options wo = {.debug_names = o->debug_names, .dwarf = true};
  uint8_t *bytes;
  size_t size;
  if (tl_module_write(m, &wo, &bytes, &size, &err) != TL_OK) return cli_print_error(o->out, &err), 1;
  int rc = cli_write_file(o->out, bytes, size);
  free(bytes);
  return rc;
}

int main(int argc, char **argv) {
  opts o = {.validate = true, .features = tl_features_default_set()};
  cli_init(argv[0]);
  int rc = 1;
  if (cli_parse_args(argc, argv, parse_flag, &o, &o.in)) {
    tl_module *m = load(&o);
    if (m) rc = run(&o, m);
    tl_module_free(m);
  }
  free(o.ctors_arg);
  free(o.kept_arg);
  return rc;
}
