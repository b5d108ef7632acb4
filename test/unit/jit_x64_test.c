/* jit_x64_test.c — golden encodings of the JIT's x86-64 encoder (src/jit/
 * x64.c): REX/ModRM/SIB forms with r12/r13/rsp/rbp bases, byte registers,
 * SSE prefixes, shortest immediate moves, and rel32 jump chains. */
#include "jit/jit.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
static void expect(x64_buf *b, const char *hex) {
  char got[256] = {0};
  for (size_t i = 0; i < b->n && 3 * i + 3 < sizeof got; i++)
    snprintf(got + 3 * i, 4, "%02X ", b->p[i]);
  size_t n = strlen(got);
  if (n) got[n - 1] = 0;
  ck_assert_str_eq(got, hex);
  b->n = 0;
}

START_TEST(modrm_forms) {
  x64_buf b = {0};
  x64_rm(&b, 0, true, 0x8B, 1, RAX, x64_m(R12, 16), false);
  expect(&b, "49 8B 44 24 10");                 /* mov rax, [r12+16]: SIB for r12 */
  x64_rm(&b, 0, true, 0x8B, 1, R13, x64_m(RAX, 0), false);
  expect(&b, "4C 8B 28");                       /* mov r13, [rax] */
  x64_rm(&b, 0, false, 0x8B, 1, RAX, x64_mi(R13, RAX, 1, 0), false);
  expect(&b, "41 8B 44 05 00");                 /* mov eax, [r13+rax]: r13 needs disp8 */
  x64_rm(&b, 0, true, 0x3B, 1, RCX, x64_r(R14), false);
  expect(&b, "49 3B CE");                       /* cmp rcx, r14 */
  x64_rm(&b, 0, true, 0x8D, 1, RCX, x64_m(RAX, 4), false);
  expect(&b, "48 8D 48 04");                    /* lea rcx, [rax+4] */
  x64_rm(&b, 0, false, 0x8B, 1, RSI, x64_m(RBX, 0x100), false);
  expect(&b, "8B B3 00 01 00 00");              /* mov esi, [rbx+256]: disp32 */
  x64_rm(&b, 0, true, 0x83, 1, 5, x64_r(RSP), false);
  x64_byte(&b, 8);
  expect(&b, "48 83 EC 08");                    /* sub rsp, 8 */
  x64_rm(&b, 0, false, 0x8B, 1, RAX, x64_m(RSP, 8), false);
  expect(&b, "8B 44 24 08");                    /* mov eax, [rsp+8] */
  x64_rm(&b, 0, false, 0x8B, 1, RAX, x64_m(RBP, 0), false);
  expect(&b, "8B 45 00");                       /* mov eax, [rbp] */
  free(b.p);
} END_TEST

START_TEST(byte_regs_and_sse) {
  x64_buf b = {0};
  x64_rm(&b, 0, false, 0x0F9C, 2, 0, x64_r(RSI), true);
  expect(&b, "40 0F 9C C6");                    /* setl sil, not dh */
  x64_rm(&b, 0, false, 0x88, 1, RDI, x64_mi(R13, RAX, 1, 0), true);
  expect(&b, "41 88 7C 05 00");                 /* mov [r13+rax], dil */
  x64_rm(&b, 0xF2, false, 0x0F10, 2, XMM(2), x64_m(RBX, 8), false);
  expect(&b, "F2 0F 10 53 08");                 /* movsd xmm2, [rbx+8] */
  x64_rm(&b, 0xF3, false, 0x0F58, 2, XMM(3), x64_r(XMM(4)), false);
  expect(&b, "F3 0F 58 DC");                    /* addss xmm3, xmm4 */
  x64_rm(&b, 0x66, true, 0x0F6E, 2, XMM(2), x64_r(RAX), false);
  expect(&b, "66 48 0F 6E D0");                 /* movq xmm2, rax */
  x64_rm(&b, 0x66, false, 0x0F3A0B, 3, XMM(2), x64_r(XMM(2)), false);
  x64_byte(&b, 0x0B);
  expect(&b, "66 0F 3A 0B D2 0B");              /* roundsd xmm2, xmm2, trunc */
  free(b.p);
} END_TEST

START_TEST(immediates) {
  x64_buf b = {0};
  x64_mov_ri(&b, RAX, 0);
  expect(&b, "31 C0");
  x64_mov_ri(&b, R9, 5);
  expect(&b, "41 B9 05 00 00 00");
  x64_mov_ri(&b, RAX, UINT64_MAX);
  expect(&b, "48 C7 C0 FF FF FF FF");
  x64_mov_ri(&b, RCX, 1ull << 40);
  expect(&b, "48 B9 00 00 00 00 00 01 00 00");
  free(b.p);
} END_TEST

START_TEST(jump_chains) {
  x64_buf b = {0};
  int32_t ch = x64_jcc(&b, CC_E, -1);
  ch = x64_jmp(&b, ch);
  x64_patch(&b, ch, b.n);
  expect(&b, "0F 84 05 00 00 00 E9 00 00 00 00");
  x64_byte(&b, 0x90);
  x64_jmp_to(&b, CC_NE, 0);
  expect(&b, "90 0F 85 F9 FF FF FF");
  free(b.p);
} END_TEST
#endif

int main(void) {
  Suite *s = suite_create("jit_x64");
  TCase *tc = tcase_create("x64");
#if defined(__x86_64__)
  tcase_add_test(tc, modrm_forms);
  tcase_add_test(tc, byte_regs_and_sse);
  tcase_add_test(tc, immediates);
  tcase_add_test(tc, jump_chains);
#endif
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
