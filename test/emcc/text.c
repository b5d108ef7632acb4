/* text.c — strings and libm: a word count in a small hash table, strtol,
 * snprintf, and sqrt/sin/pow/fmod printed with printf. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB 64
struct word { char text[16]; int count; struct word *next; };
static struct word *table[NB];

static unsigned hash(const char *s) {
  unsigned h = 2166136261u;
  while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h % NB;
}

static void add(const char *w) {
  struct word **p = &table[hash(w)];
  for (; *p; p = &(*p)->next)
    if (!strcmp((*p)->text, w)) { (*p)->count++; return; }
  *p = calloc(1, sizeof **p);
  snprintf((*p)->text, sizeof (*p)->text, "%s", w);
  (*p)->count = 1;
}

int main(void) {
  char text[] = "the quick brown fox jumps over the lazy dog the fox 12 7 42";
  long numbers = 0;
  for (char *w = strtok(text, " "); w; w = strtok(NULL, " ")) {
    char *end;
    long v = strtol(w, &end, 10);
    if (!*end) numbers += v;
    else add(w);
  }
  for (int i = 0; i < NB; i++)
    for (struct word *p = table[i]; p; p = p->next)
      if (p->count > 1) printf("%s %d\n", p->text, p->count);
  printf("numbers %ld\n", numbers);
  for (int i = 1; i <= 5; i++)
    printf("%d %.6f %.6f %.3e %.4f\n", i, sqrt(i * 2.0), sin(i * 0.7), pow(1.5, i * 3), fmod(i * 10.3, 3.0));
  return 0;
}
