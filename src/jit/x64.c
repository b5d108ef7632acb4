/* x64.c — the x86-64 encoder: tiny helpers for REX, ModRM, SIB, immediates
 * and rel32 jump chains (a fixup's rel32 field holds the previous fixup of
 * its chain, -1 ends it, as Lua's jump lists). Nothing here knows wasm.
 *
 * Frame layout of generated code (System V, Linux):
 *   native stack:  [ret addr][8 bytes pad]   rsp 16-aligned inside a function
 *   wasm frame:    rbx -> slot 0 .. nlocals-1 (params first), then one 8-byte
 *                  slot per operand-stack height; a callee's frame starts at
 *                  the caller's slot of its first argument, results land there. */
#include "jit.h"

#include <stdlib.h>

/* Out of memory, b->oom is set and stays: writes and patches are skipped
 * from then on, and the compiler reports TL_E_NOMEM for the buffer. */
static bool grow(x64_buf *b, size_t n) {
  if (b->oom) return false;
  if (b->n + n <= b->cap) return true;
  size_t cap = b->cap ? b->cap * 2 : 4096;
  while (cap < b->n + n) cap *= 2;
  uint8_t *p = tl_scratch_realloc(b->p, cap, 1);
  if (!p) return !(b->oom = true);
  b->p = p;
  b->cap = cap;
  return true;
}

void x64_byte(x64_buf *b, uint8_t v) {
  if (grow(b, 1)) b->p[b->n++] = v;
}

void x64_put(x64_buf *b, const void *p, size_t n) {
  if (!n || !grow(b, n)) return;
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

void x64_imm32(x64_buf *b, uint32_t v) {
  if (!grow(b, 4)) return;
  memcpy(b->p + b->n, &v, 4);
  b->n += 4;
}

void x64_imm64(x64_buf *b, uint64_t v) {
  if (!grow(b, 8)) return;
  memcpy(b->p + b->n, &v, 8);
  b->n += 8;
}

/* REX: W, R (modrm.reg), X (sib.index), B (modrm.rm / sib.base). */
static void rex(x64_buf *b, bool w, int r, int x, int bb, bool force) {
  uint8_t v = (uint8_t)(0x40 | (w << 3) | (((r >> 3) & 1) << 2) | (((x >> 3) & 1) << 1) | ((bb >> 3) & 1));
  if (v != 0x40 || force) x64_byte(b, v);
}

static void modrm(x64_buf *b, int mod, int reg, int rm) {
  x64_byte(b, (uint8_t)((mod << 6) | ((reg & 7) << 3) | (rm & 7)));
}

/* ModRM (and SIB, displacement) of reg field r and operand o */
static void operand(x64_buf *b, int r, x64_op o) {
  if (o.mem && o.base == X64_RIP) {                 /* [rip + disp32] */
    modrm(b, 0, r, 5);
    x64_imm32(b, (uint32_t)o.disp);
    return;
  }
  int base = o.mem ? o.base : (o.reg & 15);
  if (!o.mem) {
    modrm(b, 3, r, base);
    return;
  }
  int mod = o.disp == 0 && (base & 7) != RBP ? 0 : o.disp >= -128 && o.disp <= 127 ? 1 : 2;
  if (o.index >= 0 || (base & 7) == RSP) {
    modrm(b, mod, r, 4);
    int sc = o.scale == 8 ? 3 : o.scale == 4 ? 2 : o.scale == 2 ? 1 : 0;
    x64_byte(b, (uint8_t)((sc << 6) | ((o.index >= 0 ? o.index & 7 : 4) << 3) | (base & 7)));
  } else {
    modrm(b, mod, r, base);
  }
  if (mod == 1) x64_byte(b, (uint8_t)(int8_t)o.disp);
  else if (mod == 2) x64_imm32(b, (uint32_t)o.disp);
}

/* The base and index registers REX/VEX extend (0 for none or rip). */
static int op_base(x64_op o) { return !o.mem ? o.reg & 15 : o.base == X64_RIP ? 0 : o.base; }
static int op_index(x64_op o) { return o.mem && o.index >= 0 ? o.index : 0; }

void x64_rm(x64_buf *b, uint8_t pfx, bool w, uint32_t opc, int nopc, int r, x64_op o, bool bytereg) {
  r &= 15;
  if (pfx) x64_byte(b, pfx);
  int base = op_base(o);
  bool force = bytereg && ((r >= 4 && r < 8) || (!o.mem && base >= 4 && base < 8));
  rex(b, w, r, op_index(o), base, force);
  for (int i = nopc - 1; i >= 0; i--) x64_byte(b, (uint8_t)(opc >> (8 * i)));
  operand(b, r, o);
}

/* VEX.128: pfx 0/66/F3/F2 -> pp, opc 0F xx / 0F 38 xx / 0F 3A xx -> map
 * and opcode byte; v the second source (vvvv), -1 for none. The two-byte
 * form when it can say everything. */
void x64_vex(x64_buf *b, uint8_t pfx, bool w, uint32_t opc, int r, int v, x64_op o) {
  r &= 15;
  int base = op_base(o), index = op_index(o);
  uint8_t pp = pfx == 0x66 ? 1 : pfx == 0xF3 ? 2 : pfx == 0xF2 ? 3 : 0;
  uint8_t map = opc > 0xFFFF ? ((opc >> 8) & 0xFF) == 0x38 ? 2 : 3 : 1;
  uint8_t vvvv = (uint8_t)(~(v < 0 ? 0 : v & 15) & 15);
  uint8_t R = (uint8_t)(!(r & 8)), X = (uint8_t)(!(index & 8)), B = (uint8_t)(!(base & 8));
  if (map == 1 && X && B && !w) {
    x64_byte(b, 0xC5);
    x64_byte(b, (uint8_t)(R << 7 | vvvv << 3 | pp));
  } else {
    x64_byte(b, 0xC4);
    x64_byte(b, (uint8_t)(R << 7 | X << 6 | B << 5 | map));
    x64_byte(b, (uint8_t)(w << 7 | vvvv << 3 | pp));
  }
  x64_byte(b, (uint8_t)opc);
  operand(b, r, o);
}

void x64_mov_ri(x64_buf *b, int r, uint64_t imm) {
  if (imm == 0) {                                   /* xor r32, r32 */
    x64_rm(b, 0, false, 0x31, 1, r, x64_r(r), false);
  } else if (imm <= UINT32_MAX) {                   /* mov r32, imm32 */
    rex(b, false, 0, 0, r, false);
    x64_byte(b, (uint8_t)(0xB8 + (r & 7)));
    x64_imm32(b, (uint32_t)imm);
  } else if ((int64_t)imm >= INT32_MIN && (int64_t)imm <= INT32_MAX) {
    x64_rm(b, 0, true, 0xC7, 1, 0, x64_r(r), false);  /* mov r64, simm32 */
    x64_imm32(b, (uint32_t)imm);
  } else {                                          /* movabs */
    rex(b, true, 0, 0, r, false);
    x64_byte(b, (uint8_t)(0xB8 + (r & 7)));
    x64_imm64(b, imm);
  }
}

int32_t x64_jcc(x64_buf *b, int cc, int32_t chain) {
  x64_byte(b, 0x0F);
  x64_byte(b, (uint8_t)(0x80 + cc));
  int32_t at = (int32_t)b->n;
  x64_imm32(b, (uint32_t)chain);
  return at;
}

int32_t x64_jmp(x64_buf *b, int32_t chain) {
  x64_byte(b, 0xE9);
  int32_t at = (int32_t)b->n;
  x64_imm32(b, (uint32_t)chain);
  return at;
}

void x64_patch(x64_buf *b, int32_t chain, size_t target) {
  while (chain >= 0 && !b->oom) {
    int32_t next;
    memcpy(&next, b->p + chain, 4);
    int32_t rel = (int32_t)((int64_t)target - (chain + 4));
    memcpy(b->p + chain, &rel, 4);
    chain = next;
  }
}

void x64_jmp_to(x64_buf *b, int cc, size_t target) {
  int32_t at = cc < 0 ? x64_jmp(b, -1) : x64_jcc(b, cc, -1);
  x64_patch(b, at, target);
}
