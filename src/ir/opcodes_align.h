/* opcodes_align.h — natural alignment (log2 of the bytes accessed) of every
 * memory-access opcode in opcodes.def, opcodes_simd.def and
 * opcodes_atomic.def; 0 for everything else. opcodes.c exports it as
 * tl_op_natural_align(). Include after ir.h (it needs the TL_OP_* ids).
 *
 * A memarg's alignment may not exceed this value; for atomics it must equal
 * it. The extending SIMD loads (load8x8 and friends) access 8 bytes, the
 * splat, zero and lane forms access one lane. Wait and notify access the
 * 32- or 64-bit word they wait on. */
#ifndef TILT_OPCODES_ALIGN_H
#define TILT_OPCODES_ALIGN_H

#include <stdint.h>

static inline uint8_t tl_op_natural_align_of(int op) {
  switch (op) {
  /* ---- 1 byte ---- */
  case TL_OP_I32_LOAD8_S:
  case TL_OP_I32_LOAD8_U:
  case TL_OP_I64_LOAD8_S:
  case TL_OP_I64_LOAD8_U:
  case TL_OP_I32_STORE8:
  case TL_OP_I64_STORE8:
  case TL_OP_V128_LOAD8_SPLAT:
  case TL_OP_V128_LOAD8_LANE:
  case TL_OP_V128_STORE8_LANE:
  case TL_OP_I32_ATOMIC_LOAD8_U:
  case TL_OP_I64_ATOMIC_LOAD8_U:
  case TL_OP_I32_ATOMIC_STORE8:
  case TL_OP_I64_ATOMIC_STORE8:
  case TL_OP_I32_ATOMIC_RMW8_ADD_U:
  case TL_OP_I64_ATOMIC_RMW8_ADD_U:
  case TL_OP_I32_ATOMIC_RMW8_SUB_U:
  case TL_OP_I64_ATOMIC_RMW8_SUB_U:
  case TL_OP_I32_ATOMIC_RMW8_AND_U:
  case TL_OP_I64_ATOMIC_RMW8_AND_U:
  case TL_OP_I32_ATOMIC_RMW8_OR_U:
  case TL_OP_I64_ATOMIC_RMW8_OR_U:
  case TL_OP_I32_ATOMIC_RMW8_XOR_U:
  case TL_OP_I64_ATOMIC_RMW8_XOR_U:
  case TL_OP_I32_ATOMIC_RMW8_XCHG_U:
  case TL_OP_I64_ATOMIC_RMW8_XCHG_U:
  case TL_OP_I32_ATOMIC_RMW8_CMPXCHG_U:
  case TL_OP_I64_ATOMIC_RMW8_CMPXCHG_U:
    return 0;

  /* ---- 2 bytes ---- */
  case TL_OP_I32_LOAD16_S:
  case TL_OP_I32_LOAD16_U:
  case TL_OP_I64_LOAD16_S:
  case TL_OP_I64_LOAD16_U:
  case TL_OP_I32_STORE16:
  case TL_OP_I64_STORE16:
  case TL_OP_V128_LOAD16_SPLAT:
  case TL_OP_V128_LOAD16_LANE:
  case TL_OP_V128_STORE16_LANE:
  case TL_OP_I32_ATOMIC_LOAD16_U:
  case TL_OP_I64_ATOMIC_LOAD16_U:
  case TL_OP_I32_ATOMIC_STORE16:
  case TL_OP_I64_ATOMIC_STORE16:
  case TL_OP_I32_ATOMIC_RMW16_ADD_U:
  case TL_OP_I64_ATOMIC_RMW16_ADD_U:
  case TL_OP_I32_ATOMIC_RMW16_SUB_U:
  case TL_OP_I64_ATOMIC_RMW16_SUB_U:
  case TL_OP_I32_ATOMIC_RMW16_AND_U:
  case TL_OP_I64_ATOMIC_RMW16_AND_U:
  case TL_OP_I32_ATOMIC_RMW16_OR_U:
  case TL_OP_I64_ATOMIC_RMW16_OR_U:
  case TL_OP_I32_ATOMIC_RMW16_XOR_U:
  case TL_OP_I64_ATOMIC_RMW16_XOR_U:
  case TL_OP_I32_ATOMIC_RMW16_XCHG_U:
  case TL_OP_I64_ATOMIC_RMW16_XCHG_U:
  case TL_OP_I32_ATOMIC_RMW16_CMPXCHG_U:
  case TL_OP_I64_ATOMIC_RMW16_CMPXCHG_U:
    return 1;

  /* ---- 4 bytes ---- */
  case TL_OP_I32_LOAD:
  case TL_OP_F32_LOAD:
  case TL_OP_I64_LOAD32_S:
  case TL_OP_I64_LOAD32_U:
  case TL_OP_I32_STORE:
  case TL_OP_F32_STORE:
  case TL_OP_I64_STORE32:
  case TL_OP_V128_LOAD32_SPLAT:
  case TL_OP_V128_LOAD32_ZERO:
  case TL_OP_V128_LOAD32_LANE:
  case TL_OP_V128_STORE32_LANE:
  case TL_OP_MEMORY_ATOMIC_NOTIFY:
  case TL_OP_MEMORY_ATOMIC_WAIT32:
  case TL_OP_I32_ATOMIC_LOAD:
  case TL_OP_I64_ATOMIC_LOAD32_U:
  case TL_OP_I32_ATOMIC_STORE:
  case TL_OP_I64_ATOMIC_STORE32:
  case TL_OP_I32_ATOMIC_RMW_ADD:
  case TL_OP_I64_ATOMIC_RMW32_ADD_U:
  case TL_OP_I32_ATOMIC_RMW_SUB:
  case TL_OP_I64_ATOMIC_RMW32_SUB_U:
  case TL_OP_I32_ATOMIC_RMW_AND:
  case TL_OP_I64_ATOMIC_RMW32_AND_U:
  case TL_OP_I32_ATOMIC_RMW_OR:
  case TL_OP_I64_ATOMIC_RMW32_OR_U:
  case TL_OP_I32_ATOMIC_RMW_XOR:
  case TL_OP_I64_ATOMIC_RMW32_XOR_U:
  case TL_OP_I32_ATOMIC_RMW_XCHG:
  case TL_OP_I64_ATOMIC_RMW32_XCHG_U:
  case TL_OP_I32_ATOMIC_RMW_CMPXCHG:
  case TL_OP_I64_ATOMIC_RMW32_CMPXCHG_U:
    return 2;

  /* ---- 8 bytes ---- */
  case TL_OP_I64_LOAD:
  case TL_OP_F64_LOAD:
  case TL_OP_I64_STORE:
  case TL_OP_F64_STORE:
  case TL_OP_V128_LOAD8X8_S:
  case TL_OP_V128_LOAD8X8_U:
  case TL_OP_V128_LOAD16X4_S:
  case TL_OP_V128_LOAD16X4_U:
  case TL_OP_V128_LOAD32X2_S:
  case TL_OP_V128_LOAD32X2_U:
  case TL_OP_V128_LOAD64_SPLAT:
  case TL_OP_V128_LOAD64_ZERO:
  case TL_OP_V128_LOAD64_LANE:
  case TL_OP_V128_STORE64_LANE:
  case TL_OP_MEMORY_ATOMIC_WAIT64:
  case TL_OP_I64_ATOMIC_LOAD:
  case TL_OP_I64_ATOMIC_STORE:
  case TL_OP_I64_ATOMIC_RMW_ADD:
  case TL_OP_I64_ATOMIC_RMW_SUB:
  case TL_OP_I64_ATOMIC_RMW_AND:
  case TL_OP_I64_ATOMIC_RMW_OR:
  case TL_OP_I64_ATOMIC_RMW_XOR:
  case TL_OP_I64_ATOMIC_RMW_XCHG:
  case TL_OP_I64_ATOMIC_RMW_CMPXCHG:
    return 3;

  /* ---- 16 bytes ---- */
  case TL_OP_V128_LOAD:
  case TL_OP_V128_STORE:
    return 4;

  default:
    return 0;
  }
}

#endif
