/* passes.h — the pass infrastructure: the registry (passes.def), the pass
 * context, the runner (thread pool for function passes) and the helpers
 * passes share (effects). One file per pass, one entry point each. */
#ifndef TILT_PASSES_H
#define TILT_PASSES_H

#include "../ir/ir.h"

typedef struct {
  const char *key, *value;       /* --pass-arg KEY@VALUE */
} tl_pass_arg;

typedef struct tl_pass_ctx {
  tl_module *m;
  const tl_pass_arg *args;
  uint32_t nargs;
  tl_error *err;
  /* Never NULL: levels (optimize_level, shrink_level) and assumptions
   * (low_memory_unused, zero_filled_memory) of this run; -optimizing
   * passes run tl_pipeline_for(opt) on what they changed. */
  const tl_pass_options *opt;
  const char *pass;     /* the top-level pass running (for debug reports) */
} tl_pass_ctx;

typedef tl_status (*tl_func_pass_fn)(tl_pass_ctx *, tl_func *);
typedef tl_status (*tl_module_pass_fn)(tl_pass_ctx *);
typedef enum { TL_PASS_FUNC, TL_PASS_MODULE } tl_pass_kind;

typedef struct {
  const char *name, *help;
  tl_pass_kind kind;
  tl_func_pass_fn func;
  tl_module_pass_fn module;
  bool eh;              /* FUNC: models exception handling; the runner runs a
                           pass without it only on functions free of EH nodes
                           (passes.def kind FUNC vs FUNC_EH) */
  bool gc;              /* FUNC: models GC (typed references, subtyping,
                           non-nullable locals, GC instructions); the runner
                           runs a pass without it only on functions free of
                           them, tl_func_has_gc (kind FUNC_GC vs the others) */
  bool iface;           /* renames imports or exports (MODULE_IFACE): the
                           host must apply the map it prints, so the module
                           alone does not behave the same */
  bool traps;           /* same behaviour only where something never runs
                           (FUNC_TRAPS, MODULE_TRAPS) */
  bool lazy;            /* MODULE: takes lazy bodies as they are (the _LAZY
                           kinds); before any other, they are decoded */
} tl_pass_info;

#define PASS_DECL_FUNC(id) tl_status tl_pass_##id(tl_pass_ctx *, tl_func *);
#define PASS_DECL_FUNC_EH(id) PASS_DECL_FUNC(id)
#define PASS_DECL_FUNC_GC(id) PASS_DECL_FUNC(id)
#define PASS_DECL_FUNC_TRAPS(id) PASS_DECL_FUNC(id)
#define PASS_DECL_MODULE(id) tl_status tl_pass_##id(tl_pass_ctx *);
#define PASS_DECL_MODULE_IFACE(id) PASS_DECL_MODULE(id)
#define PASS_DECL_MODULE_LAZY(id) PASS_DECL_MODULE(id)
#define PASS_DECL_MODULE_IFACE_LAZY(id) PASS_DECL_MODULE(id)
#define PASS_DECL_MODULE_TRAPS(id) PASS_DECL_MODULE(id)
#define PASS(id, name, help, kind) PASS_DECL_##kind(id)
#include "passes.def"
#undef PASS

/* registry.c */
const tl_pass_info *tl_pass_find(const char *name);
const tl_pass_info *tl_pass_at(uint32_t i);  /* NULL past the end */
const char *tl_pass_arg_get(const tl_pass_ctx *c, const char *key);
/* Hands a pass's report text to opt->on_output (dropped when there is none). */
void tl_pass_output(const tl_pass_ctx *c, const char *text, size_t len);
/* Runs the function passes among names[0..n) (others are skipped), stacked,
 * on the pool (ctx->opt->threads) over the functions with which[i] set
 * (all if NULL); the first failing function by index reports. Under
 * ctx->opt->validate_each or on_pass_done they run one at a time, each
 * validated and reported as "OUTER/PASS". */
tl_status tl_run_func_passes_on(tl_pass_ctx *ctx, const char *const *names, uint32_t n, const uint8_t *which);
/* Calls fn(user, i) for i in 0..n-1 on the pool, in any order and thread
 * (serially if already inside it); the arena is locked meanwhile. */
void tl_run_parallel(tl_pass_ctx *ctx, uint32_t n, void (*fn)(void *user, uint32_t i), void *user);
/* Sorts the function indices order[0..n) biggest body first (code_size, else
 * node count; ties by index), for a pool's schedule; unsorted when out of
 * memory (only the schedule depends on it). */
void tl_order_by_size(tl_module *m, uint32_t *order, uint32_t n);
/* pipeline.c: only the function passes of the -O pipeline of o's levels
 * (what -optimizing passes run on the functions they changed). */
uint32_t tl_pipeline_function(const tl_pass_options *o, const char **names, uint32_t cap);

/* effects.c — what evaluating a subtree may do. */
typedef struct {
  uint32_t flags;      /* OR of tl_ops[].flags of every node (TL_F_*) */
  bool branches_out;   /* a branch to a label defined outside the subtree */
  bool unreachable;    /* contains unreachable-typed code */
} tl_effects;
void tl_effects_of(tl_module *m, tl_func *f, tl_expr *e, tl_effects *out);
/* No effect a caller could observe besides the value: no writes, calls,
 * traps, branches out, or control leaving (reads are allowed). */
bool tl_effects_removable(const tl_effects *fx);

/* labels.c — branch counts and types per label; retargeting branches
 * through a map (map[l] == l: unchanged; chains are followed). */
typedef struct {
  uint32_t n;
  uint32_t *count;   /* branches per label */
  tl_type *type;     /* LUB of the value types they carry */
  const tl_module *m;
} tl_label_info;
void tl_labels_count(tl_module *m, tl_func *f, tl_label_info *li);
/* Counting in a pass's own post-order walk instead: init (all zero; false
 * when out of memory, nothing held) or reset, then note each branch node as
 * it is visited; a label's count is complete when its construct is. */
bool tl_labels_init(const tl_module *m, tl_func *f, tl_label_info *li);
void tl_labels_reset(tl_label_info *li);
void tl_labels_note(tl_label_info *li, const tl_expr *e);
void tl_labels_free(tl_label_info *li);
void tl_labels_retarget(tl_module *m, tl_func *f, const uint32_t *map);

/* coalesce_locals.c — liveness over f's control flow: live[l] is set for
 * every local live just after a node probe(ctx, node) accepts (a call: it
 * is asked at calls and throws), and for tuple locals (not analysed).
 * False when out of memory (live then incomplete). */
bool tl_locals_live_after(tl_module *m, tl_func *f, bool (*probe)(void *ctx, const tl_expr *e), void *ctx,
                          uint8_t *live);

/* type_pass.c — a closed-world type pass: nothing without --closed-world,
 * GC code and defined types (nor, when keeps_signatures, with an imported
 * or exported table); else edit(ctx, rw) edits a fresh rewriter and applies
 * it (NULL: apply with no edits). */
typedef tl_status (*tl_type_edit_fn)(tl_pass_ctx *ctx, tl_type_rewrite *rw);
tl_status tl_type_pass_run(tl_pass_ctx *ctx, bool keeps_signatures, tl_type_edit_fn edit);

/* struct_values.c — shared by the GC field passes (gsi, cfp). */
/* The canonical index of the struct type reference type t names, or
 * TL_NO_INDEX (not a reference to a defined struct type: none, abstract,
 * unreachable); the canonical index of a type's declared supertype. */
uint32_t tl_struct_of(const tl_module *m, tl_type t);
uint32_t tl_struct_super(const tl_module *m, uint32_t canon);
/* The values a field may hold: nothing written yet, the zero of its type,
 * one constant (e: a const, ref.null, ref.func, ref.i31 of a const, or
 * global.get of an immutable global), or anything. */
enum { TL_PCV_NONE, TL_PCV_ZERO, TL_PCV_EXPR, TL_PCV_MANY };
typedef struct { uint8_t kind; const tl_expr *e; } tl_pcv;
void tl_pcv_note(const tl_module *m, tl_pcv *v, const tl_expr *value); /* a write of value */
void tl_pcv_join(tl_pcv *a, const tl_pcv *b);
bool tl_pcv_eq(const tl_pcv *a, const tl_pcv *b);
/* v (ZERO or EXPR) as read by get_op (struct.get/_s/_u) of field fld, in
 * f; NULL when it cannot be built (a global in a packed field, a value
 * that does not fit the field). A ref.func made sets reffed[func]. */
tl_expr *tl_pcv_make(tl_module *m, tl_func *f, const tl_pcv *v, const tl_field *fld, int get_op,
                     uint8_t *reffed);
/* (block (drop (ref.as_non_null ref)) value): value where a read of ref
 * was, keeping its trap on null (no ref.as_non_null if ref is non-null;
 * just value if ref is also free of effects). */
tl_expr *tl_make_checked(tl_module *m, tl_func *f, tl_expr *ref, tl_expr *value);
/* Adds a declarative segment for the functions of reffed[] no segment or
 * export declares (a ref.func in code needs one); reffed is scratch. */
void tl_declare_funcs(tl_module *m, uint8_t *reffed);
/* tl_walk_post over the constant expressions: global and table inits,
 * segment offsets and items. */
void tl_walk_const_exprs(tl_module *m, tl_visit_fn visit, void *ctx);

/* func_edit.c — index-space edits that renumber every reference. */
void tl_module_remap_funcs(tl_module *m, const uint32_t *remap); /* old -> new index */
/* A function import placed after the other imports (defined functions
 * shift up by one); its index, TL_NO_INDEX when out of memory. */
uint32_t tl_module_add_func_import(tl_module *m, const char *module, const char *base,
                                   uint32_t type, const char *name);
/* The function import env.NAME: the first there is, else one of type
 * `type` added (tl_module_add_func_import); TL_NO_INDEX when out of memory,
 * or when there is none and type is TL_NO_INDEX (only a lookup). */
uint32_t tl_module_env_import(tl_module *m, const char *name, uint32_t type);
/* A global import (immutable) placed after the other global imports
 * (defined globals shift up by one); its index, TL_NO_INDEX when out of
 * memory. */
uint32_t tl_module_add_global_import(tl_module *m, const char *module, const char *base,
                                     tl_type type, const char *name);
/* A defined function of type `type` appended, its params as its first
 * locals, an empty body block (label 0); its index. */
uint32_t tl_module_add_func_defined(tl_module *m, uint32_t type, const char *name);
/* Remove the functions / globals with drop[i] set (nothing may still refer
 * to them); false when out of memory (nothing changed). */
bool tl_module_remove_funcs(tl_module *m, const uint8_t *drop);
bool tl_module_remove_globals(tl_module *m, const uint8_t *drop);
void tl_module_remove_export(tl_module *m, uint32_t i);
/* Global i moves to remap[i] (a permutation that keeps imports first and
 * every init after the globals it reads); false when out of memory
 * (nothing changed). */
bool tl_module_permute_globals(tl_module *m, const uint32_t *remap);
int32_t tl_module_find_export(const tl_module *m, const char *name); /* -1: none */
uint32_t tl_module_find_func_named(const tl_module *m, const char *name); /* name section; TL_NO_INDEX */
tl_expr *tl_make_call(tl_module *m, tl_func *f, uint32_t callee, tl_expr **args, uint32_t n);
/* The local e writes: a set's or tee's, or the payload local a catch arm
 * stores on entry (ir.h, exception handling); TL_NO_INDEX if none. */
static inline uint32_t tl_written_local(const tl_expr *e) {
  if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) return e->imm.index;
  return e->op == TL_OP_CATCH ? e->imm.idx2.a : TL_NO_INDEX;
}

/* drop_operands.c — e without the operands remove[i] marks; their
 * effects and the others' run in the same order (fresh locals of f).
 * Returns what replaces e (e itself, or a block ending in it, or the drops
 * of all operands when one diverges); NULL, e unchanged, when a removed
 * operand has effects and there is no function to hold locals (f NULL).
 * The caller refinalizes what e's type change affects. */
tl_expr *tl_expr_remove_operands(tl_module *m, tl_func *f, tl_expr *e, const uint8_t *remove);

/* The loads and stores of whole values as Binaryen's Load/Store nodes
 * model them: plain, atomic, and v128.load/store (not the SIMD lane,
 * splat, zero and extending forms). */
static inline bool tl_is_load(int op) {
  const tl_opinfo *o = &tl_ops[op];
  return (o->pfx == 0 && o->code >= 0x28 && o->code <= 0x35) || (o->pfx == 0xFE && o->code >= 0x10 && o->code <= 0x16) ||
         (o->pfx == 0xFD && o->code == 0);
}
static inline bool tl_is_store(int op) {
  const tl_opinfo *o = &tl_ops[op];
  return (o->pfx == 0 && o->code >= 0x36 && o->code <= 0x3e) || (o->pfx == 0xFE && o->code >= 0x17 && o->code <= 0x1d) ||
         (o->pfx == 0xFD && o->code == 11);
}
/* The import env.NAME of type (params[0..np)) -> result, found or added
 * (beside one of that name and another type: a pass that ran before
 * memory64-lowering or legalize-js-interface). */
uint32_t tl_module_env_import_sig(tl_module *m, const char *name, const tl_type *params, uint32_t np,
                                  tl_type result);

#endif
