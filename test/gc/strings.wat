;; strings.wat — strings the way GC languages without stringref lower
;; them: byte strings as (array (mut i8)) made from passive data segments
;; with array.new_data (and patched with array.init_data), Java/Kotlin
;; strings as (array (mut i16)) of UTF-16 units, concatenation and
;; substrings with array.copy, a StringBuilder that grows by copying into a
;; twice-as-long array, padding with array.fill, String.hashCode, compareTo,
;; indexOf, in-place case mapping, and packed reads that sign- or
;; zero-extend. One export copies past the end of an array and traps.
;;
;; expect: java_hash => -505841268
;; expect: compare_words => 4
;; expect: index_of => 122231
;; expect: builder => 290424286
;; expect: upper_sum => 1379
;; expect: packed => 11246148
;; expect: pad_fill => 4446
;; expect: init_data => 3648
;; expect: copy_oob => trap
(module
  (type $Bytes (array (mut i8)))
  (type $Chars (array (mut i16)))
  (type $Builder (struct (field $buf (mut (ref $Chars))) (field $len (mut i32))))

  (data $hello "Hello, ")
  (data $world "World")
  (data $words "apple" "banana" "cherry" "apricot")
  (data $text "hello world wide web, world of wasm")
  (data $latin "caf\e9 \ff\80")
  (data $patch "GC!")

  (func $bytes (param $seg i32) (param $off i32) (param $len i32) (result (ref $Bytes))
    (block $words
      (block $text
        (block $latin
          (block $world
            (block $hello
              (br_table $hello $world $latin $text $words (local.get $seg)))
            (return (array.new_data $Bytes $hello (local.get $off) (local.get $len))))
          (return (array.new_data $Bytes $world (local.get $off) (local.get $len))))
        (return (array.new_data $Bytes $latin (local.get $off) (local.get $len))))
      (return (array.new_data $Bytes $text (local.get $off) (local.get $len))))
    (array.new_data $Bytes $words (local.get $off) (local.get $len)))

  (func $concat (param $a (ref $Bytes)) (param $b (ref $Bytes)) (result (ref $Bytes))
    (local $r (ref $Bytes))
    (local.set $r (array.new_default $Bytes (i32.add (array.len (local.get $a)) (array.len (local.get $b)))))
    (array.copy $Bytes $Bytes (local.get $r) (i32.const 0) (local.get $a) (i32.const 0) (array.len (local.get $a)))
    (array.copy $Bytes $Bytes (local.get $r) (array.len (local.get $a)) (local.get $b) (i32.const 0) (array.len (local.get $b)))
    (local.get $r))

  ;; Latin-1 bytes widened to UTF-16 units (array.get_u: 0xe9 stays 233)
  (func $widen (param $b (ref $Bytes)) (result (ref $Chars))
    (local $r (ref $Chars))
    (local $i i32)
    (local.set $r (array.new_default $Chars (array.len (local.get $b))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $b))))
        (array.set $Chars (local.get $r) (local.get $i) (array.get_u $Bytes (local.get $b) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $r))

  ;; java.lang.String.hashCode
  (func $hash (param $s (ref $Chars)) (result i32)
    (local $h i32)
    (local $i i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $s))))
        (local.set $h (i32.add (i32.mul (local.get $h) (i32.const 31))
                               (array.get_u $Chars (local.get $s) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $h))

  ;; String.compareTo: the first differing unit, else the length difference
  (func $compare (param $a (ref $Chars)) (param $b (ref $Chars)) (result i32)
    (local $i i32)
    (local $n i32)
    (local $d i32)
    (local.set $n (select (array.len (local.get $a)) (array.len (local.get $b))
                          (i32.lt_u (array.len (local.get $a)) (array.len (local.get $b)))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $d (i32.sub (array.get_u $Chars (local.get $a) (local.get $i))
                               (array.get_u $Chars (local.get $b) (local.get $i))))
        (if (local.get $d) (then (return (local.get $d))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (i32.sub (array.len (local.get $a)) (array.len (local.get $b))))

  (func $index_of_from (param $h (ref $Bytes)) (param $n (ref $Bytes)) (param $from i32) (result i32)
    (local $i i32)
    (local $j i32)
    (local.set $i (local.get $from))
    (block $none
      (loop $at
        (br_if $none (i32.gt_s (i32.add (local.get $i) (array.len (local.get $n))) (array.len (local.get $h))))
        (local.set $j (i32.const 0))
        (block $mismatch
          (loop $cmp
            (if (i32.ge_u (local.get $j) (array.len (local.get $n))) (then (return (local.get $i))))
            (br_if $mismatch (i32.ne (array.get_u $Bytes (local.get $h) (i32.add (local.get $i) (local.get $j)))
                                     (array.get_u $Bytes (local.get $n) (local.get $j))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $cmp)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $at)))
    (i32.const -1))

  (func $sb_append_char (param $sb (ref $Builder)) (param $c i32)
    (local $buf (ref $Chars))
    (local $big (ref $Chars))
    (local.set $buf (struct.get $Builder $buf (local.get $sb)))
    (if (i32.eq (struct.get $Builder $len (local.get $sb)) (array.len (local.get $buf)))
      (then
        (local.set $big (array.new_default $Chars (i32.shl (array.len (local.get $buf)) (i32.const 1))))
        (array.copy $Chars $Chars (local.get $big) (i32.const 0) (local.get $buf) (i32.const 0) (array.len (local.get $buf)))
        (struct.set $Builder $buf (local.get $sb) (local.get $big))
        (local.set $buf (local.get $big))))
    (array.set $Chars (local.get $buf) (struct.get $Builder $len (local.get $sb)) (local.get $c))
    (struct.set $Builder $len (local.get $sb) (i32.add (struct.get $Builder $len (local.get $sb)) (i32.const 1))))

  ;; the decimal digits of a non-negative int
  (func $sb_append_int (param $sb (ref $Builder)) (param $v i32)
    (if (i32.ge_u (local.get $v) (i32.const 10))
      (then (call $sb_append_int (local.get $sb) (i32.div_u (local.get $v) (i32.const 10)))))
    (call $sb_append_char (local.get $sb) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10)))))

  ;; "Hello, " + "World" as UTF-16, hashed like Java
  (func $java_hash (result i32)
    (call $hash (call $widen (call $concat (call $bytes (i32.const 0) (i32.const 0) (i32.const 7))
                                           (call $bytes (i32.const 1) (i32.const 0) (i32.const 5))))))

  ;; apple < banana < cherry, apricot < banana, apple < apricot: the signs
  (func $compare_words (result i32)
    (local $apple (ref $Chars))
    (local $banana (ref $Chars))
    (local $cherry (ref $Chars))
    (local $apricot (ref $Chars))
    (local.set $apple (call $widen (call $bytes (i32.const 4) (i32.const 0) (i32.const 5))))
    (local.set $banana (call $widen (call $bytes (i32.const 4) (i32.const 5) (i32.const 6))))
    (local.set $cherry (call $widen (call $bytes (i32.const 4) (i32.const 11) (i32.const 6))))
    (local.set $apricot (call $widen (call $bytes (i32.const 4) (i32.const 17) (i32.const 7))))
    (i32.add
      (i32.add (i32.lt_s (call $compare (local.get $apple) (local.get $banana)) (i32.const 0))
               (i32.gt_s (call $compare (local.get $cherry) (local.get $banana)) (i32.const 0)))
      (i32.add (i32.lt_s (call $compare (local.get $apple) (local.get $apricot)) (i32.const 0))
               (i32.eqz (call $compare (local.get $cherry) (local.get $cherry))))))

  ;; "world" in the text: first at 6, from 7 on at 22; "wasm" at 31;
  ;; "worldm" nowhere (-1, times -60000): 60000 + 2200 + 31 + 60000
  (func $index_of (result i32)
    (local $t (ref $Bytes))
    (local $w (ref $Bytes))
    (local.set $t (call $bytes (i32.const 3) (i32.const 0) (i32.const 35)))
    (local.set $w (call $bytes (i32.const 3) (i32.const 6) (i32.const 5)))
    (i32.add
      (i32.add (i32.mul (call $index_of_from (local.get $t) (local.get $w) (i32.const 0)) (i32.const 10000))
               (i32.mul (call $index_of_from (local.get $t) (local.get $w) (i32.const 7)) (i32.const 100)))
      (i32.add (call $index_of_from (local.get $t) (call $bytes (i32.const 3) (i32.const 31) (i32.const 4)) (i32.const 0))
               (i32.mul (call $index_of_from (local.get $t)
                          (call $concat (local.get $w) (call $bytes (i32.const 3) (i32.const 34) (i32.const 1)))
                          (i32.const 0))
                        (i32.const -60000)))))

;; "0,1,2,...,99," built from a 4-unit buffer, trimmed with array.copy:
  ;; length * 1000000 + its hash mod 1000000 (unsigned)
  (func $builder (result i32)
    (local $sb (ref $Builder))
    (local $s (ref $Chars))
    (local $i i32)
    (local.set $sb (struct.new $Builder (array.new_default $Chars (i32.const 4)) (i32.const 0)))
    (loop $each
      (call $sb_append_int (local.get $sb) (local.get $i))
      (call $sb_append_char (local.get $sb) (i32.const 44))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 100))))
    (local.set $s (array.new_default $Chars (struct.get $Builder $len (local.get $sb))))
    (array.copy $Chars $Chars (local.get $s) (i32.const 0)
      (struct.get $Builder $buf (local.get $sb)) (i32.const 0) (array.len (local.get $s)))
    (i32.add (i32.mul (array.len (local.get $s)) (i32.const 1000000))
             (i32.rem_u (call $hash (local.get $s)) (i32.const 1000000))))

  ;; the text's first 20 bytes upper-cased in place; their sum
  (func $upper_sum (result i32)
    (local $b (ref $Bytes))
    (local $i i32)
    (local $c i32)
    (local $s i32)
    (local.set $b (call $bytes (i32.const 3) (i32.const 0) (i32.const 20)))
    (loop $each
      (local.set $c (array.get_u $Bytes (local.get $b) (local.get $i)))
      (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
        (then (array.set $Bytes (local.get $b) (local.get $i) (i32.sub (local.get $c) (i32.const 32)))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $b)))))
    (local.set $i (i32.const 0))
    (loop $sum
      (local.set $s (i32.add (local.get $s) (array.get_s $Bytes (local.get $b) (local.get $i))))
      (br_if $sum (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $b)))))
    (local.get $s))

  ;; "caf\e9 \ff\80": signed and unsigned reads of the high bytes, a
  ;; truncating store (0x17f keeps 0x7f), and an i16 unit 0xfffe
  (func $packed (result i32)
    (local $b (ref $Bytes))
    (local $c (ref $Chars))
    (local $signed i32)
    (local $unsigned i32)
    (local.set $b (call $bytes (i32.const 2) (i32.const 0) (i32.const 7)))
    (local.set $signed (i32.add (array.get_s $Bytes (local.get $b) (i32.const 3))
      (i32.add (array.get_s $Bytes (local.get $b) (i32.const 5)) (array.get_s $Bytes (local.get $b) (i32.const 6)))))
    (local.set $unsigned (i32.add (array.get_u $Bytes (local.get $b) (i32.const 3))
      (i32.add (array.get_u $Bytes (local.get $b) (i32.const 5)) (array.get_u $Bytes (local.get $b) (i32.const 6)))))
    (array.set $Bytes (local.get $b) (i32.const 0) (i32.const 0x17f))
    (local.set $c (array.new $Chars (i32.const -2) (i32.const 3)))
    (i32.add
      (i32.add (i32.mul (local.get $signed) (i32.const 10000)) (local.get $unsigned))
      (i32.add (i32.mul (array.get_u $Bytes (local.get $b) (i32.const 0)) (i32.const 100000))
               (i32.add (array.get_s $Chars (local.get $c) (i32.const 2)) (array.get_u $Chars (local.get $c) (i32.const 1))))))

  ;; "42" padded to 8 with '*' (array.fill), then hashed
  (func $pad_fill (result i32)
    (local $s (ref $Chars))
    (local.set $s (array.new_default $Chars (i32.const 8)))
    (array.fill $Chars (local.get $s) (i32.const 0) (i32.const 42) (i32.const 6))
    (array.copy $Chars $Chars (local.get $s) (i32.const 6)
      (array.new_fixed $Chars 2 (i32.const 52) (i32.const 50)) (i32.const 0) (i32.const 2))
    (i32.rem_u (call $hash (local.get $s)) (i32.const 10000)))

  ;; ten '.' patched by array.init_data: "el..GC!...", hashed mod 10000
  (func $init_data (result i32)
    (local $b (ref $Bytes))
    (local.set $b (array.new $Bytes (i32.const 46) (i32.const 10)))
    (array.init_data $Bytes $patch (local.get $b) (i32.const 4) (i32.const 0) (i32.const 3))
    (array.init_data $Bytes $hello (local.get $b) (i32.const 0) (i32.const 1) (i32.const 2))
    (i32.rem_u (call $hash (call $widen (local.get $b))) (i32.const 10000)))

  ;; "World" into a 5-byte array at 3: past the end
  (func $copy_oob (result i32)
    (local $b (ref $Bytes))
    (local.set $b (array.new_default $Bytes (i32.const 5)))
    (array.copy $Bytes $Bytes (local.get $b) (i32.const 3)
      (call $bytes (i32.const 1) (i32.const 0) (i32.const 5)) (i32.const 0) (i32.const 3))
    (array.get_u $Bytes (local.get $b) (i32.const 3)))

  (export "java_hash" (func $java_hash))
  (export "compare_words" (func $compare_words))
  (export "index_of" (func $index_of))
  (export "builder" (func $builder))
  (export "upper_sum" (func $upper_sum))
  (export "packed" (func $packed))
  (export "pad_fill" (func $pad_fill))
  (export "init_data" (func $init_data))
  (export "copy_oob" (func $copy_oob))
)
