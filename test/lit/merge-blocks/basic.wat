;; RUN: tilt-opt --merge-blocks
(module
  (import "env" "log" (func $log (param i32)))
  (func $nested (export "nested")
    (block (call $log (i32.const 1)) (block (call $log (i32.const 2))) (call $log (i32.const 3))))
  (func $hoist (export "hoist") (param i32) (result i32)
    (i32.add (block (result i32) (call $log (i32.const 4)) (local.get 0)) (i32.const 1)))
  (func $labeled-stays (export "labeled") (param i32)
    (block $x (br_if $x (local.get 0)) (call $log (i32.const 5)))
    (call $log (i32.const 6))))
