/**
 * `npm run bench`: runs every bench/<name>.ts that exports `bench()`, in name order, or only those
 * named on the command line (`npm run bench -- read analysis`). Each prints its own figures.
 * `targets` (issue #30's targets: it runs read, host, live and corpus again) runs only when named.
 * npm runs it on the editor's Node when the test editor is installed (scripts/bench.mjs), and its
 * process counts typed arrays towards the heap's limit as the engine's own process and the `otrace`
 * command do (src/engine/heap-accounting.ts): what is measured in it is what they run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BUFFERS_IN_HEAP_LIMIT_FLAG, countBuffersInHeapLimit } from '../src/engine/heap-accounting';

/** Benches that run only when named (they run others). */
const ON_REQUEST = ['targets'];

async function main(): Promise<void> {
  const heap = countBuffersInHeapLimit() ? `, ${BUFFERS_IN_HEAP_LIMIT_FLAG} as the engine's process` : '';
  const wanted = process.argv.slice(2);
  const names = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
    .map((f) => f.slice(0, -3))
    .filter((n) => (wanted.length === 0 ? !ON_REQUEST.includes(n) : wanted.includes(n)))
    .sort();
  for (const name of names) {
    const mod = require(path.join(__dirname, name)) as { bench?: () => Promise<void> };
    if (typeof mod.bench !== 'function') continue;
    console.log(`\n## ${name} (Node ${process.version}${heap})`);
    await mod.bench();
  }
}

void main();
