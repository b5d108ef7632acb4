/* dwarf.c — keeps a module's DWARF (.debug_* custom sections, version 2-5
 * units, 32-bit format, 4-byte addresses) right when its code moves. Code
 * addresses in wasm DWARF are offsets in the code section's payload.
 *
 * Reading (tl_read_options.dwarf): each node gets as its location the code
 * address it was read from (tl_dwarf_loc: file TL_LOC_DWARF, line = address
 * + 1), through the same location machinery source maps use (debugloc.c);
 * passes carry locations as they do for source maps. Writing: the writer
 * records each located node's new offset (tl_srcmap_entry), and
 * tl_dwarf_update turns those (old address, new address) pairs into
 *   - .debug_line: each line program's header kept byte for byte, its
 *     rows made anew: one sequence per written function, a row where a
 *     node's old address fell under a different input row (same file,
 *     line, column and flags), taken from the input sequence that spans
 *     the function exactly when several start there (the copies of a C++
 *     inline function the linker merged); rows of another unit's program
 *     (code a pass copied across units), the other copies' sequences and
 *     those of code that is gone are dropped;
 *   - .debug_info: DW_AT_stmt_list to the new program offsets, and every
 *     DW_FORM_addr (low_pc, high_pc, entry_pc, call site pcs) and data-form
 *     high_pc mapped, in place (sizes do not change);
 *   - .debug_ranges / .debug_loc: the lists DW_AT_ranges / location
 *     attributes name, mapped in place; an entry whose code is gone becomes
 *     the empty range [base+1, base+1);
 *   - DWARF 5: every address of .debug_addr mapped (DW_FORM_addrx and the
 *     lists' *x entries name them); the .debug_rnglists / .debug_loclists
 *     lists that DW_AT_ranges / location attributes name (by offset, or by
 *     index through the unit's rnglists/loclists base) mapped in place:
 *     addresses as above, LEB128 lengths and offsets rewritten in their
 *     own bytes (padded; a value that does not fit makes the entry empty);
 *   - .debug_aranges is dropped (consumers fall back to .debug_info).
 * An address maps to the new address of the first node read at or after
 * it in the same function (a function's start and end map to the new
 * start and end); one in no written function maps to 0. A location
 * expression's DW_OP_WASM_location of a local (in a DIE of a subprogram,
 * or in a location list entry) is renumbered in place by its function's
 * local map (tl_dwarf_locals: passes such as reorder-locals renumber
 * locals); a local that is gone, or whose new index does not fit in its
 * bytes, makes the whole expression DW_OP_nops (no location: optimized
 * out). An expression with an operation this file does not know, or of a
 * function without a map, stays as it is. Malformed or unsupported DWARF
 * (64-bit units, which no wasm toolchain emits: clang 14 allows -gdwarf64
 * only for 64-bit ELF; address sizes other than 4) is an error with the
 * byte offset in the input (the reader runs this once with no code to find
 * it), never a crash. */
#include "wasmio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(x) do { tl_status s_ = (x); if (s_) return s_; } while (0)

/* ---- a bounds-checked cursor over one section ------------------------------ */
typedef struct {           /* a .debug_* section and where it was in the input */
  const char *name;
  const uint8_t *bytes;
  uint32_t size, offset;
} dsec;

typedef struct {
  const uint8_t *p, *end, *base; /* base: the section's first byte */
  const dsec *sec;          /* for errors: its name and input offset */
  tl_error *err;
} cur;

static tl_status bad(const cur *c, const uint8_t *at, const char *msg) {
  return tl_errorf(c->err, TL_E_MALFORMED, (uint64_t)c->sec->offset + (uint64_t)(at - c->base),
                   "%s: %s", c->sec->name, msg);
}

static tl_status get_n(cur *c, size_t n, uint64_t *out, const char *what) {
  if ((size_t)(c->end - c->p) < n) return bad(c, c->p, what);
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) v |= (uint64_t)c->p[i] << (8 * i);
  c->p += n;
  *out = v;
  return TL_OK;
}

static tl_status get_u32(cur *c, uint32_t *out, const char *what) {
  uint64_t v = 0;
  TRY(get_n(c, 4, &v, what));
  *out = (uint32_t)v;
  return TL_OK;
}

static tl_status get_u8(cur *c, uint8_t *out, const char *what) {
  uint64_t v = 0;
  TRY(get_n(c, 1, &v, what));
  *out = (uint8_t)v;
  return TL_OK;
}

/* LEB128 as DWARF writes it: padding allowed (up to 16 bytes), bits past
 * 64 dropped. */
static tl_status get_leb(cur *c, bool sign, uint64_t *out, const char *what) {
  uint64_t v = 0;
  unsigned shift = 0;
  for (int i = 0; i < 16; i++) {
    if (c->p >= c->end) return bad(c, c->p, what);
    uint8_t b = *c->p++;
    if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80)) {
      if (sign && shift < 64 && (b & 0x40)) v |= ~(uint64_t)0 << shift;
      *out = v;
      return TL_OK;
    }
  }
  return bad(c, c->p, what);
}

static tl_status skip(cur *c, uint64_t n, const char *what) {
  if ((uint64_t)(c->end - c->p) < n) return bad(c, c->p, what);
  c->p += n;
  return TL_OK;
}

static uint32_t u32_at(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32_at(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Writes v as a LEB128 of exactly n bytes at p (padded); false if it does
 * not fit. */
static bool put_leb_at(uint8_t *p, size_t n, uint64_t v) {
  if (n < 10 && v >> (7 * n)) return false;
  for (size_t i = 0; i < n; i++, v >>= 7) p[i] = (uint8_t)((v & 0x7f) | (i + 1 < n ? 0x80 : 0));
  return true;
}

/* ---- old address -> new address ------------------------------------------- */
typedef struct { uint32_t old, new_; } apair;
typedef struct {
  uint32_t old_start, old_end, new_start, new_end;
  const tl_dwarf_locals *locals; /* its local map, or NULL */
} afunc;

typedef struct {
  tl_vec pairs;  /* apair, sorted by old then new */
  tl_vec funcs;  /* afunc: written functions, sorted by old_start */
} amap;

static int cmp_pair(const void *a, const void *b) {
  const apair *x = a, *y = b;
  if (x->old != y->old) return x->old < y->old ? -1 : 1;
  return x->new_ < y->new_ ? -1 : x->new_ > y->new_;
}

static int cmp_func(const void *a, const void *b) {
  const afunc *x = a, *y = b;
  return x->old_start < y->old_start ? -1 : x->old_start > y->old_start;
}

/* The written function whose old extent holds a, or NULL. */
static const afunc *func_of(const amap *am, uint32_t a) {
  const afunc *f = am->funcs.p;
  size_t lo = 0, hi = am->funcs.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (f[mid].old_start <= a) lo = mid + 1;
    else hi = mid;
  }
  if (!lo) return NULL;
  uint32_t s0 = f[lo - 1].old_start; /* functions do not overlap; copies share extents */
  for (size_t i = lo; i-- > 0 && f[i].old_start == s0;)
    if (a <= f[i].old_end) return &f[i];
  return NULL;
}

/* 0 and the linker's tombstones (-1, -2) stay; an address in no written
 * function becomes 0. */
static uint32_t map_addr(const amap *am, uint32_t a) {
  if (a == 0 || a >= 0xfffffffeu) return a;
  const afunc *f = func_of(am, a);
  if (!f) return 0;
  const apair *p = am->pairs.p;
  size_t lo = 0, hi = am->pairs.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p[mid].old < a) lo = mid + 1;
    else hi = mid;
  }
  if (lo < am->pairs.n && p[lo].old <= f->old_end) return p[lo].new_;
  return f->new_end;
}

/* The writer's entries, in output order: per function its prolog (col
 * TL_LOC_DWARF_START), its nodes, its epilog (TL_LOC_DWARF_END). */
static void build_map(amap *am, const tl_srcmap_entry *e, size_t n, uint32_t code) {
  afunc cur_f = {0};
  bool open = false;
  for (size_t i = 0; i < n; i++) {
    if (!e[i].has_loc || e[i].loc.file != TL_LOC_DWARF || e[i].offset < code) continue;
    apair p = {e[i].loc.line - 1, e[i].offset - code};
    if (e[i].loc.col == TL_LOC_DWARF_START) {
      open = true;
      cur_f = (afunc){p.old, p.old, p.new_, p.new_, NULL};
    }
    TL_VEC_PUSH(&am->pairs, apair, p);
    if (e[i].loc.col == TL_LOC_DWARF_END && open) {
      apair end = {p.old + 1, p.new_ + 1};
      TL_VEC_PUSH(&am->pairs, apair, end);
      cur_f.old_end = end.old, cur_f.new_end = end.new_;
      if (cur_f.old_end > cur_f.old_start) TL_VEC_PUSH(&am->funcs, afunc, cur_f);
      open = false;
    }
  }
  if (am->pairs.n) qsort(am->pairs.p, am->pairs.n, sizeof(apair), cmp_pair);
  if (am->funcs.n) qsort(am->funcs.p, am->funcs.n, sizeof(afunc), cmp_func);
}

static int cmp_locals(const void *a, const void *b) {
  const tl_dwarf_locals *x = a, *y = b;
  return x->old_start < y->old_start ? -1 : x->old_start > y->old_start;
}

/* Each written function's local map, by its old start (lm is sorted). */
static void attach_locals(amap *am, tl_dwarf_locals *lm, size_t nlm) {
  if (!nlm) return;
  qsort(lm, nlm, sizeof *lm, cmp_locals);
  for (size_t i = 0; i < am->funcs.n; i++) {
    afunc *f = &TL_VEC_AT(&am->funcs, afunc, i);
    size_t lo = 0, hi = nlm;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (lm[mid].old_start < f->old_start) lo = mid + 1;
      else hi = mid;
    }
    if (lo < nlm && lm[lo].old_start == f->old_start) f->locals = &lm[lo];
  }
}

/* ---- location expressions: locals renumbered -------------------------------- */
/* Skips the operands of DWARF expression operation op; false for an
 * operation it does not know. */
static bool skip_operands(cur *c, uint8_t op) {
  uint64_t v = 0;
  uint8_t k = 0;
  if ((op >= 0x30 && op <= 0x6f) || op == 0x06 || (op >= 0x12 && op <= 0x14) || (op >= 0x16 && op <= 0x22) ||
      (op >= 0x24 && op <= 0x27) || (op >= 0x29 && op <= 0x2e) || (op >= 0x96 && op <= 0x97) ||
      (op >= 0x9b && op <= 0x9c) || op == 0x9f || op == 0xe0)
    return true;
  switch (op) {
  case 0x08: case 0x09: case 0x15: case 0x94: case 0x95: return !skip(c, 1, "operand");
  case 0x0a: case 0x0b: case 0x28: case 0x2f: case 0x98: return !skip(c, 2, "operand");
  case 0x03: case 0x0c: case 0x0d: case 0x99: case 0x9a: return !skip(c, 4, "operand");
  case 0x0e: case 0x0f: return !skip(c, 8, "operand");
  case 0x10: case 0x11: case 0x23: case 0x90: case 0x91: case 0x93: case 0xa1: case 0xa2: case 0xa8: case 0xa9:
    return !get_leb(c, false, &v, "operand");
  case 0x92: case 0x9d: case 0xa5: return !get_leb(c, false, &v, "operand") && !get_leb(c, false, &v, "operand");
  case 0x9e: case 0xa3: case 0xf3: return !get_leb(c, false, &v, "operand") && !skip(c, v, "operand");
  case 0xa0: return !skip(c, 4, "operand") && !get_leb(c, true, &v, "operand");
  case 0xa4: return !get_leb(c, false, &v, "operand") && !get_u8(c, &k, "operand") && !skip(c, k, "operand");
  case 0xa6: case 0xa7: return !skip(c, 1, "operand") && !get_leb(c, false, &v, "operand");
  default: if (op >= 0x70 && op <= 0x8f) return !get_leb(c, true, &v, "operand");
    return false;
  }
}

/* The expression [in, in + len) of function f (written at out): each
 * DW_OP_WASM_location of a local gets its new index. */
static void map_expr(const dsec *sec, const uint8_t *in, size_t len, uint8_t *out, const afunc *f) {
  if (!f || !f->locals || !len) return;
  tl_error e;
  cur c = {in, in + len, in, sec, &e};
  while (c.p < c.end) {
    uint8_t op = *c.p++, kind = 0;
    if (op != 0xed) {
      if (!skip_operands(&c, op)) return;
      continue;
    }
    if (get_u8(&c, &kind, "kind")) return;
    if (kind == 3) {                      /* a global, by a 4-byte index */
      if (skip(&c, 4, "index")) return;
      continue;
    }
    const uint8_t *at = c.p;
    uint64_t idx = 0;
    if (get_leb(&c, false, &idx, "index")) return;
    if (kind != 0) continue;              /* a global or a stack slot */
    uint32_t to = idx < f->locals->n ? f->locals->map[idx] : TL_NO_INDEX;
    if (to == TL_NO_INDEX || !put_leb_at(out + (at - in), (size_t)(c.p - at), to)) {
      memset(out, 0x96, len);             /* DW_OP_nop throughout: no location */
      return;
    }
  }
}

/* ---- .debug_line: reading ------------------------------------------------- */
enum { R_STMT = 1, R_BB = 2, R_PEND = 4, R_EBEGIN = 8 };

typedef struct {           /* a row of an input line program */
  uint32_t addr, file, line, col, disc, isa, prog;
  uint8_t flags;
} lrow;

typedef struct { uint32_t start, end, first, n; } lseq; /* rows [first, first+n) */

typedef struct {
  uint32_t off, hdr, end;  /* unit start, program start, unit end (in the section) */
  uint8_t min_inst, default_stmt, line_range, opcode_base;
  int8_t line_base;
  uint32_t new_off;        /* its offset in the new section */
} lprog;

typedef struct {
  tl_vec rows, seqs, progs; /* lrow, lseq (sorted by start), lprog */
} ltab;

typedef struct {           /* the state machine (DWARF 4 6.2.2) */
  uint64_t addr;
  uint32_t file, line, col, disc, isa;
  uint8_t flags;
  uint32_t seq_first;      /* rows.n when the sequence began */
} lstate;

static void lstate_reset(lstate *s, const lprog *p, size_t nrows) {
  *s = (lstate){0};
  s->file = s->line = 1;
  s->flags = p->default_stmt ? R_STMT : 0;
  s->seq_first = (uint32_t)nrows;
}

static void emit_row(ltab *t, lstate *s, uint32_t prog) {
  lrow r = {(uint32_t)s->addr, s->file, s->line, s->col, s->disc, s->isa, prog, s->flags};
  if (s->addr > 0xffffffffu) r.addr = 0xffffffffu;
  TL_VEC_PUSH(&t->rows, lrow, r);
  s->disc = 0;
  s->flags &= R_STMT;
}

/* An end_sequence: the rows since the sequence began form one, kept if
 * its addresses are real code addresses (not a linker's tombstone). */
static void end_seq(ltab *t, lstate *s, const lprog *p, uint32_t prog) {
  uint32_t first = s->seq_first, n = (uint32_t)t->rows.n - first;
  if (n) {
    uint32_t start = TL_VEC_AT(&t->rows, lrow, first).addr;
    if (s->addr < 0xfffffff0u && start < 0xfffffff0u && start <= s->addr) {
      lseq q = {start, (uint32_t)s->addr, first, n};
      TL_VEC_PUSH(&t->seqs, lseq, q);
    }
  }
  lstate_reset(s, p, t->rows.n);
}

static tl_status ext_op(cur *c, ltab *t, lstate *s, const lprog *p, uint32_t prog) {
  uint64_t len = 0, v = 0;
  TRY(get_leb(c, false, &len, "extended opcode length"));
  if (!len || (uint64_t)(c->end - c->p) < len) return bad(c, c->p, "extended opcode past the program");
  const uint8_t *next = c->p + len;
  uint8_t sub = *c->p++;
  switch (sub) {
  case 1: end_seq(t, s, p, prog); break;                  /* DW_LNE_end_sequence */
  case 2:                                                  /* DW_LNE_set_address */
    if (len - 1 > 8) return bad(c, c->p, "DW_LNE_set_address: address wider than 8 bytes");
    TRY(get_n(c, (size_t)(len - 1), &v, "DW_LNE_set_address"));
    s->addr = v;
    break;
  case 4:                                                  /* DW_LNE_set_discriminator */
    TRY(get_leb(c, false, &v, "DW_LNE_set_discriminator"));
    s->disc = (uint32_t)v;
    break;
  default: break;                                          /* define_file, vendor: skipped */
  }
  if (c->p > next) return bad(c, next, "extended opcode longer than its length");
  c->p = next;
  return TL_OK;
}

/* Standard opcodes 1-12 (those below opcode_base); others are skipped by
 * their operand counts. */
static tl_status std_op(cur *c, ltab *t, lstate *s, const lprog *p, const uint8_t *lens,
                        uint8_t op, uint32_t prog) {
  uint64_t v = 0;
  switch (op) {
  case 1: emit_row(t, s, prog); return TL_OK;
  case 2: TRY(get_leb(c, false, &v, "DW_LNS_advance_pc")); s->addr += v * p->min_inst; return TL_OK;
  case 3: TRY(get_leb(c, true, &v, "DW_LNS_advance_line")); s->line += (uint32_t)v; return TL_OK;
  case 4: TRY(get_leb(c, false, &v, "DW_LNS_set_file")); s->file = (uint32_t)v; return TL_OK;
  case 5: TRY(get_leb(c, false, &v, "DW_LNS_set_column")); s->col = (uint32_t)v; return TL_OK;
  case 6: s->flags ^= R_STMT; return TL_OK;
  case 7: s->flags |= R_BB; return TL_OK;
  case 8: s->addr += (uint64_t)((255 - p->opcode_base) / p->line_range) * p->min_inst; return TL_OK;
  case 9: TRY(get_n(c, 2, &v, "DW_LNS_fixed_advance_pc")); s->addr += v; return TL_OK;
  case 10: s->flags |= R_PEND; return TL_OK;
  case 11: s->flags |= R_EBEGIN; return TL_OK;
  case 12: TRY(get_leb(c, false, &v, "DW_LNS_set_isa")); s->isa = (uint32_t)v; return TL_OK;
  default:
    for (uint8_t i = 0; i < lens[op - 1]; i++) TRY(get_leb(c, false, &v, "standard opcode operand"));
    return TL_OK;
  }
}

static tl_status run_program(cur *c, ltab *t, const lprog *p, const uint8_t *lens, uint32_t prog) {
  lstate s;
  lstate_reset(&s, p, t->rows.n);
  while (c->p < c->end) {
    uint8_t op = *c->p++;
    if (op >= p->opcode_base) {
      uint32_t adj = op - p->opcode_base;
      s.addr += (uint64_t)(adj / p->line_range) * p->min_inst;
      s.line += (uint32_t)(p->line_base + (int32_t)(adj % p->line_range));
      emit_row(t, &s, prog);
    } else if (op == 0) {
      TRY(ext_op(c, t, &s, p, prog));
    } else {
      TRY(std_op(c, t, &s, p, lens, op, prog));
    }
  }
  t->rows.n = s.seq_first; /* rows of an unterminated sequence are dropped */
  return TL_OK;
}

/* One unit's header: where its program starts and how it encodes rows. */
static tl_status read_header(cur *c, lprog *p, const uint8_t **lens) {
  const uint8_t *at = c->p;
  uint32_t len = 0, hlen = 0;
  uint64_t ver = 0;
  uint8_t b = 0, max_ops = 1;
  TRY(get_u32(c, &len, "unit length"));
  if (len >= 0xfffffff0u) return bad(c, at, "64-bit DWARF line tables are not supported");
  if (len > (size_t)(c->end - c->p)) return bad(c, at, "unit length past the section");
  c->end = c->p + len;
  p->end = (uint32_t)(c->end - c->base);
  TRY(get_n(c, 2, &ver, "version"));
  if (ver < 2 || ver > 5) return bad(c, c->p - 2, "unsupported line table version");
  if (ver == 5) TRY(skip(c, 2, "address and segment selector sizes"));
  TRY(get_u32(c, &hlen, "header length"));
  if (hlen > (size_t)(c->end - c->p)) return bad(c, c->p - 4, "header length past the unit");
  const uint8_t *prog = c->p + hlen;
  TRY(get_u8(c, &p->min_inst, "minimum instruction length"));
  if (ver >= 4) TRY(get_u8(c, &max_ops, "maximum operations per instruction"));
  TRY(get_u8(c, &p->default_stmt, "default_is_stmt"));
  TRY(get_u8(c, &b, "line_base"));
  p->line_base = (int8_t)b;
  TRY(get_u8(c, &p->line_range, "line_range"));
  TRY(get_u8(c, &p->opcode_base, "opcode_base"));
  if (p->min_inst != 1 || max_ops != 1) return bad(c, at, "instructions wider than a byte (not wasm)");
  if (!p->line_range) return bad(c, c->p - 2, "line_range is 0");
  if (!p->opcode_base) return bad(c, c->p - 1, "opcode_base is 0");
  *lens = c->p;
  TRY(skip(c, p->opcode_base - 1u, "standard opcode lengths"));
  if (c->p > prog) return bad(c, c->p, "header longer than its length");
  c->p = prog;
  p->hdr = (uint32_t)(prog - c->base);
  return TL_OK;
}

static int cmp_seq(const void *a, const void *b) {
  const lseq *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

static tl_status read_lines(const dsec *sec, ltab *t, tl_error *err) {
  cur c = {sec->bytes, sec->bytes + sec->size, sec->bytes, sec, err};
  while (c.p < c.end) {
    lprog p = {0};
    p.off = (uint32_t)(c.p - c.base);
    const uint8_t *lens = NULL;
    cur u = c;
    TRY(read_header(&u, &p, &lens));
    TRY(run_program(&u, t, &p, lens, (uint32_t)t->progs.n));
    TL_VEC_PUSH(&t->progs, lprog, p);
    c.p = u.end;
  }
  if (t->seqs.n) qsort(t->seqs.p, t->seqs.n, sizeof(lseq), cmp_seq);
  return TL_OK;
}

/* The index of the first sequence starting after a. */
static size_t seq_after(const ltab *t, uint32_t a) {
  const lseq *q = t->seqs.p;
  size_t lo = 0, hi = t->seqs.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (q[mid].start <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The sequence that describes the function read at [start, end): one that
 * spans it exactly if there is one (the linker keeps one copy of a C++
 * inline function, and every unit that had a copy has a sequence at its
 * address, of its own copy's length), else the last starting at or before
 * start; NULL if that one does not reach start. */
static const lseq *seq_for(const ltab *t, uint32_t start, uint32_t end) {
  const lseq *q = t->seqs.p;
  size_t k = seq_after(t, start);
  for (size_t i = k; i-- > 0 && q[i].start == start;)
    if (q[i].end == end) return &q[i];
  return k && start < q[k - 1].end ? &q[k - 1] : NULL;
}

/* The row of sequence q in effect at address a, or NULL. */
static const lrow *row_in(const ltab *t, const lseq *q, uint32_t a) {
  if (!q || a < q->start || a >= q->end) return NULL;
  const lrow *r = (const lrow *)t->rows.p + q->first;
  size_t l = 0, h = q->n;
  while (l < h) {
    size_t mid = l + (h - l) / 2;
    if (r[mid].addr <= a) l = mid + 1;
    else h = mid;
  }
  return l ? &r[l - 1] : NULL;
}

/* The input row in effect at address a, or NULL: in the sequence starting
 * last at or before a. */
static const lrow *row_at(const ltab *t, uint32_t a) {
  size_t k = seq_after(t, a);
  return k ? row_in(t, (const lseq *)t->seqs.p + k - 1, a) : NULL;
}

/* ---- .debug_line: writing ------------------------------------------------- */
typedef struct {
  const lprog *p;
  tl_buf *out;
  uint32_t addr, file, line, col, isa;
  bool stmt;
} lout;

static void put_uleb(tl_buf *b, uint64_t v) { tl_leb_write_u64(b, v); }

static void out_reset(lout *o, uint32_t addr) {
  o->addr = addr, o->file = 1, o->line = 1, o->col = 0, o->isa = 0;
  o->stmt = o->p->default_stmt != 0;
}

static void out_set_address(lout *o, uint32_t addr) {
  tl_buf_byte(o->out, 0);
  tl_buf_byte(o->out, 5);
  tl_buf_byte(o->out, 2);
  uint8_t a[4];
  put_u32_at(a, addr);
  tl_buf_put(o->out, a, 4);
  out_reset(o, addr);
}

/* Standard opcode op, if the program's header defines it. */
static bool has_op(const lout *o, uint8_t op) { return op < o->p->opcode_base; }

static void out_flags(lout *o, const lrow *r) {
  if (r->file != o->file) tl_buf_byte(o->out, 4), put_uleb(o->out, r->file), o->file = r->file;
  if (r->col != o->col) tl_buf_byte(o->out, 5), put_uleb(o->out, r->col), o->col = r->col;
  if (((r->flags & R_STMT) != 0) != o->stmt) tl_buf_byte(o->out, 6), o->stmt = !o->stmt;
  if (r->isa != o->isa && has_op(o, 12)) tl_buf_byte(o->out, 12), put_uleb(o->out, r->isa), o->isa = r->isa;
  if (r->flags & R_BB) tl_buf_byte(o->out, 7);
  if ((r->flags & R_PEND) && has_op(o, 10)) tl_buf_byte(o->out, 10);
  if ((r->flags & R_EBEGIN) && has_op(o, 11)) tl_buf_byte(o->out, 11);
  if (r->disc) {
    tl_buf t = {0};
    put_uleb(&t, r->disc);
    tl_buf_byte(o->out, 0);
    put_uleb(o->out, t.n + 1);
    tl_buf_byte(o->out, 4);
    tl_buf_put(o->out, t.p, t.n);
    tl_buf_free(&t);
  }
}

/* Row r at address a: a special opcode when one encodes the step. */
static void out_row(lout *o, const lrow *r, uint32_t a) {
  if (a < o->addr) return; /* addresses only grow in a sequence */
  out_flags(o, r);
  uint32_t d = a - o->addr;
  int64_t dl = (int64_t)r->line - (int64_t)o->line;
  const lprog *p = o->p;
  if (dl >= p->line_base && dl < p->line_base + p->line_range) {
    uint64_t op = (uint64_t)(dl - p->line_base) + (uint64_t)p->line_range * d + p->opcode_base;
    if (op <= 255) {
      tl_buf_byte(o->out, (uint8_t)op);
      o->addr = a, o->line = r->line;
      return;
    }
  }
  if (d) tl_buf_byte(o->out, 2), put_uleb(o->out, d);
  if (dl) tl_buf_byte(o->out, 3), tl_leb_write_s64(o->out, dl);
  tl_buf_byte(o->out, 1);
  o->addr = a, o->line = r->line;
}

static void out_end(lout *o, uint32_t a) {
  if (a > o->addr) tl_buf_byte(o->out, 2), put_uleb(o->out, a - o->addr);
  tl_buf_byte(o->out, 0);
  tl_buf_byte(o->out, 1);
  tl_buf_byte(o->out, 1);
}

/* The function groups of the writer's entries: e[first, first + n) from a
 * prolog to its epilog, the input sequence that described it. */
typedef struct { uint32_t first, n, prog; const lseq *seq; } fgroup;

/* One written function's sequence: its entries' rows, from its own input
 * sequence, or another of its program for code a pass brought in. */
static void out_func(lout *o, const ltab *t, const fgroup *g, const tl_srcmap_entry *e, uint32_t code) {
  const lrow *last = NULL;
  bool started = false;
  e += g->first;
  uint32_t end = e[g->n - 1].offset - code + 1;
  for (size_t i = 0; i < g->n; i++) {
    if (!e[i].has_loc || e[i].loc.file != TL_LOC_DWARF) continue;
    uint32_t old = e[i].loc.line - 1;
    const lrow *r = row_in(t, g->seq, old);
    if (!r) r = row_at(t, old);
    if (!r || r->prog != g->prog || r == last) continue;
    uint32_t a = e[i].offset - code;
    if (!started) out_set_address(o, a), started = true;
    out_row(o, r, a);
    last = r;
  }
  if (started) out_end(o, end);
}

static void groups(tl_vec *out, const ltab *t, const tl_srcmap_entry *e, size_t n) {
  size_t open = SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    if (!e[i].has_loc || e[i].loc.file != TL_LOC_DWARF) continue;
    if (e[i].loc.col == TL_LOC_DWARF_START) open = i;
    if (e[i].loc.col != TL_LOC_DWARF_END || open == SIZE_MAX) continue;
    uint32_t start = e[open].loc.line - 1, end = e[i].loc.line; /* the final end's address + 1 */
    const lseq *q = seq_for(t, start, end);
    const lrow *r = row_in(t, q, start);
    if (r) {
      fgroup g = {(uint32_t)open, (uint32_t)(i + 1 - open), r->prog, q};
      TL_VEC_PUSH(out, fgroup, g);
    }
    open = SIZE_MAX;
  }
}

static int cmp_group(const void *a, const void *b) {
  const fgroup *x = a, *y = b;
  if (x->prog != y->prog) return x->prog < y->prog ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first; /* output order within a program */
}

/* Each input program's header and the sequences of the functions it
 * described (gs sorted by program here). */
static void write_lines(const dsec *sec, ltab *t, tl_vec *gs, const tl_srcmap_entry *e,
                        uint32_t code, tl_buf *out) {
  if (gs->n) qsort(gs->p, gs->n, sizeof(fgroup), cmp_group);
  size_t gi = 0;
  for (uint32_t k = 0; k < t->progs.n; k++) {
    lprog *p = &TL_VEC_AT(&t->progs, lprog, k);
    p->new_off = (uint32_t)out->n;
    size_t len_at = out->n;
    tl_buf_put(out, "\0\0\0\0", 4);
    tl_buf_put(out, sec->bytes + p->off + 4, p->hdr - p->off - 4);
    lout o = {p, out, 0, 1, 1, 0, 0, p->default_stmt != 0};
    for (; gi < gs->n && TL_VEC_AT(gs, fgroup, gi).prog == k; gi++)
      out_func(&o, t, &TL_VEC_AT(gs, fgroup, gi), e, code);
    put_u32_at(out->p + len_at, (uint32_t)(out->n - len_at - 4));
  }
}

/* ---- .debug_info, .debug_ranges, .debug_loc: in place --------------------- */
typedef struct { uint64_t code, tag; uint32_t first, n; } abbrev;
typedef struct { uint32_t attr, form; int64_t implicit; } aspec;

/* A list attribute of a DIE, mapped once the whole DIE is read (a unit
 * DIE may name its base address and list bases after its lists). */
typedef struct { uint8_t kind; uint64_t form, v; const uint8_t *at; } pend; /* P_* */
enum { P_RANGES, P_LOCLIST, P_EXPR }; /* P_EXPR: v bytes of expression at `at` */

typedef struct {
  const dsec *info, *abbrev, *ranges, *loc, *addr, *rnglists, *loclists;
  tl_buf new_info, new_ranges, new_loc, new_addr, new_rnglists, new_loclists;
  const amap *am;
  const ltab *lines;
  tl_vec abbrevs, specs;   /* abbrev (sorted by code), aspec: the unit's table */
  uint32_t abbrev_off;     /* ... read from this offset (+1; 0: none yet) */
  tl_vec done_ranges, done_loc, done_rnglists, done_loclists; /* uint8_t bit
                              sets: the list offsets mapped */
  tl_vec pend;             /* pend: the current DIE's lists and expressions */
  const afunc *fn;         /* the function of the last subprogram DIE */
  tl_error *err;
} dinfo;

typedef struct {           /* the unit being read */
  uint16_t ver;
  uint32_t base;           /* its base address (the unit DIE's low_pc), old */
  uint64_t addr_base, rng_base, loc_base; /* DWARF 5; UINT64_MAX: not given */
} unitst;

static int cmp_abbrev(const void *a, const void *b) {
  const abbrev *x = a, *y = b;
  return x->code < y->code ? -1 : x->code > y->code;
}

static tl_status read_abbrevs(dinfo *d, uint32_t off) {
  if (d->abbrev_off && d->abbrev_off - 1 == off) return TL_OK; /* units sharing a table */
  d->abbrev_off = 0;
  d->abbrevs.n = d->specs.n = 0;
  if (!d->abbrev) return tl_errorf(d->err, TL_E_MALFORMED, d->info->offset, ".debug_info: no .debug_abbrev");
  cur c = {d->abbrev->bytes, d->abbrev->bytes + d->abbrev->size, d->abbrev->bytes, d->abbrev, d->err};
  if (off > d->abbrev->size) return bad(&c, c.end, "abbreviation table offset past the section");
  c.p += off;
  for (;;) {
    abbrev a = {0};
    uint64_t tag = 0, attr = 0, form = 0, v = 0;
    TRY(get_leb(&c, false, &a.code, "abbreviation code"));
    if (!a.code) break;
    TRY(get_leb(&c, false, &tag, "tag"));
    a.tag = tag;
    TRY(skip(&c, 1, "children flag"));
    a.first = (uint32_t)d->specs.n;
    for (;;) {
      TRY(get_leb(&c, false, &attr, "attribute"));
      TRY(get_leb(&c, false, &form, "form"));
      if (!attr && !form) break;
      aspec s = {(uint32_t)attr, (uint32_t)form, 0};
      if (form == 0x21) {
        TRY(get_leb(&c, true, &v, "implicit constant"));
        s.implicit = (int64_t)v;
      }
      TL_VEC_PUSH(&d->specs, aspec, s);
    }
    a.n = (uint32_t)d->specs.n - a.first;
    TL_VEC_PUSH(&d->abbrevs, abbrev, a);
  }
  if (d->abbrevs.n) qsort(d->abbrevs.p, d->abbrevs.n, sizeof(abbrev), cmp_abbrev);
  d->abbrev_off = off + 1;
  return TL_OK;
}

static const abbrev *find_abbrev(const dinfo *d, uint64_t code) {
  const abbrev *a = d->abbrevs.p;
  size_t lo = 0, hi = d->abbrevs.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a[mid].code < code) lo = mid + 1;
    else hi = mid;
  }
  return lo < d->abbrevs.n && a[lo].code == code ? &a[lo] : NULL;
}

/* Skips one attribute value of form `form` (DWARF 2-5 and GNU forms;
 * 4-byte offsets and addresses); *form becomes the form read
 * (DW_FORM_indirect names it in the data). */
static tl_status skip_form(cur *c, uint64_t *form) {
  uint64_t v = 0;
  for (int depth = 0; depth < 4; depth++) {
    switch (*form) {
    case 0x19: case 0x21: return TL_OK;                               /* flag_present, implicit_const */
    case 0x0b: case 0x0c: case 0x11: case 0x25: case 0x29: return skip(c, 1, "attribute");
    case 0x05: case 0x12: case 0x26: case 0x2a: return skip(c, 2, "attribute");
    case 0x27: case 0x2b: return skip(c, 3, "attribute");
    case 0x01: case 0x06: case 0x0e: case 0x10: case 0x13: case 0x17: case 0x1c: case 0x1d:
    case 0x1f: case 0x28: case 0x2c: case 0x1f20: case 0x1f21: return skip(c, 4, "attribute");
    case 0x07: case 0x14: case 0x20: case 0x24: return skip(c, 8, "attribute");
    case 0x1e: return skip(c, 16, "attribute");
    case 0x0d: return get_leb(c, true, &v, "attribute");
    case 0x0f: case 0x15: case 0x1a: case 0x1b: case 0x22: case 0x23: case 0x1f01: case 0x1f02:
      return get_leb(c, false, &v, "attribute");
    case 0x08: {
      const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
      if (!z) return bad(c, c->p, "unterminated DW_FORM_string");
      c->p = z + 1;
      return TL_OK;
    }
    case 0x0a: TRY(get_n(c, 1, &v, "block length")); return skip(c, v, "DW_FORM_block1");
    case 0x03: TRY(get_n(c, 2, &v, "block length")); return skip(c, v, "DW_FORM_block2");
    case 0x04: TRY(get_n(c, 4, &v, "block length")); return skip(c, v, "DW_FORM_block4");
    case 0x09: case 0x18: TRY(get_leb(c, false, &v, "block length")); return skip(c, v, "block");
    case 0x16: TRY(get_leb(c, false, form, "DW_FORM_indirect")); continue;
    default: return bad(c, c->p, "unknown attribute form");
    }
  }
  return bad(c, c->p, "DW_FORM_indirect nested too deep");
}

/* Whether offset off (< size) of a section is in the bit set done; it is
 * after. */
static bool seen_before(tl_vec *done, uint32_t size, uint32_t off) {
  if (!done->n) {
    tl_vec_grow(done, 1, size / 8 + 1);
    memset(done->p, 0, size / 8 + 1);
    done->n = size / 8 + 1;
  }
  uint8_t *bits = done->p, bit = (uint8_t)(1u << (off % 8));
  bool seen = bits[off / 8] & bit;
  bits[off / 8] |= bit;
  return seen;
}

/* A cursor at offset off of list section sec (named `name` when the module
 * lacks it); *seen when an earlier DIE named the same list (done: the
 * section's bit set). */
static tl_status open_list(dinfo *d, const dsec *sec, const char *name, uint8_t *out, tl_vec *done, uint32_t off,
                           cur *c, bool *seen) {
  if (!sec) return tl_errorf(d->err, TL_E_MALFORMED, d->info->offset, ".debug_info: names a %s that is not there", name);
  *c = (cur){sec->bytes, sec->bytes + sec->size, sec->bytes, sec, d->err};
  if (off >= sec->size || !out) return bad(c, c->end, "list offset past the section");
  *seen = seen_before(done, sec->size, off);
  c->p += off;
  return TL_OK;
}

/* Maps list entries (start, end) of .debug_ranges (is_loc false) or
 * .debug_loc at off, for a unit whose base address was old_base. */
static tl_status map_list(dinfo *d, bool is_loc, uint32_t off, uint32_t old_base) {
  const dsec *sec = is_loc ? d->loc : d->ranges;
  uint8_t *out = (is_loc ? d->new_loc : d->new_ranges).p;
  cur c;
  bool seen = false;
  TRY(open_list(d, sec, is_loc ? ".debug_loc" : ".debug_ranges", out, is_loc ? &d->done_loc : &d->done_ranges, off,
                &c, &seen));
  if (seen) return TL_OK; /* a list two DIEs name */
  uint32_t base = old_base, new_base = map_addr(d->am, old_base);
  for (;;) {
    uint32_t s = 0, e = 0;
    uint8_t *at = out + (c.p - c.base);
    TRY(get_u32(&c, &s, "list entry"));
    TRY(get_u32(&c, &e, "list entry"));
    if (!s && !e) return TL_OK;
    if (s == 0xffffffffu) {
      base = e, new_base = map_addr(d->am, e);
      put_u32_at(at + 4, new_base);
      continue;
    }
    uint32_t os = base + s, oe = base + e;
    uint32_t ns = map_addr(d->am, os), ne = map_addr(d->am, oe);
    bool gone = (os && !ns) || (oe && !ne);
    if (ne < ns) ne = ns;
    if (gone || ns < new_base || ns == ne) ns = ne = new_base + 1;
    put_u32_at(at, ns - new_base);
    put_u32_at(at + 4, ne - new_base);
    if (is_loc) {
      uint64_t len = 0;
      TRY(get_n(&c, 2, &len, "location expression length"));
      const uint8_t *x = c.p;
      TRY(skip(&c, len, "location expression"));
      map_expr(sec, x, len, out + (x - c.base), func_of(d->am, os));
    }
  }
}

/* ---- DWARF 5: .debug_addr, .debug_rnglists, .debug_loclists ---------------- */
/* Maps every address of .debug_addr in place: each contribution is a
 * header (length, version 5, address size 4, segment selector size 0) and
 * its addresses. */
static tl_status map_addr_section(dinfo *d) {
  const dsec *sec = d->addr;
  cur c = {sec->bytes, sec->bytes + sec->size, sec->bytes, sec, d->err};
  while (c.p < c.end) {
    const uint8_t *at = c.p;
    uint32_t len = 0;
    uint64_t ver = 0;
    uint8_t asize = 0, ssize = 0;
    TRY(get_u32(&c, &len, "contribution length"));
    if (len >= 0xfffffff0u) return bad(&c, at, "64-bit DWARF is not supported");
    if (len > (size_t)(c.end - c.p)) return bad(&c, at, "contribution length past the section");
    cur u = {c.p, c.p + len, c.base, c.sec, c.err};
    c.p += len;
    TRY(get_n(&u, 2, &ver, "version"));
    if (ver != 5) return bad(&u, u.p - 2, "unsupported .debug_addr version");
    TRY(get_u8(&u, &asize, "address size"));
    TRY(get_u8(&u, &ssize, "segment selector size"));
    if (asize != 4 || ssize != 0) return bad(&u, u.p - 2, "address size is not 4");
    if ((u.end - u.p) % 4) return bad(&u, u.p, "addresses do not fill the contribution");
    for (; u.p < u.end; u.p += 4) {
      put_u32_at(d->new_addr.p + (u.p - u.base), map_addr(d->am, u32_at(u.p)));
    }
  }
  return TL_OK;
}

/* The old address at index idx of the unit's .debug_addr table. */
static tl_status addr_at(dinfo *d, const unitst *u, uint64_t idx, const uint8_t *at, uint32_t *out) {
  cur ci = {d->info->bytes, d->info->bytes + d->info->size, d->info->bytes, d->info, d->err};
  if (!d->addr || u->addr_base == UINT64_MAX) return bad(&ci, at, "an address index without .debug_addr or DW_AT_addr_base");
  uint64_t off = u->addr_base + idx * 4;
  if (idx > d->addr->size || off + 4 > d->addr->size) return bad(&ci, at, "address index past .debug_addr");
  *out = u32_at(d->addr->bytes + off);
  return TL_OK;
}

/* The section offset of list idx of a DW_FORM_rnglistx/loclistx: base
 * points at the offsets array that follows the section's header. */
static tl_status list_at(dinfo *d, const dsec *sec, uint64_t base, uint64_t idx, const uint8_t *at,
                         uint32_t *out) {
  cur ci = {d->info->bytes, d->info->bytes + d->info->size, d->info->bytes, d->info, d->err};
  if (base == UINT64_MAX) return bad(&ci, at, "a list index without DW_AT_rnglists_base/loclists_base");
  uint64_t off = base + idx * 4;
  if (idx > sec->size || off + 4 > sec->size) return bad(&ci, at, "list index past the offsets array");
  *out = (uint32_t)(base + u32_at(sec->bytes + off));
  return TL_OK;
}

/* An address range [os, oe) mapped; false when its code is gone (or it
 * ends up empty or reversed). */
static bool map_range(const dinfo *d, uint32_t os, uint32_t oe, uint32_t *ns, uint32_t *ne) {
  *ns = map_addr(d->am, os), *ne = map_addr(d->am, oe);
  return !((os && !*ns) || (oe && !*ne) || *ne <= *ns);
}

/* A LEB128 at c (read into *v), and where its bytes are in the output. */
static tl_status leb_field(cur *c, uint8_t *out, uint64_t *v, uint8_t **at, size_t *n, const char *what) {
  const uint8_t *p = c->p;
  TRY(get_leb(c, false, v, what));
  *at = out + (p - c->base), *n = (size_t)(c->p - p);
  return TL_OK;
}

enum { RLE_END, RLE_BASEX, RLE_STARTX_ENDX, RLE_STARTX_LEN, RLE_OFFSET_PAIR, RLE_BASE, RLE_START_END,
       RLE_START_LEN, RLE_DEFAULT };

/* One bounded entry's mapping (kind k, after its code): addresses in
 * place, LEB128 lengths and offsets in their bytes. */
static tl_status map_entry(dinfo *d, cur *c, uint8_t *out, int k, const unitst *u, uint32_t *base,
                           uint32_t *start) {
  uint64_t a = 0, b = 0;
  uint8_t *pa = NULL, *pb = NULL;
  size_t na = 0, nb = 0;
  uint32_t s = 0, e = 0, ns, ne;
  switch (k) {
  case RLE_BASEX:
    TRY(get_leb(c, false, &a, "base address index"));
    return addr_at(d, u, a, c->p, base);
  case RLE_STARTX_ENDX: /* both in .debug_addr, mapped there */
    TRY(get_leb(c, false, &a, "start index"));
    TRY(addr_at(d, u, a, c->p, start));
    return get_leb(c, false, &b, "end index");
  case RLE_STARTX_LEN:
    TRY(get_leb(c, false, &a, "start index"));
    TRY(addr_at(d, u, a, c->p, &s));
    *start = s;
    TRY(leb_field(c, out, &b, &pb, &nb, "length"));
    if (!map_range(d, s, (uint32_t)(s + b), &ns, &ne) || !put_leb_at(pb, nb, ne - ns)) put_leb_at(pb, nb, 0);
    return TL_OK;
  case RLE_OFFSET_PAIR: {
    TRY(leb_field(c, out, &a, &pa, &na, "start offset"));
    TRY(leb_field(c, out, &b, &pb, &nb, "end offset"));
    uint32_t nbase = map_addr(d->am, *base);
    *start = (uint32_t)(*base + a);
    if (!map_range(d, (uint32_t)(*base + a), (uint32_t)(*base + b), &ns, &ne) || ns < nbase ||
        !put_leb_at(pa, na, ns - nbase) || !put_leb_at(pb, nb, ne - nbase))
      put_leb_at(pa, na, 1), put_leb_at(pb, nb, 1); /* empty, as .debug_ranges' */
    return TL_OK;
  }
  case RLE_BASE:
    TRY(get_u32(c, base, "base address"));
    put_u32_at(out + (c->p - 4 - c->base), map_addr(d->am, *base));
    return TL_OK;
  case RLE_START_END:
    TRY(get_u32(c, &s, "start address"));
    TRY(get_u32(c, &e, "end address"));
    *start = s;
    if (!map_range(d, s, e, &ns, &ne)) ne = ns;
    put_u32_at(out + (c->p - 8 - c->base), ns);
    put_u32_at(out + (c->p - 4 - c->base), ne);
    return TL_OK;
  case RLE_START_LEN:
    TRY(get_u32(c, &s, "start address"));
    *start = s;
    put_u32_at(out + (c->p - 4 - c->base), map_addr(d->am, s));
    TRY(leb_field(c, out, &b, &pb, &nb, "length"));
    if (!map_range(d, s, (uint32_t)(s + b), &ns, &ne) || !put_leb_at(pb, nb, ne - ns)) put_leb_at(pb, nb, 0);
    return TL_OK;
  default: return TL_OK; /* RLE_DEFAULT: no range */
  }
}

/* Maps the .debug_rnglists (is_loc false) or .debug_loclists list at off
 * of unit u. Location list entry codes are range list codes but for
 * DW_LLE_default_location (5); bounded entries and the default carry a
 * location expression. */
static tl_status map_list5(dinfo *d, bool is_loc, uint32_t off, const unitst *u) {
  const dsec *sec = is_loc ? d->loclists : d->rnglists;
  uint8_t *out = (is_loc ? d->new_loclists : d->new_rnglists).p;
  cur c;
  bool seen = false;
  TRY(open_list(d, sec, is_loc ? ".debug_loclists" : ".debug_rnglists", out,
                is_loc ? &d->done_loclists : &d->done_rnglists, off, &c, &seen));
  if (seen) return TL_OK;
  uint32_t base = u->base;
  for (;;) {
    uint8_t code = 0;
    TRY(get_u8(&c, &code, "list entry kind"));
    if (code > (is_loc ? 8 : 7)) return bad(&c, c.p - 1, "unknown list entry kind");
    int k = !is_loc || code < 5 ? code : code == 5 ? RLE_DEFAULT : code - 1;
    if (k == RLE_END) return TL_OK;
    uint32_t start = 0;
    TRY(map_entry(d, &c, out, k, u, &base, &start));
    if (is_loc && k != RLE_BASEX && k != RLE_BASE) {
      uint64_t len = 0;
      TRY(get_leb(&c, false, &len, "location expression length"));
      const uint8_t *x = c.p;
      TRY(skip(&c, len, "location expression"));
      if (k != RLE_DEFAULT) map_expr(sec, x, len, out + (x - c.base), func_of(d->am, start));
    }
  }
}

static bool is_loclist_attr(uint32_t a) {
  return a == 0x02 || a == 0x19 || a == 0x2a || a == 0x38 || a == 0x40 || a == 0x46 || a == 0x48 ||
         a == 0x4a || a == 0x4d;
}

/* The new offset of the line program at old offset off. */
static bool new_stmt_list(const dinfo *d, uint32_t off, uint32_t *out) {
  const lprog *p = d->lines->progs.p; /* in section order */
  size_t lo = 0, hi = d->lines->progs.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p[mid].off < off) lo = mid + 1;
    else hi = mid;
  }
  if (lo == d->lines->progs.n || p[lo].off != off) return false;
  *out = p[lo].new_off;
  return true;
}

typedef struct {           /* what one DIE's attributes need after reading */
  uint32_t low;
  bool has_low;
  bool low_x;              /* low_pc is .debug_addr entry low_idx */
  uint64_t low_idx;
  const uint8_t *low_at;
  uint8_t *high_at;        /* a data-form high_pc (length from low_pc) */
  size_t high_size;
  bool high_leb;           /* DW_FORM_udata: a LEB128 of high_size bytes */
  uint64_t high;
} die;

/* The value of an attribute of n bytes at `at` of form `form`. */
static uint64_t form_value(const cur *c, const uint8_t *at, size_t n, uint64_t form) {
  uint64_t v = 0;
  if (form == 0x0f || form == 0x15 || form == 0x1a || form == 0x1b || form == 0x22 || form == 0x23) {
    cur l = {at, at + n, c->base, c->sec, c->err};
    if (get_leb(&l, false, &v, "attribute")) return 0; /* skip_form read it already */
    return v;
  }
  for (size_t i = 0; i < n && i < 8; i++) v |= (uint64_t)at[i] << (8 * i);
  return v;
}

static bool is_addrx(uint64_t form) { return form == 0x1b || (form >= 0x29 && form <= 0x2c); }

/* One attribute of a DIE of unit u (unit_die: the unit's own DIE, which
 * sets its base address and list bases). */
static tl_status attr(dinfo *d, cur *c, const aspec *s, unitst *u, bool unit_die, die *x) {
  uint64_t form = s->form;
  const uint8_t *at = c->p;
  TRY(skip_form(c, &form));
  uint8_t *out = d->new_info.p + (at - c->base);
  size_t n = (size_t)(c->p - at);
  uint64_t v = form_value(c, at, n, form);
  if (form == 0x01) {                                    /* DW_FORM_addr */
    if (s->attr == 0x11) x->low = (uint32_t)v, x->has_low = true;
    put_u32_at(out, map_addr(d->am, (uint32_t)v));
    return TL_OK;
  }
  if (s->attr == 0x11 && is_addrx(form)) x->low_x = true, x->low_idx = v, x->low_at = at;
  bool data = form == 0x0b || form == 0x05 || form == 0x06 || form == 0x07 || form == 0x0f;
  if (s->attr == 0x12 && data) x->high_at = out, x->high_size = n, x->high = v, x->high_leb = form == 0x0f;
  bool offset = form == 0x17 || (u->ver <= 3 && (form == 0x06 || form == 0x07));
  if (s->attr == 0x10 && offset && n == 4) {             /* DW_AT_stmt_list */
    uint32_t no;
    if (!new_stmt_list(d, (uint32_t)v, &no)) return bad(c, at, "DW_AT_stmt_list names no line program");
    put_u32_at(out, no);
  }
  if (unit_die && form == 0x17) {                        /* DWARF 5 bases */
    if (s->attr == 0x73) u->addr_base = v;
    if (s->attr == 0x74) u->rng_base = v;
    if (s->attr == 0x8c) u->loc_base = v;
  }
  bool list = (offset && n == 4) || (u->ver >= 5 && (form == 0x22 || form == 0x23));
  if (list && (s->attr == 0x55 || is_loclist_attr(s->attr)))
    TL_VEC_PUSH(&d->pend, pend, ((pend){s->attr == 0x55 ? P_RANGES : P_LOCLIST, form, v, at}));
  bool block = form == 0x18 || form == 0x09 || form == 0x0a || form == 0x03 || form == 0x04;
  if (block && (is_loclist_attr(s->attr) || s->attr == 0x7e || s->attr == 0x2111)) {
    cur b = {at, c->p, c->base, c->sec, c->err};
    uint64_t len = 0;
    if (form == 0x18 || form == 0x09) TRY(get_leb(&b, false, &len, "block length"));
    else TRY(get_n(&b, form == 0x0a ? 1 : form == 0x03 ? 2 : 4, &len, "block length"));
    TL_VEC_PUSH(&d->pend, pend, ((pend){P_EXPR, form, len, b.p}));
  }
  return TL_OK;
}

/* The DIE's list attributes, now that its base address is known. */
static tl_status map_pending(dinfo *d, const unitst *u) {
  for (size_t i = 0; i < d->pend.n; i++) {
    const pend *p = &TL_VEC_AT(&d->pend, pend, i);
    uint32_t off = (uint32_t)p->v;
    bool is_loc = p->kind == P_LOCLIST;
    if (p->kind == P_EXPR) {
      map_expr(d->info, p->at, (size_t)p->v, d->new_info.p + (p->at - d->info->bytes), d->fn);
      continue;
    }
    if (u->ver < 5) {
      TRY(map_list(d, is_loc, off, u->base));
      continue;
    }
    const dsec *sec = is_loc ? d->loclists : d->rnglists;
    if ((p->form == 0x22 || p->form == 0x23) && !sec) return map_list5(d, is_loc, 0, u); /* its error */
    if (p->form == 0x22) TRY(list_at(d, sec, u->loc_base, p->v, p->at, &off));
    if (p->form == 0x23) TRY(list_at(d, sec, u->rng_base, p->v, p->at, &off));
    TRY(map_list5(d, is_loc, off, u));
  }
  d->pend.n = 0;
  return TL_OK;
}

/* A data-form high_pc is a length from low_pc: the new length. */
static void fix_high(dinfo *d, const die *x) {
  if (!x->high_at || !x->has_low) return;
  uint32_t nl = map_addr(d->am, x->low);
  uint32_t nh = map_addr(d->am, (uint32_t)(x->low + x->high));
  uint64_t len = nh > nl ? nh - nl : 0;
  unsigned bits = (unsigned)(x->high_leb ? 7 * x->high_size : 8 * x->high_size);
  if (bits < 64 && len >> bits) len = (1ull << bits) - 1; /* as long as it fits in place */
  for (size_t i = 0; i < x->high_size; i++) {
    uint64_t part = x->high_leb ? (7 * i < 64 ? len >> (7 * i) : 0) : (8 * i < 64 ? len >> (8 * i) : 0);
    if (!x->high_leb) x->high_at[i] = (uint8_t)part;
    else x->high_at[i] = (uint8_t)((part & 0x7f) | (i + 1 < x->high_size ? 0x80 : 0));
  }
}

static tl_status unit(dinfo *d, cur *c) {
  const uint8_t *at = c->p;
  uint32_t len = 0, aoff = 0;
  uint64_t ver = 0;
  uint8_t asize = 0;
  TRY(get_u32(c, &len, "unit length"));
  if (len >= 0xfffffff0u) return bad(c, at, "64-bit DWARF units are not supported");
  if (len > (size_t)(c->end - c->p)) return bad(c, at, "unit length past the section");
  cur u = {c->p, c->p + len, c->base, c->sec, c->err};
  c->p += len;
  TRY(get_n(&u, 2, &ver, "version"));
  if (ver < 2 || ver > 5) return bad(&u, u.p - 2, "unsupported unit version");
  uint8_t type = 1;
  if (ver == 5) {
    TRY(get_u8(&u, &type, "unit type"));
    if (type < 1 || type > 6) return bad(&u, u.p - 1, "unknown unit type");
    TRY(get_u8(&u, &asize, "address size"));
    TRY(get_u32(&u, &aoff, "abbreviation offset"));
    if (type != 1 && type != 3) TRY(skip(&u, type == 2 || type == 6 ? 12 : 8, "unit header"));
  } else {
    TRY(get_u32(&u, &aoff, "abbreviation offset"));
    TRY(get_u8(&u, &asize, "address size"));
  }
  if (asize != 4) return bad(&u, ver == 5 ? u.p - 5 : u.p - 1, "address size is not 4");
  TRY(read_abbrevs(d, aoff));
  unitst us = {(uint16_t)ver, 0, UINT64_MAX, UINT64_MAX, UINT64_MAX};
  bool first = true;
  while (u.p < u.end) {
    uint64_t code = 0;
    TRY(get_leb(&u, false, &code, "abbreviation code"));
    if (!code) continue;
    const abbrev *a = find_abbrev(d, code);
    if (!a) return bad(&u, u.p - 1, "DIE with an undefined abbreviation code");
    die x = {0};
    d->pend.n = 0;
    for (uint32_t i = 0; i < a->n; i++) TRY(attr(d, &u, &TL_VEC_AT(&d->specs, aspec, a->first + i), &us, first, &x));
    if (x.low_x) {
      TRY(addr_at(d, &us, x.low_idx, x.low_at, &x.low));
      x.has_low = true;
    }
    if (first && x.has_low) us.base = x.low;
    if (a->tag == 0x2e) d->fn = x.has_low ? func_of(d->am, x.low) : NULL; /* DW_TAG_subprogram */
    TRY(map_pending(d, &us));
    fix_high(d, &x);
    first = false;
  }
  return TL_OK;
}

static tl_status update_info(dinfo *d) {
  if (d->addr) TRY(map_addr_section(d));
  cur c = {d->info->bytes, d->info->bytes + d->info->size, d->info->bytes, d->info, d->err};
  while (c.p < c.end) TRY(unit(d, &c));
  return TL_OK;
}

/* ---- entry point ------------------------------------------------------------ */
/* Section k of the rewritten or read ones (tl_dwarf_names, then
 * .debug_abbrev), into secs[k] if the module has it. */
static const dsec *find(const tl_module *m, const uint32_t *offsets, dsec *secs, int k) {
  static const char *const abbrev = ".debug_abbrev";
  const char *name = k < TL_DWARF_NSECS ? tl_dwarf_names[k] : abbrev;
  for (size_t i = 0; i < m->customs.n; i++) {
    const tl_custom *c = &TL_VEC_AT(&m->customs, tl_custom, i);
    if (strcmp(c->name, name)) continue;
    secs[k] = (dsec){c->name, c->bytes, c->size, offsets ? offsets[i] : 0};
    return &secs[k];
  }
  return NULL;
}

static void copy_sec(tl_buf *b, const dsec *c) {
  if (c && c->size) tl_buf_put(b, c->bytes, c->size);
}

static void dinfo_free(dinfo *d) {
  tl_vec *v[] = {&d->abbrevs, &d->specs, &d->done_ranges, &d->done_loc, &d->done_rnglists, &d->done_loclists,
                 &d->pend};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) tl_vec_free(v[i]);
}

void tl_dwarf_free(tl_dwarf_out *o) {
  for (int i = 0; i < TL_DWARF_NSECS; i++) tl_buf_free(&o->bytes[i]);
}

const char *const tl_dwarf_names[TL_DWARF_NSECS] = {".debug_line", ".debug_info", ".debug_ranges", ".debug_loc",
                                                     ".debug_addr", ".debug_rnglists", ".debug_loclists"};

typedef struct { ltab t; amap am; tl_vec gs; dinfo d; dsec secs[TL_DWARF_NSECS + 1]; } upd;

static tl_status update(const tl_module *m, const tl_srcmap_entry *e, size_t n, uint32_t code,
                        tl_dwarf_locals *lm, size_t nlm, const uint32_t *offsets, tl_dwarf_out *out, upd *u,
                        tl_error *err) {
  ltab *t = &u->t;
  amap *am = &u->am;
  tl_vec *gs = &u->gs;
  dinfo *d = &u->d;
  const dsec *line = find(m, offsets, u->secs, 0);
  if (line) TRY(read_lines(line, t, err));
  build_map(am, e, n, code);
  attach_locals(am, lm, nlm);
  groups(gs, t, e, n);
  if (line) write_lines(line, t, gs, e, code, &out->bytes[0]);
  out->has[0] = line != NULL;
  *d = (dinfo){.info = find(m, offsets, u->secs, 1), .abbrev = find(m, offsets, u->secs, TL_DWARF_NSECS),
               .ranges = find(m, offsets, u->secs, 2), .loc = find(m, offsets, u->secs, 3),
               .addr = find(m, offsets, u->secs, 4), .rnglists = find(m, offsets, u->secs, 5),
               .loclists = find(m, offsets, u->secs, 6), .am = am, .lines = t, .err = err};
  if (!d->info) return TL_OK;
  const dsec *in[] = {NULL, d->info, d->ranges, d->loc, d->addr, d->rnglists, d->loclists};
  for (int k = 1; k < TL_DWARF_NSECS; k++) {
    copy_sec(&out->bytes[k], in[k]);
    out->has[k] = in[k] != NULL;
  }
  d->new_info = out->bytes[1], d->new_ranges = out->bytes[2], d->new_loc = out->bytes[3];
  d->new_addr = out->bytes[4], d->new_rnglists = out->bytes[5], d->new_loclists = out->bytes[6];
  return update_info(d);
}

tl_status tl_dwarf_update(const tl_module *m, const tl_srcmap_entry *e, size_t n, uint32_t code,
                          tl_dwarf_locals *locals, size_t nlocals, const uint32_t *offsets, tl_dwarf_out *out,
                          tl_error *err) {
  upd u;
  memset(&u, 0, sizeof u);
  memset(out, 0, sizeof *out);
  tl_status s = update(m, e, n, code, locals, nlocals, offsets, out, &u, err);
  tl_vec *v[] = {&u.t.rows, &u.t.seqs, &u.t.progs, &u.am.pairs, &u.am.funcs, &u.gs};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) tl_vec_free(v[i]);
  dinfo_free(&u.d);
  if (s) tl_dwarf_free(out);
  return s;
}

tl_debugloc tl_dwarf_loc(uint32_t addr, uint32_t kind) {
  return (tl_debugloc){TL_LOC_DWARF, addr + 1, kind};
}
