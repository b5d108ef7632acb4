;; eh.wat — the non-throwing path of exception handling on the JIT
;; (bench/eh/run.py). Every export loops n times calling $work; "plain" has
;; no try, "block" wraps each call in a block (what a try costs as a block:
;; the single-pass compiler flushes its operand stack at any block), "try"
;; in a legacy try/catch, "try-table" in a try_table; "callee-try" calls a
;; function whose body is a try (its frame keeps rbx in the pad slot, the one
;; store a function with handlers pays per call), "callee-block" the same
;; function with a block instead. Nothing throws.
(module
  (tag $e (param i32))
  (func $work (param i32) (result i32)
    (i32.xor (i32.mul (local.get 0) (i32.const 0x9e3779b1)) (i32.shr_u (local.get 0) (i32.const 7))))
  (func $guarded (param i32) (result i32)
    (try (result i32) (do (call $work (local.get 0))) (catch $e) (catch_all (i32.const -1))))
  (func $blocked (param i32) (result i32)
    (block (result i32) (call $work (local.get 0))))
  (func (export "block") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s)
        (block (result i32) (call $work (local.get $i)))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func (export "callee-block") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (call $blocked (local.get $i))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func (export "plain") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (call $work (local.get $i))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func (export "try") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s)
        (try (result i32) (do (call $work (local.get $i))) (catch $e) (catch_all (i32.const -1)))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func (export "try-table") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s)
        (block $h (result i32)
          (try_table (result i32) (catch $e $h) (call $work (local.get $i))))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
  (func (export "callee-try") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $l
      (local.set $s (i32.add (local.get $s) (call $guarded (local.get $i))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))
)
