;; RUN: tilt-opt --rereloop
;; Seed 001's harder example: the label is set in the loop body, switched
;; on, and reset to 0 in each case. Threading sends each set straight to
;; its case; the label's value at the switch is then provably 0 on the
;; remaining path, so the switch goes away and every set of $label is dead.
(module
  (import "env" "check" (func $check (result i32)))
  (import "env" "other" (func $other (result i32)))
  (import "env" "work" (func $work))
  (import "env" "more" (func $more))
  (import "env" "less" (func $less))
  (import "env" "done" (func $done (result i32)))
  (func $switch (export "switch")
    (local $label i32)
    (local.set $label (i32.const 0))
    (loop $loop
      (if (call $check)
        (then (local.set $label (i32.const 1)))
        (else (if (call $other) (then (local.set $label (i32.const 2))) (else (call $work)))))
      (block $sw
        (block $c2
          (block $c1
            (br_table $sw $c1 $c2 $sw (local.get $label)))
          (local.set $label (i32.const 0))
          (call $more)
          (br $sw))
        (local.set $label (i32.const 0))
        (call $less))
      (br_if $loop (i32.eqz (call $done))))))
