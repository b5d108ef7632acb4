;; arraylist.wat — java.util.ArrayList<Object> as J2CL compiles it: every
;; object starts with a vtable (equals, hashCode) and subclasses add
;; fields; java.lang.Integer boxes come from Integer.valueOf with a lazily
;; made cache for -128..127 (so small boxes are ref.eq and large ones are
;; not); the list grows by array.new_default + array.copy, removes by
;; shifting with an overlapping array.copy, compares with equals through
;; the vtable; iterators are objects with their own vtables; sorting takes
;; a Comparator object. Strings are UTF-16 (array i16) objects.
;;
;; expect: list_sum => 5050
;; expect: index_of => 49099
;; expect: remove_shift => 5002552
;; expect: iterator_sum => 338350
;; expect: integer_cache => 13
;; expect: mixed_hash => 325838725
;; expect: sort_desc => 987654321
(module
  (type $Chars (array i16))
  (rec
    (type $Object (sub (struct (field $vt (ref $ObjectVT)))))
    (type $ObjectVT (sub (struct (field $equals (ref $equals_sig)) (field $hashCode (ref $hash_sig)))))
    (type $equals_sig (func (param (ref $Object) (ref null $Object)) (result i32)))
    (type $hash_sig (func (param (ref $Object)) (result i32)))
    (type $Integer (sub final $Object (struct (field $vt (ref $ObjectVT)) (field $value i32))))
    (type $String (sub final $Object (struct (field $vt (ref $ObjectVT)) (field $chars (ref $Chars)))))
    (type $Elements (array (mut (ref null $Object))))
    (type $ArrayList (sub final $Object (struct (field $vt (ref $ObjectVT)) (field $elements (mut (ref $Elements)))
                                                (field $size (mut i32)))))
    (type $Iterator (sub $Object (struct (field $vt (ref $IteratorVT)))))
    (type $IteratorVT (sub final $ObjectVT (struct (field $equals (ref $equals_sig)) (field $hashCode (ref $hash_sig))
                                                   (field $hasNext (ref $has_next_sig)) (field $next (ref $next_sig)))))
    (type $has_next_sig (func (param (ref $Iterator)) (result i32)))
    (type $next_sig (func (param (ref $Iterator)) (result (ref null $Object))))
    (type $ListIterator (sub final $Iterator (struct (field $vt (ref $IteratorVT)) (field $list (ref $ArrayList))
                                                     (field $cursor (mut i32)))))
    (type $Comparator (sub (struct (field $compare (ref $compare_sig)))))
    (type $compare_sig (func (param (ref $Comparator) (ref null $Object) (ref null $Object)) (result i32))))
  (type $IntegerCache (array (mut (ref $Integer))))

  (global $Object.vt (ref $ObjectVT) (struct.new $ObjectVT (ref.func $Object.equals) (ref.func $Object.hashCode)))
  (global $Integer.vt (ref $ObjectVT) (struct.new $ObjectVT (ref.func $Integer.equals) (ref.func $Integer.hashCode)))
  (global $String.vt (ref $ObjectVT) (struct.new $ObjectVT (ref.func $String.equals) (ref.func $String.hashCode)))
  (global $ListIterator.vt (ref $IteratorVT)
    (struct.new $IteratorVT (ref.func $Object.equals) (ref.func $Object.hashCode)
                            (ref.func $ListIterator.hasNext) (ref.func $ListIterator.next)))
  (global $reverse (ref $Comparator) (struct.new $Comparator (ref.func $reverse_compare)))
  (global $cache (mut (ref null $IntegerCache)) (ref.null none))

  (elem declare func $Object.equals $Object.hashCode)

  (func $Object.equals (type $equals_sig) (ref.eq (local.get 0) (local.get 1)))
  (func $Object.hashCode (type $hash_sig) (i32.const 17))
  (func $Integer.equals (type $equals_sig)
    (if (result i32) (ref.test (ref $Integer) (local.get 1))
      (then (i32.eq (struct.get $Integer $value (ref.cast (ref $Integer) (local.get 0)))
                    (struct.get $Integer $value (ref.cast (ref $Integer) (local.get 1)))))
      (else (i32.const 0))))
  (func $Integer.hashCode (type $hash_sig) (struct.get $Integer $value (ref.cast (ref $Integer) (local.get 0))))
  (func $String.equals (type $equals_sig)
    (local $a (ref $Chars))
    (local $b (ref $Chars))
    (local $i i32)
    (if (i32.eqz (ref.test (ref $String) (local.get 1))) (then (return (i32.const 0))))
    (local.set $a (struct.get $String $chars (ref.cast (ref $String) (local.get 0))))
    (local.set $b (struct.get $String $chars (ref.cast (ref $String) (local.get 1))))
    (if (i32.ne (array.len (local.get $a)) (array.len (local.get $b))) (then (return (i32.const 0))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $a))))
        (if (i32.ne (array.get_u $Chars (local.get $a) (local.get $i)) (array.get_u $Chars (local.get $b) (local.get $i)))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (i32.const 1))
  (func $String.hashCode (type $hash_sig)
    (local $s (ref $Chars))
    (local $h i32)
    (local $i i32)
    (local.set $s (struct.get $String $chars (ref.cast (ref $String) (local.get 0))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $s))))
        (local.set $h (i32.add (i32.mul (local.get $h) (i32.const 31)) (array.get_u $Chars (local.get $s) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $h))

  ;; Integer.valueOf: -128..127 from the cache (made on first use)
  (func $valueOf (param $v i32) (result (ref $Integer))
    (local $c (ref $IntegerCache))
    (local $i i32)
    (if (i32.ge_u (i32.add (local.get $v) (i32.const 128)) (i32.const 256))
      (then (return (struct.new $Integer (global.get $Integer.vt) (local.get $v)))))
    (if (ref.is_null (global.get $cache))
      (then
        (local.set $c (array.new $IntegerCache (struct.new $Integer (global.get $Integer.vt) (i32.const -128)) (i32.const 256)))
        (loop $fill
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (array.set $IntegerCache (local.get $c) (local.get $i)
            (struct.new $Integer (global.get $Integer.vt) (i32.sub (local.get $i) (i32.const 128))))
          (br_if $fill (i32.lt_u (local.get $i) (i32.const 255))))
        (global.set $cache (local.get $c))))
    (array.get $IntegerCache (ref.as_non_null (global.get $cache)) (i32.add (local.get $v) (i32.const 128))))

  (func $equals (param $a (ref $Object)) (param $b (ref null $Object)) (result i32)
    (call_ref $equals_sig (local.get $a) (local.get $b) (struct.get $ObjectVT $equals (struct.get $Object $vt (local.get $a)))))
  (func $hashCode (param $a (ref $Object)) (result i32)
    (call_ref $hash_sig (local.get $a) (struct.get $ObjectVT $hashCode (struct.get $Object $vt (local.get $a)))))

  (func $list_new (result (ref $ArrayList))
    (struct.new $ArrayList (global.get $Object.vt) (array.new_default $Elements (i32.const 2)) (i32.const 0)))

  (func $add (param $l (ref $ArrayList)) (param $o (ref null $Object))
    (local $e (ref $Elements))
    (local $n i32)
    (local.set $e (struct.get $ArrayList $elements (local.get $l)))
    (local.set $n (struct.get $ArrayList $size (local.get $l)))
    (if (i32.eq (local.get $n) (array.len (local.get $e)))
      (then
        (struct.set $ArrayList $elements (local.get $l)
          (array.new_default $Elements (i32.add (local.get $n) (i32.shr_u (local.get $n) (i32.const 1)))))
        (array.copy $Elements $Elements (struct.get $ArrayList $elements (local.get $l)) (i32.const 0)
          (local.get $e) (i32.const 0) (local.get $n))
        (local.set $e (struct.get $ArrayList $elements (local.get $l)))))
    (array.set $Elements (local.get $e) (local.get $n) (local.get $o))
    (struct.set $ArrayList $size (local.get $l) (i32.add (local.get $n) (i32.const 1))))

  (func $get (param $l (ref $ArrayList)) (param $i i32) (result (ref null $Object))
    (if (i32.ge_u (local.get $i) (struct.get $ArrayList $size (local.get $l))) (then (unreachable)))
    (array.get $Elements (struct.get $ArrayList $elements (local.get $l)) (local.get $i)))

  ;; remove(int): shift the tail left over it, clear the last slot
  (func $remove_at (param $l (ref $ArrayList)) (param $i i32) (result (ref null $Object))
    (local $old (ref null $Object))
    (local $n i32)
    (local.set $old (call $get (local.get $l) (local.get $i)))
    (local.set $n (i32.sub (struct.get $ArrayList $size (local.get $l)) (i32.const 1)))
    (array.copy $Elements $Elements (struct.get $ArrayList $elements (local.get $l)) (local.get $i)
      (struct.get $ArrayList $elements (local.get $l)) (i32.add (local.get $i) (i32.const 1))
      (i32.sub (local.get $n) (local.get $i)))
    (array.set $Elements (struct.get $ArrayList $elements (local.get $l)) (local.get $n) (ref.null none))
    (struct.set $ArrayList $size (local.get $l) (local.get $n))
    (local.get $old))

  (func $index_of (param $l (ref $ArrayList)) (param $o (ref $Object)) (result i32)
    (local $i i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (struct.get $ArrayList $size (local.get $l))))
        (if (call $equals (local.get $o) (call $get (local.get $l) (local.get $i))) (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (i32.const -1))

  (func $ListIterator.hasNext (type $has_next_sig)
    (local $it (ref $ListIterator))
    (local.set $it (ref.cast (ref $ListIterator) (local.get 0)))
    (i32.lt_u (struct.get $ListIterator $cursor (local.get $it))
              (struct.get $ArrayList $size (struct.get $ListIterator $list (local.get $it)))))
  (func $ListIterator.next (type $next_sig)
    (local $it (ref $ListIterator))
    (local $c i32)
    (local.set $it (ref.cast (ref $ListIterator) (local.get 0)))
    (local.set $c (struct.get $ListIterator $cursor (local.get $it)))
    (struct.set $ListIterator $cursor (local.get $it) (i32.add (local.get $c) (i32.const 1)))
    (call $get (struct.get $ListIterator $list (local.get $it)) (local.get $c)))

  (func $iterator (param $l (ref $ArrayList)) (result (ref $Iterator))
    (struct.new $ListIterator (global.get $ListIterator.vt) (local.get $l) (i32.const 0)))

  (func $ints (param $n i32) (result (ref $ArrayList))
    (local $l (ref $ArrayList))
    (local $i i32)
    (local.set $l (call $list_new))
    (loop $each
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (call $add (local.get $l) (call $valueOf (local.get $i)))
      (br_if $each (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $l))

  (func $int_at (param $l (ref $ArrayList)) (param $i i32) (result i32)
    (struct.get $Integer $value (ref.cast (ref $Integer) (call $get (local.get $l) (local.get $i)))))

  (func $list_sum (result i32)
    (local $l (ref $ArrayList))
    (local $i i32)
    (local $s i32)
    (local.set $l (call $ints (i32.const 100)))
    (loop $each
      (local.set $s (i32.add (local.get $s) (call $int_at (local.get $l) (local.get $i))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (struct.get $ArrayList $size (local.get $l)))))
    (local.get $s))

  ;; in 1..300: indexOf(new Integer(50)) = 49 (equals, not identity) * 1000
  ;; + 100 + indexOf(valueOf(1000)) = -1
  (func $index_of_export (result i32)
    (local $l (ref $ArrayList))
    (local.set $l (call $ints (i32.const 300)))
    (i32.add (i32.add (i32.mul (call $index_of (local.get $l) (struct.new $Integer (global.get $Integer.vt) (i32.const 50)))
                               (i32.const 1000))
                      (i32.const 100))
             (call $index_of (local.get $l) (call $valueOf (i32.const 1000)))))

  ;; 1..100, then remove(i) for i in 0..49 leaves the even numbers:
  ;; size * 100000 + their sum + the first
  (func $remove_shift (result i32)
    (local $l (ref $ArrayList))
    (local $i i32)
    (local $s i32)
    (local.set $l (call $ints (i32.const 100)))
    (loop $rm
      (drop (call $remove_at (local.get $l) (local.get $i)))
      (br_if $rm (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 50))))
    (local.set $i (i32.const 0))
    (loop $sum
      (local.set $s (i32.add (local.get $s) (call $int_at (local.get $l) (local.get $i))))
      (br_if $sum (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (struct.get $ArrayList $size (local.get $l)))))
    (i32.add (i32.add (i32.mul (struct.get $ArrayList $size (local.get $l)) (i32.const 100000)) (local.get $s))
             (call $int_at (local.get $l) (i32.const 0))))

  ;; the squares of 1..100 through an iterator's virtual hasNext / next
  (func $iterator_sum (result i32)
    (local $it (ref $Iterator))
    (local $v i32)
    (local $s i32)
    (local.set $it (call $iterator (call $ints (i32.const 100))))
    (block $done
      (loop $each
        (br_if $done (i32.eqz (call_ref $has_next_sig (local.get $it)
          (struct.get $IteratorVT $hasNext (struct.get $Iterator $vt (local.get $it))))))
        (local.set $v (struct.get $Integer $value (ref.cast (ref $Integer)
          (call_ref $next_sig (local.get $it) (struct.get $IteratorVT $next (struct.get $Iterator $vt (local.get $it)))))))
        (local.set $s (i32.add (local.get $s) (i32.mul (local.get $v) (local.get $v))))
        (br $each)))
    (local.get $s))

  ;; bit 0: valueOf(5) is valueOf(5); bit 1: valueOf(1000) is not
  ;; valueOf(1000); bit 2: but they are equal; bit 3: valueOf(-128) is the
  ;; cached one; bit 4: valueOf(128) is fresh
  (func $integer_cache (result i32)
    (i32.or
      (i32.or (ref.eq (call $valueOf (i32.const 5)) (call $valueOf (i32.const 5)))
              (i32.shl (ref.eq (call $valueOf (i32.const 1000)) (call $valueOf (i32.const 1000))) (i32.const 1)))
      (i32.or
        (i32.shl (call $equals (call $valueOf (i32.const 1000)) (call $valueOf (i32.const 1000))) (i32.const 2))
        (i32.or (i32.shl (ref.eq (call $valueOf (i32.const -128)) (call $valueOf (i32.const -128))) (i32.const 3))
                (i32.shl (ref.eq (call $valueOf (i32.const 128)) (call $valueOf (i32.const 128))) (i32.const 4))))))

  ;; a list of Integers, Strings and a plain Object: hashCode summed through
  ;; the vtable * 100, + the Strings (instanceof) * 10, + indexOf of an
  ;; equal String (1) and of valueOf(-3) (4)
  (func $mixed_hash (result i32)
    (local $l (ref $ArrayList))
    (local $i i32)
    (local $h i32)
    (local $strings i32)
    (local $o (ref $Object))
    (local $java (ref $String))
    (local.set $java (struct.new $String (global.get $String.vt)
      (array.new_fixed $Chars 4 (i32.const 106) (i32.const 97) (i32.const 118) (i32.const 97))))
    (local.set $l (call $list_new))
    (call $add (local.get $l) (call $valueOf (i32.const 7)))
    (call $add (local.get $l) (local.get $java))
    (call $add (local.get $l) (struct.new $Object (global.get $Object.vt)))
    (call $add (local.get $l) (struct.new $String (global.get $String.vt)
      (array.new_fixed $Chars 2 (i32.const 111) (i32.const 107))))
    (call $add (local.get $l) (call $valueOf (i32.const -3)))
    (loop $each
      (local.set $o (ref.as_non_null (call $get (local.get $l) (local.get $i))))
      (local.set $h (i32.add (local.get $h) (call $hashCode (local.get $o))))
      (local.set $strings (i32.add (local.get $strings) (ref.test (ref $String) (local.get $o))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (struct.get $ArrayList $size (local.get $l)))))
    (i32.add (i32.add (i32.mul (local.get $h) (i32.const 100)) (i32.mul (local.get $strings) (i32.const 10)))
             (i32.add (call $index_of (local.get $l) (struct.new $String (global.get $String.vt)
                        (array.new_fixed $Chars 4 (i32.const 106) (i32.const 97) (i32.const 118) (i32.const 97))))
                      (call $index_of (local.get $l) (call $valueOf (i32.const -3))))))

  (func $reverse_compare (type $compare_sig)
    (i32.sub (struct.get $Integer $value (ref.cast (ref $Integer) (local.get 2)))
             (struct.get $Integer $value (ref.cast (ref $Integer) (local.get 1)))))

  ;; 1..9 insertion-sorted by a reversing Comparator, as decimal digits
  (func $sort_desc (result i32)
    (local $l (ref $ArrayList))
    (local $e (ref $Elements))
    (local $c (ref $Comparator))
    (local $i i32)
    (local $j i32)
    (local $cur (ref null $Object))
    (local $r i32)
    (local.set $l (call $ints (i32.const 9)))
    (local.set $e (struct.get $ArrayList $elements (local.get $l)))
    (local.set $c (global.get $reverse))
    (local.set $i (i32.const 1))
    (loop $outer
      (local.set $cur (array.get $Elements (local.get $e) (local.get $i)))
      (local.set $j (local.get $i))
      (block $placed
        (loop $shift
          (br_if $placed (i32.eqz (local.get $j)))
          (br_if $placed (i32.le_s (call_ref $compare_sig (local.get $c)
            (array.get $Elements (local.get $e) (i32.sub (local.get $j) (i32.const 1))) (local.get $cur)
            (struct.get $Comparator $compare (local.get $c))) (i32.const 0)))
          (array.set $Elements (local.get $e) (local.get $j) (array.get $Elements (local.get $e) (i32.sub (local.get $j) (i32.const 1))))
          (local.set $j (i32.sub (local.get $j) (i32.const 1)))
          (br $shift)))
      (array.set $Elements (local.get $e) (local.get $j) (local.get $cur))
      (br_if $outer (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 9))))
    (local.set $i (i32.const 0))
    (loop $digits
      (local.set $r (i32.add (i32.mul (local.get $r) (i32.const 10)) (call $int_at (local.get $l) (local.get $i))))
      (br_if $digits (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 9))))
    (local.get $r))

  (export "list_sum" (func $list_sum))
  (export "index_of" (func $index_of_export))
  (export "remove_shift" (func $remove_shift))
  (export "iterator_sum" (func $iterator_sum))
  (export "integer_cache" (func $integer_cache))
  (export "mixed_hash" (func $mixed_hash))
  (export "sort_desc" (func $sort_desc))
)
