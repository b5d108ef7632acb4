#!/usr/bin/env python3
"""bench/passes — the -O pipelines (issue 5), tilt-opt vs wasm-opt side by side.

For each level (-O2, -Os, -Oz, -O3 by default) and each module, runs
tilt-opt, Debian's wasm-opt (108) and npm binaryen@132.0.0's wasm-opt (on
node) with the same thread count, and reports per module and in total:
output size (after wasm-strip) and the ratio tilt/wasm-opt, wall time and
its ratio, peak RSS and its ratio; every output is checked with
wasm-validate; for the WASI C programs every optimized output is run with
tilt-run and must print what the unoptimized program prints.

Modules: the real modules of the pinned npm packages (test/npm) and C
programs compiled with clang -O0 and -O2 for wasm32-wasi: bench/jit/*.c and
bench/passes/c/*.c; tsjson.c is the tree-sitter runtime (~14k lines of C,
fetched with `npm pack tree-sitter`) with the JSON grammar, a Lua-sized
program (390 kB at -O0). Single passes can be compared with --passes.
Not a test. See bench/README.md.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "npm"))
import npm_modules  # noqa: E402

LEVELS = ["O2", "Os", "Oz", "O3"]
VALIDATE = ["wasm-validate", "--enable-threads", "--enable-tail-call", "--enable-extended-const",
            "--enable-relaxed-simd", "--enable-exceptions", "--enable-memory64"]
# C sources fetched with `npm pack` (the tree-sitter runtime and a grammar).
C_SOURCES = ["tree-sitter@0.25.1", "tree-sitter-json@0.24.8"]
# wasm-opt's features: the ones these modules use and wasm-validate knows
# (wasm-opt 132's --all-features writes exact-function imports, which wabt
# rejects; --detect-features misses bulk memory on sql.js).
FEATS = ["--enable-threads", "--enable-bulk-memory", "--enable-sign-ext", "--enable-mutable-globals",
         "--enable-nontrapping-float-to-int", "--enable-simd", "--enable-reference-types",
         "--enable-multivalue", "--enable-tail-call", "--enable-extended-const",
         "--enable-exception-handling", "--enable-relaxed-simd", "--enable-memory64"]


def flag(p):
    return "-" + p if p[0] == "O" and len(p) <= 2 else "--" + p


def build_tools(build):
    cfg = ["cmake", "-S", REPO, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DTILT_SANITIZE=OFF",
           "-DTILT_TESTS=OFF", "-DTILT_WERROR=OFF"]
    for cmd in (cfg, ["cmake", "--build", build, "-j2", "--target", "tilt-opt", "tilt-run"]):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            sys.exit("bench: %s failed:\n%s" % (" ".join(cmd), p.stdout.decode()[-2000:]))
    return os.path.join(build, "tilt-opt"), os.path.join(build, "tilt-run")


def fetch_c_sources(cache):
    """Unpacks C_SOURCES into cache/csrc/<name>; returns that dir or None."""
    root = os.path.join(cache, "csrc")
    os.makedirs(root, exist_ok=True)
    for spec in C_SOURCES:
        name = npm_modules.pkg_name(spec)
        dest = os.path.join(root, name)
        if os.path.isdir(dest):
            continue
        p = subprocess.run(["npm", "pack", spec, "--pack-destination", root],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        tgz = os.path.join(root, "%s-%s.tgz" % (name, spec.rsplit("@", 1)[1]))
        if p.returncode or not os.path.exists(tgz):
            print("bench: npm pack %s failed, tsjson skipped" % spec)
            return None
        with tarfile.open(tgz) as t:
            t.extractall(dest)
    return root


def compile_c(out, cache):
    """bench/jit/*.c and bench/passes/c/*.c at clang -O0 and -O2."""
    mods = []
    csrc = fetch_c_sources(cache)
    srcs = sorted(glob.glob(os.path.join(REPO, "bench", "jit", "*.c")) + glob.glob(os.path.join(HERE, "c", "*.c")))
    for src in srcs:
        base = os.path.basename(src)[:-2]
        extra = []
        if base == "tsjson":
            if not csrc:
                continue
            lib = os.path.join(csrc, "tree-sitter", "package", "vendor", "tree-sitter", "lib")
            extra = ["-D_POSIX_C_SOURCE=200112L", "-I" + os.path.join(lib, "include"), "-I" + os.path.join(lib, "src"),
                     os.path.join(lib, "src", "lib.c"), os.path.join(csrc, "tree-sitter-json", "package", "src", "parser.c")]
        for o in ("O0", "O2"):
            w = os.path.join(out, "c-%s-%s.wasm" % (o, base))
            if not os.path.exists(w) or os.path.getmtime(w) < os.path.getmtime(src):
                p = subprocess.run(["clang", "--target=wasm32-wasi", "--sysroot=/usr", "-" + o, "-Wl,--strip-debug", src, *extra,
                                    "-o", w],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                if p.returncode:
                    print("bench: %s does not compile (%s), skipped" % (src, p.stdout.decode()[-300:]))
                    continue
            mods.append(("c%s/%s" % (o, base), w, True))
    # memory64 (issue 20): test/memory64/programs.c, freestanding, as wasm64
    # (Debian has no wasm64 libc, so it is not a WASI program: no run check
    # here; test/memory64/run.sh runs it)
    src = os.path.join(REPO, "test", "memory64", "programs.c")
    for o in ("O0", "O2"):
        w = os.path.join(out, "c64-%s-programs.wasm" % o)
        if not os.path.exists(w) or os.path.getmtime(w) < os.path.getmtime(src):
            p = subprocess.run(["clang", "--target=wasm64", "-" + o, "-nostdlib", "-Wl,--no-entry",
                                "-Wl,--export=run", src, "-o", w], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if p.returncode:
                print("bench: no wasm64 build of %s (%s), skipped" % (src, p.stdout.decode()[-300:]))
                continue
        mods.append(("c%s/memory64-programs" % o, w, False))
    return mods


def measure(cmd, reps, env=None):
    """Best-of-reps (wall s, peak RSS kB, CPU s = user + sys) under
    /usr/bin/time, or (None, why)."""
    best = None
    for _ in range(reps):
        p = subprocess.run(["/usr/bin/time", "-f", "@@ %e %M %U %S", *cmd],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        err = p.stderr.decode(errors="replace")
        if p.returncode or "@@" not in err:
            return None, " ".join(err.strip().splitlines()[-2:])[:100]
        e, m, u, s = err[err.rindex("@@"):].split()[1:5]
        r = (float(e), int(m), float(u) + float(s))
        best = r if best is None else tuple(min(x, y) for x, y in zip(best, r))
    return best, None


def stripped_size(path):
    """Size without custom sections (names, producers): wasm-opt drops the
    name section unless -g, so raw sizes would not compare the code."""
    s = path + ".strip"
    shutil.copyfile(path, s)
    p = subprocess.run(["wasm-strip", s], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    n = os.path.getsize(s) if p.returncode == 0 else os.path.getsize(path)
    os.unlink(s)
    return n


def valid(path):
    p = subprocess.run(VALIDATE + [path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode == 0, p.stdout.decode(errors="replace").strip().splitlines()[:1]


def run_wasi(runner, path):
    try:
        p = subprocess.run([runner, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "%d\n%s" % (p.returncode, p.stdout.decode(errors="replace"))


def ratio(a, b):
    return "%.3f" % (a / b) if b else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", help="tilt-opt to use (default: build <repo>/build-bench2)")
    ap.add_argument("--run", help="tilt-run to use (default: next to --tool)")
    ap.add_argument("--cache", default=os.environ.get("TILT_NPM_CACHE",
                                                      os.path.join(REPO, "build-bench2", "npm-cache")))
    ap.add_argument("-n", "--reps", type=int, default=1, help="runs per tool (best of)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="threads for every tool (tilt --threads, BINARYEN_CORES)")
    ap.add_argument("--filter", default="", help="only modules whose label contains this")
    ap.add_argument("--levels", "--passes", default=",".join(LEVELS),
                    help="comma-separated: O2,Os,... or pass names")
    ap.add_argument("--min-size", type=int, default=100000, help="skip smaller npm modules (bytes)")
    ap.add_argument("--exclude", default="pkg.node/,pkg.web/,esbuild",
                    help="comma-separated substrings of module labels to skip (duplicates, too slow)")
    ap.add_argument("--no-npm", action="store_true", help="skip the npm modules")
    ap.add_argument("--no-c", action="store_true", help="skip the C programs")
    ap.add_argument("--no-node", action="store_true", help="skip wasm-opt 132 (node)")
    ap.add_argument("--only", default="", help="comma-separated module labels (substrings) to keep")
    a = ap.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("bench: /usr/bin/time is needed (apt-get install time)")
    cache = os.path.abspath(a.cache)
    why = npm_modules.fetch(cache, npm_modules.PACKAGES + [npm_modules.BINARYEN])
    if why:
        sys.exit("bench: " + why)
    if a.tool:
        tool, runner = a.tool, a.run or os.path.join(os.path.dirname(a.tool), "tilt-run")
    else:
        tool, runner = build_tools(os.path.join(REPO, "build-bench2"))
    out = os.path.join(cache, "bench-passes")
    os.makedirs(out, exist_ok=True)
    th = str(a.threads)
    env = dict(os.environ, BINARYEN_CORES=th)
    tools = [("tilt", lambda p, i, o: [tool, "--threads", th, flag(p), "-all", i, "-o", o])]
    if shutil.which("wasm-opt"):
        tools.append(("wo108", lambda p, i, o: ["wasm-opt", *FEATS, flag(p), i, "-o", o]))
    npm_opt = os.path.join(cache, "node_modules", ".bin", "wasm-opt")
    if os.path.exists(npm_opt) and not a.no_node:
        tools.append(("wo132", lambda p, i, o: [npm_opt, *FEATS, "--enable-bulk-memory-opt", flag(p), i, "-o", o]))
    mods = []
    if not a.no_npm:
        mods += [(l, p, False) for l, p, _ in npm_modules.collect(cache) if os.path.getsize(p) >= a.min_size]
    if not a.no_c:
        mods += compile_c(out, cache)
    excl = [x for x in a.exclude.split(",") if x]
    mods = [m for m in mods if a.filter in m[0] and not any(x in m[0] for x in excl)]
    if a.only:
        mods = [m for m in mods if any(x in m[0] for x in a.only.split(","))]
    print("date %s; load average %.1f %.1f %.1f; best of %d; %s threads per tool; sizes in bytes after wasm-strip; "
          "wall s; peak RSS MB; cpu = user+sys s; ratios = tilt / wasm-opt (< 1: tilt smaller / faster / less memory); "
          "run: optimized WASI program prints the same as unoptimized (tilt-run)"
          % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), *os.getloadavg(), a.reps, th))
    names = [n for n, _ in tools]
    others = names[1:]
    expected = {}
    for label, path, wasi in mods:
        if wasi:  # cached next to the module: the programs take seconds each
            cache_out = path + ".expected"
            if os.path.exists(cache_out) and os.path.getmtime(cache_out) > os.path.getmtime(path):
                with open(cache_out) as f:
                    expected[label] = f.read()
            else:
                expected[label] = run_wasi(runner, path)
                with open(cache_out, "w") as f:
                    f.write(expected[label])
    problems = []
    summary = []
    for ps in a.levels.split(","):
        print("\n## %s\n" % flag(ps))
        hdr = "| %-28s | %8s |" % ("module", "in")
        hdr += "".join(" %s |" % n for n in names)
        hdr += "".join(" size /%s |" % n[2:] for n in others)
        hdr += "".join(" time /%s |" % n[2:] for n in others)
        hdr += "".join(" mem /%s |" % n[2:] for n in others)
        hdr += "".join(" cpu /%s |" % n[2:] for n in others)
        hdr += " tilt s | tilt MB | run |"
        print(hdr)
        print("|" + "---|" * (hdr.count("|") - 1))
        groups = {}
        for label, path, wasi in mods:
            size = stripped_size(path)
            res, ran = {}, ""
            for n, cmd in tools:
                o = os.path.join(out, "%s-%s-%s" % (n, ps, label.replace("/", "_")))
                if os.path.exists(o):
                    os.unlink(o)
                r, err = measure(cmd(ps, path, o), a.reps, env)
                if r is None:
                    problems.append("%s %s %s: FAILED %s" % (n, ps, label, err))
                    continue
                ok, msg = valid(o)
                if not ok:
                    problems.append("%s %s %s: INVALID %s" % (n, ps, label, " ".join(msg)))
                if wasi and n == "tilt":
                    same = run_wasi(runner, o) == expected[label]
                    ran = "same" if same else "DIFFERS"
                    if not same:
                        problems.append("%s %s %s: output differs from the unoptimized program" % (n, ps, label))
                res[n] = (stripped_size(o), r[0], r[1], r[2])
            line = "| %-28s | %8d |" % (label[-28:], size)
            line += "".join(" %s |" % (res[n][0] if n in res else "FAIL") for n in names)
            t = res.get("tilt")
            for k in (0, 1, 2, 3):
                line += "".join(" %s |" % (ratio(t[k], res[n][k]) if t and n in res else "-") for n in others)
            line += " %s | %s | %s |" % ("%.2f" % t[1] if t else "-", "%.0f" % (t[2] / 1024) if t else "-", ran or "")
            print(line, flush=True)
            if all(n in res for n in names):
                g = "npm" if not wasi else label.split("/")[0]
                for key in (g, "all"):
                    acc = groups.setdefault(key, {n: [0, 0.0, 0, 0.0] for n in names + ["in"]})
                    acc["in"][0] += size
                    for n in names:
                        acc[n][0] += res[n][0]
                        acc[n][1] += res[n][1]
                        acc[n][2] = max(acc[n][2], res[n][2])
                        acc[n][3] += res[n][3]
        for g in sorted(groups, key=lambda g: g == "all"):
            acc = groups[g]
            line = "| **total %s** | %8d |" % (g, acc["in"][0])
            line += "".join(" %d |" % acc[n][0] for n in names)
            for k in (0, 1, 2, 3):
                line += "".join(" %s |" % ratio(acc["tilt"][k], acc[n][k]) for n in others)
            line += " %.2f | %.0f | |" % (acc["tilt"][1], acc["tilt"][2] / 1024)
            print(line, flush=True)
            summary.append((ps, g, acc))
    print("\n## summary (totals; time = sum of wall times, memory = max of peak RSS, cpu = sum of user+sys)\n")
    hdr = "| level | modules | " + " | ".join("size /%s | time /%s | mem /%s | cpu /%s" % ((n[2:],) * 4) for n in others) + " |"
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    for ps, g, acc in summary:
        cells = []
        for n in others:
            cells += [ratio(acc["tilt"][k], acc[n][k]) for k in (0, 1, 2, 3)]
        print("| %s | %s | %s |" % (flag(ps), g, " | ".join(cells)))
    if problems:
        print("\nPROBLEMS:")
        for p in problems:
            print("  " + p)
    else:
        print("\nevery output valid (wasm-validate), every optimized WASI program printed the same")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
