;; type_compact.wast — rec groups survive type compaction (remove-unused-types
;; at the end of the -O pipelines): run with and without -O2. A function
;; whose type is in a rec group with a member nothing uses must keep that
;; member, or its type would be another one and the import would not link;
;; a duplicate group is the same type; a lone func type of the same shape is not.
(module $A
  (rec (type $f (func (param i32) (result i32))) (type $s (struct (field i32))))
  (type $unused (array i8))
  (rec (type $f2 (func (param i32) (result i32))) (type $s2 (struct (field i32))))
  (type $plain (func (param i32) (result i32)))
  (table $t (export "t") 2 funcref)
  (elem (table $t) (i32.const 0) func $inc $id)
  (func $inc (export "f") (type $f2) (i32.add (local.get 0) (i32.const 1)))
  (func $id (type $plain) (local.get 0))
  (func (export "ind") (param i32 i32) (result i32)
    (call_indirect $t (type $f) (local.get 0) (local.get 1))))
(register "A" $A)

(module $B
  (type $unused (struct))
  (rec (type $g (func (param i32) (result i32))) (type $t (struct (field i32))))
  (import "A" "f" (func $f (type $g)))
  (import "A" "t" (table $tab 2 funcref))
  (func (export "call") (param i32) (result i32) (call $f (local.get 0)))
  (func (export "ind") (param i32 i32) (result i32)
    (call_indirect $tab (type $g) (local.get 0) (local.get 1))))

(assert_return (invoke $A "ind" (i32.const 4) (i32.const 0)) (i32.const 5))
(assert_trap (invoke $A "ind" (i32.const 4) (i32.const 1)) "indirect call type mismatch")
(assert_return (invoke $B "call" (i32.const 1)) (i32.const 2))
(assert_return (invoke $B "ind" (i32.const 7) (i32.const 0)) (i32.const 8))
(assert_trap (invoke $B "ind" (i32.const 7) (i32.const 1)) "indirect call type mismatch")

(assert_unlinkable
  (module (type $p (func (param i32) (result i32))) (import "A" "f" (func (type $p))))
  "incompatible import type")
(module $C
  (rec (type $h (func (param i32) (result i32))) (type $u (struct (field i32))))
  (import "A" "f" (func (type $h))))
