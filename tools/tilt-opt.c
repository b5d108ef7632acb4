/* tilt-opt — the wasm-opt compatible command line: read a binary module,
 * validate it, and write it back as binary (-o) or text (-S, --print).
 * One table (flags[]) drives both parsing and --help. Only the public API
 * (tilt.h) is used. Every flag we do not implement is an error that says so;
 * nothing is silently ignored. Exit status: 0 on success, 1 on any error. */
#include "cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TILT_VERSION
#define TILT_VERSION "unknown"
#endif

typedef struct {
  const char *in, *out;
  const char *in_name;     /* for messages: in, or "<stdin>" for "-" */
  bool emit_text, print, debug_names, validate, quiet, detect;
  uint32_t features;       /* running set; --enable/--disable apply in order */
  bool strip_debug, strip_dwarf, strip_producers, strip_target_features;
} opts;

typedef enum {
  O_OUTPUT, O_TEXT, O_PRINT, O_DEBUG, O_VALIDATE, O_NO_VALIDATE, O_ALL, O_MVP,
  O_DETECT, O_STRIP_DEBUG, O_STRIP_DWARF, O_STRIP_PRODUCERS, O_STRIP_TARGET_FEATURES,
  O_QUIET, O_HELP, O_VERSION
} opt_id;

/* Flag table — long name, short name (or NULL), takes an argument, help. */
static const struct {
  opt_id id;
  const char *lng, *shrt;
  bool arg;
  const char *help;
} flags[] = {
  {O_OUTPUT, "--output", "-o", true, "output file ('-' for stdout)"},
  {O_TEXT, "--emit-text", "-S", false, "emit text instead of binary (to stdout without -o)"},
  {O_PRINT, "--print", NULL, false, "print the module as text to stdout"},
  {O_DEBUG, "--debuginfo", "-g", false, "keep names (write the name section)"},
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
  {O_HELP, "--help", "-h", false, "show this help and exit"},
  {O_VERSION, "--version", NULL, false, "show the version and exit"},
};
#define NFLAGS (sizeof flags / sizeof flags[0])

static void help(void) {
  printf("usage: tilt-opt [options] IN.wasm [-o OUT]\n\n"
         "Reads a WebAssembly binary ('-' for stdin), validates it and writes it\n"
         "back. Without -o, -S or --print nothing is written.\n\noptions:\n");
  for (size_t i = 0; i < NFLAGS; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s%s%s%s", flags[i].lng, flags[i].shrt ? "," : "",
             flags[i].shrt ? flags[i].shrt : "", flags[i].arg ? " FILE" : "");
    printf("  %-28s %s\n", name, flags[i].help);
  }
  printf("\nfeatures (default:");
  for (uint32_t b = 1; b & TL_FEATURES_ALL; b <<= 1)
    if (tl_features_default_set() & b) printf(" %s", tl_feature_to_name(b));
  printf("):\n");
  for (uint32_t b = 1; b & TL_FEATURES_ALL; b <<= 1)
    printf("  --enable-%s, --disable-%s\n", tl_feature_to_name(b), tl_feature_to_name(b));
  printf("\noptimization passes: none yet\n");
}

/* --enable-NAME / --disable-NAME; returns false if a is no feature flag. */
static bool feature_flag(opts *o, const char *a, bool *ok) {
  bool on = !strncmp(a, "--enable-", 9);
  if (!on && strncmp(a, "--disable-", 10)) return false;
  uint32_t f = tl_feature_from_name(a + (on ? 9 : 10));
  *ok = f != 0;
  if (!f) cli_fail("unknown or unsupported feature in option '%s'", a);
  else if (on) o->features |= f;
  else o->features &= ~f;
  return true;
}

static void apply(opts *o, opt_id id, const char *arg) {
  switch (id) {
  case O_OUTPUT: o->out = arg; break;
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
  case O_HELP: help(); exit(0);
  case O_VERSION: printf("tilt-opt version %s\n", TILT_VERSION); exit(0);
  }
}

/* Matches a against the table; "--output=FILE" style is accepted too. */
static int parse_flag(opts *o, int argc, char **argv, int i) {
  const char *a = argv[i];
  for (size_t k = 0; k < NFLAGS; k++) {
    size_t n = strlen(flags[k].lng);
    bool eq = flags[k].arg && !strncmp(a, flags[k].lng, n) && a[n] == '=';
    if (strcmp(a, flags[k].lng) && (!flags[k].shrt || strcmp(a, flags[k].shrt)) && !eq)
      continue;
    if (eq) apply(o, flags[k].id, a + n + 1);
    else if (!flags[k].arg) apply(o, flags[k].id, NULL);
    else if (i + 1 < argc) apply(o, flags[k].id, argv[++i]);
    else return cli_fail("option '%s' needs an argument", a), -1;
    return i;
  }
  bool ok;
  if (feature_flag(o, a, &ok)) return ok ? i : -1;
  cli_fail("unknown option '%s'", a);
  return -1;
}

static bool parse(opts *o, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1]) {
      if ((i = parse_flag(o, argc, argv, i)) < 0) return false;
    } else if (o->in) {
      return cli_fail("more than one input file ('%s' and '%s')", o->in, a), false;
    } else {
      o->in = a;
    }
  }
  if (!o->in) return cli_fail("no input file (try --help)"), false;
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

static int write_binary(opts *o, tl_module *m) {
  tl_write_options wo = {.debug_names = o->debug_names && !o->strip_debug};
  uint8_t *bytes;
  size_t size;
  tl_error err;
  if (tl_module_write(m, &wo, &bytes, &size, &err) != TL_OK) {
    cli_print_error(o->out, &err);
    return 1;
  }
  size = cli_strip_custom(bytes, size, drop_custom, o);
  int rc = cli_write_file(o->out, bytes, size);
  free(bytes);
  return rc;
}

static int emit(opts *o, tl_module *m) {
  if (o->print && write_text(m, "-")) return 1;
  if (o->out) return o->emit_text ? write_text(m, o->out) : write_binary(o, m);
  if (o->emit_text && !o->print) return write_text(m, "-");
  if (!o->print && !o->quiet)
    fprintf(stderr, "tilt-opt: warning: no output file specified, not emitting output\n");
  return 0;
}

static tl_module *load(opts *o) {
  uint8_t *bytes;
  size_t size;
  if (cli_read_file(o->in, &bytes, &size)) return NULL;
  /* features == 0 means the default set to the reader; "none" is spelled
   * TL_FEATURES_MVP there. */
  tl_read_options ro = {.features = o->features ? o->features : TL_FEATURES_MVP,
                        .detect_features = o->detect, .no_validate = !o->validate};
  tl_error err;
  tl_module *m = tl_module_read(bytes, size, &ro, &err);
  free(bytes);
  if (!m) {
    cli_print_error(o->in_name, &err);
    return NULL;
  }
  if (!o->features && !o->detect) tl_module_set_features(m, 0);
  return m;
}

int main(int argc, char **argv) {
  opts o = {.validate = true, .features = tl_features_default_set()};
  cli_init(argv[0]);
  if (!parse(&o, argc, argv)) return 1;
  tl_module *m = load(&o);
  if (!m) return 1;
  /* Passes will run here; the output is validated after them. */
  tl_error err;
  int rc = 0;
  if (o.validate && tl_module_validate(m, &err) != TL_OK) {
    cli_print_error(o.in_name, &err);
    rc = 1;
  }
  if (!rc) rc = emit(&o, m);
  tl_module_free(m);
  return rc;
}
