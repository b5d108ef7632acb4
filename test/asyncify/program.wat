;; program.wat — asyncify's runtime test (test/cli/asyncify.sh): pauses
;; (env.sleep unwinds and rewinds the stack) in recursion, loops, both arms
;; of ifs, br_table targets, an indirect call and a multi-value function,
;; with i32/i64/f32/f64/v128 locals live across them. Every result goes to
;; env.log, which the driver compares with a run where sleep does nothing.
(module
  (import "env" "sleep" (func $sleep (param i32)))
  (import "env" "log" (func $log (param i32 i64)))
  (import "env" "logf" (func $logf (param i32 f64)))
  (memory (export "memory") 2)
  (table 2 funcref)
  (elem (i32.const 0) $twice $plus)
  (type $un (func (param i32) (result i32)))

  (func $depth (param $n i32) (param $acc i64) (result i64)
    (local $r i64)
    (if (i32.eqz (local.get $n))
      (then (call $sleep (i32.const 1)) (return (local.get $acc))))
    (local.set $r (call $depth (i32.sub (local.get $n) (i32.const 1))
                               (i64.add (i64.mul (local.get $acc) (i64.const 3)) (i64.extend_i32_u (local.get $n)))))
    (i64.add (local.get $r) (i64.extend_i32_u (local.get $n))))

  (func $twice (param i32) (result i32)
    (call $sleep (local.get 0))
    (i32.mul (local.get 0) (i32.const 2)))
  (func $plus (param i32) (result i32)
    (i32.add (local.get 0) (i32.const 1)))

  (func $pair (param $x i32) (result i32 i64)
    (call $sleep (local.get $x))
    (i32.add (local.get $x) (i32.const 10))
    (i64.mul (i64.extend_i32_s (local.get $x)) (i64.const -7)))

  (func $floats (param $x f64) (result f64)
    (local $f f32) (local $v v128)
    (local.set $f (f32.demote_f64 (local.get $x)))
    (local.set $v (f64x2.splat (local.get $x)))
    (call $sleep (i32.const 3))
    (f64.add (f64.promote_f32 (local.get $f))
             (f64x2.extract_lane 1 (f64x2.mul (local.get $v) (local.get $v)))))

  (func $branchy (param $k i32) (result i32)
    (local $out i32)
    (block $b2 (block $b1 (block $b0
      (br_table $b0 $b1 $b2 (local.get $k)))
      (call $sleep (i32.const 0))
      (local.set $out (i32.const 100))
      (br $b2))
      (local.set $out (call $twice (local.get $k))))
    (if (i32.and (local.get $k) (i32.const 1))
      (then (call $sleep (i32.const 5)) (local.set $out (i32.add (local.get $out) (i32.const 1000))))
      (else (local.set $out (i32.sub (local.get $out) (call $twice (i32.const 7))))))
    (local.get $out))

  (func $main (export "main") (param $argc i32) (result i32)
    (local $i i32) (local $q i64) (local $d f64) (local $t i32) (local $w i64)
    (local.set $q (i64.const 1099511627776))
    (local.set $d (f64.const 1.5))
    (loop $l
      (call $log (i32.const 0) (i64.extend_i32_u (local.get $i)))
      (call $sleep (local.get $i))
      (local.set $d (f64.mul (local.get $d) (f64.const 1.5)))
      (local.set $q (i64.add (local.get $q) (i64.extend_i32_u (local.get $i))))
      (call $log (i32.const 1) (call $depth (local.get $i) (i64.const 1)))
      (call $log (i32.const 2) (local.get $q))
      (call $logf (i32.const 3) (local.get $d))
      (call $log (i32.const 4) (i64.extend_i32_s
        (call_indirect (type $un) (local.get $i) (i32.and (i32.add (local.get $i) (local.get $argc)) (i32.const 1)))))
      (call $pair (local.get $i))
      (local.set $w)
      (local.set $t)
      (call $log (i32.const 5) (i64.add (local.get $w) (i64.extend_i32_u (local.get $t))))
      (call $logf (i32.const 6) (call $floats (f64.convert_i32_u (local.get $i))))
      (call $log (i32.const 7) (i64.extend_i32_s (call $branchy (local.get $i))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 5))))
    (i32.wrap_i64 (local.get $q)))
)
