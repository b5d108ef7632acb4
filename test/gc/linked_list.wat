;; linked_list.wat — a singly linked list of i32 cells, the shape a List /
;; cons cell compiles to in J2CL, dart2wasm and Kotlin/Wasm: a final struct
;; with a mutable value and a mutable nullable `next`. Walked with br_on_null
;; and br_on_non_null (into a loop that takes a (ref $Node) parameter),
;; reversed and filtered in place by relinking, cycles found by ref.eq
;; (Floyd), and one export that walks off the end and traps on a null.
;; Every export builds its own lists: results do not depend on call order.
;;
;; expect: sum_100 => 5050
;; expect: reverse_digits => 987654321
;; expect: filter_sum_len => 650025
;; expect: last_vals => 3701
;; expect: identity => 5
;; expect: cycle_len => 14
;; expect: null_deref => trap
(module
  (type $Node (sub final (struct (field $val (mut i32)) (field $next (mut (ref null $Node))))))

  ;; 1, 2, ..., n (built back to front by prepending)
  (func $range (param $n i32) (result (ref null $Node))
    (local $head (ref null $Node))
    (block $done
      (loop $more
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $head (struct.new $Node (local.get $n) (local.get $head)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $more)))
    (local.get $head))

  (func $sum (param $l (ref null $Node)) (result i32)
    (local $s i32)
    (block $done
      (loop $next
        (local.set $s
          (i32.add (local.get $s)
            (struct.get $Node $val (br_on_null $done (local.get $l)))))
        (local.set $l (struct.get $Node $next (local.get $l)))
        (br $next)))
    (local.get $s))

  (func $length (param $l (ref null $Node)) (result i32)
    (local $n i32)
    (block $done
      (loop $next
        (br_if $done (ref.is_null (local.get $l)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (local.set $l (struct.get $Node $next (local.get $l)))
        (br $next)))
    (local.get $n))

  ;; in place: every cell's next flipped
  (func $reverse (param $l (ref null $Node)) (result (ref null $Node))
    (local $prev (ref null $Node))
    (local $cur (ref $Node))
    (block $done
      (loop $next
        (local.set $cur (br_on_null $done (local.get $l)))
        (local.set $l (struct.get $Node $next (local.get $cur)))
        (struct.set $Node $next (local.get $cur) (local.get $prev))
        (local.set $prev (local.get $cur))
        (br $next)))
    (local.get $prev))

  ;; unlinks the cells holding odd values; a sentinel cell heads the list
  (func $drop_odd (param $l (ref null $Node)) (result (ref null $Node))
    (local $sentinel (ref $Node))
    (local $p (ref $Node))
    (local $q (ref null $Node))
    (local.set $sentinel (struct.new $Node (i32.const -1) (local.get $l)))
    (local.set $p (local.get $sentinel))
    (block $done
      (loop $next
        (local.set $q (struct.get $Node $next (local.get $p)))
        (br_if $done (ref.is_null (local.get $q)))
        (if (i32.and (struct.get $Node $val (local.get $q)) (i32.const 1))
          (then (struct.set $Node $next (local.get $p) (struct.get $Node $next (local.get $q))))
          (else (local.set $p (ref.as_non_null (local.get $q)))))
        (br $next)))
    (struct.get $Node $next (local.get $sentinel)))

  ;; the last cell: br_on_non_null back into a loop that takes the cell
  (func $last (param $l (ref $Node)) (result (ref $Node))
    (local.get $l)
    (loop $walk (param (ref $Node)) (result (ref $Node))
      (local.set $l)
      (br_on_non_null $walk (struct.get $Node $next (local.get $l)))
      (local.get $l)))

  ;; the i-th cell (0-based); past the end this reads next of null and traps
  (func $nth (param $l (ref null $Node)) (param $i i32) (result (ref null $Node))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $i)))
        (local.set $l (struct.get $Node $next (local.get $l)))
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $l))

  (func $sum_100 (result i32)
    (call $sum (call $range (i32.const 100))))

  ;; 1..9 reversed, folded as decimal digits
  (func $reverse_digits (result i32)
    (local $l (ref null $Node))
    (local $acc i32)
    (local.set $l (call $reverse (call $range (i32.const 9))))
    (block $done
      (loop $next
        (local.set $acc
          (i32.add (i32.mul (local.get $acc) (i32.const 10))
            (struct.get $Node $val (br_on_null $done (local.get $l)))))
        (local.set $l (struct.get $Node $next (local.get $l)))
        (br $next)))
    (local.get $acc))

  ;; evens of 1..50: sum 650, 25 cells
  (func $filter_sum_len (result i32)
    (local $l (ref null $Node))
    (local.set $l (call $drop_odd (call $range (i32.const 50))))
    (i32.add (i32.mul (call $sum (local.get $l)) (i32.const 1000))
             (call $length (local.get $l))))

  ;; last of 1..37 is 37; after reversing the same cells, 1
  (func $last_vals (result i32)
    (local $l (ref null $Node))
    (local $a i32)
    (local.set $l (call $range (i32.const 37)))
    (local.set $a (struct.get $Node $val (call $last (ref.as_non_null (local.get $l)))))
    (local.set $l (call $reverse (local.get $l)))
    (i32.add (i32.mul (local.get $a) (i32.const 100))
             (struct.get $Node $val (call $last (ref.as_non_null (local.get $l))))))

  ;; bit 0: a cell is itself; bit 1: an equal-valued new cell is not it;
  ;; bit 2: two nulls are equal; bit 3: neighbours differ
  (func $identity (result i32)
    (local $l (ref null $Node))
    (local $c (ref null $Node))
    (local.set $l (call $range (i32.const 10)))
    (local.set $c (call $nth (local.get $l) (i32.const 3)))
    (i32.or
      (i32.or (ref.eq (local.get $c) (call $nth (local.get $l) (i32.const 3)))
              (i32.shl (ref.eq (local.get $c) (struct.new $Node (i32.const 4) (ref.null none))) (i32.const 1)))
      (i32.or (i32.shl (ref.eq (ref.null $Node) (ref.null none)) (i32.const 2))
              (i32.shl (ref.eq (local.get $c) (call $nth (local.get $l) (i32.const 4))) (i32.const 3)))))

  ;; 1..20 with 20's next set to 7: Floyd's tortoise and hare meet inside
  ;; the cycle, then one lap counts it (7..20: 14 cells)
  (func $cycle_len (result i32)
    (local $l (ref null $Node))
    (local $slow (ref null $Node))
    (local $fast (ref null $Node))
    (local $n i32)
    (local.set $l (call $range (i32.const 20)))
    (struct.set $Node $next (call $last (ref.as_non_null (local.get $l)))
      (call $nth (local.get $l) (i32.const 6)))
    (local.set $slow (local.get $l))
    (local.set $fast (local.get $l))
    (loop $meet
      (local.set $slow (struct.get $Node $next (local.get $slow)))
      (local.set $fast (struct.get $Node $next (struct.get $Node $next (local.get $fast))))
      (br_if $meet (i32.eqz (ref.eq (local.get $slow) (local.get $fast)))))
    (loop $lap
      (local.set $fast (struct.get $Node $next (local.get $fast)))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br_if $lap (i32.eqz (ref.eq (local.get $slow) (local.get $fast)))))
    (local.get $n))

  ;; the 8th cell of a 5-cell list: struct.get on null
  (func $null_deref (result i32)
    (struct.get $Node $val (call $nth (call $range (i32.const 5)) (i32.const 7))))

  (export "sum_100" (func $sum_100))
  (export "reverse_digits" (func $reverse_digits))
  (export "filter_sum_len" (func $filter_sum_len))
  (export "last_vals" (func $last_vals))
  (export "identity" (func $identity))
  (export "cycle_len" (func $cycle_len))
  (export "null_deref" (func $null_deref))
)
