// driver.mjs — runs an asyncify'd build of program.wat (test/cli/asyncify.sh):
// env.sleep unwinds the stack (asyncify_start_unwind), the driver stops the
// unwind, starts a rewind and calls main again, and sleep's second entry
// stops the rewind, as Emscripten's JS does (at most 1000 times). With --plain, sleep does
// nothing (the uninstrumented program). With --never-unwind, sleep does
// nothing either, on an instrumented module (--mod-asyncify-never-unwind's
// assumption). With --first-unwind, sleep unwinds and the driver stops
// there without rewinding (--mod-asyncify-always-and-only-unwind's
// assumption: every import call unwinds, nothing rewinds). Prints every
// env.log call, the result, the state, and how many unwinds happened.
import { readFileSync } from 'fs';
const [file, mode] = process.argv.slice(2);
const plain = mode === '--plain' || mode === '--never-unwind';
const first = mode === '--first-unwind';
const DATA = 65536, STACK_END = 65536 + 32768;
let ex, unwinds = 0;
const out = [];
const env = {
  sleep(ms) {
    if (plain) return;
    if (ex.asyncify_get_state() === 2) { ex.asyncify_stop_rewind(); return; }
    const m = new Int32Array(ex.memory.buffer);
    m[DATA / 4] = DATA + 8;
    m[DATA / 4 + 1] = STACK_END;
    ex.asyncify_start_unwind(DATA);
  },
  log(k, v) { out.push(`log ${k} ${v}`); },
  logf(k, v) { out.push(`logf ${k} ${v}`); },
};
const { instance } = await WebAssembly.instantiate(readFileSync(file), { env });
ex = instance.exports;
let r = ex.main(1);
while (!plain && !first && ex.asyncify_get_state() === 1) {
  if (++unwinds > 1000) { console.error('more than 1000 unwinds: the stack does not rewind'); process.exit(1); }
  ex.asyncify_stop_unwind();
  ex.asyncify_start_rewind(DATA);
  r = ex.main(1);
}
if (!first) out.push(`result ${r}`); /* an unwinding main's result means nothing */
if (first) unwinds = ex.asyncify_get_state() === 1 ? 1 : 0;
if (mode !== '--plain') out.push(`state ${ex.asyncify_get_state()}`);
console.log(out.join('\n'));
console.error(`unwinds ${unwinds}`);
