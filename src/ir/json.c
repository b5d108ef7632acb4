/* json.c — the JSON scanner for the JSON tilt reads (wasm-metadce's graph,
 * source maps): whitespace, punctuation, strings decoded to UTF-8 (escapes
 * and surrogate pairs), words, numbers, and skipping any value a reader
 * does not want, nested or not, with a depth counter instead of recursion.
 * Errors name what is being read and the byte offset in the text. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

#define TRY(x) do { tl_status s_ = (x); if (s_) return s_; } while (0)

tl_status tl_json_fail(tl_json *j, const char *msg) {
  return tl_errorf(j->err, TL_E_MALFORMED, (uint64_t)(j->p - j->base), "%s: %s", j->what, msg);
}

void tl_json_ws(tl_json *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t')) j->p++;
}

bool tl_json_eat(tl_json *j, char c) {
  tl_json_ws(j);
  if (j->p < j->end && *j->p == c) return j->p++, true;
  return false;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* \uXXXX (a surrogate pair as one code point) as UTF-8. */
static bool unicode(tl_json *j) {
  uint32_t cp = 0;
  for (int k = 0; k < 4; k++) {
    int v = j->p < j->end ? hexval(*j->p++) : -1;
    if (v < 0) return false;
    cp = cp << 4 | (uint32_t)v;
  }
  if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
    uint32_t lo = 0;
    for (int k = 2; k < 6; k++) lo = lo << 4 | (uint32_t)(hexval(j->p[k]) & 15);
    if (lo >= 0xdc00 && lo < 0xe000) cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00), j->p += 6;
  }
  uint8_t u[4];
  int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  if (n == 1) u[0] = (uint8_t)cp;
  else {
    for (int k = n - 1; k > 0; k--) u[k] = (uint8_t)(0x80 | (cp & 0x3f)), cp >>= 6;
    u[0] = (uint8_t)((0xf00 >> n) | cp);
  }
  tl_buf_put(&j->str, u, (size_t)n);
  return true;
}

static bool escape(tl_json *j) {
  if (j->p >= j->end) return false;
  char c = *j->p++;
  const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
  const char *k = strchr(from, c);
  if (c && k) return tl_buf_byte(&j->str, (uint8_t)to[k - from]), true;
  return c == 'u' && unicode(j);
}

tl_status tl_json_string(tl_json *j) {
  if (!tl_json_eat(j, '"')) return tl_json_fail(j, "expected a string");
  j->str.n = 0;
  for (;;) {
    if (j->p >= j->end) return tl_json_fail(j, "unterminated string");
    char c = *j->p++;
    if (c == '"') return TL_OK;
    if (c != '\\') tl_buf_byte(&j->str, (uint8_t)c);
    else if (!escape(j)) return j->p--, tl_json_fail(j, "bad escape in string");
  }
}

bool tl_json_word(tl_json *j, const char *w) {
  size_t n = strlen(w);
  tl_json_ws(j);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n)) return false;
  j->p += n;
  return true;
}

tl_status tl_json_number(tl_json *j, double *v) {
  tl_json_ws(j);
  const char *s = j->p;
  while (j->p < j->end && strchr("+-0123456789.eE", *j->p) && *j->p) j->p++;
  if (j->p == s || j->p - s > 64) return j->p = s, tl_json_fail(j, "expected a number");
  char tmp[65];
  memcpy(tmp, s, (size_t)(j->p - s));
  tmp[j->p - s] = 0;
  char *e;
  *v = strtod(tmp, &e);
  if (*e) return j->p = s, tl_json_fail(j, "malformed number");
  return TL_OK;
}

/* One value of any kind. Arrays and objects are walked with a count of the
 * ones open (their members' keys are read as the strings they are). */
tl_status tl_json_skip(tl_json *j) {
  size_t open = 0;
  do {
    tl_json_ws(j);
    if (j->p >= j->end) return tl_json_fail(j, "unexpected end of input");
    char c = *j->p;
    if (c == '[' || c == '{') {
      j->p++;
      open++;
      tl_json_ws(j);
      if (j->p < j->end && *j->p == (c == '[' ? ']' : '}')) j->p++, open--;
      else if (c == '{') {
        TRY(tl_json_string(j));
        if (!tl_json_eat(j, ':')) return tl_json_fail(j, "expected ':'");
        continue;
      } else continue;
    } else if (c == '"') {
      TRY(tl_json_string(j));
    } else if (!tl_json_word(j, "true") && !tl_json_word(j, "false") && !tl_json_word(j, "null")) {
      double d;
      TRY(tl_json_number(j, &d));
    }
    /* a value ended: close what it ends, then a ',' goes on */
    while (open) {
      tl_json_ws(j);
      if (j->p < j->end && (*j->p == ']' || *j->p == '}')) {
        j->p++, open--;
        continue;
      }
      if (!tl_json_eat(j, ',')) return tl_json_fail(j, "expected ',' or a closing bracket");
      tl_json_ws(j);
      if (j->p < j->end && *j->p == '"') {
        /* an object's next key, or an array's next string value: a key is
         * followed by ':' */
        TRY(tl_json_string(j));
        if (tl_json_eat(j, ':')) break;
        continue;
      }
      break;
    }
  } while (open);
  return TL_OK;
}

void tl_json_free(tl_json *j) { tl_buf_free(&j->str); }
