/* reader_int.h — private to the binary reader (reader.c, reader_code.c,
 * names.c): the bounds-checked cursor, the reading context and the helpers
 * they share. Nothing here is used outside src/wasm-io/reader*.c/names.c. */
#ifndef TILT_READER_INT_H
#define TILT_READER_INT_H

#include "wasmio.h"

#define TRY(x) do { tl_status s_ = (x); if (s_) return s_; } while (0)

/* A cursor that cannot overrun: every read checks `end`. */
typedef struct {
  const uint8_t *p, *end, *base;
  tl_error *err;
  uint32_t func;           /* function being read (errors), or TL_NO_FUNC */
} rd;

/* Whole-module reading state. */
typedef struct {
  tl_module *m;
  tl_error *err;
  tl_features feat;        /* features accepted while reading */
  uint32_t nfunc_decl;     /* function section count */
  bool has_funcsec, has_code, has_data;
  bool no_body_bytes;      /* tl_read_options.no_body_bytes: f->code stays NULL */
  bool lazy;               /* tl_read_options.lazy_bodies: bodies are checked
                              (reader_check.c), not decoded, and keep their bytes */
  bool borrow;             /* tl_read_options.borrow_bytes: lazy bodies point into the input */
  bool trusted;            /* decoding a body checked before (tl_func_decode):
                              ref.func and data indices need no context */
  uint32_t datacount;
  tl_vec declared;         /* uint8_t per function: may be named by ref.func */
  const uint8_t *names;    /* the "name" section, parsed at the end */
  size_t names_size;
  tl_vec stack, frames, labels; /* function reader scratch (reader_code.c) */
  tl_vec cstack, cframes, ctypes; /* the checker's (reader_check.c) */
  tl_vec lset;             /* uint8_t per wasm local: set so far (local
                              initialization, only in bodies with a local
                              that has no default value: linit on) */
  tl_vec lsets;            /* uint32_t: the locals set, innermost frame last */
  bool linit;              /* this body tracks local initialization */
  bool label_map;          /* keep lmap: the name section may name labels */
  tl_vec lmap;             /* uint32_t: IR label of each wasm label, all bodies */
  tl_vec lmap_off;         /* size_t: where each defined function's labels start */
  uint32_t threads;        /* tl_read_options.threads: bodies decoded in parallel unless 1 */
  void *par;               /* the parallel decode's state (reader_code.c), freed with the scratch */
  jmp_buf *oom;            /* a decode worker's out-of-memory jump, else NULL (the arena's) */
  tl_type **own_locals;    /* a decode worker's body: its locals once malloc'd (past the scan's room) */
  const tl_srcmap *smap;   /* the input source map (then bodies are read serially), or NULL */
  uint32_t body_start;     /* offset of the body being read (its size), for smap */
  bool dwarf;              /* nodes get their code addresses as locations (dwarf.c;
                              then bodies are read serially too) */
  uint32_t code_start;     /* offset of the code section's payload, for dwarf */
  tl_vec custom_offsets;   /* uint32_t: each custom section's input offset, for dwarf */
  bool chk_decode;         /* the checker met an instruction it leaves to the
                              decoder (gc): the body is decoded instead */
  uint32_t type_end;       /* while a rec group is read: the index past it (its
                              own references stay raw); 0 otherwise */
} rctx;

tl_status rd_fail(rd *r, tl_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
tl_status rd_fail_at(rd *r, const uint8_t *at, tl_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
tl_status rd_byte(rd *r, uint8_t *out, const char *what);
tl_status rd_u32(rd *r, uint32_t *out, const char *what);
tl_status rd_s32(rd *r, int32_t *out, const char *what);
tl_status rd_s33(rd *r, int64_t *out, const char *what);
tl_status rd_s64(rd *r, int64_t *out, const char *what);
tl_status rd_u64(rd *r, uint64_t *out, const char *what);
tl_status rd_bytes(rd *r, size_t n, const uint8_t **out, const char *what);
tl_status rd_count(rd *r, uint32_t *out, size_t min_item, const char *what);
tl_status rd_name(rd *r, tl_arena *a, const char **out, const char *what);
tl_status rd_name_n(rd *r, tl_arena *a, const char **out, uint32_t *len, const char *what);
bool utf8_valid(const uint8_t *s, size_t n);
tl_status rd_valtype(rctx *c, rd *r, tl_type *out);
bool rd_is_valtype_byte(uint8_t b); /* a value type's first byte (not a type index) */
tl_status rd_null_heaptype(rctx *c, rd *r, tl_type *out);
tl_status rd_heaptype(rctx *c, rd *r, uint32_t *ht);
tl_status need_feature(rctx *c, rd *r, const uint8_t *at, tl_features f, const char *what);
void mark_declared(rctx *c, uint32_t func);
bool is_declared(const rctx *c, uint32_t func);
tl_status rd_const_expr(rctx *c, rd *r, tl_type want, tl_expr **out);
/* Bytes of the input the module keeps: p itself when c->borrow, else an
 * arena copy. */
const uint8_t *rd_keep(rctx *c, const uint8_t *p, size_t n);

/* The control frames of a body, the decoder's and the checker's: K_TRY is
 * a try's body, K_CATCH / K_CATCH_ALL one of its arms. */
enum { K_FUNC, K_BLOCK, K_LOOP, K_IF, K_ELSE, K_TRY, K_CATCH, K_CATCH_ALL, K_TRY_TABLE };

/* reader_code.c: one body's reading state, shared with the checker */
typedef struct {
  rctx *c;
  rd *r;
  tl_module *m;
  tl_func *f;
  uint32_t nwasm;          /* wasm locals (params + declared) */
  const uint8_t *at;       /* start of the current instruction */
  const char *opname;
  bool check;              /* the checker's: immediates are read, not kept */
} fctx;

tl_status rd_code_section(rctx *c, rd *r);
void code_scratch_free(rctx *c);
/* Shared by the decoder and the checker: the same rules, the same errors. */
tl_status rdc_fail(fctx *x, tl_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *rdc_tname(tl_type t);
tl_status rdc_opcode(fctx *x, int *op);       /* reads it; features checked */
tl_status rdc_locals(fctx *x);                /* the local declarations into f->local */
tl_status rdc_blocktype(fctx *x, tl_type *params, tl_type *results, uint32_t *bt);
tl_status rdc_imm(fctx *x, int op, tl_imm *im); /* immediates of an op with a sig */
tl_status rdc_need_table(fctx *x, uint32_t idx);
tl_status rdc_need_tag(fctx *x, uint32_t *tag);
/* call*: the callee index (a; b: the table of an indirect one) and type,
 * checked (a tail call's results against the caller's) */
tl_status rdc_callee(fctx *x, int op, uint32_t *a, uint32_t *b, tl_functype **ft);
tl_status rdc_select_type(fctx *x, int op, tl_type *want); /* TL_UNREACHABLE: untyped select */
tl_status rdc_global(fctx *x, int op, uint32_t *idx);     /* global.set: of a mutable one */
tl_status rdc_ref_null(fctx *x, tl_type *t);              /* ref.null's heap type */
/* catch / catch_all in a frame of kind `kind`: where it may stand, its tag */
tl_status rdc_catch(fctx *x, int op, uint8_t kind, uint32_t *tag);
/* table.get/set/grow/fill's operand types (returns how many) and result */
uint32_t rdc_table_sig(fctx *x, int op, uint32_t idx, tl_type sig[3], tl_type *res);

/* reader_code.c: the value stack and labels, for reader_gc.c. rdc_pop:
 * one value of type want (TL_UNREACHABLE: any), its stack type in *got;
 * rdc_br_target: the IR label of wasm depth `depth`, its type, whether a loop. */
tl_status rdc_pop(fctx *x, tl_type want, tl_expr **out, tl_type *got);
void rdc_push(fctx *x, tl_expr *e, tl_type t);
void rdc_set_unreachable(fctx *x);  /* after an instruction that does not fall through */
/* br_on_* to a loop or to a label of several values at depth, lowered to
 * a test and a branch (the operand v, of stack type in, popped; cast: the
 * target type; fall: the stack type the reference leaves) */
tl_status rdc_br_on_lowered(fctx *x, int op, uint32_t depth, tl_expr *v, tl_type in, tl_type cast, tl_type fall);
tl_status rdc_br_target(fctx *x, uint32_t depth, uint32_t *label, tl_type *lt, bool *loop);
void rdc_note_branch(fctx *x, uint32_t label, tl_expr *br);
tl_status rdc_need_data(fctx *x, uint32_t idx);
tl_status rdc_need_elem(fctx *x, uint32_t idx);
/* reader_gc.c: a GC instruction of a body; in a constant expression (ops
 * rdg_const_ok) with operands st[0..*n) (popped), the node in *out. */
tl_status rdg_instr(fctx *x, int op);
bool rdg_const_ok(int op);
tl_status rdg_const(rctx *c, rd *r, int op, const uint8_t *at, tl_expr **st, uint32_t *n, tl_expr **out);

/* reader_check.c: validates body fi from r without building IR. */
tl_status rd_check_body(rctx *c, rd *r, uint32_t fi);

/* names.c */
void rd_name_section(rctx *c, const uint8_t *p, size_t n);
tl_features rd_target_features(const uint8_t *p, size_t n);

#endif
