;; const_globals.wat — what static initialization compiles to under GC:
;; immutable globals whose initializers allocate (struct.new, struct.new_default,
;; array.new, array.new_default, array.new_fixed), use extended constant
;; arithmetic, refer to earlier globals (sharing, not copying, them), box
;; with ref.i31, convert with extern.convert_any / any.convert_extern, and
;; hold function references; a typed function table with an initializer
;; expression, filled further by an element segment; and a J2CL-style lazy
;; singleton in a mutable nullable global.
;;
;; expect: geometry => 21
;; expect: arrays => 1245
;; expect: ops_fold => 336
;; expect: externs => 15
;; expect: i31_global => -42
;; expect: table_dispatch => 111
;; expect: lazy_identity => 1
;; expect: sharing => 5
(module
  (type $Point (sub final (struct (field $x i32) (field $y i32))))
  (type $Segment (struct (field $from (ref $Point)) (field $to (ref $Point))))
  (type $Ints (array (mut i32)))
  (type $binop (func (param i32 i32) (result i32)))
  (type $Ops (array (ref $binop)))
  (type $Config (struct (field $table (ref $Ints)) (field $ops (ref $Ops)) (field $tag (ref i31))
                        (field $home (ref $Point)) (field $count (mut i32))))

  (global $origin (ref $Point) (struct.new $Point (i32.const 0) (i32.const 0)))
  (global $unit (ref $Point) (struct.new $Point (i32.const 1) (i32.const 1)))
  (global $unit2 (ref $Point) (struct.new $Point (i32.const 1) (i32.const 1)))
  (global $seg (ref $Segment) (struct.new $Segment (global.get $origin) (global.get $unit)))
  (global $far (ref $Segment)
    (struct.new $Segment (struct.new $Point (i32.const -3) (i32.sub (i32.const 10) (i32.const 6)))
                         (struct.new_default $Point)))
  (global $primes (ref $Ints)
    (array.new_fixed $Ints 8 (i32.const 2) (i32.const 3) (i32.const 5) (i32.const 7)
                             (i32.const 11) (i32.const 13) (i32.const 17) (i32.const 19)))
  (global $zeros (ref $Ints) (array.new_default $Ints (i32.add (i32.const 3) (i32.mul (i32.const 2) (i32.const 4)))))
  (global $sevens (ref $Ints) (array.new $Ints (i32.const 7) (i32.const 5)))
  (global $small (ref i31) (ref.i31 (i32.const -42)))
  (global $ext externref (extern.convert_any (global.get $origin)))
  (global $ext_null externref (extern.convert_any (ref.null none)))
  (global $back anyref (any.convert_extern (global.get $ext)))
  (global $ext_i31 externref (extern.convert_any (ref.i31 (i32.const 99))))
  (global $plus (ref $binop) (ref.func $add))
  (global $ops (ref $Ops) (array.new_fixed $Ops 3 (global.get $plus) (ref.func $sub) (ref.func $mul)))
  (global $config (ref $Config)
    (struct.new $Config (global.get $primes) (global.get $ops) (ref.i31 (i32.const 7))
                        (struct.new $Point (i32.const 4) (i32.const 9)) (i32.const 0)))
  (global $instance (mut (ref null $Point)) (ref.null none))

  (table $fns 6 (ref $binop) (ref.func $add))
  (elem (table $fns) (i32.const 1) (ref $binop) (ref.func $sub) (ref.func $mul))

  (func $add (type $binop) (i32.add (local.get 0) (local.get 1)))
  (func $sub (type $binop) (i32.sub (local.get 0) (local.get 1)))
  (func $mul (type $binop) (i32.mul (local.get 0) (local.get 1)))

  (func $len2 (param $s (ref $Segment)) (result i32)
    (local $dx i32)
    (local $dy i32)
    (local.set $dx (i32.sub (struct.get $Point $x (struct.get $Segment $to (local.get $s)))
                            (struct.get $Point $x (struct.get $Segment $from (local.get $s)))))
    (local.set $dy (i32.sub (struct.get $Point $y (struct.get $Segment $to (local.get $s)))
                            (struct.get $Point $y (struct.get $Segment $from (local.get $s)))))
    (i32.add (i32.mul (local.get $dx) (local.get $dx)) (i32.mul (local.get $dy) (local.get $dy))))

  ;; |seg|^2 + |far|^2 - home.x - (home.y - 7) = 2 + 25 - 4 - 2
  (func $geometry (result i32)
    (i32.sub (i32.add (call $len2 (global.get $seg)) (call $len2 (global.get $far)))
             (i32.add (struct.get $Point $x (struct.get $Config $home (global.get $config)))
                      (i32.sub (struct.get $Point $y (struct.get $Config $home (global.get $config))) (i32.const 7)))))

  ;; the primes' sum (77) * 10 + zeros' length (11) * 40 + the sevens' sum
  ;; (35) - zeros[10] (0)
  (func $arrays (result i32)
    (local $i i32)
    (local $s i32)
    (loop $each
      (local.set $s (i32.add (local.get $s) (array.get $Ints (global.get $primes) (local.get $i))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (global.get $primes)))))
    (local.set $s (i32.add (i32.mul (local.get $s) (i32.const 10))
                           (i32.mul (array.len (global.get $zeros)) (i32.const 40))))
    (local.set $i (i32.const 0))
    (loop $sev
      (local.set $s (i32.add (local.get $s) (array.get $Ints (global.get $sevens) (local.get $i))))
      (br_if $sev (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (global.get $sevens)))))
    (i32.sub (local.get $s) (array.get $Ints (global.get $zeros) (i32.const 10))))

  ;; acc = ops[i % 3](acc, primes[i]), starting from the config's tag (7)
  (func $ops_fold (result i32)
    (local $i i32)
    (local $acc i32)
    (local $cfg (ref $Config))
    (local.set $cfg (global.get $config))
    (local.set $acc (i31.get_u (struct.get $Config $tag (local.get $cfg))))
    (loop $each
      (local.set $acc
        (call_ref $binop (local.get $acc) (array.get $Ints (struct.get $Config $table (local.get $cfg)) (local.get $i))
          (array.get $Ops (struct.get $Config $ops (local.get $cfg)) (i32.rem_u (local.get $i) (i32.const 3)))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 8))))
    (local.get $acc))

  ;; bit 0: origin -> extern -> any is origin; bit 1: it is still a Point;
  ;; bit 2: a null stays null; bit 3: an i31 survives the round trip
  (func $externs (result i32)
    (i32.or
      (i32.or (ref.eq (ref.cast (ref null eq) (global.get $back)) (global.get $origin))
              (i32.shl (ref.test (ref $Point) (any.convert_extern (global.get $ext))) (i32.const 1)))
      (i32.or (i32.shl (ref.is_null (any.convert_extern (global.get $ext_null))) (i32.const 2))
              (i32.shl (i32.eq (i31.get_s (ref.cast (ref i31) (any.convert_extern (global.get $ext_i31))))
                               (i32.const 99))
                       (i32.const 3)))))

  (func $i31_global (result i32)
    (i31.get_s (global.get $small)))

  ;; slots 0, 3, 4, 5 hold add (the table's initializer), 1 sub, 2 mul:
  ;; f0(50, 4) + f1(50, 4) + f2(5, 3) + f5(-5, 1) = 54 + 46 + 15 - 4
  (func $table_dispatch (result i32)
    (i32.add
      (i32.add (call_indirect $fns (type $binop) (i32.const 50) (i32.const 4) (i32.const 0))
               (call_indirect $fns (type $binop) (i32.const 50) (i32.const 4) (i32.const 1)))
      (i32.add (call_indirect $fns (type $binop) (i32.const 5) (i32.const 3) (i32.const 2))
               (call_ref $binop (i32.const -5) (i32.const 1) (table.get $fns (i32.const 5))))))

  ;; the singleton: made on first use, the same object after
  (func $get_instance (result (ref $Point))
    (block $made (result (ref $Point))
      (br_on_non_null $made (global.get $instance))
      (global.set $instance (struct.new $Point (i32.const 5) (i32.const 6)))
      (ref.as_non_null (global.get $instance))))

  (func $lazy_identity (result i32)
    (i32.and (ref.eq (call $get_instance) (call $get_instance))
             (i32.eq (struct.get $Point $y (call $get_instance)) (i32.const 6))))

  ;; bit 0: seg's from is the origin global's object; bit 1: unit and unit2
  ;; are equal but distinct objects; bit 2: config's ops hold the very
  ;; function in $plus
  (func $sharing (result i32)
    (i32.or
      (i32.or (ref.eq (struct.get $Segment $from (global.get $seg)) (global.get $origin))
              (i32.shl (ref.eq (global.get $unit) (global.get $unit2)) (i32.const 1)))
      (i32.shl (i32.eq (call_ref $binop (i32.const 2) (i32.const 2)
                         (array.get $Ops (struct.get $Config $ops (global.get $config)) (i32.const 0)))
                       (call_ref $binop (i32.const 2) (i32.const 2) (global.get $plus)))
               (i32.const 2))))

  (export "geometry" (func $geometry))
  (export "arrays" (func $arrays))
  (export "ops_fold" (func $ops_fold))
  (export "externs" (func $externs))
  (export "i31_global" (func $i31_global))
  (export "table_dispatch" (func $table_dispatch))
  (export "lazy_identity" (func $lazy_identity))
  (export "sharing" (func $sharing))
)
