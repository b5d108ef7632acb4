;; bintree.wat — binary search trees two ways: a mutable one (Java's
;; TreeMap without balancing: nullable mutable children, iterative insert,
;; recursive traversals, in-place mirroring, delete-min by relinking) and a
;; persistent one (Scala/OCaml style: immutable final struct, insert copies
;; the path and shares the rest, sharing checked with ref.eq). Keys come
;; from an LCG so the trees are irregular but the same on every run.
;;
;; expect: size_sum => 179000087321
;; expect: height => 18
;; expect: inorder_hash => -1620090197
;; expect: range_count => 53
;; expect: mirror_check => 1
;; expect: persistent_share => 939409
;; expect: delete_min_sum => 249
(module
  (rec
    (type $Node (sub final (struct (field $key i32) (field $left (mut (ref null $Node)))
                                   (field $right (mut (ref null $Node)))))))
  (type $PNode (sub final (struct (field $key i32) (field $left (ref null $PNode)) (field $right (ref null $PNode)))))
  (type $Tree (struct (field $root (mut (ref null $Node))) (field $size (mut i32))))
  (type $Acc (struct (field $h (mut i32)) (field $last (mut i32)) (field $sorted (mut i32))))

  ;; the i-th key of the sequence x' = (1103515245 x + 12345) mod 2^31, x0 = 42
  (func $keys (param $n i32) (param $mod i32) (param $t (ref $Tree))
    (local $x i32)
    (local $i i32)
    (local.set $x (i32.const 42))
    (loop $each
      (local.set $x (i32.and (i32.add (i32.mul (local.get $x) (i32.const 1103515245)) (i32.const 12345))
                             (i32.const 0x7fffffff)))
      (call $insert (local.get $t) (i32.rem_u (local.get $x) (local.get $mod)))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n)))))

  (func $insert (param $t (ref $Tree)) (param $k i32)
    (local $n (ref null $Node))
    (local $p (ref $Node))
    (local $new (ref $Node))
    (local.set $new (struct.new $Node (local.get $k) (ref.null none) (ref.null none)))
    (local.set $n (struct.get $Tree $root (local.get $t)))
    (if (ref.is_null (local.get $n))
      (then (struct.set $Tree $root (local.get $t) (local.get $new))
            (struct.set $Tree $size (local.get $t) (i32.const 1))
            (return)))
    (loop $down
      (local.set $p (ref.as_non_null (local.get $n)))
      (if (i32.eq (local.get $k) (struct.get $Node $key (local.get $p))) (then (return)))
      (if (i32.lt_s (local.get $k) (struct.get $Node $key (local.get $p)))
        (then
          (local.set $n (struct.get $Node $left (local.get $p)))
          (if (ref.is_null (local.get $n))
            (then (struct.set $Node $left (local.get $p) (local.get $new)))))
        (else
          (local.set $n (struct.get $Node $right (local.get $p)))
          (if (ref.is_null (local.get $n))
            (then (struct.set $Node $right (local.get $p) (local.get $new))))))
      (br_if $down (i32.eqz (ref.is_null (local.get $n)))))
    (struct.set $Tree $size (local.get $t) (i32.add (struct.get $Tree $size (local.get $t)) (i32.const 1))))

  (func $tree (result (ref $Tree))
    (local $t (ref $Tree))
    (local.set $t (struct.new $Tree (ref.null none) (i32.const 0)))
    (call $keys (i32.const 200) (i32.const 1000) (local.get $t))
    (local.get $t))

  (func $sum (param $n (ref null $Node)) (result i64)
    (if (ref.is_null (local.get $n)) (then (return (i64.const 0))))
    (i64.add (i64.extend_i32_s (struct.get $Node $key (local.get $n)))
      (i64.add (call $sum (struct.get $Node $left (local.get $n))) (call $sum (struct.get $Node $right (local.get $n))))))

  (func $height (param $n (ref null $Node)) (result i32)
    (local $l i32)
    (local $r i32)
    (if (ref.is_null (local.get $n)) (then (return (i32.const 0))))
    (local.set $l (call $height (struct.get $Node $left (local.get $n))))
    (local.set $r (call $height (struct.get $Node $right (local.get $n))))
    (i32.add (i32.const 1) (select (local.get $l) (local.get $r) (i32.gt_u (local.get $l) (local.get $r)))))

  ;; in order: h = h*31 + key; sorted stays 1 while keys grow (or, with
  ;; $desc, shrink)
  (func $inorder (param $n (ref null $Node)) (param $acc (ref $Acc)) (param $desc i32)
    (local $node (ref $Node))
    (local $k i32)
    (local.set $node (br_on_null 0 (local.get $n)))
    (call $inorder (struct.get $Node $left (local.get $node)) (local.get $acc) (local.get $desc))
    (local.set $k (struct.get $Node $key (local.get $node)))
    (struct.set $Acc $h (local.get $acc)
      (i32.add (i32.mul (struct.get $Acc $h (local.get $acc)) (i32.const 31)) (local.get $k)))
    (if (i32.xor (i32.le_s (local.get $k) (struct.get $Acc $last (local.get $acc))) (local.get $desc))
      (then (struct.set $Acc $sorted (local.get $acc) (i32.const 0))))
    (struct.set $Acc $last (local.get $acc) (local.get $k))
    (call $inorder (struct.get $Node $right (local.get $node)) (local.get $acc) (local.get $desc)))

  (func $count_range (param $n (ref null $Node)) (param $lo i32) (param $hi i32) (result i32)
    (local $k i32)
    (if (ref.is_null (local.get $n)) (then (return (i32.const 0))))
    (local.set $k (struct.get $Node $key (local.get $n)))
    (i32.add
      (i32.and (i32.ge_s (local.get $k) (local.get $lo)) (i32.lt_s (local.get $k) (local.get $hi)))
      (i32.add
        (if (result i32) (i32.gt_s (local.get $k) (local.get $lo))
          (then (call $count_range (struct.get $Node $left (local.get $n)) (local.get $lo) (local.get $hi)))
          (else (i32.const 0)))
        (if (result i32) (i32.lt_s (local.get $k) (i32.sub (local.get $hi) (i32.const 1)))
          (then (call $count_range (struct.get $Node $right (local.get $n)) (local.get $lo) (local.get $hi)))
          (else (i32.const 0))))))

  (func $mirror (param $n (ref null $Node))
    (local $node (ref $Node))
    (local $t (ref null $Node))
    (local.set $node (br_on_null 0 (local.get $n)))
    (local.set $t (struct.get $Node $left (local.get $node)))
    (struct.set $Node $left (local.get $node) (struct.get $Node $right (local.get $node)))
    (struct.set $Node $right (local.get $node) (local.get $t))
    (call $mirror (struct.get $Node $left (local.get $node)))
    (call $mirror (struct.get $Node $right (local.get $node))))

  ;; unlinks the smallest key and returns it
  (func $delete_min (param $t (ref $Tree)) (result i32)
    (local $p (ref null $Node))
    (local $n (ref $Node))
    (local.set $n (ref.as_non_null (struct.get $Tree $root (local.get $t))))
    (block $found
      (loop $left
        (br_if $found (ref.is_null (struct.get $Node $left (local.get $n))))
        (local.set $p (local.get $n))
        (local.set $n (ref.as_non_null (struct.get $Node $left (local.get $n))))
        (br $left)))
    (if (ref.is_null (local.get $p))
      (then (struct.set $Tree $root (local.get $t) (struct.get $Node $right (local.get $n))))
      (else (struct.set $Node $left (local.get $p) (struct.get $Node $right (local.get $n)))))
    (struct.set $Tree $size (local.get $t) (i32.sub (struct.get $Tree $size (local.get $t)) (i32.const 1)))
    (struct.get $Node $key (local.get $n)))

  ;; persistent insert: new nodes on the path, the rest shared
  (func $pinsert (param $n (ref null $PNode)) (param $k i32) (result (ref $PNode))
    (local $node (ref $PNode))
    (local $nk i32)
    (local.set $node (block $null (result (ref $PNode))
      (br_on_non_null $null (local.get $n))
      (return (struct.new $PNode (local.get $k) (ref.null none) (ref.null none)))))
    (local.set $nk (struct.get $PNode $key (local.get $node)))
    (if (i32.eq (local.get $k) (local.get $nk)) (then (return (local.get $node))))
    (if (result (ref $PNode)) (i32.lt_s (local.get $k) (local.get $nk))
      (then (struct.new $PNode (local.get $nk)
              (call $pinsert (struct.get $PNode $left (local.get $node)) (local.get $k))
              (struct.get $PNode $right (local.get $node))))
      (else (struct.new $PNode (local.get $nk)
              (struct.get $PNode $left (local.get $node))
              (call $pinsert (struct.get $PNode $right (local.get $node)) (local.get $k))))))

  (func $psize (param $n (ref null $PNode)) (result i32)
    (if (ref.is_null (local.get $n)) (then (return (i32.const 0))))
    (i32.add (i32.const 1) (i32.add (call $psize (struct.get $PNode $left (local.get $n)))
                                    (call $psize (struct.get $PNode $right (local.get $n))))))

  ;; the nodes of $b that are not the very node at the same place in $a
  (func $unshared (param $a (ref null $PNode)) (param $b (ref null $PNode)) (result i32)
    (if (ref.is_null (local.get $b)) (then (return (i32.const 0))))
    (if (ref.eq (local.get $a) (local.get $b)) (then (return (i32.const 0))))
    (if (ref.is_null (local.get $a)) (then (return (call $psize (local.get $b)))))
    (i32.add (i32.const 1)
      (i32.add (call $unshared (struct.get $PNode $left (local.get $a)) (struct.get $PNode $left (local.get $b)))
               (call $unshared (struct.get $PNode $right (local.get $a)) (struct.get $PNode $right (local.get $b))))))

  ;; count * 10^9 + the keys' sum
  (func $size_sum (result i64)
    (local $t (ref $Tree))
    (local.set $t (call $tree))
    (i64.add (i64.mul (i64.extend_i32_u (struct.get $Tree $size (local.get $t))) (i64.const 1000000000))
             (call $sum (struct.get $Tree $root (local.get $t)))))

  (func $height_export (result i32)
    (call $height (struct.get $Tree $root (call $tree))))

  (func $inorder_hash (result i32)
    (local $acc (ref $Acc))
    (local.set $acc (struct.new $Acc (i32.const 0) (i32.const -1) (i32.const 1)))
    (call $inorder (struct.get $Tree $root (call $tree)) (local.get $acc) (i32.const 0))
    (i32.mul (struct.get $Acc $h (local.get $acc)) (struct.get $Acc $sorted (local.get $acc))))

  (func $range_count (result i32)
    (call $count_range (struct.get $Tree $root (call $tree)) (i32.const 250) (i32.const 500)))

  ;; mirrored: in order descending, same height, same hash reversed order
  (func $mirror_check (result i32)
    (local $t (ref $Tree))
    (local $h i32)
    (local $acc (ref $Acc))
    (local.set $t (call $tree))
    (local.set $h (call $height (struct.get $Tree $root (local.get $t))))
    (call $mirror (struct.get $Tree $root (local.get $t)))
    (local.set $acc (struct.new $Acc (i32.const 0) (i32.const 100000) (i32.const 1)))
    (call $inorder (struct.get $Tree $root (local.get $t)) (local.get $acc) (i32.const 1))
    (i32.and (struct.get $Acc $sorted (local.get $acc))
             (i32.eq (local.get $h) (call $height (struct.get $Tree $root (local.get $t))))))

  ;; 100 LCG keys mod 500 into a persistent tree, then 250 inserted into
  ;; that version: size before * 10000 + size after * 100 + nodes copied
  (func $persistent_share (result i32)
    (local $v1 (ref null $PNode))
    (local $v2 (ref $PNode))
    (local $x i32)
    (local $i i32)
    (local.set $x (i32.const 42))
    (loop $each
      (local.set $x (i32.and (i32.add (i32.mul (local.get $x) (i32.const 1103515245)) (i32.const 12345))
                             (i32.const 0x7fffffff)))
      (local.set $v1 (call $pinsert (local.get $v1) (i32.rem_u (local.get $x) (i32.const 500))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 100))))
    (local.set $v2 (call $pinsert (local.get $v1) (i32.const 250)))
    (i32.add (i32.mul (call $psize (local.get $v1)) (i32.const 10000))
      (i32.add (i32.mul (call $psize (local.get $v2)) (i32.const 100))
               (call $unshared (local.get $v1) (local.get $v2)))))

  (func $delete_min_sum (result i32)
    (local $t (ref $Tree))
    (local $s i32)
    (local $i i32)
    (local.set $t (call $tree))
    (loop $each
      (local.set $s (i32.add (local.get $s) (call $delete_min (local.get $t))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 10))))
    (local.get $s))

  (export "size_sum" (func $size_sum))
  (export "height" (func $height_export))
  (export "inorder_hash" (func $inorder_hash))
  (export "range_count" (func $range_count))
  (export "mirror_check" (func $mirror_check))
  (export "persistent_share" (func $persistent_share))
  (export "delete_min_sum" (func $delete_min_sum))
)
