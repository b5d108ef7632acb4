#!/usr/bin/env bash
# srcmap.sh — source maps through tilt-opt (issue 22): --input-source-map
# gives the nodes their locations, passes keep them, --output-source-map
# writes them at the output's offsets, --output-source-map-url names the
# map, -S prints them as ;;@ FILE:LINE:COL; bad maps are errors at an
# offset in the map. test/cli/srcmap.py makes a map for a module (each
# instruction its own line) and checks maps against wasm-objdump -d.
. "$(dirname "$0")/common.inc"
need wasm-objdump
need python3
SM="python3 $TILT_SRC/test/cli/srcmap.py"

cat > p.wat <<'W'
(module
  (memory (export "memory") 1)
  (func $sq (param $x i32) (result i32)
    (i32.mul (local.get $x) (local.get $x)))
  (func $div (param $a i32) (param $b i32) (result i32)
    (i32.div_s (local.get $a) (local.get $b)))
  (func $sum (export "sum") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $out
      (loop $top
        (br_if $out (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $s (i32.add (local.get $s) (call $sq (local.get $i))))
        (i32.store (i32.shl (local.get $i) (i32.const 2)) (local.get $s))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $top)))
    (if (result i32) (i32.gt_s (local.get $s) (i32.const 100))
      (then (call $div (local.get $s) (i32.sub (local.get $n) (local.get $n))))
      (else (local.get $s)))))
W
# (a pass makes tilt-opt encode the bodies: with none it copies them as the
# text reader encoded them, locals in declaration order, and this test wants
# the writer's form, which reading with a source map keeps)
check "the module" "$TILT_OPT" p.wat --remove-unused-names -o p.wasm
$SM make p.wasm > p.map
check "the made map is sound" $SM check p.wasm p.map

# no passes: the same code, every instruction at its line
check "tilt-opt -ism -osm" "$TILT_OPT" p.wasm --input-source-map p.map -o q.wasm --output-source-map q.map
check "same code as the input" cmp p.wasm q.wasm
check "each instruction keeps its location" $SM same p.wasm p.map q.wasm q.map
check "the function's own line (prolog) is kept" grep -q "a.c:1002" <($SM lines q.map)
check_sh "--input-source-map=FILE form" '"$TILT_OPT" p.wasm --input-source-map=p.map -o q2.wasm --output-source-map=q2.map && cmp q.map q2.map'

# optimized: fewer instructions, every mapping still at one, no line made up
for lvl in -O2 -Oz; do
  check "tilt-opt $lvl with maps" "$TILT_OPT" p.wasm -ism p.map $lvl -o o.wasm -osm o.map
  check "$lvl: mappings at instructions" $SM check o.wasm o.map
  check_sh "$lvl: every line is an input line" '[ -z "$(comm -23 <($SM lines o.map) <($SM lines p.map))" ]'
  check_sh "$lvl: the division keeps its line" '$SM lines o.map | grep -qx "b.c:7"'
done
check_sh "-S shows locations" '"$TILT_OPT" p.wasm -ism p.map -S | grep -q "^ *;;@ b.c:7:0$"'
check_sh "no map, no ;;@" '! "$TILT_OPT" p.wasm -S | grep -q ";;@"'

# the URL: written last, replacing the input's
check "-osu" "$TILT_OPT" p.wasm -ism p.map -o u.wasm -osm u.map -osu http://x/u.map
check_sh "the sourceMappingURL section is last" '[ "$(customs u.wasm | tail -1)" = sourceMappingURL ]'
check_sh "it names the map" 'grep -q "http://x/u.map" u.wasm'
check "-osu over an input's URL" "$TILT_OPT" u.wasm -osu v.map -o v.wasm
check_sh "one URL, the new one" '[ "$(customs v.wasm | grep -c sourceMappingURL)" = 1 ] && ! grep -q "http://x" v.wasm'
check_sh "--strip-debug drops the URL" '"$TILT_OPT" u.wasm --strip-debug -o s.wasm && ! customs s.wasm | grep -q sourceMappingURL'

# Binaryen 108 on the same input: tilt keeps every line it keeps
if command -v wasm-opt >/dev/null && wasm-opt --version | grep -q "version 1[0-9][0-9]"; then
  check "wasm-opt -ism -osm" wasm-opt p.wasm -ism p.map -o b.wasm -osm b.map -q
  check_sh "tilt keeps Binaryen's lines" '[ -z "$(comm -13 <($SM lines q.map) <($SM lines b.map))" ]'
  check "wasm-opt reads tilt's map" wasm-opt q.wasm -ism q.map -o bq.wasm -osm bq.map -q
  check "tilt reads Binaryen's map" "$TILT_OPT" b.wasm -ism b.map -o qb.wasm -osm qb.map
  check "and writes a sound one" $SM check qb.wasm qb.map
fi

# bad maps: an error at an offset in the map, nothing written
printf '{"version":3,"sources":["a.c"],"mappings":"A' > trunc.map
expect_error "truncated map" '^trunc\.map:0x[0-9a-f]+: error: unterminated string' \
  "$TILT_OPT" p.wasm -ism trunc.map -o x.wasm
echo '{"version":2,"sources":[],"mappings":""}' > v2.map
expect_error "version 2" '^v2\.map:0x[0-9a-f]+: error: version is not 3' "$TILT_OPT" p.wasm -ism v2.map -o x.wasm
echo '{"version":3,"sources":["a.c"],"mappings":"AAAA,C!AA"}' > vlq.map
expect_error "bad VLQ digit" '^vlq\.map: error: mappings: bad base64 VLQ digit at character 6' \
  "$TILT_OPT" p.wasm -ism vlq.map -o x.wasm
echo '{"version":3,"sources":["a.c"],"mappings":"AAAA,ACAA"}' > src.map
expect_error "source out of range" '^src\.map: error: mappings: source 1, .* out of range \(1 sources\)' \
  "$TILT_OPT" p.wasm -ism src.map -o x.wasm
echo '{"version":3,"sources":["a.c"],"mappings":"AAAA;AAAA"}' > lines.map
expect_error "a second generated line" '^lines\.map: error: mappings: a second generated line' \
  "$TILT_OPT" p.wasm -ism lines.map -o x.wasm
# mutated maps (a seed per run): each read ends in a result or an error
seed=${TILT_SRCMAP_SEED:-$RANDOM}
echo "mutation seed $seed (TILT_SRCMAP_SEED)"
check_sh "200 mutated maps: status 0 or 1, never a crash" 'python3 - p.map "$seed" <<'"'"'PY'"'"'
import random, subprocess, sys, os
text = open(sys.argv[1], "rb").read()
rng = random.Random(int(sys.argv[2]))
alphabet = b"AB+/gzC,;\"[]{}:0123456789-e"
for i in range(200):
    b = bytearray(text)
    for _ in range(rng.randint(1, 4)):
        k = rng.randrange(len(b))
        op = rng.randrange(3)
        if op == 0: b[k] = rng.choice(alphabet)
        elif op == 1: del b[k:k + rng.randint(1, 8)]
        else: b[k:k] = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 8)))
    open("mut.map", "wb").write(b)
    r = subprocess.run([os.environ["TILT_OPT"], "p.wasm", "-ism", "mut.map", "-O2", "-o", "m.wasm",
                        "-osm", "m.osm"], capture_output=True)
    if r.returncode not in (0, 1) or b"Sanitizer" in r.stderr:
        sys.exit("mutant %d: status %d: %s" % (i, r.returncode, r.stderr[:500]))
PY'
expect_error "missing map" '^none\.map: error: ' "$TILT_OPT" p.wasm -ism none.map -o x.wasm
check "nothing written" test ! -e x.wasm
if [ -n "${TILT_FINALIZE:-}" ]; then
  # --dwarf without maps keeps DWARF (test/cli/dwarf.sh); with them the
  # map has the lines and DWARF is dropped
  check "finalize: --dwarf without a map (no DWARF in the input)" "$TILT_FINALIZE" p.wasm --dwarf -o x.wasm
fi
finish
