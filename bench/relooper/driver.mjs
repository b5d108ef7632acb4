// bench/relooper/driver.mjs — structures the graphs of gen.py (JSON form)
// with Binaryen's Relooper (npm binaryen@132, JS API), exactly as driver.c
// does with tilt's: per family one module, one function per graph, every
// block calls log(id), conditions and switch values are calls to next().
// Prints per family best-of-N CPU time of the render and of build+render,
// and writes OUTDIR/binaryen-<family>.wasm. Not a test.
// usage: node driver.mjs BINARYEN_DIR GRAPHS.json OUTDIR REPS
import fs from "fs";
import path from "path";
import { pathToFileURL } from "url";

const [dir, graphsPath, outDir, repsArg] = process.argv.slice(2);
const binaryen = (await import(pathToFileURL(path.join(dir, "index.js")).href)).default;
const data = JSON.parse(fs.readFileSync(graphsPath, "utf8"));
const reps = parseInt(repsArg || "3");
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

function build(graphs, t) {
  const m = new binaryen.Module();
  m.addFunctionImport("log", "env", "log", binaryen.i32, binaryen.none);
  m.addFunctionImport("next", "env", "next", binaryen.none, binaryen.i32);
  graphs.forEach((g, gi) => {
    const t0 = cpu();
    const r = new binaryen.Relooper(m);
    const id = g.map(([kind], b) => {
      const code = m.call("log", [m.i32.const(b)], binaryen.none);
      return kind ? r.addBlockWithSwitch(code, m.call("next", [], binaryen.i32)) : r.addBlock(code);
    });
    g.forEach(([kind, succ], b) => {
      succ.forEach((s, i) => {
        const last = i + 1 === succ.length;
        if (kind) r.addBranchForSwitch(id[b], id[s[0]], last ? [] : s[1], 0);
        else r.addBranch(id[b], id[s], last ? 0 : m.call("next", [], binaryen.i32), 0);
      });
    });
    const t1 = cpu();
    const body = r.renderAndDispose(id[0], 0);
    const t2 = cpu();
    t[0] += t1 - t0; t[1] += t2 - t1;
    m.addFunction("f" + gi, binaryen.none, binaryen.none, [binaryen.i32], body);
  });
  return m;
}

const res = {};
for (const fam of data.families) {
  let bestR = 1e30, bestAll = 1e30, m = null;
  for (let rep = 0; rep < reps; rep++) {
    if (m) m.dispose();
    const t = [0, 0];
    m = build(fam.graphs, t);
    bestR = Math.min(bestR, t[1]); bestAll = Math.min(bestAll, t[0] + t[1]);
  }
  if (!m.validate()) console.error("binaryen: invalid module for " + fam.name);
  const bytes = m.emitBinary();
  fs.writeFileSync(path.join(outDir, "binaryen-" + fam.name + ".wasm"), bytes);
  res[fam.name] = { render_s: bestR, total_s: bestAll, bytes: bytes.length };
  m.dispose();
}
console.log(JSON.stringify(res, null, 1));
