;; relaxed_native.wast — relaxed SIMD's native profile: what the JIT computes
;; on x86 and what the interpreter computes with --relaxed-native
;; (TL_RELAXED_NATIVE), where it differs from the deterministic profile
;; (relaxed_deterministic.wast). Both engines must pass it (ctest
;; wast.relaxed_native_*), in VEX and in SSE forms.
(module
  (func (export "swizzle") (param v128 v128) (result v128)
    (i8x16.relaxed_swizzle (local.get 0) (local.get 1)))
  (func (export "min") (param v128 v128) (result v128)
    (f32x4.relaxed_min (local.get 0) (local.get 1)))
  (func (export "max") (param v128 v128) (result v128)
    (f32x4.relaxed_max (local.get 0) (local.get 1)))
  (func (export "min64") (param v128 v128) (result v128)
    (f64x2.relaxed_min (local.get 0) (local.get 1)))
  (func (export "max64") (param v128 v128) (result v128)
    (f64x2.relaxed_max (local.get 0) (local.get 1)))
  (func (export "q15") (param v128 v128) (result v128)
    (i16x8.relaxed_q15mulr_s (local.get 0) (local.get 1)))
  (func (export "dot") (param v128 v128) (result v128)
    (i16x8.relaxed_dot_i8x16_i7x16_s (local.get 0) (local.get 1)))
  (func (export "dot_add") (param v128 v128 v128) (result v128)
    (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get 0) (local.get 1) (local.get 2)))
  ;; constant operands take the JIT's other paths (pool operands)
  (func (export "swizzle_const") (param v128) (result v128)
    (i8x16.relaxed_swizzle (local.get 0)
      (v128.const i8x16 0x10 0x7f 0x80 0xff 3 0x23 0x40 0x8f 0 1 2 15 16 31 0x41 0x7e)))
)

;; an index with bit 7 clear reads lane index & 15; with it set gives 0
(assert_return (invoke "swizzle"
                 (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
                 (v128.const i8x16 0x10 0x7f 0x80 0xff 3 0x23 0x40 0x8f 0 1 2 15 16 31 0x41 0x7e))
               (v128.const i8x16 0 15 0 0 3 3 0 0 0 1 2 15 0 15 1 14))
(assert_return (invoke "swizzle_const" (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15))
               (v128.const i8x16 0 15 0 0 3 3 0 0 0 1 2 15 0 15 1 14))
;; minps/maxps: a < b ? a : b (a > b for max); the second operand on NaN
;; and on equal values, signed zeros included
(assert_return (invoke "min" (v128.const f32x4 nan 1 -0 0) (v128.const f32x4 1 nan 0 -0))
               (v128.const f32x4 1 nan:canonical 0 -0))
(assert_return (invoke "max" (v128.const f32x4 nan 1 -0 0) (v128.const f32x4 1 nan 0 -0))
               (v128.const f32x4 1 nan:canonical 0 -0))
(assert_return (invoke "min64" (v128.const f64x2 -0 2) (v128.const f64x2 0 nan))
               (v128.const f64x2 0 nan:canonical))
(assert_return (invoke "max64" (v128.const f64x2 0 nan) (v128.const f64x2 -0 3))
               (v128.const f64x2 -0 3))
;; pmulhrsw: -32768 * -32768 wraps to -32768
(assert_return (invoke "q15" (v128.const i16x8 -32768 -32768 16384 -1 0 1 32767 -32768)
                             (v128.const i16x8 -32768 32767 16384 1 5 1 32767 1))
               (v128.const i16x8 -32768 -32767 8192 0 0 0 32766 -1))
;; pmaddubsw: the second operand's bytes unsigned, pair sums saturated to i16
(assert_return (invoke "dot" (v128.const i8x16 1 1 127 127 -128 -128 2 3 0 0 0 0 0 0 0 0)
                             (v128.const i8x16 0x80 0x80 0xff 0xff 0xff 0xff 5 7 0 0 0 0 0 0 0 0))
               (v128.const i16x8 256 32767 -32768 31 0 0 0 0))
(assert_return (invoke "dot_add" (v128.const i8x16 1 1 127 127 -128 -128 2 3 0 0 0 0 0 0 0 0)
                                 (v128.const i8x16 0x80 0x80 0xff 0xff 0xff 0xff 5 7 0 0 0 0 0 0 0 0)
                                 (v128.const i32x4 1 2 3 4))
               (v128.const i32x4 33024 -32735 3 4))
