;; nullability.wat — Kotlin's null safety as Kotlin/Wasm lowers it: `?.`
;; chains become br_on_null to a shared exit, `?:` becomes br_on_non_null
;; around the default, `!!` becomes ref.as_non_null (and traps), smart
;; casts leave non-nullable locals that follow the WebAssembly 3.0 local
;; initialization rules (set before use in the same or an enclosing
;; block), `if` results and typed `select` mix nullable and non-null refs,
;; and a JS-interop boundary passes objects as externref and converts back
;; with any.convert_extern + ref.cast.
;;
;; People: 0 Ann (address Oslo, zip 150), 1 Bob (no address), 2 Cy
;; (address with no city, zip 7), 3 null, 4 Di (address Rome, zip 10).
;;
;; expect: city_lengths => 5
;; expect: zips => 200165
;; expect: first_named => 4
;; expect: typed_select => 29
;; expect: extern_boundary => 1211
;; expect: local_init => 46
;; expect: bang_bang => trap
(module
  (type $Str (array i8))
  (rec
    (type $Address (sub final (struct (field $city (ref null $Str)) (field $zip i32))))
    (type $Person (sub final (struct (field $name (ref null $Str)) (field $address (mut (ref null $Address)))))))
  (type $People (array (ref null $Person)))

  (data $names "AnnBobCyDiOsloRome")

  (func $str (param $off i32) (param $len i32) (result (ref $Str))
    (array.new_data $Str $names (local.get $off) (local.get $len)))

  (func $people (result (ref $People))
    (array.new_fixed $People 5
      (struct.new $Person (call $str (i32.const 0) (i32.const 3))
        (struct.new $Address (call $str (i32.const 10) (i32.const 4)) (i32.const 150)))
      (struct.new $Person (call $str (i32.const 3) (i32.const 3)) (ref.null none))
      (struct.new $Person (call $str (i32.const 6) (i32.const 2)) (struct.new $Address (ref.null none) (i32.const 7)))
      (ref.null none)
      (struct.new $Person (call $str (i32.const 8) (i32.const 2))
        (struct.new $Address (call $str (i32.const 14) (i32.const 4)) (i32.const 10)))))

  ;; p?.address?.city?.length ?: -1
  (func $city_length (param $p (ref null $Person)) (result i32)
    (block $none
      (return (array.len
        (br_on_null $none (struct.get $Address $city
          (br_on_null $none (struct.get $Person $address
            (br_on_null $none (local.get $p)))))))))
    (i32.const -1))

  ;; p?.address ?: the default address (zip 99999) -- then its zip
  (func $zip_or_default (param $p (ref null $Person)) (result i32)
    (local $addr (ref null $Address))
    (block $no
      (local.set $addr (struct.get $Person $address (br_on_null $no (local.get $p)))))
    (struct.get $Address $zip
      (block $have (result (ref $Address))
        (br_on_non_null $have (local.get $addr))
        (struct.new $Address (ref.null none) (i32.const 99999)))))

  (func $city_lengths (result i32)
    (local $a (ref $People))
    (local $i i32)
    (local $s i32)
    (local.set $a (call $people))
    (loop $each
      (local.set $s (i32.add (local.get $s) (call $city_length (array.get $People (local.get $a) (local.get $i)))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $a)))))
    (local.get $s))

  (func $zips (result i32)
    (local $a (ref $People))
    (local $i i32)
    (local $s i32)
    (local.set $a (call $people))
    (loop $each
      (local.set $s (i32.add (local.get $s) (call $zip_or_default (array.get $People (local.get $a) (local.get $i)))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $a)))))
    (local.get $s))

  ;; the index of the first person whose address has a city, after person
  ;; 0's address is cleared: a loop that leaves with br_on_non_null
  (func $first_named (result i32)
    (local $a (ref $People))
    (local $i i32)
    (local.set $a (call $people))
    (struct.set $Person $address (ref.as_non_null (array.get $People (local.get $a) (i32.const 0))) (ref.null none))
    (drop (block $found (result (ref $Str))
      (loop $each
        (block $skip
          (br_on_non_null $found (struct.get $Address $city (br_on_null $skip (struct.get $Person $address
            (br_on_null $skip (array.get $People (local.get $a) (local.get $i))))))))
        (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (array.len (local.get $a)))))
      (return (i32.const -1))))
    (local.get $i))

  ;; select and if over (ref null $Person) / (ref $Person) operands
  (func $typed_select (result i32)
    (local $a (ref $People))
    (local $p (ref null $Person))
    (local $q (ref $Person))
    (local.set $a (call $people))
    (local.set $q (ref.as_non_null (array.get $People (local.get $a) (i32.const 4))))
    (local.set $p (select (result (ref null $Person))
      (array.get $People (local.get $a) (i32.const 3)) (local.get $q) (i32.const 0)))
    (i32.add
      (i32.mul (ref.eq (local.get $p) (local.get $q)) (i32.const 10))
      (i32.add
        (i32.mul (ref.is_null (select (result (ref null $Person))
                   (array.get $People (local.get $a) (i32.const 3)) (local.get $q) (i32.const 1)))
                 (i32.const 20))
        (call $city_length (if (result (ref null $Person)) (ref.is_null (local.get $p))
                             (then (ref.null none))
                             (else (array.get $People (local.get $a) (i32.const 1))))))))

  ;; the other side of an interop boundary: it gets externrefs
  (func $zip_of_extern (param $x externref) (result i32)
    (local $any anyref)
    (local.set $any (any.convert_extern (local.get $x)))
    (if (ref.is_null (local.get $any)) (then (return (i32.const 1000))))
    (if (i32.eqz (ref.test (ref $Person) (local.get $any))) (then (return (i32.const 100))))
    (call $zip_or_default (ref.cast (ref $Person) (local.get $any))))

  ;; Ann's zip (150) + null (1000) + an i31 (100) + Di's zip (10)
  ;; + 99950 - Bob's default zip (99999)
  (func $extern_boundary (result i32)
    (local $a (ref $People))
    (local.set $a (call $people))
    (i32.add
      (i32.add (call $zip_of_extern (extern.convert_any (array.get $People (local.get $a) (i32.const 0))))
               (call $zip_of_extern (extern.convert_any (array.get $People (local.get $a) (i32.const 3)))))
      (i32.add
        (i32.add (call $zip_of_extern (extern.convert_any (ref.i31 (i32.const 5))))
                 (call $zip_of_extern (extern.convert_any (array.get $People (local.get $a) (i32.const 4)))))
        (i32.sub (i32.const 99950)
                 (call $zip_of_extern (extern.convert_any (array.get $People (local.get $a) (i32.const 1))))))))

  ;; non-nullable locals: set at the top and used in nested blocks; set
  ;; in a block and used only inside it; set by local.tee; set again in a loop
  (func $local_init (result i32)
    (local $a (ref $People))
    (local $p (ref $Person))
    (local $addr (ref $Address))
    (local $s i32)
    (local $i i32)
    (local.set $a (call $people))
    (block $outer
      (local.set $p (ref.as_non_null (array.get $People (local.get $a) (i32.const 0))))
      (block $inner
        (local.set $s (array.len (ref.as_non_null (struct.get $Person $name (local.get $p)))))))
    (block $b
      (local.set $addr (ref.as_non_null (struct.get $Person $address
        (local.tee $p (ref.as_non_null (array.get $People (local.get $a) (i32.const 4)))))))
      (local.set $s (i32.add (local.get $s) (struct.get $Address $zip (local.get $addr)))))
    (loop $each
      (block $null
        (local.set $p (br_on_null $null (array.get $People (local.get $a) (local.get $i))))
        (local.set $s (i32.add (local.get $s) (array.len (ref.as_non_null (struct.get $Person $name (local.get $p)))))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 5))))
    (i32.add (local.get $s) (i32.const 23)))

  ;; Bob's address!!.zip
  (func $bang_bang (result i32)
    (struct.get $Address $zip (ref.as_non_null (struct.get $Person $address
      (ref.as_non_null (array.get $People (call $people) (i32.const 1)))))))

  (export "city_lengths" (func $city_lengths))
  (export "zips" (func $zips))
  (export "first_named" (func $first_named))
  (export "typed_select" (func $typed_select))
  (export "extern_boundary" (func $extern_boundary))
  (export "local_init" (func $local_init))
  (export "bang_bang" (func $bang_bang))
)
