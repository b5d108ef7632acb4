#!/usr/bin/env bash
# emcc.sh — Emscripten with tilt's tools in Binaryen's place (issue 22).
# Debian's emcc 3.1.6 runs wasm-opt, wasm-metadce and wasm-emscripten-finalize
# by their bare names, so build/binaryen/bin (links with those names to
# tilt-opt, tilt-metadce and tilt-emscripten-finalize) goes first on PATH;
# wrappers there log each call, so the test knows tilt's tools ran.
# A program of test/emcc is linked at one of -O0..-Oz, run under
# node, and its output compared with NAME.out. CI builds one pair per
# commit, chosen from the commit hash; TILT_EMCC_ALL=1 builds all of them,
# with Binaryen's tools too, and prints the sizes and link times
# (TILT_EMCC_PROGS narrows the set).
. "$(dirname "$0")/common.inc"
need emcc
need node
: "${TILT_BINARYEN_BIN:?set by test/cli.cmake}"
[ -d /usr/share/nodejs ] && export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
SRC=$TILT_SRC/test/emcc

# program: compile flags | link flags
progs=(fnptr.c containers.cpp text.c emjs.c safeheap.c fpcast.c asyncify.c srcmap.c ctors.cpp autodebug.c wasmexc.cpp threads.c dwarf.c)
# TILT_EMCC_PROGS="a.c b.cpp": only these (with TILT_EMCC_ALL: at every level)
[ -n "${TILT_EMCC_PROGS:-}" ] && read -ra progs <<< "$TILT_EMCC_PROGS"
cflags() { case $1 in containers.cpp) echo -fexceptions ;; srcmap.c) echo -gsource-map ;; dwarf.c) echo -g ;; wasmexc.cpp) echo -fwasm-exceptions ;; threads.c) echo -pthread ;; esac; }
lflags() { case $1 in containers.cpp) echo -fexceptions -sEVAL_CTORS ;; fnptr.c) echo -sALLOW_MEMORY_GROWTH ;; safeheap.c) echo -sSAFE_HEAP=1 ;; fpcast.c) echo -sEMULATE_FUNCTION_POINTER_CASTS ;; asyncify.c) echo -sASYNCIFY ;; srcmap.c) echo -gsource-map ;; dwarf.c) echo -g ;; ctors.cpp) echo -sEVAL_CTORS ;; wasmexc.cpp) echo -fwasm-exceptions ;; threads.c) echo -pthread -sPTHREAD_POOL_SIZE=4 -sEXIT_RUNTIME=1 ;; esac; }
# environment for the link: EMCC_AUTODEBUG is emcc's own switch
lenv() { case $1 in autodebug.c) echo EMCC_AUTODEBUG=1 ;; esac; }
levels=(-O0 -O1 -O2 -O3 -Os -Oz)
SM="python3 $TILT_SRC/test/cli/srcmap.py"
DW="python3 $TILT_SRC/test/cli/dwarf.py"
# the lines emcc's AUTODEBUG imports print (left out when comparing)
autolog="^(log_execution|get_|set_|load_ptr|load_val_|store_ptr|store_val_)[a-z0-9]* "

# trap_line DIR NAME: the source line the map gives for where the program
# traps (node's wasm-function[N]:0xOFFSET of the first frame)
trap_line() {
  local off
  off=$(node --no-experimental-fetch $1/$2.js x 2>&1 | grep -m1 -o 'wasm-function\[[0-9]*\]:0x[0-9a-f]*' | sed 's/.*://')
  [ -n "$off" ] && $SM at $1/$2.wasm.map $off
}

# dwarf_line DIR NAME: the source line .debug_line gives for where the
# program traps
dwarf_line() {
  local off
  off=$(node --no-experimental-fetch $1/$2.js x 2>&1 | grep -m1 -o 'wasm-function\[[0-9]*\]:0x[0-9a-f]*' | sed 's/.*://')
  [ -n "$off" ] && $DW at $1/$2.wasm $off
}

# The wrappers log each call; finalize's also keeps its input (the
# linker's output) as fin-in.wasm, what the line tables are checked against.
mkdir -p bin
for tool in wasm-opt wasm-metadce wasm-emscripten-finalize wasm-ctor-eval; do
  keep=""
  [ $tool = wasm-emscripten-finalize ] &&
    keep='for a in "$@"; do case $a in *.wasm) cp "$a" "'"$T"'/fin-in.wasm"; break ;; esac; done'
  printf '#!/bin/sh\necho "%s $*" >> "%s/tools.log"\n%s\nexec "%s/%s" "$@"\n' \
    "$tool" "$T" "$keep" "$TILT_BINARYEN_BIN" "$tool" > bin/$tool
  chmod +x bin/$tool
done

pairs=()
if [ -n "${TILT_EMCC_ALL:-}" ]; then
  for p in "${progs[@]}"; do for l in "${levels[@]}"; do pairs+=("$p $l"); done; done
else
  head=$(git -C "$TILT_SRC" rev-parse HEAD 2>/dev/null || echo 0)
  k=$(( 0x${head:0:6} % (${#progs[@]} * ${#levels[@]}) ))
  pairs=("${progs[k / ${#levels[@]}]} ${levels[k % ${#levels[@]}]}")
fi

now() { date +%s.%N; }
compiled=""
# link NAME LEVEL TAG PATHPREFIX: out/TAG/NAME-LEVEL.js; prints the seconds.
link() {
  local p=$1 l=$2 tag=$3 pre=$4 cc=emcc t0 t1
  case $p in *.cpp) cc=em++ ;; esac
  mkdir -p out/$tag
  t0=$(now)
  env $(lenv $p) PATH=$pre$PATH $cc $l $(lflags $p) ${p%.*}.o -o out/$tag/${p%.*}$l.js 2>"$T/link.err" || return 1
  t1=$(now)
  echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}'
}

for pair in "${pairs[@]}"; do
  set -- $pair
  p=$1 l=$2 n=${1%.*} cc=emcc
  case $p in *.cpp) cc=em++ ;; esac
  case " $compiled " in *" $p "*) ;; *)
    check "$p: $cc -O2 -c" $cc -O2 $(cflags $p) -c "$SRC/$p" -o $n.o
    compiled="$compiled $p" ;;
  esac
  : > tools.log
  if secs=$(link $p $l tilt "$T/bin:"); then pass "$p $l: emcc links with tilt's tools (${secs}s)"
  else fail "$p $l: emcc with tilt's tools: $(head -c 2000 link.err)"; continue; fi
  case $l in -O0|-O1) ;; *) check_sh "$p $l: tilt-opt ran" 'grep -q "^wasm-opt .*'"$l"'" tools.log' ;; esac
  check_sh "$p $l: tilt-emscripten-finalize ran" 'grep -q "^wasm-emscripten-finalize .*--minimize-wasm-changes" tools.log'
  case $p:$l in srcmap.c:*|autodebug.c:*|dwarf.c:*) ;; # -g, AUTODEBUG: emcc runs neither (for Binaryen too)
  *:-O3|*:-Os|*:-Oz)
    check_sh "$p $l: tilt-metadce and the import/export minifier ran" \
      'grep -q "^wasm-metadce --graph-file=" tools.log && grep -q "^wasm-opt .*--minify-imports-and-exports-and-modules" tools.log' ;;
  esac
  check_sh "$p $l: runs under node as built natively" \
    'node --no-experimental-fetch out/tilt/'"$n$l"'.js > log.txt && grep -Ev "$autolog" log.txt > got.txt && diff "$SRC/'"$n"'.out" got.txt'
  if [ $p = fpcast.c ]; then
    check_sh "$p $l: tilt-opt ran --fpcast-emu" 'grep -q "^wasm-opt .*--fpcast-emu" tools.log'
  fi
  if [ $p = asyncify.c ]; then
    check_sh "$p $l: tilt-opt ran --asyncify with emcc's import list" 'grep -q "^wasm-opt .*--asyncify .*asyncify-imports@" tools.log'
  fi
  if [ $p = autodebug.c ]; then
    check_sh "$p $l: tilt-opt instrumented it" \
      'grep -q "^wasm-opt .*--instrument-locals --log-execution --instrument-memory" tools.log'
    check_sh "$p $l: every kind of access was logged" \
      'for k in log_execution get_i32 set_i32 load_ptr load_val_i32 store_ptr store_val_i32 load_val_f64; do grep -q "^$k " log.txt || { echo "no $k"; exit 1; }; done'
  fi
  if [ $p = ctors.cpp ]; then
    check_sh "$p $l: tilt-ctor-eval ran" 'grep -q "^wasm-ctor-eval --ctors=__wasm_call_ctors" tools.log'
    check_sh "$p $l: the constructors ran at build time (emcc took the JS call to __wasm_call_ctors out)" \
      '! grep -q "addOnInit(Module\[\"asm\"\]\[\"__wasm_call_ctors\"\])" out/tilt/'"$n$l"'.js'
  fi
  if [ $p = srcmap.c ]; then
    check_sh "$p $l: tilt-opt and finalize carried the source map" \
      'grep -q "^wasm-opt .*--output-source-map=" tools.log && grep -q "^wasm-emscripten-finalize .*--output-source-map=" tools.log'
    if command -v wasm-objdump >/dev/null; then
      check "$p $l: every mapping at an instruction" $SM check out/tilt/$n$l.wasm out/tilt/$n$l.wasm.map
    fi
    check_sh "$p $l: the trap maps to the division's line" '[ "$(trap_line out/tilt $n$l)" = srcmap.c:14 ]'
  fi
  if [ $p = dwarf.c ]; then
    check_sh "$p $l: finalize kept DWARF (--dwarf), tilt-opt -g did not strip it" \
      'grep -q "^wasm-emscripten-finalize .*--dwarf" tools.log && ! grep -q -- "--strip-dwarf" tools.log &&
       { case '"$l"' in -O0|-O1) true ;; *) grep -q "^wasm-opt .* -g" tools.log ;; esac; }'
    cp fin-in.wasm out/tilt/$n$l.in.wasm
    if command -v llvm-dwarfdump >/dev/null && command -v wasm-objdump >/dev/null; then
      check "$p $l: rows at instructions, sequences and subprograms span functions" $DW check out/tilt/$n$l.wasm
      check "$p $l: the line table gives the linker's lines" $DW same out/tilt/$n$l.in.wasm out/tilt/$n$l.wasm
      check_sh "$p $l: the trap maps to the division's line" '[ "$(dwarf_line out/tilt $n$l)" = dwarf.c:16 ]'
    else
      echo "SKIP: $p $l: the line table checks need llvm-dwarfdump and wasm-objdump"
    fi
  fi
  if [ $p = safeheap.c ]; then
    check_sh "$p $l: tilt-opt ran --safe-heap" 'grep -q "^wasm-opt .*--safe-heap" tools.log'
    check_sh "$p $l: a null read aborts with a segmentation fault" \
      '! node --no-experimental-fetch out/tilt/'"$n$l"'.js x > bad.txt 2>&1 && grep -q "Aborted(segmentation fault)" bad.txt'
  fi
  if [ -n "${TILT_EMCC_ALL:-}" ]; then
    if bsecs=$(link $p $l binaryen ""); then
      check_sh "$p $l: Binaryen build prints the same" \
        'node --no-experimental-fetch out/binaryen/'"$n$l"'.js | grep -Ev "$autolog" > want.txt && diff want.txt got.txt'
      if [ $p = dwarf.c ] && command -v llvm-dwarfdump >/dev/null && command -v wasm-objdump >/dev/null; then
        check_sh "$p $l: the Binaryen build's DWARF gives the trap the same line" \
          '[ "$(dwarf_line out/binaryen $n$l)" = "$(dwarf_line out/tilt $n$l)" ]'
        # where Binaryen's lines differ from the linker's, tilt's must not
        check "$p $l: the same lines as Binaryen's (or the linker's where Binaryen's differ)" \
          $DW same3 out/tilt/$n$l.in.wasm out/binaryen/$n$l.wasm out/tilt/$n$l.wasm
        check_sh "$p $l: llvm-dwarfdump --verify finds no more errors in tilt's DWARF than in Binaryen's" \
          '[ $(llvm-dwarfdump --verify out/tilt/'"$n$l"'.wasm 2>&1 | grep -c "error:") -le $(llvm-dwarfdump --verify out/binaryen/'"$n$l"'.wasm 2>&1 | grep -c "error:") ]'
      fi
      if [ $p = srcmap.c ]; then
        check_sh "$p $l: the Binaryen build's map gives the trap the same line" \
          '[ "$(trap_line out/binaryen $n$l)" = "$(trap_line out/tilt $n$l)" ]'
        check_sh "$p $l: tilt's map has as many lines as Binaryen's (or more)" \
          '[ $($SM lines out/tilt/'"$n$l"'.wasm.map | wc -l) -ge $($SM lines out/binaryen/'"$n$l"'.wasm.map | wc -l) ]'
      fi
      printf '%-16s %-4s wasm tilt %7d binaryen %7d  js tilt %7d binaryen %7d  link s tilt %6s binaryen %6s\n' \
        $p $l $(stat -c%s out/tilt/$n$l.wasm) $(stat -c%s out/binaryen/$n$l.wasm) \
        $(stat -c%s out/tilt/$n$l.js) $(stat -c%s out/binaryen/$n$l.js) $secs $bsecs >> sizes.txt
    else
      fail "$p $l: emcc with Binaryen: $(head -c 2000 link.err)"
    fi
  fi
done
# Dynamic linking: a side module and a main module loading it, built with
# tilt's tools at one level (by the commit; all of them with TILT_EMCC_ALL)
# and run from their directory (the main module loads libside.wasm there).
head=$(git -C "$TILT_SRC" rev-parse HEAD 2>/dev/null || echo 0)
dlevels=("${levels[$(( 0x${head:0:6} % ${#levels[@]} ))]}")
[ -n "${TILT_EMCC_ALL:-}" ] && dlevels=("${levels[@]}")
for l in "${dlevels[@]}"; do
  mkdir -p dyl$l && : > tools.log
  if (cd dyl$l && PATH=$T/bin:$PATH emcc $l -sSIDE_MODULE "$SRC/dylink_side.c" -o libside.wasm &&
      PATH=$T/bin:$PATH emcc $l -sMAIN_MODULE=2 "$SRC/dylink_main.c" libside.wasm -o main.js) 2>link.err; then
    pass "dylink $l: side and main modules link with tilt's tools"
    check_sh "dylink $l: tilt's tools ran" 'grep -q "^wasm-emscripten-finalize .*--side-module" tools.log'
    check_sh "dylink $l: the main module runs the side module's code" \
      '(cd dyl'"$l"' && node --no-experimental-fetch main.js) > got.txt && diff "$SRC/dylink.out" got.txt'
  else
    fail "dylink $l: $(head -c 2000 link.err)"
  fi
done

if [ -f sizes.txt ]; then
  cat sizes.txt
  # per level: the whole set's .wasm bytes and link seconds, tilt / Binaryen
  awk '{w[$2] += $5; bw[$2] += $7; t[$2] += $16; bt[$2] += $18; if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 } }
       END { for (i = 0; i < n; i++) { l = order[i];
         printf "total %-4s wasm tilt %8d binaryen %8d (%.4fx)  link s tilt %7.2f binaryen %7.2f (%.2fx)\n",
           l, w[l], bw[l], w[l] / bw[l], t[l], bt[l], t[l] / bt[l] } }' sizes.txt
fi
finish
