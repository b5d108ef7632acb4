/* wasmio.h — binary WebAssembly in and out: LEB128, the reader (bytes to
 * tree IR, with feature checks and offsets in every error) and the writer
 * (tree IR to bytes, reifying block types so every output validates). */
#ifndef TILT_WASMIO_H
#define TILT_WASMIO_H

#include "../ir/ir.h"

/* leb128.c — decoders refuse overlong and out-of-range encodings and never
 * read past end; they return the number of bytes consumed, 0 on error. */
size_t tl_leb_read_u32(const uint8_t *p, const uint8_t *end, uint32_t *out);
size_t tl_leb_read_u64(const uint8_t *p, const uint8_t *end, uint64_t *out);
size_t tl_leb_read_s32(const uint8_t *p, const uint8_t *end, int32_t *out);
size_t tl_leb_read_s33(const uint8_t *p, const uint8_t *end, int64_t *out);
size_t tl_leb_read_s64(const uint8_t *p, const uint8_t *end, int64_t *out);
void tl_leb_write_u32(tl_buf *b, uint32_t v);  /* minimal encodings */
void tl_leb_write_u64(tl_buf *b, uint64_t v);
void tl_leb_write_s32(tl_buf *b, int32_t v);
void tl_leb_write_s64(tl_buf *b, int64_t v);

/* dwarf.c — DWARF kept right when code moves: the new bytes of the
 * sections it rewrites (tl_dwarf_names; has[i]: the module has that
 * section), from the writer's located nodes e[0..n) (offsets in the output,
 * whose code section payload starts at `code`) and the written functions'
 * local maps locals[0..nlocals) (sorted here). offsets: each custom
 * section's offset in the input, for errors (NULL: errors at 0). */
enum { TL_DWARF_NSECS = 7 };
typedef struct { bool has[TL_DWARF_NSECS]; tl_buf bytes[TL_DWARF_NSECS]; } tl_dwarf_out;
extern const char *const tl_dwarf_names[TL_DWARF_NSECS];
typedef struct {
  uint32_t old_start;      /* the function's code address in the input */
  uint32_t n;              /* map[input local index]: its index in the output, */
  uint32_t *map;           /* or TL_NO_INDEX (gone) */
} tl_dwarf_locals;
tl_status tl_dwarf_update(const tl_module *m, const tl_srcmap_entry *e, size_t n, uint32_t code,
                          tl_dwarf_locals *locals, size_t nlocals, const uint32_t *offsets, tl_dwarf_out *out,
                          tl_error *err);
void tl_dwarf_free(tl_dwarf_out *o);
/* The location of a node read at code address addr (kind: 0, or
 * TL_LOC_DWARF_START / _END). */
tl_debugloc tl_dwarf_loc(uint32_t addr, uint32_t kind);

/* reader.c */
tl_status tl_read(const uint8_t *bytes, size_t size, const tl_read_options *opt,
                  tl_module **out, tl_error *err);

/* writer.c */
tl_status tl_write(tl_module *m, const tl_write_options *opt, tl_buf *out, tl_error *err);
/* tl_write that frees each function's body as soon as it is encoded: the
 * module is then only good for tl_module_destroy (on failure too). */
tl_status tl_write_consume(tl_module *m, const tl_write_options *opt, tl_buf *out,
                           tl_error *err);

#endif
