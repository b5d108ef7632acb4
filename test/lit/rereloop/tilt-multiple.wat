;; RUN: tilt-opt --rereloop
;; Seed 001's first example: a loop that "tilts" to one of two exits by
;; setting a label variable, and a "multiple" that dispatches on it. After
;; rereloop no read or write of $label remains.
(module
  (import "env" "check" (func $check (result i32)))
  (import "env" "other" (func $other (result i32)))
  (import "env" "work" (func $work))
  (import "env" "l1" (func $l1))
  (import "env" "l2" (func $l2))
  (import "env" "next" (func $next))
  (func $tilt (export "tilt")
    (local $label i32)
    (block $out
      (loop $l
        (if (call $check) (then (local.set $label (i32.const 1)) (br $out)))
        (if (call $other) (then (local.set $label (i32.const 2)) (br $out)))
        (call $work)
        (br $l)))
    (if (i32.eq (local.get $label) (i32.const 1))
      (then (call $l1))
      (else (if (i32.eq (local.get $label) (i32.const 2)) (then (call $l2)))))
    (call $next)))
