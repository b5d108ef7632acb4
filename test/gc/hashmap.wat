;; hashmap.wat — java.util.HashMap / Dart's Map as they compile to GC: a
;; map struct holding a mutable reference to an array of nullable bucket
;; heads, entries chained through a mutable `next`, resized by allocating a
;; twice-as-long array and relinking the same entries (no copying), keys
;; spread like Java's (h ^ h >>> 16). Beside it an open-addressed IntSet
;; over an (array (mut i32)) initialized with array.fill, and probing stats
;; over the entries. Every export builds its own maps.
;;
;; expect: insert_get => 2645500
;; expect: resizes => 8001024
;; expect: remove_sum => 505166700
;; expect: overwrite => 1000050
;; expect: set_distinct => 49
;; expect: max_chain => 2
;; expect: entry_identity => 1
(module
  (rec
    (type $Entry (sub final (struct (field $key i32) (field $value (mut i64))
                                    (field $next (mut (ref null $Entry))))))
    (type $Buckets (array (mut (ref null $Entry))))
    (type $Map (sub final (struct (field $buckets (mut (ref $Buckets))) (field $size (mut i32))
                                  (field $resizes (mut i32))))))
  (type $Ints (array (mut i32)))
  (type $IntSet (struct (field $slots (mut (ref $Ints))) (field $count (mut i32))))

  (func $spread (param $k i32) (result i32)
    (local $h i32)
    (local.set $h (i32.mul (local.get $k) (i32.const 0x9e3779b1)))
    (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 16))))

  (func $index (param $b (ref $Buckets)) (param $k i32) (result i32)
    (i32.and (call $spread (local.get $k)) (i32.sub (array.len (local.get $b)) (i32.const 1))))

  (func $map_new (param $cap i32) (result (ref $Map))
    (struct.new $Map (array.new_default $Buckets (local.get $cap)) (i32.const 0) (i32.const 0)))

  (func $find (param $m (ref $Map)) (param $k i32) (result (ref null $Entry))
    (local $b (ref $Buckets))
    (local $e (ref null $Entry))
    (local.set $b (struct.get $Map $buckets (local.get $m)))
    (local.set $e (array.get $Buckets (local.get $b) (call $index (local.get $b) (local.get $k))))
    (block $done
      (loop $walk
        (br_if $done (ref.is_null (local.get $e)))
        (br_if $done (i32.eq (struct.get $Entry $key (local.get $e)) (local.get $k)))
        (local.set $e (struct.get $Entry $next (local.get $e)))
        (br $walk)))
    (local.get $e))

  (func $get (param $m (ref $Map)) (param $k i32) (result i64)
    (block $absent
      (return (struct.get $Entry $value (br_on_null $absent (call $find (local.get $m) (local.get $k))))))
    (i64.const -1))

  ;; every entry relinked into a table twice as long
  (func $resize (param $m (ref $Map))
    (local $old (ref $Buckets))
    (local $new (ref $Buckets))
    (local $i i32)
    (local $e (ref null $Entry))
    (local $next (ref null $Entry))
    (local $j i32)
    (local.set $old (struct.get $Map $buckets (local.get $m)))
    (local.set $new (array.new_default $Buckets (i32.shl (array.len (local.get $old)) (i32.const 1))))
    (loop $bucket
      (local.set $e (array.get $Buckets (local.get $old) (local.get $i)))
      (block $empty
        (loop $chain
          (br_if $empty (ref.is_null (local.get $e)))
          (local.set $next (struct.get $Entry $next (local.get $e)))
          (local.set $j (call $index (local.get $new) (struct.get $Entry $key (local.get $e))))
          (struct.set $Entry $next (local.get $e) (array.get $Buckets (local.get $new) (local.get $j)))
          (array.set $Buckets (local.get $new) (local.get $j) (local.get $e))
          (local.set $e (local.get $next))
          (br $chain)))
      (br_if $bucket (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $old)))))
    (struct.set $Map $buckets (local.get $m) (local.get $new))
    (struct.set $Map $resizes (local.get $m) (i32.add (struct.get $Map $resizes (local.get $m)) (i32.const 1))))

  (func $put (param $m (ref $Map)) (param $k i32) (param $v i64)
    (local $b (ref $Buckets))
    (local $i i32)
    (block $absent
      (struct.set $Entry $value (br_on_null $absent (call $find (local.get $m) (local.get $k))) (local.get $v))
      (return))
    (local.set $b (struct.get $Map $buckets (local.get $m)))
    (local.set $i (call $index (local.get $b) (local.get $k)))
    (array.set $Buckets (local.get $b) (local.get $i)
      (struct.new $Entry (local.get $k) (local.get $v) (array.get $Buckets (local.get $b) (local.get $i))))
    (struct.set $Map $size (local.get $m) (i32.add (struct.get $Map $size (local.get $m)) (i32.const 1)))
    (if (i32.gt_u (i32.mul (struct.get $Map $size (local.get $m)) (i32.const 4))
                  (i32.mul (array.len (local.get $b)) (i32.const 3)))
      (then (call $resize (local.get $m)))))

  ;; unlinks K's entry; 1 if there was one
  (func $remove (param $m (ref $Map)) (param $k i32) (result i32)
    (local $b (ref $Buckets))
    (local $i i32)
    (local $e (ref null $Entry))
    (local $prev (ref null $Entry))
    (local.set $b (struct.get $Map $buckets (local.get $m)))
    (local.set $i (call $index (local.get $b) (local.get $k)))
    (local.set $e (array.get $Buckets (local.get $b) (local.get $i)))
    (block $done
      (loop $walk
        (br_if $done (ref.is_null (local.get $e)))
        (if (i32.eq (struct.get $Entry $key (local.get $e)) (local.get $k))
          (then
            (if (ref.is_null (local.get $prev))
              (then (array.set $Buckets (local.get $b) (local.get $i) (struct.get $Entry $next (local.get $e))))
              (else (struct.set $Entry $next (local.get $prev) (struct.get $Entry $next (local.get $e)))))
            (struct.set $Map $size (local.get $m) (i32.sub (struct.get $Map $size (local.get $m)) (i32.const 1)))
            (return (i32.const 1))))
        (local.set $prev (local.get $e))
        (local.set $e (struct.get $Entry $next (local.get $e)))
        (br $walk)))
    (i32.const 0))

  ;; keys 7i -> i*i for i < 200; the gets of 0, 1, .., 1399 (one in 7 hits;
  ;; misses count -1 each)
  (func $insert_get (result i64)
    (local $m (ref $Map))
    (local $i i32)
    (local $s i64)
    (local.set $m (call $map_new (i32.const 16)))
    (loop $ins
      (call $put (local.get $m) (i32.mul (local.get $i) (i32.const 7))
        (i64.extend_i32_u (i32.mul (local.get $i) (local.get $i))))
      (br_if $ins (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 200))))
    (local.set $i (i32.const 0))
    (loop $look
      (local.set $s (i64.add (local.get $s) (call $get (local.get $m) (local.get $i))))
      (br_if $look (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 1400))))
    (local.get $s))

  ;; 500 keys from capacity 4: resizes * 1000000 + final capacity
  (func $resizes (result i32)
    (local $m (ref $Map))
    (local $i i32)
    (local.set $m (call $map_new (i32.const 4)))
    (loop $ins
      (call $put (local.get $m) (i32.sub (i32.const 1000) (i32.mul (local.get $i) (i32.const 3))) (i64.const 1))
      (br_if $ins (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 500))))
    (i32.add (i32.mul (struct.get $Map $resizes (local.get $m)) (i32.const 1000000))
             (array.len (struct.get $Map $buckets (local.get $m)))))

  ;; keys 0..99 -> k*k+1, the even keys removed (twice: the second finds
  ;; nothing): (size * 100 + removals) * 100000 + the remaining values' sum
  (func $remove_sum (result i64)
    (local $m (ref $Map))
    (local $i i32)
    (local $removed i32)
    (local $s i64)
    (local.set $m (call $map_new (i32.const 8)))
    (loop $ins
      (call $put (local.get $m) (local.get $i)
        (i64.add (i64.mul (i64.extend_i32_u (local.get $i)) (i64.extend_i32_u (local.get $i))) (i64.const 1)))
      (br_if $ins (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 100))))
    (local.set $i (i32.const 0))
    (loop $rm
      (local.set $removed (i32.add (local.get $removed)
        (i32.add (call $remove (local.get $m) (local.get $i)) (call $remove (local.get $m) (local.get $i)))))
      (br_if $rm (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 2))) (i32.const 100))))
    (local.set $i (i32.const 0))
    (loop $sum
      (if (i64.ge_s (call $get (local.get $m) (local.get $i)) (i64.const 0))
        (then (local.set $s (i64.add (local.get $s) (call $get (local.get $m) (local.get $i))))))
      (br_if $sum (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 100))))
    (i64.add (i64.mul (i64.extend_i32_u (i32.add (i32.mul (struct.get $Map $size (local.get $m)) (i32.const 100))
                                                 (local.get $removed)))
                      (i64.const 100000))
             (local.get $s)))

  ;; 50 keys put twice: size stays 50; values are the second ones
  (func $overwrite (result i32)
    (local $m (ref $Map))
    (local $i i32)
    (local $s i32)
    (local.set $m (call $map_new (i32.const 2)))
    (loop $ins
      (call $put (local.get $m) (i32.mul (local.get $i) (i32.const -13)) (i64.const 5))
      (call $put (local.get $m) (i32.mul (local.get $i) (i32.const -13)) (i64.const 20000))
      (br_if $ins (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 50))))
    (local.set $i (i32.const 0))
    (loop $sum
      (local.set $s (i32.add (local.get $s)
        (i32.wrap_i64 (call $get (local.get $m) (i32.mul (local.get $i) (i32.const -13))))))
      (br_if $sum (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 50))))
    (i32.add (local.get $s) (struct.get $Map $size (local.get $m))))

  ;; open addressing, linear probing, -1 marks a free slot (array.fill)
  (func $set_add (param $s (ref $IntSet)) (param $v i32)
    (local $a (ref $Ints))
    (local $i i32)
    (local $x i32)
    (local.set $a (struct.get $IntSet $slots (local.get $s)))
    (local.set $i (i32.and (call $spread (local.get $v)) (i32.sub (array.len (local.get $a)) (i32.const 1))))
    (loop $probe
      (local.set $x (array.get $Ints (local.get $a) (local.get $i)))
      (if (i32.eq (local.get $x) (local.get $v)) (then (return)))
      (if (i32.eq (local.get $x) (i32.const -1))
        (then
          (array.set $Ints (local.get $a) (local.get $i) (local.get $v))
          (struct.set $IntSet $count (local.get $s) (i32.add (struct.get $IntSet $count (local.get $s)) (i32.const 1)))
          (return)))
      (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (i32.sub (array.len (local.get $a)) (i32.const 1))))
      (br $probe)))

  ;; the distinct squares mod 97 of 0..199
  (func $set_distinct (result i32)
    (local $s (ref $IntSet))
    (local $a (ref $Ints))
    (local $i i32)
    (local.set $a (array.new_default $Ints (i32.const 128)))
    (array.fill $Ints (local.get $a) (i32.const 0) (i32.const -1) (i32.const 128))
    (local.set $s (struct.new $IntSet (local.get $a) (i32.const 0)))
    (loop $ins
      (call $set_add (local.get $s) (i32.rem_u (i32.mul (local.get $i) (local.get $i)) (i32.const 97)))
      (br_if $ins (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 200))))
    (struct.get $IntSet $count (local.get $s)))

  ;; the longest chain after 300 inserts into 64.. buckets
  (func $max_chain (result i32)
    (local $m (ref $Map))
    (local $b (ref $Buckets))
    (local $i i32)
    (local $n i32)
    (local $best i32)
    (local $e (ref null $Entry))
    (local.set $m (call $map_new (i32.const 64)))
    (loop $ins
      (call $put (local.get $m) (i32.mul (local.get $i) (i32.const 1024)) (i64.const 0))
      (br_if $ins (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 300))))
    (local.set $b (struct.get $Map $buckets (local.get $m)))
    (local.set $i (i32.const 0))
    (loop $bucket
      (local.set $n (i32.const 0))
      (local.set $e (array.get $Buckets (local.get $b) (local.get $i)))
      (block $end
        (loop $chain
          (br_if $end (ref.is_null (local.get $e)))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (local.set $e (struct.get $Entry $next (local.get $e)))
          (br $chain)))
      (local.set $best (select (local.get $n) (local.get $best) (i32.gt_u (local.get $n) (local.get $best))))
      (br_if $bucket (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $b)))))
    (local.get $best))

  ;; an entry found before a resize is the very entry found after it
  (func $entry_identity (result i32)
    (local $m (ref $Map))
    (local $e (ref null $Entry))
    (local $i i32)
    (local.set $m (call $map_new (i32.const 2)))
    (call $put (local.get $m) (i32.const 42) (i64.const 1))
    (local.set $e (call $find (local.get $m) (i32.const 42)))
    (loop $ins
      (call $put (local.get $m) (local.get $i) (i64.const 2))
      (br_if $ins (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 40))))
    (i32.and (ref.eq (local.get $e) (call $find (local.get $m) (i32.const 42)))
             (i32.gt_u (struct.get $Map $resizes (local.get $m)) (i32.const 3))))

  (export "insert_get" (func $insert_get))
  (export "resizes" (func $resizes))
  (export "remove_sum" (func $remove_sum))
  (export "overwrite" (func $overwrite))
  (export "set_distinct" (func $set_distinct))
  (export "max_chain" (func $max_chain))
  (export "entry_identity" (func $entry_identity))
)
