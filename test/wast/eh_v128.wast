;; eh_v128.wast — exceptions carrying v128 values (with scalars around
;; them) thrown across frames and caught by legacy catch, try_table catch
;; and catch_ref + throw_ref, on both engines (ctest wast.eh_v128_*): a v128
;; payload takes two frame words on the JIT, so the words after it must land
;; where the catch expects them.
(module
  (tag $t (param i32 v128 f64))
  (tag $u (param v128))
  (func $thrower (param $x i32) (param $v v128)
    (throw $t (local.get $x) (local.get $v) (f64.const 2.5)))
  (func $deep (param $n i32) (param $v v128)
    (if (i32.eqz (local.get $n))
      (then (call $thrower (i32.const 7) (local.get $v)))
      (else (call $deep (i32.sub (local.get $n) (i32.const 1))
                        (i32x4.add (local.get $v) (v128.const i32x4 1 1 1 1))))))
  ;; legacy try/catch: the payload's three values
  (func (export "legacy") (param $n i32) (result i32 i32 f64)
    (local $a i32) (local $b v128) (local $c f64)
    (try
      (do (call $deep (local.get $n) (v128.const i32x4 10 20 30 40)))
      (catch $t
        (local.set $c)
        (local.set $b)
        (local.set $a)))
    (local.get $a)
    (i32x4.extract_lane 3 (local.get $b))
    (local.get $c))
  ;; try_table catch: the payload as the branch's values
  (func (export "table") (param $n i32) (result i32)
    (block $h (result i32 v128 f64)
      (try_table (catch $t $h)
        (call $deep (local.get $n) (v128.const i32x4 1 2 3 4)))
      (return (i32.const -1)))
    (drop)
    (i32x4.extract_lane 1)
    (i32.add))
  ;; catch_ref, then throw_ref to an outer handler; a v128 below the try
  ;; on the operand stack survives the unwinding
  (func (export "rethrow") (result i32)
    (v128.const i32x4 100 200 300 400)
    (block $outer (result v128)
      (try_table (catch $u $outer)
        (block $h (result exnref)
          (try_table (catch_all_ref $h)
            (throw $u (v128.const i32x4 5 6 7 8)))
          (unreachable))
        (throw_ref))
      (unreachable))
    (i32x4.add)
    (i32x4.extract_lane 2))
  ;; a v128 local in a register across a call that throws, caught here
  (func (export "local_kept") (result i32)
    (local $keep v128) (local $i i32)
    (local.set $keep (v128.const i32x4 9 9 9 9))
    (loop $l
      (local.set $keep (i32x4.add (local.get $keep) (local.get $keep)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 3))))
    (try
      (do (call $thrower (i32.const 1) (local.get $keep)))
      (catch_all))
    (i32x4.extract_lane 0 (local.get $keep)))
)
(assert_return (invoke "legacy" (i32.const 0)) (i32.const 7) (i32.const 40) (f64.const 2.5))
(assert_return (invoke "legacy" (i32.const 5)) (i32.const 7) (i32.const 45) (f64.const 2.5))
(assert_return (invoke "table" (i32.const 3)) (i32.const 12))
(assert_return (invoke "rethrow") (i32.const 307))
(assert_return (invoke "local_kept") (i32.const 72))
