/* dwarf_test.c — DWARF kept right (src/wasm-io/dwarf.c) at the API: a
 * module with hand-made DWARF 4 (test/cli/dwarfgen.py good) read with
 * tl_read_options.dwarf and written with tl_write_options.dwarf keeps its
 * line table row for row (decoded here, no llvm-dwarfdump); every
 * truncation and many byte changes of its .debug_* sections either read
 * and write or fail with TL_E_MALFORMED at an offset inside the section
 * (never a crash: ASan); out of memory anywhere in read, -O2 and write is
 * TL_E_NOMEM with nothing leaked (LSan). */
#include "ir/ir.h"
#include "wasm-io/wasmio.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_main.h"

/* python3 test/cli/dwarfgen.py good g.wasm */
static const uint8_t good[] = {
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x09, 0x02, 0x60, 0x00, 0x00, 0x60, 0x01,
  0x7f, 0x01, 0x7f, 0x03, 0x04, 0x03, 0x00, 0x01, 0x00, 0x07, 0x08, 0x01, 0x04, 0x6d, 0x61, 0x69,
  0x6e, 0x00, 0x00, 0x0a, 0x24, 0x03, 0x0a, 0x00, 0x01, 0x01, 0x41, 0x05, 0x10, 0x01, 0x1a, 0x01,
  0x0b, 0x12, 0x03, 0x01, 0x7f, 0x01, 0x7c, 0x01, 0x7f, 0x20, 0x00, 0x01, 0x41, 0x01, 0x6a, 0x21,
  0x03, 0x20, 0x03, 0x0b, 0x04, 0x00, 0x01, 0x01, 0x0b, 0x00, 0x1c, 0x04, 0x6e, 0x61, 0x6d, 0x65,
  0x01, 0x15, 0x03, 0x00, 0x04, 0x6d, 0x61, 0x69, 0x6e, 0x01, 0x06, 0x68, 0x65, 0x6c, 0x70, 0x65,
  0x72, 0x02, 0x04, 0x64, 0x65, 0x61, 0x64, 0x00, 0xde, 0x01, 0x0b, 0x2e, 0x64, 0x65, 0x62, 0x75,
  0x67, 0x5f, 0x6c, 0x69, 0x6e, 0x65, 0xce, 0x00, 0x00, 0x00, 0x04, 0x00, 0x1b, 0x00, 0x00, 0x00,
  0x01, 0x01, 0x01, 0xfb, 0x0e, 0x0d, 0x00, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00,
  0x00, 0x01, 0x00, 0x61, 0x2e, 0x63, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x02, 0x02, 0x00,
  0x00, 0x00, 0x05, 0x00, 0x03, 0xe3, 0x00, 0x01, 0x05, 0x01, 0x02, 0x01, 0x03, 0x01, 0x01, 0x05,
  0x02, 0x02, 0x01, 0x03, 0x01, 0x01, 0x05, 0x03, 0x02, 0x01, 0x03, 0x01, 0x01, 0x05, 0x04, 0x02,
  0x02, 0x03, 0x01, 0x01, 0x05, 0x05, 0x02, 0x02, 0x03, 0x01, 0x01, 0x05, 0x06, 0x02, 0x01, 0x03,
  0x01, 0x01, 0x05, 0x07, 0x02, 0x01, 0x03, 0x01, 0x01, 0x02, 0x01, 0x00, 0x01, 0x01, 0x00, 0x05,
  0x02, 0x0d, 0x00, 0x00, 0x00, 0x05, 0x00, 0x03, 0xc7, 0x01, 0x01, 0x05, 0x01, 0x02, 0x07, 0x03,
  0x01, 0x01, 0x05, 0x02, 0x02, 0x02, 0x03, 0x01, 0x01, 0x05, 0x03, 0x02, 0x01, 0x03, 0x01, 0x01,
  0x05, 0x04, 0x02, 0x02, 0x03, 0x01, 0x01, 0x05, 0x05, 0x02, 0x01, 0x03, 0x01, 0x01, 0x05, 0x06,
  0x02, 0x02, 0x03, 0x01, 0x01, 0x05, 0x07, 0x02, 0x02, 0x03, 0x01, 0x01, 0x02, 0x01, 0x00, 0x01,
  0x01, 0x00, 0x05, 0x02, 0x20, 0x00, 0x00, 0x00, 0x05, 0x00, 0x03, 0xab, 0x02, 0x01, 0x05, 0x01,
  0x02, 0x01, 0x03, 0x01, 0x01, 0x05, 0x02, 0x02, 0x01, 0x03, 0x01, 0x01, 0x05, 0x03, 0x02, 0x01,
  0x03, 0x01, 0x01, 0x02, 0x01, 0x00, 0x01, 0x01, 0x00, 0x5e, 0x0b, 0x2e, 0x64, 0x65, 0x62, 0x75,
  0x67, 0x5f, 0x69, 0x6e, 0x66, 0x6f, 0x4e, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x04, 0x01, 0x61, 0x2e, 0x63, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x6d, 0x61, 0x69, 0x6e, 0x00,
  0x03, 0x00, 0x00, 0x00, 0x00, 0x78, 0x00, 0x00, 0x04, 0x0d, 0x00, 0x00, 0x00, 0x92, 0x80, 0x00,
  0x68, 0x65, 0x6c, 0x70, 0x65, 0x72, 0x00, 0x00, 0x02, 0x20, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00,
  0x00, 0x64, 0x65, 0x61, 0x64, 0x00, 0x00, 0x00, 0x00, 0x3b, 0x0d, 0x2e, 0x64, 0x65, 0x62, 0x75,
  0x67, 0x5f, 0x61, 0x62, 0x62, 0x72, 0x65, 0x76, 0x01, 0x11, 0x01, 0x03, 0x08, 0x10, 0x17, 0x11,
  0x01, 0x55, 0x17, 0x00, 0x00, 0x02, 0x2e, 0x01, 0x11, 0x01, 0x12, 0x06, 0x03, 0x08, 0x00, 0x00,
  0x03, 0x34, 0x00, 0x02, 0x17, 0x03, 0x08, 0x00, 0x00, 0x04, 0x2e, 0x01, 0x11, 0x01, 0x12, 0x0f,
  0x03, 0x08, 0x00, 0x00, 0x00, 0x00, 0x2e, 0x0d, 0x2e, 0x64, 0x65, 0x62, 0x75, 0x67, 0x5f, 0x72,
  0x61, 0x6e, 0x67, 0x65, 0x73, 0x02, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x00,
  0x00, 0x1f, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1f, 0x0a, 0x2e, 0x64, 0x65, 0x62, 0x75, 0x67, 0x5f, 0x6c,
  0x6f, 0x63, 0x04, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x02, 0x00, 0x30, 0x9f, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

typedef struct { size_t start, size; } span; /* a custom section's payload */

static size_t leb(const uint8_t *p, size_t *v) {
  size_t n = 0;
  unsigned s = 0;
  *v = 0;
  do *v |= (size_t)(p[n] & 0x7f) << s, s += 7;
  while (p[n++] & 0x80);
  return n;
}

/* The bytes of custom section `name` (after its name), or {0, 0}; *sec the
 * offset of the section's id byte. */
static span find(const uint8_t *b, size_t n, const char *name, size_t *sec) {
  size_t i = 8, len = strlen(name);
  while (i < n) {
    size_t size, nl, at = i;
    size_t k = leb(b + i + 1, &size), body = i + 1 + k;
    if (b[i] == 0) {
      size_t j = leb(b + body, &nl);
      if (nl == len && !memcmp(b + body + j, name, len)) {
        if (sec) *sec = at;
        return (span){body + j + len, size - j - len};
      }
    }
    i = body + size;
  }
  return (span){0, 0};
}

typedef struct { uint32_t addr, line, col; bool end; } row;

/* The rows of a DWARF 4 line program unit at p (version 4, opcode_base
 * 13, as dwarfgen and tilt write them). */
static size_t rows(const uint8_t *p, size_t n, row *out, size_t cap) {
  uint32_t len = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
  ck_assert_uint_le(len + 4, n);
  uint32_t hlen = p[6] | p[7] << 8 | p[8] << 16 | (uint32_t)p[9] << 24;
  int8_t line_base = (int8_t)p[13];
  uint8_t line_range = p[14], opbase = p[15];
  const uint8_t *q = p + 10 + hlen, *end = p + 4 + len;
  row r = {0, 1, 0, false};
  size_t k = 0;
  while (q < end) {
    uint8_t op = *q++;
    size_t v;
    if (op >= opbase) {
      r.addr += (op - opbase) / line_range;
      r.line += line_base + (op - opbase) % line_range;
      ck_assert_uint_lt(k, cap);
      out[k++] = r;
      continue;
    }
    switch (op) {
    case 0: {
      q += leb(q, &v);
      uint8_t sub = q[0];
      if (sub == 1) r.end = true, out[k++] = r, r = (row){0, 1, 0, false};
      if (sub == 2) r.addr = q[1] | q[2] << 8 | q[3] << 16 | (uint32_t)q[4] << 24;
      q += v;
      break;
    }
    case 1: ck_assert_uint_lt(k, cap); out[k++] = r; break;
    case 2: q += leb(q, &v); r.addr += (uint32_t)v; break;
    case 3: {
      size_t s = 0;
      int64_t d = 0;
      unsigned sh = 0;
      do d |= (int64_t)(q[s] & 0x7f) << sh, sh += 7;
      while (q[s++] & 0x80);
      if (sh < 64 && (q[s - 1] & 0x40)) d |= -((int64_t)1 << sh);
      q += s;
      r.line += (uint32_t)d;
      break;
    }
    case 4: case 12: q += leb(q, &v); break;
    case 5: q += leb(q, &v); r.col = (uint32_t)v; break;
    case 9: r.addr += q[0] | q[1] << 8; q += 2; break;
    default: break; /* flags */
    }
  }
  return k;
}

static size_t line_rows(const uint8_t *b, size_t n, row *out, size_t cap) {
  span s = find(b, n, ".debug_line", NULL);
  ck_assert_uint_gt(s.size, 0);
  return rows(b + s.start, s.size, out, cap);
}

/* Reads with DWARF kept, optionally runs passes, writes with DWARF kept. */
static tl_status cycle(const uint8_t *b, size_t n, const char *const *passes, uint32_t np,
                       uint8_t **out, size_t *on, tl_error *err) {
  tl_read_options ro = {.features = TL_FEATURES_MVP, .dwarf = true};
  tl_module *m = tl_module_read(b, n, &ro, err);
  if (!m) return err->code;
  tl_pass_options po = {.threads = 1, .optimize_level = 2, .preserve_dwarf = true};
  tl_status s = np ? tl_module_run_passes(m, passes, np, &po, err) : TL_OK;
  tl_write_options wo = {.debug_names = true, .dwarf = true};
  if (!s) s = tl_module_write(m, &wo, out, on, err);
  tl_module_free(m);
  return s;
}

START_TEST(rows_kept) {
  row a[64], b[64];
  size_t na = line_rows(good, sizeof good, a, 64);
  tl_read_options ro = {.dwarf = true};
  tl_error e;
  tl_module *m = tl_module_read(good, sizeof good, &ro, &e);
  ck_assert(m && tl_module_has_dwarf(m));
  tl_module_free(m);
  ck_assert_uint_eq(na, 17 + 3 + 3); /* a row per instruction and per function, three end_sequences */
  uint8_t *out;
  size_t n;
  tl_error err;
  ck_assert_int_eq(cycle(good, sizeof good, NULL, 0, &out, &n, &err), TL_OK);
  size_t nb = line_rows(out, n, b, 64);
  ck_assert_uint_eq(na, nb);
  for (size_t i = 0; i < na; i++) {
    ck_assert_uint_eq(a[i].addr, b[i].addr);
    ck_assert_uint_eq(a[i].line, b[i].line);
    ck_assert_uint_eq(a[i].col, b[i].col);
    ck_assert_int_eq(a[i].end, b[i].end);
  }
  free(out);
}
END_TEST

/* vacuum drops the nops (lines 101, 102, 106, 202, 301, 302, a byte
 * each): every other row stays, its address less the nop bytes before
 * it. */
static bool is_nop_line(uint32_t l) { return l == 101 || l == 102 || l == 106 || l == 202 || l == 301 || l == 302; }

START_TEST(rows_follow_code) {
  row a[64], b[64];
  size_t na = line_rows(good, sizeof good, a, 64);
  uint8_t *out;
  size_t n;
  tl_error err;
  const char *vac[] = {"vacuum"};
  ck_assert_int_eq(cycle(good, sizeof good, vac, 1, &out, &n, &err), TL_OK);
  size_t nb = line_rows(out, n, b, 64), j = 0;
  for (size_t i = 0; i < na; i++) {
    if (!a[i].end && is_nop_line(a[i].line)) continue;
    uint32_t gone = 0;
    for (size_t k = 0; k < na; k++) gone += !a[k].end && is_nop_line(a[k].line) && a[k].addr < a[i].addr;
    ck_assert_uint_lt(j, nb);
    ck_assert_uint_eq(b[j].line, a[i].line);
    ck_assert_uint_eq(b[j].col, a[i].col);
    ck_assert_int_eq(b[j].end, a[i].end);
    ck_assert_uint_eq(b[j].addr, a[i].addr - gone);
    j++;
  }
  ck_assert_uint_eq(j, nb);
  ck_assert_uint_eq(nb, na - 6);
  free(out);
}
END_TEST

START_TEST(without_dwarf_copied) {
  tl_error err;
  tl_module *m = tl_module_read(good, sizeof good, NULL, &err);
  ck_assert_ptr_nonnull(m);
  ck_assert(!tl_module_has_dwarf(m));
  uint8_t *out;
  size_t n;
  tl_write_options wo = {.dwarf = true};
  ck_assert_int_eq(tl_module_write(m, &wo, &out, &n, &err), TL_OK);
  span s = find(good, sizeof good, ".debug_line", NULL), t = find(out, n, ".debug_line", NULL);
  ck_assert_uint_eq(s.size, t.size);
  ck_assert_mem_eq(good + s.start, out + t.start, s.size);
  tl_module_free(m);
  free(out);
}
END_TEST

static const char *const dwarf_secs[] = {".debug_line", ".debug_info", ".debug_abbrev", ".debug_ranges",
                                         ".debug_loc"};

/* b with section `name` cut to k bytes of payload (its name kept). */
static size_t cut(const char *name, size_t k, uint8_t *b) {
  size_t sec = 0;
  span s = find(good, sizeof good, name, &sec);
  ck_assert_uint_gt(s.size, 0);
  size_t hdr_end, size;
  hdr_end = sec + 1 + leb(good + sec + 1, &size);
  size_t name_len = s.start - hdr_end, n = 0;
  memcpy(b, good, sec);
  n = sec;
  b[n++] = 0;
  size_t body = name_len + k;
  do b[n++] = (uint8_t)((body & 0x7f) | (body > 0x7f ? 0x80 : 0)), body >>= 7;
  while (body);
  memcpy(b + n, good + hdr_end, name_len + k);
  n += name_len + k;
  size_t rest = s.start + s.size;
  memcpy(b + n, good + rest, sizeof good - rest);
  return n + sizeof good - rest;
}

/* One broken input: a module and an error at an offset in its DWARF, or
 * a module that writes. */
static bool try_broken(const uint8_t *b, size_t n, size_t lo) {
  uint8_t *out = NULL;
  size_t on;
  tl_error err;
  const char *o2[] = {"vacuum", "remove-unused-module-elements", "simplify-locals"};
  tl_status s = cycle(b, n, o2, 3, &out, &on, &err);
  if (s == TL_OK) {
    free(out);
    return true;
  }
  ck_assert_int_eq(s, TL_E_MALFORMED);
  ck_assert_msg(err.offset >= lo && err.offset <= n, "offset 0x%llx outside the DWARF: %s",
                (unsigned long long)err.offset, err.msg);
  return false;
}

START_TEST(truncated) {
  uint8_t b[sizeof good + 8];
  uint32_t errors = 0;
  for (size_t i = 0; i < sizeof dwarf_secs / sizeof *dwarf_secs; i++) {
    span s = find(good, sizeof good, dwarf_secs[i], NULL);
    for (size_t k = 0; k < s.size; k++) {
      size_t n = cut(dwarf_secs[i], k, b);
      size_t lo = find(good, sizeof good, ".debug_line", NULL).start - 16;
      errors += !try_broken(b, n, lo);
    }
  }
  ck_assert_uint_gt(errors, 100);
}
END_TEST

START_TEST(bytes_changed) {
  static const uint8_t vals[] = {0x00, 0xff, 0x80, 0x7f, 0x01, 0x05};
  uint8_t b[sizeof good];
  size_t lo = find(good, sizeof good, ".debug_line", NULL).start - 16;
  uint32_t ok = 0, errors = 0;
  for (size_t i = lo; i < sizeof good; i++)
    for (size_t v = 0; v < sizeof vals; v++) {
      memcpy(b, good, sizeof good);
      if (b[i] == vals[v]) continue;
      b[i] = vals[v];
      if (try_broken(b, sizeof good, lo)) ok++;
      else errors++;
    }
  ck_assert_uint_gt(ok, 100);
  ck_assert_uint_gt(errors, 100);
}
END_TEST

START_TEST(out_of_memory) {
  const char *o2[] = {"vacuum", "remove-unused-module-elements", "simplify-locals", "coalesce-locals"};
  uint32_t nomem = 0;
  for (uint64_t k = 1;; k++) {
    uint8_t *out = NULL;
    size_t n;
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_scratch_fail_nth(k);
    tl_status s = cycle(good, sizeof good, o2, 4, &out, &n, &err);
    bool reached = tl_scratch_fail_nth(0) == 0;
    ck_assert_msg(s == TL_OK || s == TL_E_NOMEM, "failing allocation %u: %d %s", (unsigned)k, (int)s, err.msg);
    if (s == TL_E_NOMEM) {
      nomem++;
      ck_assert_ptr_nonnull(strstr(err.msg, "out of memory"));
    }
    free(out);
    if (!reached) {
      ck_assert_int_eq(s, TL_OK);
      break;
    }
    ck_assert_uint_lt(k, 100000);
  }
  ck_assert_uint_gt(nomem, 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("dwarf");
  TCase *t = tcase_create("dwarf");
  tcase_add_test(t, rows_kept);
  tcase_add_test(t, rows_follow_code);
  tcase_add_test(t, without_dwarf_copied);
  tcase_add_test(t, truncated);
  tcase_add_test(t, bytes_changed);
  tcase_add_test(t, out_of_memory);
  suite_add_tcase(s, t);
  return s;
}

TL_CHECK_MAIN(suite)
