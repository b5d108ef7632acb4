/* tilt-metadce — Binaryen's wasm-metadce command line on libtilt, as emcc
 * runs it at -O3/-Os/-Oz:
 *   wasm-metadce --graph-file=GRAPH.json IN.wasm -o OUT.wasm [-g] [features]
 * DCE over the JSON graph (tl_module_metadce), then OUT is written and
 * "unused: NAME" is printed on stdout for every graph node nothing
 * reaches, sorted: the lines emcc reads to drop JS code. Installed as
 * tilt-metadce, and as wasm-metadce with -DTILT_BINARYEN_NAMES=ON.
 * Exit status: 0 on success, 1 on any error. */
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

typedef struct {
  const char *in, *out, *graph;
  bool emit_text, debug_names, validate, detect;
  uint32_t features;
} opts;

typedef enum { O_OUTPUT, O_TEXT, O_DEBUG, O_GRAPH, O_DUMP, O_VALIDATE, O_NO_VALIDATE, O_ALL,
               O_MVP, O_DETECT, O_QUIET, O_HELP, O_VERSION } opt_id;

/* Flag table — id, long name, short name (or NULL), takes an argument, help. */
static const cli_flag flags[] = {
  {O_OUTPUT, "--output", "-o", true, "output file"},
  {O_TEXT, "--emit-text", "-S", false, "emit text instead of binary"},
  {O_DEBUG, "--debuginfo", "-g", false, "keep names (write the name section)"},
  {O_GRAPH, "--graph-file", "-f", true, "the JSON graph of the code around the module"},
  {O_DUMP, "--dump", "-d", false, "dump the combined graph (not supported)"},
  {O_VALIDATE, "--validate", NULL, false, "validate the module (the default)"},
  {O_NO_VALIDATE, "--no-validation", "-n", false, "skip validation"},
  {O_ALL, "--all-features", "-all", false, "enable all features"},
  {O_MVP, "--mvp-features", "-mvp", false, "disable all non-MVP features"},
  {O_DETECT, "--detect-features", NULL, false, "enable the features the module uses"},
  {O_QUIET, "--quiet", "-q", false, "hide warnings"},
  {O_HELP, "--help", "-h", false, "show this help and exit"},
  {O_VERSION, "--version", NULL, false, "show the version and exit"},
};
#define NFLAGS (sizeof flags / sizeof flags[0])

static void help(void) {
  printf("usage: wasm-metadce --graph-file GRAPH.json IN.wasm [-o OUT]\n\n"
         "DCE over a graph the module is part of (JS and wasm): removes the exports\n"
         "nothing reaches, then what only they kept, and prints 'unused: NAME' for\n"
         "every node of the graph nothing reaches. The graph is a JSON array of\n"
         "{\"name\": N, \"reaches\": [N...], \"root\": true, \"export\": E,\n"
         " \"import\": [MODULE, BASE]}.\n\noptions:\n");
  cli_print_flags(flags, NFLAGS);
  printf("  --enable-FEATURE, --disable-FEATURE (as tilt-opt)\n");
}

/* false: stop (an error was printed, or --help / --version ran). */
static bool apply(void *ctx, int id, const char *arg) {
  opts *o = ctx;
  switch ((opt_id)id) {
  case O_OUTPUT: o->out = arg; break;
  case O_TEXT: o->emit_text = true; break;
  case O_DEBUG: o->debug_names = true; break;
  case O_GRAPH: o->graph = arg; break;
  case O_DUMP: return cli_fail("--dump is not supported"), false;
  case O_VALIDATE: o->validate = true; break;
  case O_NO_VALIDATE: o->validate = false; break;
  case O_ALL: o->features = TL_FEATURES_ALL; break;
  case O_MVP: o->features = 0; break;
  case O_DETECT: o->detect = true; break;
  case O_QUIET: break;
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

static bool parse(opts *o, int argc, char **argv) {
  if (!cli_parse_args(argc, argv, parse_flag, o, &o->in)) return false;
  if (!o->graph) return cli_fail("no graph file provided (--graph-file)"), false;
  return true;
}

static tl_module *load(const opts *o) {
  uint8_t *bytes;
  size_t size;
  if (cli_read_file(o->in, &bytes, &size)) return NULL;
  tl_read_options ro = {.features = o->features ? o->features : TL_FEATURES_MVP,
                        .detect_features = o->detect, .no_validate = !o->validate,
                        .no_body_bytes = true};
  tl_error err;
  tl_module *m = tl_module_read(bytes, size, &ro, &err);
  free(bytes);
  if (!m) {
    cli_print_error(o->in, &err);
    return NULL;
  }
  if (!o->features && !o->detect) tl_module_set_features(m, 0);
  return m;
}

/* The DCE; prints the unused names after writing the output, as Binaryen. */
static int run(const opts *o, tl_module *m, char **unused) {
  uint8_t *graph;
  size_t size;
  if (cli_read_file(o->graph, &graph, &size)) return 1;
  tl_error err;
  tl_status s = tl_module_metadce(m, (const char *)graph, size, NULL, unused, &err);
  free(graph);
  if (s != TL_OK) {
    cli_print_error(o->graph, &err);
    return 1;
  }
  if (o->validate && tl_module_validate(m, &err) != TL_OK) {
    cli_print_error(o->in, &err);
    return 1;
  }
  return 0;
}

static int emit(const opts *o, tl_module *m) {
  if (!o->out) return 0;
  if (o->emit_text) {
    char *text = tl_module_print(m);
    if (!text) return cli_fail("out of memory"), 1;
    int rc = cli_write_file(o->out, text, strlen(text));
    free(text);
    return rc;
  }
  tl_write_options wo = {.debug_names = o->debug_names};
  uint8_t *bytes;
  size_t size;
  tl_error err;
  if (tl_module_write(m, &wo, &bytes, &size, &err) != TL_OK) {
    cli_print_error(o->out, &err);
    return 1;
  }
  int rc = cli_write_file(o->out, bytes, size);
  free(bytes);
  return rc;
}

static void print_unused(const char *text) {
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    printf("unused: %.*s\n", (int)(nl - p), p);
    p = nl + 1;
  }
}

int main(int argc, char **argv) {
  opts o = {.validate = true, .features = tl_features_default_set()};
  cli_init(argv[0]);
  if (!parse(&o, argc, argv)) return 1;
  tl_module *m = load(&o);
  if (!m) return 1;
  char *unused = NULL;
  int rc = run(&o, m, &unused);
  if (!rc) rc = emit(&o, m);
  if (!rc) print_unused(unused);
  free(unused);
  tl_module_free(m);
  return rc;
}
