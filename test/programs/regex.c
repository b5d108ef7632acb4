/* regex.c — a tiny backtracking regular-expression matcher (after Pike
 * and Kernighan, extended): literals, '.', '*', '+', '?', '^', '$',
 * character classes [a-z0-9_] with negation, and '\' escapes; tries each
 * pattern against each subject and reports the leftmost match. */
#include <string.h>
#include "common.h"

/* One atom starting at re: its length in the pattern; matches c? */
static int atom_len(const char *re) {
  if (re[0] == '\\' && re[1]) return 2;
  if (re[0] == '[') {
    const char *p = re + 1;
    if (*p == '^') p++;
    if (*p == ']') p++;
    while (*p && *p != ']') p++;
    return (int)(p - re) + (*p == ']');
  }
  return 1;
}
static int atom_match(const char *re, char c) {
  if (!c) return 0;
  if (re[0] == '\\') {
    switch (re[1]) {
    case 'd': return c >= '0' && c <= '9';
    case 'w': return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    case 's': return c == ' ' || c == '\t' || c == '\n';
    default: return c == re[1];
    }
  }
  if (re[0] == '.') return 1;
  if (re[0] == '[') {
    const char *p = re + 1;
    int neg = *p == '^', hit = 0;
    if (neg) p++;
    do {
      if (p[1] == '-' && p[2] && p[2] != ']') {
        if (c >= p[0] && c <= p[2]) hit = 1;
        p += 3;
      } else {
        if (c == *p) hit = 1;
        p++;
      }
    } while (*p && *p != ']');
    return hit != neg;
  }
  return re[0] == c;
}

static uint32_t steps;
static const char *match_here(const char *re, const char *text);

static const char *match_star(const char *re, int alen, const char *text, int min) {
  /* greedy: count how far the atom reaches, then back off */
  const char *t = text;
  while (atom_match(re, *t)) t++, steps++;
  for (; t >= text + min; t--) {
    const char *e = match_here(re + alen + 1, t);
    if (e) return e;
  }
  return NULL;
}

static const char *match_here(const char *re, const char *text) {
  for (;;) {
    steps++;
    if (!re[0]) return text;
    if (re[0] == '$' && !re[1]) return *text ? NULL : text;
    int alen = atom_len(re);
    char q = re[alen];
    if (q == '*') return match_star(re, alen, text, 0);
    if (q == '+') return match_star(re, alen, text, 1);
    if (q == '?') {
      if (atom_match(re, *text)) {
        const char *e = match_here(re + alen + 1, text + 1);
        if (e) return e;
      }
      re += alen + 1;
      continue;
    }
    if (!atom_match(re, *text)) return NULL;
    re += alen;
    text++;
  }
}

static int search(const char *re, const char *text, int *end) {
  if (re[0] == '^') {
    const char *e = match_here(re + 1, text);
    if (e) *end = (int)(e - text);
    return e ? 0 : -1;
  }
  const char *t = text;
  do {
    const char *e = match_here(re, t);
    if (e) {
      *end = (int)(e - text);
      return (int)(t - text);
    }
  } while (*t++);
  return -1;
}

int main(void) {
  const char *pats[] = {"abc", "a.c", "ab*c", "ab+c", "^ab?c$", "[0-9]+", "\\d+\\.\\d*", "[^aeiou ]+",
                        "x*y*z*$", "^\\w+@\\w+\\.com$", "(", "a.*b.*c", "colou?r", "[A-Z][a-z]+", "\\s+", "^$"};
  const char *subjects[] = {"abc", "xxabbbbcyy", "ac", "the color and the colour", "mail: bob@example.com",
                            "alice@host.com", "pi is 3.14159 or 3.", "", "AAA Bbb Ccc", "zzz  tab\there", "aXbYcZ"};
  int np = (int)(sizeof pats / sizeof *pats), ns = (int)(sizeof subjects / sizeof *subjects), hits = 0;
  for (int p = 0; p < np; p++) {
    printf("%-18s", pats[p]);
    for (int s = 0; s < ns; s++) {
      int end = 0, start = search(pats[p], subjects[s], &end);
      if (start >= 0) {
        hits++;
        printf(" %d:%d", start, end);
        ck((uint32_t)(p * 1000 + s * 37 + start * 5 + end));
      } else {
        printf(" -");
      }
    }
    printf("\n");
  }
  printf("%d matches, %" PRIu32 " steps\n", hits, steps);
  ck(steps);
  ck_print("regex");
  return 0;
}
