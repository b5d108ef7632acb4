;; relaxed_deterministic.wast — tilt's interpreter runs relaxed SIMD in the
;; spec's deterministic profile (every choice the first of its list; see
;; src/ir/interp_simd.c). The spec suite's `either` results accept any
;; choice; these assertions pin the deterministic one.
(module
  (func (export "f32x4.madd") (param v128 v128 v128) (result v128)
    (f32x4.relaxed_madd (local.get 0) (local.get 1) (local.get 2)))
  (func (export "f32x4.nmadd") (param v128 v128 v128) (result v128)
    (f32x4.relaxed_nmadd (local.get 0) (local.get 1) (local.get 2)))
  (func (export "f64x2.madd") (param v128 v128 v128) (result v128)
    (f64x2.relaxed_madd (local.get 0) (local.get 1) (local.get 2)))
  (func (export "swizzle") (param v128 v128) (result v128)
    (i8x16.relaxed_swizzle (local.get 0) (local.get 1)))
  (func (export "trunc_f32x4_s") (param v128) (result v128)
    (i32x4.relaxed_trunc_f32x4_s (local.get 0)))
  (func (export "trunc_f32x4_u") (param v128) (result v128)
    (i32x4.relaxed_trunc_f32x4_u (local.get 0)))
  (func (export "trunc_f64x2_s_zero") (param v128) (result v128)
    (i32x4.relaxed_trunc_f64x2_s_zero (local.get 0)))
  (func (export "laneselect16") (param v128 v128 v128) (result v128)
    (i16x8.relaxed_laneselect (local.get 0) (local.get 1) (local.get 2)))
  (func (export "min") (param v128 v128) (result v128)
    (f32x4.relaxed_min (local.get 0) (local.get 1)))
  (func (export "max") (param v128 v128) (result v128)
    (f64x2.relaxed_max (local.get 0) (local.get 1)))
  (func (export "q15") (param v128 v128) (result v128)
    (i16x8.relaxed_q15mulr_s (local.get 0) (local.get 1)))
  (func (export "dot") (param v128 v128) (result v128)
    (i16x8.relaxed_dot_i8x16_i7x16_s (local.get 0) (local.get 1)))
  (func (export "dot_add") (param v128 v128 v128) (result v128)
    (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get 0) (local.get 1) (local.get 2))))

;; unfused: FLT_MAX * 2 rounds to inf before the add (fused: FLT_MAX)
(assert_return (invoke "f32x4.madd"
                 (v128.const f32x4 0x1.fffffep127 1 1 1)
                 (v128.const f32x4 2 1 1 1)
                 (v128.const f32x4 -0x1.fffffep127 0 0 0))
               (v128.const f32x4 inf 1 1 1))
(assert_return (invoke "f32x4.nmadd"
                 (v128.const f32x4 0x1.fffffep127 1 1 1)
                 (v128.const f32x4 2 1 1 1)
                 (v128.const f32x4 0x1.fffffep127 0 0 0))
               (v128.const f32x4 -inf -1 -1 -1))
;; 1 + 2^-52 squared minus 1: the 2^-104 term survives only when fused
(assert_return (invoke "f64x2.madd"
                 (v128.const f64x2 0x1.0000000000001p0 0)
                 (v128.const f64x2 0x1.0000000000001p0 0)
                 (v128.const f64x2 -1 0))
               (v128.const f64x2 0x1p-51 0))
;; an index of 16 or more gives 0 (the other choice: the index mod 16)
(assert_return (invoke "swizzle"
                 (v128.const i8x16 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25)
                 (v128.const i8x16 0 16 17 31 127 128 255 15 1 2 3 4 5 6 7 8))
               (v128.const i8x16 10 0 0 0 0 0 0 25 11 12 13 14 15 16 17 18))
;; NaN gives 0, out of range saturates
(assert_return (invoke "trunc_f32x4_s" (v128.const f32x4 nan 3e9 -3e9 -1.5))
               (v128.const i32x4 0 2147483647 -2147483648 -1))
(assert_return (invoke "trunc_f32x4_u" (v128.const f32x4 nan -1.5 5e9 7.9))
               (v128.const i32x4 0 0 -1 7))
(assert_return (invoke "trunc_f64x2_s_zero" (v128.const f64x2 nan 1e10))
               (v128.const i32x4 0 2147483647 0 0))
;; a mask mixing set and cleared bits selects bit by bit
(assert_return (invoke "laneselect16"
                 (v128.const i16x8 0x1234 0x1234 0 0 0 0 0 0)
                 (v128.const i16x8 0xabcd 0xabcd 0 0 0 0 0 0)
                 (v128.const i16x8 0x00ff 0x8000 0 0 0 0 0 0))
               (v128.const i16x8 0xab34 0x2bcd 0 0 0 0 0 0))
;; min/max: NaN propagates, -0 < +0
(assert_return (invoke "min" (v128.const f32x4 nan 1 -0 0) (v128.const f32x4 1 nan 0 -0))
               (v128.const f32x4 nan:canonical nan:canonical -0 -0))
(assert_return (invoke "max" (v128.const f64x2 -0 nan) (v128.const f64x2 0 1))
               (v128.const f64x2 0 nan:canonical))
;; -1 * -1 in Q15 saturates to 0x7fff
(assert_return (invoke "q15" (v128.const i16x8 -32768 16384 0 0 0 0 0 0)
                             (v128.const i16x8 -32768 16384 0 0 0 0 0 0))
               (v128.const i16x8 32767 8192 0 0 0 0 0 0))
;; both operands signed; a pair sum saturates in i16
(assert_return (invoke "dot"
                 (v128.const i8x16 -128 -128 -128 -128 -1 2 0 0 0 0 0 0 0 0 0 0)
                 (v128.const i8x16 -127 -127 -128 -128 -1 -3 0 0 0 0 0 0 0 0 0 0))
               (v128.const i16x8 32512 32767 -5 0 0 0 0 0))
(assert_return (invoke "dot_add"
                 (v128.const i8x16 -128 -128 -128 -128 -128 -128 -128 -128 1 2 3 4 0 0 0 0)
                 (v128.const i8x16 -127 -127 -127 -127 -128 -128 -128 -128 -1 -2 -3 -4 0 0 0 0)
                 (v128.const i32x4 1 1 -30 0x7fffffff))
               (v128.const i32x4 65025 65535 -60 0x7fffffff))
