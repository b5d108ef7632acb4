/* writer.h — private to writer.c (module sections) and writer_code.c
 * (function bodies and constant expressions): the writer's state and its
 * small encoders. Nothing outside the writer includes this. */
#ifndef TILT_WRITER_H
#define TILT_WRITER_H

#include "wasmio.h"

#include <stdlib.h>

#ifndef TRY
#define TRY(x) do { tl_status s_ = (x); if (s_) return s_; } while (0)
#endif

typedef struct { uint32_t func, index; const char *name; } wr_lname;
typedef struct wr_so wr_so;   /* stackopt.c's scratch, kept across functions */

typedef struct {
  tl_module *m;
  tl_error *err;
  const tl_write_options *opt;
  tl_vec extra;          /* tl_type: results of []->results types added for blocks */
  tl_vec tcache;         /* {tl_type tuple, uint32_t type index} pairs */
  bool uses_data;        /* memory.init or data.drop seen: needs datacount */
  tl_vec lnames;         /* wr_lname, in function order */
  bool consume;          /* free each body once encoded (tl_write_consume) */
  /* per function (writer_code.c) */
  tl_func *f;            /* NULL in constant expressions */
  uint32_t fi;           /* function index, or TL_NO_FUNC */
  uint32_t *base;        /* first wasm local of each IR local (tl_func_local_map,
                            then elision and grouping by type, group_locals) */
  uint32_t *width;       /* wasm locals of each IR local (0: elided) */
  uint32_t scratch[TL_NBASIC]; /* 1 + index in stypes of a scratch local, 0 = none */
  tl_vec stypes;         /* tl_type of each scratch local */
  uint32_t *pos;         /* label id -> position in labels, or TL_NO_INDEX */
  uint32_t npos;
  tl_vec labels;         /* {label, previous pos} */
  uint32_t nblk;         /* block/loop/if instructions so far in this function */
  tl_vec frames;
  /* tuple-local elision (writer_code.c): `local.set T (x)` whose next
   * statement starts with the n tuple.extracts of T is written as x alone */
  tl_vec elide_sets;     /* tl_expr *: local.set nodes written as their value */
  tl_vec elide_gets;     /* tl_expr *: tuple.extract nodes not written */
  tl_vec cut;            /* tl_expr *, sorted: dead as written (a branch that made
                            them reachable is in code the writer cuts), though
                            their type is not unreachable */
  uint32_t **maps;       /* per function: its local map when it differs from
                            tl_func_local_map (elided tuple locals), or NULL */
  /* a worker's copy while bodies are encoded in parallel (writer_code.c) */
  bool frozen;           /* no block types may be added: set need_serial instead */
  bool need_serial;      /* this function needs a new block type: redo serially */
  wr_so *so;             /* stackopt.c's scratch, or NULL; wr_free frees it */
  /* an output source map (tl_write_options.source_map; bodies then go serially) */
  tl_vec locs;           /* tl_srcmap_entry: this function's, at offsets in its body */
  tl_vec smap;           /* tl_srcmap_entry: all, at offsets in the output */
  bool want_locs;        /* record them: an output source map, or DWARF to update */
  tl_dwarf_out dwarf;    /* tl_write_options.dwarf: the rewritten .debug_* sections */
  /* while a duplicate rec group is written: references to its canonical
   * group [grp_rep, +grp_n) name its own types from grp_self instead */
  uint32_t grp_rep, grp_self, grp_n;
} wr;

/* Fails with a message; sets func_index to the function being written. */
tl_status wr_fail(wr *w, tl_status code);
#define WR_FAIL(w, code, ...) \
  wr_fail((w), tl_errorf((w)->err, (code), TL_NO_OFFSET, __VA_ARGS__))

/* writer.c */
void wr_u32(tl_buf *b, uint32_t v);
void wr_u64(tl_buf *b, uint64_t v);
void wr_s64(tl_buf *b, int64_t v);
void wr_name(tl_buf *b, const char *s);
void wr_name_n(tl_buf *b, const char *s, uint32_t len);
uint8_t wr_valtype_byte(tl_type t);          /* 0 if not a value type */
tl_status wr_valtype(wr *w, tl_buf *b, tl_type t);
void wr_heaptype(tl_buf *b, uint32_t ht);

/* writer_code.c */
/* Appends the code section's body to out; fills w->extra, w->lnames. */
tl_status wr_code_section(wr *w, tl_buf *out);
tl_status wr_const_expr(wr *w, tl_buf *b, tl_expr **e, const char *what); /* expr + end */
void wr_free(wr *w);
uint32_t *wr_local_map(wr *w, uint32_t fi);  /* the map used for function fi; tl_free() it */

/* stackopt.c: optimizes the body of w->f as written (instructions through
 * the final end, no locals); leaves a body it cannot model as it is. */
tl_status wr_stack_opt(wr *w, tl_buf *body);
void wr_so_free(wr_so *x);

#endif
