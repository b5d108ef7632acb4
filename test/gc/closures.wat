;; closures.wat — closures as dart2wasm and functional-language backends
;; build them: a closure is a struct whose first field is a typed function
;; reference taking the closure itself (its context) as first parameter;
;; each kind of closure is a final subtype carrying its captured values;
;; captured mutable variables live in shared boxes; a recursive local
;; function closes over itself through a field set after allocation
;; (letrec). Function types form their own subtype hierarchy (covariant
;; results, contravariant parameters), tested with ref.test on funcrefs.
;; The functions are only referenced by ref.func in code: (elem declare).
;;
;; expect: apply_add => 15
;; expect: compose_chain => 140
;; expect: counter => 3165
;; expect: map_fold => 2870
;; expect: curry => 357
;; expect: letrec_fib => 6765
;; expect: func_subtyping => 31
(module
  (rec
    (type $Closure (sub (struct (field $fn (ref $Fn1)))))
    (type $Fn1 (func (param (ref $Closure) i32) (result i32)))
    (type $AddN (sub final $Closure (struct (field $fn (ref $Fn1)) (field $n i32))))
    (type $MulN (sub final $Closure (struct (field $fn (ref $Fn1)) (field $n i32))))
    (type $Compose (sub final $Closure (struct (field $fn (ref $Fn1)) (field $f (ref $Closure)) (field $g (ref $Closure)))))
    (type $Box (struct (field $v (mut i32))))
    (type $Counter (sub final $Closure (struct (field $fn (ref $Fn1)) (field $box (ref $Box)))))
    (type $Rec (sub final $Closure (struct (field $fn (ref $Fn1)) (field $self (mut (ref null $Closure))))))
    (type $Closure2 (sub (struct (field $fn (ref $Fn2)))))
    (type $Fn2 (func (param (ref $Closure2) i32 i32) (result i32)))
    (type $Curried (sub (struct (field $fn (ref $FnC)) (field $acc i32))))
    (type $FnC (func (param (ref $Curried) i32) (result (ref $Closure)))))
  (type $Ints (array (mut i32)))
  ;; function subtyping: results covariant, parameters contravariant
  (type $Getter (sub (func (param (ref $AddN)) (result (ref null $Closure)))))
  (type $GetterNarrow (sub $Getter (func (param (ref $Closure)) (result (ref $AddN)))))
  (type $GetterFinal (sub final $GetterNarrow (func (param (ref $Closure)) (result (ref $AddN)))))

  (elem declare func $add_n $mul_n $compose $count $fib $sum2 $curry_step $get_wide $get_narrow $get_final)

  (func $apply (param $c (ref $Closure)) (param $x i32) (result i32)
    (call_ref $Fn1 (local.get $c) (local.get $x) (struct.get $Closure $fn (local.get $c))))

  (func $add_n (type $Fn1)
    (i32.add (local.get 1) (struct.get $AddN $n (ref.cast (ref $AddN) (local.get 0)))))
  (func $mul_n (type $Fn1)
    (i32.mul (local.get 1) (struct.get $MulN $n (ref.cast (ref $MulN) (local.get 0)))))
  ;; f(g(x))
  (func $compose (type $Fn1)
    (local $c (ref $Compose))
    (local.set $c (ref.cast (ref $Compose) (local.get 0)))
    (call $apply (struct.get $Compose $f (local.get $c))
      (call $apply (struct.get $Compose $g (local.get $c)) (local.get 1))))
  ;; box += x; returns the new value
  (func $count (type $Fn1)
    (local $b (ref $Box))
    (local.set $b (struct.get $Counter $box (ref.cast (ref $Counter) (local.get 0))))
    (struct.set $Box $v (local.get $b) (i32.add (struct.get $Box $v (local.get $b)) (local.get 1)))
    (struct.get $Box $v (local.get $b)))
  ;; fib through the closure's reference to itself
  (func $fib (type $Fn1)
    (local $self (ref $Closure))
    (local.set $self (ref.as_non_null (struct.get $Rec $self (ref.cast (ref $Rec) (local.get 0)))))
    (if (result i32) (i32.lt_s (local.get 1) (i32.const 2))
      (then (local.get 1))
      (else (i32.add (call $apply (local.get $self) (i32.sub (local.get 1) (i32.const 1)))
                     (call $apply (local.get $self) (i32.sub (local.get 1) (i32.const 2)))))))
  (func $sum2 (type $Fn2) (i32.add (local.get 1) (local.get 2)))
  ;; a Curried with acc a, given b, makes AddN((a + b) * 10)
  (func $curry_step (type $FnC)
    (struct.new $AddN (ref.func $add_n)
      (i32.mul (i32.add (struct.get $Curried $acc (local.get 0)) (local.get 1)) (i32.const 10))))

  (func $add (param $n i32) (result (ref $AddN)) (struct.new $AddN (ref.func $add_n) (local.get $n)))
  (func $mul (param $n i32) (result (ref $MulN)) (struct.new $MulN (ref.func $mul_n) (local.get $n)))
  (func $compose_of (param $f (ref $Closure)) (param $g (ref $Closure)) (result (ref $Compose))
    (struct.new $Compose (ref.func $compose) (local.get $f) (local.get $g)))

  (func $apply_add (result i32)
    (call $apply (call $add (i32.const 5)) (i32.const 10)))

  ;; (x + 1) * 2 + 3 summed over 0..9
  (func $compose_chain (result i32)
    (local $c (ref $Closure))
    (local $i i32)
    (local $s i32)
    (local.set $c (call $compose_of (call $add (i32.const 3))
                                    (call $compose_of (call $mul (i32.const 2)) (call $add (i32.const 1)))))
    (loop $each
      (local.set $s (i32.add (local.get $s) (call $apply (local.get $c) (local.get $i))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 10))))
    (local.get $s))

  ;; two closures over one box: in round i (1..10) a adds i, b adds 100;
  ;; b's last result (55 + 1000) + the box * 2 (2110)
  (func $counter (result i32)
    (local $box (ref $Box))
    (local $a (ref $Closure))
    (local $b (ref $Closure))
    (local $i i32)
    (local $last i32)
    (local.set $box (struct.new $Box (i32.const 0)))
    (local.set $a (struct.new $Counter (ref.func $count) (local.get $box)))
    (local.set $b (struct.new $Counter (ref.func $count) (local.get $box)))
    (loop $each
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (drop (call $apply (local.get $a) (local.get $i)))
      (local.set $last (call $apply (local.get $b) (i32.const 100)))
      (br_if $each (i32.lt_u (local.get $i) (i32.const 10))))
    (i32.add (local.get $last) (i32.mul (struct.get $Box $v (local.get $box)) (i32.const 2))))

  (func $map (param $a (ref $Ints)) (param $f (ref $Closure))
    (local $i i32)
    (loop $each
      (array.set $Ints (local.get $a) (local.get $i)
        (call $apply (local.get $f) (array.get $Ints (local.get $a) (local.get $i))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $a))))))
  (func $fold (param $a (ref $Ints)) (param $f (ref $Closure2)) (param $init i32) (result i32)
    (local $i i32)
    (loop $each
      (local.set $init (call_ref $Fn2 (local.get $f) (local.get $init) (array.get $Ints (local.get $a) (local.get $i))
                         (struct.get $Closure2 $fn (local.get $f))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $a)))))
    (local.get $init))

  ;; 1..20, each x squared by a MulN(x) made for it, mapped by AddN(0),
  ;; folded by a two-argument closure: the sum of the squares
  (func $map_fold (result i32)
    (local $a (ref $Ints))
    (local $i i32)
    (local.set $a (array.new_default $Ints (i32.const 20)))
    (loop $fill
      (array.set $Ints (local.get $a) (local.get $i) (i32.add (local.get $i) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 20))))
    (local.set $i (i32.const 0))
    (loop $sq
      (array.set $Ints (local.get $a) (local.get $i)
        (call $apply (call $mul (array.get $Ints (local.get $a) (local.get $i))) (array.get $Ints (local.get $a) (local.get $i))))
      (br_if $sq (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 20))))
    (call $map (local.get $a) (call $add (i32.const 0)))
    (call $fold (local.get $a) (struct.new $Closure2 (ref.func $sum2)) (i32.const 0)))

  ;; Curried(30) given 5 makes AddN(350); applied to 7: 357
  (func $curry (result i32)
    (local $c (ref $Curried))
    (local.set $c (struct.new $Curried (ref.func $curry_step) (i32.const 30)))
    (call $apply (call_ref $FnC (local.get $c) (i32.const 5) (struct.get $Curried $fn (local.get $c)))
                 (i32.const 7)))

  (func $letrec_fib (result i32)
    (local $r (ref $Rec))
    (local.set $r (struct.new $Rec (ref.func $fib) (ref.null none)))
    (struct.set $Rec $self (local.get $r) (local.get $r))
    (call $apply (local.get $r) (i32.const 20)))

  (func $get_wide (type $Getter) (local.get 0))
  (func $get_narrow (type $GetterNarrow) (call $add (i32.const 1)))
  (func $get_final (type $GetterFinal) (call $add (i32.const 2)))

  ;; bit 0: get_narrow is a Getter; bit 1: get_final a GetterNarrow; bit 2:
  ;; get_wide is not a GetterNarrow (so 0 there, inverted to 1); bit 3: a
  ;; Getter call to get_final returns an AddN; bit 4: a funcref holding
  ;; $add_n is an Fn1
  (func $func_subtyping (result i32)
    (local $f funcref)
    (local $g (ref $Getter))
    (local.set $f (ref.func $get_final))
    (local.set $g (ref.cast (ref $Getter) (local.get $f)))
    (i32.or
      (i32.or (ref.test (ref $Getter) (ref.func $get_narrow))
              (i32.shl (ref.test (ref $GetterNarrow) (local.get $f)) (i32.const 1)))
      (i32.or
        (i32.shl (i32.eqz (ref.test (ref $GetterNarrow) (ref.func $get_wide))) (i32.const 2))
        (i32.or (i32.shl (ref.test (ref $AddN) (call_ref $Getter (call $add (i32.const 9)) (local.get $g)))
                         (i32.const 3))
                (i32.shl (ref.test (ref $Fn1) (ref.func $add_n)) (i32.const 4))))))

  (export "apply_add" (func $apply_add))
  (export "compose_chain" (func $compose_chain))
  (export "counter" (func $counter))
  (export "map_fold" (func $map_fold))
  (export "curry" (func $curry))
  (export "letrec_fib" (func $letrec_fib))
  (export "func_subtyping" (func $func_subtyping))
)
