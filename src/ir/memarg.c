/* memarg.c — what memory64 and table64 change in the IR: memarg offsets
 * above UINT32_MAX, interned per module out of line (the 8-byte memarg
 * stays for the common case), and the index type of each memory and table
 * access (i64 on a 64-bit memory or table), which the reader, validator,
 * finalize and both engines ask for instead of the opcode table's i32. */
#include "ir.h"

#include <pthread.h>
#include <stdlib.h>

static uint64_t *big_at(const tl_module *m, uint32_t i) { return &m->big_block[i >> 10][i & 1023]; }

uint64_t tl_memarg_big(const tl_module *m, uint32_t index) { return *big_at(m, index); }

static uint32_t hash64(uint64_t v) { return (uint32_t)((v * 0x9E3779B97F4A7C15ull) >> 32); }

/* As type.c's rehash: out of memory with no free slot is the arena's. */
static void big_rehash(tl_module *m, uint32_t cap) {
  uint32_t *t = tl_mod_calloc(cap, sizeof(uint32_t));
  if (!t) {
    if (m->big_hash && m->nbig + 1 < m->big_hash_cap) return;
    tl_arena_oom(&m->arena);
  }
  tl_free(m->big_hash);
  m->big_hash = t;
  m->big_hash_cap = cap;
  for (uint32_t i = 0; i < m->nbig; i++) {
    uint32_t h = hash64(*big_at(m, i)) & (cap - 1);
    while (m->big_hash[h]) h = (h + 1) & (cap - 1);
    m->big_hash[h] = i + 1;
  }
}

static uint32_t intern_big(tl_module *m, uint64_t v) {
  if ((m->nbig + 1) * 2 > m->big_hash_cap) big_rehash(m, m->big_hash_cap ? m->big_hash_cap * 2 : 16);
  uint32_t cap = m->big_hash_cap, h = hash64(v) & (cap - 1);
  for (; m->big_hash[h]; h = (h + 1) & (cap - 1))
    if (*big_at(m, m->big_hash[h] - 1) == v) return m->big_hash[h] - 1;
  uint32_t id = m->nbig;
  if (id >= 4096 * 1024) tl_arena_oom(&m->arena); /* 4M distinct large offsets */
  if (!m->big_block[id >> 10]) m->big_block[id >> 10] = TL_NEWN(&m->arena, uint64_t, 1024);
  *big_at(m, id) = v;
  m->nbig = id + 1;
  m->big_hash[h] = id + 1;
  return id;
}

/* Function passes may set offsets concurrently: the arena's lock, as for tuples. */
void tl_memarg_set_offset(tl_module *m, tl_memarg *ma, uint64_t off) {
  ma->big = off > UINT32_MAX;
  if (!ma->big) {
    ma->offset = (uint32_t)off;
    return;
  }
  void *lock = m->arena.lock;
  if (lock) pthread_mutex_lock(lock);
  ma->offset = intern_big(m, off);
  if (lock) pthread_mutex_unlock(lock);
}

void tl_memarg_free_big(tl_module *m) { tl_free(m->big_hash); }

bool tl_memory_is64(const tl_module *m, uint32_t mem) {
  return mem < m->memories.n && TL_MEMORY(m, mem)->is64;
}

bool tl_table_is64(const tl_module *m, uint32_t table) {
  return table < m->tables.n && TL_TABLE(m, table)->is64;
}

/* memory.copy / table.copy: the length is i64 only when both are 64-bit. */
static uint32_t copy_mask(bool a64, bool b64) {
  return (a64 ? 1u : 0) | (b64 ? 2u : 0) | (a64 && b64 ? 4u : 0);
}

uint32_t tl_index64_mask(const tl_module *m, int op, tl_imm im) {
  const tl_opinfo *oi = &tl_ops[op];
  if (oi->imm == TL_IMM_MEMARG || oi->imm == TL_IMM_MEMARG_LANE) return tl_memory_is64(m, im.mem.mem) ? 1u : 0;
  switch (op) {
  case TL_OP_MEMORY_SIZE: return tl_memory_is64(m, im.index) ? TL_IDX64_RESULT : 0;
  case TL_OP_MEMORY_GROW: return tl_memory_is64(m, im.index) ? 1u | TL_IDX64_RESULT : 0;
  case TL_OP_MEMORY_FILL: return tl_memory_is64(m, im.index) ? 1u | 4u : 0;
  case TL_OP_MEMORY_COPY: return copy_mask(tl_memory_is64(m, im.idx2.a), tl_memory_is64(m, im.idx2.b));
  case TL_OP_MEMORY_INIT: return tl_memory_is64(m, im.idx2.b) ? 1u : 0;
  case TL_OP_TABLE_SIZE: return tl_table_is64(m, im.index) ? TL_IDX64_RESULT : 0;
  case TL_OP_TABLE_GET: case TL_OP_TABLE_SET: return tl_table_is64(m, im.index) ? 1u : 0;
  case TL_OP_TABLE_GROW: return tl_table_is64(m, im.index) ? 2u | TL_IDX64_RESULT : 0;
  case TL_OP_TABLE_FILL: return tl_table_is64(m, im.index) ? 1u | 4u : 0;
  case TL_OP_TABLE_COPY: return copy_mask(tl_table_is64(m, im.idx2.a), tl_table_is64(m, im.idx2.b));
  case TL_OP_TABLE_INIT: return tl_table_is64(m, im.idx2.b) ? 1u : 0;
  case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL_INDIRECT:
    return tl_table_is64(m, im.idx2.b) ? TL_IDX64_CALLEE : 0;
  default: return 0;
  }
}

tl_type tl_index_operand_type(const tl_module *m, int op, tl_imm im, uint32_t i, tl_type t) {
  if (t != TL_I32 || i >= 3) return t;
  return tl_index64_mask(m, op, im) >> i & 1 ? TL_I64 : TL_I32;
}
