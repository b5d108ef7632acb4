;; hello.wat — the example module the README runs through tilt-opt.
;; A WASI program that prints "hello, world" (export _start), plus a
;; recursive factorial (export fac) and a little dead code for the
;; optimizer to remove. hello.wasm is this file assembled with
;;   wat2wasm --debug-names hello.wat -o hello.wasm
;; (the name section makes tilt-opt's output smaller even before any pass:
;; names are dropped unless -g is given).
(module
  (type $write_t (func (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (type $write_t)))
  (memory $mem 1)
  (export "memory" (memory $mem))
  (data (i32.const 16) "hello, world\n")

  ;; fd_write(stdout, iovec at 0 = {ptr 16, len 13}, 1 iovec, nwritten at 8)
  (func $start (export "_start")
    (local $unused i32)
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 13))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (block $done
      (br $done)
      (local.set $unused (i32.const 42))
      (nop)))

  (func $fac (export "fac") (param $n i64) (result i64)
    (if (result i64) (i64.eqz (local.get $n))
      (then (i64.const 1))
      (else
        (i64.mul (local.get $n)
                 (call $fac (i64.sub (local.get $n) (i64.const 1))))))))
