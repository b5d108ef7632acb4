/* ir.h — the tree IR: types, opcodes, nodes, modules, arenas, walkers.
 * One header for src/ir (QBE all.h style); declarations grouped by the file
 * that defines them. Everything a module owns lives in its arena; nothing is
 * freed node by node. No globals: two modules in two threads never meet. */
#ifndef TILT_IR_H
#define TILT_IR_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tilt.h"

/* ------------------------------------------------------------------ types */
/* A tl_type is a small integer (see DESIGN.md, "Types"):
 *  - below TL_NBASIC: the basic types; funcref, externref and exnref are
 *    the canonical ids of (ref null func), (ref null extern), (ref null exn);
 *  - TL_TUPLE_BASE .. TL_REF_BASE-1: an interned tuple of the module
 *    (tl_type_tuple), two or more value types;
 *  - from TL_REF_BASE: any other reference type, TL_REF_BASE | heap type << 1
 *    | nullable. A heap type below TL_HT_DEF is abstract (TL_HT_*); from
 *    TL_HT_DEF on it is a defined type, by its canonical index in the module
 *    (tl_deftype.canon), so that equal types are equal integers. */
typedef uint32_t tl_type;
enum {
  TL_NONE = 0,        /* no value */
  TL_UNREACHABLE = 1, /* control never leaves this node normally */
  TL_I32, TL_I64, TL_F32, TL_F64, TL_V128, TL_FUNCREF, TL_EXTERNREF,
  TL_EXNREF,          /* (ref null exn), exception-handling */
  TL_NBASIC,
  TL_TUPLE_BASE = 16
};
#define TL_REF_BASE 0x80000000u

/* Heap types. The abstract ones form three hierarchies (any > eq > i31,
 * struct, array > none; func > nofunc; extern > noextern; exn > noexn);
 * defined types sit under struct, array or func by their kind. */
enum {
  TL_HT_FUNC, TL_HT_NOFUNC, TL_HT_EXTERN, TL_HT_NOEXTERN, TL_HT_ANY, TL_HT_EQ, TL_HT_I31,
  TL_HT_STRUCT, TL_HT_ARRAY, TL_HT_NONE, TL_HT_EXN, TL_HT_NOEXN,
  TL_HT_NABSTRACT,
  TL_HT_DEF = 16      /* TL_HT_DEF + canonical type index */
};

static inline bool tl_type_is_tuple(tl_type t) { return t >= TL_TUPLE_BASE && t < TL_REF_BASE; }
static inline bool tl_type_is_ref(tl_type t) {
  return t == TL_FUNCREF || t == TL_EXTERNREF || t == TL_EXNREF || t >= TL_REF_BASE;
}
static inline bool tl_type_is_concrete(tl_type t) { return t >= TL_I32; }
/* The reference type (ref null? ht). */
static inline tl_type tl_ref(uint32_t ht, bool nullable) {
  if (nullable && ht == TL_HT_FUNC) return TL_FUNCREF;
  if (nullable && ht == TL_HT_EXTERN) return TL_EXTERNREF;
  if (nullable && ht == TL_HT_EXN) return TL_EXNREF;
  return TL_REF_BASE | ht << 1 | (nullable ? 1u : 0u);
}
static inline uint32_t tl_ref_heap(tl_type t) { /* t a reference type */
  return t == TL_FUNCREF ? TL_HT_FUNC : t == TL_EXTERNREF ? TL_HT_EXTERN : t == TL_EXNREF ? TL_HT_EXN
                                                                                    : (t & ~TL_REF_BASE) >> 1;
}
static inline bool tl_ref_nullable(tl_type t) { return t < TL_REF_BASE || (t & 1); }
static inline tl_type tl_ref_with_null(tl_type t, bool nullable) { return tl_ref(tl_ref_heap(t), nullable); }
static inline bool tl_heap_is_def(uint32_t ht) { return ht >= TL_HT_DEF; }
/* The reference to defined type canonical index i. */
static inline tl_type tl_ref_def(uint32_t i, bool nullable) { return tl_ref(TL_HT_DEF + i, nullable); }

/* ---------------------------------------------------------------- opcodes */
typedef enum {
#define OP(id, ...) TL_OP_##id,
#include "opcodes.def"
#undef OP
  TL_NOPS
} tl_op;

/* Immediate shapes: what follows the opcode in the binary and which member
 * of tl_imm the node uses. */
typedef enum {
  TL_IMM_NONE,
  TL_IMM_BLOCK,         /* block type; node uses imm.block */
  TL_IMM_LABEL,         /* br, br_if: imm.label */
  TL_IMM_BR_TABLE,      /* imm.table */
  TL_IMM_FUNC,          /* call, return_call, ref.func: imm.index */
  TL_IMM_CALL_INDIRECT, /* imm.idx2 = {type index, table index} */
  TL_IMM_LOCAL,         /* imm.index */
  TL_IMM_GLOBAL,        /* imm.index */
  TL_IMM_TABLE,         /* table.get/set/grow/size/fill: imm.index */
  TL_IMM_MEMARG,        /* imm.mem */
  TL_IMM_MEM,           /* memory.size/grow/fill: imm.index (memory) */
  TL_IMM_MEM_COPY,      /* imm.idx2 = {dst memory, src memory} */
  TL_IMM_MEM_INIT,      /* imm.idx2 = {data index, memory} */
  TL_IMM_DATA,          /* data.drop: imm.index */
  TL_IMM_ELEM,          /* elem.drop: imm.index */
  TL_IMM_TABLE_INIT,    /* imm.idx2 = {elem index, table} */
  TL_IMM_TABLE_COPY,    /* imm.idx2 = {dst table, src table} */
  TL_IMM_I32,           /* imm.i32 */
  TL_IMM_I64,           /* imm.i64 */
  TL_IMM_F32,           /* imm.f32 (raw bits) */
  TL_IMM_F64,           /* imm.f64 (raw bits) */
  TL_IMM_V128,          /* imm.v128 */
  TL_IMM_LANE,          /* extract/replace_lane: imm.mem.lane */
  TL_IMM_SHUFFLE,       /* i8x16.shuffle: imm.v128 holds 16 lane indices */
  TL_IMM_MEMARG_LANE,   /* v128.load8_lane...: imm.mem with lane */
  TL_IMM_REFTYPE,       /* ref.null: imm.index holds the tl_type */
  TL_IMM_SELECT_T,      /* typed select: imm.index holds the tl_type */
  TL_IMM_FENCE,         /* atomic.fence: one reserved zero byte */
  TL_IMM_TUPLE_INDEX,   /* tuple.extract: imm.index */
  TL_IMM_TAG,           /* throw: imm.index (tag) */
  TL_IMM_CATCH,         /* legacy catch arm: imm.idx2 = {payload local or
                           TL_NO_INDEX, tag} (catch_all: no immediate) */
  TL_IMM_CLAUSE,        /* try_table clause: imm.idx2 = {label, tag}; a is
                           imm.label, so it reads as a branch's label */
  TL_IMM_TRY_TABLE,     /* try_table: imm.block; clauses are kids (ir.h EH) */
  TL_IMM_TYPE,          /* call_ref, return_call_ref, struct.new, array.get...:
                           imm.index (a type index) */
  TL_IMM_TYPE_FIELD,    /* struct.get/set: imm.idx2 = {type index, field} */
  TL_IMM_TYPE_COUNT,    /* array.new_fixed: imm.idx2 = {type index, count} */
  TL_IMM_TYPE_DATA,     /* array.new_data/init_data: imm.idx2 = {type index, data} */
  TL_IMM_TYPE_ELEM,     /* array.new_elem/init_elem: imm.idx2 = {type index, elem} */
  TL_IMM_TYPE_TYPE,     /* array.copy: imm.idx2 = {dst type index, src type index} */
  TL_IMM_CAST,          /* ref.test, ref.cast: imm.index holds the target tl_type
                           (nullable: the _NULL opcode in the binary) */
  TL_IMM_BR_CAST        /* br_on_cast(_fail): imm.idx2 = {label, target tl_type};
                           the input type is the operand's (the writer
                           states the lub of it and the target) */
} tl_imm_kind;

/* Flags of an opcode (OR-ed in opcodes.def). */
enum {
  TL_F_TRAPS = 1 << 0,        /* may trap */
  TL_F_READS_MEM = 1 << 1,
  TL_F_WRITES_MEM = 1 << 2,
  TL_F_READS_TABLE = 1 << 3,
  TL_F_WRITES_TABLE = 1 << 4,
  TL_F_READS_LOCAL = 1 << 5,
  TL_F_WRITES_LOCAL = 1 << 6,
  TL_F_READS_GLOBAL = 1 << 7,
  TL_F_WRITES_GLOBAL = 1 << 8,
  TL_F_CALL = 1 << 9,         /* arbitrary effects of a callee */
  TL_F_BRANCH = 1 << 10,      /* targets a label */
  TL_F_NORETURN = 1 << 11,    /* control never falls through */
  TL_F_CONTROL = 1 << 12,     /* block, loop, if: has a label and a body */
  TL_F_MARKER = 1 << 13,      /* else/end: binary markers, never nodes */
  TL_F_COMMUTES = 1 << 14,    /* binary op with swappable operands */
  TL_F_ATOMIC = 1 << 15,      /* atomic memory access (needs shared memory ok) */
  TL_F_THROWS = 1 << 16,      /* throws an exception (throw, throw_ref, rethrow) */
  TL_F_LABEL_USE = 1 << 17,   /* names a label without branching to it: rethrow
                                 and delegate (imm.label); tl_expr_uses_label */
  TL_F_EH = 1 << 18,          /* an exception-handling node (every EH row) */
  TL_F_RELAXED = 1 << 19,     /* implementation-defined result (relaxed SIMD): pure,
                                 but never folded to one of its allowed values */
  /* GC heap effects (opcodes_gc.def). effects.c folds them into the memory
   * flags (READ: READS_MEM; WRITE, ALLOC: WRITES_MEM; SEG: READS_TABLE), so
   * a pass that orders loads and stores orders these too. They are not in
   * TL_F_INDEXED: nothing memory64/multi-memory rewrites. */
  TL_F_GC_READ = 1 << 20,     /* reads a struct field or array element */
  TL_F_GC_WRITE = 1 << 21,    /* writes one */
  TL_F_GC_ALLOC = 1 << 22,    /* allocates: a fresh identity, never merged */
  TL_F_GC_SEG = 1 << 23,      /* reads an element segment (elem.drop orders) */
};
/* Rows whose index operands may be i64 (memory64/table64): tl_index64_mask. */
#define TL_F_INDEXED (TL_F_READS_MEM | TL_F_WRITES_MEM | TL_F_READS_TABLE | TL_F_WRITES_TABLE)

/* Features, as bits of a tl_features set. The names are wasm-opt's flag
 * names (--enable-<name>); see features.c. */
enum {
  TL_FEAT_MVP = 0,
  TL_FEAT_MUTABLE_GLOBALS = 1 << 0,
  TL_FEAT_SIGN_EXT = 1 << 1,
  TL_FEAT_NONTRAPPING_FPTOINT = 1 << 2,
  TL_FEAT_BULK_MEMORY = 1 << 3,
  TL_FEAT_MULTIVALUE = 1 << 4,
  TL_FEAT_REFERENCE_TYPES = 1 << 5,
  TL_FEAT_SIMD = 1 << 6,
  TL_FEAT_TAIL_CALL = 1 << 7,
  TL_FEAT_EXTENDED_CONST = 1 << 8,
  TL_FEAT_THREADS = 1 << 9,
  TL_FEAT_EXCEPTION_HANDLING = 1 << 10,
  TL_FEAT_RELAXED_SIMD = 1 << 11,
  TL_FEAT_MULTI_MEMORY = 1 << 12,
  TL_FEAT_MEMORY64 = 1 << 13,   /* 64-bit memories and tables (i64 addresses) */
  TL_FEAT_GC = 1 << 14,         /* typed function references, GC types and instructions */
  TL_FEAT_ALL = (1 << 15) - 1,
  /* What a relaxed SIMD row needs (its feat column RELAXED): both bits. */
  TL_FEAT_RELAXED = TL_FEAT_SIMD | TL_FEAT_RELAXED_SIMD,
};
typedef uint32_t tl_features;

/* One row of the opcode table, as data (opcodes.c). */
typedef struct {
  const char *text;
  uint8_t pfx;        /* 0, 0xFC, 0xFD, 0xFE, or 0xFF for IR-only */
  uint32_t code;
  uint8_t imm;        /* tl_imm_kind */
  uint8_t result;     /* tl_type, when nops != TL_SIG_SPECIAL */
  uint8_t nops;       /* operand count, or TL_SIG_SPECIAL */
  uint8_t ops[3];     /* operand types, in stack order */
  uint32_t flags;
  tl_features feat;
} tl_opinfo;
#define TL_SIG_SPECIAL 0xff

extern const tl_opinfo tl_ops[TL_NOPS];
/* opcodes.c */
int tl_op_decode(uint8_t pfx, uint32_t code);  /* -1 if unknown */
int tl_op_by_name(const char *text);          /* -1 if unknown; first row wins */
uint8_t tl_op_natural_align(int op);          /* log2 bytes a memory op accesses */

/* ------------------------------------------------------------------ nodes */
/* tl_imm is 8 bytes and a node 28: what does not fit is out of line, in
 * node memory (tl_node_alloc), and expr.c's measure/move/sweep follow it. */
typedef struct {    /* 8 bytes */
  uint32_t offset;  /* the offset; when big, the index of an offset above
                       UINT32_MAX (memory64) interned in the module, out of
                       line: read it with tl_memarg_offset, set it with
                       tl_memarg_set_offset. Equal offsets of one module
                       have equal fields. */
  uint16_t mem;     /* memory index (a module has at most TL_MAX_MEMORIES) */
  uint8_t align : 7; /* log2 of the alignment (at most the natural one: the
                       reader and C API check before storing it) */
  uint8_t big : 1;
  uint8_t lane;     /* lane for *_lane ops */
} tl_memarg;
#define TL_MAX_MEMORIES 65536u /* what tl_memarg.mem can name */

/* br_table's labels, out of line: n targets then the default. */
typedef struct {
  uint32_t n;
  uint32_t def;      /* default label id */
  uint32_t targets[]; /* label ids */
} tl_brtable;

typedef union {
  int32_t i32;
  int64_t i64;
  uint32_t f32;     /* raw bits */
  uint64_t f64;     /* raw bits */
  uint8_t *v128;    /* 16 bytes (v128.const, i8x16.shuffle's lane indices):
                       tl_expr_v128 allocates them */
  uint32_t index;   /* local, global, func, table, memory, data, elem,
                       tuple index; ref.null's tl_type */
  uint32_t label;   /* br, br_if: label id */
  struct { uint32_t a, b; } idx2;
  tl_memarg mem;
  struct {
    uint32_t label; /* label id, or TL_NO_LABEL */
    uint32_t bt;    /* type index when the binary block type was an index
                       (multi-value); TL_NO_INDEX otherwise. Printed, and
                       kept so round trips are exact. */
  } block;
  tl_brtable *table; /* br_table: tl_brtable_new allocates it */
} tl_imm;

#define TL_NO_LABEL UINT32_MAX
#define TL_NO_INDEX UINT32_MAX

/* A node: {op, type} plus children and immediates. Children are in
 * evaluation order:
 *   block, loop      kid[] = body list
 *   if               kid[0] = condition, kid[1] = then, kid[2] = else (nkid 2
 *                    when there is no else); an unlabeled BLOCK as an arm is
 *                    written inline
 *   br               kid[0] = value (optional)
 *   br_if            [value,] condition
 *   br_table         [value,] index
 *   return           [value]  (a tuple for several results)
 *   call             args...; call_indirect: args..., table index
 *   every other op   operands in stack order, as in its opcodes.def sig
 *   tuple.make       values; tuple.extract: kid[0] = tuple
 *   try              kid[0] = body, then one CATCH / CATCH_ALL per arm, or
 *                    one DELEGATE leaf (see "exception handling" below)
 *   catch            kid[0] = handler; catch_all: kid[0] = handler
 *   try_table        kid[0] = body, then its clauses (TT_CATCH... leaves)
 *   throw            the tag's params; throw_ref: kid[0] = exnref
 * A value that is several values (multi-value) is one tuple-typed child.
 *
 * Exception handling. There is no `pop`: a caught exception's values never
 * appear as an expression that a pass could move.
 * - Legacy `try`: a TRY node (label = the try's label, which branches, the
 *   rethrows of its catches and delegates may name) holds the body, then
 *   its arms in order. A CATCH arm's imm.idx2 is {payload local, tag}: on
 *   entry the arm stores the tag's params in that one local (a tuple local
 *   for several values; TL_NO_INDEX when the tag has none or they are
 *   dropped), as the reader stores block params in scratch locals. So the
 *   payload is an ordinary local.get wherever the handler reads it. The
 *   writer emits the `local.set` (or drops) right after `catch`, and elides
 *   it when the handler's first instructions take the values in order. A
 *   CATCH is not a local.set node (no TL_F_WRITES_LOCAL): a pass that
 *   reasons about locals must treat a catch arm as a write of its local
 *   (or leave functions with EH alone; tl_expr_has_eh).
 * - `delegate L`: the TRY's last kid is a DELEGATE leaf whose imm.label is
 *   L (an enclosing label; the function's label 0 means the caller).
 *   `rethrow L`: imm.label is the label of a TRY whose catch arm encloses it.
 *   Both name labels without branching (TL_F_LABEL_USE): they never type a
 *   label, but label renumbering and "is this label used" must see them.
 * - `try_table`: a TRY_TABLE node (its own label, like a block) holds the
 *   body, then its clauses as leaves TT_CATCH, TT_CATCH_REF, TT_CATCH_ALL,
 *   TT_CATCH_ALL_REF with imm.idx2 = {target label, tag}. A clause is a
 *   branch (TL_F_BRANCH) that sends its label the tag's params (+ exnref):
 *   its node type is that carried type (it is never evaluated as a value),
 *   so caught values reach a block like any branch's values do.
 * Invariants (tl_validate_func checks them): CATCH, CATCH_ALL and DELEGATE
 * appear only as arms of a TRY, clauses only after a TRY_TABLE's body;
 * CATCH_ALL only last; a payload local has the tag's param type, or (one
 * param, GC) a supertype of it (local.set's rule: passes may widen a
 * local, as the local-init fix-up does with a non-nullable one).
 * Types: TRY is the lub of its body, its arms and the branches to its
 * label (unreachable iff all are); with DELEGATE, of body and branches;
 * TRY_TABLE is typed as a block (body + branches to its label); throw,
 * throw_ref and rethrow are unreachable. */
typedef struct tl_expr tl_expr;
/* 28 bytes, 4-aligned (packed: kid and imm may sit at 4 mod 8, which x86-64
 * loads at no cost; take no pointer to a member wider than 4 bytes). */
struct tl_expr {
  uint16_t op : 10;   /* tl_op */
  uint16_t kcap : 6;  /* 0: kid[] holds exactly nkid; else 1 << kcap (it grew
                         in tl_expr_push_kid). Whoever replaces kid[] with an
                         exact array sets it to 0; see tl_expr_kid_cap. */
  uint16_t aux;       /* scratch bits a pass may use; meaningless between passes */
  tl_type type;
  uint32_t nkid;
  tl_expr **kid;
  tl_imm imm;
} __attribute__((packed, aligned(4)));
_Static_assert(sizeof(tl_imm) == 8, "tl_imm is 8 bytes");
_Static_assert(sizeof(tl_expr) == 28, "a node is 28 bytes");
_Static_assert(TL_NOPS <= 1024, "an op fits tl_expr's 10 bits");
/* The kids kid[] has room for. */
static inline uint32_t tl_expr_kid_cap(const tl_expr *e) { return e->kcap ? 1u << e->kcap : e->nkid; }

/* --------------------------------------------------------------- arena */
/* Bump allocation. On out-of-memory it longjmps to *oom if set (the public
 * entry point set it); never returns NULL. */
typedef struct tl_arena_chunk tl_arena_chunk;
typedef struct tl_chunk_cache tl_chunk_cache;
typedef struct {
  tl_arena_chunk *head;
  uint8_t *p, *end;
  size_t total;     /* bytes obtained from malloc */
  jmp_buf *oom;
  void *lock;       /* a recursive pthread_mutex_t while function passes
                       run in parallel over one module; NULL otherwise */
  tl_chunk_cache *cache; /* chunks come from and go back to it (NULL: the system) */
} tl_arena;

/* arena.c */
/* A cache of freed chunks (thread-safe), so that memory work done function
 * by function reuses stays resident instead of being mapped, faulted in and
 * unmapped per function. It holds at most a few times what was asked for
 * lately (and 32 MB). NULL (out of memory) caches nothing. */
tl_chunk_cache *tl_chunk_cache_new(void);
void tl_chunk_cache_trim(tl_chunk_cache *k);  /* gives back everything it holds */
void tl_chunk_cache_free(tl_chunk_cache *k);
size_t tl_chunk_cache_held(tl_chunk_cache *k); /* bytes it holds (for tests) */
/* n bytes aligned for any type, from k (NULL: from the system), for a
 * caller that writes them all at once (fresh pages come in place); NULL
 * when out of memory. tl_chunk_free gives them to k (NULL: back to the
 * system). */
void *tl_chunk_alloc(tl_chunk_cache *k, size_t n);
void tl_chunk_free(tl_chunk_cache *k, void *p);
/* For a caller about to write all of [p, p + n) (memory it owns): its
 * fresh pages are put in place in one call instead of a page fault each
 * (several microseconds apiece on a VM). Only a hint. */
void tl_prefault(void *p, size_t n);
void tl_arena_init(tl_arena *a);
void tl_arena_free(tl_arena *a);
void tl_arena_reset(tl_arena *a);   /* keep the first chunk, forget the rest */
void *tl_arena_alloc(tl_arena *a, size_t n, size_t align);
/* a's out of memory, for module memory allocated elsewhere: longjmps to
 * *a->oom (aborts when no entry point set one). */
__attribute__((noreturn)) void tl_arena_oom(tl_arena *a);
/* The chunks of a, newest first: fills lo/size (up to cap), returns how many. */
size_t tl_arena_chunks(const tl_arena *a, const void **lo, size_t *size, size_t cap);
/* Frees chunk i (newest first) where drop[i]; the newest is always kept. */
void tl_arena_drop_chunks(tl_arena *a, const uint8_t *drop);
void *tl_arena_zalloc(tl_arena *a, size_t n, size_t align);
char *tl_arena_strndup(tl_arena *a, const char *s, size_t n);
/* A chunk of a for n bytes, NULL when out of memory (no longjmp: for a
 * caller holding a lock). */
void *tl_arena_try_alloc(tl_arena *a, size_t n, size_t align);

/* oom.c: out of memory is an error. A public entry point runs its work in
 * a scope (tl_oom_run); scratch memory allocated under it is listed in the
 * scope's ledger, so that out of memory anywhere (tl_oom_fail: vector and
 * buffer growth, arena chunks, module tables) unwinds to the entry point,
 * which frees what its unwound frames held and returns TL_E_NOMEM. Library
 * code allocates scratch with tl_malloc / tl_calloc / tl_realloc /
 * tl_scratch_* and frees all memory with tl_free (never free()); memory the
 * module keeps uses tl_mod_* (never listed). */
typedef struct tl_ledger tl_ledger;
typedef struct { tl_ledger *ledger; const tl_module *m; } tl_oom_ctx;
/* An object made under a scope that holds more than listed blocks (a
 * store: mappings, arena chunks) embeds a guard: if the call fails, the
 * scope calls teardown(arg) before freeing the listed blocks. */
typedef struct tl_oom_guard {
  struct tl_oom_guard *next, *prev;
  tl_ledger *ledger;
  void (*teardown)(void *arg);
  void *arg;
} tl_oom_guard;
void tl_oom_guard_add(tl_oom_guard *g, void (*teardown)(void *arg), void *arg);
void tl_oom_guard_remove(tl_oom_guard *g); /* at the object's own teardown */
/* fn(ctx, err) in a scope on module m (NULL: none yet, as for the reader);
 * just fn when this thread is in a scope already. A longjmp out of fn is
 * TL_E_NOMEM "out of memory (what)"; a TL_E_NOMEM frees what is listed. */
tl_status tl_oom_run(const tl_module *m, tl_status (*fn)(void *ctx, tl_error *err), void *ctx,
                     tl_error *err, const char *what);
/* The same with the caller's setjmp, for entry points of many shapes (the
 * builders): if tl_oom_enter(&f, m) (false: a scope runs already, just do
 * the work), then setjmp(f.jb), the work, and tl_oom_leave(&f, whether
 * setjmp returned from a longjmp or the work failed for want of memory). */
typedef struct { jmp_buf jb; } tl_oom_frame;
bool tl_oom_enter(tl_oom_frame *f, const tl_module *m);
void tl_oom_leave(tl_oom_frame *f, bool failed);
/* This thread's scope, for the workers it starts. */
tl_oom_ctx tl_oom_here(void);
/* fn(arg) on a worker thread under ctx's scope; false when it ran out of
 * memory (its frames' memory stays listed: the starting thread then calls
 * tl_oom_fail once the workers are joined). */
bool tl_oom_worker(const tl_oom_ctx *ctx, void (*fn)(void *arg), void *arg);
__attribute__((noreturn)) void tl_oom_fail(void);
bool tl_alloc_fails_now(void);   /* the test hook (tl_scratch_fail_nth) */
void *tl_malloc(size_t n);
void *tl_calloc(size_t n, size_t size);
void *tl_realloc(void *p, size_t n);  /* p kept on NULL */
void tl_free(void *p);
/* p (scratch so far) now belongs to the module: off the ledger. */
void tl_oom_keep(void *p);
/* p (old bytes used) moved to a block of n bytes; NULL: p kept. */
void *tl_grow_block(void *p, size_t old, size_t n);
void *tl_mod_malloc(size_t n);
void *tl_mod_calloc(size_t n, size_t size);
void *tl_mod_grow_block(void *p, size_t n);
bool tl_oom_owned_by_module(const void *v); /* v lies in the scope's module */
/* Scratch memory (tl_free'd by its user): n elements of size bytes,
 * zeroed by tl_scratch_calloc; NULL when out of memory (or n * size
 * overflows), and then the caller frees what it holds and returns
 * tl_nomem(err, what). */
void *tl_scratch_calloc(size_t n, size_t size);
void *tl_scratch_realloc(void *p, size_t n, size_t size); /* p kept on NULL */
/* Test hook: the n-th allocation from now on fails (0: none): scratch,
 * vector and buffer growth, arena chunks, module tables. Returns the
 * countdown it replaces (0: the failure happened, or none was set). */
uint64_t tl_scratch_fail_nth(uint64_t n);
#define TL_NEW(a, T) ((T *)tl_arena_zalloc((a), sizeof(T), _Alignof(T)))
#define TL_NEWN(a, T, n) ((T *)tl_arena_zalloc((a), sizeof(T) * (size_t)(n), _Alignof(T)))

/* A growable array of pointers or scalars in malloc'd memory (scratch only). */
typedef struct { void *p; size_t n, cap; } tl_vec;
void tl_vec_grow(tl_vec *v, size_t elem, size_t want);     /* tl_oom_fail when out of memory */
bool tl_vec_try_grow(tl_vec *v, size_t elem, size_t want); /* false when out of memory */
#define TL_VEC_PUSH(v, T, x) do { if ((v)->n >= (v)->cap) tl_vec_grow((v), sizeof(T), (v)->n + 1); \
    ((T *)(v)->p)[(v)->n++] = (x); } while (0)
#define TL_VEC_AT(v, T, i) (((T *)(v)->p)[i])
void tl_vec_free(tl_vec *v);
/* A tl_vec whose first storage is the caller's array inl ({inl, 0, its
 * length}, say on the stack): growing moves it to the heap (inl is left
 * as it was); free it with tl_vec_free_inl. */
void tl_vec_grow_inl(tl_vec *v, size_t elem, size_t want, const void *inl);
void tl_vec_free_inl(tl_vec *v, const void *inl);

/* A growable byte buffer in malloc'd memory (writer and printer output). */
typedef struct { uint8_t *p; size_t n, cap; } tl_buf;
/* Bytes of v's LEB128 encoding (the shortest), unsigned and signed. */
static inline unsigned tl_uleb_size(uint64_t v) {
  unsigned n = 1;
  while (v >>= 7) n++;
  return n;
}
static inline unsigned tl_sleb_size(int64_t v) {
  unsigned n = 1;
  while (v >= 64 || v < -64) v >>= 7, n++;
  return n;
}
/* Makes room for want bytes in all (out of line: the puts inline only the
 * capacity test). */
void tl_buf_grow(tl_buf *b, size_t want);
static inline void tl_buf_put(tl_buf *b, const void *p, size_t n) {
  if (b->cap - b->n < n) tl_buf_grow(b, b->n + n);
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
}
static inline void tl_buf_byte(tl_buf *b, uint8_t c) {
  if (b->n == b->cap) tl_buf_grow(b, b->n + 1);
  b->p[b->n++] = c;
}
void tl_buf_printf(tl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tl_buf_free(tl_buf *b);

/* -------------------------------------------------------------- module */
/* A defined type (the type section): a function, struct or array type, its
 * place in its rec group and its declared supertype. A plain (func ...) is
 * final, has no supertype and is a rec group of its own (tl_functype_intern
 * makes those). canon is the index of the first type of the module that is
 * the same type (iso-recursive equality: same rec group structure, same
 * position in it); references in tl_types name types by canon. */
enum { TL_DT_FUNC, TL_DT_STRUCT, TL_DT_ARRAY };
enum { TL_PACK_NONE, TL_PACK_I8, TL_PACK_I16 }; /* storage type of a field */
typedef struct { tl_type type; uint8_t pack; bool mut; const char *name; } tl_field;
#define TL_NO_SUPER UINT32_MAX
typedef struct {
  tl_type params, results;   /* TL_DT_FUNC */
  const char *name;          /* name section (type names), or NULL */
  uint8_t kind;              /* TL_DT_* */
  bool open;                 /* may have subtypes: (sub ...) without final */
  uint32_t super;            /* the declared supertype (module index), or TL_NO_SUPER */
  uint32_t rec, nrec;        /* first type of its rec group, and the group's size */
  uint32_t canon;            /* canonical index (see above) */
  uint32_t depth;            /* length of its supertype chain */
  uint32_t nfields;          /* struct: fields; array: 1 (its element) */
  tl_field *fields;
} tl_functype;
typedef tl_functype tl_deftype;

/* Import and export names are byte strings that may contain NUL: each has a
 * byte length next to it, and the bytes are always followed by a NUL so
 * ordinary names work as C strings. A length of 0 means "strlen of the
 * pointer" (code that builds names from C strings may leave it 0; an empty
 * name has strlen 0 too), so always read the length through tl_name_len. */
static inline uint32_t tl_name_len(const char *p, uint32_t len) {
  uint32_t n = 0;
  if (len || !p) return len;
  while (p[n]) n++;
  return n;
}
/* Byte equality of two (pointer, length) names; a NULL pointer is "". */
static inline bool tl_name_eq(const char *a, uint32_t alen, const char *b, uint32_t blen) {
  alen = tl_name_len(a, alen);
  blen = tl_name_len(b, blen);
  if (alen != blen) return false;
  for (uint32_t i = 0; i < alen; i++)
    if (a[i] != b[i]) return false;
  return true;
}

typedef struct {           /* set for an import, NULL strings otherwise */
  const char *module, *name;
  uint32_t module_len, name_len; /* byte lengths; see tl_name_len */
} tl_importname;

/* A debug location (source maps): a file of m->debug_files, a line
 * (counting from 1; 0 is none) and a column. */
typedef struct { uint32_t file, line, col; } tl_debugloc;
/* A location read from DWARF (tl_read_options.dwarf, wasm-io/dwarf.c) is
 * the code address the node was read from: file TL_LOC_DWARF, line the
 * address + 1, col 0, or TL_LOC_DWARF_START / _END for a function's local
 * declarations (prolog) and final end (epilog). */
#define TL_LOC_DWARF UINT32_MAX
enum { TL_LOC_DWARF_START = 1, TL_LOC_DWARF_END = 2 };
static inline bool tl_loc_eq(const tl_debugloc *a, const tl_debugloc *b) {
  return a->file == b->file && a->line == b->line && a->col == b->col;
}

typedef struct {
  uint32_t type;           /* index into module types */
  tl_importname imp;
  uint32_t nlocal;         /* params first, then declared locals */
  uint32_t local_cap;      /* capacity of local[] and local_name[] */
  tl_type *local;
  tl_expr *body;           /* NULL for imports; else a BLOCK whose label is the
                              function's own (a branch to it returns); the
                              writer emits its children inline */
  const char *name;        /* name section, or NULL */
  const char **local_name; /* nlocal entries or NULL */
  uint32_t *local_orig;    /* with DWARF (module dwarf_locs): nlocal entries, the
                              input's index of each local (TL_NO_INDEX: a pass
                              added it), or NULL: each its own index so far */
  bool locals_unmapped;    /* with DWARF: a pass merged or moved locals without
                              local_orig; the writer gives DWARF no local map */
  uint32_t nlabel;         /* label ids are 0..nlabel-1 */
  uint32_t label_cap;      /* capacity of label_name[] when it is set */
  const char **label_name; /* nlabel entries or NULL */
  bool lazy;               /* read with tl_read_options.lazy_bodies and not
                              decoded yet: body is NULL, code/code_size hold the
                              checked bytes (locals and code; its locals are in
                              local[]); tl_func_decode makes the IR */
  uint32_t body_offset;    /* byte offset of the body in the input */
  const uint8_t *code;     /* the body's bytes (locals and code), in the module
                              arena, for the JIT; NULL if built in memory */
  uint32_t code_size;
  bool has_scratch_base;   /* set by the reader: locals from scratch_base on are */
  uint32_t scratch_base;   /* its scratch locals (the writer may elide them) */
  struct tl_locmap *locs;  /* debug locations of its nodes (debugloc.c), or NULL */
  tl_debugloc prolog, epilog; /* the source map's locations of its local
                              declarations and of its final end (line 0: none) */
} tl_func;

typedef struct {
  tl_type type;
  bool mut;
  tl_importname imp;
  tl_expr *init;           /* NULL for imports */
  const char *name;
} tl_global;

typedef struct {
  uint64_t min, max;       /* in pages */
  bool has_max, shared, is64;
  tl_importname imp;
  const char *name;
} tl_memory;

typedef struct {
  tl_type elem;            /* a reference type */
  uint64_t min, max;
  bool has_max, is64;      /* is64: table64, i64 indices */
  tl_importname imp;
  const char *name;
  tl_expr *init;           /* every element's initial value (a constant
                              expression, 3.0), or NULL: null */
} tl_table;

enum { TL_EXTERN_FUNC = 0, TL_EXTERN_TABLE = 1, TL_EXTERN_MEMORY = 2, TL_EXTERN_GLOBAL = 3, TL_EXTERN_TAG = 4 };

/* A tag (exception-handling): its type is a function type with no results;
 * the params are the values a throw carries. */
typedef struct {
  uint32_t type;           /* index into module types */
  tl_importname imp;
  const char *name;
} tl_tag;
typedef struct { const char *name; uint8_t kind; uint32_t index; uint32_t name_len; } tl_export; /* name_len: see tl_name_len */

enum { TL_SEG_ACTIVE, TL_SEG_PASSIVE, TL_SEG_DECLARATIVE };
typedef struct {
  uint8_t mode;            /* TL_SEG_* */
  uint32_t table;          /* active only */
  tl_expr *offset;         /* active only */
  tl_type type;            /* element type */
  bool exprs;              /* items written as expressions (flags 4-7) */
  uint32_t n;
  tl_expr **item;          /* ref.func / ref.null / global.get expressions */
  const char *name;
} tl_elem;
/* The type a segment's elements have for validation: one written as
 * function indices (flags 0-3) holds (ref func) values (3.0), though its
 * type is kept as funcref, which is how it is written. */
static inline tl_type tl_elem_type(const tl_elem *el) {
  return !el->exprs && el->type == TL_FUNCREF ? tl_ref(TL_HT_FUNC, false) : el->type;
}

typedef struct {
  uint8_t mode;            /* TL_SEG_ACTIVE or TL_SEG_PASSIVE */
  uint32_t mem;
  tl_expr *offset;
  const uint8_t *bytes;    /* arena copy */
  uint32_t size;
  const char *name;
} tl_data;

/* Custom sections other than "name" and "target_features" are kept byte for
 * byte, placed after the known section with id `after` (0 = before all). */
typedef struct {
  const char *name;
  const uint8_t *bytes;
  uint32_t size;
  uint8_t after;
} tl_custom;

typedef struct {           /* interned tuple */
  uint32_t n;
  tl_type *t;
  uint64_t hash;
} tl_tuple;

struct tl_module {
  tl_arena arena;
  /* expr.c: node memory (nodes, kid arrays, br_table tables and v128 bytes). Each body
   * lives in an exact-size block of its own once read or optimized; other
   * nodes (module passes, initializers) in `nodes`. tl_nodes_sweep frees
   * what no body or initializer uses. */
  tl_arena nodes;
  tl_vec blocks;           /* void *: the body blocks (NULL once freed) */
  tl_oom_guard guard;      /* made under a scope (the reader): freed if it fails */
  tl_chunk_cache *chunks;  /* the node scratch's chunks and big blocks, for reuse */
  struct tl_node_index *node_index; /* which body uses which memory, as of the
                              last sweep; NULL if none */
  struct tl_node_index *sweeping; /* between tl_nodes_sweep_begin and _end */
  tl_vec types;            /* tl_functype */
  tl_vec funcs;            /* tl_func; imports first */
  tl_vec debug_files;      /* const char *: the sources debug locations name */
  bool dwarf_locs;         /* the reader gave nodes their DWARF code addresses as
                              locations (tl_read_options.dwarf) */
  tl_vec globals;          /* tl_global; imports first */
  tl_vec memories;         /* tl_memory; imports first */
  tl_vec tables;           /* tl_table; imports first */
  tl_vec tags;             /* tl_tag; imports first */
  tl_vec exports;          /* tl_export */
  tl_vec elems;            /* tl_elem */
  tl_vec datas;            /* tl_data */
  tl_vec customs;          /* tl_custom */
  uint32_t nimported_funcs, nimported_globals, nimported_memories, nimported_tables, nimported_tags;
  bool has_start;
  uint32_t start;
  bool has_datacount;      /* the input had a data count section */
  const char *name;        /* module name from the name section */
  tl_features features;    /* enabled features */
  bool gc_code;            /* the reader met a typed-reference or gc instruction in a body */
  bool typed_funcs;        /* ref.func $f is (ref $t), $f's type (the reader sets it when
                              the types are GC ones: tl_module_has_gc_types); else funcref */
  struct tl_capi *capi;    /* capi.c: C API builder state (in the arena), NULL until used */
  bool capi_oom;           /* capi.c: a builder ran out of memory */
  uint32_t threads;        /* tl_read_options.threads: for validating bodies; 0 = per core */
  /* tuple interning (type.c): tuple i is tuple_block[i >> 10][i & 1023];
   * blocks never move, so readers need no lock while passes intern. */
  tl_tuple *tuple_block[4096];
  uint32_t ntuples;
  uint32_t *tuple_hash;    /* open addressing: tuple id+1, 0 = empty */
  uint32_t tuple_hash_cap;
  /* rec groups that are canonical (type.c), by structure: open addressing,
   * first type index + 1, 0 = empty */
  uint32_t *group_hash;
  uint32_t group_hash_cap, ngroups;
  /* memarg.c: memarg offsets above UINT32_MAX, interned the same way
   * (offset i is big_block[i >> 10][i & 1023]; blocks never move). */
  uint64_t *big_block[4096];
  uint32_t nbig;
  uint32_t *big_hash;      /* open addressing: index+1, 0 = empty */
  uint32_t big_hash_cap;
};

#define TL_FUNC(m, i) (&TL_VEC_AT(&(m)->funcs, tl_func, (i)))
#define TL_GLOBAL(m, i) (&TL_VEC_AT(&(m)->globals, tl_global, (i)))
#define TL_MEMORY(m, i) (&TL_VEC_AT(&(m)->memories, tl_memory, (i)))
#define TL_TABLE(m, i) (&TL_VEC_AT(&(m)->tables, tl_table, (i)))
#define TL_FTYPE(m, i) (&TL_VEC_AT(&(m)->types, tl_functype, (i)))
#define TL_ELEM(m, i) (&TL_VEC_AT(&(m)->elems, tl_elem, (i)))
#define TL_DATA(m, i) (&TL_VEC_AT(&(m)->datas, tl_data, (i)))
#define TL_EXPORT(m, i) (&TL_VEC_AT(&(m)->exports, tl_export, (i)))
#define TL_TAG(m, i) (&TL_VEC_AT(&(m)->tags, tl_tag, (i)))
/* The params of tag i: the values its exceptions carry (none, one or a tuple). */
static inline tl_type tl_tag_params(const tl_module *m, uint32_t i) { return TL_FTYPE(m, TL_TAG(m, i)->type)->params; }
static inline tl_deftype *tl_heap_def(const tl_module *m, uint32_t ht) { return TL_FTYPE(m, ht - TL_HT_DEF); }

/* -------------------------------------------------------------- errors */
/* tl_error and tl_status are public (tilt.h). */
tl_status tl_errorf(tl_error *e, tl_status code, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* TL_E_NOMEM, "out of memory (what)": the return of every failed scratch
 * allocation (tl_scratch_calloc / tl_scratch_realloc / tl_vec / tl_buf). */
tl_status tl_nomem(tl_error *e, const char *what);

/* debugloc.c: debug locations (source maps). */
typedef struct tl_locmap tl_locmap;
const tl_debugloc *tl_loc_get(const tl_func *f, const tl_expr *e);  /* NULL: none */
/* by value: a location got from the same map may move as it grows */
void tl_loc_set(tl_func *f, const tl_expr *e, tl_debugloc l);
void tl_locmap_free(tl_locmap *lm);
/* A function leaving the module: its locations go with it. */
void tl_func_forget_locs(tl_func *f);
/* A body moving to new nodes (expr.c): a fresh map gets each moved node's
 * location, then replaces the function's. */
void tl_loc_move_begin(tl_locmap **fresh, const tl_func *f);
void tl_loc_moved(tl_locmap *fresh, const tl_func *f, const tl_expr *from, const tl_expr *to);
void tl_loc_move_end(tl_locmap *fresh, tl_func *f);
/* A source map's mappings, sorted by offset (in the binary). */
typedef struct { uint32_t offset; bool has_loc; tl_debugloc loc; } tl_srcmap_entry;
typedef struct { tl_vec entries; } tl_srcmap;
/* Reads the JSON; its sources become m->debug_files. */
tl_status tl_srcmap_parse(tl_module *m, tl_srcmap *sm, const char *text, size_t len, tl_error *err);
const tl_debugloc *tl_srcmap_at(const tl_srcmap *sm, uint32_t start, uint32_t offset);
void tl_srcmap_free(tl_srcmap *sm);
/* The source map (JSON) of n mappings for m's debug_files. */
void tl_srcmap_write(const tl_module *m, const tl_srcmap_entry *e, size_t n, tl_buf *out);

/* json.c: a JSON scanner (metadce's graph, source maps). Errors are
 * TL_E_MALFORMED "WHAT: message" at the byte offset in the text. */
typedef struct {
  const char *p, *end, *base;
  tl_buf str;              /* the last string read, decoded (UTF-8) */
  tl_error *err;
  const char *what;        /* what the text is, for errors */
} tl_json;
tl_status tl_json_fail(tl_json *j, const char *msg);
void tl_json_ws(tl_json *j);
bool tl_json_eat(tl_json *j, char c);            /* after whitespace */
bool tl_json_word(tl_json *j, const char *w);    /* true, false, null */
tl_status tl_json_string(tl_json *j);            /* into j->str */
tl_status tl_json_number(tl_json *j, double *v);
tl_status tl_json_skip(tl_json *j);              /* any value, nested too */
void tl_json_free(tl_json *j);

/* type.c */
tl_type tl_type_tuple(tl_module *m, const tl_type *t, uint32_t n); /* n>=2; n==1 gives t[0], n==0 none */
uint32_t tl_type_arity(const tl_module *m, tl_type t);  /* none/unreachable 0, basic 1, tuple n */
tl_type tl_type_at(const tl_module *m, tl_type t, uint32_t i); /* i-th component */
const char *tl_type_name(tl_type t);                    /* basic types; "ref" otherwise */
/* The text name of t ("i32", "(ref null $3)", "anyref", "(tuple i32 i64)") into b. */
void tl_type_print(const tl_module *m, tl_type t, char *b, size_t n);
const char *tl_heap_name(uint32_t ht);                  /* abstract heap types; NULL otherwise */
uint32_t tl_functype_intern(tl_module *m, tl_type params, tl_type results); /* find or append */
/* Appends a rec group of n types (their kind, fields, params/results and
 * super already set, references inside naming module indices) and gives
 * them canon, depth and rec; false (err set) if a supertype is not a valid
 * one (unknown, final, other kind, fields that do not match). The types'
 * own references are rewritten to canonical indices. */
bool tl_types_add_group(tl_module *m, const tl_deftype *t, uint32_t n, char *err, size_t errn);
/* After types were removed or reordered in m->types (plain function types
 * only: no type names another): rec, canon and the group hash anew. */
void tl_types_rehash(tl_module *m);
/* Heap type ht as type `self` states it in the type section: a duplicate
 * rec group (canon elsewhere) names its own members, not the canonical
 * group's, so that it stays the same type when written or printed. */
uint32_t tl_heap_in_group(const tl_module *m, uint32_t self, uint32_t ht);
/* Subtyping (a <: b) of value types: numeric types only of themselves;
 * tuples componentwise; none and unreachable as the IR uses them. */
bool tl_type_sub(const tl_module *m, tl_type a, tl_type b);
/* finalize.c: whether try_table clause e may target a label of type lt. */
bool tl_clause_fits(const tl_module *m, const tl_expr *e, tl_type lt);
bool tl_heap_sub(const tl_module *m, uint32_t a, uint32_t b);
/* The same for a type of module ma against one of mb (linking): defined
 * types compare structurally (iso-recursive equality across modules). A
 * NULL module has only abstract types. */
bool tl_type_sub_across(const tl_module *ma, tl_type a, const tl_module *mb, tl_type b);
bool tl_heap_sub_across(const tl_module *ma, uint32_t a, const tl_module *mb, uint32_t b);
/* The top of ht's hierarchy (any, func, extern, exn) and its bottom
 * (none, nofunc, noextern, noexn). */
uint32_t tl_heap_top(const tl_module *m, uint32_t ht);
uint32_t tl_heap_bottom(const tl_module *m, uint32_t ht);
/* Whether m has any type beyond the basic ones (GC or typed references). */
bool tl_module_has_gc_types(const tl_module *m);
/* tl_module_uses_gc (tilt.h) counts instructions by gc_code. */
/* features.c: what a value (or tuple) type needs; references to function
 * and extern types only reference types (the writer generalizes them). */
tl_features tl_type_features(const tl_module *m, tl_type t);
/* t is none, unreachable, a basic type, a tuple of m, or a reference to an
 * abstract heap type or to a canonical defined type of m. */
bool tl_type_valid(const tl_module *m, tl_type t);

/* type_rewrite.c — changing the defined types (closed-world passes).
 * begin copies every type's definition into def[] (references by old
 * canonical index, supertypes too) and finds the public types (pub[]: what
 * imports and exports reach, with their rec groups, supertypes and
 * contents; never changed). A pass then edits def[c] of private canonical
 * types c (fields, params, results, super) or sets map[c] to the heap type
 * (old) that c becomes everywhere; apply builds the new section (public
 * groups as they were, then one rec group of the private types still used,
 * supertypes first; unused ones and duplicate groups go) and renames every
 * type and type index of the module, then refinalizes the bodies. The
 * caller keeps the edits consistent (a subtype's fields under its
 * supertype's, instructions fitting the new types); apply reports
 * TL_E_INVALID when the section does not validate. */
typedef struct {
  uint32_t n;          /* m->types.n at begin */
  tl_deftype *def;     /* n new definitions (read for private canonical types) */
  uint32_t *map;       /* n: TL_NO_INDEX, or the heap type the type becomes */
  uint8_t *pub;        /* n: public, by canonical index */
  uint32_t *canon;     /* n: the old canonical index of each old index */
  bool open;           /* open world (tl_types_compact): groups kept as they are */
  tl_arena arena;      /* scratch: def[]'s fields and apply's tables */
} tl_type_rewrite;
void tl_type_rewrite_begin(tl_module *m, tl_type_rewrite *rw);
tl_status tl_type_rewrite_apply(tl_module *m, tl_type_rewrite *rw, tl_error *err);
void tl_type_rewrite_free(tl_type_rewrite *rw);
/* pub[canonical index] set for the public types (m->types.n bytes). */
void tl_types_public(const tl_module *m, uint8_t *pub);
/* Open-world compaction: the rec groups the module names (with what their
 * types name) kept whole and unchanged, each canonical group once, ordered
 * by type_order.c; unused groups and duplicates go; every type index
 * renamed. Safe in any world: no type changes identity. */
tl_status tl_types_compact(tl_module *m, tl_error *err);
/* type_order.c: the kept groups (used[]: their canonical types) in their
 * new order into order[] (old canonical indices), newpos[old] = new
 * index; uses[]: how often each canonical type is written. Returns the
 * number of types placed. */
uint32_t tl_types_order_groups(const tl_module *m, const uint8_t *used, const uint32_t *uses, uint32_t *order,
                               uint32_t *newpos);

/* subtype_exprs.c — the subtyping the code relies on. sub(a, b): a value
 * of type a (value, tuple or reference type) flows where b is expected, or
 * a type must stay under another for the module to validate (a is never
 * unreachable; a and b may be equal-shaped tuples or non-references, which
 * a sink ignores). cast(src, dst): a runtime cast of a src reference to
 * dst (ref.test, ref.cast, br_on_cast, call_indirect's check of a table's
 * element type against its type). Bodies must be decoded. */
typedef struct {
  void (*sub)(void *user, tl_type a, tl_type b);
  void (*cast)(void *user, tl_type src, tl_type dst);
  void *user;
} tl_subtype_sink;
void tl_subtype_exprs_func(tl_module *m, tl_func *f, const tl_subtype_sink *s);
/* Every defined function, global, table and element segment of m. */
void tl_subtype_exprs_module(tl_module *m, const tl_subtype_sink *s);

/* gcops.c: the GC instructions' types. A field's value type (i32 for a
 * packed one); whether a type has a default value; the reference to
 * module type idx; a GC node's natural type; br_on_cast(_fail)'s value to
 * its label. */
tl_type tl_gc_unpacked(const tl_field *f);
bool tl_type_defaultable(tl_type t);
tl_type tl_gc_ref_of(const tl_module *m, uint32_t idx, bool nullable);
tl_type tl_gc_natural_type(const tl_module *m, const tl_expr *e);
tl_type tl_gc_branch_type(const tl_module *m, const tl_expr *e);
/* The type GC node e takes as operand i (TL_UNREACHABLE: any, or unknown
 * for ref.as_non_null, br_on_null, br_on_non_null). */
tl_type tl_gc_operand_type(const tl_module *m, const tl_expr *e, uint32_t i);
static inline bool tl_op_is_gc(int op) {
  return (op >= TL_OP_STRUCT_NEW && op <= TL_OP_I31_GET_U) || op == TL_OP_REF_EQ || op == TL_OP_CALL_REF ||
         op == TL_OP_RETURN_CALL_REF || op == TL_OP_REF_AS_NON_NULL || op == TL_OP_BR_ON_NULL ||
         op == TL_OP_BR_ON_NON_NULL;
}
static inline bool tl_op_is_br_on_cast(int op) { return op == TL_OP_BR_ON_CAST || op == TL_OP_BR_ON_CAST_FAIL; }
/* br_on_null, br_on_non_null, br_on_cast, br_on_cast_fail: imm.label, one
 * reference operand, a value to the label on one path */
static inline bool tl_op_is_br_on(int op) {
  return tl_op_is_br_on_cast(op) || op == TL_OP_BR_ON_NULL || op == TL_OP_BR_ON_NON_NULL;
}

/* memarg.c */
uint64_t tl_memarg_big(const tl_module *m, uint32_t index);
static inline uint64_t tl_memarg_offset(const tl_module *m, const tl_memarg *ma) {
  return ma->big ? tl_memarg_big(m, ma->offset) : ma->offset;
}
void tl_memarg_set_offset(tl_module *m, tl_memarg *ma, uint64_t off);
void tl_memarg_free_big(tl_module *m);                  /* module.c's destroy */
bool tl_memory_is64(const tl_module *m, uint32_t mem);  /* false if out of range */
bool tl_table_is64(const tl_module *m, uint32_t table);
/* Which index operands of op (its imm im) are i64 rather than the opcode
 * table's i32: bit i for operand i (0-2), TL_IDX64_RESULT for the result
 * (memory.size/grow, table.size/grow), TL_IDX64_CALLEE for call_indirect's
 * last operand. 0 for everything on 32-bit memories and tables. */
#define TL_IDX64_RESULT 8u
#define TL_IDX64_CALLEE 16u
uint32_t tl_index64_mask(const tl_module *m, int op, tl_imm im);
/* Operand i's type: t (the table's) with i32 index operands widened by the mask. */
tl_type tl_index_operand_type(const tl_module *m, int op, tl_imm im, uint32_t i, tl_type t);

/* module.c */
tl_module *tl_module_alloc(void);     /* NULL on malloc failure */
void tl_module_destroy(tl_module *m);
tl_func *tl_module_add_func(tl_module *m);      /* zeroed, appended */
/* A defined function: a body, or a lazy one's bytes. */
static inline bool tl_func_defined(const tl_func *f) { return f->body || f->lazy; }
/* Lazy bodies (reader_code.c, registry.c): f->lazy's IR made from its
 * bytes (no-op otherwise); all of them, on the pass pool. The bodies were
 * validated when read, so only memory can fail (or a reader bug, reported). */
tl_status tl_func_decode(tl_module *m, uint32_t fi, tl_error *err);
tl_status tl_module_decode_all(tl_module *m, tl_error *err);
bool tl_module_has_lazy(const tl_module *m);
/* The index immediates of a lazy body's bytes (code_scan.c), in order: what
 * module passes that only need references read without decoding. A memarg
 * without a memory index reports memory 0. tl_code_remap appends the body
 * to out with each index of space s mapped through map[s] (NULL: kept). */
enum { TL_SPACE_FUNC, TL_SPACE_GLOBAL, TL_SPACE_TABLE, TL_SPACE_MEMORY, TL_SPACE_ELEM, TL_SPACE_DATA,
       TL_SPACE_TYPE, TL_SPACE_TAG, TL_NSPACES };
typedef struct { uint8_t space; uint16_t op; uint32_t index; } tl_code_ref;
void tl_code_refs(const tl_module *m, const uint8_t *code, uint32_t size,
                  void (*fn)(void *user, const tl_code_ref *ref), void *user);
void tl_code_remap(const tl_module *m, const uint8_t *code, uint32_t size, uint32_t *const map[TL_NSPACES],
                   tl_buf *out);
/* f's lazy bytes renumbered through map (tl_code_remap) into new bytes in
 * m's arena; every lazy body's indices of one space through map. */
void tl_func_remap_code(tl_module *m, tl_func *f, uint32_t *const map[TL_NSPACES]);
void tl_module_remap_lazy(tl_module *m, uint32_t space, uint32_t *map);
tl_functype *tl_func_type(const tl_module *m, const tl_func *f);
uint32_t tl_func_nparams(const tl_module *m, const tl_func *f);
uint32_t tl_func_add_local(tl_module *m, tl_func *f, tl_type t);
/* tl_func_add_local for a pass: the new local is an ordinary one, outside
 * the reader's scratch range (a function with scratch locals in use loses
 * its scratch range). */
uint32_t tl_func_add_var(tl_module *m, tl_func *f, tl_type t);
uint32_t tl_func_new_label(tl_module *m, tl_func *f);
uint32_t *tl_func_local_map(const tl_module *m, const tl_func *f); /* wasm local base per IR local; tl_free() it */

/* expr.c (builders; every builder finalizes the node it makes) */
tl_expr *tl_expr_new(tl_module *m, tl_op op, uint32_t nkid);  /* kids zeroed, type none */
void tl_expr_push_kid(tl_module *m, tl_expr *e, tl_expr *kid); /* grows kid[] */
tl_expr *tl_make_const_i32(tl_module *m, int32_t v);
tl_expr *tl_make_const_i64(tl_module *m, int64_t v);
tl_expr *tl_make_unary(tl_module *m, tl_op op, tl_expr *a);
tl_expr *tl_make_binary(tl_module *m, tl_op op, tl_expr *a, tl_expr *b);
tl_expr *tl_make_nop(tl_module *m);
tl_expr *tl_make_unreachable(tl_module *m);
tl_expr *tl_make_local_get(tl_module *m, tl_func *f, uint32_t idx);
tl_expr *tl_make_local_set(tl_module *m, tl_func *f, uint32_t idx, tl_expr *v, bool tee);
tl_expr *tl_make_drop(tl_module *m, tl_expr *v);
tl_expr *tl_make_block(tl_module *m, tl_op op, uint32_t label, tl_expr **kids, uint32_t n);
tl_expr *tl_make_zero(tl_module *m, tl_type t); /* 0, ref.null, tuple.make of zeros */
/* Whether two constants of opcode op (i32/i64/f32/f64/v128.const: the
 * same bits; ref.null: the same type) are the same value. */
bool tl_const_imm_eq(int op, tl_imm a, tl_imm b);
/* (select a b cond) of type t (TL_NONE: the lub of a's and b's types);
 * typed (select (result t)) when t is a reference. */
tl_expr *tl_make_select(tl_module *m, tl_func *f, tl_expr *a, tl_expr *b, tl_expr *cond, tl_type t);
/* Out-of-line immediates, in node memory: e->imm.v128 set to 16 bytes
 * (copied from v, or zeroed when v is NULL); a br_table's n targets (and
 * default), zeroed, with ->n set. */
uint8_t *tl_expr_v128(tl_module *m, tl_expr *e, const uint8_t *v);
tl_brtable *tl_brtable_new(tl_module *m, uint32_t n);
static inline size_t tl_brtable_size(uint32_t n) { return sizeof(tl_brtable) + (size_t)n * sizeof(uint32_t); }
tl_expr *tl_expr_copy(tl_module *m, tl_func *f, const tl_expr *e); /* deep, iterative; labels defined inside get fresh ids of f */
/* The same, for nodes of function `from` whose copies go to `to`: the copies
 * get the debug locations of their originals (tl_expr_copy: from = to = f). */
tl_expr *tl_expr_copy_from(tl_module *m, tl_func *f, const tl_func *from, tl_func *to,
                           const tl_expr *e);
/* Node memory, zeroed: from the calling thread's function scratch between
 * tl_nodes_begin and tl_nodes_end, else from m->nodes (locked with
 * m->arena). */
void *tl_node_alloc(tl_module *m, size_t n, size_t align);
/* The calling thread builds nodes for function `func` only (the reader,
 * function passes): they go to a scratch arena; end moves the body into a
 * fresh exact-size block and frees the function's old block when the last
 * sweep found no other body using it. */
void tl_nodes_begin(tl_module *m, uint32_t func);
void tl_nodes_end(tl_module *m, uint32_t func);
void tl_nodes_set_oom(jmp_buf *oom); /* this thread's, until tl_nodes_end */
/* Out of memory unwound this thread: its node scratch goes back unused. */
void tl_nodes_abandon(void);
bool tl_nodes_active(void); /* whether this thread is between tl_nodes_begin and _end */
/* Single-threaded, while nobody holds node pointers other than bodies,
 * initializers, element items and segment offsets: frees the node memory
 * none of them uses and records which body uses which block. Does nothing
 * on a module the C API builds (it may hold nodes not yet placed). */
void tl_nodes_sweep(tl_module *m);
/* The same in steps, for a caller that marks bodies in parallel: begin
 * (false: no sweep now), mark each function once (any thread), end. */
bool tl_nodes_sweep_begin(tl_module *m);
void tl_nodes_sweep_mark(tl_module *m, uint32_t func);
void tl_nodes_sweep_end(tl_module *m);
void tl_nodes_destroy(tl_module *m); /* module.c's destroy: all node memory */
/* For a writer that consumes the module: drops func's body (NULL) and frees
 * the block holding its root when the index of the last sweep (which no body
 * change since may have outdated) found only func using it; returns the bytes
 * freed. Distinct functions may be dropped from several threads at once. */
size_t tl_nodes_free_body(tl_module *m, uint32_t func);

/* finalize.c — the type rules, in one place.
 * tl_expr_finalize recomputes e->type from its children (and, for a labeled
 * block/loop/if, from the branches in its subtree, which costs a walk of it).
 * tl_func_refinalize recomputes every node of a function in one linear walk. */
void tl_expr_finalize(tl_module *m, tl_func *f, tl_expr *e);
/* The least upper bound (type.c): unreachable is the identity; types with
 * no bound give a (the validator reports the mismatch). */
tl_type tl_type_lub(const tl_module *m, tl_type a, tl_type b);
/* the greatest lower bound of two reference types (a if either is not one) */
tl_type tl_type_glb(const tl_module *m, tl_type a, tl_type b);
tl_type tl_branch_value_type(const tl_expr *br);
tl_type tl_ref_func_type(const tl_module *m, uint32_t func); /* ref.func's type */
/* ref.func's 3.0 type, (ref $t): what validation of the input checks by,
 * whether or not the IR types the node so (m->typed_funcs) */
tl_type tl_ref_func_precise(const tl_module *m, uint32_t func); /* none, unreachable or the carried type */
void tl_block_finalize(tl_module *m, tl_expr *e, tl_type branch_type); /* TL_UNREACHABLE = no branches */
void tl_func_refinalize(tl_module *m, tl_func *f);
void tl_expr_refinalize(tl_module *m, tl_func *f, tl_expr **root); /* a subtree of f */
/* Retypes what holds a ref.func whose type is stale (a function's type or
 * the gc feature changed): cheap when nothing is. */
void tl_module_retype_ref_funcs(tl_module *m);
tl_type tl_expr_natural_type(const tl_module *m, const tl_func *f, const tl_expr *e); /* ignoring unreachable kids */
bool tl_expr_breaks_to(const tl_expr *e, uint32_t label); /* branch node that targets label? */
/* tl_expr_breaks_to, or a rethrow/delegate naming label. */
bool tl_expr_uses_label(const tl_expr *e, uint32_t label);
/* Whether a subtree holds any exception-handling node. */
bool tl_expr_has_eh(tl_expr *root);
/* GC in a function: a type with a reference beyond funcref/externref/
 * exnref; a node of root's subtree that is a GC or typed-reference
 * instruction or has such a type; either in f's signature, locals or body. */
bool tl_type_has_gc(const tl_module *m, tl_type t);
bool tl_expr_has_gc(const tl_module *m, tl_expr *root);
bool tl_func_has_gc(const tl_module *m, const tl_func *f);
/* localinit.c: makes f valid under the 3.0 local-initialization rule
 * after a pass: a non-nullable local read where no set in an enclosing
 * block comes first becomes nullable, its reads ref.as_non_null. Returns
 * whether it changed f. */
bool tl_func_fix_local_init(tl_module *m, tl_func *f);
/* The same scan for every local: out[i] (f->nlocal bytes) is set when a
 * read of local i may come before any set that covers it (the entry
 * value; params count as set there when params_set). A catch arm sets its
 * payload local. */
void tl_func_uncovered_locals(tl_module *m, tl_func *f, bool params_set, uint8_t *out);

/* walk.c — iterative walks. visit(w, slot) may replace *slot. */
typedef struct tl_walk tl_walk;
typedef void (*tl_visit_fn)(tl_walk *w, tl_expr **slot);
struct tl_walk {
  tl_module *m;
  tl_func *f;
  void *ctx;
  tl_visit_fn pre;   /* called before children; may set w->skip */
  tl_visit_fn post;  /* called after children */
  bool skip;         /* set by pre: do not descend into this node */
  tl_vec stack;      /* internal: frames */
  uint32_t depth;    /* current depth (number of ancestors) */
  uint32_t only;     /* post-only walks: post sees only the nodes whose op has
                        one of these flags (tl_ops[].flags); 0 = every node */
};
void tl_walk_run(tl_walk *w, tl_expr **root);     /* frees its stack at the end */
tl_expr *tl_walk_parent(tl_walk *w, uint32_t up); /* ancestor (1 = parent), NULL at the top */
void tl_walk_post(tl_module *m, tl_func *f, tl_expr **root, tl_visit_fn post, void *ctx);
/* tl_walk_post calling post only on nodes whose op has one of the flags
 * `only` (TL_F_*): the walk itself costs a flag test per other node. */
void tl_walk_post_only(tl_module *m, tl_func *f, tl_expr **root, tl_visit_fn post, void *ctx,
                       uint32_t only);
/* tl_walk_post over every expression of m: defined function bodies, global
 * inits, element segment offsets and items, data segment offsets. */
void tl_walk_module(tl_module *m, tl_visit_fn visit, void *ctx);
uint64_t tl_expr_count(tl_expr *root);            /* number of nodes */

/* cfg.c — a CFG of basic blocks and structuring it into wasm (seed 000).
 * A block has code (none-typed, may be NULL) and either branch edges
 * (tried in the order added: the first whose condition is true is taken;
 * the edge without condition is the default; no edges = leave the
 * structure) or, when switch_on is set, switch edges chosen by case value.
 * Code on an edge runs when the edge is taken. tl_cfg_structure consumes
 * the graph (it may add blocks and edges) and returns a none-typed BLOCK. */
typedef struct {
  uint32_t to;
  tl_expr *cond;         /* branch edges: the condition, NULL for the default */
  tl_expr *code;         /* runs when taken, or NULL */
  uint32_t *cases;       /* switch edges: the case values */
  uint32_t ncases;
  bool is_default;
} tl_cfg_edge;
typedef struct {
  tl_expr *code;
  tl_expr *switch_on;    /* i32 value for a switch block, else NULL */
  tl_vec edges;          /* tl_cfg_edge */
} tl_cfg_block;
typedef struct {
  uint64_t dispatches;   /* dispatch blocks added for irreducible regions */
  uint64_t label_sets;   /* edges that set the label local */
  uint64_t split_blocks; /* blocks copied by node splitting */
  uint64_t split_size;   /* nodes copied by node splitting */
  uint64_t br_tables;    /* br_tables emitted */
} tl_cfg_stats;
typedef struct tl_cfg {
  tl_module *m;
  tl_func *f;            /* function the code belongs to (labels, locals) */
  tl_vec blocks;         /* tl_cfg_block */
  uint32_t label_local;  /* i32 local for dispatch, TL_NO_INDEX = add one if needed */
  tl_cfg_stats stats;
  bool oom;              /* tl_cfg_structure ran out of memory (it returned NULL) */
} tl_cfg;
typedef struct {
  uint64_t split_budget; /* nodes node splitting may copy in all; 0 = never split */
} tl_cfg_options;
#define TL_CFG_MAX_TABLE 16384 /* larger, sparse case values use compare chains */
tl_cfg *tl_cfg_new(tl_module *m, tl_func *f);
/* g's vectors off the out-of-memory ledger (oom.c): g outlives a failed call. */
void tl_cfg_keep(tl_cfg *g);
uint32_t tl_cfg_add_block(tl_cfg *g, tl_expr *code, tl_expr *switch_on);
void tl_cfg_add_branch(tl_cfg *g, uint32_t from, uint32_t to, tl_expr *cond, tl_expr *code);
void tl_cfg_add_switch_branch(tl_cfg *g, uint32_t from, uint32_t to, const uint32_t *cases,
                              uint32_t ncases, tl_expr *code); /* cases NULL: default */
tl_expr *tl_cfg_structure(tl_cfg *g, uint32_t entry, const tl_cfg_options *opt);
/* Removes value-less branches in tail position of the block they target
 * (they go where control goes anyway), then recomputes types. Linear.
 * Returns whether it removed any. */
bool tl_strip_tail_branches(tl_module *m, tl_func *f, tl_expr **root);
/* The same over the labeled blocks a caller already listed (every block
 * under root that may be a branch target, in any order), without a walk. */
bool tl_strip_tail_branches_of(tl_module *m, tl_func *f, tl_expr **root, tl_expr *const *blocks, size_t n);
void tl_cfg_free(tl_cfg *g);

/* validate.c — context-free validation of a module (IR level). */
tl_status tl_validate_module(tl_module *m, tl_error *err);
tl_status tl_validate_func(tl_module *m, uint32_t func_index, tl_error *err);
/* The bodies of the defined functions with which[i] set (all if NULL);
 * bodiless ones are skipped, as a module pass may hold one mid-way. */
tl_status tl_validate_funcs(tl_module *m, const uint8_t *which, tl_error *err);
tl_status tl_validate_ir(tl_module *m, tl_error *err); /* + one parent across the module */
/* Whether the defined functions' bodies hold at least `want` nodes (the
 * count stops there; false when out of memory). The validator and the
 * writer go parallel by it, so that a module built with the C API (no code
 * bytes) and a read one behave alike. */
bool tl_module_has_nodes(const tl_module *m, uint64_t want);
#define TL_PAR_MIN_NODES (1u << 15) /* about 64 KB of code (2.1 bytes a node) */

/* print.c — folded s-expression text that wat2wasm assembles. */
void tl_print_module(tl_module *m, tl_buf *out);
void tl_print_expr(tl_module *m, tl_func *f, tl_expr *e, tl_buf *out);

/* interp.c — the reference interpreter; its embedding API (stores,
 * instances, invoke, host functions) is tilt.h "execution".
 * tl_interp_eval runs one side-effect-free expression e of f (no locals,
 * globals, memory, tables, calls or returns; branches only to labels defined
 * inside e) and writes its values, tuple components in order, to out.
 * A trap is TL_E_TRAP with the spec's reason; fuel (0 = unlimited) bounds
 * the instructions run (TL_E_EXHAUSTED); anything it will not run is
 * TL_E_UNSUPPORTED. For constant folding (precompute). */
tl_status tl_interp_eval(tl_module *m, tl_func *f, tl_expr *e, tl_value *out, uint32_t maxout,
                         uint32_t *nout, uint64_t fuel, tl_error *err);

/* interp.c (internal additions to the execution API of tilt.h) */
tl_status tl_instance_func(tl_instance *inst, uint32_t index, tl_extern *out);

/* features.c */
const char *tl_feature_name(tl_features single);       /* "sign-ext", ... */
tl_features tl_feature_by_name(const char *name);      /* 0 if unknown */
tl_features tl_features_default(void);
tl_features tl_module_detect_features(tl_module *m);   /* what the module uses */

#endif
