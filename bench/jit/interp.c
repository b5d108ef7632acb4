/* interp.c — a switch-heavy bytecode interpreter running a small loop. */
#include <stdint.h>
#include <stdio.h>
enum { PUSH, LOAD, STORE, ADD, SUB, MUL, AND, XOR, SHR, JNZ, DUP, DROP, HALT };
static const int32_t prog[] = {
  PUSH, 0, STORE, 0,            /* acc = 0 */
  PUSH, 30000000, STORE, 1,     /* n */
  /* loop: 8 */
  LOAD, 0, PUSH, 31, MUL, LOAD, 1, XOR, PUSH, 0xffffff, AND, STORE, 0,
  LOAD, 0, PUSH, 3, SHR, LOAD, 0, ADD, STORE, 0,
  LOAD, 1, PUSH, 1, SUB, DUP, STORE, 1, JNZ, 8,
  HALT};
static int32_t run(const int32_t *code) {
  int32_t st[64], vars[8] = {0};
  int sp = 0, pc = 0;
  for (;;) {
    switch (code[pc++]) {
    case PUSH: st[sp++] = code[pc++]; break;
    case LOAD: st[sp++] = vars[code[pc++]]; break;
    case STORE: vars[code[pc++]] = st[--sp]; break;
    case ADD: sp--; st[sp - 1] += st[sp]; break;
    case SUB: sp--; st[sp - 1] -= st[sp]; break;
    case MUL: sp--; st[sp - 1] *= st[sp]; break;
    case AND: sp--; st[sp - 1] &= st[sp]; break;
    case XOR: sp--; st[sp - 1] ^= st[sp]; break;
    case SHR: sp--; st[sp - 1] = (int32_t)((uint32_t)st[sp - 1] >> st[sp]); break;
    case JNZ: { int32_t t = code[pc++]; if (st[--sp]) pc = t; break; }
    case DUP: st[sp] = st[sp - 1]; sp++; break;
    case DROP: sp--; break;
    default: return vars[0];
    }
  }
}
int main(void) {
  printf("interp %d\n", run(prog));
  return 0;
}
