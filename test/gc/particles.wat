;; particles.wat — arrays of structs and arrays of arrays, the data shapes
;; of games and numeric code in Dart/Kotlin: an (array (mut (ref null
;; $Particle))) stepped through a simulation with mutable f64 fields,
;; sorted by swapping references, moved around with overlapping
;; array.copy (memmove semantics in both directions) and array.fill of one
;; shared reference; a matrix as an array of (array (mut i64)) rows;
;; colours as structs of packed i8/i16 fields read signed and unsigned.
;;
;; expect: simulate => 1602.25
;; expect: sort_ids => 1852034876
;; expect: matrix_trace => 33260
;; expect: overlap_copy => 12345945
;; expect: fill_shared => 3
;; expect: colours => 48830
(module
  (type $Colour (sub final (struct (field $r (mut i8)) (field $g (mut i8)) (field $b (mut i8)) (field $alpha i16))))
  (type $Particle (sub final (struct (field $x (mut f64)) (field $y (mut f64))
                                     (field $vx (mut f64)) (field $vy (mut f64))
                                     (field $mass i32) (field $id i32) (field $colour (ref $Colour)))))
  (type $Particles (array (mut (ref null $Particle))))
  (type $Row (array (mut i64)))
  (type $Matrix (array (mut (ref $Row))))

  ;; particle i: at (6i, 100 - 5i), velocity (i - 7.5, 3 - i/4), mass (7i mod 5) + 1
  (func $particle (param $i i32) (result (ref $Particle))
    (local $f f64)
    (local.set $f (f64.convert_i32_s (local.get $i)))
    (struct.new $Particle
      (f64.mul (local.get $f) (f64.const 6))
      (f64.sub (f64.const 100) (f64.mul (local.get $f) (f64.const 5)))
      (f64.sub (local.get $f) (f64.const 7.5))
      (f64.sub (f64.const 3) (f64.div (local.get $f) (f64.const 4)))
      (i32.add (i32.rem_u (i32.mul (local.get $i) (i32.const 7)) (i32.const 5)) (i32.const 1))
      (local.get $i)
      (struct.new $Colour (i32.mul (local.get $i) (i32.const 20)) (i32.const 200)
                          (i32.sub (i32.const 255) (local.get $i)) (i32.const 0xffff))))

  (func $particles (param $n i32) (result (ref $Particles))
    (local $a (ref $Particles))
    (local $i i32)
    (local.set $a (array.new $Particles (ref.null none) (local.get $n)))
    (loop $each
      (array.set $Particles (local.get $a) (local.get $i) (call $particle (local.get $i)))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $a))

  ;; one coordinate: move, and reflect off the walls 0 and 100
  (func $move (param $p (ref $Particle)) (param $dt f64)
    (local $x f64)
    (local $y f64)
    (local.set $x (f64.add (struct.get $Particle $x (local.get $p)) (f64.mul (struct.get $Particle $vx (local.get $p)) (local.get $dt))))
    (local.set $y (f64.add (struct.get $Particle $y (local.get $p)) (f64.mul (struct.get $Particle $vy (local.get $p)) (local.get $dt))))
    (if (i32.or (f64.lt (local.get $x) (f64.const 0)) (f64.gt (local.get $x) (f64.const 100)))
      (then (struct.set $Particle $vx (local.get $p) (f64.neg (struct.get $Particle $vx (local.get $p))))
            (local.set $x (f64.min (f64.max (local.get $x) (f64.const 0)) (f64.const 100)))))
    (if (i32.or (f64.lt (local.get $y) (f64.const 0)) (f64.gt (local.get $y) (f64.const 100)))
      (then (struct.set $Particle $vy (local.get $p) (f64.neg (struct.get $Particle $vy (local.get $p))))
            (local.set $y (f64.min (f64.max (local.get $y) (f64.const 0)) (f64.const 100)))))
    (struct.set $Particle $x (local.get $p) (local.get $x))
    (struct.set $Particle $y (local.get $p) (local.get $y)))

  ;; 16 particles, 60 steps of 0.5: the sum of x + y
  (func $simulate (result f64)
    (local $a (ref $Particles))
    (local $i i32)
    (local $step i32)
    (local $s f64)
    (local $p (ref $Particle))
    (local.set $a (call $particles (i32.const 16)))
    (loop $steps
      (local.set $i (i32.const 0))
      (loop $each
        (call $move (ref.as_non_null (array.get $Particles (local.get $a) (local.get $i))) (f64.const 0.5))
        (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 16))))
      (br_if $steps (i32.lt_u (local.tee $step (i32.add (local.get $step) (i32.const 1))) (i32.const 60))))
    (local.set $i (i32.const 0))
    (loop $sum
      (local.set $p (ref.as_non_null (array.get $Particles (local.get $a) (local.get $i))))
      (local.set $s (f64.add (local.get $s)
        (f64.add (struct.get $Particle $x (local.get $p)) (struct.get $Particle $y (local.get $p)))))
      (br_if $sum (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 16))))
    (local.get $s))

  ;; insertion sort by (mass descending, id ascending), then the ids folded
  ;; as h = h*7 + id
  (func $before (param $a (ref $Particle)) (param $b (ref $Particle)) (result i32)
    (if (result i32) (i32.ne (struct.get $Particle $mass (local.get $a)) (struct.get $Particle $mass (local.get $b)))
      (then (i32.gt_u (struct.get $Particle $mass (local.get $a)) (struct.get $Particle $mass (local.get $b))))
      (else (i32.lt_u (struct.get $Particle $id (local.get $a)) (struct.get $Particle $id (local.get $b))))))

  (func $sort_ids (result i32)
    (local $a (ref $Particles))
    (local $i i32)
    (local $j i32)
    (local $cur (ref $Particle))
    (local $h i32)
    (local.set $a (call $particles (i32.const 12)))
    (local.set $i (i32.const 1))
    (loop $outer
      (local.set $cur (ref.as_non_null (array.get $Particles (local.get $a) (local.get $i))))
      (local.set $j (local.get $i))
      (block $placed
        (loop $shift
          (br_if $placed (i32.eqz (local.get $j)))
          (br_if $placed (i32.eqz (call $before (local.get $cur)
            (ref.as_non_null (array.get $Particles (local.get $a) (i32.sub (local.get $j) (i32.const 1)))))))
          (array.set $Particles (local.get $a) (local.get $j)
            (array.get $Particles (local.get $a) (i32.sub (local.get $j) (i32.const 1))))
          (local.set $j (i32.sub (local.get $j) (i32.const 1)))
          (br $shift)))
      (array.set $Particles (local.get $a) (local.get $j) (local.get $cur))
      (br_if $outer (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 12))))
    (local.set $i (i32.const 0))
    (loop $fold
      (local.set $h (i32.add (i32.mul (local.get $h) (i32.const 7))
        (struct.get $Particle $id (ref.as_non_null (array.get $Particles (local.get $a) (local.get $i))))))
      (br_if $fold (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 12))))
    (local.get $h))

  ;; A[i][j] = i + 2j + 1 (rows from array.new, then array.set), B[i][j] =
  ;; i*j + 10 (i == j) (rows from array.new_fixed, then array.set):
  ;; trace(A B) * 10 + (A B)[5][5]
  (func $matrix_a (result (ref $Matrix))
    (local $m (ref $Matrix))
    (local $i i32)
    (local $j i32)
    (local $row (ref $Row))
    (local.set $m (array.new_fixed $Matrix 6
      (array.new $Row (i64.const 0) (i32.const 6)) (array.new $Row (i64.const 0) (i32.const 6))
      (array.new $Row (i64.const 0) (i32.const 6)) (array.new $Row (i64.const 0) (i32.const 6))
      (array.new $Row (i64.const 0) (i32.const 6)) (array.new $Row (i64.const 0) (i32.const 6))))
    (loop $rows
      (local.set $row (array.get $Matrix (local.get $m) (local.get $i)))
      (local.set $j (i32.const 0))
      (loop $cols
        (array.set $Row (local.get $row) (local.get $j)
          (i64.extend_i32_u (i32.add (i32.add (local.get $i) (i32.shl (local.get $j) (i32.const 1))) (i32.const 1))))
        (br_if $cols (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (i32.const 6))))
      (br_if $rows (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 6))))
    (local.get $m))

  (func $matrix_b (result (ref $Matrix))
    (local $m (ref $Matrix))
    (local $i i32)
    (local $j i32)
    (local.set $m (array.new_fixed $Matrix 6
      (array.new_fixed $Row 6 (i64.const 10) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0))
      (array.new_fixed $Row 6 (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0))
      (array.new_fixed $Row 6 (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0))
      (array.new_fixed $Row 6 (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0))
      (array.new_fixed $Row 6 (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0))
      (array.new_fixed $Row 6 (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0) (i64.const 0))))
    (loop $rows
      (local.set $j (i32.const 0))
      (loop $cols
        (array.set $Row (array.get $Matrix (local.get $m) (local.get $i)) (local.get $j)
          (i64.add (i64.extend_i32_u (i32.mul (local.get $i) (local.get $j)))
                   (select (i64.const 10) (i64.const 0) (i32.eq (local.get $i) (local.get $j)))))
        (br_if $cols (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (i32.const 6))))
      (br_if $rows (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 6))))
    (local.get $m))

  (func $matmul (param $a (ref $Matrix)) (param $b (ref $Matrix)) (result (ref $Matrix))
    (local $c (ref $Matrix))
    (local $n i32)
    (local $i i32)
    (local $j i32)
    (local $k i32)
    (local $s i64)
    (local.set $n (array.len (local.get $a)))
    ;; every row starts as one shared empty row, then gets its own
    (local.set $c (array.new $Matrix (array.new_default $Row (i32.const 0)) (local.get $n)))
    (loop $rows
      (array.set $Matrix (local.get $c) (local.get $i) (array.new_default $Row (local.get $n)))
      (local.set $j (i32.const 0))
      (loop $cols
        (local.set $s (i64.const 0))
        (local.set $k (i32.const 0))
        (loop $dot
          (local.set $s (i64.add (local.get $s)
            (i64.mul (array.get $Row (array.get $Matrix (local.get $a) (local.get $i)) (local.get $k))
                     (array.get $Row (array.get $Matrix (local.get $b) (local.get $k)) (local.get $j)))))
          (br_if $dot (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 1))) (local.get $n))))
        (array.set $Row (array.get $Matrix (local.get $c) (local.get $i)) (local.get $j) (local.get $s))
        (br_if $cols (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (local.get $n))))
      (br_if $rows (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $c))

  (func $matrix_trace (result i64)
    (local $c (ref $Matrix))
    (local $i i32)
    (local $t i64)
    (local.set $c (call $matmul (call $matrix_a) (call $matrix_b)))
    (loop $diag
      (local.set $t (i64.add (local.get $t)
        (array.get $Row (array.get $Matrix (local.get $c) (local.get $i)) (local.get $i))))
      (br_if $diag (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 6))))
    (i64.add (i64.mul (local.get $t) (i64.const 10))
             (array.get $Row (array.get $Matrix (local.get $c) (i32.const 5)) (i32.const 5))))

  ;; ids 0..9; copy [0,6) to [3,9) (forward overlap), then [4,10) to [1,7)
  ;; (backward overlap); the ids of 0..8 as decimal digits
  (func $overlap_copy (result i32)
    (local $a (ref $Particles))
    (local $i i32)
    (local $h i32)
    (local.set $a (call $particles (i32.const 10)))
    (array.copy $Particles $Particles (local.get $a) (i32.const 3) (local.get $a) (i32.const 0) (i32.const 6))
    (array.copy $Particles $Particles (local.get $a) (i32.const 1) (local.get $a) (i32.const 4) (i32.const 6))
    (loop $fold
      (local.set $h (i32.add (i32.mul (local.get $h) (i32.const 10))
        (struct.get $Particle $id (ref.as_non_null (array.get $Particles (local.get $a) (local.get $i))))))
      (br_if $fold (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 9))))
    (local.get $h))

  ;; array.fill with one particle: every slot is that particle, so a write
  ;; through slot 2 shows through slot 7; then slots 3..5 nulled again
  (func $fill_shared (result i32)
    (local $a (ref $Particles))
    (local $p (ref $Particle))
    (local.set $a (call $particles (i32.const 10)))
    (local.set $p (call $particle (i32.const 42)))
    (array.fill $Particles (local.get $a) (i32.const 0) (local.get $p) (i32.const 10))
    (struct.set $Particle $x (ref.as_non_null (array.get $Particles (local.get $a) (i32.const 2))) (f64.const -1))
    (array.fill $Particles (local.get $a) (i32.const 3) (ref.null none) (i32.const 3))
    (i32.add
      (i32.add (f64.eq (struct.get $Particle $x (ref.as_non_null (array.get $Particles (local.get $a) (i32.const 7))))
                       (f64.const -1))
               (ref.eq (array.get $Particles (local.get $a) (i32.const 0)) (local.get $p)))
      (ref.is_null (array.get $Particles (local.get $a) (i32.const 5)))))

  ;; over particles 0..11: sum of r unsigned, g signed (200 -> -56), b,
  ;; alpha signed (-1); then particle 13's r (260 wraps to 4) * 10000 and
  ;; its g after storing 0x1234 (0x34) * 100
  (func $colours (result i32)
    (local $a (ref $Particles))
    (local $i i32)
    (local $s i32)
    (local $c (ref $Colour))
    (local.set $a (call $particles (i32.const 12)))
    (loop $each
      (local.set $c (struct.get $Particle $colour (ref.as_non_null (array.get $Particles (local.get $a) (local.get $i)))))
      (local.set $s (i32.add (local.get $s)
        (i32.add (i32.add (struct.get_u $Colour $r (local.get $c)) (struct.get_s $Colour $g (local.get $c)))
                 (i32.add (struct.get_u $Colour $b (local.get $c)) (struct.get_s $Colour $alpha (local.get $c))))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 12))))
    (local.set $c (struct.get $Particle $colour (call $particle (i32.const 13))))
    (struct.set $Colour $g (local.get $c) (i32.const 0x1234))
    (i32.add (local.get $s)
      (i32.add (i32.mul (struct.get_u $Colour $r (local.get $c)) (i32.const 10000))
               (i32.mul (struct.get_u $Colour $g (local.get $c)) (i32.const 100)))))

  (export "simulate" (func $simulate))
  (export "sort_ids" (func $sort_ids))
  (export "matrix_trace" (func $matrix_trace))
  (export "overlap_copy" (func $overlap_copy))
  (export "fill_shared" (func $fill_shared))
  (export "colours" (func $colours))
)
