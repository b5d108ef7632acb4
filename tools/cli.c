/* cli.c — file (read or mapped), error and flag-table helpers for the
 * tools (see cli.h). */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The buffer's first size: a regular file's own size plus one byte (the
 * read that finds the end); pipes, stdin and files that report no size
 * start small and double. */
static size_t first_cap(FILE *f) {
  struct stat st;
  if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
      (uint64_t)st.st_size >= SIZE_MAX / 2)
    return 1 << 16;
  return (size_t)st.st_size + 1;
}

int cli_read_file(const char *path, uint8_t **out, size_t *size) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    fprintf(stderr, "%s: error: %s\n", path, strerror(errno));
    return 1;
  }
  size_t cap = first_cap(f), n = 0;
  uint8_t *p = malloc(cap);
  for (;;) {
    if (!p) {
      fprintf(stderr, "%s: error: out of memory\n", path);
      if (f != stdin) fclose(f);
      return 1;
    }
    n += fread(p + n, 1, cap - n, f);
    if (n < cap) break;
    cap *= 2;
    uint8_t *q = realloc(p, cap);
    if (!q) free(p);
    p = q;
  }
  int bad = ferror(f);
  if (f != stdin) fclose(f);
  if (bad) {
    fprintf(stderr, "%s: error: read failed\n", path);
    free(p);
    return 1;
  }
  if (cap - n > 4096) { /* a pipe's doubling: give the unused tail back */
    uint8_t *q = realloc(p, n ? n : 1);
    if (q) p = q;
  }
  *out = p;
  *size = n;
  return 0;
}

/* Maps the regular file at path whole; false (nothing mapped) for other
 * files, empty ones and failures, which cli_read_file then reports.
 * (MAP_POPULATE measured no faster: a fault maps 16 pages of the cache.) */
static bool map_regular(const char *path, cli_file *out) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return false;
  struct stat st;
  void *p = MAP_FAILED;
  if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2)
    p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return false;
  *out = (cli_file){p, (size_t)st.st_size, true};
  return true;
}

int cli_map_file(const char *path, cli_file *out) {
  if (strcmp(path, "-") && map_regular(path, out)) return 0;
  uint8_t *p;
  size_t n;
  if (cli_read_file(path, &p, &n)) return 1;
  *out = (cli_file){p, n, false};
  return 0;
}

void cli_file_release(cli_file *f) { cli_file_release_prefix(f, f->n); }

void cli_file_release_prefix(cli_file *f, size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  n = n < f->n ? n / page * page : f->n;
  if (f->mapped && n) madvise((void *)f->p, n, MADV_DONTNEED);
}

void cli_file_free(cli_file *f) {
  if (f->mapped) munmap((void *)f->p, f->n);
  else free((void *)f->p);
  *f = (cli_file){NULL, 0, false};
}

int cli_write_file(const char *path, const void *p, size_t n) {
  FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
  bool ok = f && fwrite(p, 1, n, f) == n;
  if (f) ok = (f == stdout ? fflush(f) : fclose(f)) == 0 && ok;
  if (!ok) {
    fprintf(stderr, "%s: error: cannot write: %s\n", path, strerror(errno));
    return 1;
  }
  return 0;
}

void cli_print_error(const char *path, const tl_error *e) {
  if (e->line)
    fprintf(stderr, "%s:%u:%u: error: %s\n", path, e->line, e->col, e->msg);
  else if (e->offset != TL_NO_OFFSET)
    fprintf(stderr, "%s:0x%" PRIx64 ": error: %s\n", path, e->offset, e->msg);
  else if (e->func_index != TL_NO_FUNC)
    fprintf(stderr, "%s: error: in function %u: %s\n", path, e->func_index, e->msg);
  else
    fprintf(stderr, "%s: error: %s\n", path, e->msg);
}

int cli_read_source_map(const char *path, tl_read_options *ro) {
  uint8_t *map = NULL;
  size_t n = 0;
  if (path && cli_read_file(path, &map, &n)) return 1;
  ro->source_map = (const char *)map;
  ro->source_map_size = n;
  return 0;
}

int cli_write_source_map(const char *path, char *map) {
  int rc = map ? cli_write_file(path, map, strlen(map)) : 0;
  free(map);
  return rc;
}

void cli_print_read_error(const char *in, const char *map, const tl_error *e) {
  static const char prefix[] = "source map: ";
  bool mine = map && !strncmp(e->msg, prefix, sizeof prefix - 1);
  if (!mine) return cli_print_error(in, e);
  tl_error e2 = *e;
  memmove(e2.msg, e2.msg + sizeof prefix - 1, strlen(e2.msg) - (sizeof prefix - 1) + 1);
  cli_print_error(map, &e2);
}

static const char *prog = "tilt";

void cli_init(const char *argv0) {
  const char *s = strrchr(argv0, '/');
  prog = s ? s + 1 : argv0;
}

void cli_print_version(const char *version, int binaryen) {
  if (!strncmp(prog, "wasm-", 5)) printf("%s version %d (tilt %s)\n", prog, binaryen, version);
  else printf("%s version %s\n", prog, version);
}

void cli_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: error: ", prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* A LEB128 u32 at p[*i..n); false if it runs past n or is too long. */
static bool leb_u32(const uint8_t *p, size_t n, size_t *i, uint32_t *out) {
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 35 && *i < n; shift += 7) {
    uint8_t b = p[(*i)++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = (uint32_t)v;
      return v <= UINT32_MAX;
    }
  }
  return false;
}

size_t cli_strip_custom(uint8_t *p, size_t n,
                        bool (*drop)(const char *name, size_t len, void *ctx), void *ctx) {
  if (n < 8) return n;
  size_t rd = 8, wr = 8;  /* after magic and version */
  while (rd < n) {
    size_t start = rd++, j;
    uint32_t size, len;
    if (!leb_u32(p, n, &rd, &size) || size > n - rd) {
      rd = start;
      break;
    }
    size_t end = rd + size;
    j = rd;
    bool gone = p[start] == 0 && leb_u32(p, end, &j, &len) && len <= end - j &&
                drop((const char *)p + j, len, ctx);
    if (!gone) {
      memmove(p + wr, p + start, end - start);
      wr += end - start;
    }
    rd = end;
  }
  memmove(p + wr, p + rd, n - rd);  /* an unparsable tail is kept as it is */
  return wr + (n - rd);
}

void cli_print_flags(const cli_flag *flags, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s%s%s%s", flags[i].lng, flags[i].shrt ? "," : "",
             flags[i].shrt ? flags[i].shrt : "", flags[i].arg ? " FILE" : "");
    printf("  %-28s %s\n", name, flags[i].help);
  }
}

const cli_flag *cli_match_flag(const cli_flag *flags, size_t n, int argc, char **argv, int *i,
                               const char **arg, bool *bad) {
  const char *a = argv[*i];
  *arg = NULL, *bad = false;
  for (size_t k = 0; k < n; k++) {
    size_t len = strlen(flags[k].lng);
    bool eq = flags[k].arg && !strncmp(a, flags[k].lng, len) && a[len] == '=';
    if (strcmp(a, flags[k].lng) && (!flags[k].shrt || strcmp(a, flags[k].shrt)) && !eq) continue;
    if (eq) *arg = a + len + 1;
    else if (flags[k].arg && *i + 1 < argc) *arg = argv[++*i];
    else if (flags[k].arg) return cli_fail("option '%s' needs an argument", a), *bad = true, NULL;
    return &flags[k];
  }
  return NULL;
}

bool cli_feature_flag(uint32_t *features, const char *a, bool *ok) {
  bool on = !strncmp(a, "--enable-", 9);
  if (!on && strncmp(a, "--disable-", 10)) return false;
  uint32_t f = tl_feature_from_name(a + (on ? 9 : 10));
  *ok = f != 0;
  if (!f) cli_fail("unknown or unsupported feature in option '%s'", a);
  else if (on) *features |= f;
  else *features &= ~f;
  return true;
}

int cli_table_flag(const cli_flag *flags, size_t n, uint32_t *features,
                   bool (*apply)(void *ctx, int id, const char *arg), void *ctx, int argc, char **argv,
                   int i) {
  const char *arg;
  bool bad, ok;
  const cli_flag *f = cli_match_flag(flags, n, argc, argv, &i, &arg, &bad);
  if (f) return apply(ctx, f->id, arg) ? i : -1;
  if (bad) return -1;
  if (cli_feature_flag(features, argv[i], &ok)) return ok ? i : -1;
  return cli_fail("unknown option '%s'", argv[i]), -1;
}

bool cli_parse_args(int argc, char **argv, int (*flag)(void *ctx, int argc, char **argv, int i),
                    void *ctx, const char **in) {
  *in = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1]) {
      if ((i = flag(ctx, argc, argv, i)) < 0) return false;
    } else if (*in) {
      return cli_fail("more than one input file ('%s' and '%s')", *in, a), false;
    } else {
      *in = a;
    }
  }
  if (!*in) return cli_fail("no input file (try --help)"), false;
  return true;
}
