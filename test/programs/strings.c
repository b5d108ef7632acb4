/* strings.c — string handling: hand-written and libc string functions,
 * snprintf, tokenizing, reversing words in place, palindromes, overlapping
 * memmove, case conversion, a small atoi/itoa round trip. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

static uint32_t my_strlen(const char *s) {
  const char *p = s;
  while (*p) p++;
  return (uint32_t)(p - s);
}

static void reverse(char *a, char *b) {
  while (a < b) {
    char t = *a;
    *a++ = *b;
    *b-- = t;
  }
}

static void reverse_words(char *s) {
  uint32_t n = my_strlen(s);
  if (!n) return;
  reverse(s, s + n - 1);
  char *w = s;
  for (char *p = s;; p++)
    if (*p == ' ' || *p == '\0') {
      if (p > w) reverse(w, p - 1);
      if (!*p) break;
      w = p + 1;
    }
}

static int is_palindrome(const char *s) {
  const char *e = s + strlen(s);
  while (s < e) {
    while (s < e && !isalnum((unsigned char)*s)) s++;
    while (s < e && !isalnum((unsigned char)e[-1])) e--;
    if (s >= e) break;
    if (tolower((unsigned char)*s) != tolower((unsigned char)e[-1])) return 0;
    s++, e--;
  }
  return 1;
}

static char *itoa32(int32_t v, char *buf) {
  char tmp[16];
  int n = 0;
  uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
  do tmp[n++] = (char)('0' + u % 10); while (u /= 10);
  char *p = buf;
  if (v < 0) *p++ = '-';
  while (n) *p++ = tmp[--n];
  *p = 0;
  return buf;
}

static int32_t atoi32(const char *s) {
  int neg = 0;
  uint32_t v = 0;
  while (*s == ' ') s++;
  if (*s == '-' || *s == '+') neg = *s++ == '-';
  while (*s >= '0' && *s <= '9') v = v * 10 + (uint32_t)(*s++ - '0');
  return neg ? (int32_t)(0u - v) : (int32_t)v;
}

int main(void) {
  char buf[256];
  const char *text = "the quick brown fox jumps over the lazy dog while the cat sleeps";
  strcpy(buf, text);
  reverse_words(buf);
  printf("reversed: %s\n", buf);
  ck(my_strlen(buf));

  int words = 0, longest = 0;
  char copy[128];
  strcpy(copy, text);
  for (char *t = strtok(copy, " "); t; t = strtok(NULL, " ")) {
    words++;
    int l = (int)strlen(t);
    if (l > longest) longest = l;
    ck((uint32_t)t[0] * 256 + (uint32_t)l);
  }
  printf("words %d longest %d\n", words, longest);

  const char *pals[] = {"A man, a plan, a canal: Panama", "racecar", "hello", "Was it a car or a cat I saw?", "ab", ""};
  for (int i = 0; i < 6; i++) {
    int p = is_palindrome(pals[i]);
    printf("palindrome(\"%s\") = %d\n", pals[i], p);
    ck((uint32_t)p);
  }

  const char *hay = "abracadabra cadabra abra";
  int hits = 0;
  for (const char *p = hay; (p = strstr(p, "abra")) != NULL; p++) {
    hits++;
    ck((uint32_t)(p - hay));
  }
  printf("abra occurs %d times, strchr c at %d, strrchr a at %d\n", hits, (int)(strchr(hay, 'c') - hay),
         (int)(strrchr(hay, 'a') - hay));

  char mv[32] = "0123456789abcdefghij";
  memmove(mv + 3, mv, 10);
  printf("memmove right: %s\n", mv);
  memmove(mv, mv + 5, 12);
  printf("memmove left: %s\n", mv);
  ck(my_strlen(mv));

  int32_t nums[] = {0, 7, -7, 2147483647, -2147483647 - 1, 1000000, -45};
  for (int i = 0; i < 7; i++) {
    char s[16];
    itoa32(nums[i], s);
    int32_t back = atoi32(s);
    printf("%s%s", s, i < 6 ? " " : "\n");
    ck((uint32_t)back);
    if (back != nums[i]) return 1;
  }

  int n = snprintf(buf, sizeof buf, "[%5d|%-5d|%05d|%x|%X|%o|%c|%10.3s|%%]", 42, 42, 42, 48879, 48879, 8, 'Z', "abcdef");
  printf("%s (%d)\n", buf, n);
  n = snprintf(buf, 10, "%s", "truncated output here");
  printf("%s (%d)\n", buf, n);
  ck((uint32_t)n);

  char up[64];
  size_t i;
  for (i = 0; text[i] && i < 63; i++) up[i] = (char)toupper((unsigned char)text[i]);
  up[i] = 0;
  printf("%s\n", up);
  printf("strcmp %d %d %d strncmp %d\n", strcmp("abc", "abd") < 0, strcmp("b", "a") > 0, strcmp("x", "x"),
         strncmp("abcdef", "abcxyz", 3));
  ck_print("strings");
  return 0;
}
