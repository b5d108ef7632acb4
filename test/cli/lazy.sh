#!/usr/bin/env bash
# lazy.sh — tilt-opt keeps function bodies as bytes until something needs
# their IR (issue 21): with no passes, or only passes that leave bodies alone
# (--strip-producers, --minify-imports-and-exports), a body is copied as it
# came, padding and all; a function pass, -S and --print decode it; a body
# that is not valid is refused with its offset all the same.
. "$(dirname "$0")/common.inc"
need python3
need wasm-validate

# f returns 7 from an i32.const whose LEB128 is padded to 5 bytes (a
# writer emits 1 byte); g calls f. Both exported.
python3 - <<'EOF'
def leb(n):
    out = bytearray()
    while True:
        b = n & 0x7f; n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n: return bytes(out)
def sec(i, body): return bytes([i]) + leb(len(body)) + body
def vec(items): return leb(len(items)) + b"".join(items)
def name(s): return leb(len(s)) + s.encode()
types = sec(1, vec([b"\x60\x00\x01\x7f"]))
funcs = sec(3, vec([b"\x00", b"\x00"]))
exports = sec(7, vec([name("f") + b"\x00\x00", name("g") + b"\x00\x01"]))
f = b"\x00" + b"\x41\x87\x80\x80\x80\x00" + b"\x0b"          # i32.const 7 (padded)
g = b"\x00" + b"\x10\x00" + b"\x0b"                          # call f
code = sec(10, vec([leb(len(f)) + f, leb(len(g)) + g]))
mod = b"\0asm\1\0\0\0" + types + funcs + exports + code
open("padded.wasm", "wb").write(mod)
bad = bytearray(mod)
bad[mod.index(b"\x41\x87")] = 0x42                           # i64.const: f returns i64
open("bad.wasm", "wb").write(bytes(bad))
EOF
size() { wc -c < "$1" | tr -d ' '; }

check "no passes: out.wasm written" "$TILT_OPT" padded.wasm -o out.wasm
check "it validates" wasm-validate out.wasm
check "the padded body is copied as it came (same bytes)" cmp padded.wasm out.wasm
check_sh "--strip-producers and --minify-imports-and-exports copy bodies too" \
  '"$TILT_OPT" padded.wasm --strip-producers -o s.wasm && cmp padded.wasm s.wasm &&
   "$TILT_OPT" padded.wasm --minify-imports-and-exports -o mi.wasm > /dev/null &&
   python3 -c "import sys; a=open(\"padded.wasm\",\"rb\").read(); b=open(\"mi.wasm\",\"rb\").read(); sys.exit(a[a.index(b\"\\x41\\x87\"):] [:6] not in b)"'
check "a function pass decodes and re-encodes: --vacuum" "$TILT_OPT" padded.wasm --vacuum -o v.wasm
check_sh "the re-encoded body is 4 bytes smaller" '[ $(( $(size padded.wasm) - $(size v.wasm) )) = 4 ]'
check "and validates" wasm-validate v.wasm
check_sh "--print decodes the lazy body" '"$TILT_OPT" padded.wasm --print | grep -q "i32.const 7"'
check_sh "-S writes its text" '"$TILT_OPT" padded.wasm -S -o out.wat && grep -q "i32.const 7" out.wat'
check_sh "-o onto the input itself (its mapping holds the lazy bodies until they are written)" \
  'cp padded.wasm same.wasm && "$TILT_OPT" same.wasm -o same.wasm && cmp padded.wasm same.wasm &&
   "$TILT_OPT" same.wasm --vacuum -o same.wasm && cmp v.wasm same.wasm'
expect_error "a body that is not valid is still refused, with its offset" \
  "bad.wasm:0x[0-9a-f]+: .*type mismatch" "$TILT_OPT" bad.wasm -o x.wasm
# --directize reads the bodies it leaves alone as bytes: the table writes
# it must see (table.set into $w; table.copy into $c, from $r) come from
# them, and only a body calling through a known table is decoded. Calls
# through $w and $c stay; the one through $r (index 1: $b) becomes call 1.
if command -v wat2wasm > /dev/null; then
  cat > tables.wat <<'EOF'
(module
  (type $t (func (result i32)))
  (table $w 2 funcref)
  (table $c 2 funcref)
  (table $r 2 funcref)
  (elem (table $w) (i32.const 0) func $a $b)
  (elem (table $c) (i32.const 0) func $a $b)
  (elem (table $r) (i32.const 0) func $a $b)
  (func $a (result i32) i32.const 1)
  (func $b (result i32) i32.const 2)
  (func (export "set") (table.set $w (i32.const 0) (ref.null func)))
  (func (export "copy") (table.copy $c $r (i32.const 0) (i32.const 0) (i32.const 1)))
  (func (export "cw") (result i32) (call_indirect $w (type $t) (i32.const 0)))
  (func (export "cc") (result i32) (call_indirect $c (type $t) (i32.const 0)))
  (func (export "cr") (result i32) (call_indirect $r (type $t) (i32.const 1))))
EOF
  check "tables.wat assembles" wat2wasm --enable-all tables.wat -o tables.wasm
  check "--directize on it" "$TILT_OPT" -all tables.wasm --directize -o dz.wasm
  check_sh "calls through the written tables stay, the other becomes call 1" \
    '"$TILT_OPT" -all dz.wasm --print > dz.txt && grep -q "(call_indirect (type 0) (i32.const 0))" dz.txt &&
     grep -q "(call_indirect 1 (type 0) (i32.const 0))" dz.txt && grep -q "(call 1))" dz.txt &&
     [ $(grep -c call_indirect dz.txt) = 2 ]'
fi
if [ -n "${TILT_RUN:-}" ]; then
  check_sh "the copied module runs: g() = 7" '"$TILT_RUN" --invoke g out.wasm | grep -qx "i32:7"'
  check_sh "-O2 output runs the same" '"$TILT_OPT" padded.wasm -O2 -o o2.wasm && "$TILT_RUN" --invoke g o2.wasm | grep -qx "i32:7"'
fi
finish
