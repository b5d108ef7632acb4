;; typecanon.wat — the type system's corners a GC optimizer must get
;; right, in the shapes that appear when modules are merged or types are
;; rewritten: iso-recursive canonicalization (identical rec groups written
;; twice are one type; the same types in another order or with a different
;; finality are not), a six-deep subtype chain walked with ref.test
;; (instanceof depth), covariant immutable fields and array elements seen
;; through supertype views, the abstract heap types (any, eq, struct,
;; array, i31, none), call_indirect across identical function types, and
;; a call_indirect whose signature does not match (a trap).
;;
;; expect: iso_equal => 39
;; expect: chain_depth => 21
;; expect: covariance => 3560
;; expect: abstract_tests => 2047
;; expect: indirect_canon => 42
;; expect: sig_mismatch => trap
(module
  ;; written twice: the same two types
  (rec (type $A1 (sub (struct (field i32) (field (ref null $B1)))))
       (type $B1 (sub (struct (field i64) (field (ref null $A1))))))
  (rec (type $A2 (sub (struct (field i32) (field (ref null $B2)))))
       (type $B2 (sub (struct (field i64) (field (ref null $A2))))))
  ;; the same members in the other order: different types
  (rec (type $B3 (sub (struct (field i64) (field (ref null $A3)))))
       (type $A3 (sub (struct (field i32) (field (ref null $B3))))))
  ;; lone types: without `sub` a type is final, so $X1 = $X2 = $X3 but not $Y
  (type $X1 (struct (field i32)))
  (type $X2 (sub final (struct (field i32))))
  (type $X3 (struct (field i32)))
  (type $Y (sub (struct (field i32))))

  (type $L0 (sub (struct (field $a i32))))
  (type $L1 (sub $L0 (struct (field $a i32) (field $b i32))))
  (type $L2 (sub $L1 (struct (field $a i32) (field $b i32) (field $c i64))))
  (type $L3 (sub $L2 (struct (field $a i32) (field $b i32) (field $c i64) (field $d f64))))
  (type $L4 (sub $L3 (struct (field $a i32) (field $b i32) (field $c i64) (field $d f64) (field $e (ref null $L0)))))
  (type $L5 (sub final $L4 (struct (field $a i32) (field $b i32) (field $c i64) (field $d f64) (field $e (ref null $L4)))))
  (type $Objs (array (mut (ref null $L0))))

  (type $Holder (sub (struct (field $item (ref $L0)) (field $count (mut i32)))))
  (type $HolderL3 (sub $Holder (struct (field $item (ref $L3)) (field $count (mut i32)))))
  (type $Arr0 (sub (array (ref null $L0))))
  (type $Arr3 (sub $Arr0 (array (ref null $L3))))

  (type $bin1 (func (param i32 i32) (result i32)))
  (type $bin2 (func (param i32 i32) (result i32)))
  (type $un (func (param i32) (result i32)))

  (table $t 3 funcref)
  (elem (table $t) (i32.const 0) func $plus $times $neg)

  (func $plus (type $bin1) (i32.add (local.get 0) (local.get 1)))
  (func $times (type $bin2) (i32.mul (local.get 0) (local.get 1)))
  (func $neg (type $un) (i32.sub (i32.const 0) (local.get 0)))

  ;; set: bit 0 an A1 is an A2, bit 1 a B2 is a B1, bit 2 an A1 is not an
  ;; A3, bit 5 an X2 is an X3; clear: bit 3 (an X1 is a Y), bit 4 (a Y is
  ;; an X1), bit 6 (an A1 is a B1)
  (func $iso_equal (result i32)
    (local $a (ref $A1))
    (local.set $a (struct.new $A1 (i32.const 1) (struct.new $B2 (i64.const 2) (ref.null none))))
    (i32.or
      (i32.or
        (i32.or (ref.test (ref $A2) (local.get $a))
                (i32.shl (ref.test (ref $B1) (struct.new $B2 (i64.const 3) (local.get $a))) (i32.const 1)))
        (i32.or (i32.shl (i32.eqz (ref.test (ref $A3) (local.get $a))) (i32.const 2))
                (i32.shl (ref.test (ref $Y) (struct.new $X1 (i32.const 4))) (i32.const 3))))
      (i32.or
        (i32.or (i32.shl (ref.test (ref $X1) (struct.new $Y (i32.const 5))) (i32.const 4))
                (i32.shl (ref.test (ref $X3) (struct.new $X2 (i32.const 6))) (i32.const 5)))
        (i32.shl (ref.test (ref $B1) (local.get $a)) (i32.const 6)))))

  (func $level (param $k i32) (result (ref $L0))
    (block $l5
      (block $l4
        (block $l3
          (block $l2
            (block $l1
              (block $l0
                (br_table $l0 $l1 $l2 $l3 $l4 $l5 (local.get $k)))
              (return (struct.new $L0 (i32.const 10))))
            (return (struct.new $L1 (i32.const 11) (i32.const 1))))
          (return (struct.new $L2 (i32.const 12) (i32.const 2) (i64.const 2))))
        (return (struct.new $L3 (i32.const 13) (i32.const 3) (i64.const 3) (f64.const 3))))
      (return (struct.new $L4 (i32.const 14) (i32.const 4) (i64.const 4) (f64.const 4) (struct.new $L0 (i32.const 0)))))
    (struct.new $L5 (i32.const 15) (i32.const 5) (i64.const 5) (f64.const 5) (ref.null none)))

  ;; the depth of each object (how many of L1..L5 it is), summed over one
  ;; object of each level, plus one per object for being an L0
  (func $depth (param $o (ref null $L0)) (result i32)
    (i32.add (i32.add (i32.add (ref.test (ref $L0) (local.get $o)) (ref.test (ref $L1) (local.get $o)))
                      (i32.add (ref.test (ref $L2) (local.get $o)) (ref.test (ref $L3) (local.get $o))))
             (i32.add (ref.test (ref $L4) (local.get $o)) (ref.test (ref $L5) (local.get $o)))))

  (func $chain_depth (result i32)
    (local $objs (ref $Objs))
    (local $i i32)
    (local $s i32)
    (local.set $objs (array.new_default $Objs (i32.const 7)))
    (loop $fill
      (array.set $Objs (local.get $objs) (local.get $i) (call $level (local.get $i)))
      (br_if $fill (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 6))))
    (local.set $i (i32.const 0))
    (loop $each
      (local.set $s (i32.add (local.get $s) (call $depth (array.get $Objs (local.get $objs) (local.get $i)))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 7))))
    (local.get $s))

  ;; a HolderL3 seen as a Holder: (item's a 13 + count 7 set through the
  ;; super view) * 100, + its item's d (3) * 100 through the subtype; an
  ;; Arr3 seen as an Arr0: its items' a's (13 + 14 + 15) * 30
  (func $read_holder (param $h (ref $Holder)) (result i32)
    (struct.set $Holder $count (local.get $h) (i32.add (struct.get $Holder $count (local.get $h)) (i32.const 7)))
    (i32.mul (i32.add (struct.get $L0 $a (struct.get $Holder $item (local.get $h)))
                      (struct.get $Holder $count (local.get $h)))
             (i32.const 100)))
  (func $sum_arr0 (param $a (ref $Arr0)) (result i32)
    (local $i i32)
    (local $s i32)
    (loop $each
      (local.set $s (i32.add (local.get $s) (struct.get $L0 $a (ref.as_non_null (array.get $Arr0 (local.get $a) (local.get $i))))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $a)))))
    (local.get $s))
  (func $covariance (result i32)
    (local $h (ref $HolderL3))
    (local.set $h (struct.new $HolderL3 (ref.cast (ref $L3) (call $level (i32.const 3))) (i32.const 0)))
    (i32.add
      (i32.add (call $read_holder (local.get $h))
               (i32.mul (i32.trunc_f64_s (struct.get $L3 $d (struct.get $HolderL3 $item (local.get $h)))) (i32.const 100)))
      (i32.mul (call $sum_arr0 (array.new_fixed $Arr3 3
                 (ref.cast (ref $L3) (call $level (i32.const 3)))
                 (ref.cast (ref $L3) (call $level (i32.const 4)))
                 (ref.cast (ref $L3) (call $level (i32.const 5)))))
               (i32.const 30))))

  ;; eleven tests against the abstract heap types, all expected true
  (func $abstract_tests (result i32)
    (local $s anyref)
    (local $arr anyref)
    (local $i anyref)
    (local $n anyref)
    (local.set $s (call $level (i32.const 2)))
    (local.set $arr (array.new_fixed $Arr0 0))
    (local.set $i (ref.i31 (i32.const 3)))
    (i32.or
      (i32.or
        (i32.or (ref.test (ref struct) (local.get $s))
                (i32.shl (ref.test (ref eq) (local.get $s)) (i32.const 1)))
        (i32.or (i32.shl (ref.test (ref array) (local.get $arr)) (i32.const 2))
                (i32.shl (i32.eqz (ref.test (ref struct) (local.get $arr))) (i32.const 3))))
      (i32.or
        (i32.or (i32.shl (ref.test (ref i31) (local.get $i)) (i32.const 4))
                (i32.shl (i32.eqz (ref.test (ref eq) (local.get $n))) (i32.const 5)))
        (i32.or
          (i32.or (i32.shl (ref.test (ref null none) (local.get $n)) (i32.const 6))
                  (i32.shl (ref.test (ref null $L4) (local.get $n)) (i32.const 7)))
          (i32.or
            (i32.or (i32.shl (i32.eqz (ref.test (ref $L3) (local.get $s))) (i32.const 8))
                    (i32.shl (ref.test (ref any) (local.get $i)) (i32.const 9)))
            (i32.shl (i32.eqz (ref.test (ref array) (local.get $i))) (i32.const 10)))))))

  ;; $times is declared with $bin2, called through $bin1: the same type
  (func $indirect_canon (result i32)
    (i32.add (call_indirect $t (type $bin1) (i32.const 6) (i32.const 5) (i32.const 1))
             (call_indirect $t (type $bin2) (i32.const 20) (i32.const -8) (i32.const 0))))

  ;; $neg takes one parameter: a (i32 i32) -> i32 call to it traps
  (func $sig_mismatch (result i32)
    (call_indirect $t (type $bin1) (i32.const 1) (i32.const 2) (i32.const 2)))

  (export "iso_equal" (func $iso_equal))
  (export "chain_depth" (func $chain_depth))
  (export "covariance" (func $covariance))
  (export "abstract_tests" (func $abstract_tests))
  (export "indirect_canon" (func $indirect_canon))
  (export "sig_mismatch" (func $sig_mismatch))
)
