#!/usr/bin/env python3
"""esbuild_run.py — a real program after tilt's optimizer: esbuild-wasm's
14 MB Go module (pinned in npm_modules.py), optimized by `tilt-opt -O2` and
`-Os`, must do what the original does under node: transform a TypeScript
file with minification and minify esbuild's own 200 kB JavaScript API
(lib/main.js). Outputs are compared byte for byte with the original
module's. Without npm, node or network: prints SKIP and exits 0.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_modules  # noqa: E402

TS = """
enum Color { Red, Green = "g", Blue = 4 }
interface Shape { area(): number; name?: string }
abstract class Base<T> implements Shape {
  #secret = 3;
  constructor(protected readonly items: T[]) {}
  abstract area(): number;
  get count(): number { return this.items.length + this.#secret; }
}
export class Square extends Base<number> {
  area() { return this.items.reduce((a, b) => a * b, 1) ** 2; }
}
export async function* walk(xs: Array<number | string>): AsyncGenerator<string> {
  for (const x of xs) yield typeof x === "number" ? `${x.toFixed(2)}` : x?.trim() ?? "";
}
export const table = { [Color.Red]: 1, ...{ b: [1, 2, 3].map(v => v << 2) } } satisfies object;
"""

DRIVER = """
const e = require(process.argv[2]);
const fs = require('fs');
(async () => {
  const a = await e.transform(fs.readFileSync(process.argv[3], 'utf8'), {loader: 'ts', minify: true, target: 'es2017'});
  const b = await e.transform(fs.readFileSync(process.argv[4], 'utf8'), {loader: 'js', minify: true});
  process.stdout.write(a.code + '\\n' + b.code.length + '\\n' + b.code);
  if (e.stop) e.stop();
})().catch(x => { console.error('ERROR', x); process.exit(1); });
"""


def run(cmd, timeout=900):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, help="path to tilt-opt")
    ap.add_argument("--cache", default=os.environ.get("TILT_NPM_CACHE"))
    a = ap.parse_args()
    cache = os.path.abspath(a.cache or "npm-cache")
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        print("SKIP: node not found")
        return 0
    why = npm_modules.fetch(cache, npm_modules.PACKAGES)
    if why:
        print("SKIP: npm packages unavailable (%s)" % why)
        return 0
    pkg = os.path.join(cache, "node_modules", "esbuild-wasm")
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "pkg")
        shutil.copytree(pkg, work)
        ts, drv = os.path.join(tmp, "t.ts"), os.path.join(tmp, "t.js")
        with open(ts, "w") as f:
            f.write(TS)
        with open(drv, "w") as f:
            f.write(DRIVER)
        main_js = os.path.join(work, "lib", "main.js")
        wasm = os.path.join(work, "esbuild.wasm")
        orig = os.path.join(tmp, "orig.wasm")
        shutil.copy(wasm, orig)
        rc, want = run([node, drv, main_js, ts, os.path.join(pkg, "lib", "main.js")])
        if rc != 0 or "class" not in want or len(want) < 20000:
            print("FAIL: the original module does not run: %s" % want[-500:])
            return 1
        print("original: %d bytes of output" % len(want))
        failed = 0
        for level in ("-O2", "-Os"):
            rc, text = run([a.tool, "--all-features", level, orig, "-o", wasm])
            if rc != 0:
                print("FAIL %s: tilt-opt exit %d: %s" % (level, rc, text[-500:]))
                failed += 1
                continue
            rc, got = run([node, drv, main_js, ts, os.path.join(pkg, "lib", "main.js")])
            same = rc == 0 and got == want
            print("%-4s %s: %d -> %d bytes, output %s" % ("ok" if same else "FAIL", level, os.path.getsize(orig),
                                                       os.path.getsize(wasm), "the same" if same else "differs"))
            if not same:
                print(got[-500:])
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
