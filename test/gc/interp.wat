;; interp.wat — a bytecode interpreter in threaded style, as functional
;; language backends (and Wasm-hosted VMs) write them: each opcode's
;; handler does its work and return_call_ref's the next opcode's handler,
;; looked up in a table of typed function references held by the VM
;; struct, so a loop of 90,000 instructions runs in constant stack. The
;; bytecode is an (array i8) made with array.new_data; the handler table is
;; made with array.new_elem from a typed element segment, or with
;; array.new_default + array.init_elem and then patched with array.set.
;; Operand stack and variables are (array (mut i64)).
;;
;; Opcodes: 0 halt, 1 push s8, 2 add, 3 sub, 4 mul, 5 dup, 6 swap,
;; 7 jnz s8 (relative to the next instruction), 8 load u8, 9 store u8,
;; 10 dec, 11 over, 12 drop, 13 lt_s, 14 neg.
;;
;; expect: run_fact => 2432902008176640000
;; expect: run_fib => 12586269025
;; expect: run_sum => 50005000
;; expect: run_gcd => 22
;; expect: steps_fib => 558
;; expect: patched => -12586269025
;; expect: bad_opcode => trap
(module
  (type $Code (array i8))
  (type $Slots (array (mut i64)))
  (rec
    (type $VM (struct (field $code (ref $Code)) (field $stack (ref $Slots)) (field $sp (mut i32))
                      (field $vars (ref $Slots)) (field $steps (mut i32)) (field $table (ref $Handlers))))
    (type $handler (func (param (ref $VM) i32) (result i64)))
    (type $Handlers (array (mut (ref null $handler)))))

  ;; 20!: n = 20, acc = 1; do acc *= n while (--n)
  (data $fact "\01\14\09\00\01\01\09\01\08\01\08\00\04\09\01\08\00\0a\05\09\00\07\f1\08\01\00")
  ;; fib(50): a, b = b, a + b fifty times
  (data $fib "\01\32\09\00\01\00\09\01\01\01\09\02\08\01\08\02\05\09\01\02\09\02\08\00\0a\05\09\00\07\ee\08\01\00")
  ;; 1 + 2 + ... + 10000 (n = 100 * 100)
  (data $sum "\01\64\05\04\09\00\01\00\09\01\08\01\08\00\02\09\01\08\00\0a\05\09\00\07\f1\08\01\00")
  ;; gcd(119, 85) by subtraction, then (g + 5) through swap/over/drop/neg
  (data $gcd "\01\77\09\00\01\55\09\01\08\00\08\01\03\07\0c\08\00\01\05\06\0b\0c\0e\06\03\0e\00"
             "\08\00\08\01\0d\07\0b\08\00\08\01\03\09\00\01\01\07\db\08\01\08\00\03\09\01\01\01\07\d0")
  ;; push 1, opcode 15 (no handler)
  (data $bad "\01\01\0f\00")

  (elem $ops (ref $handler)
    (item ref.func $op_halt) (item ref.func $op_push) (item ref.func $op_add) (item ref.func $op_sub)
    (item ref.func $op_mul) (item ref.func $op_dup) (item ref.func $op_swap) (item ref.func $op_jnz)
    (item ref.func $op_load) (item ref.func $op_store) (item ref.func $op_dec) (item ref.func $op_over)
    (item ref.func $op_drop) (item ref.func $op_lt) (item ref.func $op_neg))

  (func $push (param $vm (ref $VM)) (param $v i64)
    (local $sp i32)
    (local.set $sp (struct.get $VM $sp (local.get $vm)))
    (array.set $Slots (struct.get $VM $stack (local.get $vm)) (local.get $sp) (local.get $v))
    (struct.set $VM $sp (local.get $vm) (i32.add (local.get $sp) (i32.const 1))))

  (func $pop (param $vm (ref $VM)) (result i64)
    (local $sp i32)
    (local.set $sp (i32.sub (struct.get $VM $sp (local.get $vm)) (i32.const 1)))
    (struct.set $VM $sp (local.get $vm) (local.get $sp))
    (array.get $Slots (struct.get $VM $stack (local.get $vm)) (local.get $sp)))

  (func $imm_s (param $vm (ref $VM)) (param $pc i32) (result i32)
    (array.get_s $Code (struct.get $VM $code (local.get $vm)) (i32.add (local.get $pc) (i32.const 1))))
  (func $imm_u (param $vm (ref $VM)) (param $pc i32) (result i32)
    (array.get_u $Code (struct.get $VM $code (local.get $vm)) (i32.add (local.get $pc) (i32.const 1))))

  ;; the handler of the instruction at pc; counts a step
  (func $next (param $vm (ref $VM)) (param $pc i32) (result (ref null $handler))
    (struct.set $VM $steps (local.get $vm) (i32.add (struct.get $VM $steps (local.get $vm)) (i32.const 1)))
    (array.get $Handlers (struct.get $VM $table (local.get $vm))
      (array.get_u $Code (struct.get $VM $code (local.get $vm)) (local.get $pc))))

  (func $op_halt (type $handler)
    (call $pop (local.get 0)))
  (func $op_push (type $handler)
    (call $push (local.get 0) (i64.extend_i32_s (call $imm_s (local.get 0) (local.get 1))))
    (local.set 1 (i32.add (local.get 1) (i32.const 2)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_add (type $handler)
    (call $push (local.get 0) (i64.add (call $pop (local.get 0)) (call $pop (local.get 0))))
    (local.set 1 (i32.add (local.get 1) (i32.const 1)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_sub (type $handler)
    (local $b i64)
    (local.set $b (call $pop (local.get 0)))
    (call $push (local.get 0) (i64.sub (call $pop (local.get 0)) (local.get $b)))
    (local.set 1 (i32.add (local.get 1) (i32.const 1)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_mul (type $handler)
    (call $push (local.get 0) (i64.mul (call $pop (local.get 0)) (call $pop (local.get 0))))
    (local.set 1 (i32.add (local.get 1) (i32.const 1)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_dup (type $handler)
    (local $v i64)
    (local.set $v (call $pop (local.get 0)))
    (call $push (local.get 0) (local.get $v))
    (call $push (local.get 0) (local.get $v))
    (local.set 1 (i32.add (local.get 1) (i32.const 1)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_swap (type $handler)
    (local $a i64)
    (local $b i64)
    (local.set $b (call $pop (local.get 0)))
    (local.set $a (call $pop (local.get 0)))
    (call $push (local.get 0) (local.get $b))
    (call $push (local.get 0) (local.get $a))
    (local.set 1 (i32.add (local.get 1) (i32.const 1)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_jnz (type $handler)
    (local $to i32)
    (local.set $to (i32.add (local.get 1) (i32.const 2)))
    (if (i64.ne (call $pop (local.get 0)) (i64.const 0))
      (then (local.set $to (i32.add (local.get $to) (call $imm_s (local.get 0) (local.get 1))))))
    (return_call_ref $handler (local.get 0) (local.get $to) (call $next (local.get 0) (local.get $to))))
  (func $op_load (type $handler)
    (call $push (local.get 0)
      (array.get $Slots (struct.get $VM $vars (local.get 0)) (call $imm_u (local.get 0) (local.get 1))))
    (local.set 1 (i32.add (local.get 1) (i32.const 2)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_store (type $handler)
    (array.set $Slots (struct.get $VM $vars (local.get 0)) (call $imm_u (local.get 0) (local.get 1))
      (call $pop (local.get 0)))
    (local.set 1 (i32.add (local.get 1) (i32.const 2)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_dec (type $handler)
    (call $push (local.get 0) (i64.sub (call $pop (local.get 0)) (i64.const 1)))
    (local.set 1 (i32.add (local.get 1) (i32.const 1)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_over (type $handler)
    (local $a i64)
    (local $b i64)
    (local.set $b (call $pop (local.get 0)))
    (local.set $a (call $pop (local.get 0)))
    (call $push (local.get 0) (local.get $a))
    (call $push (local.get 0) (local.get $b))
    (call $push (local.get 0) (local.get $a))
    (local.set 1 (i32.add (local.get 1) (i32.const 1)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_drop (type $handler)
    (drop (call $pop (local.get 0)))
    (local.set 1 (i32.add (local.get 1) (i32.const 1)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_lt (type $handler)
    (local $b i64)
    (local.set $b (call $pop (local.get 0)))
    (call $push (local.get 0) (i64.extend_i32_u (i64.lt_s (call $pop (local.get 0)) (local.get $b))))
    (local.set 1 (i32.add (local.get 1) (i32.const 1)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))
  (func $op_neg (type $handler)
    (call $push (local.get 0) (i64.sub (i64.const 0) (call $pop (local.get 0))))
    (local.set 1 (i32.add (local.get 1) (i32.const 1)))
    (return_call_ref $handler (local.get 0) (local.get 1) (call $next (local.get 0) (local.get 1))))

  (func $vm (param $code (ref $Code)) (param $table (ref $Handlers)) (result (ref $VM))
    (struct.new $VM (local.get $code) (array.new_default $Slots (i32.const 16)) (i32.const 0)
                    (array.new_default $Slots (i32.const 4)) (i32.const 0) (local.get $table)))

  (func $table (result (ref $Handlers))
    (array.new_elem $Handlers $ops (i32.const 0) (i32.const 15)))

  (func $run (param $vm (ref $VM)) (result i64)
    (return_call_ref $handler (local.get $vm) (i32.const 0) (call $next (local.get $vm) (i32.const 0))))

  (func $run_fact (result i64)
    (call $run (call $vm (array.new_data $Code $fact (i32.const 0) (i32.const 26)) (call $table))))
  (func $run_fib (result i64)
    (call $run (call $vm (array.new_data $Code $fib (i32.const 0) (i32.const 33)) (call $table))))
  (func $run_sum (result i64)
    (call $run (call $vm (array.new_data $Code $sum (i32.const 0) (i32.const 28)) (call $table))))
  (func $run_gcd (result i64)
    (call $run (call $vm (array.new_data $Code $gcd (i32.const 0) (i32.const 56)) (call $table))))

  (func $steps_fib (result i32)
    (local $vm (ref $VM))
    (local.set $vm (call $vm (array.new_data $Code $fib (i32.const 0) (i32.const 33)) (call $table)))
    (drop (call $run (local.get $vm)))
    (struct.get $VM $steps (local.get $vm)))

  ;; a 16-slot table filled by array.init_elem, with add patched to sub:
  ;; fib's b = a + b becomes b = a - b
  (func $patched_table (result (ref $Handlers))
    (local $t (ref $Handlers))
    (local.set $t (array.new_default $Handlers (i32.const 16)))
    (array.init_elem $Handlers $ops (local.get $t) (i32.const 0) (i32.const 0) (i32.const 15))
    (array.set $Handlers (local.get $t) (i32.const 2) (array.get $Handlers (local.get $t) (i32.const 3)))
    (local.get $t))
  (func $patched (result i64)
    (call $run (call $vm (array.new_data $Code $fib (i32.const 0) (i32.const 33)) (call $patched_table))))

  ;; opcode 15's slot is null: return_call_ref traps
  (func $bad_opcode (result i64)
    (call $run (call $vm (array.new_data $Code $bad (i32.const 0) (i32.const 4)) (call $patched_table))))

  (export "run_fact" (func $run_fact))
  (export "run_fib" (func $run_fib))
  (export "run_sum" (func $run_sum))
  (export "run_gcd" (func $run_gcd))
  (export "steps_fib" (func $steps_fib))
  (export "patched" (func $patched))
  (export "bad_opcode" (func $bad_opcode))
)
