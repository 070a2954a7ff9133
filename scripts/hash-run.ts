/**
 * The command line the result-hash scripts share (scripts/output-hash.ts, scripts/graph-hash.ts):
 * `[--generated 10k,100k] [--each] DIR...`. Hashes every trace file (`*.json`, `*.jsonl`,
 * recursively, in sorted order) under the folders, and the bench generator's traces of the given
 * sizes (bench/_generate.ts, with and without long content, written to the OS temp folder), with
 * the script's own per-file hash; prints one line per file and the total last (`--each`: also
 * the per-part hashes of each file, to find what changed). A development tool, not a test.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeTraceFile } from '../bench/_generate';

/** Sizes `--generated` accepts (events). */
const SIZES: Record<string, number> = { '1k': 1_000, '10k': 10_000, '100k': 100_000, '1M': 1_000_000 };

/** The sha256 of a string, in hex. */
export const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (fs.statSync(p).isDirectory()) walk(p);
      else if (/\.jsonl?$/.test(name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/**
 * Runs the command line over `process.argv` with `hashFile` (a file's path -> its per-part hashes).
 * Flags other than `--generated SIZES` and `--each` are the caller's (it reads them itself).
 */
export function runHashes(hashFile: (file: string) => string[]): void {
  const args = process.argv.slice(2);
  const each = args.includes('--each');
  const g = args.indexOf('--generated');
  const generated = g === -1 ? [] : args[g + 1].split(',').filter((s) => s in SIZES);
  const dirs = args.filter((a, i) => !a.startsWith('--') && !(g !== -1 && i === g + 1));
  const files: [string, string][] = [];
  // read by a path relative to where the script runs: paths the results carry (sub-agent files) are then the same in every checkout
  for (const dir of dirs) for (const f of filesUnder(path.resolve(dir))) files.push([path.relative(path.resolve(dir, '..'), f), path.relative(process.cwd(), f) || f]);
  for (const size of generated) {
    for (const long of [false, true]) {
      const name = `trace-${size}${long ? '-long' : ''}.otrace.jsonl`;
      const file = path.join(os.tmpdir(), 'otrace-bench', name);
      writeTraceFile(file, SIZES[size], { longContent: long });
      files.push([`generated/${name}`, file]);
    }
  }
  const total = createHash('sha256');
  for (const [label, file] of files) {
    const parts = hashFile(file);
    const h = sha(parts.join(''));
    total.update(`${label} ${h}\n`);
    process.stdout.write(`${h.slice(0, 16)} ${label}${each ? ` [${parts.map((p) => p.slice(0, 8)).join(' ')}]` : ''}\n`);
  }
  process.stdout.write(`total ${total.digest('hex')} (${files.length} files)\n`);
}
