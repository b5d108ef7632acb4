/* tilt.h — the public C API of tilt, a WebAssembly optimizer and compiler.
 * This is the one header a toolchain includes; it is self-contained.
 * Handles are opaque. Functions that read input return a tl_status and fill
 * a tl_error (message plus byte offset); the library never prints, exits or
 * aborts on bad input. A module owns everything made for it: expressions
 * built with the tl_build_* functions live until tl_module_free. */
#ifndef TILT_H
#define TILT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */
typedef enum {
  TL_OK = 0,
  TL_E_MALFORMED,    /* bytes that are not a wasm binary */
  TL_E_INVALID,      /* a well-formed module that does not validate */
  TL_E_FEATURE,      /* uses a feature that is not enabled */
  TL_E_LIMIT,        /* exceeds an implementation limit */
  TL_E_NOMEM,        /* out of memory */
  TL_E_UNSUPPORTED,  /* valid, but something tilt does not handle yet */
  TL_E_IO,           /* file system */
  TL_E_TRAP,         /* execution trapped */
  TL_E_LINK,         /* instantiation: an import could not be resolved */
  TL_E_EXHAUSTED,    /* execution ran out of call stack or fuel */
  TL_E_EXIT,         /* the program asked to exit (WASI proc_exit) */
  TL_E_EXCEPTION     /* execution ended in an uncaught wasm exception */
} tl_status;

#define TL_NO_OFFSET UINT64_MAX
#define TL_NO_FUNC UINT32_MAX

typedef struct {
  tl_status code;
  uint64_t offset;      /* byte offset in the input, or TL_NO_OFFSET */
  uint32_t func_index;  /* function, or TL_NO_FUNC */
  uint32_t line, col;   /* text input: 1-based line and column of offset; 0 if none */
  char msg[160];
} tl_error;

/* ------------------------------------------------------------- features */
/* Feature bits (same values as the library's internal ones). */
#define TL_FEATURE_MUTABLE_GLOBALS     (1u << 0)
#define TL_FEATURE_SIGN_EXT            (1u << 1)
#define TL_FEATURE_NONTRAPPING_FPTOINT (1u << 2)
#define TL_FEATURE_BULK_MEMORY         (1u << 3)
#define TL_FEATURE_MULTIVALUE          (1u << 4)
#define TL_FEATURE_REFERENCE_TYPES     (1u << 5)
#define TL_FEATURE_SIMD                (1u << 6)
#define TL_FEATURE_TAIL_CALL           (1u << 7)
#define TL_FEATURE_EXTENDED_CONST      (1u << 8)
#define TL_FEATURE_THREADS             (1u << 9)
#define TL_FEATURE_EXCEPTION_HANDLING  (1u << 10) /* legacy try/catch and exnref's try_table */
#define TL_FEATURE_RELAXED_SIMD        (1u << 11) /* needs TL_FEATURE_SIMD too */
#define TL_FEATURE_MULTI_MEMORY        (1u << 12)
#define TL_FEATURE_MEMORY64            (1u << 13) /* 64-bit memories and tables */
#define TL_FEATURE_GC                  (1u << 14) /* typed function references and GC */
#define TL_FEATURES_ALL                ((1u << 15) - 1)
/* For tl_read_options.features, where 0 means the default set: no features
 * at all (plain MVP, --mvp-features). A bit outside TL_FEATURES_ALL. */
#define TL_FEATURES_MVP                (1u << 31)

/* The default set: what wasm-opt enables without flags. */
uint32_t tl_features_default_set(void);
/* "sign-ext", "simd", ... as wasm-opt spells them; 0 if unknown. */
uint32_t tl_feature_from_name(const char *name);
const char *tl_feature_to_name(uint32_t single_feature);

/* --------------------------------------------------------------- modules */
typedef struct tl_module tl_module;

typedef struct {
  uint32_t features;    /* enabled features; 0 means tl_features_default_set() */
  bool detect_features; /* enable whatever the module uses (--detect-features) */
  bool no_validate;     /* skip validation after reading */
  bool no_body_bytes;   /* keep no copy of each body's bytes (f->code, which only
                           the JIT compiles): for callers that never JIT */
  bool lazy_bodies;     /* validate each body from its bytes and keep them, making
                           no IR until something needs it (a pass, the printer,
                           the interpreter, a C API call on the body): a read and
                           write with no passes (or only ones that leave bodies
                           alone) copies the bodies as they came. Off when a
                           source map is given, the name section names labels,
                           or detect_features is set */
  bool borrow_bytes;    /* with lazy_bodies: a lazy body points into the bytes
                           given instead of a copy of them; the caller keeps
                           them alive and unchanged until the module is freed
                           (their pages may be given back meanwhile if they can
                           come back unchanged, as a file mapping's can).
                           Ignored for text, whose binary is tilt's own */
  uint32_t threads;     /* threads for decoding and validating large modules'
                           bodies (also kept for tl_module_validate later); 0 =
                           one per core; the module is the same for any count */
  const char *source_map; /* a source map of the binary (JSON, as wasm-opt's
                           --input-source-map reads): its locations go to the
                           IR's nodes, for tl_write_options.source_map */
  size_t source_map_size;
  bool dwarf;           /* keep DWARF right (wasm-opt -g with .debug_* sections):
                           each node remembers the code address it was read from,
                           for tl_write_options.dwarf. Only for a binary with a
                           .debug_line section and no source_map; bodies are then
                           read serially and not lazily. DWARF 2-4 with 4-byte
                           addresses; malformed or unsupported DWARF (DWARF 5 or
                           64-bit units) fails the read with TL_E_MALFORMED at
                           its offset */
  /* Text input (tl_module_parse_text, tl_module_read_any): if set, called
   * once the text has been turned into binary, before that is read. After
   * it the text is read again only to locate an error the binary reader
   * finds, so a caller that mapped the text from a file can give back its
   * pages here (madvise MADV_DONTNEED): the peak memory is then that of the
   * larger step, not of both. */
  void (*on_text_parsed)(void *user, const char *text, size_t size);
  /* Text input, while it is read: the reader goes over the text front to
   * back a few times (lexing, then the parser's passes), and every 64 MB or
   * so calls this with how far the current pass has come: it does not read
   * text[0, done) again in this pass. A caller that mapped the text may
   * give those pages back (madvise MADV_DONTNEED); a later pass faults them
   * in again. With it, a huge text stays resident only a window at a time. */
  void (*on_text_window)(void *user, const char *text, size_t done);
  void *user;           /* for on_text_parsed and on_text_window */
} tl_read_options;

typedef struct {
  bool debug_names;     /* write the name section (-g) */
  bool strip_custom;    /* drop custom sections other than names */
  bool optimize_stack;  /* optimize the stack code as written (Binaryen's Stack IR:
                           dead code, unneeded blocks, local.set/get pairs the
                           stack can carry); tilt-opt sets it at -O2+ or -Os/-Oz */
  uint32_t threads;     /* threads for encoding large modules' bodies; 0 = one
                           per core (the output is the same for any count) */
  char **source_map;    /* if set: gets the output's source map (JSON, as wasm-opt's
                           --output-source-map writes; malloc'd, NUL-terminated,
                           the caller frees it) from the nodes' locations, which
                           tl_read_options.source_map gave them; bodies are then
                           encoded on one thread */
  const char *source_map_url; /* if set: a sourceMappingURL section naming the map,
                           after the names (it replaces the module's own) */
  bool dwarf;           /* a module read with tl_read_options.dwarf: rewrite its
                           .debug_line from the nodes' addresses and map the code
                           addresses of .debug_info, .debug_ranges and .debug_loc
                           to the new code (.debug_aranges is dropped); bodies are
                           then encoded on one thread and declared locals keep
                           their order (DWARF names locals by index). Without it,
                           or for a module read without dwarf, .debug_* are
                           copied as is */
} tl_write_options;

/* Out of memory: every call below returns TL_E_NOMEM (or NULL, or the
 * failure value of a builder, whose tl_module_last_error then says "out of
 * memory") and leaves nothing it allocated behind; it never aborts. A
 * module a call that modifies it (passes, builders) failed on for want of
 * memory can only be freed. The execution API (stores, instances,
 * invoking) returns TL_E_NOMEM from instantiation and calls as well. */

/* Reads a binary module. On failure returns NULL and fills *err. */
tl_module *tl_module_read(const uint8_t *bytes, size_t size, const tl_read_options *opt,
                          tl_error *err);
/* Reads a module in the text format (a .wat file: "(module ...)" or its
 * fields alone). On failure returns NULL and fills *err: errors have line
 * and col (1-based) and the byte offset in text; a validation error has
 * those of the instruction it is about (a block's end: its closing
 * parenthesis), or none when it is about no instruction (an index space,
 * a section). */
tl_module *tl_module_parse_text(const char *text, size_t size, const tl_read_options *opt,
                                tl_error *err);
/* True if bytes start with the binary magic "\0asm". */
bool tl_is_binary(const uint8_t *bytes, size_t size);
/* Reads a binary module, or a text one when the bytes are not binary
 * (non-empty, no "\0asm" magic and no NUL byte; else the binary reader's
 * error, with its offset). */
tl_module *tl_module_read_any(const uint8_t *bytes, size_t size, const tl_read_options *opt,
                              tl_error *err);
/* Writes a binary module into a malloc'd buffer the caller frees. */
tl_status tl_module_write(tl_module *m, const tl_write_options *opt, uint8_t **out,
                          size_t *out_size, tl_error *err);
/* tl_module_write, then tl_module_free(m), on failure too: m is gone after
 * the call. Each function's body is freed as soon as its bytes are encoded,
 * so the peak memory is not the whole IR plus the output: for tools that
 * write as their last step. The bytes are the same as tl_module_write's. */
tl_status tl_module_write_and_free(tl_module *m, const tl_write_options *opt, uint8_t **out,
                                   size_t *out_size, tl_error *err);
/* Validates the module (context-free IR validation). */
tl_status tl_module_validate(tl_module *m, tl_error *err);
/* Prints the module as folded text into a malloc'd NUL-terminated string
 * (NULL if out of memory). */
char *tl_module_print(tl_module *m);
void tl_module_free(tl_module *m);
uint32_t tl_module_features(const tl_module *m);
void tl_module_set_features(tl_module *m, uint32_t features);

/* ====================================================== building modules */
/* Building a module from scratch, for toolchains that emit wasm (the same
 * job as Binaryen's C API). Everything built belongs to the module and lives
 * until tl_module_free.
 *
 * Order of work:
 *   1. tl_module_create, tl_module_set_features, tl_add_type.
 *   2. Imports (tl_add_*_import) before any defined item of the same kind:
 *      indices are imports first, and an index, once returned, never
 *      changes. Adding an import after a defined item of its kind fails.
 *   3. Globals (global.get/set are typed by them), and tl_add_function(...,
 *      body NULL) for every function (so calls between them can be built).
 *   4. Per function: tl_new_label, the tl_build_* calls, then
 *      tl_function_set_body.
 *   5. Memory, tables, segments, exports, start (at any point; a table
 *      before building a table.get of it); then tl_module_validate and
 *      tl_module_write. The module may also be one tl_module_read made.
 *
 * Errors: nothing here aborts, prints or exits on bad arguments. A call that
 * fails returns NULL (expressions), TL_INVALID_INDEX (indices and labels),
 * TL_TYPE_INVALID (types) or a tl_status other than TL_OK, and records why in
 * tl_module_last_error(m). Builders check the structure the IR needs: the
 * number of operands, immediates' ranges (lanes, alignment), labels, and
 * every index a node's type depends on: the callee of call, the type of
 * call_indirect, globals, locals, and the table of table.get. Other indices
 * in expressions (tables, memories, data and element segments) are not
 * checked when built, so code may be built before those are declared;
 * operand types are not checked either: tl_module_validate reports both. */

/* Value types. Basic types are these constants; tuple types (for
 * multi-value) come from tl_build_tuple and belong to one module, as do
 * the typed references of gc (e.g. ref.func's (ref $t) in a module with
 * the gc feature): compare those with tl_type_is_subtype. */
typedef uint32_t tl_type_t;
#define TL_TYPE_NONE        0u  /* no value */
#define TL_TYPE_UNREACHABLE 1u  /* the type of code that does not fall through */
#define TL_TYPE_I32         2u
#define TL_TYPE_I64         3u
#define TL_TYPE_F32         4u
#define TL_TYPE_F64         5u
#define TL_TYPE_V128        6u
#define TL_TYPE_FUNCREF     7u
#define TL_TYPE_EXTERNREF   8u
#define TL_TYPE_EXNREF      9u  /* (ref null exn), exception-handling */
#define TL_TYPE_AUTO        0xfffffffeu  /* block result: whatever its contents give */
#define TL_TYPE_INVALID     0xffffffffu  /* returned on error */

#define TL_INVALID_INDEX    UINT32_MAX   /* returned on error */

/* An expression: a node of the module's tree IR. Builders return it typed
 * (finalized) and owned by the module. Each node may be used once: as the
 * child of one node, or as one body, initializer or offset. Nodes are built
 * bottom-up, so a labeled block, loop or if is built after the branches to
 * its label; its type counts those branches (build each branch only where
 * it is used). tl_function_set_body re-types the whole body anyway. */
typedef struct tl_expr *tl_expr_ref;

/* Labels are per function. tl_new_label(m, func) returns a fresh label of
 * function func; it is then given to the one block, loop or if it names
 * (its definition) and to the br, br_if and br_table that target it. A
 * branch to a block or if jumps past its end; to a loop, to its start.
 * TL_LABEL_NONE: a construct without a label (not a branch target). */
typedef uint32_t tl_label_t;
#define TL_LABEL_NONE UINT32_MAX

/* Why the last failing call of this module failed (code TL_OK if none
 * failed yet). Successful calls leave it unchanged. */
const tl_error *tl_module_last_error(const tl_module *m);

/* An empty module with the default features (tl_features_default_set());
 * NULL if out of memory. Free it with tl_module_free. */
tl_module *tl_module_create(void);

/* ---- types */
/* A tuple of n basic value types (i32 ... externref); n == 0 gives
 * TL_TYPE_NONE, n == 1 gives types[0]. Interned: equal tuples are equal
 * numbers. TL_TYPE_INVALID if a type is not a basic value type. */
tl_type_t tl_build_tuple(tl_module *m, const tl_type_t *types, uint32_t n);
/* Whether a value of type a may stand where b is wanted (a <: b; equal
 * types, a reference to a function type under funcref, ...). */
bool tl_type_is_subtype(const tl_module *m, tl_type_t a, tl_type_t b);
/* The index of the function type params -> results (each TL_TYPE_NONE, a
 * basic value type or a tuple of this module); interned: the same pair
 * gives the same index. TL_INVALID_INDEX on a bad type. */
uint32_t tl_add_type(tl_module *m, tl_type_t params, tl_type_t results);

/* ---- functions */
/* Adds a defined function of type type_index and returns its index. Its
 * locals are the parameters (one per value of the params type) followed by
 * var_types[0..n_vars). name is for the name section (may be NULL). body
 * may be NULL and set later with tl_function_set_body; until then the body
 * is empty. (A body given here can use no labels and no locals of this
 * function, since none could be made for it yet.) */
uint32_t tl_add_function(tl_module *m, const char *name, uint32_t type_index,
                         const tl_type_t *var_types, uint32_t n_vars, tl_expr_ref body);
/* Sets the body of defined function func. A BLOCK is used as the body
 * directly (a branch to its label returns); anything else is wrapped in
 * one. Fails on an import, or if body uses a local or label that func does
 * not have (nodes built for another function). Re-finalizes the body. */
tl_status tl_function_set_body(tl_module *m, uint32_t func, tl_expr_ref body);
/* Appends a local (var) of type t to defined function func; its index. */
uint32_t tl_function_add_var(tl_module *m, uint32_t func, tl_type_t t);
/* A fresh label of defined function func (see tl_label_t). */
tl_label_t tl_new_label(tl_module *m, uint32_t func);
/* Imports function module.base with type type_index; its index. Fails once
 * a defined function exists. */
uint32_t tl_add_function_import(tl_module *m, const char *name, const char *module,
                                const char *base, uint32_t type_index);
/* Number of functions, imports included: the next index. */
uint32_t tl_function_count(const tl_module *m);

/* ---- globals, memory, tables */
/* type is a basic value type; init a constant expression (built with func
 * TL_NO_FUNC). Returns the global index. */
uint32_t tl_add_global(tl_module *m, const char *name, tl_type_t type, bool mutable_,
                       tl_expr_ref init);
uint32_t tl_add_global_import(tl_module *m, const char *name, const char *module,
                              const char *base, tl_type_t type, bool mutable_);
/* Defines memory 0 (or redefines it) with sizes in 64 KiB pages; shared
 * needs has_max. export_name, if not NULL, also exports it. Fails if memory
 * 0 is imported. */
tl_status tl_set_memory(tl_module *m, uint32_t initial, uint32_t maximum, bool has_max,
                        bool shared, const char *export_name);
/* Imports memory 0; fails if there is already a memory. */
tl_status tl_add_memory_import(tl_module *m, const char *module, const char *base,
                               uint32_t initial, uint32_t maximum, bool has_max, bool shared);
/* Adds a defined memory after the existing ones (a second one needs the
 * multimemory feature to validate); returns its index, or TL_INVALID_INDEX
 * (see tl_module_last_error). */
uint32_t tl_add_memory(tl_module *m, uint32_t initial, uint32_t maximum, bool has_max, bool shared);
/* elem_type is TL_TYPE_FUNCREF or TL_TYPE_EXTERNREF. Returns the table
 * index; a second table needs the reference-types feature. */
uint32_t tl_add_table(tl_module *m, tl_type_t elem_type, uint32_t initial, uint32_t maximum,
                      bool has_max);
uint32_t tl_add_table_import(tl_module *m, const char *module, const char *base,
                             tl_type_t elem_type, uint32_t initial, uint32_t maximum,
                             bool has_max);
/* memory64 / table64: a defined 64-bit memory (limits up to 2^48 pages) or
 * table (u64 limits), after the existing ones; accesses take i64 addresses,
 * memargs offsets up to 2^64-1. Needs the memory64 feature to validate. */
uint32_t tl_add_memory64(tl_module *m, uint64_t initial, uint64_t maximum, bool has_max, bool shared);
uint32_t tl_add_table64(tl_module *m, tl_type_t elem_type, uint64_t initial, uint64_t maximum,
                        bool has_max);

/* ---- exports, segments, start */
#define TL_EXPORT_FUNC   0u  /* same numbers as the binary format */
#define TL_EXPORT_TABLE  1u
#define TL_EXPORT_MEMORY 2u
#define TL_EXPORT_GLOBAL 3u
/* Exports item internal_index of kind as external_name. (Duplicate names
 * are reported by tl_module_validate.) */
tl_status tl_add_export(tl_module *m, uint32_t kind, uint32_t internal_index,
                        const char *external_name);
/* Element segments of functions (funcref); each returns the segment index.
 * Active: written into table (which must exist) at offset (an i32
 * constant expression).
 * Passive: for table.init. Declarative: declares functions that ref.func
 * names without putting them in a table. */
uint32_t tl_add_active_element_segment(tl_module *m, uint32_t table, tl_expr_ref offset,
                                       const uint32_t *funcs, uint32_t n);
uint32_t tl_add_passive_element_segment(tl_module *m, const uint32_t *funcs, uint32_t n);
uint32_t tl_add_declarative_element_segment(tl_module *m, const uint32_t *funcs, uint32_t n);
/* A data segment (bytes are copied). Active: into memory at offset (an i32
 * constant expression); the memory must exist. Passive (active false):
 * memory and offset are ignored; for memory.init. Returns its index. */
uint32_t tl_add_data_segment(tl_module *m, bool active, uint32_t memory, tl_expr_ref offset,
                             const void *bytes, uint32_t size);
tl_status tl_set_start(tl_module *m, uint32_t func);

/* ---- expressions: the generic builder */
/* Instructions are named by their text-format mnemonic ("i32.add",
 * "v128.load8_lane", "i32.atomic.rmw.cmpxchg", ...). tl_op_lookup gives the
 * opcode number of a name (-1 if unknown); the numbers are only meaningful
 * to this build of the library, so look them up rather than storing them.
 * "select" is the untyped select (tl_build_select with a type builds the
 * typed one). tilt's multi-value pseudo instructions
 * are "tuple.make" and "tuple.extract". */
int tl_op_lookup(const char *text);
const char *tl_op_name(int op);  /* NULL if op is out of range */

/* Immediates for tl_build_op; which fields an instruction uses:
 *   value    i32.const, i64.const; raw bits of f32.const, f64.const
 *   bytes    v128.const; i8x16.shuffle lane indices (each < 32)
 *   index    call, return_call, ref.func: function; local.*: local;
 *            global.*: global; table.get/set/size/grow/fill: table;
 *            loads, stores, atomics, memory.size/grow/fill: memory;
 *            data.drop: data segment; elem.drop: element segment;
 *            tuple.extract: element; call_indirect: type;
 *            memory.init: data segment; table.init: element segment;
 *            memory.copy, table.copy: destination
 *   index2   call_indirect: table; memory.init: memory; table.init: table;
 *            memory.copy, table.copy: source
 *   label    block, loop, if: its label or TL_LABEL_NONE; br, br_if: the
 *            target; br_table: the default target
 *   targets, ntargets   br_table targets
 *   offset, align       memory accesses; align in bytes (1, 2, 4, ...),
 *                       0 for the natural alignment
 *   lane     extract/replace_lane and the *_lane memory accesses
 *   type     ref.null (funcref or externref); typed select; ref.test,
 *            ref.cast and br_on_cast(_fail) (with label): the target type
 *   index, index2  GC: struct.* (type, field), array.new_fixed (type, count),
 *                  array.*_data/_elem (type, segment), array.copy (dst, src)
 * Start from TL_IMM_ARGS_INIT (all zero, label TL_LABEL_NONE). */
typedef struct {
  int64_t value;
  uint8_t bytes[16];
  uint32_t index, index2;
  tl_label_t label;
  const tl_label_t *targets;
  uint32_t ntargets;
  uint64_t offset;
  uint32_t align;
  uint32_t lane;
  tl_type_t type;
} tl_imm_args;
#define TL_IMM_ARGS_INIT {0, {0}, 0, 0, TL_LABEL_NONE, NULL, 0, 0, 0, 0, 0}

/* Builds instruction op with children kids[0..nkid) in the IR's order
 * (operands in stack order; block/loop: their instructions; if: condition,
 * then, else (nkid 2: no else); br: [value]; br_if, br_table: [value,]
 * condition/index; call: arguments; call_indirect: arguments, then the
 * table index operand). func is the function the node is for, needed by
 * local.* and labels; use TL_NO_FUNC outside functions (global initializers,
 * segment offsets). imm may be NULL (all zero, no label). The kids array is
 * copied. NULL on error. Every builder below is a shorthand for this one. */
tl_expr_ref tl_build_op(tl_module *m, uint32_t func, int op, const tl_expr_ref *kids,
                        uint32_t nkid, const tl_imm_args *imm);

/* ---- expressions: shorthands */
tl_expr_ref tl_build_const_i32(tl_module *m, int32_t v);
tl_expr_ref tl_build_const_i64(tl_module *m, int64_t v);
tl_expr_ref tl_build_const_f32(tl_module *m, float v);
tl_expr_ref tl_build_const_f64(tl_module *m, double v);
tl_expr_ref tl_build_const_f32_bits(tl_module *m, uint32_t bits);
tl_expr_ref tl_build_const_f64_bits(tl_module *m, uint64_t bits);
tl_expr_ref tl_build_const_v128(tl_module *m, const uint8_t bytes[16]);
/* Instructions without immediates, by name: "i32.eqz", "i64.add",
 * "f32x4.mul", "v128.bitselect", "i8x16.shl", "drop", "ref.is_null", ... */
tl_expr_ref tl_build_unary(tl_module *m, const char *op, tl_expr_ref a);
tl_expr_ref tl_build_binary(tl_module *m, const char *op, tl_expr_ref a, tl_expr_ref b);
tl_expr_ref tl_build_ternary(tl_module *m, const char *op, tl_expr_ref a, tl_expr_ref b,
                             tl_expr_ref c);
tl_expr_ref tl_build_nop(tl_module *m);
tl_expr_ref tl_build_unreachable(tl_module *m);
tl_expr_ref tl_build_drop(tl_module *m, tl_expr_ref value);
/* select: if_true if cond is nonzero, else if_false. type TL_TYPE_AUTO
 * gives the untyped select (the typed one for reference values). */
tl_expr_ref tl_build_select(tl_module *m, tl_expr_ref cond, tl_expr_ref if_true,
                            tl_expr_ref if_false, tl_type_t type);

/* Control. label is TL_LABEL_NONE or a label of func (each label names one
 * construct). result_type is TL_TYPE_AUTO, or the type the block must have:
 * a block whose contents give another type (other than unreachable) is an
 * error. An if's type follows from its arms; else_ may be NULL. */
tl_expr_ref tl_build_block(tl_module *m, uint32_t func, tl_label_t label,
                           const tl_expr_ref *kids, uint32_t n, tl_type_t result_type);
tl_expr_ref tl_build_loop(tl_module *m, uint32_t func, tl_label_t label,
                          const tl_expr_ref *kids, uint32_t n, tl_type_t result_type);
tl_expr_ref tl_build_if(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref cond,
                        tl_expr_ref then_, tl_expr_ref else_);
/* value may be NULL (a branch without a value). */
tl_expr_ref tl_build_br(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref value);
tl_expr_ref tl_build_br_if(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref cond,
                           tl_expr_ref value);
tl_expr_ref tl_build_br_table(tl_module *m, uint32_t func, const tl_label_t *labels,
                              uint32_t n, tl_label_t default_label, tl_expr_ref index,
                              tl_expr_ref value);
tl_expr_ref tl_build_return(tl_module *m, tl_expr_ref value);  /* value may be NULL */
/* Calls. Several results come back as one tuple value (tuple.extract). */
tl_expr_ref tl_build_call(tl_module *m, uint32_t target, const tl_expr_ref *args, uint32_t n);
tl_expr_ref tl_build_call_indirect(tl_module *m, uint32_t table, uint32_t type_index,
                                   tl_expr_ref target, const tl_expr_ref *args, uint32_t n);
/* Tail calls (tail-call feature). */
tl_expr_ref tl_build_return_call(tl_module *m, uint32_t target, const tl_expr_ref *args,
                                 uint32_t n);
tl_expr_ref tl_build_return_call_indirect(tl_module *m, uint32_t table, uint32_t type_index,
                                          tl_expr_ref target, const tl_expr_ref *args,
                                          uint32_t n);

/* Variables. */
tl_expr_ref tl_build_local_get(tl_module *m, uint32_t func, uint32_t index);
tl_expr_ref tl_build_local_set(tl_module *m, uint32_t func, uint32_t index, tl_expr_ref value);
tl_expr_ref tl_build_local_tee(tl_module *m, uint32_t func, uint32_t index, tl_expr_ref value);
tl_expr_ref tl_build_global_get(tl_module *m, uint32_t index);
tl_expr_ref tl_build_global_set(tl_module *m, uint32_t index, tl_expr_ref value);

/* Memory accesses of memory 0, by name; align in bytes, 0 = natural.
 * load: one operand (address): "i32.load8_u", "v128.load32_zero",
 *   "i64.atomic.load", ...
 * store: address and value: "f64.store", "v128.store", also the atomic
 *   read-modify-writes ("i32.atomic.rmw.add") and "memory.atomic.notify",
 *   which return a value.
 * atomic_rmw3: address and two more: "i32.atomic.rmw.cmpxchg" (expected,
 *   replacement), "memory.atomic.wait32" (expected, timeout).
 * For another memory, use tl_build_op (imm.index). */
tl_expr_ref tl_build_load(tl_module *m, const char *op, uint64_t offset, uint32_t align,
                          tl_expr_ref ptr);
tl_expr_ref tl_build_store(tl_module *m, const char *op, uint64_t offset, uint32_t align,
                           tl_expr_ref ptr, tl_expr_ref value);
tl_expr_ref tl_build_atomic_rmw3(tl_module *m, const char *op, uint64_t offset,
                                 tl_expr_ref ptr, tl_expr_ref a, tl_expr_ref b);
tl_expr_ref tl_build_atomic_fence(tl_module *m);
tl_expr_ref tl_build_memory_size(tl_module *m, uint32_t memory);
tl_expr_ref tl_build_memory_grow(tl_module *m, uint32_t memory, tl_expr_ref delta);
tl_expr_ref tl_build_memory_fill(tl_module *m, uint32_t memory, tl_expr_ref dst,
                                 tl_expr_ref value, tl_expr_ref size);
tl_expr_ref tl_build_memory_copy(tl_module *m, uint32_t dst_memory, uint32_t src_memory,
                                 tl_expr_ref dst, tl_expr_ref src, tl_expr_ref size);
tl_expr_ref tl_build_memory_init(tl_module *m, uint32_t segment, uint32_t memory,
                                 tl_expr_ref dst, tl_expr_ref offset, tl_expr_ref size);
tl_expr_ref tl_build_data_drop(tl_module *m, uint32_t segment);

/* Tables and references. */
tl_expr_ref tl_build_table_get(tl_module *m, uint32_t table, tl_expr_ref index);
tl_expr_ref tl_build_table_set(tl_module *m, uint32_t table, tl_expr_ref index,
                               tl_expr_ref value);
tl_expr_ref tl_build_table_size(tl_module *m, uint32_t table);
tl_expr_ref tl_build_table_grow(tl_module *m, uint32_t table, tl_expr_ref value,
                                tl_expr_ref delta);
tl_expr_ref tl_build_table_fill(tl_module *m, uint32_t table, tl_expr_ref dst,
                                tl_expr_ref value, tl_expr_ref size);
tl_expr_ref tl_build_table_copy(tl_module *m, uint32_t dst_table, uint32_t src_table,
                                tl_expr_ref dst, tl_expr_ref src, tl_expr_ref size);
tl_expr_ref tl_build_table_init(tl_module *m, uint32_t segment, uint32_t table,
                                tl_expr_ref dst, tl_expr_ref offset, tl_expr_ref size);
tl_expr_ref tl_build_elem_drop(tl_module *m, uint32_t segment);
tl_expr_ref tl_build_ref_null(tl_module *m, tl_type_t type);
tl_expr_ref tl_build_ref_is_null(tl_module *m, tl_expr_ref value);
tl_expr_ref tl_build_ref_func(tl_module *m, uint32_t func);

/* SIMD lanes (other SIMD instructions: tl_build_unary/binary/ternary,
 * tl_build_load/store, tl_build_const_v128). */
tl_expr_ref tl_build_simd_extract(tl_module *m, const char *op, tl_expr_ref vec, uint8_t lane);
tl_expr_ref tl_build_simd_replace(tl_module *m, const char *op, tl_expr_ref vec, uint8_t lane,
                                  tl_expr_ref value);
tl_expr_ref tl_build_simd_shuffle(tl_module *m, tl_expr_ref a, tl_expr_ref b,
                                  const uint8_t lanes[16]);
/* "v128.load8_lane" ... "v128.store64_lane" on memory 0. */
tl_expr_ref tl_build_simd_mem_lane(tl_module *m, const char *op, uint64_t offset,
                                   uint32_t align, uint8_t lane, tl_expr_ref ptr,
                                   tl_expr_ref vec);

/* Multi-value: several values as one tuple-typed value. */
tl_expr_ref tl_build_tuple_make(tl_module *m, const tl_expr_ref *values, uint32_t n);
tl_expr_ref tl_build_tuple_extract(tl_module *m, tl_expr_ref tuple, uint32_t index);

/* ---- inspecting expressions */
tl_type_t tl_expr_get_type(tl_expr_ref e);
int tl_expr_get_op(tl_expr_ref e);
uint32_t tl_expr_num_kids(tl_expr_ref e);
tl_expr_ref tl_expr_get_kid(tl_expr_ref e, uint32_t i);  /* NULL if out of range */
/* ================================================== end building modules */

/* ---------------------------------------------------------------- passes */
/* Optimization passes are named as wasm-opt names them ("dce", "vacuum",
 * ...). Function passes run in parallel over functions; the output does not
 * depend on the thread count. */
typedef struct {
  uint32_t threads;          /* 0 = one per core */
  bool validate_each;        /* validate after every pass (debugging) */
  uint32_t nargs;            /* --pass-arg KEY@VALUE pairs */
  const char *const *arg_keys;
  const char *const *arg_values;
  /* Called after each pass with its wall time and the IR node count. */
  void (*on_pass_done)(void *user, const char *pass, double seconds, uint64_t nodes);
  void *user;
  /* The levels passes tune themselves by and that -optimizing passes run
   * the function pipeline at (wasm-opt's optimizeLevel / shrinkLevel).
   * tl_module_optimize sets them from its arguments. */
  uint32_t optimize_level, shrink_level;
  bool low_memory_unused;    /* addresses below 1024 are never accessed */
  bool closed_world;         /* wasm-opt's --closed-world: no code outside the module
                                makes or inspects its GC types, so type-changing GC
                                passes may run (the -O pipelines add them) */
  bool gc;                   /* the module uses GC (tl_module_uses_gc): the -O
                                pipelines add Binaryen's GC rows (its
                                features.hasGC() ones); tl_module_optimize sets it */
  bool zero_filled_memory;   /* imported memories start zero-filled too */
  bool preserve_dwarf;       /* the module keeps DWARF (tl_module_has_dwarf): the
                                -O pipelines leave out the passes that would make
                                its variable locations or function structure wrong
                                (tl_pass_invalidates_dwarf), as Binaryen does */
  /* Where passes that report write their text (minify-imports* the
   * old => new name mapping, print-function-map the index:name lines), in
   * order, with `user`; NULL: the text is dropped. */
  void (*on_output)(void *user, const char *text, size_t len);
  /* Called once, with `user`, when the passes have decoded every lazy body
   * (tl_read_options.lazy_bodies; never if none was lazy or some stays
   * lazy): until the module is written nothing reads the bytes the bodies
   * were read from, so a caller that lent them from a file mapping may give
   * their pages back here, and the peak memory is the IR's, not the IR's
   * plus the input's. */
  void (*on_bodies_decoded)(void *user);
} tl_pass_options;

/* After passes ran, the JIT engine cannot instantiate m directly (it
 * compiles the bytes a module was read from): write it and read it back. */
tl_status tl_module_run_passes(tl_module *m, const char *const *names, uint32_t n,
                               const tl_pass_options *opt, tl_error *err);
/* Meta-DCE, as Binaryen's wasm-metadce (emcc runs it at -O3/-Os/-Oz): DCE
 * over a graph the module is part of. graph_json (len bytes) is a JSON
 * array of nodes {"name": N, "reaches": [N...], "root": true,
 * "export": E, "import": [MODULE, BASE]}; the module's functions, globals,
 * tags and exports join it (as func$NAME$K, global$NAME$K, tag$NAME$K,
 * export$E$K). Exports nothing reaches from the roots are removed, then
 * remove-unused-module-elements and reorder-functions run (with opt).
 * *unused: malloc'd, the names of the nodes nothing reaches, one a line,
 * sorted bytewise (NULL on error). Graph errors carry the byte offset in
 * graph_json. */
tl_status tl_module_metadce(tl_module *m, const char *graph_json, size_t len,
                            const tl_pass_options *opt, char **unused, tl_error *err);
/* Emscripten's finalize step, as Binaryen 108's wasm-emscripten-finalize
 * (emcc 3.1.x runs it on every link): see tl_module_emscripten_finalize. */
typedef struct {
  bool standalone;        /* --standalone-wasm: no main rename, no dynCalls,
                             no mainReadsParams key */
  bool no_dyncalls;       /* --no-dyncalls */
  bool dyncalls_i64;      /* --dyncalls-i64: only signatures with i64 */
  bool bigint;            /* --bigint: no legalization at all */
  bool minimal_legalize;  /* --no-legalize-javascript-ffi: dynCall_ exports
                             and invoke_ imports only */
  bool export_originals;  /* --pass-arg legalize-js-interface-export-originals */
  bool keep_dwarf;        /* keep the .debug_* sections as they are */
  bool check_stack_overflow; /* --check-stack-overflow: the stack-check pass */
  bool no_bodies;         /* the caller writes no module: answer as Binaryen
                             does when it reads no function bodies
                             (mainReadsParams 1) */
  uint32_t features;      /* TL_FEATURE_* listed in "features" (Binaryen's:
                             the target_features section's plus flags) */
} tl_emscripten_options;
/* Renames the export __main_argc_argv to main, adds dynCall_* exports,
 * legalizes the JS interface (i64 as i32 pairs), drops DWARF, then takes
 * the EM_ASM and EM_JS strings out of the module and writes the metadata
 * JSON emcc reads (malloc'd, NUL-terminated) to *metadata, byte for byte
 * as Binaryen 108 prints it (metadata NULL: only the module changes). */
tl_status tl_module_emscripten_finalize(tl_module *m, const tl_emscripten_options *o,
                                        const tl_pass_options *opt, char **metadata,
                                        tl_error *err);
/* Binaryen's wasm-ctor-eval (emcc -sEVAL_CTORS): runs the exports ctors[]
 * in order at build time, in the reference interpreter, while each runs to
 * its end without calling an import, trapping or running out of fuel; the
 * memory and mutable globals they leave become the data segments and the
 * globals' initial values, and their exports are removed, or (kept[])
 * name a new function returning the results. *log (malloc'd) tells what
 * happened, as Binaryen prints it ("trying to eval NAME", "  ...success on
 * NAME.", "  ...stopping since ..."). Modules it cannot write back
 * (imported memory, tables or globals, a start function, passive data,
 * table writes) are left unchanged, with the reason in the log. */
typedef struct {
  const char *const *ctors;
  uint32_t nctors;
  const char *const *kept;       /* exports kept after evaluation */
  uint32_t nkept;
  bool ignore_external_input;    /* params are zeros; WASI args/environ empty */
  uint64_t fuel;                 /* instructions per export (0: 10^8) */
} tl_ctor_eval_options;
tl_status tl_module_ctor_eval(tl_module *m, const tl_ctor_eval_options *o, char **log, tl_error *err);
/* --separate-data-segments: the active data segments (constant offsets,
 * none below global_base or overlapping) as one image from global_base,
 * zero-filled between them, into *out (malloc'd); the segments are
 * removed. */
tl_status tl_module_separate_data(tl_module *m, uint64_t global_base, uint8_t **out, size_t *size,
                                  tl_error *err);
/* The registry: name and help of pass i, NULL past the last one. */
const char *tl_pass_name(uint32_t i);
const char *tl_pass_help(uint32_t i);
/* Whether pass i renames imports or exports (minify-imports*): the module
 * then only behaves the same under a host that applies the printed map, so
 * fuzzers and differential tests leave such passes out. */
bool tl_pass_changes_interface(uint32_t i);
/* Whether pass i keeps every module's behaviour: not an interface renamer,
 * nor a pass replacing instructions by traps (remove-relaxed-simd). */
bool tl_pass_keeps_behaviour(uint32_t i);
/* Whether pass `name` breaks what DWARF says beyond code addresses (local
 * indices, parameters, functions): Binaryen's invalidatesDWARF set
 * (coalesce-locals, dae, duplicate-function-elimination, flatten,
 * inlining, local-cse, merge-locals, merge-similar-functions, ssa*). */
bool tl_pass_invalidates_dwarf(const char *name);
/* Whether m was read with tl_read_options.dwarf and has DWARF to keep. */
bool tl_module_has_dwarf(const tl_module *m);
/* Whether m uses typed references or GC anywhere: types, declared value
 * types (globals, tables, segments, locals) or instructions. The JIT does
 * not run such modules yet. */
bool tl_module_uses_gc(const tl_module *m);
/* Runs the default pipeline of -O<opt_level> (0-4); shrink_level 1 is -Os,
 * 2 is -Oz (with opt_level 2), as wasm-opt defines them. */
tl_status tl_module_optimize(tl_module *m, uint32_t opt_level, uint32_t shrink_level,
                             const tl_pass_options *opt, tl_error *err);
/* The pass names of that pipeline, in order, into names[0..cap); returns
 * how many there are. */
uint32_t tl_pipeline(uint32_t opt_level, uint32_t shrink_level, const char **names, uint32_t cap);
/* The same for o's levels and assumptions (--low-memory-unused adds
 * optimize-added-constants, as in wasm-opt). */
uint32_t tl_pipeline_for(const tl_pass_options *o, const char **names, uint32_t cap);
/* The observable behaviour of m as text, for differential testing
 * (wasm-opt --fuzz-exec): every exported function is called in export
 * order with fixed arguments, against stub imports that log their calls;
 * results, traps and import calls are logged. WASI imports get a sandboxed
 * WASI (no files, no host clock or entropy) whose stdout and stderr writes
 * are logged; proc_exit ends the log with "[exit N]". fuel bounds each
 * call (0 = none); a WASI command's _start gets at least 10^9 instructions.
 * A call that runs out of fuel or stack ends the log with a line starting
 * "[stop": what it would have done from there on is unknown, so two logs
 * can only be compared up to it. malloc'd, NUL-terminated. */
char *tl_module_fuzz_exec(tl_module *m, uint64_t fuel);

/* -------------------------------------------------------------- relooper */
/* Structuring a control-flow graph into wasm, for toolchains that lower to
 * basic blocks (the shape of Binaryen's Relooper API). Blocks hold
 * none-typed code; branches are tried in the order added (the first whose
 * condition is true is taken; the branch without condition is the default;
 * a block without branches leaves the structure). A switch block chooses a
 * branch by the value of its condition. Reducible graphs come out with no
 * helper variable and no duplicated code; irreducible regions use node
 * splitting under a budget, else a dispatch loop on the label local. */
typedef struct tl_relooper tl_relooper;
typedef uint32_t tl_rblock;
#define TL_RBLOCK_INVALID UINT32_MAX

tl_relooper *tl_relooper_create(tl_module *m, uint32_t func);
tl_rblock tl_relooper_add_block(tl_relooper *r, tl_expr_ref code);
tl_rblock tl_relooper_add_block_with_switch(tl_relooper *r, tl_expr_ref code, tl_expr_ref condition);
tl_status tl_relooper_add_branch(tl_relooper *r, tl_rblock from, tl_rblock to, tl_expr_ref condition,
                                 tl_expr_ref code);
/* indexes NULL (or n 0): the default branch of a switch block. */
tl_status tl_relooper_add_branch_for_switch(tl_relooper *r, tl_rblock from, tl_rblock to,
                                            const uint32_t *indexes, uint32_t n, tl_expr_ref code);
/* Node splitting copies at most this many expression nodes (0: never). */
void tl_relooper_set_split_budget(tl_relooper *r, uint64_t nodes);
/* Renders the graph from entry into code for a function body (NULL on a
 * bad entry); a relooper renders once. label_local: an i32 local for the
 * dispatch variable, or UINT32_MAX to add one only if needed. */
tl_expr_ref tl_relooper_render(tl_relooper *r, tl_rblock entry, uint32_t label_local);
/* What the render needed: dispatch blocks, label-variable sets, split blocks. */
void tl_relooper_stats(const tl_relooper *r, uint64_t *dispatches, uint64_t *label_sets,
                       uint64_t *split_blocks);
void tl_relooper_dispose(tl_relooper *r);
tl_expr_ref tl_relooper_render_and_dispose(tl_relooper *r, tl_rblock entry, uint32_t label_local);

/* ------------------------------------------------------------- execution */
/* Running modules (reference interpreter now; the JIT later). A store owns
 * every instance, memory, table, global and host function made in it and
 * frees them all in tl_store_free. A module must outlive the stores that
 * instantiate it. A trap is TL_E_TRAP with the spec's reason as the message
 * ("integer divide by zero", "out of bounds memory access", ...); running out
 * of call stack or fuel is TL_E_EXHAUSTED ("call stack exhausted", "fuel
 * exhausted"); linking fails with TL_E_LINK ("unknown import", "incompatible
 * import type"). An exception (exception-handling) that no handler catches
 * ends the call with TL_E_EXCEPTION, "uncaught exception: tag T" where T is
 * the tag's export or import name, else its index in the module that
 * defines it. Traps are never caught by wasm handlers. An exception crosses
 * host functions: a callback that returns the TL_E_EXCEPTION of a call it
 * made rethrows that exception into its wasm caller. */
typedef struct tl_store tl_store;
typedef struct tl_instance tl_instance;
typedef struct tl_linker tl_linker;

/* Value types (same numbers as the library's internal ones). */
enum {
  TL_VAL_I32 = 2, TL_VAL_I64, TL_VAL_F32, TL_VAL_F64, TL_VAL_V128,
  TL_VAL_FUNCREF, TL_VAL_EXTERNREF
};
typedef struct {
  uint32_t type;               /* TL_VAL_* */
  union {
    int32_t i32;
    int64_t i64;
    uint32_t f32;              /* raw bits */
    uint64_t f64;              /* raw bits */
    uint8_t v128[16];          /* little-endian lanes */
    void *ref;                 /* NULL is ref.null; externref is the host's */
  } of;
} tl_value;

/* An external value: what imports resolve to and exports name. */
enum { TL_EXTERNKIND_FUNC = 0, TL_EXTERNKIND_TABLE, TL_EXTERNKIND_MEMORY, TL_EXTERNKIND_GLOBAL,
       TL_EXTERNKIND_TAG };
typedef struct {
  uint32_t kind;               /* TL_EXTERNKIND_* */
  void *ptr;                   /* store object; NULL = none */
} tl_extern;

/* Host functions. A callback reads args, writes results (types set by the
 * caller) and returns TL_OK, or fails: TL_E_TRAP with the reason in err, or
 * TL_E_EXIT (WASI proc_exit). It may read the calling instance's memory. */
typedef struct tl_host_call tl_host_call;
typedef tl_status (*tl_host_fn)(tl_host_call *call, void *user, const tl_value *args,
                                tl_value *results, tl_error *err);
/* Memory 0 of the instance that made the call (NULL if it has none). The
 * pointer is valid until the next call into wasm. */
uint8_t *tl_host_memory(tl_host_call *call, uint64_t *size);
/* How many results the called function has (for callbacks shared by
 * several signatures). */
uint32_t tl_host_call_nresults(tl_host_call *call);

tl_store *tl_store_new(void);
void tl_store_free(tl_store *s);
/* Instruction budget shared by later calls (0 = unlimited; the default).
 * What a call leaves carries over; once exhausted, calls fail at once until
 * the budget is set again. Host functions may call back into wasm. The
 * interpreter counts instructions; the JIT charges each function entry and
 * loop iteration the instructions up to its next check (so the two stop at
 * different points; both fail with TL_E_EXHAUSTED "fuel exhausted"), and
 * runs code without checks while no budget is set. */
void tl_store_set_fuel(tl_store *s, uint64_t fuel);
/* Execution engine of later calls: the interpreter (default) or the x86-64
 * JIT (src/jit). The JIT compiles each function at its first call. SIMD
 * needs SSE4.2 (checked once with cpuid); without it a function using
 * SIMD fails with TL_E_UNSUPPORTED. Relaxed SIMD results on the JIT are
 * x86's choices among those the spec allows (swizzle, min/max, q15mulr and
 * the dot products may differ from the interpreter's deterministic
 * profile; madd is unfused and the truncations saturate on both). */
enum { TL_ENGINE_INTERP = 0, TL_ENGINE_JIT = 1 };
void tl_store_set_engine(tl_store *s, int engine);
/* Relaxed SIMD on the interpreter: the spec's deterministic profile (the
 * default: every choice the first the spec lists) or the native one, the
 * choices the JIT makes on x86 (swizzle as pshufb: an index with bit 7
 * clear reads lane index & 15; min/max as minps/maxps: a < b ? a : b, b
 * on NaN or equal; q15mulr as pmulhrsw: 0x8000 * 0x8000 wraps to 0x8000;
 * the dot products as pmaddubsw with the second operand unsigned, summed
 * with i16 saturation), so that both engines compute the same. Both
 * profiles keep madd unfused and the truncations saturating. The JIT
 * always runs the native profile. */
enum { TL_RELAXED_DETERMINISTIC = 0, TL_RELAXED_NATIVE = 1 };
void tl_store_set_relaxed(tl_store *s, int profile);
/* JIT: compiles every function of inst now (instead of at the first call)
 * on `threads` threads (0: one per core). Optional outputs: the size of the
 * machine code, and the process CPU and wall seconds the compilation took
 * (the instance's first compilation; memory setup and mapping excluded). */
tl_status tl_jit_compile_instance(tl_instance *inst, int threads, size_t *code_bytes,
                                  double seconds[2], tl_error *err);
/* JIT statistics of an instance (all zero before it runs on the JIT). */
typedef struct {
  uint32_t compiled;     /* defined functions with machine code so far: each
                            compiles at its first call, all of them in
                            tl_jit_compile_instance */
  size_t code_bytes;     /* machine code made, eagerly and lazily */
  double cpu, wall;      /* tl_jit_compile_instance: process CPU and wall seconds */
  double critical;       /* its busiest thread's CPU seconds plus the serial
                            part: the wall time it needs on idle cores */
} tl_jit_stats;
void tl_jit_get_stats(tl_instance *inst, tl_jit_stats *out);
/* Process-wide: whether SIMD code the JIT compiles from now on may use AVX
 * (VEX) encodings where the CPU has them (the default), or only SSE4.1/4.2
 * (to test or compare that path). */
void tl_jit_use_avx(bool on);
/* Maximum wasm call depth (default 10000). */
void tl_store_set_max_depth(tl_store *s, uint32_t frames);

tl_extern tl_host_func_new(tl_store *s, const uint32_t *params, uint32_t nparams,
                           const uint32_t *results, uint32_t nresults, tl_host_fn fn,
                           void *user);
tl_extern tl_host_global_new(tl_store *s, tl_value v, bool mut);
tl_extern tl_host_table_new(tl_store *s, uint32_t elem_type, uint32_t min, uint32_t max,
                            bool has_max);
tl_extern tl_host_memory_new(tl_store *s, uint32_t min_pages, uint32_t max_pages,
                             bool has_max);
tl_extern tl_host_shared_memory_new(tl_store *s, uint32_t min_pages, uint32_t max_pages);
/* memory64 / table64: a 64-bit (i64-indexed) memory or table, which only a
 * module importing a 64-bit one matches. Minimums beyond what the store can
 * reserve (8 GiB of memory, 10,000,000 table entries) give a null extern. */
tl_extern tl_host_memory64_new(tl_store *s, uint64_t min_pages, uint64_t max_pages, bool has_max);
tl_extern tl_host_table64_new(tl_store *s, uint32_t elem_type, uint64_t min, uint64_t max,
                              bool has_max);
/* Global value (import or export). */
tl_status tl_global_get(tl_extern g, tl_value *out);

/* A linker maps (module, name) to externs. Later definitions win. */
tl_linker *tl_linker_new(void);
void tl_linker_free(tl_linker *l);
/* An x whose object could not be made (ptr NULL: a tl_host_*_new that ran
 * out of memory or was refused) makes tl_instantiate with l fail with
 * TL_E_NOMEM. */
void tl_linker_define(tl_linker *l, const char *module, const char *name, tl_extern x);
/* The same with names of explicit byte length (wasm names may hold NULs). */
void tl_linker_define_n(tl_linker *l, const char *module, size_t module_len, const char *name,
                        size_t name_len, tl_extern x);
/* Defines every export of inst under the module name (spec "register"). */
void tl_linker_define_instance(tl_linker *l, const char *module, tl_instance *inst);
/* Any function import from `module` that is not defined resolves to a host
 * function of the import's own type calling fn (e.g. WASI ENOSYS stubs). */
void tl_linker_define_fallback(tl_linker *l, const char *module, tl_host_fn fn, void *user);

/* Instantiates m: links imports (l may be NULL), evaluates globals, applies
 * segments, runs the start function. NULL on failure with *err filled
 * (TL_E_LINK, TL_E_TRAP, TL_E_EXHAUSTED, TL_E_UNSUPPORTED). */
tl_instance *tl_instantiate(tl_store *s, tl_module *m, tl_linker *l, tl_error *err);
tl_status tl_instance_export(tl_instance *inst, const char *name, tl_extern *out);
/* The same for a name of name_len bytes (wasm names may hold NULs). */
tl_status tl_instance_export_n(tl_instance *inst, const char *name, size_t name_len, tl_extern *out);
/* Calls an exported (or any) function with typed arguments. results must
 * have room for maxres values; *nres is set to the number of results.
 * References: an externref the host makes is any pointer-sized value with
 * bit 63 clear (user-space pointers and small integers); an externref with
 * bit 63 set, and every reference to a GC object (struct, array, anyref,
 * eqref), comes from the store. The store's GC heap collects only while
 * wasm allocates, with the running code's values, globals, tables and
 * segments as roots: a GC reference the host holds (a result) stays valid
 * until its next call into the store, unless wasm keeps it reachable. */
tl_status tl_invoke(tl_instance *inst, const char *name, const tl_value *args, uint32_t nargs,
                    tl_value *results, uint32_t maxres, uint32_t *nres, tl_error *err);
/* tl_invoke with a name of name_len bytes (wasm names may hold NULs). */
tl_status tl_invoke_n(tl_instance *inst, const char *name, size_t name_len, const tl_value *args,
                      uint32_t nargs, tl_value *results, uint32_t maxres, uint32_t *nres,
                      tl_error *err);
tl_status tl_func_call(tl_store *s, tl_extern fn, const tl_value *args, uint32_t nargs,
                       tl_value *results, uint32_t maxres, uint32_t *nres, tl_error *err);
/* The parameter and result types of a function extern (pointers into the
 * store; counts in *np and *nr). */
void tl_func_type_of(tl_extern fn, const uint32_t **params, uint32_t *np,
                     const uint32_t **results, uint32_t *nr);

#ifdef __cplusplus
}
#endif
#endif
