/* names_test.c — import and export names that contain NUL bytes (spec
 * names.wast module 2): the reader keeps their lengths, the writer writes
 * them whole (distinct names stay distinct across a write/read), the
 * printer escapes them, the validator compares bytes, and the interpreter
 * links and invokes by (pointer, length) through tl_linker_define_n and
 * tl_invoke_n / tl_instance_export_n. */
#include "ir.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* (import "m\00" "\00x" (func (result i32)))
 * (func (result i32) i32.const 1) (func (result i32) i32.const 2)
 * (export "\00a" (func 1)) (export "\00b" (func 2)) (export "" (func 0))
 * (export "\00" (func 1)) */
static const uint8_t wasm[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f,                   /* type */
    0x02, 0x09, 0x01, 0x02, 'm', 0x00, 0x02, 0x00, 'x', 0x00, 0x00, /* import */
    0x03, 0x03, 0x02, 0x00, 0x00,                               /* func */
    0x07, 0x12, 0x04,                                           /* export */
    0x02, 0x00, 'a', 0x00, 0x01,
    0x02, 0x00, 'b', 0x00, 0x02,
    0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x01,
    0x0a, 0x0b, 0x02, 0x04, 0x00, 0x41, 0x01, 0x0b, 0x04, 0x00, 0x41, 0x02, 0x0b, /* code */
};

static tl_module *read_ok(const uint8_t *p, size_t n) {
  tl_error err = {0};
  tl_module *m = tl_module_read(p, n, NULL, &err);
  ck_assert_msg(m != NULL, "read: %s", err.msg);
  return m;
}

static bool export_is(tl_module *m, uint32_t i, const char *name, uint32_t len, uint32_t index) {
  tl_export *x = TL_EXPORT(m, i);
  return tl_name_len(x->name, x->name_len) == len && !memcmp(x->name, name, len) &&
         x->name[len] == 0 && x->index == index;
}

static void check_names(tl_module *m) {
  ck_assert_uint_eq(m->exports.n, 4);
  ck_assert(export_is(m, 0, "\0a", 2, 1));
  ck_assert(export_is(m, 1, "\0b", 2, 2));
  ck_assert(export_is(m, 2, "", 0, 0));
  ck_assert(export_is(m, 3, "\0", 1, 1));
  tl_importname *imp = &TL_FUNC(m, 0)->imp;
  ck_assert(tl_name_eq(imp->module, imp->module_len, "m\0", 2));
  ck_assert(tl_name_eq(imp->name, imp->name_len, "\0x", 2));
  ck_assert(!tl_name_eq(imp->module, imp->module_len, "m", 1));
  tl_error err = {0};
  ck_assert_msg(tl_validate_ir(m, &err) == TL_OK, "validate: %s", err.msg);
}

START_TEST(read_write_read) {
  tl_module *m = read_ok(wasm, sizeof wasm);
  check_names(m);
  uint8_t *out = NULL;
  size_t n = 0;
  tl_error err = {0};
  ck_assert_int_eq(tl_module_write(m, NULL, &out, &n, &err), TL_OK);
  ck_assert_uint_eq(n, sizeof wasm);
  ck_assert(!memcmp(out, wasm, n));
  tl_module *m2 = read_ok(out, n);
  check_names(m2);
  free(out);
  tl_module_free(m2);
  tl_module_free(m);
} END_TEST

START_TEST(validator_compares_bytes) {
  tl_module *m = read_ok(wasm, sizeof wasm);
  tl_error err = {0};
  TL_EXPORT(m, 1)->name = "\0a"; /* now equal to export 0 */
  ck_assert_int_eq(tl_validate_ir(m, &err), TL_E_INVALID);
  ck_assert_ptr_nonnull(strstr(err.msg, "duplicate export name"));
  TL_EXPORT(m, 1)->name = "\0ab"; /* length 2 still: "\0a" again */
  ck_assert_int_eq(tl_validate_ir(m, &err), TL_E_INVALID);
  TL_EXPORT(m, 1)->name_len = 3;
  ck_assert_int_eq(tl_validate_ir(m, &err), TL_OK);
  tl_module_free(m);
} END_TEST

START_TEST(print_escapes) {
  tl_module *m = read_ok(wasm, sizeof wasm);
  char *t = tl_module_print(m);
  ck_assert_ptr_nonnull(strstr(t, "(import \"m\\00\" \"\\00x\""));
  ck_assert_ptr_nonnull(strstr(t, "(export \"\\00a\""));
  ck_assert_ptr_nonnull(strstr(t, "(export \"\\00b\""));
  ck_assert_ptr_nonnull(strstr(t, "(export \"\" "));
  ck_assert_ptr_nonnull(strstr(t, "(export \"\\00\" "));
  free(t);
  tl_module_free(m);
} END_TEST

static tl_status seven(tl_host_call *c, void *user, const tl_value *a, tl_value *r, tl_error *err) {
  (void)c; (void)user; (void)a; (void)err;
  r[0].of.i32 = 7;
  return TL_OK;
}

static int32_t call_n(tl_instance *inst, const char *name, size_t len) {
  tl_value r;
  uint32_t nres = 0;
  tl_error err = {0};
  ck_assert_msg(tl_invoke_n(inst, name, len, NULL, 0, &r, 1, &nres, &err) == TL_OK, "%s", err.msg);
  ck_assert_uint_eq(nres, 1);
  return r.of.i32;
}

START_TEST(invoke_by_length) {
  tl_module *m = read_ok(wasm, sizeof wasm);
  tl_store *s = tl_store_new();
  tl_linker *lk = tl_linker_new();
  tl_error err = {0};
  uint32_t t32 = TL_VAL_I32;
  /* C-string names stop at the NUL: "m" / "" do not match "m\0" / "\0x". */
  tl_linker_define(lk, "m", "", tl_host_func_new(s, NULL, 0, &t32, 1, seven, NULL));
  ck_assert_ptr_null(tl_instantiate(s, m, lk, &err));
  ck_assert_int_eq(err.code, TL_E_LINK);
  tl_linker_define_n(lk, "m\0", 2, "\0x", 2, tl_host_func_new(s, NULL, 0, &t32, 1, seven, NULL));
  tl_instance *inst = tl_instantiate(s, m, lk, &err);
  ck_assert_msg(inst != NULL, "%s", err.msg);
  ck_assert_int_eq(call_n(inst, "\0a", 2), 1);
  ck_assert_int_eq(call_n(inst, "\0b", 2), 2);
  ck_assert_int_eq(call_n(inst, "", 0), 7);
  ck_assert_int_eq(call_n(inst, "\0", 1), 1);
  tl_value r;
  uint32_t nres;
  ck_assert_int_eq(tl_invoke(inst, "\0a", NULL, 0, &r, 1, &nres, &err), TL_OK); /* C string "" */
  ck_assert_int_eq(r.of.i32, 7);
  ck_assert_int_eq(tl_invoke_n(inst, "\0c", 2, NULL, 0, &r, 1, &nres, &err), TL_E_LINK);
  tl_extern x;
  ck_assert_int_eq(tl_instance_export_n(inst, "\0b", 2, &x), TL_OK);
  ck_assert_int_eq(tl_instance_export_n(inst, "\0", 2, &x), TL_E_LINK); /* "\0\0" */
  /* Registering the instance keeps the export names' lengths. */
  tl_linker *l2 = tl_linker_new();
  tl_linker_define_instance(l2, "M", inst);
  static const uint8_t user[] = {
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
      0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f,
      0x02, 0x08, 0x01, 0x01, 'M', 0x02, 0x00, 'b', 0x00, 0x00, /* (import "M" "\00b") */
      0x07, 0x05, 0x01, 0x01, 'g', 0x00, 0x00,                 /* (export "g" (func 0)) */
  };
  tl_module *m2 = read_ok(user, sizeof user);
  tl_instance *i2 = tl_instantiate(s, m2, l2, &err);
  ck_assert_msg(i2 != NULL, "%s", err.msg);
  ck_assert_int_eq(call_n(i2, "g", 1), 2);
  tl_linker_free(l2);
  tl_linker_free(lk);
  tl_store_free(s);
  tl_module_free(m2);
  tl_module_free(m);
} END_TEST

int main(void) {
  Suite *su = suite_create("names");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, read_write_read);
  tcase_add_test(tc, validator_compares_bytes);
  tcase_add_test(tc, print_escapes);
  tcase_add_test(tc, invoke_by_length);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
