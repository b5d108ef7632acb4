/* lexer.c — a table-driven DFA lexer for a C-like language: character
 * classes, a transition table, accepting states mapped to token kinds,
 * keyword lookup, line and column tracking; tokenizes a source text and
 * prints token counts per kind and the first tokens. */
#include <string.h>
#include "common.h"

enum cls { C_OTHER, C_ALPHA, C_DIGIT, C_SPACE, C_NL, C_QUOTE, C_SLASH, C_STAR, C_OP, C_EQ, C_DOT, C_BSL, C_EOF, NCLS };
enum st { S0, S_ID, S_INT, S_FLT, S_STR, S_STR_ESC, S_SL, S_LC, S_BC, S_BC_STAR, S_OP, S_OPEQ, S_WS, S_DONE_STR, S_BC_END, S_ERR, NST };
enum kind { K_NONE, K_ID, K_KEYWORD, K_INT, K_FLOAT, K_STRING, K_COMMENT, K_OP, K_SPACE, K_ERROR, NKIND };
static const char *kind_names[NKIND] = {"none", "ident", "keyword", "int", "float", "string", "comment", "op", "space", "error"};

static uint8_t cls_of[256];
static int8_t next[NST][NCLS];
static const uint8_t accept_kind[NST] = {
    [S_ID] = K_ID, [S_INT] = K_INT, [S_FLT] = K_FLOAT, [S_DONE_STR] = K_STRING, [S_SL] = K_OP, [S_LC] = K_COMMENT,
    [S_BC_END] = K_COMMENT, [S_OP] = K_OP, [S_OPEQ] = K_OP, [S_WS] = K_SPACE, [S_ERR] = K_ERROR};

static void build(void) {
  for (int c = 0; c < 256; c++) {
    uint8_t k = C_OTHER;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') k = C_ALPHA;
    else if (c >= '0' && c <= '9') k = C_DIGIT;
    else if (c == ' ' || c == '\t') k = C_SPACE;
    else if (c == '\n') k = C_NL;
    else if (c == '"') k = C_QUOTE;
    else if (c == '/') k = C_SLASH;
    else if (c == '*') k = C_STAR;
    else if (c == '=') k = C_EQ;
    else if (c == '.') k = C_DOT;
    else if (c == '\\') k = C_BSL;
    else if (c == 0) k = C_EOF;
    else if (strchr("+-<>!&|;,(){}[]%^~?:", c)) k = C_OP;
    cls_of[c] = k;
  }
  memset(next, -1, sizeof next);
  next[S0][C_ALPHA] = S_ID;
  next[S0][C_DIGIT] = S_INT;
  next[S0][C_SPACE] = next[S0][C_NL] = S_WS;
  next[S0][C_QUOTE] = S_STR;
  next[S0][C_SLASH] = S_SL;
  next[S0][C_STAR] = next[S0][C_OP] = next[S0][C_EQ] = S_OP;
  next[S0][C_OTHER] = next[S0][C_DOT] = next[S0][C_BSL] = S_ERR;
  next[S_ID][C_ALPHA] = next[S_ID][C_DIGIT] = S_ID;
  next[S_INT][C_DIGIT] = S_INT;
  next[S_INT][C_DOT] = S_FLT;
  next[S_FLT][C_DIGIT] = S_FLT;
  for (int c = 0; c < NCLS; c++) {
    next[S_STR][c] = S_STR;
    next[S_STR_ESC][c] = S_STR;
    next[S_LC][c] = S_LC;
    next[S_BC][c] = S_BC;
    next[S_BC_STAR][c] = S_BC;
  }
  next[S_STR][C_BSL] = S_STR_ESC;
  next[S_STR][C_QUOTE] = S_DONE_STR;
  next[S_STR][C_NL] = next[S_STR][C_EOF] = -1;
  next[S_LC][C_NL] = next[S_LC][C_EOF] = -1;
  next[S_BC][C_STAR] = S_BC_STAR;
  next[S_BC_STAR][C_STAR] = S_BC_STAR;
  next[S_BC_STAR][C_SLASH] = S_BC_END;
  next[S_BC][C_EOF] = next[S_BC_STAR][C_EOF] = -1;
  next[S_SL][C_SLASH] = S_LC;
  next[S_SL][C_STAR] = S_BC;
  next[S_SL][C_EQ] = S_OPEQ;
  next[S_OP][C_EQ] = S_OPEQ;
  next[S_WS][C_SPACE] = next[S_WS][C_NL] = S_WS;
}

static const char *keywords[] = {"int", "if", "else", "while", "for", "return", "struct", "void", "char", "double"};

static const char *source =
    "/* a small program */\n"
    "struct point { int x; int y; };\n"
    "int dot(struct point a, struct point b) {\n"
    "  return a.x * b.x + a.y * b.y; // inner product\n"
    "}\n"
    "double scale = 2.5, eps = 0.001;\n"
    "int main(void) {\n"
    "  char *s = \"hello, \\\"world\\\"\\n\";\n"
    "  int total = 0;\n"
    "  for (int i = 0; i < 100; i += 3) {\n"
    "    if (i % 2 == 0 && i != 42) total += i; else total -= 1;\n"
    "  }\n"
    "  while (total > 10) total /= 2; /* halve\n   until small */\n"
    "  return total @ 3;\n"
    "}\n";

int main(void) {
  build();
  int counts[NKIND] = {0}, line = 1, col = 1, shown = 0;
  const char *p = source;
  while (*p) {
    int st = S0, last_acc = -1;
    const char *q = p, *acc_end = p;
    for (;;) {
      int n = next[st][cls_of[(uint8_t)*q]];
      if (n < 0) break;
      st = n;
      q++;
      if (accept_kind[st]) {
        last_acc = st;
        acc_end = q;
      }
      if (st == S_BC_END || st == S_DONE_STR) break;
    }
    int kind = last_acc < 0 ? K_ERROR : accept_kind[last_acc];
    if (last_acc < 0) acc_end = p + 1;
    int len = (int)(acc_end - p);
    if (kind == K_ID)
      for (unsigned k = 0; k < sizeof keywords / sizeof *keywords; k++)
        if ((int)strlen(keywords[k]) == len && !strncmp(p, keywords[k], (size_t)len)) kind = K_KEYWORD;
    counts[kind]++;
    if (kind != K_SPACE) {
      ck((uint32_t)(kind << 24 | line << 12 | col));
      if (shown < 24) {
        printf("%d:%d %s '%.*s'\n", line, col, kind_names[kind], len > 16 ? 16 : len, p);
        shown++;
      }
    }
    for (; p < acc_end; p++) {
      if (*p == '\n') line++, col = 1;
      else col++;
    }
  }
  for (int k = 1; k < NKIND; k++) printf("%s %d\n", kind_names[k], counts[k]);
  ck_print("lexer");
  return counts[K_ERROR];
}
