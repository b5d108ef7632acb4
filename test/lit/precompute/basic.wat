;; RUN: tilt-opt --precompute
(module
  (func $fold (export "fold") (result i32)
    (i32.add (i32.mul (i32.const 6) (i32.const 7)) (i32.const -2)))
  (func $keeps-trap (export "trap") (result i32)
    (i32.div_s (i32.const 1) (i32.const 0)))
  (func $floats (export "floats") (result f64)
    (f64.add (f64.const 0.1) (f64.const 0.2)))
  (func $nan (export "nan") (result f32)
    (f32.div (f32.const 0) (f32.const 0)))
  (func $partial (export "partial") (param i32) (result i32)
    (i32.add (local.get 0) (i32.shl (i32.const 1) (i32.const 4))))
  (func $simd (export "simd") (result v128)
    (i32x4.add (v128.const i32x4 1 2 3 4) (v128.const i32x4 10 20 30 40))))
