#!/usr/bin/env python3
"""run.py — the GC corpus (test/gc/*.wat) through tilt, against binaryen 132.

For each program: binaryen 132's --fuzz-exec on the original gives the
reference results (checked against the file's `;; expect:` lines). Then

  - `tilt-opt -all FILE --fuzz-exec` must give the same results;
  - `tilt-opt -all FILE -O2`, `-O3` and `-O2 --closed-world` must succeed,
    and each output must (a) validate with binaryen 132, (b) give the same
    results under binaryen's --fuzz-exec, (c) give the same results under
    `tilt-run --invoke NAME` (each export in a fresh instance; the corpus
    keeps exports independent of call order), on the interpreter and on
    the JIT; the original goes through tilt-run too.

Results compare export by export (a trap matches a trap whatever its
message). Prints a PASS/FAIL line per file with the reasons, a table of
tilt's output sizes beside binaryen 132's with the same flags (ratio =
tilt / binaryen), and a summary. Exit status: 0 all passed, 1 a failure,
77 binaryen 132 not found (skipped), 2 bad usage.

usage: run.py TILT_BUILD_DIR [--binaryen WASM_OPT] [--out DIR] [-j N]
              [--engines interp,jit] [FILE.wat...]
"""
import argparse
import concurrent.futures as cf
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402

CONFIGS = [("O2", ["-O2"]), ("O3", ["-O3"]), ("O2cw", ["-O2", "--closed-world"])]
RUN_TIMEOUT = 120


class Tools:
    def __init__(self, build, wasm_opt, engines):
        self.opt = os.path.join(build, "tilt-opt")
        self.run = os.path.join(build, "tilt-run")
        self.wo = wasm_opt
        self.engines = engines


def tilt_could_not_read(rc, out):
    """Why tilt-opt gave no fuzz-exec log (None if it gave one)."""
    if "[fuzz-exec] before the passes" in out:
        return None
    if rc in (-998, -999):
        return "tilt-opt did not run: " + out.strip()
    return "tilt could not read: " + corpus.first_error(out)


def tilt_run_all(t, path, names, what):
    """Messages for the exports whose tilt-run result differs from want."""
    msgs = []
    for engine in t.engines:
        got = []
        for name, _ in names:
            rc, out = corpus.run([t.run, "--" + engine, "--invoke", name, path], timeout=RUN_TIMEOUT)
            got.append((name, corpus.tilt_run_result(rc, out)))
        msgs += corpus.compare(names, got, "tilt-run --%s %s" % (engine, what))
    return msgs


def check(t, path, outdir):
    """(file name, [failure messages], {config: (tilt size, binaryen size)}, export count)."""
    name = os.path.basename(path)
    base = os.path.join(outdir, name[:-4])
    fails, sizes = [], {}
    ref, why = corpus.binaryen_fuzz_exec(t.wo, path)
    if ref is None:
        return name, ["the corpus file itself: " + why], sizes, 0
    want = corpus.expectations(path)
    fails += ["reference: " + m for m in corpus.compare(want, ref, "binaryen vs ;; expect")]

    for label, flags in CONFIGS:  # binaryen's sizes, for the table
        out_path = "%s.binaryen.%s.wasm" % (base, label)
        rc, out = corpus.run([t.wo, "-all", path, *flags, "-o", out_path])
        sizes[label] = [None, os.path.getsize(out_path) if rc == 0 else None]

    rc, out = corpus.run([t.opt, "-all", path, "--fuzz-exec"])
    unread = tilt_could_not_read(rc, out)
    if unread:
        fails.append(unread)
        return name, fails, sizes, len(ref)
    fails += corpus.compare(ref, corpus.parse_tilt_fuzz(out), "tilt-opt --fuzz-exec")
    fails += tilt_run_all(t, path, ref, "on the original")

    for label, flags in CONFIGS:
        what = "tilt-opt " + " ".join(flags)
        out_path = "%s.tilt.%s.wasm" % (base, label)
        if os.path.exists(out_path):
            os.remove(out_path)
        rc, out = corpus.run([t.opt, "-all", path, *flags, "-o", out_path])
        if rc != 0 or not os.path.exists(out_path):
            fails.append("%s failed: %s" % (what, corpus.first_error(out)))
            continue
        sizes[label][0] = os.path.getsize(out_path)
        got, why = corpus.binaryen_fuzz_exec(t.wo, out_path)
        if got is None:  # (a)
            fails.append("%s output does not validate with binaryen 132: %s" % (what, why))
        else:  # (b)
            fails += corpus.compare(ref, got, "binaryen --fuzz-exec on the %s output" % what)
        fails += tilt_run_all(t, out_path, ref, "on the %s output" % what)  # (c)
    return name, fails, sizes, len(ref)


def size_table(rows):
    cols = [l for l, _ in CONFIGS]
    head = "%-20s" % "file" + "".join("  %-26s" % ("%s tilt / binaryen" % c) for c in cols)
    print("\nsizes in bytes (ratio = tilt / binaryen 132 with the same flags; O2cw = -O2 --closed-world):")
    print(head)
    tot = {c: [0, 0, True] for c in cols}
    for name, sizes in rows:
        line = "%-20s" % name[:-4]
        for c in cols:
            ts, bs = sizes.get(c, [None, None])
            ratio = "%.3f" % (ts / bs) if ts and bs else "-"
            line += "  %-26s" % ("%6s / %6s  %6s" % (ts if ts else "-", bs if bs else "-", ratio))
            tot[c][0] += ts or 0
            tot[c][1] += bs or 0
            tot[c][2] = tot[c][2] and bool(ts and bs)
        print(line)
    line = "%-20s" % "total"
    for c in cols:
        ts, bs, full = tot[c]
        ratio = "%.3f" % (ts / bs) if full and bs else "-"
        line += "  %-26s" % ("%6s / %6s  %6s" % (ts if full else "-", bs or "-", ratio))
    print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", metavar="TILT_BUILD_DIR", help="the directory with tilt-opt and tilt-run")
    ap.add_argument("--binaryen", help="binaryen 132's wasm-opt (default: npm's, see corpus.find_binaryen)")
    ap.add_argument("--out", help="where outputs go (default: TILT_BUILD_DIR/gc-corpus)")
    ap.add_argument("--fetch", metavar="DIR", help="when no binaryen 132 is found, npm-install it into DIR")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2, help="files checked at once")
    ap.add_argument("--engines", default="interp,jit", help="tilt-run engines, comma-separated")
    ap.add_argument("files", nargs="*", help="corpus files (default: test/gc/*.wat)")
    a = ap.parse_intermixed_args()
    build = os.path.abspath(a.build)
    for tool in ("tilt-opt", "tilt-run"):
        if not os.access(os.path.join(build, tool), os.X_OK):
            print("run.py: %s not found in %s" % (tool, build), file=sys.stderr)
            return 2
    wo = corpus.find_binaryen(a.binaryen, build)
    if not wo and a.fetch:  # (a cache of its own: npm install prunes what it was not asked for)
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "npm"))
        import npm_modules  # noqa: E402
        why = npm_modules.fetch(os.path.abspath(a.fetch), [npm_modules.BINARYEN])
        if why:
            print("SKIP: binaryen 132 could not be fetched: %s" % why)
            return 77
        wo = corpus.find_binaryen(os.path.join(os.path.abspath(a.fetch), "node_modules", "binaryen", "bin",
                                               "wasm-opt"), build)
    version = wo and corpus.binaryen_version(wo)
    if not version:
        print("SKIP: binaryen 132's wasm-opt %s (npm install binaryen@132.0.0 into <build>/npm-cache, "
              "or pass --binaryen)" % ("does not run: " + wo if wo else "not found"))
        return 77
    if "132" not in version:
        print("warning: %s is %s, not binaryen 132" % (wo, version))
    t = Tools(build, wo, [e for e in a.engines.split(",") if e])
    outdir = os.path.abspath(a.out or os.path.join(build, "gc-corpus"))
    os.makedirs(outdir, exist_ok=True)
    paths = [os.path.abspath(p) for p in a.files] or corpus.files()
    print("tilt: %s\nbinaryen: %s (%s)\noutputs: %s" % (build, wo, version, outdir))
    failed, rows = 0, []
    with cf.ThreadPoolExecutor(a.j) as ex:
        for name, fails, sizes, n in ex.map(lambda p: check(t, p, outdir), paths):
            print("%s %s (%d exports)" % ("FAIL" if fails else "PASS", name, n))
            for m in fails[:12]:
                print("    " + m)
            if len(fails) > 12:
                print("    ... and %d more" % (len(fails) - 12))
            failed += bool(fails)
            rows.append((name, sizes))
    size_table(rows)
    print("\n%d of %d files passed, %d failed" % (len(paths) - failed, len(paths), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
