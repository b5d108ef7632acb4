/* tilt-writer-fuzz — a test tool for the writer: reads a module, optionally
 * runs passes, then replaces random nodes of every function body with
 * `unreachable` (refinalizing, so unreachable types spread through blocks,
 * ifs and operands) and writes the result with names. Whatever it writes
 * must pass wasm-validate: the script around it checks that.
 * usage: tilt-writer-fuzz [--seed N] [--rate R] [--passes a,b] IN.wasm -o OUT.wasm */
#include "ir.h"
#include "wasm-io/wasmio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint64_t s; uint32_t rate; tl_func *f; uint64_t hits; } fuzz;

static uint64_t next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void visit(tl_walk *w, tl_expr **slot) {
  fuzz *z = w->ctx;
  if (slot == &z->f->body || !z->rate || next(&z->s) % z->rate) return;
  *slot = tl_make_unreachable(w->m);
  z->hits++;
}

static int load(const char *path, uint8_t **out, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  *out = malloc(len > 0 ? (size_t)len : 1);
  *n = fread(*out, 1, (size_t)(len > 0 ? len : 0), f);
  fclose(f);
  return 0;
}

static int run_passes(tl_module *m, char *list) {
  const char *names[64];
  uint32_t n = 0;
  for (char *t = strtok(list, ","); t && n < 64; t = strtok(NULL, ",")) names[n++] = t;
  tl_pass_options po = {.threads = 1};
  tl_error err = {0};
  if (tl_module_run_passes(m, names, n, &po, &err) != TL_OK) {
    fprintf(stderr, "tilt-writer-fuzz: passes failed: %s\n", err.msg);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  char *passes = NULL;
  uint64_t seed = 1;
  uint32_t rate = 20;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--rate") && i + 1 < argc) rate = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--passes") && i + 1 < argc) passes = argv[++i];
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else in = argv[i];
  }
  if (!in || !out) {
    fprintf(stderr, "usage: tilt-writer-fuzz [--seed N] [--rate R] [--passes a,b] IN.wasm -o OUT.wasm\n");
    return 3;
  }
  uint8_t *bytes;
  size_t n;
  if (load(in, &bytes, &n)) return 3;
  tl_read_options ro = {.features = TL_FEATURES_ALL};
  tl_error err = {0};
  tl_module *m = tl_module_read(bytes, n, &ro, &err);
  free(bytes);
  if (!m) return 2; /* not ours to judge */
  if (passes && run_passes(m, passes)) return 1;
  fuzz z = {seed * 0x9e3779b97f4a7c15ull + 1, rate, NULL, 0};
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    z.f = TL_FUNC(m, i);
    tl_walk_post(m, z.f, &z.f->body, visit, &z);
    tl_func_refinalize(m, z.f);
  }
  tl_write_options wo = {.debug_names = true};
  tl_buf b = {0};
  int rc = 0;
  if (tl_write(m, &wo, &b, &err) != TL_OK) {
    fprintf(stderr, "tilt-writer-fuzz: %s: write failed (func %u): %s\n", in, err.func_index, err.msg);
    rc = 1;
  } else {
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(b.p, 1, b.n, f) != b.n) rc = 3;
    if (f) fclose(f);
  }
  tl_buf_free(&b);
  tl_module_free(m);
  return rc;
}
