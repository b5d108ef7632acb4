;; i31_boxing.wat — the uniform value representation of OCaml (wasm_of_ocaml),
;; Scheme (Hoot) and other dynamically typed languages on GC: every value
;; is an eqref; small integers are unboxed i31s, larger ones boxed in a
;; struct; pairs are structs of two eqrefs; the empty list is a singleton
;; struct made in a global's allocating initializer; symbols are interned
;; so eq? is ref.eq. Generic arithmetic takes the i31 fast path with
;; br_on_cast and falls back to boxes, and eq? / equal? differ exactly as
;; in Scheme.
;;
;; expect: sum_small => 5050
;; expect: fact_boxed => 2432902008176640000
;; expect: boxed_count => 8
;; expect: mixed_sum => 1066225631237
;; expect: i31_bits => 2147483639
;; expect: eq_vs_equal => 111
;; expect: assq => 2030
(module
  (type $Big (sub final (struct (field $v i64))))
  (type $Pair (sub final (struct (field $car (mut (ref null eq))) (field $cdr (mut (ref null eq))))))
  (type $Nil (sub final (struct)))
  (type $Name (array i8))
  (type $Sym (sub final (struct (field $name (ref $Name)))))
  (type $Syms (array (mut (ref null $Sym))))
  (type $Table (struct (field $syms (ref $Syms)) (field $n (mut i32))))

  (global $nil (ref $Nil) (struct.new $Nil))
  (global $one (ref i31) (ref.i31 (i32.const 1)))
  (data $names "carcdrconslambdacar")

  ;; i31 if it fits in 31 signed bits, else a box
  (func $int (param $v i64) (result (ref eq))
    (if (result (ref eq))
      (i32.and (i64.ge_s (local.get $v) (i64.const -1073741824)) (i64.le_s (local.get $v) (i64.const 1073741823)))
      (then (ref.i31 (i32.wrap_i64 (local.get $v))))
      (else (struct.new $Big (local.get $v)))))

  (func $val (param $x (ref null eq)) (result i64)
    (block $small (result (ref i31))
      (return (struct.get $Big $v (ref.cast (ref $Big)
        (br_on_cast $small (ref null eq) (ref i31) (local.get $x))))))
    i31.get_s
    i64.extend_i32_s)

  ;; the i31 + i31 path stays unboxed unless the sum overflows 31 bits
  (func $add (param $a (ref null eq)) (param $b (ref null eq)) (result (ref eq))
    (if (i32.and (ref.test (ref i31) (local.get $a)) (ref.test (ref i31) (local.get $b)))
      (then (return (call $int (i64.extend_i32_s
              (i32.add (i31.get_s (ref.cast (ref i31) (local.get $a)))
                       (i31.get_s (ref.cast (ref i31) (local.get $b)))))))))
    (call $int (i64.add (call $val (local.get $a)) (call $val (local.get $b)))))

  (func $mul (param $a (ref null eq)) (param $b (ref null eq)) (result (ref eq))
    (call $int (i64.mul (call $val (local.get $a)) (call $val (local.get $b)))))

  (func $cons (param $a (ref null eq)) (param $d (ref null eq)) (result (ref $Pair))
    (struct.new $Pair (local.get $a) (local.get $d)))

  (func $list_sum (param $l (ref null eq)) (result (ref eq))
    (local $acc (ref eq))
    (local $p (ref $Pair))
    (local.set $acc (ref.i31 (i32.const 0)))
    (drop (block $end (result (ref null eq))
      (loop $each
        (local.set $p (br_on_cast_fail $end (ref null eq) (ref $Pair) (local.get $l)))
        (local.set $acc (call $add (local.get $acc) (struct.get $Pair $car (local.get $p))))
        (local.set $l (struct.get $Pair $cdr (local.get $p)))
        (br $each))
      (unreachable))) ;; (the loop never ends: a valid block end needs it)
    (local.get $acc))

  (func $sum_small (result i32)
    (local $l (ref null eq))
    (local $i i32)
    (local.set $l (global.get $nil))
    (local.set $i (i32.const 100))
    (loop $each
      (local.set $l (call $cons (ref.i31 (local.get $i)) (local.get $l)))
      (br_if $each (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))
    (i31.get_s (ref.cast (ref i31) (call $list_sum (local.get $l)))))

  ;; 20! with generic multiplication: boxed from 13! on
  (func $fact (param $n i32) (result (ref eq))
    (if (result (ref eq)) (i32.le_s (local.get $n) (i32.const 1))
      (then (global.get $one))
      (else (call $mul (ref.i31 (local.get $n)) (call $fact (i32.sub (local.get $n) (i32.const 1)))))))

  (func $fact_boxed (result i64)
    (call $val (call $fact (i32.const 20))))

  (func $boxed_count (result i32)
    (local $i i32)
    (local $n i32)
    (loop $each
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (local.set $n (i32.add (local.get $n) (ref.test (ref $Big) (call $fact (local.get $i)))))
      (br_if $each (i32.lt_u (local.get $i) (i32.const 20))))
    (local.get $n))

  ;; (1 2^40 -3 -2^35 7 1073741823 1): small and boxed, and an i31 + i31
  ;; that overflows into a box
  (func $mixed_sum (result i64)
    (call $val (call $list_sum
      (call $cons (call $int (i64.const 1))
      (call $cons (call $int (i64.const 1099511627776))
      (call $cons (call $int (i64.const -3))
      (call $cons (call $int (i64.const -34359738368))
      (call $cons (call $int (i64.const 7))
      (call $cons (call $int (i64.const 1073741823))
      (call $cons (call $int (i64.const 1)) (global.get $nil)))))))))))

  ;; i31.get_s / get_u of -5, of 2^30 and of 0x80000001 (bit 31 dropped)
  (func $i31_bits (result i64)
    (i64.add
      (i64.add (i64.extend_i32_s (i31.get_s (ref.i31 (i32.const -5))))
               (i64.extend_i32_u (i31.get_u (ref.i31 (i32.const -5)))))
      (i64.add
        (i64.add (i64.extend_i32_s (i31.get_s (ref.i31 (i32.const 0x40000000))))
                 (i64.extend_i32_u (i31.get_u (ref.i31 (i32.const 0x40000000)))))
        (i64.extend_i32_u (i31.get_u (ref.i31 (i32.const 0x80000001)))))))

  (func $intern (param $t (ref $Table)) (param $off i32) (param $len i32) (result (ref $Sym))
    (local $name (ref $Name))
    (local $i i32)
    (local $s (ref $Sym))
    (local $sym (ref $Sym))
    (local.set $name (array.new_data $Name $names (local.get $off) (local.get $len)))
    (block $new
      (loop $each
        (br_if $new (i32.ge_u (local.get $i) (struct.get $Table $n (local.get $t))))
        (local.set $s (ref.as_non_null (array.get $Syms (struct.get $Table $syms (local.get $t)) (local.get $i))))
        (if (call $bytes_equal (struct.get $Sym $name (local.get $s)) (local.get $name))
          (then (return (local.get $s))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.set $sym (struct.new $Sym (local.get $name)))
    (array.set $Syms (struct.get $Table $syms (local.get $t)) (local.get $i) (local.get $sym))
    (struct.set $Table $n (local.get $t) (i32.add (local.get $i) (i32.const 1)))
    (local.get $sym))

  (func $bytes_equal (param $a (ref $Name)) (param $b (ref $Name)) (result i32)
    (local $i i32)
    (if (i32.ne (array.len (local.get $a)) (array.len (local.get $b))) (then (return (i32.const 0))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $a))))
        (if (i32.ne (array.get_u $Name (local.get $a) (local.get $i)) (array.get_u $Name (local.get $b) (local.get $i)))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (i32.const 1))

  ;; Scheme equal?: eq?, or equal boxes, or pairs with equal cars and cdrs
  (func $equal (param $a (ref null eq)) (param $b (ref null eq)) (result i32)
    (if (ref.eq (local.get $a) (local.get $b)) (then (return (i32.const 1))))
    (if (i32.and (ref.test (ref $Big) (local.get $a)) (ref.test (ref $Big) (local.get $b)))
      (then (return (i64.eq (struct.get $Big $v (ref.cast (ref $Big) (local.get $a)))
                            (struct.get $Big $v (ref.cast (ref $Big) (local.get $b)))))))
    (if (i32.and (ref.test (ref $Pair) (local.get $a)) (ref.test (ref $Pair) (local.get $b)))
      (then (return (i32.and
        (call $equal (struct.get $Pair $car (ref.cast (ref $Pair) (local.get $a)))
                     (struct.get $Pair $car (ref.cast (ref $Pair) (local.get $b))))
        (call $equal (struct.get $Pair $cdr (ref.cast (ref $Pair) (local.get $a)))
                     (struct.get $Pair $cdr (ref.cast (ref $Pair) (local.get $b))))))))
    (i32.const 0))

  (func $table (result (ref $Table))
    (struct.new $Table (array.new_default $Syms (i32.const 8)) (i32.const 0)))

  ;; bits: 0 i31 5 eq? i31 5; 1 two boxes of 2^40 not eq?; 2 but equal?;
  ;; 3 'car interned twice eq?; 4 'car not eq? 'cdr; 5 two fresh (1 . (2 . nil))
  ;; not eq?; 6 but equal?; 7 a box is not equal? to an i31
  (func $eq_vs_equal (result i32)
    (local $t (ref $Table))
    (local $l1 (ref $Pair))
    (local $l2 (ref $Pair))
    (local.set $t (call $table))
    (local.set $l1 (call $cons (ref.i31 (i32.const 1)) (call $cons (ref.i31 (i32.const 2)) (global.get $nil))))
    (local.set $l2 (call $cons (ref.i31 (i32.const 1)) (call $cons (ref.i31 (i32.const 2)) (global.get $nil))))
    (i32.or
      (i32.or
        (i32.or (ref.eq (ref.i31 (i32.const 5)) (ref.i31 (i32.const 5)))
                (i32.shl (i32.eqz (ref.eq (call $int (i64.const 1099511627776)) (call $int (i64.const 1099511627776))))
                         (i32.const 1)))
        (i32.or (i32.shl (call $equal (call $int (i64.const 1099511627776)) (call $int (i64.const 1099511627776)))
                         (i32.const 2))
                (i32.shl (ref.eq (call $intern (local.get $t) (i32.const 0) (i32.const 3))
                                 (call $intern (local.get $t) (i32.const 16) (i32.const 3)))
                         (i32.const 3))))
      (i32.or
        (i32.or (i32.shl (ref.eq (call $intern (local.get $t) (i32.const 0) (i32.const 3))
                                 (call $intern (local.get $t) (i32.const 3) (i32.const 3)))
                         (i32.const 4))
                (i32.shl (i32.eqz (ref.eq (local.get $l1) (local.get $l2))) (i32.const 5)))
        (i32.or (i32.shl (call $equal (local.get $l1) (local.get $l2)) (i32.const 6))
                (i32.shl (call $equal (call $int (i64.const 2000000000)) (ref.i31 (i32.const 7))) (i32.const 7))))))

  ;; an association list keyed by symbols ((car . 1000) (cdr . 2000)
  ;; (cons . 30) (lambda . 4)); assq of car, of cons, of car interned again
  ;; (the same symbol), and of a "car" symbol never interned (a miss, 0)
  (func $assq (param $key (ref $Sym)) (param $l (ref null eq)) (result i32)
    (local $p (ref $Pair))
    (local $entry (ref $Pair))
    (drop (block $miss (result (ref null eq))
      (loop $each
        (local.set $p (br_on_cast_fail $miss (ref null eq) (ref $Pair) (local.get $l)))
        (local.set $entry (ref.cast (ref $Pair) (struct.get $Pair $car (local.get $p))))
        (if (ref.eq (struct.get $Pair $car (local.get $entry)) (local.get $key))
          (then (return (i31.get_s (ref.cast (ref i31) (struct.get $Pair $cdr (local.get $entry)))))))
        (local.set $l (struct.get $Pair $cdr (local.get $p)))
        (br $each))
      (unreachable))) ;; (the loop never ends: a valid block end needs it)
    (i32.const 0))

  (func $assq_export (result i32)
    (local $t (ref $Table))
    (local $al (ref $Pair))
    (local.set $t (call $table))
    (local.set $al
      (call $cons (call $cons (call $intern (local.get $t) (i32.const 0) (i32.const 3)) (ref.i31 (i32.const 1000)))
      (call $cons (call $cons (call $intern (local.get $t) (i32.const 3) (i32.const 3)) (ref.i31 (i32.const 2000)))
      (call $cons (call $cons (call $intern (local.get $t) (i32.const 6) (i32.const 4)) (ref.i31 (i32.const 30)))
      (call $cons (call $cons (call $intern (local.get $t) (i32.const 10) (i32.const 6)) (ref.i31 (i32.const 4)))
                  (global.get $nil))))))
    (i32.add
      (i32.add (call $assq (call $intern (local.get $t) (i32.const 0) (i32.const 3)) (local.get $al))
               (call $assq (call $intern (local.get $t) (i32.const 6) (i32.const 4)) (local.get $al)))
      (i32.add (call $assq (call $intern (local.get $t) (i32.const 16) (i32.const 3)) (local.get $al))
               (call $assq (struct.new $Sym (array.new_data $Name $names (i32.const 0) (i32.const 3)))
                           (local.get $al)))))

  (export "sum_small" (func $sum_small))
  (export "fact_boxed" (func $fact_boxed))
  (export "boxed_count" (func $boxed_count))
  (export "mixed_sum" (func $mixed_sum))
  (export "i31_bits" (func $i31_bits))
  (export "eq_vs_equal" (func $eq_vs_equal))
  (export "assq" (func $assq_export))
)
