/**
 * Child process of the read bench (bench/read.ts): CPU ms of a per-line JSON.parse of a file that
 * keeps every value, timed as the read is (after a warm-up; the values of the parse before are let
 * go first, as the read's trace is). In a process of its own, so that the garbage of its values (as large as a
 * trace) falls in no other timing.
 *
 *   node bench/_kept.mjs FILE RUNS REPS   -> prints the median CPU ms of one parse
 */
import * as fs from 'node:fs';

const [file, runs, reps] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];

/** Each line of `buf` parsed on its own (decoded alone, as the bare parse does), every value kept. */
function parseKept(buf) {
  const values = [];
  let at = 0;
  for (;;) {
    const nl = buf.indexOf(10, at);
    const end = nl === -1 ? buf.length : nl;
    if (end > at) values.push(JSON.parse(buf.toString('utf8', at, end)));
    if (nl === -1) return values;
    at = nl + 1;
  }
}

const buf = fs.readFileSync(file);
let values = parseKept(buf);
const times = [];
for (let r = 0; r < runs; r++) {
  const t0 = process.cpuUsage();
  for (let k = 0; k < reps; k++) {
    values = undefined;
    values = parseKept(buf);
  }
  const d = process.cpuUsage(t0);
  times.push((d.user + d.system) / 1000 / reps);
}
if (values.length === 0) throw new Error(`no values kept from ${file}`);
times.sort((a, b) => a - b);
process.stdout.write(`${times[Math.floor(times.length / 2)]}\n`);
