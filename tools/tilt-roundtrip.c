/* tilt-roundtrip — a test tool: read, validate, write, re-read and re-write a
 * module and check the writer reaches a fixed point after one normalization
 * (w1 == w2 and print(m2) == print(m3)); also reports whether the first read
 * was already "exact" (print(m1) == print(m2)). Every input is also read
 * with lazy bodies (tl_read_options.lazy_bodies), which must accept and
 * refuse exactly what the full read does, with the same error, and whose
 * write (bodies copied as read) must give w1 once read fully and written,
 * and so must the output of each module pass that takes lazy bodies as
 * bytes (remove-unused-module-elements, directize, ...: lazy_passes).
 * --expect-invalid inverts the check for inputs that must be rejected;
 * --bench times read and write and reports peak memory (--lazy: of the lazy
 * read). Runs nothing external: the test scripts do that. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { RC_OK = 0, RC_MISMATCH = 1, RC_READ = 2, RC_USAGE = 3 };

typedef struct {
  const char *in, *out, *suffix; /* suffix: write w1 beside each input */
  char **ins;                     /* the inputs (argv order); nin of them */
  int nin;
  tl_read_options ro;
  bool expect_invalid, bench, quiet, lazy;
  int repeat;
} opts;

static const char *status_name(tl_status s) {
  static const char *const names[] = {
      "TL_OK",         "TL_E_MALFORMED", "TL_E_INVALID", "TL_E_FEATURE",
      "TL_E_LIMIT",    "TL_E_NOMEM",     "TL_E_UNSUPPORTED", "TL_E_IO",
      "TL_E_TRAP",     "TL_E_LINK",      "TL_E_EXHAUSTED",   "TL_E_EXIT",
      "TL_E_EXCEPTION"};
  return (unsigned)s < sizeof names / sizeof *names ? names[s] : "TL_E_?";
}

static void report(const char *what, const char *path, const tl_error *e) {
  cli_print_error(path, e);
  fprintf(stderr, "tilt-roundtrip: %s failed: %s\n", what, status_name(e->code));
}

static int usage(FILE *f, int rc) {
  fprintf(f,
          "usage: tilt-roundtrip [FEATURES] [-o W1.wasm | --out-suffix SUF] [-q] IN.wasm...\n"
          "       tilt-roundtrip [FEATURES] --expect-invalid IN.wasm...\n"
          "       tilt-roundtrip [FEATURES] --bench [--lazy] [-n REPEAT] [-o OUT.wasm] IN.wasm\n"
          "FEATURES: --all-features, --features=a,b,... or --enable-a (wasm-opt names;\n"
          "          the default is wasm-opt's default set)\n"
          "exit: 0 ok, 1 round-trip failure or mismatch, 2 IN rejected, 3 usage/io;\n"
          "with several inputs: the largest, and a line 'RESULT <exit> <IN>' for each\n"
          "--out-suffix SUF writes w1 to IN (less a .wasm ending) + SUF\n");
  return rc;
}

/* "--features=a,b" (wasm-opt names, or all/default/mvp) or "--enable-a". */
static int add_features(opts *o, const char *list) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
    uint32_t f = !strcmp(t, "all") ? TL_FEATURES_ALL
                 : !strcmp(t, "default") ? tl_features_default_set()
                 : !strcmp(t, "mvp")     ? TL_FEATURES_MVP
                                         : tl_feature_from_name(t);
    if (!f) {
      fprintf(stderr, "tilt-roundtrip: unknown feature '%s'\n", t);
      return RC_USAGE;
    }
    o->ro.features |= f;
  }
  return 0;
}

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->ins = calloc((size_t)argc, sizeof *o->ins);
  if (!o->ins) return RC_USAGE;
  o->repeat = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-o") && i + 1 < argc) o->out = argv[++i];
    else if (!strcmp(a, "--out-suffix") && i + 1 < argc) o->suffix = argv[++i];
    else if (!strcmp(a, "-n") && i + 1 < argc) o->repeat = atoi(argv[++i]);
    else if (!strcmp(a, "--all-features") || !strcmp(a, "-all")) o->ro.features = TL_FEATURES_ALL;
    else if (!strncmp(a, "--features=", 11) && add_features(o, a + 11)) return RC_USAGE;
    else if (!strncmp(a, "--features=", 11)) continue;
    else if (!strncmp(a, "--enable-", 9) && add_features(o, a + 9)) return RC_USAGE;
    else if (!strncmp(a, "--enable-", 9)) continue;
    else if (!strcmp(a, "--expect-invalid")) o->expect_invalid = true;
    else if (!strcmp(a, "--bench")) o->bench = true;
    else if (!strcmp(a, "--lazy")) o->lazy = true;
    else if (!strcmp(a, "-q")) o->quiet = true;
    else if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout, 0) - 1;
    else if (a[0] == '-' && a[1]) return usage(stderr, RC_USAGE);
    else o->ins[o->nin++] = argv[i];
  }
  if (!o->nin || (o->out && o->nin > 1)) return usage(stderr, RC_USAGE);
  if (o->repeat < 1) o->repeat = 1;
  return 0;
}

/* Reads and validates; NULL (with *err filled) if either fails. */
static tl_module *load(const uint8_t *p, size_t n, const tl_read_options *ro, tl_error *err) {
  tl_module *m = tl_module_read(p, n, ro, err);
  if (m && tl_module_validate(m, err) != TL_OK) {
    tl_module_free(m);
    return NULL;
  }
  return m;
}

/* Prints the first line where a and b differ, with its line number. */
static void show_diff(const char *what, const char *a, const char *b) {
  size_t line = 1, i = 0;
  for (; a[i] && a[i] == b[i]; i++)
    if (a[i] == '\n') line++;
  size_t s = i;
  while (s > 0 && a[s - 1] != '\n') s--;
  int la = (int)strcspn(a + s, "\n"), lb = (int)strcspn(b + s, "\n");
  fprintf(stderr, "tilt-roundtrip: %s differ at line %zu:\n  - %.*s\n  + %.*s\n", what, line,
          la > 200 ? 200 : la, a + s, lb > 200 ? 200 : lb, b + s);
}

static size_t first_diff(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
  size_t i = 0;
  while (i < na && i < nb && a[i] == b[i]) i++;
  return i;
}

/* m1 is the module read from the n0-byte input; w1 is its encoding. */
static int check(const opts *o, tl_module *m1, size_t n0, const uint8_t *w1, size_t n1) {
  tl_error err;
  tl_write_options wo = {.debug_names = true};
  int rc = RC_MISMATCH;
  uint8_t *w2 = NULL;
  size_t n2 = 0;
  char *p1 = NULL, *p2 = NULL, *p3 = NULL;
  tl_module *m3 = NULL, *m2 = load(w1, n1, &o->ro, &err);
  if (!m2) {
    report("re-reading the written module", o->in, &err);
    return RC_MISMATCH;
  }
  if (tl_module_write(m2, &wo, &w2, &n2, &err) != TL_OK) {
    report("writing the re-read module", o->in, &err);
    goto out;
  }
  if (!(m3 = load(w2, n2, &o->ro, &err))) {
    report("reading the second write", o->in, &err);
    goto out;
  }
  p1 = tl_module_print(m1), p2 = tl_module_print(m2), p3 = tl_module_print(m3);
  bool same_bytes = n1 == n2 && !memcmp(w1, w2, n1);
  bool same_print = !strcmp(p2, p3), exact = !strcmp(p1, p2);
  if (!same_bytes)
    fprintf(stderr, "tilt-roundtrip: %s: w1 (%zu bytes) != w2 (%zu bytes), first difference at 0x%zx\n",
            o->in, n1, n2, first_diff(w1, n1, w2, n2));
  if (!same_print) show_diff("print(m2) and print(m3)", p2, p3);
  if (same_bytes && same_print) {
    rc = RC_OK;
    if (!o->quiet) printf("ok %s: %zu -> %zu bytes%s\n", o->in, n0, n1, exact ? ", exact" : "");
  }
out:
  free(p1), free(p2), free(p3), free(w2);
  tl_module_free(m2), tl_module_free(m3);
  return rc;
}

static double clock_s(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct { double wall, cpu; } stamp;

static stamp now(void) {
  return (stamp){clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID)};
}

static void keep_best(stamp *best, stamp a, stamp b) {
  if (b.wall - a.wall < best->wall) best->wall = b.wall - a.wall;
  if (b.cpu - a.cpu < best->cpu) best->cpu = b.cpu - a.cpu;
}

/* --bench: best-of-REPEAT wall and CPU times of read and write, and peak RSS. */
static int bench(const opts *o, const uint8_t *in, size_t n) {
  stamp best_r = {1e30, 1e30}, best_w = {1e30, 1e30};
  uint8_t *w = NULL;
  size_t nw = 0;
  tl_write_options wo = {0};
  tl_error err;
  for (int i = 0; i < o->repeat; i++) {
    stamp t0 = now();
    tl_read_options ro = o->ro;
    ro.lazy_bodies = o->lazy;
    tl_module *m = tl_module_read(in, n, &ro, &err);
    stamp t1 = now();
    if (!m) {
      report("reading", o->in, &err);
      free(w);
      return RC_READ;
    }
    free(w);
    w = NULL;
    if (tl_module_write(m, &wo, &w, &nw, &err) != TL_OK) {
      report("writing", o->in, &err);
      tl_module_free(m);
      return RC_MISMATCH;
    }
    stamp t2 = now();
    tl_module_free(m);
    keep_best(&best_r, t0, t1);
    keep_best(&best_w, t1, t2);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  int rc = o->out && cli_write_file(o->out, w, nw) ? RC_USAGE : RC_OK;
  printf("bench %s: in %zu out %zu read_s %.6f write_s %.6f read_cpu_s %.6f write_cpu_s %.6f "
         "maxrss_kb %ld\n",
         o->in, n, nw, best_r.wall, best_w.wall, best_r.cpu, best_w.cpu, ru.ru_maxrss);
  free(w);
  return rc;
}

static int write_beside(const char *in, const char *suffix, const uint8_t *p, size_t n) {
  size_t len = strlen(in);
  if (len >= 5 && !strcmp(in + len - 5, ".wasm")) len -= 5;
  char *path = malloc(len + strlen(suffix) + 1);
  if (!path) return 1;
  memcpy(path, in, len);
  strcpy(path + len, suffix);
  int rc = cli_write_file(path, p, n);
  free(path);
  return rc;
}

static bool same_error(const tl_error *a, const tl_error *b) {
  return a->code == b->code && a->offset == b->offset && !strcmp(a->msg, b->msg);
}

/* The module passes that take lazy bodies as bytes (MODULE_LAZY: they read
 * and renumber immediates in the bytes, and decode only the bodies they
 * change): on the lazy read, read back fully and written, each must give
 * the bytes it gives on the full read, written. */
typedef struct { const char *name, *arg_key, *arg_value; } lazy_pass;
static const lazy_pass lazy_passes[] = {
  {"remove-unused-module-elements", NULL, NULL},
  {"directize", NULL, NULL},
  {"duplicate-import-elimination", NULL, NULL},
  {"reorder-globals", "reorder-globals-always", "1"}, /* also below 128 globals */
  {"simplify-globals", NULL, NULL},
  {"simplify-globals-optimizing", NULL, NULL},
  {"memory-packing", NULL, NULL},
};

static int check_lazy_pass(const opts *o, const uint8_t *in, size_t n, const tl_read_options *lo,
                           const lazy_pass *lp) {
  const char *pass = lp->name;
  tl_pass_options po = {.nargs = lp->arg_key ? 1 : 0, .arg_keys = &lp->arg_key, .arg_values = &lp->arg_value};
  tl_write_options wo = {.debug_names = true};
  tl_error err;
  uint8_t *wa = NULL, *wl = NULL, *wr = NULL;
  size_t na = 0, nl = 0, nr = 0;
  tl_module *ma = load(in, n, &o->ro, &err), *ml = load(in, n, lo, &err), *mr = NULL;
  int rc = RC_MISMATCH;
  char what[96];
  snprintf(what, sizeof what, "%s on the lazy and the full read", pass);
  if (!ma || !ml || tl_module_run_passes(ma, &pass, 1, &po, &err) || tl_module_write(ma, &wo, &wa, &na, &err) ||
      tl_module_run_passes(ml, &pass, 1, &po, &err) || tl_module_write(ml, &wo, &wl, &nl, &err) ||
      !(mr = load(wl, nl, &o->ro, &err)) || tl_module_write(mr, &wo, &wr, &nr, &err))
    report(what, o->in, &err);
  else if (na != nr || memcmp(wa, wr, na))
    fprintf(stderr, "tilt-roundtrip: %s: %s on the lazy read, read back and written, "
            "differs from it on the full read at 0x%zx\n", o->in, pass, first_diff(wa, na, wr, nr));
  else rc = RC_OK;
  free(wa), free(wl), free(wr);
  tl_module_free(ma), tl_module_free(ml), tl_module_free(mr);
  return rc;
}

static int check_lazy_passes(const opts *o, const uint8_t *in, size_t n, const tl_read_options *lo) {
  int rc = RC_OK;
  for (size_t k = 0; k < sizeof lazy_passes / sizeof *lazy_passes && rc == RC_OK; k++)
    rc = check_lazy_pass(o, in, n, lo, &lazy_passes[k]);
  return rc;
}

/* The lazy read of the input against the full one (m1, or its error e1):
 * the same verdict and error; once written, read fully and written again,
 * the bytes of w1. */
static int check_lazy(const opts *o, const uint8_t *in, size_t n, const tl_error *e1, const uint8_t *w1, size_t n1,
                      bool ok1) {
  tl_read_options lo = o->ro;
  lo.lazy_bodies = true;
  tl_error el = {0}, err;
  tl_module *ml = load(in, n, &lo, &el), *mr = NULL;
  int rc = RC_MISMATCH;
  uint8_t *wl = NULL, *wr = NULL;
  size_t nl = 0, nr = 0;
  tl_write_options wo = {.debug_names = true};
  if (!ok1 || !ml) {
    if (!ok1 && !ml && same_error(e1, &el)) return RC_OK;
    fprintf(stderr, "tilt-roundtrip: %s: the lazy read %s (%s), the full read %s (%s)\n", o->in,
            ml ? "accepts" : "refuses", ml ? "" : el.msg, ok1 ? "accepts" : "refuses", ok1 ? "" : e1->msg);
    tl_module_free(ml);
    return RC_MISMATCH;
  }
  if (tl_module_write(ml, &wo, &wl, &nl, &err) != TL_OK) report("writing the lazy read", o->in, &err);
  else if (!(mr = load(wl, nl, &o->ro, &err))) report("reading the lazy write", o->in, &err);
  else if (tl_module_write(mr, &wo, &wr, &nr, &err) != TL_OK) report("writing the lazy write read back", o->in, &err);
  else if (nr != n1 || memcmp(wr, w1, n1))
    fprintf(stderr, "tilt-roundtrip: %s: the lazy write read back and written (%zu bytes) != w1 (%zu bytes), first difference at 0x%zx\n",
            o->in, nr, n1, first_diff(wr, nr, w1, n1));
  else rc = RC_OK;
  free(wl), free(wr);
  tl_module_free(ml), tl_module_free(mr);
  return rc ? rc : check_lazy_passes(o, in, n, &lo);
}

static int run(const opts *o, const uint8_t *in, size_t n) {
  tl_error err;
  if (o->bench) return bench(o, in, n);
  tl_module *m1 = load(in, n, &o->ro, &err);
  if (!m1 && check_lazy(o, in, n, &err, NULL, 0, false)) return RC_MISMATCH;
  if (o->expect_invalid) {
    if (m1) {
      fprintf(stderr, "tilt-roundtrip: %s: accepted, but it must be rejected\n", o->in);
      tl_module_free(m1);
      return RC_MISMATCH;
    }
    if (!o->quiet) printf("ok %s: rejected: %s: %s\n", o->in, status_name(err.code), err.msg);
    return RC_OK;
  }
  if (!m1) {
    report("reading", o->in, &err);
    return RC_READ;
  }
  uint8_t *w1 = NULL;
  size_t n1 = 0;
  tl_write_options wo = {.debug_names = true};
  int rc;
  if (tl_module_write(m1, &wo, &w1, &n1, &err) != TL_OK) {
    report("writing", o->in, &err);
    rc = RC_MISMATCH;
  } else if (o->out && cli_write_file(o->out, w1, n1)) {
    rc = RC_USAGE;
  } else if (o->suffix && write_beside(o->in, o->suffix, w1, n1)) {
    rc = RC_USAGE;
  } else {
    rc = check(o, m1, n, w1, n1);
    if (!rc) rc = check_lazy(o, in, n, NULL, w1, n1, true);
  }
  free(w1);
  tl_module_free(m1);
  return rc;
}

int main(int argc, char **argv) {
  opts o;
  int rc = parse(argc, argv, &o), worst = 0;
  if (rc) {
    free(o.ins);
    return rc < 0 ? 0 : rc;
  }
  for (int i = 0; i < o.nin; i++) {
    uint8_t *bytes;
    size_t size;
    o.in = o.ins[i];
    if (cli_read_file(o.in, &bytes, &size)) {
      rc = RC_USAGE;
    } else {
      rc = run(&o, bytes, size);
      free(bytes);
    }
    if (o.nin > 1) {
      fflush(stderr);
      printf("RESULT %d %s\n", rc, o.in);
      fflush(stdout);
    }
    if (rc > worst) worst = rc;
  }
  free(o.ins);
  return worst;
}
