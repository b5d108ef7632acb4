;; interfaces.wat — interface dispatch and type switches as Kotlin/Wasm and
;; dart2wasm emit them. Objects carry an itable (a struct with one nullable
;; field per interface, each a struct of typed function references); an
;; interface call loads the slot, br_on_null's the "does not implement"
;; case and call_ref's the method. A heterogeneous (array (ref null eq))
;; holding objects, i31s, a nested array and a null is walked with type
;; switches: chains of br_on_cast, br_on_cast_fail in loops, ref.test and
;; ref.cast, nullable and non-nullable. One export fails a cast and traps.
;;
;; Items: 0 Int 5, 1 i31 -3, 2 Str "hello", 3 null, 4 Pair(Int 1, Int 2),
;; 5 Triple(Int 7, null, Str "ab"), 6 Int -8, 7 i31 100,
;; 8 Items[i31 1, Int 2, null], 9 Str "wasm".
;;
;; expect: classify_sum => 101931
;; expect: int_sum => -3
;; expect: sorted_hash => -216591
;; expect: sized_total => 16
;; expect: null_casts => 13
;; expect: bad_cast => trap
(module
  (type $Chars (array i16))
  (rec
    (type $Any (sub (struct (field $itable (ref $ITable)) (field $typeId i32))))
    (type $ITable (struct (field $comparable (ref null $ComparableI)) (field $sized (ref null $SizedI))))
    (type $ComparableI (struct (field $compareTo (ref $cmp_sig))))
    (type $SizedI (struct (field $size (ref $size_sig))))
    (type $cmp_sig (func (param (ref $Any) (ref $Any)) (result i32)))
    (type $size_sig (func (param (ref $Any)) (result i32)))
    (type $Int (sub final $Any (struct (field $itable (ref $ITable)) (field $typeId i32) (field $v i32))))
    (type $Str (sub final $Any (struct (field $itable (ref $ITable)) (field $typeId i32) (field $chars (ref $Chars)))))
    (type $Pair (sub $Any (struct (field $itable (ref $ITable)) (field $typeId i32)
                                  (field $a (ref null $Any)) (field $b (ref null $Any)))))
    (type $Triple (sub final $Pair (struct (field $itable (ref $ITable)) (field $typeId i32)
                                           (field $a (ref null $Any)) (field $b (ref null $Any))
                                           (field $c (ref null $Any))))))
  (type $Items (array (ref null eq)))
  (type $Objs (array (mut (ref null $Any))))

  (data $text "h\00e\00l\00l\00o\00a\00b\00w\00a\00s\00m\00")

  (global $Int.itable (ref $ITable)
    (struct.new $ITable (struct.new $ComparableI (ref.func $Int.compareTo)) (ref.null none)))
  (global $Str.itable (ref $ITable)
    (struct.new $ITable (struct.new $ComparableI (ref.func $Str.compareTo))
                        (struct.new $SizedI (ref.func $Str.size))))
  (global $Pair.itable (ref $ITable)
    (struct.new $ITable (ref.null none) (struct.new $SizedI (ref.func $Pair.size))))
  (global $Triple.itable (ref $ITable)
    (struct.new $ITable (ref.null none) (struct.new $SizedI (ref.func $Triple.size))))

  (func $int (param $v i32) (result (ref $Int))
    (struct.new $Int (global.get $Int.itable) (i32.const 1) (local.get $v)))
  ;; UTF-16 units from a data segment: array.new_data reads two bytes each
  (func $str (param $unit i32) (param $len i32) (result (ref $Str))
    (struct.new $Str (global.get $Str.itable) (i32.const 2)
      (array.new_data $Chars $text (i32.shl (local.get $unit) (i32.const 1)) (local.get $len))))

  (func $items (result (ref $Items))
    (array.new_fixed $Items 10
      (call $int (i32.const 5))
      (ref.i31 (i32.const -3))
      (call $str (i32.const 0) (i32.const 5))
      (ref.null none)
      (struct.new $Pair (global.get $Pair.itable) (i32.const 3) (call $int (i32.const 1)) (call $int (i32.const 2)))
      (struct.new $Triple (global.get $Triple.itable) (i32.const 4)
        (call $int (i32.const 7)) (ref.null none) (call $str (i32.const 5) (i32.const 2)))
      (call $int (i32.const -8))
      (ref.i31 (i32.const 100))
      (array.new_fixed $Items 3 (ref.i31 (i32.const 1)) (call $int (i32.const 2)) (ref.null none))
      (call $str (i32.const 7) (i32.const 4))))

  ;; Int.compareTo: by value against an Int, else by type id
  (func $Int.compareTo (type $cmp_sig)
    (local $a i32)
    (local $b i32)
    (local.set $a (struct.get $Int $v (ref.cast (ref $Int) (local.get 0))))
    (i32.sub (i32.const 1) (struct.get $Any $typeId
      (block $other (result (ref $Any))
        (local.set $b (struct.get $Int $v (br_on_cast_fail $other (ref $Any) (ref $Int) (local.get 1))))
        (return (i32.sub (i32.gt_s (local.get $a) (local.get $b)) (i32.lt_s (local.get $a) (local.get $b))))))))

  ;; Str.compareTo: UTF-16 code units, then length
  (func $Str.compareTo (type $cmp_sig)
    (local $x (ref $Chars))
    (local $y (ref $Chars))
    (local $i i32)
    (local $n i32)
    (local $d i32)
    (if (i32.eqz (ref.test (ref $Str) (local.get 1)))
      (then (return (i32.sub (i32.const 2) (struct.get $Any $typeId (local.get 1))))))
    (local.set $x (struct.get $Str $chars (ref.cast (ref $Str) (local.get 0))))
    (local.set $y (struct.get $Str $chars (ref.cast (ref $Str) (local.get 1))))
    (local.set $n (select (array.len (local.get $x)) (array.len (local.get $y))
                          (i32.lt_u (array.len (local.get $x)) (array.len (local.get $y)))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $d (i32.sub (array.get_u $Chars (local.get $x) (local.get $i))
                               (array.get_u $Chars (local.get $y) (local.get $i))))
        (if (local.get $d) (then (return (local.get $d))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.sub (array.len (local.get $x)) (array.len (local.get $y))))

  (func $Str.size (type $size_sig)
    (array.len (struct.get $Str $chars (ref.cast (ref $Str) (local.get 0)))))
  ;; a Pair's size counts its non-null fields, recursively through Sized ones
  (func $Pair.size (type $size_sig)
    (local $p (ref $Pair))
    (local.set $p (ref.cast (ref $Pair) (local.get 0)))
    (i32.add (call $size_of (struct.get $Pair $a (local.get $p)))
             (call $size_of (struct.get $Pair $b (local.get $p)))))
  (func $Triple.size (type $size_sig)
    (i32.add (call $Pair.size (local.get 0))
             (call $size_of (struct.get $Triple $c (ref.cast (ref $Triple) (local.get 0))))))

  ;; 0 for null, the Sized size if it implements Sized, else 1
  (func $size_of (param $o (ref null $Any)) (result i32)
    (local $obj (ref $Any))
    (block $null
      (local.set $obj (br_on_null $null (local.get $o)))
      (block $not_sized
        (return (call_ref $size_sig (local.get $obj)
          (struct.get $SizedI $size
            (br_on_null $not_sized
              (struct.get $ITable $sized (struct.get $Any $itable (local.get $obj))))))))
      (return (i32.const 1)))
    (i32.const 0))

  ;; the type switch: null 1, i31 10, Int 100, Pair (or Triple) 1000, array
  ;; 10000 + its length, anything else (Str) 0; weighted by position + 1
  (func $classify (param $x (ref null eq)) (result i32)
    (block $null
      (block $is_i31 (result (ref i31))
        (block $is_int (result (ref $Int))
          (block $is_pair (result (ref $Pair))
            (block $is_arr (result (ref $Items))
              (br_on_null $null (local.get $x))
              (br_on_cast $is_i31 (ref eq) (ref i31))
              (br_on_cast $is_int (ref eq) (ref $Int))
              (br_on_cast $is_pair (ref eq) (ref $Pair))
              (br_on_cast $is_arr (ref eq) (ref $Items))
              (drop)
              (return (i32.const 0)))
            array.len
            i32.const 10000
            i32.add
            return)
          (drop)
          (return (i32.const 1000)))
        (drop)
        (return (i32.const 100)))
      (drop)
      (return (i32.const 10)))
    (i32.const 1))

  (func $classify_sum (result i32)
    (local $a (ref $Items))
    (local $i i32)
    (local $s i32)
    (local.set $a (call $items))
    (loop $each
      (local.set $s (i32.add (local.get $s)
        (i32.mul (call $classify (array.get $Items (local.get $a) (local.get $i)))
                 (i32.add (local.get $i) (i32.const 1)))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $a)))))
    (local.get $s))

  ;; the Ints' values: br_on_cast_fail skips everything else
  (func $int_sum (result i32)
    (local $a (ref $Items))
    (local $i i32)
    (local $s i32)
    (local.set $a (call $items))
    (loop $each
      (block $skip (result (ref null eq))
        (local.set $s (i32.add (local.get $s)
          (struct.get $Int $v
            (br_on_cast_fail $skip (ref null eq) (ref $Int) (array.get $Items (local.get $a) (local.get $i))))))
        (ref.null none))
      (drop)
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $a)))))
    (local.get $s))

  ;; the Comparables, gathered and insertion-sorted through the interface,
  ;; then hashed in order (h = h*31 + key; Int key v, Str key its chars' sum)
  (func $sorted_hash (result i32)
    (local $a (ref $Items))
    (local $objs (ref $Objs))
    (local $n i32)
    (local $i i32)
    (local $j i32)
    (local $o (ref null $Any))
    (local $cur (ref $Any))
    (local $h i32)
    (local $k i32)
    (local.set $a (call $items))
    (local.set $objs (array.new_default $Objs (array.len (local.get $a))))
    (loop $gather
      (drop (block $no (result (ref null eq))
        (local.set $o
          (br_on_cast_fail $no (ref null eq) (ref $Any) (array.get $Items (local.get $a) (local.get $i))))
        (if (ref.is_null (struct.get $ITable $comparable
                           (struct.get $Any $itable (ref.as_non_null (local.get $o)))))
          (then (br $no (ref.null none))))
        (array.set $Objs (local.get $objs) (local.get $n) (local.get $o))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (ref.null none)))
      (br_if $gather (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $a)))))
    (local.set $i (i32.const 1))
    (block $sorted
      (loop $outer
        (br_if $sorted (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $cur (ref.as_non_null (array.get $Objs (local.get $objs) (local.get $i))))
        (local.set $j (local.get $i))
        (block $placed
          (loop $shift
            (br_if $placed (i32.eqz (local.get $j)))
            (local.set $o (array.get $Objs (local.get $objs) (i32.sub (local.get $j) (i32.const 1))))
            (br_if $placed (i32.le_s
              (call_ref $cmp_sig (ref.as_non_null (local.get $o)) (local.get $cur)
                (struct.get $ComparableI $compareTo
                  (ref.as_non_null (struct.get $ITable $comparable
                    (struct.get $Any $itable (ref.as_non_null (local.get $o)))))))
              (i32.const 0)))
            (array.set $Objs (local.get $objs) (local.get $j) (local.get $o))
            (local.set $j (i32.sub (local.get $j) (i32.const 1)))
            (br $shift)))
        (array.set $Objs (local.get $objs) (local.get $j) (local.get $cur))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $outer)))
    (local.set $i (i32.const 0))
    (loop $hash
      (local.set $o (array.get $Objs (local.get $objs) (local.get $i)))
      (if (ref.test (ref $Int) (local.get $o))
        (then (local.set $k (struct.get $Int $v (ref.cast (ref $Int) (local.get $o)))))
        (else
          (local.set $k (i32.const 0))
          (local.set $j (i32.const 0))
          (loop $chars
            (local.set $k (i32.add (local.get $k)
              (array.get_u $Chars (struct.get $Str $chars (ref.cast (ref $Str) (local.get $o))) (local.get $j))))
            (br_if $chars (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1)))
              (array.len (struct.get $Str $chars (ref.cast (ref $Str) (local.get $o)))))))))
      (local.set $h (i32.add (i32.mul (local.get $h) (i32.const 31)) (local.get $k)))
      (br_if $hash (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $h))

  ;; the sizes of the items that are $Any, through size_of
  (func $sized_total (result i32)
    (local $a (ref $Items))
    (local $i i32)
    (local $s i32)
    (local $x (ref null eq))
    (local.set $a (call $items))
    (loop $each
      (local.set $x (array.get $Items (local.get $a) (local.get $i)))
      (if (ref.test (ref $Any) (local.get $x))
        (then (local.set $s (i32.add (local.get $s) (call $size_of (ref.cast (ref $Any) (local.get $x)))))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $a)))))
    (local.get $s))

  ;; casts and tests of null: bit 0 ref.test (ref null $Int) null = 1,
  ;; bit 1 ref.test (ref $Int) null = 0, bit 2 ref.cast (ref null $Int)
  ;; null passes, bit 3 an i31 is not a struct, bit 4 an Int is not a Str
  (func $null_casts (result i32)
    (local $n (ref null eq))
    (i32.or
      (i32.or (ref.test (ref null $Int) (local.get $n))
              (i32.shl (ref.test (ref $Int) (local.get $n)) (i32.const 1)))
      (i32.or
        (i32.shl (ref.is_null (ref.cast (ref null $Int) (local.get $n))) (i32.const 2))
        (i32.or (i32.shl (i32.eqz (ref.test (ref struct) (ref.i31 (i32.const 4)))) (i32.const 3))
                (i32.shl (ref.test (ref $Str) (call $int (i32.const 1))) (i32.const 4))))))

  ;; item 2 is a Str: casting it to Int traps
  (func $bad_cast (result i32)
    (struct.get $Int $v (ref.cast (ref $Int) (array.get $Items (call $items) (i32.const 2)))))

  (export "classify_sum" (func $classify_sum))
  (export "int_sum" (func $int_sum))
  (export "sorted_hash" (func $sorted_hash))
  (export "sized_total" (func $sized_total))
  (export "null_casts" (func $null_casts))
  (export "bad_cast" (func $bad_cast))
)
