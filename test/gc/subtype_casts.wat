;; subtype_casts.wat — casts and indirect calls that observe declared
;; subtyping, for --closed-world's unsubtyping: a $c stored in an anyref
;; global is tested against $b, $a and $d; an array of $arr2 in an eqref
;; against $arr; call_indirect through a funcref table checks $g and $h
;; functions against $f, $g and $h (t3 traps: a $g is not an $h);
;; br_on_cast_fail and ref.cast (t6 traps: a $c is not a $d). Every
;; relation these observe must stay; $d's supertype $top may go.
;;
;; expect: t1 => 11
;; expect: t2 => 30
;; expect: t3 => trap
;; expect: t4 => 7
;; expect: t5 => 1
;; expect: t6 => trap
(module
  (type $top (sub (struct)))
  (type $a (sub $top (struct (field i32))))
  (type $b (sub $a (struct (field i32) (field i32))))
  (type $c (sub $b (struct (field i32) (field i32) (field i32))))
  (type $d (sub $top (struct (field i64))))
  (type $arr (sub (array (mut i32))))
  (type $arr2 (sub $arr (array (mut i32))))
  (type $f (sub (func (result i32))))
  (type $g (sub $f (func (result i32))))
  (type $h (sub $g (func (result i32))))
  (table $t 4 funcref)
  (elem (table $t) (i32.const 0) func $fg $fh)
  (global $any (mut anyref) (ref.null none))
  (global $eq (mut eqref) (ref.null none))
  (func $fg (type $g) (i32.const 10))
  (func $fh (type $h) (i32.const 20))
  (func $init
    (global.set $any (struct.new $c (i32.const 1) (i32.const 2) (i32.const 3)))
    (global.set $eq (array.new $arr2 (i32.const 1) (i32.const 2))))
  (func (export "t1") (result i32)
    (call $init)
    (i32.add (i32.add
      (ref.test (ref $b) (global.get $any))
      (i32.shl (ref.test (ref $a) (global.get $any)) (i32.const 1)))
      (i32.add
        (i32.shl (ref.test (ref $d) (global.get $any)) (i32.const 2))
        (i32.shl (ref.test (ref $arr) (global.get $eq)) (i32.const 3)))))
  (func (export "t2") (result i32)
    (i32.add (call_indirect $t (type $g) (i32.const 1))
             (call_indirect $t (type $f) (i32.const 0))))
  (func (export "t3") (result i32)
    (call_indirect $t (type $h) (i32.const 0)))
  (func (export "t4") (result i32)
    (call $init)
    (block $l (result anyref)
      (drop (br_on_cast_fail $l anyref (ref $top) (global.get $any)))
      (return (i32.const 7)))
    (drop)
    (i32.const 8))
  (func (export "t5") (result i32)
    (call $init)
    (struct.get $a 0 (ref.cast (ref $a) (global.get $any))))
  (func (export "t6") (result i32)
    (call $init)
    (drop (ref.cast (ref $d) (global.get $any)))
    (i32.const 0))
)
