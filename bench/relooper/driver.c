/* bench/relooper/driver.c — structures the graphs written by gen.py (text
 * form) with tilt's Relooper C API: per family, one module with one
 * function per graph; every block calls log(id), conditions and switch
 * values are calls to next(). Prints per family the best-of-N render time,
 * the written module size and the relooper's own stats, and writes the
 * module to OUTDIR/tilt-<family>.wasm. Not a test. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tilt.h"

typedef struct { uint32_t kind, n, *succ, *ncase, **cases; } blk;
typedef struct { uint32_t n; blk *b; } graph;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static tl_expr_ref call1(tl_module *m, uint32_t f, int32_t v) {
  tl_expr_ref a = tl_build_const_i32(m, v);
  return tl_build_call(m, f, &a, 1);
}

/* Builds a module of every graph; adds their render times to *t. */
static tl_module *build(graph *gs, uint32_t ng, double *t, uint64_t *st) {
  tl_module *m = tl_module_create();
  uint32_t t_log = tl_add_type(m, TL_TYPE_I32, TL_TYPE_NONE), t_next = tl_add_type(m, TL_TYPE_NONE, TL_TYPE_I32);
  uint32_t t_run = tl_add_type(m, TL_TYPE_NONE, TL_TYPE_NONE);
  uint32_t log = tl_add_function_import(m, "log", "env", "log", t_log);
  uint32_t next = tl_add_function_import(m, "next", "env", "next", t_next);
  tl_type_t i32 = TL_TYPE_I32;
  memset(st, 0, 3 * sizeof *st);
  for (uint32_t gi = 0; gi < ng; gi++) {
    graph *g = &gs[gi];
    uint32_t fn = tl_add_function(m, NULL, t_run, &i32, 1, NULL);
    double t0 = now();
    tl_relooper *r = tl_relooper_create(m, fn);
    tl_rblock *id = malloc(g->n * sizeof *id);
    for (uint32_t b = 0; b < g->n; b++)
      id[b] = g->b[b].kind ? tl_relooper_add_block_with_switch(r, call1(m, log, (int32_t)b),
                                                               tl_build_call(m, next, NULL, 0))
                           : tl_relooper_add_block(r, call1(m, log, (int32_t)b));
    for (uint32_t b = 0; b < g->n; b++) {
      blk *k = &g->b[b];
      for (uint32_t s = 0; s < k->n; s++) {
        bool last = s + 1 == k->n;
        if (k->kind) {
          tl_relooper_add_branch_for_switch(r, id[b], id[k->succ[s]], last ? NULL : k->cases[s],
                                            last ? 0 : k->ncase[s], NULL);
        } else {
          tl_relooper_add_branch(r, id[b], id[k->succ[s]], last ? NULL : tl_build_call(m, next, NULL, 0), NULL);
        }
      }
    }
    double t1 = now();
    tl_expr_ref body = tl_relooper_render(r, id[0], 0);
    double t2 = now();
    uint64_t d, s, sp;
    tl_relooper_stats(r, &d, &s, &sp);
    st[0] += d, st[1] += s, st[2] += sp;
    tl_relooper_dispose(r);
    t[0] += t1 - t0, t[1] += t2 - t1;
    free(id);
    if (!body || tl_function_set_body(m, fn, body) != TL_OK) {
      fprintf(stderr, "driver: render failed on graph %u\n", gi);
      exit(2);
    }
  }
  return m;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: driver GRAPHS.txt OUTDIR REPS\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) return 2;
  int reps = atoi(argv[3]);
  char name[64];
  uint32_t ng;
  printf("{\n");
  int first = 1;
  while (fscanf(f, " F %63s %u", name, &ng) == 2) {
    graph *gs = calloc(ng, sizeof *gs);
    for (uint32_t i = 0; i < ng; i++) {
      if (fscanf(f, " G %u", &gs[i].n) != 1) return 2;
      gs[i].b = calloc(gs[i].n, sizeof(blk));
      for (uint32_t b = 0; b < gs[i].n; b++) {
        blk *k = &gs[i].b[b];
        if (fscanf(f, "%u %u", &k->kind, &k->n) != 2) return 2;
        k->succ = calloc(k->n + 1, sizeof(uint32_t));
        k->ncase = calloc(k->n + 1, sizeof(uint32_t));
        k->cases = calloc(k->n + 1, sizeof(uint32_t *));
        for (uint32_t s = 0; s < k->n; s++) {
          if (fscanf(f, "%u", &k->succ[s]) != 1) return 2;
          if (!k->kind) continue;
          if (fscanf(f, "%u", &k->ncase[s]) != 1) return 2;
          k->cases[s] = calloc(k->ncase[s] + 1, sizeof(uint32_t));
          for (uint32_t c = 0; c < k->ncase[s]; c++)
            if (fscanf(f, "%u", &k->cases[s][c]) != 1) return 2;
        }
      }
    }
    double best_r = 1e30, best_all = 1e30;
    uint64_t st[3];
    tl_module *m = NULL;
    for (int rep = 0; rep < reps; rep++) {
      double t[2] = {0, 0};
      if (m) tl_module_free(m);
      m = build(gs, ng, t, st);
      if (t[1] < best_r) best_r = t[1];
      if (t[0] + t[1] < best_all) best_all = t[0] + t[1];
    }
    uint8_t *out;
    size_t size;
    tl_error err;
    memset(&err, 0, sizeof err);
    if (tl_module_write(m, NULL, &out, &size, &err) != TL_OK) {
      fprintf(stderr, "driver: write failed\n");
      return 2;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/tilt-%s.wasm", argv[2], name);
    FILE *o = fopen(path, "wb");
    fwrite(out, 1, size, o);
    fclose(o);
    free(out);
    tl_module_free(m);
    printf("%s\"%s\": {\"render_s\": %.6f, \"total_s\": %.6f, \"bytes\": %zu, \"dispatches\": %llu, "
           "\"label_sets\": %llu, \"split_blocks\": %llu}",
           first ? "" : ",\n", name, best_r, best_all, size, (unsigned long long)st[0],
           (unsigned long long)st[1], (unsigned long long)st[2]);
    first = 0;
    for (uint32_t i = 0; i < ng; i++) {
      for (uint32_t b = 0; b < gs[i].n; b++) {
        for (uint32_t s = 0; s < gs[i].b[b].n; s++) free(gs[i].b[b].cases[s]);
        free(gs[i].b[b].succ), free(gs[i].b[b].ncase), free(gs[i].b[b].cases);
      }
      free(gs[i].b);
    }
    free(gs);
  }
  printf("\n}\n");
  fclose(f);
  return 0;
}
