;; expr_eval.wat — an expression-tree evaluator and constant folder, the
;; visitor shape of compilers written in Dart or Kotlin: AST nodes are
;; final subtypes of $Expr, dispatched with a chain of br_on_cast whose
;; targets are nullable (so a missing else-branch, a null, takes the
;; literal path and evaluates to 0) and br_on_cast_fail; `let` and `if`
;; continue with return_call (a 3000-deep let chain runs in constant stack)
;; and binary operators with return_call_indirect through a table of f32
;; functions; the environment is an (array (mut f32)). The folder rebuilds
;; the tree bottom-up, sharing the subtrees it does not change.
;;
;; expect: eval_poly => 14.75
;; expect: eval_loop => 174008
;; expect: fold_count => 2513
;; expect: fold_same => 10
;; expect: if_null_else => 7
;; expect: deep_let => 3000
;; expect: shared_subtrees => 3
(module
  (rec
    (type $Expr (sub (struct (field $tag i32))))
    (type $Num (sub final $Expr (struct (field $tag i32) (field $v f32))))
    (type $Var (sub final $Expr (struct (field $tag i32) (field $slot i32))))
    (type $Bin (sub final $Expr (struct (field $tag i32) (field $op i32) (field $l (ref $Expr)) (field $r (ref $Expr)))))
    (type $Let (sub final $Expr (struct (field $tag i32) (field $slot i32) (field $init (ref $Expr)) (field $body (ref $Expr)))))
    (type $If (sub final $Expr (struct (field $tag i32) (field $c (ref $Expr)) (field $t (ref $Expr)) (field $e (ref null $Expr))))))
  (type $Env (array (mut f32)))
  (type $f32bin (func (param f32 f32) (result f32)))

  (table $ops 6 funcref)
  (elem (table $ops) (i32.const 0) func $add $sub $mul $div $min $max)

  (func $add (type $f32bin) (f32.add (local.get 0) (local.get 1)))
  (func $sub (type $f32bin) (f32.sub (local.get 0) (local.get 1)))
  (func $mul (type $f32bin) (f32.mul (local.get 0) (local.get 1)))
  (func $div (type $f32bin) (f32.div (local.get 0) (local.get 1)))
  (func $min (type $f32bin) (f32.min (local.get 0) (local.get 1)))
  (func $max (type $f32bin) (f32.max (local.get 0) (local.get 1)))

  (func $num (param f32) (result (ref $Num)) (struct.new $Num (i32.const 0) (local.get 0)))
  (func $var (param i32) (result (ref $Var)) (struct.new $Var (i32.const 1) (local.get 0)))
  (func $bin (param i32 (ref $Expr) (ref $Expr)) (result (ref $Bin))
    (struct.new $Bin (i32.const 2) (local.get 0) (local.get 1) (local.get 2)))

  (func $eval (param $e (ref null $Expr)) (param $env (ref $Env)) (result f32)
    (local $let (ref $Let))
    (local $if (ref $If))
    (local $bin (ref $Bin))
    (local $var (ref $Var))
    (block $is_num (result (ref null $Num))
      (block $is_var (result (ref $Var))
        (block $is_bin (result (ref $Bin))
          (block $is_let (result (ref $Let))
            (block $not_if (result (ref null $Expr))
              (br_on_cast $is_num (ref null $Expr) (ref null $Num) (local.get $e))
              (br_on_cast $is_var (ref $Expr) (ref $Var))
              (br_on_cast $is_bin (ref $Expr) (ref $Bin))
              (br_on_cast $is_let (ref $Expr) (ref $Let))
              (br_on_cast_fail $not_if (ref $Expr) (ref $If))
              (local.set $if)
              (if (f32.ne (call $eval (struct.get $If $c (local.get $if)) (local.get $env)) (f32.const 0))
                (then (return_call $eval (struct.get $If $t (local.get $if)) (local.get $env))))
              (return_call $eval (struct.get $If $e (local.get $if)) (local.get $env)))
            (unreachable))
          (local.set $let)
          (array.set $Env (local.get $env) (struct.get $Let $slot (local.get $let))
            (call $eval (struct.get $Let $init (local.get $let)) (local.get $env)))
          (return_call $eval (struct.get $Let $body (local.get $let)) (local.get $env)))
        (local.set $bin)
        (return_call_indirect $ops (type $f32bin)
          (call $eval (struct.get $Bin $l (local.get $bin)) (local.get $env))
          (call $eval (struct.get $Bin $r (local.get $bin)) (local.get $env))
          (struct.get $Bin $op (local.get $bin))))
      (local.set $var)
      (return (array.get $Env (local.get $env) (struct.get $Var $slot (local.get $var)))))
    ;; a Num, or null (an absent else): 0
    (local.set $e)
    (if (result f32) (ref.is_null (local.get $e))
      (then (f32.const 0))
      (else (struct.get $Num $v (ref.cast (ref $Num) (local.get $e))))))

  ;; let x1 = x0 * x0 in 3 * x1 - (2 * x0 - (1 * 1)) with x0 = slot 0
  (func $poly (result (ref $Expr))
    (struct.new $Let (i32.const 3) (i32.const 1)
      (call $bin (i32.const 2) (call $var (i32.const 0)) (call $var (i32.const 0)))
      (call $bin (i32.const 1)
        (call $bin (i32.const 2) (call $num (f32.const 3)) (call $var (i32.const 1)))
        (call $bin (i32.const 1)
          (call $bin (i32.const 2) (call $num (f32.const 2)) (call $var (i32.const 0)))
          (call $bin (i32.const 2) (call $num (f32.const 1)) (call $num (f32.const 1)))))))

  (func $env (param $x f32) (result (ref $Env))
    (local $e (ref $Env))
    (local.set $e (array.new_default $Env (i32.const 4)))
    (array.set $Env (local.get $e) (i32.const 0) (local.get $x))
    (local.get $e))

  (func $eval_poly (result f32)
    (call $eval (call $poly) (call $env (f32.const 2.5))))

  ;; the sum, in f64, over x = 0..99 of max(min(poly(x), 1000), x) / 0.5
  ;; where poly(x) = 3x^2 - 2x + 1
  (func $eval_loop (result f64)
    (local $t (ref $Expr))
    (local $i i32)
    (local $s f64)
    (local.set $t (call $bin (i32.const 3)
      (call $bin (i32.const 5) (call $bin (i32.const 4) (call $poly) (call $num (f32.const 1000))) (call $var (i32.const 0)))
      (call $num (f32.const 0.5))))
    (loop $each
      (local.set $s (f64.add (local.get $s)
        (f64.promote_f32 (call $eval (local.get $t) (call $env (f32.convert_i32_u (local.get $i)))))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 100))))
    (local.get $s))

  ;; constant folding: a Bin of two Nums becomes a Num; unchanged subtrees
  ;; are returned as they are (so shared)
  (func $fold (param $e (ref $Expr)) (result (ref $Expr))
    (local $b (ref $Bin))
    (local $l (ref $Expr))
    (local $r (ref $Expr))
    (local $let (ref $Let))
    (block $not_bin (result (ref $Expr))
      (local.set $b (br_on_cast_fail $not_bin (ref $Expr) (ref $Bin) (local.get $e)))
      (local.set $l (call $fold (struct.get $Bin $l (local.get $b))))
      (local.set $r (call $fold (struct.get $Bin $r (local.get $b))))
      (if (i32.and (ref.test (ref $Num) (local.get $l)) (ref.test (ref $Num) (local.get $r)))
        (then (return (call $num (call_indirect $ops (type $f32bin)
                (struct.get $Num $v (ref.cast (ref $Num) (local.get $l)))
                (struct.get $Num $v (ref.cast (ref $Num) (local.get $r)))
                (struct.get $Bin $op (local.get $b)))))))
      (if (i32.and (ref.eq (local.get $l) (struct.get $Bin $l (local.get $b)))
                   (ref.eq (local.get $r) (struct.get $Bin $r (local.get $b))))
        (then (return (local.get $b))))
      (return (call $bin (struct.get $Bin $op (local.get $b)) (local.get $l) (local.get $r))))
    (drop)
    (block $not_let (result (ref $Expr))
      (local.set $let (br_on_cast_fail $not_let (ref $Expr) (ref $Let) (local.get $e)))
      (return (struct.new $Let (i32.const 3) (struct.get $Let $slot (local.get $let))
        (call $fold (struct.get $Let $init (local.get $let))) (call $fold (struct.get $Let $body (local.get $let))))))
    (drop)
    (local.get $e))

  (func $count (param $e (ref null $Expr)) (result i32)
    (local $x (ref $Expr))
    (block $null
      (local.set $x (br_on_null $null (local.get $e)))
      (br 1 (call $count_node (local.get $x))))
    (i32.const 0))

  (func $count_node (param $x (ref $Expr)) (result i32)
    (if (ref.test (ref $Bin) (local.get $x))
      (then (return (i32.add (i32.const 1)
        (i32.add (call $count (struct.get $Bin $l (ref.cast (ref $Bin) (local.get $x))))
                 (call $count (struct.get $Bin $r (ref.cast (ref $Bin) (local.get $x)))))))))
    (if (ref.test (ref $Let) (local.get $x))
      (then (return (i32.add (i32.const 1)
        (i32.add (call $count (struct.get $Let $init (ref.cast (ref $Let) (local.get $x))))
                 (call $count (struct.get $Let $body (ref.cast (ref $Let) (local.get $x)))))))))
    (i32.const 1))

  ;; folding the poly tree: 1000 if it is still a Let, + its nodes before
  ;; (15) * 100 + after (13: 1 * 1 became a Num)
  (func $fold_count (result i32)
    (local $t (ref $Expr))
    (local $f (ref $Expr))
    (local.set $t (call $poly))
    (local.set $f (call $fold (local.get $t)))
    (i32.add (i32.mul (ref.test (ref $Let) (local.get $f)) (i32.const 1000))
             (i32.add (i32.mul (call $count (local.get $t)) (i32.const 100)) (call $count (local.get $f)))))

  ;; the folded tree gives the same value at x = 0..9
  (func $fold_same (result i32)
    (local $t (ref $Expr))
    (local $f (ref $Expr))
    (local $i i32)
    (local $n i32)
    (local.set $t (call $poly))
    (local.set $f (call $fold (local.get $t)))
    (loop $each
      (local.set $n (i32.add (local.get $n)
        (f32.eq (call $eval (local.get $t) (call $env (f32.convert_i32_u (local.get $i))))
                (call $eval (local.get $f) (call $env (f32.convert_i32_u (local.get $i)))))))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 10))))
    (local.get $n))

  ;; if x then 7 (no else): at x = 1 gives 7, at x = 0 the null else gives 0
  (func $if_null_else (result i32)
    (local $t (ref $Expr))
    (local.set $t (struct.new $If (i32.const 4) (call $var (i32.const 0)) (call $num (f32.const 7)) (ref.null none)))
    (i32.trunc_f32_s (f32.add (call $eval (local.get $t) (call $env (f32.const 1)))
                              (call $eval (local.get $t) (call $env (f32.const 0))))))

  ;; let x = x + 1 in (let x = x + 1 in ... x), 3000 deep, from x = 0
  (func $deep_let (result i32)
    (local $t (ref $Expr))
    (local $i i32)
    (local.set $t (call $var (i32.const 0)))
    (loop $each
      (local.set $t (struct.new $Let (i32.const 3) (i32.const 0)
        (call $bin (i32.const 0) (call $var (i32.const 0)) (call $num (f32.const 1))) (local.get $t)))
      (br_if $each (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 3000))))
    (i32.trunc_f32_s (call $eval (local.get $t) (call $env (f32.const 0)))))

  ;; folding x * (2 + 3) keeps the very Var node and makes one Num:
  ;; bit 0 the left is the same node, bit 1 the right is a new Num 5
  (func $shared_subtrees (result i32)
    (local $x (ref $Var))
    (local $f (ref $Bin))
    (local.set $x (call $var (i32.const 0)))
    (local.set $f (ref.cast (ref $Bin) (call $fold
      (call $bin (i32.const 2) (local.get $x) (call $bin (i32.const 0) (call $num (f32.const 2)) (call $num (f32.const 3)))))))
    (i32.or (ref.eq (struct.get $Bin $l (local.get $f)) (local.get $x))
            (i32.shl (f32.eq (struct.get $Num $v (ref.cast (ref $Num) (struct.get $Bin $r (local.get $f))))
                             (f32.const 5))
                     (i32.const 1))))

  (export "eval_poly" (func $eval_poly))
  (export "eval_loop" (func $eval_loop))
  (export "fold_count" (func $fold_count))
  (export "fold_same" (func $fold_same))
  (export "if_null_else" (func $if_null_else))
  (export "deep_let" (func $deep_let))
  (export "shared_subtrees" (func $shared_subtrees))
)
