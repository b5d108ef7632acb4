// wasi-run.mjs — runs a WASI command under node (bench/jit/run.py), or with
// --compile-only times new WebAssembly.Module(bytes) and prints its CPU
// seconds (all of node's threads) and wall seconds.
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';
const args = process.argv.slice(2);
const compileOnly = args[0] === '--compile-only';
const file = compileOnly ? args[1] : args[0];
const bytes = readFileSync(file);
if (compileOnly) {
  const t0 = process.cpuUsage(), w0 = process.hrtime.bigint();
  new WebAssembly.Module(bytes);
  const t = process.cpuUsage(t0), w = Number(process.hrtime.bigint() - w0) / 1e9;
  console.log(((t.user + t.system) / 1e6).toFixed(4) + ' ' + w.toFixed(4));
} else {
  const wasi = new WASI({ version: 'preview1', args: [file, ...args.slice(1)], env: {} });
  const mod = new WebAssembly.Module(bytes);
  const inst = new WebAssembly.Instance(mod, { wasi_snapshot_preview1: wasi.wasiImport });
  wasi.start(inst);
}
