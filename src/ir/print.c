/* print.c — the module as folded s-expression text that wabt's
 * `wat2wasm --enable-all` assembles to an equivalent module.
 * Assumes a validated IR. Guarantees: deterministic output; every part of
 * the IR shows up (custom sections as comments); no recursion on nesting
 * depth (an explicit frame stack; indentation capped at MAX_INDENT levels);
 * unreachable-typed blocks get a block type their context accepts. Labels
 * are $l0, $l1... in print order; branches to the function label print as
 * depths. Dead-code `unreachable` operands (reader-made pops) print as
 * nothing, so print -> wat2wasm -> read -> print is stable. */
#include "ir.h"
#include "opcodes_align.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INDENT 40
#define W_ANY 0xfffffff0u /* context wants one value of any type */
#define UNSET UINT32_MAX

/* ------------------------------------------------------------- names */
/* A printable name per index, or NULL: name-section names with every byte
 * that is not a wat idchar replaced by '_'; a name equal to an earlier one
 * of the same space falls back to the index. */
typedef struct { char **s; uint32_t n; } names;

static bool is_idchar(uint8_t c) {
  return c > ' ' && c < 0x7f && !strchr("\"(),;[]{}", c);
}

static uint64_t str_hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

/* Inserts s into the open-addressing set; false if it was there. */
static bool set_add(char **set, uint32_t cap, char *s) {
  uint32_t i = (uint32_t)str_hash(s) & (cap - 1);
  for (; set[i]; i = (i + 1) & (cap - 1))
    if (!strcmp(set[i], s)) return false;
  set[i] = s;
  return true;
}

/* NULL when out of memory (the thing then prints by index). */
static char *sanitize(const char *raw) {
  size_t n = strlen(raw);
  char *s = tl_scratch_realloc(NULL, n + 1, 1);
  if (!s) return NULL;
  for (size_t i = 0; i < n; i++) s[i] = is_idchar((uint8_t)raw[i]) ? raw[i] : '_';
  s[n] = 0;
  return s;
}

/* raw(ctx, i) gives the i-th raw name or NULL. */
typedef const char *(*raw_fn)(const void *ctx, uint32_t i);

/* Out of memory, the names are left out (everything prints by index): the
 * printer's entry points return nothing to report it with. */
static names names_make(const void *ctx, uint32_t n, raw_fn raw) {
  names r = {tl_scratch_calloc(n, sizeof(char *)), n};
  uint32_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  char **set = tl_scratch_calloc(cap, sizeof(char *));
  if (!r.s || !set) {
    tl_free(r.s);
    tl_free(set);
    return (names){NULL, 0};
  }
  for (uint32_t i = 0; i < n; i++) {
    const char *s = raw(ctx, i);
    if (!s || !*s) continue;
    r.s[i] = sanitize(s);
    if (r.s[i] && !set_add(set, cap, r.s[i])) {
      tl_free(r.s[i]);
      r.s[i] = NULL;
    }
  }
  tl_free(set);
  return r;
}

static void names_free(names *n) {
  for (uint32_t i = 0; i < n->n; i++) tl_free(n->s[i]);
  tl_free(n->s);
  n->s = NULL;
  n->n = 0;
}

static const char *raw_func(const void *m, uint32_t i) { return TL_FUNC((tl_module *)m, i)->name; }
static const char *raw_global(const void *m, uint32_t i) { return TL_GLOBAL((tl_module *)m, i)->name; }
static const char *raw_memory(const void *m, uint32_t i) { return TL_MEMORY((tl_module *)m, i)->name; }
static const char *raw_table(const void *m, uint32_t i) { return TL_TABLE((tl_module *)m, i)->name; }
static const char *raw_elem(const void *m, uint32_t i) { return TL_ELEM((tl_module *)m, i)->name; }
static const char *raw_data(const void *m, uint32_t i) { return TL_DATA((tl_module *)m, i)->name; }
static const char *raw_type(const void *m, uint32_t i) { return TL_FTYPE((tl_module *)m, i)->name; }
static const char *raw_local(const void *f, uint32_t i) {
  const tl_func *fn = f;
  return fn->local_name && !tl_type_is_tuple(fn->local[i]) ? fn->local_name[i] : NULL;
}

enum { NS_FUNC, NS_GLOBAL, NS_MEMORY, NS_TABLE, NS_ELEM, NS_DATA, NS_TYPE, NS_LOCAL, NNS };

/* ----------------------------------------------------------- printer */
enum {
  K_NODE,   /* ( head kids... ) */
  K_ARM,    /* (then ...) / (else ...) of an if; (do ...), (catch ...) and
               (catch_all ...) of a try (head says which) */
  K_LIST,   /* kids inline, no parens: function body, tuple.make, and an
               unlabeled block (nothing branches to it, so its kids can
               stand in its place in the flat instruction sequence) */
  K_SPLIT,  /* kid, then text: tuple local.set/tee, drop of a tuple, tuple.extract */
};

typedef struct {
  tl_expr *e;
  uint32_t next;   /* next kid */
  uint32_t depth;  /* indentation level of this frame's own line */
  tl_type want;    /* what the context expects of this node's value */
  tl_type ptype;   /* printed result type of this node (control nodes) */
  uint8_t kind;
  uint8_t head;    /* K_ARM: H_* */
  const tl_expr *arm; /* K_ARM of a try: the CATCH / CATCH_ALL node */
} frame;

enum { H_THEN, H_ELSE, H_DO, H_CATCH, H_CATCH_ALL };
static const char *const arm_head[] = {"(then", "(else", "(do", "(catch", "(catch_all"};

typedef struct {
  tl_module *m;
  tl_func *f;           /* NULL outside a function */
  tl_buf *out;
  uint32_t *lmap;       /* wasm local base per IR local, or NULL */
  uint32_t *lnum;       /* printed number per label id, UNSET before it opens */
  tl_type *ltype;       /* printed branch type per label id */
  uint32_t nlab;        /* next printed label number */
  uint32_t ctl;         /* open printed constructs (depth of the function label) */
  uint32_t scratch[TL_NBASIC]; /* wasm index of a scratch local per type, or UNSET */
  names ns[NNS];
  tl_vec stack;         /* frames */
  tl_vec seqs;          /* per open instruction sequence: 1 once the stack is
                           polymorphic there (after br, unreachable, ...) */
  const tl_debugloc *loc; /* the debug location printed last in this function */
  uint32_t self;    /* while a type definition prints: its index (else UINT32_MAX) */
} pr;

/* In dead code an `unreachable` operand is what the reader makes when it
 * pops from the polymorphic stack; it prints as nothing (wat accepts the
 * missing operand there), so printing and re-reading is stable. */
static void seq_push(pr *p) { TL_VEC_PUSH(&p->seqs, uint8_t, 0); }
static void seq_pop(pr *p) { if (p->seqs.n) p->seqs.n--; }
static bool seq_dead(pr *p) { return p->seqs.n && TL_VEC_AT(&p->seqs, uint8_t, p->seqs.n - 1); }
static void seq_kill(pr *p) { if (p->seqs.n) TL_VEC_AT(&p->seqs, uint8_t, p->seqs.n - 1) = 1; }
static bool omitted(pr *p, const tl_expr *e) { return e->op == TL_OP_UNREACHABLE && seq_dead(p); }

static void put(pr *p, const char *s) { tl_buf_put(p->out, s, strlen(s)); }

static void newline(pr *p, uint32_t depth) {
  tl_buf_byte(p->out, '\n');
  uint32_t n = depth < MAX_INDENT ? depth : MAX_INDENT;
  for (uint32_t i = 0; i < n; i++) put(p, "  ");
}

static void put_ref(pr *p, int ns, uint32_t i) {
  if (i < p->ns[ns].n && p->ns[ns].s[i]) tl_buf_printf(p->out, "$%s", p->ns[ns].s[i]);
  else tl_buf_printf(p->out, "%u", i);
}

static void put_str(pr *p, const uint8_t *s, size_t n) {
  tl_buf_byte(p->out, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') tl_buf_byte(p->out, c);
    else tl_buf_printf(p->out, "\\%02x", c);
  }
  tl_buf_byte(p->out, '"');
}

static void put_cstr(pr *p, const char *s) { put_str(p, (const uint8_t *)s, strlen(s)); }

/* A heap type: abstract by name, defined by its $name or index. */
static void put_heap(pr *p, uint32_t ht) {
  if (p->self != UINT32_MAX) ht = tl_heap_in_group(p->m, p->self, ht);
  if (ht < TL_HT_DEF) {
    put(p, tl_heap_name(ht) ? tl_heap_name(ht) : "func");
    return;
  }
  uint32_t i = ht - TL_HT_DEF;
  if (i < p->ns[NS_TYPE].n && p->ns[NS_TYPE].s[i]) tl_buf_printf(p->out, "$%s", p->ns[NS_TYPE].s[i]);
  else tl_buf_printf(p->out, "%u", i);
}

/* One value type (a reference type in its short form where it has one). */
static void put_vt(pr *p, tl_type t) {
  if (t < TL_REF_BASE || (tl_ref_nullable(t) && tl_ref_heap(t) < TL_HT_NABSTRACT)) {
    put(p, tl_type_name(t));
    return;
  }
  put(p, tl_ref_nullable(t) ? "(ref null " : "(ref ");
  put_heap(p, tl_ref_heap(t));
  put(p, ")");
}

/* Value types of t, space-separated (tuples give several). */
static void put_types(pr *p, tl_type t) {
  uint32_t n = tl_type_arity(p->m, t);
  for (uint32_t i = 0; i < n; i++) {
    if (i) put(p, " ");
    put_vt(p, tl_type_at(p->m, t, i));
  }
}

static void put_result(pr *p, tl_type t) {
  if (!tl_type_arity(p->m, t)) return;
  put(p, " (result ");
  put_types(p, t);
  put(p, ")");
}

/* ------------------------------------------------------------ floats */
static void put_hex_frac(pr *p, uint64_t frac, int digits) {
  while (digits > 0 && !(frac & 0xf)) {
    frac >>= 4;
    digits--;
  }
  if (digits) tl_buf_printf(p->out, ".%0*" PRIx64, digits, frac);
}

/* Exact text of an IEEE value: hex float, inf, nan or nan:0xPAYLOAD. */
static void put_float(pr *p, uint64_t bits, int mbits, int ebits) {
  uint64_t man = bits & ((1ull << mbits) - 1);
  uint64_t emax = (1ull << ebits) - 1, exp = (bits >> mbits) & emax;
  int bias = (int)(emax >> 1), digits = (mbits + 3) / 4;
  uint64_t frac = man << (digits * 4 - mbits);
  if ((bits >> (mbits + ebits)) & 1) tl_buf_byte(p->out, '-');
  if (exp == emax) {
    if (!man) put(p, "inf");
    else if (man == 1ull << (mbits - 1)) put(p, "nan");
    else tl_buf_printf(p->out, "nan:0x%" PRIx64, man);
  } else if (!exp && !man) {
    put(p, "0x0p+0");
  } else {
    put(p, exp ? "0x1" : "0x0");
    put_hex_frac(p, frac, digits);
    tl_buf_printf(p->out, "p%+d", exp ? (int)exp - bias : 1 - bias);
  }
}

/* --------------------------------------------------------- immediates */
static bool is_tuple_local(pr *p, uint32_t i) {
  return p->f && i < p->f->nlocal && tl_type_is_tuple(p->f->local[i]);
}

static uint32_t local_index(pr *p, uint32_t i) {
  return p->lmap && p->f && i < p->f->nlocal ? p->lmap[i] : i;
}

static void put_local(pr *p, uint32_t i) {
  if (p->f && i < p->ns[NS_LOCAL].n && p->ns[NS_LOCAL].s[i]) put_ref(p, NS_LOCAL, i);
  else tl_buf_printf(p->out, "%u", local_index(p, i));
}

static bool is_func_label(pr *p, uint32_t l) {
  return p->f && p->f->body && p->f->body->imm.block.label == l && l != TL_NO_LABEL;
}

static void put_label(pr *p, uint32_t l) {
  if (is_func_label(p, l)) tl_buf_printf(p->out, " %u", p->ctl);
  else if (p->lnum && l < p->f->nlabel && p->lnum[l] != UNSET) tl_buf_printf(p->out, " $l%u", p->lnum[l]);
  else tl_buf_printf(p->out, " $L%u", l);
}

static void put_memarg(pr *p, const tl_expr *e) {
  const tl_memarg *ma = &e->imm.mem;
  if (ma->mem) {
    put(p, " ");
    put_ref(p, NS_MEMORY, ma->mem);
  }
  uint64_t off = tl_memarg_offset(p->m, ma);
  if (off) tl_buf_printf(p->out, " offset=%" PRIu64, off);
  if (ma->align != tl_op_natural_align(e->op)) tl_buf_printf(p->out, " align=%" PRIu64, (uint64_t)1 << ma->align);
}

static void put_sp_ref(pr *p, int ns, uint32_t i) {
  put(p, " ");
  put_ref(p, ns, i);
}

/* Two indices that default to 0: printed when either is not 0. */
static void put_pair(pr *p, int ns, uint32_t a, uint32_t b) {
  if (a || b) {
    put_sp_ref(p, ns, a);
    put_sp_ref(p, ns, b);
  }
}

static void put_v128(pr *p, const uint8_t *v) {
  put(p, " i32x4");
  for (int i = 0; i < 16; i += 4) {
    uint32_t w = v[i] | (uint32_t)v[i + 1] << 8 | (uint32_t)v[i + 2] << 16 | (uint32_t)v[i + 3] << 24;
    tl_buf_printf(p->out, " 0x%08x", w);
  }
}

/* Field k of struct type t by its name when it has one that is an id as
 * it is and the first of its type with that name, else NULL. */
static const char *field_name(pr *p, uint32_t t, uint32_t k) {
  if (t >= p->m->types.n) return NULL;
  const tl_deftype *d = TL_FTYPE(p->m, t);
  if (d->kind != TL_DT_STRUCT || k >= d->nfields) return NULL;
  const char *s = d->fields[k].name;
  if (!s || !*s) return NULL;
  for (const char *c = s; *c; c++)
    if (!is_idchar((uint8_t)*c)) return NULL;
  for (uint32_t j = 0; j < k; j++)
    if (d->fields[j].name && !strcmp(d->fields[j].name, s)) return NULL;
  return s;
}

static void put_field_ref(pr *p, uint32_t t, uint32_t k) {
  const char *s = field_name(p, t, k);
  if (s) tl_buf_printf(p->out, "$%s", s);
  else tl_buf_printf(p->out, "%u", k);
}

/* Module type index i, as a heap type (its $name or index). */
static void put_sp_heap(pr *p, uint32_t i) {
  put(p, " ");
  put_heap(p, TL_HT_DEF + i);
}

/* br_on_cast(_fail) label rt1 rt2: rt1 the operand's type (its top when
 * unreachable), rt2 the target within it (the writer's choice). */
static void put_br_cast(pr *p, const tl_expr *e) {
  tl_type t = e->imm.idx2.b, in = e->nkid ? e->kid[0]->type : TL_UNREACHABLE;
  put_label(p, e->imm.label);
  if (!tl_type_is_ref(t)) return;
  if (!tl_type_is_ref(in)) in = tl_ref(tl_heap_top(p->m, tl_ref_heap(t)), true);
  else t = tl_type_glb(p->m, t, in);
  put(p, " ");
  put_vt(p, in);
  put(p, " ");
  put_vt(p, t);
}

/* The mnemonic and immediates of a non-control node, without parens. */
static void put_head(pr *p, const tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  put(p, oi->text);
  switch (oi->imm) {
  case TL_IMM_LABEL:
    if (e->op == TL_OP_DELEGATE) p->ctl--; /* its depth counts from outside its try */
    put_label(p, e->imm.label);
    if (e->op == TL_OP_DELEGATE) p->ctl++;
    break;
  case TL_IMM_BR_TABLE:
    for (uint32_t i = 0; i < e->imm.table->n; i++) put_label(p, e->imm.table->targets[i]);
    put_label(p, e->imm.table->def);
    break;
  case TL_IMM_FUNC: put_sp_ref(p, NS_FUNC, e->imm.index); break;
  case TL_IMM_TYPE: put(p, " "); put_heap(p, TL_HT_DEF + e->imm.index); break;
  case TL_IMM_CALL_INDIRECT:
    if (e->imm.idx2.b) put_sp_ref(p, NS_TABLE, e->imm.idx2.b);
    tl_buf_printf(p->out, " (type %u)", e->imm.idx2.a);
    break;
  case TL_IMM_LOCAL: put(p, " "); put_local(p, e->imm.index); break;
  case TL_IMM_GLOBAL: put_sp_ref(p, NS_GLOBAL, e->imm.index); break;
  case TL_IMM_TABLE: put_sp_ref(p, NS_TABLE, e->imm.index); break;
  case TL_IMM_MEMARG: put_memarg(p, e); break;
  case TL_IMM_MEM: if (e->imm.index) put_sp_ref(p, NS_MEMORY, e->imm.index); break;
  case TL_IMM_MEM_COPY: put_pair(p, NS_MEMORY, e->imm.idx2.a, e->imm.idx2.b); break;
  case TL_IMM_MEM_INIT:
    if (e->imm.idx2.b) put_sp_ref(p, NS_MEMORY, e->imm.idx2.b);
    put_sp_ref(p, NS_DATA, e->imm.idx2.a);
    break;
  case TL_IMM_DATA: put_sp_ref(p, NS_DATA, e->imm.index); break;
  case TL_IMM_ELEM: put_sp_ref(p, NS_ELEM, e->imm.index); break;
  case TL_IMM_TABLE_INIT:
    if (e->imm.idx2.b) put_sp_ref(p, NS_TABLE, e->imm.idx2.b);
    put_sp_ref(p, NS_ELEM, e->imm.idx2.a);
    break;
  case TL_IMM_TABLE_COPY: put_pair(p, NS_TABLE, e->imm.idx2.a, e->imm.idx2.b); break;
  case TL_IMM_I32: tl_buf_printf(p->out, " %" PRId32, e->imm.i32); break;
  case TL_IMM_I64: tl_buf_printf(p->out, " %" PRId64, e->imm.i64); break;
  case TL_IMM_F32: put(p, " "); put_float(p, e->imm.f32, 23, 8); break;
  case TL_IMM_F64: put(p, " "); put_float(p, e->imm.f64, 52, 11); break;
  case TL_IMM_V128: put_v128(p, e->imm.v128); break;
  case TL_IMM_LANE: tl_buf_printf(p->out, " %u", e->imm.mem.lane); break;
  case TL_IMM_SHUFFLE:
    for (int i = 0; i < 16; i++) tl_buf_printf(p->out, " %u", e->imm.v128[i]);
    break;
  case TL_IMM_MEMARG_LANE:
    put_memarg(p, e);
    tl_buf_printf(p->out, " %u", e->imm.mem.lane);
    break;
  case TL_IMM_REFTYPE:
    put(p, " ");
    put_heap(p, tl_type_is_ref(e->imm.index) ? tl_ref_heap(e->imm.index) : TL_HT_FUNC);
    break;
  case TL_IMM_TAG: tl_buf_printf(p->out, " %u", e->imm.index); break;
  case TL_IMM_SELECT_T: put_result(p, e->imm.index); break;
  case TL_IMM_TUPLE_INDEX: tl_buf_printf(p->out, " %u", e->imm.index); break;
  case TL_IMM_TYPE_FIELD:
    put_sp_heap(p, e->imm.idx2.a);
    put(p, " ");
    put_field_ref(p, e->imm.idx2.a, e->imm.idx2.b);
    break;
  case TL_IMM_TYPE_COUNT:
    put_sp_heap(p, e->imm.idx2.a);
    tl_buf_printf(p->out, " %u", e->imm.idx2.b);
    break;
  case TL_IMM_TYPE_DATA: put_sp_heap(p, e->imm.idx2.a); put_sp_ref(p, NS_DATA, e->imm.idx2.b); break;
  case TL_IMM_TYPE_ELEM: put_sp_heap(p, e->imm.idx2.a); put_sp_ref(p, NS_ELEM, e->imm.idx2.b); break;
  case TL_IMM_TYPE_TYPE: put_sp_heap(p, e->imm.idx2.a); put_sp_heap(p, e->imm.idx2.b); break;
  case TL_IMM_CAST: put(p, " "); put_vt(p, e->imm.index); break;
  case TL_IMM_BR_CAST: put_br_cast(p, e); break;
  default: break;
  }
}

/* ------------------------------------------------------------ typing */
static tl_type natural(pr *p, const tl_expr *e) {
  if (tl_ops[e->op].flags & TL_F_NORETURN) return TL_UNREACHABLE;
  if (e->op == TL_OP_LOCAL_GET || e->op == TL_OP_LOCAL_TEE)
    return p->f && e->imm.index < p->f->nlocal ? p->f->local[e->imm.index] : TL_UNREACHABLE;
  if (e->op == TL_OP_TUPLE_EXTRACT && e->kid[0]->type == TL_UNREACHABLE) return TL_UNREACHABLE;
  return tl_expr_natural_type(p->m, p->f, e);
}

static bool is_inline_arm(const tl_expr *a) {
  return a->op == TL_OP_BLOCK && a->imm.block.label == TL_NO_LABEL;
}

/* What an unreachable-typed construct would leave if nothing forced its
 * type: follow last kids down to a node with a natural type. */
static tl_type content_type(pr *p, const tl_expr *e) {
  for (;;) {
    if (e->type != TL_UNREACHABLE) return e->type;
    if (!(tl_ops[e->op].flags & TL_F_CONTROL)) return natural(p, e);
    if (e->op == TL_OP_IF) {
      if (e->nkid < 3 || !e->kid[2]) return TL_NONE;
      e = e->kid[1]->type == TL_UNREACHABLE && !(tl_ops[e->kid[1]->op].flags & TL_F_CONTROL) &&
                  e->kid[2]->type != TL_UNREACHABLE ? e->kid[2] : e->kid[1];
      continue;
    }
    if (!e->nkid || !e->kid[e->nkid - 1]) return TL_UNREACHABLE;
    e = e->kid[e->nkid - 1];
  }
}

/* The result type a block, loop or if is printed with. */
static tl_type printed_type(pr *p, const tl_expr *e, tl_type want) {
  if (e->type != TL_UNREACHABLE) return e->type;
  if (e->op == TL_OP_IF && (e->nkid < 3 || !e->kid[2])) return TL_NONE;
  if (want != W_ANY && want != TL_UNREACHABLE) return want;
  tl_type t = content_type(p, e);
  if (want == W_ANY) return (t >= TL_I32 && t < TL_NBASIC) || tl_type_is_ref(t) ? t : TL_I32;
  return tl_type_is_concrete(t) ? t : TL_NONE;
}

static tl_type param_at(pr *p, uint32_t type, uint32_t i) {
  if (type >= p->m->types.n) return TL_UNREACHABLE;
  tl_type ps = TL_FTYPE(p->m, type)->params;
  return i < tl_type_arity(p->m, ps) ? tl_type_at(p->m, ps, i) : TL_I32;
}

static tl_type label_type(pr *p, uint32_t l) {
  if (is_func_label(p, l)) return tl_func_type(p->m, p->f)->results;
  return p->ltype && l < p->f->nlabel ? p->ltype[l] : TL_UNREACHABLE;
}

static tl_type table_elem(pr *p, uint32_t t) {
  return t < p->m->tables.n ? TL_TABLE(p->m, t)->elem : TL_FUNCREF;
}

/* What parent e (printed with type ptype, wanted as want) expects of kid i. */
static tl_type kid_want(pr *p, const tl_expr *e, uint32_t i, tl_type ptype, tl_type want) {
  const tl_opinfo *oi = &tl_ops[e->op];
  if (oi->nops != TL_SIG_SPECIAL)
    return i < oi->nops ? tl_index_operand_type(p->m, e->op, e->imm, i, oi->ops[i]) : TL_UNREACHABLE;
  bool last = i + 1 == e->nkid;
  tl_type it = tl_table_is64(p->m, oi->imm == TL_IMM_CALL_INDIRECT ? e->imm.idx2.b : e->imm.index) ? TL_I64 : TL_I32;
  switch (e->op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: return last ? ptype : TL_NONE;
  case TL_OP_TRY: case TL_OP_TRY_TABLE: return ptype;
  case TL_OP_IF: return i == 0 ? TL_I32 : ptype;
  case TL_OP_BR: return label_type(p, e->imm.label);
  case TL_OP_BR_IF: return last ? TL_I32 : label_type(p, e->imm.label);
  case TL_OP_BR_TABLE: return last ? TL_I32 : label_type(p, e->imm.table->def);
  case TL_OP_RETURN: return p->f ? tl_func_type(p->m, p->f)->results : TL_UNREACHABLE;
  case TL_OP_CALL: case TL_OP_RETURN_CALL:
    return e->imm.index < p->m->funcs.n ? param_at(p, TL_FUNC(p->m, e->imm.index)->type, i) : TL_UNREACHABLE;
  case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL_INDIRECT:
    return last ? it : param_at(p, e->imm.idx2.a, i);
  case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF:
    return !last ? param_at(p, e->imm.index, i)
           : e->imm.index < p->m->types.n ? tl_ref_def(TL_FTYPE(p->m, e->imm.index)->canon, true) : TL_UNREACHABLE;
  case TL_OP_DROP: return W_ANY;
  case TL_OP_SELECT: return i == 2 ? TL_I32 : W_ANY;
  case TL_OP_SELECT_T: return i == 2 ? TL_I32 : e->imm.index;
  case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE:
    return p->f && e->imm.index < p->f->nlocal ? p->f->local[e->imm.index] : TL_UNREACHABLE;
  case TL_OP_GLOBAL_SET:
    return e->imm.index < p->m->globals.n ? TL_GLOBAL(p->m, e->imm.index)->type : TL_UNREACHABLE;
  case TL_OP_TABLE_GET: return it;
  case TL_OP_TABLE_SET: case TL_OP_TABLE_FILL:
    return i == 1 ? table_elem(p, e->imm.index) : it;
  case TL_OP_TABLE_GROW: return i == 0 ? table_elem(p, e->imm.index) : it;
  case TL_OP_THROW: {
    tl_type ps = e->imm.index < p->m->tags.n ? tl_tag_params(p->m, e->imm.index) : TL_NONE;
    return i < tl_type_arity(p->m, ps) ? tl_type_at(p->m, ps, i) : TL_UNREACHABLE;
  }
  case TL_OP_THROW_REF: return TL_EXNREF;
  case TL_OP_TUPLE_MAKE:
    return want != W_ANY && tl_type_is_tuple(want) && i < tl_type_arity(p->m, want) ? tl_type_at(p->m, want, i) : W_ANY;
  case TL_OP_REF_AS_NON_NULL: case TL_OP_BR_ON_NULL: /* a nullable form of what e must give */
    return tl_type_is_ref(want) ? tl_ref_with_null(want, true) : tl_ref(TL_HT_ANY, true);
  case TL_OP_BR_ON_NON_NULL: {
    tl_type lt = label_type(p, e->imm.label);
    return tl_type_is_ref(lt) ? tl_ref_with_null(lt, true) : tl_ref(TL_HT_ANY, true);
  }
  default: return tl_op_is_gc(e->op) ? tl_gc_operand_type(p->m, e, i) : TL_UNREACHABLE;
  }
}

static void names_begin(pr *p);

/* ------------------------------------------------------- expressions */
static void push(pr *p, tl_expr *e, uint8_t kind, uint32_t depth, tl_type want) {
  frame fr = {e, 0, depth, want, TL_NONE, kind, H_THEN, NULL};
  TL_VEC_PUSH(&p->stack, frame, fr);
}

static frame *top(pr *p) { return &TL_VEC_AT(&p->stack, frame, p->stack.n - 1); }

/* Values a node leaves on the stack (for drops after it). */
static uint32_t nvalues(pr *p, const tl_expr *e) {
  tl_type t = e->type;
  if (t == TL_UNREACHABLE && !(tl_ops[e->op].flags & TL_F_CONTROL)) t = natural(p, e);
  uint32_t n = tl_type_arity(p->m, t);
  return n ? n : 1;
}

static bool is_tuple_get(pr *p, const tl_expr *e) {
  return e->op == TL_OP_LOCAL_GET && is_tuple_local(p, e->imm.index);
}

static void put_tuple_gets(pr *p, uint32_t local, uint32_t from, uint32_t to) {
  uint32_t b = local_index(p, local);
  for (uint32_t k = from; k < to; k++) tl_buf_printf(p->out, "%s(local.get %u)", k > from ? " " : "", b + k);
}

/* A node without kids, on the current line. */
static void put_leaf(pr *p, const tl_expr *e) {
  if (is_tuple_get(p, e)) {
    put_tuple_gets(p, e->imm.index, 0, tl_type_arity(p->m, p->f->local[e->imm.index]));
  } else if (e->op == TL_OP_TUPLE_EXTRACT && e->nkid && is_tuple_get(p, e->kid[0])) {
    put_tuple_gets(p, e->kid[0]->imm.index, e->imm.index, e->imm.index + 1);
  } else {
    put(p, "(");
    put_head(p, e);
    put(p, ")");
  }
}

static bool is_leaf(pr *p, const tl_expr *e) {
  if (!e || (tl_ops[e->op].flags & TL_F_CONTROL) || e->op == TL_OP_TUPLE_MAKE) return false;
  if (e->op == TL_OP_TUPLE_EXTRACT) return e->nkid && is_tuple_get(p, e->kid[0]);
  return e->nkid == 0;
}

/* Kids that need a split frame (tuple plumbing after the kid). */
static bool needs_split(pr *p, const tl_expr *e) {
  switch (e->op) {
  case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE: return is_tuple_local(p, e->imm.index);
  case TL_OP_DROP: return e->nkid && nvalues(p, e->kid[0]) > 1;
  case TL_OP_TUPLE_EXTRACT: return !is_leaf(p, e);
  default: return false;
  }
}

/* A small subtree without control or tuple plumbing prints on one line. */
#define FLAT_NODES 6

static bool fits(pr *p, const tl_expr *e, uint32_t *budget) {
  if (!e || !*budget) return false;
  --*budget;
  if (is_leaf(p, e)) return true;
  if (tl_ops[e->op].flags & TL_F_CONTROL || e->op == TL_OP_TUPLE_MAKE || needs_split(p, e)) return false;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (!fits(p, e->kid[i], budget)) return false; /* recursion bounded by FLAT_NODES */
  return true;
}

static bool is_flat(pr *p, const tl_expr *e) {
  uint32_t budget = FLAT_NODES;
  if (p->f && p->f->locs) return false; /* each node on a line of its own, after its location */
  return fits(p, e, &budget);
}

/* A br_on_* whose operand never produces a value is that operand: it
 * never branches, and its label may take no value in the text (as the
 * writer leaves it out). */
static const tl_expr *dead_br_on(const tl_expr *e) {
  return tl_op_is_br_on(e->op) && e->nkid && e->kid[0]->type == TL_UNREACHABLE ? e->kid[0] : e;
}

static void put_flat(pr *p, const tl_expr *e) {
  e = dead_br_on(e);
  if (is_leaf(p, e)) {
    put_leaf(p, e);
    if (tl_ops[e->op].flags & TL_F_NORETURN) seq_kill(p);
    return;
  }
  put(p, "(");
  put_head(p, e);
  for (uint32_t i = 0; i < e->nkid; i++) {
    if (omitted(p, e->kid[i])) continue;
    put(p, " ");
    put_flat(p, e->kid[i]); /* depth bounded by FLAT_NODES */
  }
  put(p, ")");
  if (tl_ops[e->op].flags & TL_F_NORETURN) seq_kill(p);
}

static void open_label(pr *p, const tl_expr *e, tl_type bt) {
  uint32_t l = e->imm.block.label;
  if (l == TL_NO_LABEL) return;
  if (!p->f || l >= p->f->nlabel || !p->lnum) {
    tl_buf_printf(p->out, " $L%u", l);
    return;
  }
  p->lnum[l] = p->nlab;
  p->ltype[l] = bt;
  tl_buf_printf(p->out, " $l%u", p->nlab++);
}

/* wat2wasm gives a block with several results the first type [] -> results
 * (appending one if there is none) and ignores a type index otherwise, so
 * (type N) prints only when it names another, equal type. */
static void put_blocktype(pr *p, const tl_expr *e, tl_type t) {
  uint32_t bt = e->imm.block.bt;
  if (bt != TL_NO_INDEX && bt < p->m->types.n && tl_type_arity(p->m, t) > 1 &&
      TL_FTYPE(p->m, bt)->params == TL_NONE && TL_FTYPE(p->m, bt)->results == t) {
    uint32_t first = 0;
    while (TL_FTYPE(p->m, first)->params != TL_NONE || TL_FTYPE(p->m, first)->results != t) first++;
    if (first != bt) tl_buf_printf(p->out, " (type %u)", bt);
  }
  put_result(p, t);
}

/* A catch arm's payload: into its local (a tuple local's components, the
 * last first), or dropped. */
static void put_payload(pr *p, const tl_expr *a) {
  uint32_t l = a->imm.idx2.a, tag = a->imm.idx2.b;
  tl_buf_printf(p->out, " %u", tag);
  if (l == TL_NO_INDEX || !p->f || l >= p->f->nlocal) {
    uint32_t n = tag < p->m->tags.n ? tl_type_arity(p->m, tl_tag_params(p->m, tag)) : 0;
    while (n--) put(p, " (drop)");
    return;
  }
  if (!is_tuple_local(p, l)) {
    put(p, " (local.set ");
    put_local(p, l);
    put(p, ")");
    return;
  }
  uint32_t b = local_index(p, l);
  for (uint32_t k = tl_type_arity(p->m, p->f->local[l]); k-- > 0;) tl_buf_printf(p->out, " (local.set %u)", b + k);
}

/* A try_table's clauses, on its head line (their labels are outside it). */
static void put_clauses(pr *p, const tl_expr *e) {
  for (uint32_t i = 1; i < e->nkid; i++) {
    const tl_expr *c = e->kid[i];
    tl_buf_printf(p->out, " (%s", tl_ops[c->op].text);
    if (c->op == TL_OP_TT_CATCH || c->op == TL_OP_TT_CATCH_REF) tl_buf_printf(p->out, " %u", c->imm.idx2.b);
    put_label(p, c->imm.idx2.a);
    put(p, ")");
  }
}

/* `;;@ FILE:LINE:COL` on a line of its own before a node whose debug
 * location is not the one printed last (as wasm-opt prints them). */
static void put_location(pr *p, const tl_expr *e, uint32_t depth) {
  const tl_debugloc *l = tl_loc_get(p->f, e);
  if (!l || l->file == TL_LOC_DWARF || (p->loc && tl_loc_eq(p->loc, l))) return; /* DWARF: no source */
  p->loc = l;
  const char *file = l->file < p->m->debug_files.n ? TL_VEC_AT(&p->m->debug_files, const char *, l->file) : "?";
  tl_buf_printf(p->out, ";;@ %s:%u:%u", file, l->line, l->col);
  newline(p, depth);
}

/* Opens frame fr (first visit): prints its head. */
static void open_frame(pr *p, frame *fr) {
  tl_expr *e = fr->e;
  switch (fr->kind) {
  case K_LIST: case K_SPLIT: return;
  case K_ARM:
    newline(p, fr->depth);
    put(p, arm_head[fr->head]);
    if (fr->head == H_CATCH) put_payload(p, fr->arm);
    seq_push(p);
    return;
  default: break;
  }
  newline(p, fr->depth);
  put_location(p, e, fr->depth);
  if (tl_ops[e->op].flags & TL_F_CONTROL) {
    fr->ptype = printed_type(p, e, fr->want);
    tl_buf_printf(p->out, "(%s", tl_ops[e->op].text);
    open_label(p, e, e->op == TL_OP_LOOP ? TL_NONE : fr->ptype);
    put_blocktype(p, e, fr->ptype);
    if (e->op == TL_OP_TRY_TABLE) put_clauses(p, e);
    if (e->op != TL_OP_IF) {
      p->ctl++;
      seq_push(p);
    }
    return;
  }
  if (is_flat(p, e)) {
    put_flat(p, e);
    fr->next = UNSET;
    return;
  }
  put(p, "(");
  put_head(p, e);
}

/* Text after the kid of a split frame. */
static void close_split(pr *p, frame *fr) {
  tl_expr *e = fr->e;
  newline(p, fr->depth);
  if (e->op == TL_OP_DROP) {
    for (uint32_t k = nvalues(p, e->kid[0]); k-- > 0;) put(p, k ? "(drop) " : "(drop)");
    return;
  }
  if (e->op == TL_OP_TUPLE_EXTRACT) {
    uint32_t n = nvalues(p, e->kid[0]), k = e->imm.index;
    for (uint32_t i = n; i-- > k + 1;) put(p, "(drop) ");
    if (k == 0) return;
    tl_type t = e->type == TL_UNREACHABLE ? natural(p, e) : e->type;
    uint32_t s = t < TL_NBASIC ? p->scratch[t] : UNSET;
    if (s == UNSET) put(p, "(local.set $tuple_scratch)");
    else tl_buf_printf(p->out, "(local.set %u)", s);
    for (uint32_t i = 0; i < k; i++) put(p, " (drop)");
    if (s == UNSET) put(p, " (local.get $tuple_scratch)");
    else tl_buf_printf(p->out, " (local.get %u)", s);
    return;
  }
  uint32_t n = tl_type_arity(p->m, p->f->local[e->imm.index]), b = local_index(p, e->imm.index);
  for (uint32_t k = n; k-- > 0;) tl_buf_printf(p->out, "(local.set %u)%s", b + k, k ? " " : "");
  if (e->op == TL_OP_LOCAL_TEE) {
    put(p, " ");
    put_tuple_gets(p, e->imm.index, 0, n);
  }
}

static void close_frame(pr *p, frame *fr) {
  tl_expr *e = fr->e;
  switch (fr->kind) {
  case K_LIST: return;
  case K_SPLIT: close_split(p, fr); return;
  case K_ARM:
    put(p, ")");
    seq_pop(p);
    return;
  default: break;
  }
  if (fr->next == UNSET) return; /* printed on one line already */
  if (tl_ops[e->op].flags & TL_F_CONTROL) p->ctl--;
  if ((tl_ops[e->op].flags & TL_F_CONTROL) && e->op != TL_OP_IF) seq_pop(p);
  if (tl_ops[e->op].flags & TL_F_NORETURN) seq_kill(p);
  put(p, ")");
}

static void push_node(pr *p, tl_expr *k, uint32_t depth, tl_type want) {
  if (k->op == TL_OP_TUPLE_MAKE || is_inline_arm(k)) {
    push(p, k, K_LIST, depth, want);
    top(p)->ptype = k->type == TL_UNREACHABLE ? want : k->type;
    return;
  }
  push(p, k, needs_split(p, k) ? K_SPLIT : K_NODE, depth, want);
}

/* A dead `unreachable` is left out as an operand, or as the value that ends
 * a list with a result; a statement `unreachable` resets the stack, so it
 * stays. */
static bool omit_ok(pr *p, const frame *fr, uint32_t i) {
  const tl_expr *e = fr->e;
  bool list = (fr->kind == K_ARM && is_inline_arm(e)) || (fr->kind == K_LIST && e->op != TL_OP_TUPLE_MAKE) ||
              (fr->kind == K_NODE && (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP));
  if (!list) return true;
  return i + 1 == e->nkid && tl_type_arity(p->m, fr->ptype) > 0;
}

/* Pushes the frame for kid i of fr (or its if-arm frame). */
static void push_kid(pr *p, frame *fr, uint32_t i) {
  tl_expr *e = fr->e, *k;
  uint32_t d = fr->depth + 1;
  tl_type ptype = fr->ptype; /* fr dies when push grows the stack */
  tl_type want;
  if (fr->kind == K_ARM) {
    bool inl = is_inline_arm(e);
    k = inl ? e->kid[i] : e;
    want = !inl || i + 1 == e->nkid ? fr->ptype : TL_NONE;
  } else if (fr->kind == K_SPLIT) {
    k = e->kid[i];
    want = kid_want(p, e, i, fr->ptype, fr->want);
    d = fr->depth;
  } else {
    k = e->kid[i];
    want = kid_want(p, e, i, fr->ptype, fr->want);
    if (fr->kind == K_LIST) d = fr->depth;
    if (e->op == TL_OP_IF && i > 0) {
      if (i == 1) p->ctl++;
      if (i == 2 && is_inline_arm(k) && !k->nkid) return; /* empty else */
      push(p, k, K_ARM, d, want);
      top(p)->head = i == 2 ? H_ELSE : H_THEN;
      top(p)->ptype = ptype;
      return;
    }
    if (e->op == TL_OP_TRY && (i == 0 || k->op != TL_OP_DELEGATE)) {
      const tl_expr *arm = i ? k : NULL;
      if (i) k = k->kid[0];
      push(p, k, K_ARM, d, want);
      top(p)->head = !arm ? H_DO : arm->op == TL_OP_CATCH ? H_CATCH : H_CATCH_ALL;
      top(p)->arm = arm;
      top(p)->ptype = ptype;
      return;
    }
    if (e->op == TL_OP_TRY_TABLE && is_inline_arm(k)) { /* its body's instructions */
      push(p, k, K_LIST, d, want);
      top(p)->ptype = ptype;
      return;
    }
  }
  k = (tl_expr *)dead_br_on(k);
  if (omitted(p, k) && omit_ok(p, fr, i)) return;
  push_node(p, k, d, want);
}

static uint32_t nkids(const frame *fr) {
  if (fr->kind == K_ARM) return is_inline_arm(fr->e) ? fr->e->nkid : 1;
  if (fr->kind == K_NODE && fr->e->op == TL_OP_TRY_TABLE) return fr->e->nkid ? 1 : 0; /* clauses: its head */
  return fr->e->nkid;
}

/* Prints the tree under the frame already on the stack, iteratively. */
static void run(pr *p) {
  size_t base = p->stack.n - 1;
  open_frame(p, top(p));
  while (p->stack.n > base) {
    frame *fr = top(p);
    while (fr->next != UNSET && fr->next < nkids(fr) && fr->kind != K_ARM && !fr->e->kid[fr->next])
      fr->next++;
    if (fr->next != UNSET && fr->next < nkids(fr)) {
      uint32_t i = fr->next++;
      size_t before = p->stack.n;
      push_kid(p, fr, i);
      if (p->stack.n > before) open_frame(p, top(p));
      continue;
    }
    frame done = *fr;
    p->stack.n--;
    close_frame(p, &done);
  }
}

/* Labels and locals of function f (or none). */
static void func_begin(pr *p, tl_func *f) {
  p->f = f;
  p->loc = NULL;
  p->nlab = 0;
  p->ctl = 0;
  for (int t = 0; t < TL_NBASIC; t++) p->scratch[t] = UNSET;
  if (!f) return;
  p->lmap = tl_func_local_map(p->m, f);
  p->lnum = tl_scratch_realloc(NULL, f->nlabel + 1, sizeof *p->lnum);
  p->ltype = tl_scratch_realloc(NULL, f->nlabel + 1, sizeof *p->ltype);
  if (!p->lnum || !p->ltype) { /* out of memory: labels print as $L<id> */
    tl_free(p->lnum);
    tl_free(p->ltype);
    p->lnum = NULL;
    p->ltype = NULL;
  }
  for (uint32_t i = 0; p->lnum && i < f->nlabel; i++) p->lnum[i] = UNSET;
  p->ns[NS_LOCAL] = names_make(f, f->nlocal, raw_local);
}

static void func_end(pr *p) {
  tl_free(p->lmap);
  tl_free(p->lnum);
  tl_free(p->ltype);
  p->lmap = p->lnum = NULL;
  p->ltype = NULL;
  names_free(&p->ns[NS_LOCAL]);
  tl_vec_free(&p->stack);
  tl_vec_free(&p->seqs);
  p->f = NULL;
}

/* An expression at depth; an init expression that fits prints on the
 * current line. */
static void print_tree(pr *p, tl_expr *e, uint32_t depth, tl_type want, bool inline_ok) {
  if (inline_ok && is_flat(p, e)) {
    put_flat(p, e);
    return;
  }
  push_node(p, e, depth, want);
  run(p);
}

void tl_print_expr(tl_module *m, tl_func *f, tl_expr *e, tl_buf *out) {
  pr p = {0};
  p.self = UINT32_MAX;
  p.m = m;
  p.out = out;
  names_begin(&p);
  func_begin(&p, f);
  size_t start = out->n;
  if (e) print_tree(&p, e, 0, TL_UNREACHABLE, true);
  if (out->n > start && out->p[start] == '\n') { /* no blank first line */
    memmove(out->p + start, out->p + start + 1, out->n - start - 1);
    out->n--;
  }
  func_end(&p);
  for (int i = 0; i < NNS; i++) names_free(&p.ns[i]);
}

/* ------------------------------------------------------------ module */
static void put_index(pr *p, uint32_t i) { tl_buf_printf(p->out, " (;%u;)", i); }

static void put_name(pr *p, int ns, uint32_t i) {
  if (i < p->ns[ns].n && p->ns[ns].s[i]) tl_buf_printf(p->out, " $%s", p->ns[ns].s[i]);
  put_index(p, i);
}

static void put_import(pr *p, const tl_importname *imp) {
  put(p, "(import ");
  put_str(p, (const uint8_t *)imp->module, tl_name_len(imp->module, imp->module_len));
  put(p, " ");
  put_str(p, (const uint8_t *)imp->name, tl_name_len(imp->name, imp->name_len));
  put(p, " ");
}

static void put_field(pr *p, const tl_field *f) {
  if (f->mut) put(p, "(mut ");
  if (f->pack) put(p, f->pack == TL_PACK_I8 ? "i8" : "i16");
  else put_vt(p, f->type);
  if (f->mut) put(p, ")");
}

/* (func ...), (struct (field ...)*) or (array ...) */
static void put_comptype(pr *p, const tl_deftype *d) {
  if (d->kind == TL_DT_ARRAY) {
    put(p, "(array ");
    put_field(p, &d->fields[0]);
    put(p, ")");
    return;
  }
  if (d->kind == TL_DT_STRUCT) {
    put(p, "(struct");
    for (uint32_t k = 0; k < d->nfields; k++) {
      put(p, " (field ");
      const char *s = field_name(p, (uint32_t)(d - TL_FTYPE(p->m, 0)), k);
      if (s) tl_buf_printf(p->out, "$%s ", s);
      put_field(p, &d->fields[k]);
      put(p, ")");
    }
    put(p, ")");
    return;
  }
  put(p, "(func");
  if (tl_type_arity(p->m, d->params)) {
    put(p, " (param ");
    put_types(p, d->params);
    put(p, ")");
  }
  put_result(p, d->results);
  put(p, ")");
}

/* The types, in rec groups as the module has them; a type with a
 * supertype or open to subtypes in (sub ...). */
static void print_types(pr *p) {
  for (uint32_t i = 0; i < p->m->types.n; i++) {
    tl_deftype *d = TL_FTYPE(p->m, i);
    bool group = d->nrec > 1 && d->rec == i;
    uint32_t depth = d->nrec > 1 ? 2 : 1;
    if (group) {
      newline(p, 1);
      put(p, "(rec");
    }
    newline(p, depth);
    put(p, "(type");
    put_name(p, NS_TYPE, i);
    put(p, " ");
    bool sub = d->open || d->super != TL_NO_SUPER;
    p->self = i;
    if (sub) {
      put(p, d->open ? "(sub " : "(sub final ");
      if (d->super != TL_NO_SUPER) {
        put_heap(p, TL_HT_DEF + d->super);
        put(p, " ");
      }
    }
    put_comptype(p, d);
    p->self = UINT32_MAX;
    put(p, sub ? "))" : ")");
    if (d->nrec > 1 && i == d->rec + d->nrec - 1) put(p, ")");
  }
}

static void put_limits(pr *p, uint64_t min, bool has_max, uint64_t max) {
  tl_buf_printf(p->out, " %" PRIu64, min);
  if (has_max) tl_buf_printf(p->out, " %" PRIu64, max);
}

static void put_table(pr *p, uint32_t i) {
  tl_table *t = TL_TABLE(p->m, i);
  put(p, "(table");
  put_name(p, NS_TABLE, i);
  if (t->is64) put(p, " i64");
  put_limits(p, t->min, t->has_max, t->max);
  put(p, " ");
  put_vt(p, t->elem);
  if (t->init) {
    put(p, " ");
    print_tree(p, t->init, 2, t->elem, true);
  }
  put(p, ")");
}

static void put_memory(pr *p, uint32_t i) {
  tl_memory *mem = TL_MEMORY(p->m, i);
  put(p, "(memory");
  put_name(p, NS_MEMORY, i);
  if (mem->is64) put(p, " i64");
  put_limits(p, mem->min, mem->has_max, mem->max);
  if (mem->shared) put(p, " shared");
  put(p, ")");
}

static void put_globaltype(pr *p, const tl_global *g) {
  put(p, g->mut ? " (mut " : " ");
  put_vt(p, g->type);
  if (g->mut) put(p, ")");
}

/* (type N) (param ...) (result ...) of a function; named params one by one. */
static void put_signature(pr *p, tl_func *f) {
  tl_functype *ft = tl_func_type(p->m, f);
  tl_buf_printf(p->out, " (type %u)", f->type);
  uint32_t np = tl_type_arity(p->m, ft->params);
  p->self = f->type < p->m->types.n ? f->type : UINT32_MAX; /* as its type states them */
  for (uint32_t i = 0; i < np; i++) {
    bool named = i < p->ns[NS_LOCAL].n && p->ns[NS_LOCAL].s[i];
    if (named) tl_buf_printf(p->out, " (param $%s ", p->ns[NS_LOCAL].s[i]);
    else put(p, " (param ");
    put_vt(p, tl_type_at(p->m, ft->params, i));
    put(p, ")");
  }
  put_result(p, ft->results);
  p->self = UINT32_MAX;
}

static void put_tag(pr *p, uint32_t i) {
  uint32_t t = TL_TAG(p->m, i)->type;
  tl_buf_printf(p->out, "(tag (;%u;) (type %u)", i, t);
  if (t < p->m->types.n && tl_type_arity(p->m, TL_FTYPE(p->m, t)->params)) {
    put(p, " (param ");
    p->self = t;
    put_types(p, TL_FTYPE(p->m, t)->params);
    p->self = UINT32_MAX;
    put(p, ")");
  }
  put(p, ")");
}

static void print_imports(pr *p) {
  tl_module *m = p->m;
  for (uint32_t i = 0; i < m->nimported_funcs; i++) {
    tl_func *f = TL_FUNC(m, i);
    newline(p, 1);
    put_import(p, &f->imp);
    put(p, "(func");
    put_name(p, NS_FUNC, i);
    func_begin(p, f);
    put_signature(p, f);
    func_end(p);
    put(p, "))");
  }
  for (uint32_t i = 0; i < m->nimported_tables; i++) {
    newline(p, 1);
    put_import(p, &TL_TABLE(m, i)->imp);
    put_table(p, i);
    put(p, ")");
  }
  for (uint32_t i = 0; i < m->nimported_memories; i++) {
    newline(p, 1);
    put_import(p, &TL_MEMORY(m, i)->imp);
    put_memory(p, i);
    put(p, ")");
  }
  for (uint32_t i = 0; i < m->nimported_globals; i++) {
    newline(p, 1);
    put_import(p, &TL_GLOBAL(m, i)->imp);
    put(p, "(global");
    put_name(p, NS_GLOBAL, i);
    put_globaltype(p, TL_GLOBAL(m, i));
    put(p, "))");
  }
  for (uint32_t i = 0; i < m->nimported_tags; i++) {
    newline(p, 1);
    put_import(p, &TL_TAG(m, i)->imp);
    put_tag(p, i);
    put(p, ")");
  }
}

/* Scratch locals for tuple.extract of something other than a local. */
typedef struct { pr *p; bool need[TL_NBASIC]; } scan_ctx;

static void scan_visit(tl_walk *w, tl_expr **slot) {
  scan_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op != TL_OP_TUPLE_EXTRACT || !e->imm.index || is_leaf(c->p, e)) return;
  tl_type t = e->type == TL_UNREACHABLE ? natural(c->p, e) : e->type;
  if (t < TL_NBASIC && tl_type_is_concrete(t)) c->need[t] = true;
}

static void put_locals(pr *p, tl_func *f) {
  uint32_t np = tl_func_nparams(p->m, f), n = p->lmap[f->nlocal];
  bool any = false;
  for (uint32_t i = np; i < f->nlocal; i++) {
    if (!any) newline(p, 2);
    else put(p, " ");
    any = true;
    if (i < p->ns[NS_LOCAL].n && p->ns[NS_LOCAL].s[i]) tl_buf_printf(p->out, "(local $%s ", p->ns[NS_LOCAL].s[i]);
    else put(p, "(local ");
    put_types(p, f->local[i]);
    put(p, ")");
  }
  if (!p->m->ntuples || !f->body) return;
  scan_ctx c = {p, {0}};
  tl_walk_post(p->m, f, &f->body, scan_visit, &c);
  for (int t = TL_I32; t < TL_NBASIC; t++) {
    if (!c.need[t]) continue;
    p->scratch[t] = n++;
    if (!any) newline(p, 2);
    else put(p, " ");
    any = true;
    tl_buf_printf(p->out, "(local %s)", tl_type_name((tl_type)t));
  }
}

static void print_func(pr *p, uint32_t i) {
  tl_func *f = TL_FUNC(p->m, i);
  newline(p, 1);
  put(p, "(func");
  put_name(p, NS_FUNC, i);
  func_begin(p, f);
  put_signature(p, f);
  put_locals(p, f);
  if (f->body) {
    uint32_t l = f->body->imm.block.label;
    if (l != TL_NO_LABEL && l < f->nlabel && p->lnum) p->lnum[l] = UNSET;
    push(p, f->body, K_LIST, 2, tl_func_type(p->m, f)->results);
    top(p)->ptype = tl_func_type(p->m, f)->results;
    seq_push(p);
    run(p);
    seq_pop(p);
  }
  func_end(p);
  put(p, ")");
}

static void print_defs(pr *p) {
  tl_module *m = p->m;
  for (uint32_t i = m->nimported_tables; i < m->tables.n; i++) {
    newline(p, 1);
    put_table(p, i);
  }
  for (uint32_t i = m->nimported_memories; i < m->memories.n; i++) {
    newline(p, 1);
    put_memory(p, i);
  }
  for (uint32_t i = m->nimported_tags; i < m->tags.n; i++) {
    newline(p, 1);
    put_tag(p, i);
  }
  for (uint32_t i = m->nimported_globals; i < m->globals.n; i++) {
    tl_global *g = TL_GLOBAL(m, i);
    newline(p, 1);
    put(p, "(global");
    put_name(p, NS_GLOBAL, i);
    put_globaltype(p, g);
    put(p, " ");
    if (g->init) print_tree(p, g->init, 2, g->type, true);
    put(p, ")");
  }
}

static const int export_ns[5] = {NS_FUNC, NS_TABLE, NS_MEMORY, NS_GLOBAL, -1};
static const char *const export_kw[5] = {"func", "table", "memory", "global", "tag"};

static void print_exports(pr *p) {
  for (uint32_t i = 0; i < p->m->exports.n; i++) {
    tl_export *x = TL_EXPORT(p->m, i);
    newline(p, 1);
    put(p, "(export ");
    put_str(p, (const uint8_t *)x->name, tl_name_len(x->name, x->name_len));
    uint32_t k = x->kind <= TL_EXTERN_TAG ? x->kind : 0;
    tl_buf_printf(p->out, " (%s ", export_kw[k]);
    if (export_ns[k] < 0) tl_buf_printf(p->out, "%u", x->index);
    else put_ref(p, export_ns[k], x->index);
    put(p, "))");
  }
  if (p->m->has_start) {
    newline(p, 1);
    put(p, "(start ");
    put_ref(p, NS_FUNC, p->m->start);
    put(p, ")");
  }
}

/* wabt writes an elem segment as function indices exactly when it holds
 * funcrefs that are all ref.func; print that form then, items otherwise. */
static bool elem_funcs(const tl_elem *el) {
  if (el->type != TL_FUNCREF) return false;
  for (uint32_t i = 0; i < el->n; i++)
    if (el->item[i]->op != TL_OP_REF_FUNC) return false;
  return true;
}

static void print_elem(pr *p, uint32_t i) {
  tl_elem *el = TL_ELEM(p->m, i);
  newline(p, 1);
  put(p, "(elem");
  put_name(p, NS_ELEM, i);
  if (el->mode == TL_SEG_DECLARATIVE) put(p, " declare");
  if (el->mode == TL_SEG_ACTIVE) {
    put(p, " (table ");
    put_ref(p, NS_TABLE, el->table);
    put(p, ") (offset ");
    if (el->offset) print_tree(p, el->offset, 2, TL_I32, true);
    put(p, ")");
  }
  bool funcs = elem_funcs(el);
  put(p, " ");
  if (funcs) put(p, "func");
  else put_vt(p, el->type);
  for (uint32_t k = 0; k < el->n; k++) {
    if (funcs) {
      put_sp_ref(p, NS_FUNC, el->item[k]->imm.index);
      continue;
    }
    put(p, " (item ");
    print_tree(p, el->item[k], 2, el->type, true);
    put(p, ")");
  }
  put(p, ")");
}

static void print_data(pr *p, uint32_t i) {
  tl_data *d = TL_DATA(p->m, i);
  newline(p, 1);
  put(p, "(data");
  put_name(p, NS_DATA, i);
  if (d->mode == TL_SEG_ACTIVE) {
    put(p, " (memory ");
    put_ref(p, NS_MEMORY, d->mem);
    put(p, ") (offset ");
    if (d->offset) print_tree(p, d->offset, 2, TL_UNREACHABLE, true);
    put(p, ")");
  }
  put(p, " ");
  put_str(p, d->bytes, d->size);
  put(p, ")");
}

/* Custom sections kept after known section `after`, as comments. */
static void print_customs(pr *p, uint8_t after) {
  for (uint32_t i = 0; i < p->m->customs.n; i++) {
    tl_custom *c = &TL_VEC_AT(&p->m->customs, tl_custom, i);
    if (c->after != after) continue;
    newline(p, 1);
    put(p, ";; custom section ");
    put_cstr(p, c->name ? c->name : "");
    tl_buf_printf(p->out, ", size %u", c->size);
  }
}

static void names_begin(pr *p) {
  tl_module *m = p->m;
  p->ns[NS_FUNC] = names_make(m, (uint32_t)m->funcs.n, raw_func);
  p->ns[NS_GLOBAL] = names_make(m, (uint32_t)m->globals.n, raw_global);
  p->ns[NS_MEMORY] = names_make(m, (uint32_t)m->memories.n, raw_memory);
  p->ns[NS_TABLE] = names_make(m, (uint32_t)m->tables.n, raw_table);
  p->ns[NS_ELEM] = names_make(m, (uint32_t)m->elems.n, raw_elem);
  p->ns[NS_DATA] = names_make(m, (uint32_t)m->datas.n, raw_data);
  p->ns[NS_TYPE] = names_make(m, (uint32_t)m->types.n, raw_type);
}

/* Binary section order, with the code section where functions print:
 * type 1, import 2, function 3, table 4, memory 5, global 6, export 7,
 * start 8, element 9, datacount 12, code 10, data 11. */
void tl_print_module(tl_module *m, tl_buf *out) {
  pr p = {0};
  p.self = UINT32_MAX;
  p.m = m;
  p.out = out;
  names_begin(&p);
  put(&p, "(module");
  if (m->name && *m->name) {
    char *s = sanitize(m->name);
    tl_buf_printf(out, " $%s", s);
    tl_free(s);
  }
  static const uint8_t order[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 10, 11};
  print_customs(&p, 0);
  for (size_t k = 0; k < sizeof order; k++) {
    switch (order[k]) {
    case 1: print_types(&p); break;
    case 2: print_imports(&p); break;
    case 4: print_defs(&p); break; /* tables, memories, globals */
    case 7: print_exports(&p); break; /* with start */
    case 9:
      for (uint32_t i = 0; i < m->elems.n; i++) print_elem(&p, i);
      break;
    case 10:
      for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) print_func(&p, i);
      break;
    case 11:
      for (uint32_t i = 0; i < m->datas.n; i++) print_data(&p, i);
      break;
    default: break;
    }
    if (order[k] == 4) {
      print_customs(&p, 4);
      print_customs(&p, 5);
      print_customs(&p, 6);
      print_customs(&p, 13);
    } else if (order[k] == 7) {
      print_customs(&p, 7);
      print_customs(&p, 8);
    } else if (order[k] != 5 && order[k] != 6 && order[k] != 8) {
      print_customs(&p, order[k]);
    }
  }
  newline(&p, 0);
  put(&p, ")\n");
  for (int i = 0; i < NNS; i++) names_free(&p.ns[i]);
  tl_vec_free(&p.stack);
}
