/**
 * Times hostile globs against long names (run as a child process by glob.test.ts, so that a matcher
 * that backtracks for minutes fails the test by timeout instead of stalling the run). Prints one
 * JSON line: the time of 50 `*` before a letter against a 200-character name (the best of 5 runs,
 * wall clock: a loaded machine preempts a run now and then), and the CPU time of a set of hostile
 * globs in total (ms; CPU time, so that waiting for a core does not count).
 */
import { globMatches } from '../../../src/trace/glob';

const name = 'a'.repeat(200);
let fifty = true;
let fiftyMs = Infinity;
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  fifty = globMatches(`${'*'.repeat(50)}b`, name);
  fiftyMs = Math.min(fiftyMs, performance.now() - t);
}

const hostile: string[] = [];
for (let n = 10; n <= 60; n += 5) {
  hostile.push(`${'*'.repeat(n)}b`, `${'*a'.repeat(n)}b`, `${'**/'.repeat(n)}b`, `${'*/'.repeat(n)}b`, `${'?*'.repeat(n)}b`, `${'a*'.repeat(n)}**b`);
}
const names = [name, `${'a/'.repeat(100)}a`, `${'a'.repeat(199)}/`, 'a'.repeat(1000), `${'a/'.repeat(100)}b`];
const cpu = process.cpuUsage();
let matched = 0;
for (const g of hostile) for (const n of names) if (globMatches(g, n)) matched++;
const used = process.cpuUsage(cpu);
const totalMs = (used.user + used.system) / 1000;
process.stdout.write(`${JSON.stringify({ fifty, fiftyMs, hostile: hostile.length * names.length, matched, totalMs })}\n`);
