/* opcodes.c — the opcode table as data, and decoding from binary codes.
 * Everything here is expanded from opcodes.def; nothing is listed twice. */
#include "ir.h"
#include "opcodes_align.h"

#include <string.h>

#define S0(r) TL_##r, 0, {0, 0, 0}
#define S1(r, a) TL_##r, 1, {TL_##a, 0, 0}
#define S2(r, a, b) TL_##r, 2, {TL_##a, TL_##b, 0}
#define S3(r, a, b, c) TL_##r, 3, {TL_##a, TL_##b, TL_##c}
#define SX TL_NONE, TL_SIG_SPECIAL, {0, 0, 0}
#define F_(x) TL_F_##x
#define F_TRAPS TL_F_TRAPS
#define F_READS_MEM TL_F_READS_MEM
#define F_WRITES_MEM TL_F_WRITES_MEM
#define F_READS_TABLE TL_F_READS_TABLE
#define F_WRITES_TABLE TL_F_WRITES_TABLE
#define F_READS_LOCAL TL_F_READS_LOCAL
#define F_WRITES_LOCAL TL_F_WRITES_LOCAL
#define F_READS_GLOBAL TL_F_READS_GLOBAL
#define F_WRITES_GLOBAL TL_F_WRITES_GLOBAL
#define F_CALL TL_F_CALL
#define F_BRANCH TL_F_BRANCH
#define F_NORETURN TL_F_NORETURN
#define F_CONTROL TL_F_CONTROL
#define F_MARKER TL_F_MARKER
#define F_COMMUTES TL_F_COMMUTES
#define F_ATOMIC TL_F_ATOMIC
#define F_THROWS TL_F_THROWS
#define F_LABEL_USE TL_F_LABEL_USE
#define F_EH TL_F_EH
#define F_RELAXED TL_F_RELAXED
#define F_GC_READ TL_F_GC_READ
#define F_GC_WRITE TL_F_GC_WRITE
#define F_GC_ALLOC TL_F_GC_ALLOC
#define F_GC_SEG TL_F_GC_SEG

const tl_opinfo tl_ops[TL_NOPS] = {
#define OP(id, text, pfx, code, imm, sig, flags, feat) \
  [TL_OP_##id] = {text, pfx, code, TL_IMM_##imm, sig, flags, TL_FEAT_##feat},
#include "opcodes.def"
#undef OP
};

/* Decode tables hold op+1 so that 0 means "unknown". Rows of other prefixes
 * land in a private slot past the end (index N + op), so every slot is
 * initialized at most once and a duplicated code is a compile error under
 * -Werror=override-init. */
static const uint16_t decode_main[256 + TL_NOPS] = {
#define OP(id, text, pfx, code, ...) [(pfx) == 0 ? (code) : 256 + TL_OP_##id] = TL_OP_##id + 1,
#include "opcodes.def"
#undef OP
};

enum { FB_MAX = 32, FC_MAX = 32, FD_MAX = 512, FE_MAX = 128 };
static const uint16_t decode_fb[FB_MAX + TL_NOPS] = {
#define OP(id, text, pfx, code, ...) [(pfx) == 0xFB ? (code) : FB_MAX + TL_OP_##id] = TL_OP_##id + 1,
#include "opcodes.def"
#undef OP
};
static const uint16_t decode_fc[FC_MAX + TL_NOPS] = {
#define OP(id, text, pfx, code, ...) [(pfx) == 0xFC ? (code) : FC_MAX + TL_OP_##id] = TL_OP_##id + 1,
#include "opcodes.def"
#undef OP
};
static const uint16_t decode_fd[FD_MAX + TL_NOPS] = {
#define OP(id, text, pfx, code, ...) [(pfx) == 0xFD ? (code) : FD_MAX + TL_OP_##id] = TL_OP_##id + 1,
#include "opcodes.def"
#undef OP
};
static const uint16_t decode_fe[FE_MAX + TL_NOPS] = {
#define OP(id, text, pfx, code, ...) [(pfx) == 0xFE ? (code) : FE_MAX + TL_OP_##id] = TL_OP_##id + 1,
#include "opcodes.def"
#undef OP
};

int tl_op_decode(uint8_t pfx, uint32_t code) {
  switch (pfx) {
  case 0: return code < 256 ? decode_main[code] - 1 : -1;
  case 0xFB: return code < FB_MAX ? decode_fb[code] - 1 : -1;
  case 0xFC: return code < FC_MAX ? decode_fc[code] - 1 : -1;
  case 0xFD: return code < FD_MAX ? decode_fd[code] - 1 : -1;
  case 0xFE: return code < FE_MAX ? decode_fe[code] - 1 : -1;
  default: return -1;
  }
}

int tl_op_by_name(const char *text) {
  for (int i = 0; i < TL_NOPS; i++)
    if (!strcmp(tl_ops[i].text, text)) return i;
  return -1;
}

uint8_t tl_op_natural_align(int op) { return tl_op_natural_align_of(op); }
