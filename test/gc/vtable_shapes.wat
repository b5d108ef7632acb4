;; vtable_shapes.wat — virtual dispatch as J2CL and dart2wasm emit it: every
;; object's first field is its class's vtable, a struct of typed function
;; references; subclasses extend both the object struct and the vtable
;; struct (`sub`), override methods by putting other functions in their
;; vtable, and methods take the base type and ref.cast `this`. The vtables
;; are immutable globals initialized with struct.new of ref.func; calls go
;; through struct.get + call_ref. One call site only ever sees Circles
;; (what --closed-world devirtualizes).
;;
;; Shapes i = 0..8 (id i): i%3 == 0 a Circle of radius i+1, i%3 == 1 a
;; Rect (i+1) x (i+2)/2, i%3 == 2 a Square of side i+1.
;;
;; expect: total_area => 387.3451151369263
;; expect: total_perimeter => 195.39822368615503
;; expect: hash_sum => 5115
;; expect: scaled_area_ratio => 4
;; expect: kinds => 30603
;; expect: circle_only => 314159
;; expect: area_bits => 387345
(module
  (rec
    (type $Object (sub (struct (field $vt (ref $ObjectVT)))))
    (type $ObjectVT (sub (struct (field $hashCode (ref $hash_sig)))))
    (type $hash_sig (func (param (ref $Object)) (result i32)))
    (type $Shape (sub $Object (struct (field $vt (ref $ShapeVT)) (field $id i32))))
    (type $ShapeVT (sub final $ObjectVT (struct (field $hashCode (ref $hash_sig))
                                                (field $area (ref $measure_sig))
                                                (field $perimeter (ref $measure_sig))
                                                (field $scale (ref $scale_sig)))))
    (type $measure_sig (func (param (ref $Shape)) (result f64)))
    (type $scale_sig (func (param (ref $Shape) f64)))
    (type $Circle (sub final $Shape (struct (field $vt (ref $ShapeVT)) (field $id i32) (field $r (mut f64)))))
    (type $Rect (sub $Shape (struct (field $vt (ref $ShapeVT)) (field $id i32)
                                    (field $w (mut f64)) (field $h (mut f64)))))
    (type $Square (sub final $Rect (struct (field $vt (ref $ShapeVT)) (field $id i32)
                                           (field $w (mut f64)) (field $h (mut f64))))))
  (type $Shapes (array (mut (ref null $Shape))))

  (global $pi f64 (f64.const 3.141592653589793))
  (global $Circle.vt (ref $ShapeVT)
    (struct.new $ShapeVT (ref.func $Circle.hashCode) (ref.func $Circle.area)
                         (ref.func $Circle.perimeter) (ref.func $Circle.scale)))
  (global $Rect.vt (ref $ShapeVT)
    (struct.new $ShapeVT (ref.func $Shape.hashCode) (ref.func $Rect.area)
                         (ref.func $Rect.perimeter) (ref.func $Rect.scale)))
  ;; Square inherits Rect's area and scale, overrides perimeter and hashCode
  (global $Square.vt (ref $ShapeVT)
    (struct.new $ShapeVT (ref.func $Square.hashCode) (ref.func $Rect.area)
                         (ref.func $Square.perimeter) (ref.func $Rect.scale)))

  (func $Shape.hashCode (type $hash_sig)
    (i32.add (i32.mul (struct.get $Shape $id (ref.cast (ref $Shape) (local.get 0))) (i32.const 31))
             (i32.const 7)))
  (func $Circle.hashCode (type $hash_sig)
    (i32.xor (i32.trunc_f64_s (f64.mul (struct.get $Circle $r (ref.cast (ref $Circle) (local.get 0)))
                                       (f64.const 100)))
             (call $Shape.hashCode (local.get 0))))
  ;; a Square is a Rect: call the super method, then mix
  (func $Square.hashCode (type $hash_sig)
    (i32.add (call $Shape.hashCode (local.get 0)) (i32.const 1000)))

  (func $Circle.area (type $measure_sig)
    (local $c (ref $Circle))
    (local.set $c (ref.cast (ref $Circle) (local.get 0)))
    (f64.mul (global.get $pi)
             (f64.mul (struct.get $Circle $r (local.get $c)) (struct.get $Circle $r (local.get $c)))))
  (func $Circle.perimeter (type $measure_sig)
    (f64.mul (f64.mul (f64.const 2) (global.get $pi))
             (struct.get $Circle $r (ref.cast (ref $Circle) (local.get 0)))))
  (func $Circle.scale (type $scale_sig)
    (local $c (ref $Circle))
    (local.set $c (ref.cast (ref $Circle) (local.get 0)))
    (struct.set $Circle $r (local.get $c) (f64.mul (struct.get $Circle $r (local.get $c)) (local.get 1))))
  (func $Rect.area (type $measure_sig)
    (local $r (ref $Rect))
    (local.set $r (ref.cast (ref $Rect) (local.get 0)))
    (f64.mul (struct.get $Rect $w (local.get $r)) (struct.get $Rect $h (local.get $r))))
  (func $Rect.perimeter (type $measure_sig)
    (local $r (ref $Rect))
    (local.set $r (ref.cast (ref $Rect) (local.get 0)))
    (f64.mul (f64.const 2) (f64.add (struct.get $Rect $w (local.get $r)) (struct.get $Rect $h (local.get $r)))))
  (func $Rect.scale (type $scale_sig)
    (local $r (ref $Rect))
    (local.set $r (ref.cast (ref $Rect) (local.get 0)))
    (struct.set $Rect $w (local.get $r) (f64.mul (struct.get $Rect $w (local.get $r)) (local.get 1)))
    (struct.set $Rect $h (local.get $r) (f64.mul (struct.get $Rect $h (local.get $r)) (local.get 1))))
  (func $Square.perimeter (type $measure_sig)
    (f64.mul (f64.const 4) (struct.get $Square $w (ref.cast (ref $Square) (local.get 0)))))

  (func $make (param $i i32) (result (ref $Shape))
    (local $k i32)
    (local $x f64)
    (local.set $k (i32.rem_u (local.get $i) (i32.const 3)))
    (local.set $x (f64.convert_i32_u (i32.add (local.get $i) (i32.const 1))))
    (if (result (ref $Shape)) (i32.eqz (local.get $k))
      (then (struct.new $Circle (global.get $Circle.vt) (local.get $i) (local.get $x)))
      (else
        (if (result (ref $Shape)) (i32.eq (local.get $k) (i32.const 1))
          (then (struct.new $Rect (global.get $Rect.vt) (local.get $i) (local.get $x)
                  (f64.div (f64.convert_i32_u (i32.add (local.get $i) (i32.const 2))) (f64.const 2))))
          (else (struct.new $Square (global.get $Square.vt) (local.get $i) (local.get $x) (local.get $x)))))))

  (func $shapes (result (ref $Shapes))
    (local $a (ref $Shapes))
    (local $i i32)
    (local.set $a (array.new_default $Shapes (i32.const 9)))
    (loop $fill
      (array.set $Shapes (local.get $a) (local.get $i) (call $make (local.get $i)))
      (br_if $fill (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 9))))
    (local.get $a))

  ;; the virtual calls
  (func $area (param $s (ref $Shape)) (result f64)
    (call_ref $measure_sig (local.get $s)
      (struct.get $ShapeVT $area (struct.get $Shape $vt (local.get $s)))))
  (func $perimeter (param $s (ref $Shape)) (result f64)
    (call_ref $measure_sig (local.get $s)
      (struct.get $ShapeVT $perimeter (struct.get $Shape $vt (local.get $s)))))
  (func $hash (param $o (ref $Object)) (result i32)
    (call_ref $hash_sig (local.get $o)
      (struct.get $ObjectVT $hashCode (struct.get $Object $vt (local.get $o)))))

  (func $sum (param $a (ref $Shapes)) (param $which i32) (result f64)
    (local $i i32)
    (local $s f64)
    (loop $each
      (local.set $s (f64.add (local.get $s)
        (if (result f64) (local.get $which)
          (then (call $perimeter (ref.as_non_null (array.get $Shapes (local.get $a) (local.get $i)))))
          (else (call $area (ref.as_non_null (array.get $Shapes (local.get $a) (local.get $i))))))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1)))
                             (array.len (local.get $a)))))
    (local.get $s))

  (func $total_area (result f64) (call $sum (call $shapes) (i32.const 0)))
  (func $total_perimeter (result f64) (call $sum (call $shapes) (i32.const 1)))

  (func $hash_sum (result i32)
    (local $a (ref $Shapes))
    (local $i i32)
    (local $h i32)
    (local.set $a (call $shapes))
    (loop $each
      (local.set $h (i32.add (local.get $h)
        (call $hash (ref.as_non_null (array.get $Shapes (local.get $a) (local.get $i))))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 9))))
    (local.get $h))

  ;; every shape scaled by 2 through its vtable: the area grows 4 times
  (func $scaled_area_ratio (result f64)
    (local $a (ref $Shapes))
    (local $i i32)
    (local $before f64)
    (local $s (ref $Shape))
    (local.set $a (call $shapes))
    (local.set $before (call $sum (local.get $a) (i32.const 0)))
    (loop $each
      (local.set $s (ref.as_non_null (array.get $Shapes (local.get $a) (local.get $i))))
      (call_ref $scale_sig (local.get $s) (f64.const 2)
        (struct.get $ShapeVT $scale (struct.get $Shape $vt (local.get $s))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 9))))
    (f64.div (call $sum (local.get $a) (i32.const 0)) (local.get $before)))

  ;; circles * 10000 + rects (squares included) * 100 + squares
  (func $kinds (result i32)
    (local $a (ref $Shapes))
    (local $i i32)
    (local $n i32)
    (local $s (ref null $Shape))
    (local.set $a (call $shapes))
    (loop $each
      (local.set $s (array.get $Shapes (local.get $a) (local.get $i)))
      (local.set $n (i32.add (local.get $n)
        (i32.add (i32.mul (ref.test (ref $Circle) (local.get $s)) (i32.const 10000))
          (i32.add (i32.mul (ref.test (ref $Rect) (local.get $s)) (i32.const 100))
                   (ref.test (ref $Square) (local.get $s))))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 9))))
    (local.get $n))

  ;; a call site that only ever sees a Circle of radius 10
  (func $circle_only (result i32)
    (i32.trunc_f64_s (f64.mul (call $area (struct.new $Circle (global.get $Circle.vt) (i32.const 0) (f64.const 10)))
                              (f64.const 1000))))

  (func $area_bits (result i64)
    (i64.trunc_f64_s (f64.mul (call $sum (call $shapes) (i32.const 0)) (f64.const 1000))))

  (export "total_area" (func $total_area))
  (export "total_perimeter" (func $total_perimeter))
  (export "hash_sum" (func $hash_sum))
  (export "scaled_area_ratio" (func $scaled_area_ratio))
  (export "kinds" (func $kinds))
  (export "circle_only" (func $circle_only))
  (export "area_bits" (func $area_bits))
)
