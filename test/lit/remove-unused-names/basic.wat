;; RUN: tilt-opt --remove-unused-names
(module
  (import "env" "log" (func $log (param i32)))
  (func $unused (export "unused")
    (block $a (call $log (i32.const 1)))
    (loop $b (call $log (i32.const 2))))
  (func $merge (export "merge") (param i32) (result i32)
    (block $outer (result i32)
      (drop (i32.const 0))
      (block $inner (result i32)
        (br_if $inner (i32.const 1) (local.get 0))
        (drop)
        (br $outer (i32.const 2))))))
