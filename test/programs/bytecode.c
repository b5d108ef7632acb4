/* bytecode.c — a small stack-machine interpreter: an assembler-free
 * bytecode (push, arithmetic, compares, jumps, locals, calls, print) run
 * by a switch loop, executing three programs: iterative Fibonacci, a
 * prime count and recursive factorial modulo a prime. The same programs
 * run again through a second dispatcher written with computed goto
 * (a GNU extension both gcc and clang support). */
#include <string.h>
#include "common.h"

enum { PUSH, POP, ADD, SUB, MUL, DIV, MOD, LT, EQ, JMP, JZ, LOAD, STORE, CALL, RET, PRINT, DUP, HALT, NOPS };

typedef struct {
  int32_t stack[256];
  int32_t locals[64][8];
  int32_t rets[64];
  int sp, fp;
} vm;

static uint32_t printed;

static int32_t run_switch(const int32_t *code, vm *m) {
  int pc = 0;
  m->sp = 0;
  m->fp = 0;
  for (;;) {
    int32_t op = code[pc++], a, b;
    switch (op) {
    case PUSH: m->stack[m->sp++] = code[pc++]; break;
    case POP: m->sp--; break;
    case DUP: m->stack[m->sp] = m->stack[m->sp - 1]; m->sp++; break;
    case ADD: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = (int32_t)((uint32_t)a + (uint32_t)b); break;
    case SUB: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = (int32_t)((uint32_t)a - (uint32_t)b); break;
    case MUL: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = (int32_t)((uint32_t)a * (uint32_t)b); break;
    case DIV: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = b ? a / b : 0; break;
    case MOD: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = b ? a % b : 0; break;
    case LT: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = a < b; break;
    case EQ: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = a == b; break;
    case JMP: pc = code[pc]; break;
    case JZ: a = m->stack[--m->sp]; pc = a ? pc + 1 : code[pc]; break;
    case LOAD: m->stack[m->sp++] = m->locals[m->fp][code[pc++]]; break;
    case STORE: m->locals[m->fp][code[pc++]] = m->stack[--m->sp]; break;
    case CALL: /* the argument moves into local 0 of the new frame */
      m->rets[++m->fp] = pc + 1;
      m->locals[m->fp][0] = m->stack[--m->sp];
      pc = code[pc];
      break;
    case RET:
      if (m->fp == 0) return m->stack[m->sp - 1];
      pc = m->rets[m->fp--];
      break;
    case PRINT: printed = printed * 31 + (uint32_t)m->stack[--m->sp]; break;
    case HALT: return m->sp ? m->stack[m->sp - 1] : 0;
    default: return -1;
    }
  }
}

static int32_t run_goto(const int32_t *code, vm *m) {
  static void *const table[NOPS] = {&&l_push, &&l_pop, &&l_add, &&l_sub, &&l_mul, &&l_div, &&l_mod,
                                    &&l_lt, &&l_eq, &&l_jmp, &&l_jz, &&l_load, &&l_store, &&l_call,
                                    &&l_ret, &&l_print, &&l_dup, &&l_halt};
  int pc = 0;
  int32_t a, b;
  m->sp = 0;
  m->fp = 0;
#define NEXT goto *table[code[pc++]]
  NEXT;
l_push: m->stack[m->sp++] = code[pc++]; NEXT;
l_pop: m->sp--; NEXT;
l_dup: m->stack[m->sp] = m->stack[m->sp - 1]; m->sp++; NEXT;
l_add: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = (int32_t)((uint32_t)a + (uint32_t)b); NEXT;
l_sub: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = (int32_t)((uint32_t)a - (uint32_t)b); NEXT;
l_mul: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = (int32_t)((uint32_t)a * (uint32_t)b); NEXT;
l_div: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = b ? a / b : 0; NEXT;
l_mod: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = b ? a % b : 0; NEXT;
l_lt: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = a < b; NEXT;
l_eq: b = m->stack[--m->sp]; a = m->stack[--m->sp]; m->stack[m->sp++] = a == b; NEXT;
l_jmp: pc = code[pc]; NEXT;
l_jz: a = m->stack[--m->sp]; pc = a ? pc + 1 : code[pc]; NEXT;
l_load: m->stack[m->sp++] = m->locals[m->fp][code[pc++]]; NEXT;
l_store: m->locals[m->fp][code[pc++]] = m->stack[--m->sp]; NEXT;
l_call: m->rets[++m->fp] = pc + 1; m->locals[m->fp][0] = m->stack[--m->sp]; pc = code[pc]; NEXT;
l_ret: if (m->fp == 0) return m->stack[m->sp - 1];
  pc = m->rets[m->fp--]; NEXT;
l_print: printed = printed * 31 + (uint32_t)m->stack[--m->sp]; NEXT;
l_halt: return m->sp ? m->stack[m->sp - 1] : 0;
#undef NEXT
}

/* A tiny assembler: programs are emitted at startup, forward jumps patched. */
static int32_t code_buf[3][128];
static int32_t *cur;
static int ncur;
static void E(int32_t op) { cur[ncur++] = op; }
static void EA(int32_t op, int32_t arg) { E(op); E(arg); }
static int here(void) { return ncur; }
static int fwd(int32_t op) { E(op); E(-1); return ncur - 1; }
static void patch(int at) { cur[at] = ncur; }

static const int32_t *build_fib(void) { /* fib(40) iteratively, printing every term: a=0 b=1 i=2 */
  cur = code_buf[0], ncur = 0;
  EA(PUSH, 0), EA(STORE, 0), EA(PUSH, 1), EA(STORE, 1), EA(PUSH, 0), EA(STORE, 2);
  int loop = here();
  EA(LOAD, 2), EA(PUSH, 40), E(LT);
  int out = fwd(JZ);
  EA(LOAD, 0), EA(LOAD, 1), E(ADD), E(DUP), E(PRINT), EA(LOAD, 1), EA(STORE, 0), EA(STORE, 1);
  EA(LOAD, 2), EA(PUSH, 1), E(ADD), EA(STORE, 2), EA(JMP, loop);
  patch(out);
  EA(LOAD, 0), E(HALT);
  return cur;
}

static const int32_t *build_primes(void) { /* primes below 600 by trial division: n=0 count=1 d=2 */
  cur = code_buf[1], ncur = 0;
  EA(PUSH, 2), EA(STORE, 0), EA(PUSH, 0), EA(STORE, 1);
  int outer = here();
  EA(LOAD, 0), EA(PUSH, 600), E(LT);
  int done = fwd(JZ);
  EA(PUSH, 2), EA(STORE, 2);
  int inner = here();
  EA(LOAD, 2), EA(LOAD, 2), E(MUL), EA(LOAD, 0), EA(PUSH, 1), E(ADD), E(LT);
  int is_prime = fwd(JZ);
  EA(LOAD, 0), EA(LOAD, 2), E(MOD);
  int not_prime = fwd(JZ);
  EA(LOAD, 2), EA(PUSH, 1), E(ADD), EA(STORE, 2), EA(JMP, inner);
  patch(is_prime);
  EA(LOAD, 1), EA(PUSH, 1), E(ADD), EA(STORE, 1), EA(LOAD, 0), E(PRINT);
  patch(not_prime);
  EA(LOAD, 0), EA(PUSH, 1), E(ADD), EA(STORE, 0), EA(JMP, outer);
  patch(done);
  EA(LOAD, 1), E(HALT);
  return cur;
}

static const int32_t *build_fact(void) { /* fact(12) mod 1000003, recursive */
  cur = code_buf[2], ncur = 0;
  EA(PUSH, 12);
  int call = fwd(CALL);
  E(DUP), E(PRINT), E(HALT);
  patch(call);
  int fact = here();
  EA(LOAD, 0), EA(PUSH, 2), E(LT);
  int rec = fwd(JZ);
  EA(PUSH, 1), E(RET);
  patch(rec);
  EA(LOAD, 0), EA(LOAD, 0), EA(PUSH, 1), E(SUB), EA(CALL, fact), E(MUL), EA(PUSH, 1000003), E(MOD), E(RET);
  return cur;
}

static vm machine;

int main(void) {
  const int32_t *progs[] = {build_fib(), build_primes(), build_fact()};
  const char *names[] = {"fib", "primes", "fact"};
  int bad = 0;
  for (int round = 0; round < 4; round++)
    for (int i = 0; i < 3; i++) {
      memset(&machine, 0, sizeof machine);
      printed = 0;
      int32_t r1 = run_switch(progs[i], &machine);
      uint32_t p1 = printed;
      memset(&machine, 0, sizeof machine);
      printed = 0;
      int32_t r2 = run_goto(progs[i], &machine);
      if (r1 != r2 || p1 != printed) bad++;
      if (round == 0) printf("%s: result %" PRId32 " printed-hash %08" PRIx32 "\n", names[i], r1, p1);
      ck((uint32_t)r1 ^ p1);
    }
  printf("dispatchers disagree %d times\n", bad);
  ck_print("bytecode");
  return bad;
}
