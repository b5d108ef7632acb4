;; RUN: tilt-opt --remove-unused-brs
(module
  (import "env" "log" (func $log (param i32)))
  (func $final-br (export "final") (param i32) (result i32)
    (block $l (result i32)
      (call $log (local.get 0))
      (br $l (i32.const 1))))
  (func $if-br (export "if-br") (param i32)
    (block $out
      (if (local.get 0) (then (br $out)))
      (call $log (i32.const 2))))
  (func $thread (export "thread") (param i32)
    (block $c
      (block $b
        (block $a
          (br_if $a (local.get 0))
          (call $log (i32.const 1)))
        (br $c))
      (call $log (i32.const 2))))
  (func $select (export "select") (param i32 i32) (result i32)
    (if (result i32) (local.get 0) (then (local.get 1)) (else (i32.const 7))))
  (func $loop-thread (export "loop") (param i32)
    (loop $top
      (block $a
        (br_if $a (local.get 0))
        (call $log (i32.const 3)))
      (br $top))))
