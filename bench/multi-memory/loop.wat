;; loop.wat — a load/add/store/load loop over 1 MB of memory $b (bench/multi-memory/run.py
;; also runs it with every access on memory $a, the one the JIT keeps in r13).
(module
  (memory $a 16)
  (memory $b 16)
  (func (export "run") (param $n i32) (result i32)
    (local $i i32) (local $s i32) (local $k i32)
    (loop $outer
      (local.set $i (i32.const 0))
      (loop $inner
        (i32.store $b (local.get $i) (i32.add (i32.load $b (local.get $i)) (local.get $k)))
        (local.set $s (i32.add (local.get $s) (i32.load $b offset=4 (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br_if $inner (i32.lt_u (local.get $i) (i32.const 1048000))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $outer (i32.lt_u (local.get $k) (local.get $n))))
    (local.get $s)))
