/* WASI test: reads stdin to the end, writes it upper-cased, counts bytes on stderr. */
#include <ctype.h>
#include <stdio.h>
int main(void) {
  int c;
  long n = 0;
  while ((c = getchar()) != EOF) {
    putchar(toupper(c));
    n++;
  }
  fprintf(stderr, "%ld bytes\n", n);
  return 0;
}
