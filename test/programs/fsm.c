/* fsm.c — a switch-heavy state machine: parses a made-up line protocol
 * (commands, key=value pairs, quoted strings with escapes, comments)
 * character by character, one switch on the state, nested switches on the
 * character; a second, sparse switch maps command names to codes. */
#include <string.h>
#include "common.h"

enum { S_START, S_CMD, S_SPACE, S_KEY, S_EQ, S_VAL, S_QUOTE, S_ESC, S_COMMENT, S_ERR };

static const char *input =
    "set alpha=1 beta=\"two\\tthree\" gamma=42\n"
    "get alpha\n"
    "# a comment line with = and \"quotes\"\n"
    "del beta gamma=\"x\\\"y\"\n"
    "bad =oops\n"
    "put key1=v1 key2=v2 key3=v3 # trailing\n"
    "set s=\"\\\\\\n\" t=99999\n"
    "list\n"
    "weird \"unterminated\n"
    "sum a=1 b=2 c=3 d=4 e=5 f=6\n";

static int cmd_code(const char *s, int n) {
  uint32_t h = 0;
  for (int i = 0; i < n; i++) h = h * 131 + (uint8_t)s[i];
  switch (h) {
  case 0x1c8c4: return 1; /* probably none of these match; the default handles it */
  case 7: return 2;
  case 1000003: return 3;
  case 0x7fffffff: return 4;
  case 0x80000000u: return 5;
  default: break;
  }
  switch (n) {
  case 3:
    if (!memcmp(s, "set", 3)) return 10;
    if (!memcmp(s, "get", 3)) return 11;
    if (!memcmp(s, "del", 3)) return 12;
    if (!memcmp(s, "put", 3)) return 13;
    if (!memcmp(s, "sum", 3)) return 14;
    return 19;
  case 4:
    return !memcmp(s, "list", 4) ? 20 : 29;
  default:
    return 99;
  }
}

int main(void) {
  int state = S_START, line = 1, pairs = 0, errors = 0, cmds = 0, keys = 0;
  const char *tok = input;
  uint32_t vsum = 0;
  for (const char *p = input;; p++) {
    char c = *p;
    switch (state) {
    case S_START:
      switch (c) {
      case '#': state = S_COMMENT; break;
      case ' ': case '\t': break;
      case '\n': line++; break;
      case '\0': goto done;
      case '=': state = S_ERR; errors++; break;
      default: state = S_CMD; tok = p; break;
      }
      break;
    case S_CMD:
      if (c == ' ' || c == '\n' || c == '\0') {
        int code = cmd_code(tok, (int)(p - tok));
        cmds++;
        ck((uint32_t)code);
        printf("line %d: command %.*s -> %d\n", line, (int)(p - tok), tok, code);
        if (c == '\0') goto done;
        if (c == '\n') { line++; state = S_START; } else state = S_SPACE;
      }
      break;
    case S_SPACE:
      switch (c) {
      case ' ': break;
      case '\n': line++; state = S_START; break;
      case '#': state = S_COMMENT; break;
      case '=': errors++; state = S_ERR; break;
      case '"': errors++; state = S_ERR; break;
      case '\0': goto done;
      default: state = S_KEY; tok = p; keys++; break;
      }
      break;
    case S_KEY:
      switch (c) {
      case '=': ck((uint32_t)(p - tok)); state = S_EQ; break;
      case ' ': state = S_SPACE; break;
      case '\n': line++; state = S_START; break;
      case '\0': goto done;
      default: break;
      }
      break;
    case S_EQ:
      pairs++;
      if (c == '"') { state = S_QUOTE; break; }
      state = S_VAL;
      /* fall through */
    case S_VAL:
      if (c >= '0' && c <= '9') { vsum = vsum * 10 + (uint32_t)(c - '0'); break; }
      switch (c) {
      case ' ': state = S_SPACE; break;
      case '\n': line++; state = S_START; break;
      case '\0': goto done;
      default: vsum += (uint8_t)c; break;
      }
      break;
    case S_QUOTE:
      switch (c) {
      case '\\': state = S_ESC; break;
      case '"': state = S_SPACE; break;
      case '\n': errors++; line++; state = S_START; break;
      case '\0': errors++; goto done;
      default: vsum ^= (uint8_t)c; break;
      }
      break;
    case S_ESC:
      switch (c) {
      case 'n': vsum += 10; break;
      case 't': vsum += 9; break;
      case '\\': vsum += 92; break;
      case '"': vsum += 34; break;
      case '\0': errors++; goto done;
      default: errors++; break;
      }
      state = S_QUOTE;
      break;
    case S_COMMENT:
      if (c == '\n') { line++; state = S_START; }
      else if (c == '\0') goto done;
      break;
    case S_ERR:
      if (c == '\n') { line++; state = S_START; }
      else if (c == '\0') goto done;
      break;
    }
  }
done:
  printf("lines %d commands %d keys %d pairs %d errors %d vsum %" PRIu32 "\n", line, cmds, keys, pairs, errors, vsum);
  ck(vsum);
  ck((uint32_t)(line * 1000 + cmds * 100 + pairs * 10 + errors));
  ck_print("fsm");
  return errors;
}
