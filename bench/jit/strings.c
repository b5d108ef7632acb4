/* strings.c — string processing: build text, tokenize, count words with a
 * hash table, reverse and compare. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#define TEXT (1 << 21)
static char text[TEXT + 1];
static const char *words[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
                              "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi"};
typedef struct { char w[16]; uint32_t n; } slot;
static slot table[1024];
static uint32_t hashw(const char *s, size_t n) {
  uint32_t h = 5381;
  for (size_t i = 0; i < n; i++) h = h * 33 + (uint8_t)s[i];
  return h;
}
int main(void) {
  uint32_t seed = 7, check = 0;
  size_t len = 0;
  while (len < TEXT - 16) {
    seed = seed * 1664525u + 1013904223u;
    const char *w = words[(seed >> 16) & 15];
    size_t k = strlen(w);
    memcpy(text + len, w, k);
    len += k;
    text[len++] = (seed & 0x100) ? ' ' : ',';
  }
  text[len] = 0;
  for (int rep = 0; rep < 80; rep++) {
    memset(table, 0, sizeof table);
    size_t i = 0;
    while (i < len) {
      while (i < len && (text[i] == ' ' || text[i] == ',')) i++;
      size_t s = i;
      while (i < len && text[i] != ' ' && text[i] != ',') i++;
      if (i == s) break;
      uint32_t h = hashw(text + s, i - s) & 1023;
      while (table[h].n && (strncmp(table[h].w, text + s, i - s) || table[h].w[i - s])) h = (h + 1) & 1023;
      if (!table[h].n) memcpy(table[h].w, text + s, i - s);
      table[h].n++;
    }
    for (int k = 0; k < 1024; k++) check = check * 7 + table[k].n;
    for (size_t a = 0, b = len - 1; a < b; a++, b--) { char t = text[a]; text[a] = text[b]; text[b] = t; }
  }
  printf("strings %u\n", check);
  return 0;
}
