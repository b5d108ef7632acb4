/* code_scan.c — the index immediates of a lazy body's bytes (issue 21): a
 * module pass that only needs what bodies name (remove-unused-module-
 * elements) lists them without decoding, and renumbering rewrites just
 * those immediates, copying the rest of the bytes. The body was checked when
 * read (reader_check.c), so the walk trusts its shape; it is driven by the
 * opcode table's immediate kinds. A memarg without a memory index names
 * memory 0; renumbered to another memory, it gains the index. The new
 * bytes of a renumbered body go to the module arena (the old ones may be
 * the caller's, borrowed). */
#include "reader_int.h"

#include <string.h>

typedef struct {
  const tl_module *m;
  rctx c;                  /* for rd_valtype: every feature on */
  rd r;
  void (*fn)(void *user, const tl_code_ref *ref);
  void *user;
  uint32_t *const *map;    /* remapping: per space, or NULL */
  tl_buf *out;             /* remapping: the new bytes */
  const uint8_t *copied;   /* remapping: input copied up to here */
} walker;

static uint32_t u32(walker *w) {
  uint32_t v = 0;
  rd_u32(&w->r, &v, "index");
  return v;
}

static void skip(walker *w, size_t n) { w->r.p = (size_t)(w->r.end - w->r.p) < n ? w->r.end : w->r.p + n; }

static void skip_leb(walker *w) {
  while (w->r.p < w->r.end && (*w->r.p++ & 0x80)) {
  }
}

static void copy_to(walker *w, const uint8_t *p) {
  if (p > w->copied) tl_buf_put(w->out, w->copied, (size_t)(p - w->copied));
  w->copied = p;
}

/* An index immediate of space s starting at w->r.p; signed: an s33 (block
 * types). Reported, and in a remap written anew. */
static void index_at(walker *w, int op, uint8_t s, bool is_signed) {
  const uint8_t *at = w->r.p;
  uint32_t v;
  if (is_signed) {
    int64_t x = 0;
    rd_s33(&w->r, &x, "block type");
    v = (uint32_t)x;
  } else {
    v = u32(w);
  }
  tl_code_ref ref = {s, (uint16_t)op, v};
  if (w->fn) w->fn(w->user, &ref);
  if (!w->out || !w->map[s]) return;
  copy_to(w, at);
  if (is_signed) tl_leb_write_s64(w->out, w->map[s][v]);
  else tl_leb_write_u32(w->out, w->map[s][v]);
  w->copied = w->r.p;
}

static void blocktype(walker *w, int op) {
  uint8_t b = w->r.p < w->r.end ? *w->r.p : 0x40;
  tl_type t;
  if (b == 0x40) skip(w, 1);
  else if (rd_is_valtype_byte(b)) rd_valtype(&w->c, &w->r, &t);
  else index_at(w, op, TL_SPACE_TYPE, true);
}

/* align (bit 6: a memory index follows), offset. */
static void memarg(walker *w, int op) {
  const uint8_t *at = w->r.p;
  uint32_t align = u32(w);
  if (align & 0x40) {
    index_at(w, op, TL_SPACE_MEMORY, false);
  } else {
    tl_code_ref ref = {TL_SPACE_MEMORY, (uint16_t)op, 0};
    if (w->fn) w->fn(w->user, &ref);
    if (w->out && w->map[TL_SPACE_MEMORY] && w->map[TL_SPACE_MEMORY][0]) {
      copy_to(w, at);
      tl_leb_write_u32(w->out, align | 0x40);
      tl_leb_write_u32(w->out, w->map[TL_SPACE_MEMORY][0]);
      w->copied = w->r.p;
    }
  }
  skip_leb(w); /* offset */
}

static void clause(walker *w, int op) {
  uint8_t kind = w->r.p < w->r.end ? *w->r.p : 0;
  skip(w, 1);
  if (kind < 2) index_at(w, op, TL_SPACE_TAG, false);
  skip_leb(w); /* label */
}

static void immediates(walker *w, int op) {
  uint32_t n;
  tl_type t;
  switch (tl_ops[op].imm) {
  case TL_IMM_BLOCK: blocktype(w, op); return;
  case TL_IMM_TRY_TABLE:
    blocktype(w, op);
    n = u32(w);
    for (uint32_t i = 0; i < n && w->r.p < w->r.end; i++) clause(w, op);
    return;
  case TL_IMM_LABEL: case TL_IMM_LOCAL: case TL_IMM_I32: case TL_IMM_I64: skip_leb(w); return;
  case TL_IMM_BR_TABLE:
    n = u32(w);
    for (uint32_t i = 0; i <= n && w->r.p < w->r.end; i++) skip_leb(w);
    return;
  case TL_IMM_FUNC: index_at(w, op, TL_SPACE_FUNC, false); return;
  case TL_IMM_TYPE: index_at(w, op, TL_SPACE_TYPE, false); return;
  case TL_IMM_CALL_INDIRECT:
    index_at(w, op, TL_SPACE_TYPE, false);
    index_at(w, op, TL_SPACE_TABLE, false);
    return;
  case TL_IMM_GLOBAL: index_at(w, op, TL_SPACE_GLOBAL, false); return;
  case TL_IMM_TABLE: index_at(w, op, TL_SPACE_TABLE, false); return;
  case TL_IMM_MEMARG: memarg(w, op); return;
  case TL_IMM_MEMARG_LANE: memarg(w, op); skip(w, 1); return;
  case TL_IMM_MEM: index_at(w, op, TL_SPACE_MEMORY, false); return;
  case TL_IMM_MEM_COPY:
    index_at(w, op, TL_SPACE_MEMORY, false);
    index_at(w, op, TL_SPACE_MEMORY, false);
    return;
  case TL_IMM_MEM_INIT:
    index_at(w, op, TL_SPACE_DATA, false);
    index_at(w, op, TL_SPACE_MEMORY, false);
    return;
  case TL_IMM_DATA: index_at(w, op, TL_SPACE_DATA, false); return;
  case TL_IMM_ELEM: index_at(w, op, TL_SPACE_ELEM, false); return;
  case TL_IMM_TABLE_INIT:
    index_at(w, op, TL_SPACE_ELEM, false);
    index_at(w, op, TL_SPACE_TABLE, false);
    return;
  case TL_IMM_TABLE_COPY:
    index_at(w, op, TL_SPACE_TABLE, false);
    index_at(w, op, TL_SPACE_TABLE, false);
    return;
  case TL_IMM_F32: skip(w, 4); return;
  case TL_IMM_F64: skip(w, 8); return;
  case TL_IMM_V128: case TL_IMM_SHUFFLE: skip(w, 16); return;
  case TL_IMM_LANE: case TL_IMM_FENCE: skip(w, 1); return;
  case TL_IMM_REFTYPE: rd_null_heaptype(&w->c, &w->r, &t); return;
  case TL_IMM_SELECT_T:
    n = u32(w);
    for (uint32_t i = 0; i < n && w->r.p < w->r.end; i++) rd_valtype(&w->c, &w->r, &t);
    return;
  case TL_IMM_TAG: case TL_IMM_CATCH: index_at(w, op, TL_SPACE_TAG, false); return;
  case TL_IMM_TYPE_FIELD: case TL_IMM_TYPE_COUNT: index_at(w, op, TL_SPACE_TYPE, false); skip_leb(w); return;
  case TL_IMM_TYPE_DATA:
    index_at(w, op, TL_SPACE_TYPE, false);
    index_at(w, op, TL_SPACE_DATA, false);
    return;
  case TL_IMM_TYPE_ELEM:
    index_at(w, op, TL_SPACE_TYPE, false);
    index_at(w, op, TL_SPACE_ELEM, false);
    return;
  case TL_IMM_TYPE_TYPE:
    index_at(w, op, TL_SPACE_TYPE, false);
    index_at(w, op, TL_SPACE_TYPE, false);
    return;
  case TL_IMM_CAST: skip_leb(w); return; /* a heap type (GC types are never renumbered) */
  case TL_IMM_BR_CAST: skip(w, 1); skip_leb(w); skip_leb(w); skip_leb(w); return;
  default: return; /* NONE; the IR-only kinds never occur in bytes */
  }
}

static void walk(walker *w, const uint8_t *code, uint32_t size) {
  tl_error e;
  w->c.m = (tl_module *)w->m;
  w->c.feat = TL_FEAT_ALL;
  w->c.err = &e;
  w->r = (rd){code, code + size, code, &e, TL_NO_FUNC};
  w->copied = code;
  uint32_t n = u32(w);
  tl_type t;
  for (uint32_t i = 0; i < n && w->r.p < w->r.end; i++) {
    skip_leb(w);
    rd_valtype(&w->c, &w->r, &t);
  }
  while (w->r.p < w->r.end) {
    uint8_t b = *w->r.p++;
    uint32_t sub = 0;
    bool pfx = b >= 0xfb && b <= 0xfe;
    if (pfx) sub = u32(w);
    int op = pfx ? tl_op_decode(b, sub) : tl_op_decode(0, b);
    if (op < 0) break; /* not a checked body */
    immediates(w, op);
  }
  if (w->out) copy_to(w, w->r.end);
}

void tl_code_refs(const tl_module *m, const uint8_t *code, uint32_t size,
                  void (*fn)(void *user, const tl_code_ref *ref), void *user) {
  walker w = {.m = m, .fn = fn, .user = user};
  walk(&w, code, size);
}

void tl_code_remap(const tl_module *m, const uint8_t *code, uint32_t size, uint32_t *const map[TL_NSPACES],
                   tl_buf *out) {
  walker w = {.m = m, .map = map, .out = out};
  walk(&w, code, size);
}

void tl_func_remap_code(tl_module *m, tl_func *f, uint32_t *const map[TL_NSPACES]) {
  tl_buf b = {0};
  tl_code_remap(m, f->code, f->code_size, map, &b);
  uint8_t *p = tl_arena_alloc(&m->arena, b.n ? b.n : 1, 1);
  if (b.n) memcpy(p, b.p, b.n);
  f->code = p;
  f->code_size = (uint32_t)b.n;
  tl_buf_free(&b);
}

void tl_module_remap_lazy(tl_module *m, uint32_t space, uint32_t *map) {
  uint32_t *maps[TL_NSPACES] = {0};
  maps[space] = map;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    if (TL_FUNC(m, i)->lazy) tl_func_remap_code(m, TL_FUNC(m, i), maps);
}
