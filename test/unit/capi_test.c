/* capi_test.c — the C API for building modules (tilt.h "building modules"),
 * used exactly as a toolchain would: through tilt.h only. Checks the types
 * of built nodes of every expression kind, error returns (and messages) on
 * bad indices, labels, shapes and orders, a module using every kind of
 * expression through tl_module_validate, tl_module_write and wabt's
 * wasm-validate (skipped if absent), and write -> read -> print text; and
 * the text reader's on_text_parsed hook (when it runs, with what). */
#include "tilt.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */
#define I32(v) tl_build_const_i32(m, (v))
#define I64(v) tl_build_const_i64(m, (v))
#define TY(e) tl_expr_get_type(e)

static const uint8_t zero16[16] = {0};

/* The module's last error must be TL_E_INVALID and mention `part`. */
static void expect_error(tl_module *m, const char *part) {
  const tl_error *e = tl_module_last_error(m);
  ck_assert_int_eq(e->code, TL_E_INVALID);
  ck_assert_msg(strstr(e->msg, part), "message '%s' lacks '%s'", e->msg, part);
}

static tl_module *new_module(uint32_t features) {
  tl_module *m = tl_module_create();
  ck_assert_ptr_nonnull(m);
  tl_module_set_features(m, features);
  return m;
}

/* A function () -> () with the given vars; its index. */
static uint32_t void_func(tl_module *m, const tl_type_t *vars, uint32_t n) {
  uint32_t t = tl_add_type(m, TL_TYPE_NONE, TL_TYPE_NONE);
  uint32_t f = tl_add_function(m, NULL, t, vars, n, NULL);
  ck_assert_uint_ne(f, TL_INVALID_INDEX);
  return f;
}

static bool have_wasm_validate(void) {
  return system("wasm-validate --version >/dev/null 2>&1") == 0;
}

/* Runs wasm-validate on bytes with the features tilt knows (not --enable-all:
 * its function-references typing rejects ref.func into a funcref table). */
static bool wabt_accepts(const uint8_t *bytes, size_t size) {
  char path[] = "/tmp/tilt-capi-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
  fclose(f);
  char cmd[256];
  snprintf(cmd, sizeof cmd,
           "wasm-validate --enable-threads --enable-tail-call --enable-extended-const "
           "--enable-relaxed-simd --enable-multi-memory %s", path);
  int rc = system(cmd);
  unlink(path);
  return rc == 0;
}

/* Validates and writes m; the caller frees *out. */
static size_t validate_and_write(tl_module *m, uint8_t **out) {
  tl_error err = {0};
  ck_assert_msg(tl_module_validate(m, &err) == TL_OK, "validate: %s", err.msg);
  size_t size = 0;
  tl_write_options wopt = {.debug_names = true};
  ck_assert_msg(tl_module_write(m, &wopt, out, &size, &err) == TL_OK, "write: %s", err.msg);
  return size;
}

/* ---- types --------------------------------------------------------------- */
START_TEST(types_and_tuples) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  tl_type_t two[] = {TL_TYPE_I32, TL_TYPE_F64};
  tl_type_t t = tl_build_tuple(m, two, 2);
  ck_assert_uint_ge(t, 16);
  ck_assert_uint_eq(tl_build_tuple(m, two, 2), t); /* interned */
  ck_assert_uint_eq(tl_build_tuple(m, two, 1), TL_TYPE_I32);
  ck_assert_uint_eq(tl_build_tuple(m, NULL, 0), TL_TYPE_NONE);
  tl_type_t nested[] = {TL_TYPE_I32, t};
  ck_assert_uint_eq(tl_build_tuple(m, nested, 2), TL_TYPE_INVALID);
  expect_error(m, "element 1");
  tl_type_t none[] = {TL_TYPE_I32, TL_TYPE_NONE};
  ck_assert_uint_eq(tl_build_tuple(m, none, 2), TL_TYPE_INVALID);

  uint32_t a = tl_add_type(m, t, TL_TYPE_I32), b = tl_add_type(m, TL_TYPE_NONE, t);
  ck_assert_uint_ne(a, b);
  ck_assert_uint_eq(tl_add_type(m, t, TL_TYPE_I32), a);
  ck_assert_uint_eq(tl_add_type(m, TL_TYPE_UNREACHABLE, TL_TYPE_NONE), TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_add_type(m, TL_TYPE_NONE, 1234), TL_INVALID_INDEX);
  expect_error(m, "results");
  /* Parameters of a tuple type become one local each. */
  uint32_t f = tl_add_function(m, "f", a, NULL, 0, NULL);
  ck_assert_uint_eq(TY(tl_build_local_get(m, f, 0)), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_local_get(m, f, 1)), TL_TYPE_F64);
  ck_assert_ptr_null(tl_build_local_get(m, f, 2));
  ck_assert_uint_eq(tl_function_add_var(m, f, TL_TYPE_V128), 2);
  ck_assert_uint_eq(TY(tl_build_local_get(m, f, 2)), TL_TYPE_V128);
  ck_assert_uint_eq(tl_function_add_var(m, f, TL_TYPE_UNREACHABLE), TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_function_count(m), 1);
  ck_assert_ptr_null(tl_module_last_error(NULL));
  tl_module_free(m);
} END_TEST

/* ---- plain instructions -------------------------------------------------- */
START_TEST(consts_and_named_ops) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  ck_assert_uint_eq(TY(I32(-1)), TL_TYPE_I32);
  ck_assert_uint_eq(TY(I64(1)), TL_TYPE_I64);
  ck_assert_uint_eq(TY(tl_build_const_f32(m, 1.5f)), TL_TYPE_F32);
  ck_assert_uint_eq(TY(tl_build_const_f64(m, -0.0)), TL_TYPE_F64);
  ck_assert_uint_eq(TY(tl_build_const_f32_bits(m, 0x7fc00001u)), TL_TYPE_F32);
  ck_assert_uint_eq(TY(tl_build_const_f64_bits(m, 1)), TL_TYPE_F64);
  tl_expr_ref v = tl_build_const_v128(m, zero16);
  ck_assert_uint_eq(TY(v), TL_TYPE_V128);
  ck_assert_uint_eq(TY(tl_build_unary(m, "i64.eqz", I64(0))), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_unary(m, "f64.convert_i32_u", I32(0))), TL_TYPE_F64);
  ck_assert_uint_eq(TY(tl_build_unary(m, "i32x4.all_true", v)), TL_TYPE_I32);
  tl_expr_ref add = tl_build_binary(m, "i64.add", I64(1), I64(2));
  ck_assert_uint_eq(TY(add), TL_TYPE_I64);
  ck_assert_int_eq(tl_expr_get_op(add), tl_op_lookup("i64.add"));
  ck_assert_str_eq(tl_op_name(tl_expr_get_op(add)), "i64.add");
  ck_assert_uint_eq(tl_expr_num_kids(add), 2);
  ck_assert_uint_eq(TY(tl_expr_get_kid(add, 1)), TL_TYPE_I64);
  ck_assert_ptr_null(tl_expr_get_kid(add, 2));
  ck_assert_uint_eq(TY(tl_build_binary(m, "i8x16.shl", v, I32(1))), TL_TYPE_V128);
  ck_assert_uint_eq(TY(tl_build_ternary(m, "v128.bitselect", v, v, v)), TL_TYPE_V128);
  ck_assert_uint_eq(TY(tl_build_ternary(m, "select", I32(1), I32(2), I32(0))), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_nop(m)), TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_unreachable(m)), TL_TYPE_UNREACHABLE);
  ck_assert_uint_eq(TY(tl_build_drop(m, I32(0))), TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_unary(m, "drop", I32(0))), TL_TYPE_NONE);
  /* An unreachable operand makes the node unreachable. */
  ck_assert_uint_eq(TY(tl_build_binary(m, "i32.add", tl_build_unreachable(m), I32(1))),
                    TL_TYPE_UNREACHABLE);
  ck_assert_uint_eq(TY(tl_build_select(m, I32(1), I32(2), I32(3), TL_TYPE_AUTO)), TL_TYPE_I32);
  tl_expr_ref sel = tl_build_select(m, I32(1), tl_build_ref_null(m, TL_TYPE_FUNCREF),
                                    tl_build_ref_null(m, TL_TYPE_FUNCREF), TL_TYPE_AUTO);
  ck_assert_uint_eq(TY(sel), TL_TYPE_FUNCREF); /* typed select for references */
  ck_assert_uint_eq(TY(tl_build_select(m, I32(1), I64(2), I64(3), TL_TYPE_I64)), TL_TYPE_I64);

  ck_assert_ptr_null(tl_build_binary(m, "i32.frobnicate", I32(1), I32(2)));
  expect_error(m, "unknown instruction 'i32.frobnicate'");
  ck_assert_ptr_null(tl_build_binary(m, "i32.eqz", I32(1), I32(2)));
  expect_error(m, "does not fit");
  ck_assert_ptr_null(tl_build_unary(m, "i32.load", I32(0)));  /* has immediates */
  ck_assert_ptr_null(tl_build_unary(m, NULL, I32(0)));
  ck_assert_ptr_null(tl_build_binary(m, "i32.add", I32(1), NULL));
  expect_error(m, "operand 1 is NULL");
  ck_assert_ptr_null(tl_build_select(m, I32(1), I32(2), I32(3), TL_TYPE_NONE));
  ck_assert_ptr_null(tl_build_const_v128(m, NULL));
  ck_assert_ptr_null(tl_build_const_i32(NULL, 1));
  tl_module_free(m);
} END_TEST

START_TEST(generic_builder) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.value = 7;
  tl_expr_ref c = tl_build_op(m, TL_NO_FUNC, tl_op_lookup("i64.const"), NULL, 0, &a);
  ck_assert_uint_eq(TY(c), TL_TYPE_I64);
  tl_expr_ref k[] = {c, I64(1)};
  ck_assert_uint_eq(TY(tl_build_op(m, TL_NO_FUNC, tl_op_lookup("i64.lt_u"), k, 2, NULL)),
                    TL_TYPE_I32);
  ck_assert_ptr_null(tl_build_op(m, TL_NO_FUNC, tl_op_lookup("i64.lt_u"), k, 1, NULL));
  expect_error(m, "1 operands given, takes 2");
  ck_assert_ptr_null(tl_build_op(m, TL_NO_FUNC, -1, NULL, 0, NULL));
  expect_error(m, "unknown opcode");
  ck_assert_ptr_null(tl_build_op(m, TL_NO_FUNC, 1 << 20, NULL, 0, NULL));
  ck_assert_ptr_null(tl_build_op(m, TL_NO_FUNC, tl_op_lookup("end"), NULL, 0, NULL));
  expect_error(m, "not an instruction");
  ck_assert_ptr_null(tl_build_op(m, TL_NO_FUNC, tl_op_lookup("i64.add"), NULL, 2, NULL));
  ck_assert_ptr_null(tl_build_op(m, 5, tl_op_lookup("nop"), NULL, 0, NULL));
  expect_error(m, "function index 5 out of range");
  ck_assert_int_eq(tl_op_lookup("no.such"), -1);
  ck_assert_int_eq(tl_op_lookup(NULL), -1);
  ck_assert_ptr_null(tl_op_name(-1));
  ck_assert_ptr_null(tl_build_op(NULL, TL_NO_FUNC, tl_op_lookup("nop"), NULL, 0, NULL));
  tl_module_free(m);
} END_TEST

/* ---- control flow -------------------------------------------------------- */
START_TEST(control_types) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  uint32_t f = void_func(m, NULL, 0);
  tl_label_t b = tl_new_label(m, f), l = tl_new_label(m, f), i = tl_new_label(m, f);
  ck_assert_uint_ne(b, l);
  /* (block $b (br $b (i32.const 1)) ...) carries i32. */
  tl_expr_ref br = tl_build_br(m, f, b, I32(1));
  ck_assert_uint_eq(TY(br), TL_TYPE_UNREACHABLE);
  tl_expr_ref blk = tl_build_block(m, f, b, &br, 1, TL_TYPE_AUTO);
  ck_assert_uint_eq(TY(blk), TL_TYPE_I32);
  tl_expr_ref one = I32(1);
  ck_assert_uint_eq(TY(tl_build_block(m, f, TL_LABEL_NONE, &one, 1, TL_TYPE_I32)), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_block(m, f, TL_LABEL_NONE, NULL, 0, TL_TYPE_AUTO)), TL_TYPE_NONE);
  tl_expr_ref two = I32(2);
  ck_assert_ptr_null(tl_build_block(m, f, TL_LABEL_NONE, &two, 1, TL_TYPE_I64));
  expect_error(m, "not the result type");
  tl_expr_ref un = tl_build_unreachable(m);  /* unreachable fits any result type */
  ck_assert_uint_eq(TY(tl_build_block(m, f, TL_LABEL_NONE, &un, 1, TL_TYPE_F32)),
                    TL_TYPE_UNREACHABLE);
  /* br_if without value is none; with value, the value's type. */
  tl_expr_ref bi = tl_build_br_if(m, f, l, I32(0), NULL);
  ck_assert_uint_eq(TY(bi), TL_TYPE_NONE);
  ck_assert_uint_eq(tl_expr_num_kids(bi), 1);
  tl_expr_ref bv = tl_build_br_if(m, f, b, I32(0), I64(3));
  ck_assert_uint_eq(TY(bv), TL_TYPE_I64);
  ck_assert_uint_eq(TY(tl_expr_get_kid(bv, 1)), TL_TYPE_I32); /* value, then condition */
  tl_expr_ref loop = tl_build_loop(m, f, l, &bi, 1, TL_TYPE_NONE);
  ck_assert_uint_eq(TY(loop), TL_TYPE_NONE);
  /* if: typed by its arms. */
  tl_expr_ref ife = tl_build_if(m, f, TL_LABEL_NONE, I32(1), I32(2), I32(3));
  ck_assert_uint_eq(TY(ife), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_if(m, f, TL_LABEL_NONE, I32(1), tl_build_nop(m), NULL)),
                    TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_if(m, f, i, I32(1), tl_build_br(m, f, i, I64(1)),
                                   tl_build_unreachable(m))),
                    TL_TYPE_I64);
  ck_assert_ptr_null(tl_build_if(m, f, TL_LABEL_NONE, I32(1), NULL, NULL));
  tl_label_t targets[] = {b, b};
  tl_expr_ref bt = tl_build_br_table(m, f, targets, 2, b, I32(0), I32(5));
  ck_assert_uint_eq(TY(bt), TL_TYPE_UNREACHABLE);
  ck_assert_uint_eq(TY(tl_build_block(m, f, b, &bt, 1, TL_TYPE_AUTO)), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_return(m, NULL)), TL_TYPE_UNREACHABLE);
  ck_assert_uint_eq(TY(tl_build_return(m, I32(1))), TL_TYPE_UNREACHABLE);

  /* Labels: only this function's, only with a function. */
  ck_assert_ptr_null(tl_build_br(m, f, 99, NULL));
  expect_error(m, "label 99 is not a label of this function");
  ck_assert_ptr_null(tl_build_br(m, TL_NO_FUNC, b, NULL));
  expect_error(m, "needs a function");
  ck_assert_ptr_null(tl_build_block(m, f, 42, NULL, 0, TL_TYPE_AUTO));
  tl_label_t bad_targets[] = {b, 77};
  ck_assert_ptr_null(tl_build_br_table(m, f, bad_targets, 2, b, I32(0), NULL));
  ck_assert_ptr_null(tl_build_br_table(m, f, NULL, 2, b, I32(0), NULL));
  ck_assert_uint_eq(tl_new_label(m, 9), TL_LABEL_NONE);
  ck_assert_ptr_null(tl_build_block(m, f, TL_LABEL_NONE, NULL, 0, 777));
  tl_module_free(m);
} END_TEST

/* ---- calls, variables, multi-value --------------------------------------- */
START_TEST(calls_and_variables) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  tl_type_t pair[] = {TL_TYPE_I32, TL_TYPE_I64};
  tl_type_t tup = tl_build_tuple(m, pair, 2);
  uint32_t t_pair = tl_add_type(m, TL_TYPE_F32, tup);
  uint32_t imp = tl_add_function_import(m, "imp", "env", "pair", t_pair);
  ck_assert_uint_eq(imp, 0);
  tl_type_t vars[] = {TL_TYPE_I64, tup};
  uint32_t f = tl_add_function(m, "f", t_pair, vars, 2, NULL);
  ck_assert_uint_eq(f, 1);
  /* Calls are typed by the callee; several results are one tuple. */
  tl_expr_ref arg = tl_build_const_f32(m, 1);
  tl_expr_ref c = tl_build_call(m, imp, &arg, 1);
  ck_assert_uint_eq(TY(c), tup);
  tl_expr_ref x = tl_build_tuple_extract(m, c, 1);
  ck_assert_uint_eq(TY(x), TL_TYPE_I64);
  ck_assert_ptr_null(tl_build_tuple_extract(m, tl_build_call(m, imp, &arg, 1), 2));
  ck_assert_ptr_null(tl_build_tuple_extract(m, I32(0), 0));
  tl_expr_ref vals[] = {I32(1), I64(2)};
  ck_assert_uint_eq(TY(tl_build_tuple_make(m, vals, 2)), tup);
  ck_assert_ptr_null(tl_build_tuple_make(m, vals, 1));
  tl_expr_ref nested[] = {I32(1), tl_build_tuple_make(m, vals, 2)};
  ck_assert_ptr_null(tl_build_tuple_make(m, nested, 2));
  ck_assert_ptr_null(tl_build_call(m, 7, NULL, 0));
  expect_error(m, "function index 7 out of range (2 defined)");
  ck_assert_uint_eq(TY(tl_build_return_call(m, imp, &arg, 1)), TL_TYPE_UNREACHABLE);
  /* call_indirect needs its type (its table may come later). */
  tl_expr_ref ci = tl_build_call_indirect(m, 0, t_pair, I32(0), &arg, 1);
  ck_assert_uint_eq(TY(ci), tup);
  ck_assert_uint_eq(tl_expr_num_kids(ci), 2);
  ck_assert_uint_eq(TY(tl_expr_get_kid(ci, 1)), TL_TYPE_I32);
  ck_assert_ptr_null(tl_build_call_indirect(m, 0, 9, I32(0), NULL, 0));
  expect_error(m, "type index 9 out of range");
  ck_assert_ptr_null(tl_build_call_indirect(m, 0, t_pair, NULL, NULL, 0));
  ck_assert_uint_eq(TY(tl_build_return_call_indirect(m, 0, t_pair, I32(0), &arg, 1)),
                    TL_TYPE_UNREACHABLE);
  /* Locals: param 0 is f32, then the vars. */
  ck_assert_uint_eq(TY(tl_build_local_get(m, f, 0)), TL_TYPE_F32);
  ck_assert_uint_eq(TY(tl_build_local_get(m, f, 2)), tup);
  ck_assert_uint_eq(TY(tl_build_local_set(m, f, 1, I64(1))), TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_local_tee(m, f, 1, I64(1))), TL_TYPE_I64);
  ck_assert_ptr_null(tl_build_local_get(m, f, 3));
  expect_error(m, "local index 3 out of range (3 defined)");
  ck_assert_ptr_null(tl_build_local_get(m, TL_NO_FUNC, 0));
  ck_assert_ptr_null(tl_build_local_get(m, imp, 0));
  expect_error(m, "is an import");
  ck_assert_ptr_null(tl_build_local_set(m, f, 1, NULL));
  /* Globals. */
  ck_assert_ptr_null(tl_build_global_get(m, 0));
  expect_error(m, "global index 0");
  uint32_t g = tl_add_global(m, "g", TL_TYPE_F64, true, tl_build_const_f64(m, 2));
  ck_assert_uint_eq(TY(tl_build_global_get(m, g)), TL_TYPE_F64);
  ck_assert_uint_eq(TY(tl_build_global_set(m, g, tl_build_const_f64(m, 1))), TL_TYPE_NONE);
  ck_assert_uint_eq(tl_add_global(m, "h", tup, false, I32(0)), TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_add_global(m, "h", TL_TYPE_I32, false, NULL), TL_INVALID_INDEX);
  tl_module_free(m);
} END_TEST

/* ---- memory, tables, SIMD lanes, atomics --------------------------------- */
START_TEST(memory_tables_simd) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  tl_expr_ref v = tl_build_const_v128(m, zero16);
  ck_assert_uint_eq(TY(tl_build_load(m, "i64.load16_s", 8, 2, I32(0))), TL_TYPE_I64);
  ck_assert_uint_eq(TY(tl_build_load(m, "v128.load32_zero", 0, 0, I32(0))), TL_TYPE_V128);
  ck_assert_uint_eq(TY(tl_build_load(m, "i32.atomic.load8_u", 0, 0, I32(0))), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_store(m, "f32.store", 0, 4, I32(0), tl_build_const_f32(m, 1))),
                    TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_store(m, "i64.atomic.rmw.add", 0, 0, I32(0), I64(1))),
                    TL_TYPE_I64);
  ck_assert_uint_eq(TY(tl_build_atomic_rmw3(m, "i32.atomic.rmw16.cmpxchg_u", 0, I32(0), I32(1),
                                            I32(2))),
                    TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_atomic_rmw3(m, "memory.atomic.wait64", 0, I32(0), I64(1),
                                            I64(-1))),
                    TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_atomic_fence(m)), TL_TYPE_NONE);
  ck_assert_ptr_null(tl_build_load(m, "i32.load", 0, 8, I32(0)));
  expect_error(m, "alignment 8 over the natural 4");
  ck_assert_ptr_null(tl_build_load(m, "i32.load", 0, 3, I32(0)));
  expect_error(m, "not a power of two");
  /* offsets past 4 GiB build (memory64); validation refuses them on a 32-bit memory (test memory64) */
  ck_assert_ptr_nonnull(tl_build_load(m, "i32.load", 1ull << 32, 0, I32(0)));
  ck_assert_uint_eq(TY(tl_build_load(m, "i32.load", UINT32_MAX, 0, I32(0))), TL_TYPE_I32);
  ck_assert_ptr_null(tl_build_load(m, "i32.store", 0, 0, I32(0)));
  ck_assert_ptr_null(tl_build_store(m, "i32.add", 0, 0, I32(0), I32(0)));
  ck_assert_uint_eq(TY(tl_build_memory_size(m, 0)), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_memory_grow(m, 0, I32(1))), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_memory_fill(m, 0, I32(0), I32(0), I32(0))), TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_memory_copy(m, 0, 0, I32(0), I32(0), I32(0))), TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_memory_init(m, 3, 0, I32(0), I32(0), I32(0))), TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_data_drop(m, 3)), TL_TYPE_NONE);
  /* SIMD lanes. */
  ck_assert_uint_eq(TY(tl_build_simd_extract(m, "i16x8.extract_lane_u", v, 7)), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_simd_extract(m, "f64x2.extract_lane", v, 1)), TL_TYPE_F64);
  ck_assert_ptr_null(tl_build_simd_extract(m, "f64x2.extract_lane", v, 2));
  expect_error(m, "lane 2 out of range");
  ck_assert_uint_eq(TY(tl_build_simd_replace(m, "i64x2.replace_lane", v, 0, I64(1))),
                    TL_TYPE_V128);
  uint8_t lanes[16] = {0, 17, 2, 31};
  ck_assert_uint_eq(TY(tl_build_simd_shuffle(m, v, v, lanes)), TL_TYPE_V128);
  lanes[5] = 32;
  ck_assert_ptr_null(tl_build_simd_shuffle(m, v, v, lanes));
  ck_assert_uint_eq(TY(tl_build_simd_mem_lane(m, "v128.load16_lane", 0, 0, 7, I32(0), v)),
                    TL_TYPE_V128);
  ck_assert_uint_eq(TY(tl_build_simd_mem_lane(m, "v128.store64_lane", 0, 8, 1, I32(0), v)),
                    TL_TYPE_NONE);
  ck_assert_ptr_null(tl_build_simd_mem_lane(m, "v128.store64_lane", 0, 0, 2, I32(0), v));
  /* Tables and references; only table.get needs its table to exist. */
  ck_assert_uint_eq(TY(tl_build_table_size(m, 0)), TL_TYPE_I32);
  ck_assert_ptr_null(tl_build_table_get(m, 0, I32(0)));
  expect_error(m, "table index 0 out of range");
  ck_assert_uint_eq(tl_add_table(m, TL_TYPE_EXTERNREF, 0, 10, true), 0);
  ck_assert_uint_eq(tl_add_table(m, TL_TYPE_I32, 0, 10, true), TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_add_table(m, TL_TYPE_FUNCREF, 5, 4, true), TL_INVALID_INDEX);
  tl_expr_ref nul = tl_build_ref_null(m, TL_TYPE_EXTERNREF);
  ck_assert_uint_eq(TY(nul), TL_TYPE_EXTERNREF);
  ck_assert_ptr_null(tl_build_ref_null(m, TL_TYPE_I32));
  ck_assert_uint_eq(TY(tl_build_ref_is_null(m, nul)), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_table_get(m, 0, I32(0))), TL_TYPE_EXTERNREF);
  ck_assert_uint_eq(TY(tl_build_table_set(m, 0, I32(0), tl_build_ref_null(m, TL_TYPE_EXTERNREF))),
                    TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_table_size(m, 0)), TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_table_grow(m, 0, tl_build_ref_null(m, TL_TYPE_EXTERNREF), I32(1))),
                    TL_TYPE_I32);
  ck_assert_uint_eq(TY(tl_build_table_fill(m, 0, I32(0), tl_build_ref_null(m, TL_TYPE_EXTERNREF),
                                           I32(0))),
                    TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_table_copy(m, 0, 0, I32(0), I32(0), I32(0))), TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_table_copy(m, 0, 1, I32(0), I32(0), I32(0))), TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_table_init(m, 4, 0, I32(0), I32(0), I32(0))), TL_TYPE_NONE);
  ck_assert_uint_eq(TY(tl_build_elem_drop(m, 4)), TL_TYPE_NONE);
  ck_assert_ptr_null(tl_build_table_get(m, 1, I32(0)));
  ck_assert_ptr_null(tl_build_ref_func(m, 0));
  uint32_t f = void_func(m, NULL, 0);
  /* a module without gc types: ref.func stays a funcref (m->typed_funcs) */
  tl_type_t rt = TY(tl_build_ref_func(m, f));
  ck_assert_uint_eq(rt, TL_TYPE_FUNCREF);
  ck_assert(tl_type_is_subtype(m, rt, TL_TYPE_FUNCREF));
  ck_assert(!tl_type_is_subtype(m, TL_TYPE_FUNCREF, TL_TYPE_EXTERNREF));
  tl_module_free(m);
} END_TEST

/* ---- module items: order, limits, segments, bodies ----------------------- */
START_TEST(module_items) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  uint32_t t = tl_add_type(m, TL_TYPE_NONE, TL_TYPE_NONE);
  ck_assert_uint_eq(tl_add_type(m, TL_TYPE_NONE, TL_TYPE_NONE), t);
  ck_assert_uint_eq(tl_add_global_import(m, "gi", "env", "g", TL_TYPE_I32, false), 0);
  ck_assert_uint_eq(tl_add_table_import(m, "env", "t", TL_TYPE_FUNCREF, 1, 0, false), 0);
  ck_assert_uint_eq(tl_add_function_import(m, "fi", "env", "f", t), 0);
  ck_assert_uint_eq(tl_add_function_import(m, "fi", "env", NULL, t), TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_add_function_import(m, "fi", "env", "f", 5), TL_INVALID_INDEX);
  uint32_t f = tl_add_function(m, "f", t, NULL, 0, tl_build_nop(m));
  ck_assert_uint_eq(f, 1);
  /* Imports after defined items of their kind would renumber them. */
  ck_assert_uint_eq(tl_add_function_import(m, "late", "env", "late", t), TL_INVALID_INDEX);
  expect_error(m, "imports must come before defined functions");
  ck_assert_uint_eq(tl_add_global(m, "g", TL_TYPE_I32, false, I32(1)), 1);
  ck_assert_uint_eq(tl_add_global_import(m, "late", "env", "g2", TL_TYPE_I32, false),
                    TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_add_table(m, TL_TYPE_FUNCREF, 1, 0, false), 1);
  ck_assert_uint_eq(tl_add_table_import(m, "env", "t2", TL_TYPE_FUNCREF, 1, 0, false),
                    TL_INVALID_INDEX);
  /* Bodies: imports have none; set_body checks the nodes belong to f. */
  ck_assert_int_eq(tl_function_set_body(m, 0, tl_build_nop(m)), TL_E_INVALID);
  ck_assert_int_eq(tl_function_set_body(m, 9, tl_build_nop(m)), TL_E_INVALID);
  ck_assert_int_eq(tl_function_set_body(m, f, NULL), TL_E_INVALID);
  tl_type_t vars[] = {TL_TYPE_I32, TL_TYPE_I32};
  uint32_t g = tl_add_function(m, "g", t, vars, 2, NULL);
  tl_label_t gl = tl_new_label(m, g);
  gl = tl_new_label(m, g);
  ck_assert_int_eq(tl_function_set_body(m, f, tl_build_local_set(m, g, 1, I32(0))),
                   TL_E_INVALID);
  expect_error(m, "local.set");
  tl_expr_ref br = tl_build_br(m, g, gl, NULL);
  ck_assert_int_eq(tl_function_set_body(m, f, tl_build_block(m, g, gl, &br, 1, TL_TYPE_AUTO)),
                   TL_E_INVALID);
  ck_assert_int_eq(tl_function_set_body(m, g, tl_build_block(m, g, gl, &br, 1, TL_TYPE_AUTO)),
                   TL_OK);
  ck_assert_uint_eq(tl_add_function(m, "bad", t, NULL, 0, tl_build_local_get(m, g, 0)),
                    TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_function_count(m), 3);
  ck_assert_uint_eq(tl_add_function(m, "bad", t, NULL, 1, NULL), TL_INVALID_INDEX);
  /* Memory. */
  ck_assert_int_eq(tl_set_memory(m, 2, 1, true, false, NULL), TL_E_INVALID);
  ck_assert_int_eq(tl_set_memory(m, 70000, 0, false, false, NULL), TL_E_INVALID);
  ck_assert_int_eq(tl_set_memory(m, 1, 0, false, true, NULL), TL_E_INVALID);
  expect_error(m, "shared memory needs a maximum");
  ck_assert_int_eq(tl_set_memory(m, 1, 2, true, false, "mem"), TL_OK);
  ck_assert_int_eq(tl_set_memory(m, 1, 4, true, true, NULL), TL_OK); /* redefines */
  ck_assert_int_eq(tl_add_memory_import(m, "env", "mem", 1, 0, false, false), TL_E_INVALID);
  /* Exports. */
  ck_assert_int_eq(tl_add_export(m, TL_EXPORT_FUNC, f, "f"), TL_OK);
  ck_assert_int_eq(tl_add_export(m, TL_EXPORT_GLOBAL, 2, "g"), TL_E_INVALID);
  expect_error(m, "global index 2 out of range");
  ck_assert_int_eq(tl_add_export(m, 4, 0, "x"), TL_E_INVALID);
  ck_assert_int_eq(tl_add_export(m, TL_EXPORT_TABLE, 1, NULL), TL_E_INVALID);
  ck_assert_int_eq(tl_add_export(m, TL_EXPORT_TABLE, 1, "t"), TL_OK);
  /* Segments. */
  uint32_t funcs[] = {0, 1, 2};
  ck_assert_uint_eq(tl_add_active_element_segment(m, 1, I32(0), funcs, 3), 0);
  ck_assert_uint_eq(tl_add_active_element_segment(m, 2, I32(0), funcs, 3), TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_add_active_element_segment(m, 1, NULL, funcs, 3), TL_INVALID_INDEX);
  uint32_t bad_funcs[] = {0, 3};
  ck_assert_uint_eq(tl_add_passive_element_segment(m, bad_funcs, 2), TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_add_passive_element_segment(m, funcs, 2), 1);
  ck_assert_uint_eq(tl_add_declarative_element_segment(m, funcs, 1), 2);
  ck_assert_uint_eq(tl_add_data_segment(m, true, 0, I32(8), "hi", 2), 0);
  ck_assert_uint_eq(tl_add_data_segment(m, false, 0, NULL, "there", 5), 1);
  ck_assert_uint_eq(tl_add_data_segment(m, true, 1, I32(8), "hi", 2), TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_add_data_segment(m, true, 0, I32(8), NULL, 2), TL_INVALID_INDEX);
  ck_assert_int_eq(tl_set_start(m, 3), TL_E_INVALID);
  ck_assert_int_eq(tl_set_start(m, f), TL_OK);
  uint8_t *bytes = NULL;
  size_t size = validate_and_write(m, &bytes);
  if (have_wasm_validate()) ck_assert(wabt_accepts(bytes, size));
  free(bytes);
  tl_module_free(m);
} END_TEST

/* ---- multi-memory: a second memory, accesses to it, written and read back */
/* memory64: a 64-bit memory and table, an access at an offset above 4 GiB,
 * written, read back byte for byte, run on the interpreter (an i64 address
 * whose sum with the offset overflows 64 bits traps), refused without the
 * feature; the same offset on a 32-bit memory is invalid. */
/* A module using feature: a read without it fails with TL_E_FEATURE; with
 * every feature it reads back and writes the same bytes. */
static void refused_without_then_exact(const uint8_t *bytes, size_t size, uint32_t feature) {
  tl_error err = {0};
  tl_read_options without = {.features = TL_FEATURES_ALL & ~feature};
  ck_assert_ptr_null(tl_module_read(bytes, size, &without, &err));
  ck_assert_int_eq(err.code, TL_E_FEATURE);
  tl_read_options all = {.features = TL_FEATURES_ALL};
  tl_module *back = tl_module_read(bytes, size, &all, &err);
  ck_assert_msg(back != NULL, "read back: %s", err.msg);
  uint8_t *again = NULL;
  size_t size2 = validate_and_write(back, &again);
  ck_assert_uint_eq(size2, size);
  ck_assert(!memcmp(again, bytes, size));
  free(again);
  tl_module_free(back);
}

START_TEST(memory64) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  ck_assert_uint_eq(tl_add_memory64(m, 2, 1, true, false), TL_INVALID_INDEX); /* min > max */
  ck_assert_uint_eq(tl_add_memory64(m, 1, (1ull << 48) + 1, true, false), TL_INVALID_INDEX);
  ck_assert_uint_eq(tl_add_memory64(m, 1, 3, true, false), 0);
  ck_assert_uint_eq(tl_add_table64(m, TL_TYPE_FUNCREF, 1, 0, false), 0);
  tl_type_t t = tl_add_type(m, TL_TYPE_I64, TL_TYPE_I32);
  uint32_t f = tl_add_function(m, "f", t, NULL, 0, NULL);
  tl_imm_args far = TL_IMM_ARGS_INIT;
  far.offset = (1ull << 32) + 8; /* i32.load offset=2^32+8 (p - 2^32) */
  tl_expr_ref sub_kids[2] = {tl_build_local_get(m, f, 0), tl_build_const_i64(m, (int64_t)(1ull << 32))};
  tl_expr_ref addr = tl_build_op(m, f, tl_op_lookup("i64.sub"), sub_kids, 2, NULL);
  tl_expr_ref ld = tl_build_op(m, f, tl_op_lookup("i32.load"), &addr, 1, &far);
  ck_assert_ptr_nonnull(ld);
  ck_assert_int_eq(tl_function_set_body(m, f, ld), TL_OK);
  ck_assert_int_eq(tl_add_export(m, TL_EXPORT_FUNC, f, "f"), TL_OK);
  uint8_t *bytes = NULL;
  size_t size = validate_and_write(m, &bytes);
  refused_without_then_exact(bytes, size, TL_FEATURE_MEMORY64);
  free(bytes);
  tl_error err = {0};
  /* the same offset on a 32-bit memory is invalid */
  tl_module *m32 = new_module(TL_FEATURES_ALL);
  ck_assert_uint_eq(tl_add_memory(m32, 1, 0, false, false), 0);
  uint32_t g = tl_add_function(m32, "g", tl_add_type(m32, TL_TYPE_I32, TL_TYPE_I32), NULL, 0, NULL);
  tl_expr_ref a32 = tl_build_local_get(m32, g, 0);
  ck_assert_int_eq(tl_function_set_body(m32, g, tl_build_op(m32, g, tl_op_lookup("i32.load"), &a32, 1, &far)), TL_OK);
  ck_assert_int_eq(tl_module_validate(m32, &err), TL_E_INVALID);
  ck_assert_msg(strstr(err.msg, "out of range"), "%s", err.msg);
  tl_module_free(m32);
  /* f(0): the address is 2^64 - 2^32, plus the offset overflows 64 bits:
   * a trap (wrapping would load from byte 8) */
  tl_store *st = tl_store_new();
  tl_store_set_engine(st, TL_ENGINE_INTERP);
  tl_instance *inst = tl_instantiate(st, m, NULL, &err);
  ck_assert_msg(inst != NULL, "instantiate: %s", err.msg);
  tl_value a = {.type = TL_VAL_I64}, r = {0};
  uint32_t nres = 0;
  ck_assert_int_eq(tl_invoke(inst, "f", &a, 1, &r, 1, &nres, &err), TL_E_TRAP);
  ck_assert_msg(strstr(err.msg, "out of bounds memory access"), "%s", err.msg);
  tl_store_free(st);
  tl_module_set_features(m, TL_FEATURES_ALL & ~TL_FEATURE_MEMORY64);
  ck_assert_int_eq(tl_module_validate(m, &err), TL_E_FEATURE);
  tl_module_free(m);
}
END_TEST

START_TEST(multi_memory) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  ck_assert_int_eq(tl_set_memory(m, 1, 0, false, false, NULL), TL_OK);
  ck_assert_uint_eq(tl_add_memory(m, 2, 1, true, false), TL_INVALID_INDEX); /* min > max */
  ck_assert_uint_eq(tl_add_memory(m, 1, 3, true, false), 1);
  tl_type_t t = tl_add_type(m, TL_TYPE_I32, TL_TYPE_I32);
  uint32_t f = tl_add_function(m, "f", t, NULL, 0, NULL);
  tl_imm_args one = TL_IMM_ARGS_INIT;
  one.index = 1;
  one.offset = 4;
  tl_expr_ref st_kids[2] = {tl_build_local_get(m, f, 0), tl_build_const_i32(m, 7)};
  tl_expr_ref st = tl_build_op(m, f, tl_op_lookup("i32.store"), st_kids, 2, &one);
  tl_expr_ref ld_kid = tl_build_local_get(m, f, 0);
  tl_expr_ref ld = tl_build_op(m, f, tl_op_lookup("i32.load"), &ld_kid, 1, &one);
  tl_imm_args big = TL_IMM_ARGS_INIT;
  big.index = 70000;
  ck_assert_ptr_null(tl_build_op(m, f, tl_op_lookup("i32.load"), &ld_kid, 1, &big));
  expect_error(m, "memory index 70000");
  tl_expr_ref body[2] = {st, ld};
  ck_assert_int_eq(tl_function_set_body(m, f, tl_build_block(m, f, TL_LABEL_NONE, body, 2, TL_TYPE_AUTO)), TL_OK);
  uint8_t *bytes = NULL;
  size_t size = validate_and_write(m, &bytes);
  if (have_wasm_validate()) ck_assert(wabt_accepts(bytes, size));
  /* without the feature the second memory is refused, with it it reads back */
  refused_without_then_exact(bytes, size, TL_FEATURE_MULTI_MEMORY);
  free(bytes);
  tl_error err = {0};
  tl_module_set_features(m, TL_FEATURES_ALL & ~TL_FEATURE_MULTI_MEMORY);
  ck_assert_int_eq(tl_module_validate(m, &err), TL_E_FEATURE);
  tl_module_free(m);
} END_TEST

/* ---- a module with every kind of expression ------------------------------ */
/* Locals of the kitchen-sink function. */
enum { L_I32, L_I64, L_F32, L_F64, L_V128, L_FUNCREF, L_EXTERNREF, L_N };

typedef struct {
  tl_module *m;
  uint32_t f;
  tl_expr_ref list[128];
  uint32_t n;
} sink;

static void put(sink *s, tl_expr_ref e) {
  ck_assert_msg(e != NULL, "building statement %u: %s", s->n, tl_module_last_error(s->m)->msg);
  ck_assert_uint_lt(s->n, 128);
  tl_expr_ref d = TY(e) == TL_TYPE_NONE || TY(e) == TL_TYPE_UNREACHABLE ? e : tl_build_drop(s->m, e);
  s->list[s->n++] = d;
}

static void sink_numeric(sink *s) {
  tl_module *m = s->m;
  tl_expr_ref v = tl_build_const_v128(m, zero16);
  put(s, tl_build_local_set(m, s->f, L_I32, I32(5)));
  put(s, tl_build_local_tee(m, s->f, L_I64, I64(-5)));
  put(s, tl_build_local_set(m, s->f, L_F32, tl_build_const_f32(m, 0.5f)));
  put(s, tl_build_local_set(m, s->f, L_F64, tl_build_const_f64_bits(m, 0x7ff8000000000001ull)));
  put(s, tl_build_local_set(m, s->f, L_V128, v));
  put(s, tl_build_binary(m, "i32.rotl", tl_build_local_get(m, s->f, L_I32), I32(3)));
  put(s, tl_build_unary(m, "i64.extend8_s", tl_build_local_get(m, s->f, L_I64)));
  put(s, tl_build_unary(m, "i32.trunc_sat_f64_s", tl_build_local_get(m, s->f, L_F64)));
  put(s, tl_build_ternary(m, "v128.bitselect", tl_build_local_get(m, s->f, L_V128),
                          tl_build_const_v128(m, zero16), tl_build_const_v128(m, zero16)));
  put(s, tl_build_select(m, I32(1), tl_build_const_f32_bits(m, 0), tl_build_local_get(m, s->f, L_F32),
                         TL_TYPE_AUTO));
  put(s, tl_build_select(m, I32(0), tl_build_local_get(m, s->f, L_FUNCREF),
                         tl_build_ref_null(m, TL_TYPE_FUNCREF), TL_TYPE_AUTO));
  put(s, tl_build_nop(m));
}

static void sink_memory(sink *s) {
  tl_module *m = s->m;
  put(s, tl_build_load(m, "i32.load8_u", 4, 1, I32(0)));
  put(s, tl_build_store(m, "i64.store32", 8, 0, I32(0), I64(1)));
  put(s, tl_build_store(m, "v128.store", 0, 16, I32(16), tl_build_load(m, "v128.load8x8_s", 0, 0, I32(0))));
  put(s, tl_build_store(m, "i32.atomic.rmw8.xor_u", 1, 0, I32(0), I32(255)));
  put(s, tl_build_atomic_rmw3(m, "i64.atomic.rmw.cmpxchg", 0, I32(0), I64(1), I64(2)));
  put(s, tl_build_store(m, "memory.atomic.notify", 0, 0, I32(0), I32(1)));
  put(s, tl_build_atomic_fence(m));
  put(s, tl_build_memory_size(m, 0));
  put(s, tl_build_memory_grow(m, 0, I32(0)));
  put(s, tl_build_memory_fill(m, 0, I32(0), I32(7), I32(4)));
  put(s, tl_build_memory_copy(m, 0, 0, I32(8), I32(0), I32(4)));
  put(s, tl_build_memory_init(m, 1, 0, I32(0), I32(0), I32(1)));
  put(s, tl_build_data_drop(m, 1));
  put(s, tl_build_simd_extract(m, "i8x16.extract_lane_s", tl_build_local_get(m, s->f, L_V128), 15));
  put(s, tl_build_simd_replace(m, "f32x4.replace_lane", tl_build_local_get(m, s->f, L_V128), 3,
                               tl_build_local_get(m, s->f, L_F32)));
  uint8_t lanes[16] = {31, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16};
  put(s, tl_build_simd_shuffle(m, tl_build_local_get(m, s->f, L_V128),
                               tl_build_const_v128(m, zero16), lanes));
  put(s, tl_build_simd_mem_lane(m, "v128.load32_lane", 0, 0, 3, I32(0),
                                tl_build_local_get(m, s->f, L_V128)));
  put(s, tl_build_simd_mem_lane(m, "v128.store8_lane", 2, 1, 9, I32(0),
                                tl_build_local_get(m, s->f, L_V128)));
}

static void sink_tables(sink *s, uint32_t callee) {
  tl_module *m = s->m;
  put(s, tl_build_local_set(m, s->f, L_FUNCREF, tl_build_table_get(m, 0, I32(0))));
  put(s, tl_build_table_set(m, 0, I32(0), tl_build_ref_func(m, callee)));
  put(s, tl_build_table_size(m, 1));
  put(s, tl_build_table_grow(m, 1, tl_build_local_get(m, s->f, L_EXTERNREF), I32(1)));
  put(s, tl_build_table_fill(m, 1, I32(0), tl_build_ref_null(m, TL_TYPE_EXTERNREF), I32(0)));
  put(s, tl_build_table_copy(m, 0, 0, I32(0), I32(1), I32(0)));
  put(s, tl_build_table_init(m, 1, 0, I32(0), I32(0), I32(1)));
  put(s, tl_build_elem_drop(m, 1));
  put(s, tl_build_ref_is_null(m, tl_build_local_get(m, s->f, L_FUNCREF)));
}

/* callee: () -> (i32, i64). */
static void sink_control(sink *s, uint32_t callee, uint32_t t_void) {
  tl_module *m = s->m;
  uint32_t f = s->f;
  tl_label_t b = tl_new_label(m, f), l = tl_new_label(m, f), i = tl_new_label(m, f);
  tl_label_t t = tl_new_label(m, f);
  tl_expr_ref in_b[] = {tl_build_drop(m, tl_build_br_if(m, f, b, I32(0), I32(1))),
                        tl_build_drop(m, tl_build_unreachable(m))};
  put(s, tl_build_block(m, f, b, in_b, 2, TL_TYPE_I32));
  tl_expr_ref in_l[] = {tl_build_br_if(m, f, l, I32(0), NULL)};
  put(s, tl_build_loop(m, f, l, in_l, 1, TL_TYPE_AUTO));
  put(s, tl_build_if(m, f, i, I32(1), tl_build_br(m, f, i, I64(1)), I64(2)));
  put(s, tl_build_if(m, f, TL_LABEL_NONE, I32(1), tl_build_nop(m), NULL));
  tl_label_t targets[] = {t, t, t};
  tl_expr_ref in_t[] = {tl_build_br_table(m, f, targets, 3, t, I32(2), tl_build_const_f32(m, 3))};
  put(s, tl_build_block(m, f, t, in_t, 1, TL_TYPE_F32));
  put(s, tl_build_tuple_extract(m, tl_build_call(m, callee, NULL, 0), 1));
  tl_expr_ref pair[] = {I32(1), I64(2)};
  put(s, tl_build_tuple_extract(m, tl_build_tuple_make(m, pair, 2), 0));
  put(s, tl_build_call_indirect(m, 0, t_void, I32(0), NULL, 0));
  put(s, tl_build_global_set(m, 0, tl_build_binary(m, "i32.add", tl_build_global_get(m, 0), I32(1))));
  put(s, tl_build_return(m, NULL));
}

START_TEST(every_expression_kind) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  tl_type_t pair_t[] = {TL_TYPE_I32, TL_TYPE_I64};
  uint32_t t_void = tl_add_type(m, TL_TYPE_NONE, TL_TYPE_NONE);
  uint32_t t_pair = tl_add_type(m, TL_TYPE_NONE, tl_build_tuple(m, pair_t, 2));
  tl_type_t vars[L_N] = {TL_TYPE_I32, TL_TYPE_I64, TL_TYPE_F32, TL_TYPE_F64,
                         TL_TYPE_V128, TL_TYPE_FUNCREF, TL_TYPE_EXTERNREF};
  uint32_t callee = tl_add_function(m, "pair", t_pair, NULL, 0, NULL);
  uint32_t f = tl_add_function(m, "sink", t_void, vars, L_N, NULL);
  uint32_t tail = tl_add_function(m, "tail", t_void, NULL, 0, NULL);
  tl_expr_ref pair[] = {I32(1), I64(2)};
  ck_assert_int_eq(tl_function_set_body(m, callee, tl_build_tuple_make(m, pair, 2)), TL_OK);
  ck_assert_int_eq(tl_function_set_body(m, tail, tl_build_return_call(m, f, NULL, 0)), TL_OK);
  ck_assert_uint_ne(tl_add_global(m, "counter", TL_TYPE_I32, true, I32(0)), TL_INVALID_INDEX);
  ck_assert_int_eq(tl_set_memory(m, 1, 2, true, true, "memory"), TL_OK);
  ck_assert_uint_eq(tl_add_table(m, TL_TYPE_FUNCREF, 2, 0, false), 0);
  ck_assert_uint_eq(tl_add_table(m, TL_TYPE_EXTERNREF, 0, 0, false), 1);
  uint32_t funcs[] = {callee, tail};
  ck_assert_uint_eq(tl_add_active_element_segment(m, 0, I32(0), funcs, 2), 0);
  ck_assert_uint_eq(tl_add_passive_element_segment(m, funcs, 2), 1);
  ck_assert_uint_eq(tl_add_data_segment(m, true, 0, I32(0), "\1\2\3", 3), 0);
  ck_assert_uint_eq(tl_add_data_segment(m, false, 0, NULL, "\4", 1), 1);

  sink s = {m, f, {0}, 0};
  sink_numeric(&s);
  sink_memory(&s);
  sink_tables(&s, callee);
  sink_control(&s, callee, t_void);
  put(&s, tl_build_unreachable(m)); /* dead code after return */
  tl_expr_ref body = tl_build_block(m, f, TL_LABEL_NONE, s.list, s.n, TL_TYPE_AUTO);
  ck_assert_uint_eq(TY(body), TL_TYPE_UNREACHABLE);
  ck_assert_int_eq(tl_function_set_body(m, f, body), TL_OK);
  ck_assert_int_eq(tl_add_export(m, TL_EXPORT_FUNC, f, "sink"), TL_OK);
  ck_assert_int_eq(tl_add_export(m, TL_EXPORT_FUNC, tail, "tail"), TL_OK);

  uint8_t *bytes = NULL;
  size_t size = validate_and_write(m, &bytes);
  if (have_wasm_validate()) ck_assert_msg(wabt_accepts(bytes, size), "wasm-validate rejected it");
  else fprintf(stderr, "capi_test: wasm-validate not found, skipping\n");
  tl_read_options ropt = {.features = TL_FEATURES_ALL};
  tl_error err = {0};
  tl_module *back = tl_module_read(bytes, size, &ropt, &err);
  ck_assert_msg(back != NULL, "read back: %s", err.msg);
  ck_assert_uint_eq(tl_function_count(back), 3);
  tl_module_free(back);
  free(bytes);
  tl_module_free(m);
} END_TEST

/* Builders do not check features; validation names the flag to enable. */
START_TEST(features_checked_by_validate) {
  tl_module *m = new_module(tl_features_default_set());
  uint32_t f = void_func(m, NULL, 0);
  ck_assert_int_eq(tl_function_set_body(m, f, tl_build_drop(m, tl_build_const_v128(m, zero16))),
                   TL_OK);
  tl_error err = {0};
  ck_assert_int_eq(tl_module_validate(m, &err), TL_E_FEATURE);
  ck_assert_msg(strstr(err.msg, "simd"), "message: %s", err.msg);
  tl_module_set_features(m, tl_module_features(m) | TL_FEATURE_SIMD);
  ck_assert_int_eq(tl_module_validate(m, &err), TL_OK);
  tl_module_free(m);
} END_TEST

/* ---- write -> read -> print ---------------------------------------------- */
static tl_module *build_sum(void) {
  tl_module *m = new_module(tl_features_default_set());
  uint32_t t = tl_add_type(m, TL_TYPE_I32, TL_TYPE_I32);
  tl_type_t vars[] = {TL_TYPE_I32};
  uint32_t f = tl_add_function(m, "sum", t, vars, 1, NULL);
  tl_label_t done = tl_new_label(m, f), next = tl_new_label(m, f);
  tl_expr_ref in_loop[] = {
      tl_build_br_if(m, f, done, tl_build_unary(m, "i32.eqz", tl_build_local_get(m, f, 0)), NULL),
      tl_build_local_set(m, f, 1, tl_build_binary(m, "i32.add", tl_build_local_get(m, f, 1),
                                                  tl_build_local_get(m, f, 0))),
      tl_build_local_set(m, f, 0, tl_build_binary(m, "i32.sub", tl_build_local_get(m, f, 0), I32(1))),
      tl_build_br(m, f, next, NULL),
  };
  tl_expr_ref loop = tl_build_loop(m, f, next, in_loop, 4, TL_TYPE_AUTO);
  tl_expr_ref body[] = {tl_build_block(m, f, done, &loop, 1, TL_TYPE_NONE),
                        tl_build_local_get(m, f, 1)};
  ck_assert_int_eq(tl_function_set_body(m, f, tl_build_block(m, f, TL_LABEL_NONE, body, 2,
                                                             TL_TYPE_I32)),
                   TL_OK);
  ck_assert_int_eq(tl_add_export(m, TL_EXPORT_FUNC, f, "sum"), TL_OK);
  return m;
}

static const char sum_text[] =
    "(module\n"
    "  (type (;0;) (func (param i32) (result i32)))\n"
    "  (export \"sum\" (func $sum))\n"
    "  (func $sum (;0;) (type 0) (param i32) (result i32)\n"
    "    (local i32)\n"
    "    (block $l0\n"
    "      (loop $l1\n"
    "        (br_if $l0 (i32.eqz (local.get 0)))\n"
    "        (local.set 1 (i32.add (local.get 1) (local.get 0)))\n"
    "        (local.set 0 (i32.sub (local.get 0) (i32.const 1)))\n"
    "        (br $l1))\n"
    "      (unreachable))\n"
    "    (local.get 1)))\n";

/* s with whitespace runs made one space, and none after '(', before ')' or
 * at the ends: compares printed text whatever its line layout. In place. */
static char *squash(char *s) {
  char *w = s;
  for (const char *r = s; *r; r++) {
    bool space = *r == ' ' || *r == '\n' || *r == '\t';
    if (space && (w == s || w[-1] == ' ' || w[-1] == '(')) continue;
    if (*r == ')' && w > s && w[-1] == ' ') w--;
    *w++ = space ? ' ' : *r;
  }
  if (w > s && w[-1] == ' ') w--;
  *w = 0;
  return s;
}

START_TEST(write_read_print) {
  tl_module *m = build_sum();
  uint8_t *bytes = NULL;
  size_t size = validate_and_write(m, &bytes);
  tl_module_free(m);
  tl_error err = {0};
  tl_module *back = tl_module_read(bytes, size, NULL, &err);
  free(bytes);
  ck_assert_msg(back != NULL, "read back: %s", err.msg);
  char *text = tl_module_print(back), want[sizeof sum_text];
  memcpy(want, sum_text, sizeof want);
  ck_assert_str_eq(squash(text), squash(want));
  free(text);
  tl_module_free(back);
} END_TEST

/* ---- built code runs --------------------------------------------------- */
/* fact(n): (if (result i64) (i64.eqz n) 1 (n * fact(n - 1))) */
static void build_fact(tl_module *m, uint32_t f) {
  tl_expr_ref n = tl_build_local_get(m, f, 0);
  tl_expr_ref n1 = tl_build_binary(m, "i64.sub", tl_build_local_get(m, f, 0), I64(1));
  tl_expr_ref rec = tl_build_binary(m, "i64.mul", tl_build_local_get(m, f, 0),
                                    tl_build_call(m, f, &n1, 1));
  tl_expr_ref body = tl_build_if(m, f, TL_LABEL_NONE, tl_build_unary(m, "i64.eqz", n), I64(1), rec);
  ck_assert_uint_eq(TY(body), TL_TYPE_I64);
  ck_assert_int_eq(tl_function_set_body(m, f, body), TL_OK);
}

/* pick(x): br_table over three blocks, each arm a constant (10, 20, 30 for
 * 0, 1 and anything else), returned by a branch to the function's block. */
static void build_pick(tl_module *m, uint32_t f) {
  tl_label_t out = tl_new_label(m, f), b[3];
  for (int i = 0; i < 3; i++) b[i] = tl_new_label(m, f);
  tl_expr_ref inner = tl_build_br_table(m, f, b, 2, b[2], tl_build_local_get(m, f, 0), NULL);
  for (int i = 0; i < 3; i++) {
    tl_expr_ref blk = tl_build_block(m, f, b[i], &inner, 1, TL_TYPE_NONE);
    tl_expr_ref k[] = {blk, tl_build_br(m, f, out, I32(10 * (i + 1)))};
    inner = tl_build_block(m, f, TL_LABEL_NONE, k, 2, TL_TYPE_AUTO);
  }
  tl_expr_ref body = tl_build_block(m, f, out, &inner, 1, TL_TYPE_I32);
  ck_assert_uint_eq(TY(body), TL_TYPE_I32);
  ck_assert_int_eq(tl_function_set_body(m, f, body), TL_OK);
}

/* mem(x): stores x at 8, returns load8_u(9) + pair().1 + call_indirect
 * fact(3) through the table (as i32). */
static void build_mem(tl_module *m, uint32_t f, uint32_t pair, uint32_t t_fact) {
  tl_expr_ref three = I64(3);
  tl_expr_ref k[] = {
      tl_build_store(m, "i32.store", 8, 0, I32(0), tl_build_local_get(m, f, 0)),
      tl_build_binary(m, "i32.add",
                      tl_build_binary(m, "i32.add", tl_build_load(m, "i32.load8_u", 9, 1, I32(0)),
                                      tl_build_tuple_extract(m, tl_build_call(m, pair, NULL, 0), 0)),
                      tl_build_unary(m, "i32.wrap_i64",
                                     tl_build_call_indirect(m, 0, t_fact, I32(0), &three, 1))),
  };
  tl_status st = tl_function_set_body(m, f, tl_build_block(m, f, TL_LABEL_NONE, k, 2, TL_TYPE_I32));
  ck_assert_msg(st == TL_OK, "%s", tl_module_last_error(m)->msg);
}

static int64_t invoke1(tl_instance *inst, const char *name, uint32_t type, int64_t arg) {
  tl_value a = {.type = type}, r = {0};
  if (type == TL_VAL_I32) a.of.i32 = (int32_t)arg;
  else a.of.i64 = arg;
  uint32_t nres = 0;
  tl_error err = {0};
  ck_assert_msg(tl_invoke(inst, name, &a, 1, &r, 1, &nres, &err) == TL_OK, "%s: %s", name, err.msg);
  ck_assert_uint_eq(nres, 1);
  return r.type == TL_VAL_I64 ? r.of.i64 : r.of.i32;
}

START_TEST(built_code_runs) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  tl_type_t pair_t[] = {TL_TYPE_I32, TL_TYPE_I64};
  uint32_t t_fact = tl_add_type(m, TL_TYPE_I64, TL_TYPE_I64);
  uint32_t t_ii = tl_add_type(m, TL_TYPE_I32, TL_TYPE_I32);
  uint32_t t_pair = tl_add_type(m, TL_TYPE_NONE, tl_build_tuple(m, pair_t, 2));
  uint32_t fact = tl_add_function(m, "fact", t_fact, NULL, 0, NULL);
  uint32_t pick = tl_add_function(m, "pick", t_ii, NULL, 0, NULL);
  uint32_t pair = tl_add_function(m, "pair", t_pair, NULL, 0, NULL);
  uint32_t mem = tl_add_function(m, "mem", t_ii, NULL, 0, NULL);
  build_fact(m, fact);
  build_pick(m, pick);
  tl_expr_ref vals[] = {I32(100), I64(5)};
  ck_assert_int_eq(tl_function_set_body(m, pair, tl_build_tuple_make(m, vals, 2)), TL_OK);
  build_mem(m, mem, pair, t_fact);
  ck_assert_int_eq(tl_set_memory(m, 1, 0, false, false, NULL), TL_OK);
  ck_assert_uint_eq(tl_add_table(m, TL_TYPE_FUNCREF, 1, 1, true), 0);
  ck_assert_uint_eq(tl_add_active_element_segment(m, 0, I32(0), &fact, 1), 0);
  const char *names[] = {"fact", "pick", "pair", "mem"};
  for (uint32_t i = 0; i < 4; i++) ck_assert_int_eq(tl_add_export(m, TL_EXPORT_FUNC, i, names[i]), TL_OK);
  uint8_t *bytes = NULL;
  size_t size = validate_and_write(m, &bytes);
  if (have_wasm_validate()) ck_assert(wabt_accepts(bytes, size));
  free(bytes);

  tl_store *st = tl_store_new();
  tl_error err = {0};
  tl_instance *inst = tl_instantiate(st, m, NULL, &err);
  ck_assert_msg(inst != NULL, "instantiate: %s", err.msg);
  ck_assert_int_eq(invoke1(inst, "fact", TL_VAL_I64, 10), 3628800);
  ck_assert_int_eq(invoke1(inst, "pick", TL_VAL_I32, 0), 10);
  ck_assert_int_eq(invoke1(inst, "pick", TL_VAL_I32, 1), 20);
  ck_assert_int_eq(invoke1(inst, "pick", TL_VAL_I32, 7), 30);
  ck_assert_int_eq(invoke1(inst, "mem", TL_VAL_I32, 0x1234), 0x12 + 100 + 6);
  tl_store_free(st);
  tl_module_free(m);
} END_TEST

/* The relooper renders code built here into a body set_body accepts:
 * abs10(x) = |x| * 10 from four basic blocks. */
START_TEST(relooper_body) {
  tl_module *m = new_module(tl_features_default_set());
  uint32_t t = tl_add_type(m, TL_TYPE_I32, TL_TYPE_I32);
  tl_type_t vars[] = {TL_TYPE_I32};
  uint32_t f = tl_add_function(m, "abs10", t, vars, 1, NULL);
  tl_relooper *r = tl_relooper_create(m, f);
  ck_assert_ptr_nonnull(r);
  tl_rblock entry = tl_relooper_add_block(r, tl_build_nop(m));
  tl_rblock neg = tl_relooper_add_block(
      r, tl_build_local_set(m, f, 1, tl_build_binary(m, "i32.sub", I32(0), tl_build_local_get(m, f, 0))));
  tl_rblock pos = tl_relooper_add_block(r, tl_build_local_set(m, f, 1, tl_build_local_get(m, f, 0)));
  tl_rblock out = tl_relooper_add_block(
      r, tl_build_return(m, tl_build_binary(m, "i32.mul", tl_build_local_get(m, f, 1), I32(10))));
  tl_expr_ref is_neg = tl_build_binary(m, "i32.lt_s", tl_build_local_get(m, f, 0), I32(0));
  ck_assert_int_eq(tl_relooper_add_branch(r, entry, neg, is_neg, NULL), TL_OK);
  ck_assert_int_eq(tl_relooper_add_branch(r, entry, pos, NULL, NULL), TL_OK);
  ck_assert_int_eq(tl_relooper_add_branch(r, neg, out, NULL, NULL), TL_OK);
  ck_assert_int_eq(tl_relooper_add_branch(r, pos, out, NULL, NULL), TL_OK);
  tl_expr_ref k[] = {tl_relooper_render_and_dispose(r, entry, UINT32_MAX), tl_build_unreachable(m)};
  ck_assert_ptr_nonnull(k[0]);
  ck_assert_int_eq(tl_function_set_body(m, f, tl_build_block(m, f, TL_LABEL_NONE, k, 2, TL_TYPE_AUTO)),
                   TL_OK);
  ck_assert_int_eq(tl_add_export(m, TL_EXPORT_FUNC, f, "abs10"), TL_OK);
  uint8_t *bytes = NULL;
  size_t size = validate_and_write(m, &bytes);
  if (have_wasm_validate()) ck_assert(wabt_accepts(bytes, size));
  free(bytes);
  tl_store *st = tl_store_new();
  tl_error err = {0};
  tl_instance *inst = tl_instantiate(st, m, NULL, &err);
  ck_assert_msg(inst != NULL, "instantiate: %s", err.msg);
  ck_assert_int_eq(invoke1(inst, "abs10", TL_VAL_I32, -7), 70);
  ck_assert_int_eq(invoke1(inst, "abs10", TL_VAL_I32, 3), 30);
  tl_store_free(st);
  tl_module_free(m);
} END_TEST

/* ---- random arguments never crash --------------------------------------- */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (uint32_t)(rng % n);
}

/* Small values, with the interesting edges. */
static uint32_t rnd_index(void) {
  static const uint32_t edge[] = {0, 1, 2, 3, 15, 16, 31, 32, UINT32_MAX, UINT32_MAX - 1};
  return rnd(2) ? rnd(6) : edge[rnd(10)];
}

START_TEST(random_arguments) {
  tl_module *m = new_module(TL_FEATURES_ALL);
  tl_type_t pair_t[] = {TL_TYPE_I32, TL_TYPE_I64};
  tl_type_t vars[] = {TL_TYPE_I32, TL_TYPE_V128, tl_build_tuple(m, pair_t, 2)};
  uint32_t t0 = tl_add_type(m, TL_TYPE_I32, TL_TYPE_I32);
  uint32_t f0 = tl_add_function(m, "a", t0, vars, 3, NULL);
  uint32_t f1 = tl_add_function(m, "b", t0, NULL, 0, NULL);
  tl_add_global(m, "g", TL_TYPE_I64, true, I64(0));
  tl_add_table(m, TL_TYPE_FUNCREF, 1, 0, false);
  for (int i = 0; i < 4; i++) tl_new_label(m, f0);
  int nops = 0;
  while (tl_op_name(nops)) nops++;
  ck_assert_int_gt(nops, 400);
  tl_expr_ref pool[64];
  uint32_t npool = 0, built = 0;
  for (int it = 0; it < 100000; it++) {
    if (npool < 4) pool[npool++] = rnd(2) ? I32((int32_t)rnd(3)) : tl_build_unreachable(m);
    tl_expr_ref kids[4];
    uint32_t nk = rnd(5);
    for (uint32_t k = 0; k < nk; k++) { /* each node is used at most once */
      if (rnd(16) == 0 || !npool) {
        kids[k] = NULL;
      } else {
        uint32_t j = rnd(npool);
        kids[k] = pool[j];
        pool[j] = pool[--npool];
      }
    }
    tl_imm_args a = TL_IMM_ARGS_INIT;
    a.index = rnd_index(), a.index2 = rnd_index(), a.label = rnd_index(), a.lane = rnd_index();
    a.align = 1u << rnd(6), a.type = rnd_index(), a.value = rnd(100);
    tl_label_t targets[3] = {rnd_index(), rnd_index(), rnd_index()};
    a.targets = rnd(8) ? targets : NULL, a.ntargets = rnd(4);
    for (int b = 0; b < 16; b++) a.bytes[b] = (uint8_t)rnd(40);
    uint32_t funcs[] = {TL_NO_FUNC, f0, f1, 7};
    int op = (int)rnd((uint32_t)nops + 4) - 2;
    tl_expr_ref e = tl_build_op(m, funcs[rnd(4)], op, kids, nk, rnd(8) ? &a : NULL);
    if (!e) continue;
    built++;
    ck_assert_uint_ne(TY(e), TL_TYPE_INVALID);
    if (npool < 64) pool[npool++] = e;
  }
  ck_assert_uint_gt(built, 1000);
  /* Whatever was built for f0 (or no function) may become f0's body; other
   * functions reject it when it names f0's labels or locals. */
  for (uint32_t i = 0; i < npool; i++) {
    tl_status s1 = tl_function_set_body(m, f1, pool[i]);
    if (s1 != TL_OK) ck_assert_int_eq(tl_function_set_body(m, f0, pool[i]), TL_OK);
  }
  tl_module_free(m);
} END_TEST

/* A body deep enough to overflow a recursive walk must still be accepted. */
START_TEST(deep_body) {
  tl_module *m = new_module(tl_features_default_set());
  uint32_t f = void_func(m, NULL, 0);
  tl_expr_ref e = tl_build_nop(m);
  for (int i = 0; i < 100000; i++) {
    tl_label_t l = tl_new_label(m, f);
    tl_expr_ref k[] = {e, tl_build_br_if(m, f, l, I32(0), NULL)};
    e = tl_build_block(m, f, l, k, 2, TL_TYPE_NONE);
    ck_assert_ptr_nonnull(e);
  }
  ck_assert_int_eq(tl_function_set_body(m, f, e), TL_OK);
  tl_module_free(m);
} END_TEST

/* tl_read_options.on_text_parsed: once per text that became binary, with
 * the text, before that is read; not for a text error; an error the binary
 * reader finds afterwards is still located in the text. */
typedef struct { int calls; const char *text; size_t size; } hook_log;
static void note_text_parsed(void *user, const char *text, size_t size) {
  hook_log *h = user;
  h->calls++, h->text = text, h->size = size;
}

START_TEST(text_parsed_hook) {
  static const char ok[] = "(module (func (result i32) (i32.const 1)))";
  static const char bad_text[] = "(module (func (i32.bogus)))";
  static const char bad_type[] = "(module\n  (func (result i32)\n    i64.const 1))";
  hook_log h = {0};
  tl_read_options o = {.on_text_parsed = note_text_parsed, .user = &h};
  tl_error e;
  tl_module *m = tl_module_parse_text(ok, sizeof ok - 1, &o, &e);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(h.calls, 1);
  ck_assert_ptr_eq(h.text, ok);
  ck_assert_uint_eq(h.size, sizeof ok - 1);
  tl_module_free(m);
  m = tl_module_read_any((const uint8_t *)ok, sizeof ok - 1, &o, &e);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(h.calls, 2);
  tl_module_free(m);
  ck_assert_ptr_null(tl_module_parse_text(bad_text, sizeof bad_text - 1, &o, &e));
  ck_assert_int_eq(h.calls, 2);
  ck_assert_ptr_null(tl_module_parse_text(bad_type, sizeof bad_type - 1, &o, &e));
  ck_assert_int_eq(h.calls, 3);
  ck_assert_int_eq(e.code, TL_E_INVALID);
  ck_assert_uint_eq(e.line, 3);
} END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("capi");
  TCase *tc = tcase_create("build");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, types_and_tuples);
  tcase_add_test(tc, multi_memory);
  tcase_add_test(tc, memory64);
  tcase_add_test(tc, consts_and_named_ops);
  tcase_add_test(tc, generic_builder);
  tcase_add_test(tc, control_types);
  tcase_add_test(tc, calls_and_variables);
  tcase_add_test(tc, memory_tables_simd);
  tcase_add_test(tc, module_items);
  tcase_add_test(tc, every_expression_kind);
  tcase_add_test(tc, features_checked_by_validate);
  tcase_add_test(tc, write_read_print);
  tcase_add_test(tc, built_code_runs);
  tcase_add_test(tc, relooper_body);
  tcase_add_test(tc, random_arguments);
  tcase_add_test(tc, deep_body);
  tcase_add_test(tc, text_parsed_hook);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
