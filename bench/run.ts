/**
 * `npm run bench`: runs every bench/<name>.ts that exports `bench()`, in name order, or only those
 * named on the command line (`npm run bench -- read analysis`). Each prints its own figures.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const names = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
    .map((f) => f.slice(0, -3))
    .filter((n) => wanted.length === 0 || wanted.includes(n))
    .sort();
  for (const name of names) {
    const mod = require(path.join(__dirname, name)) as { bench?: () => Promise<void> };
    if (typeof mod.bench !== 'function') continue;
    console.log(`\n## ${name}`);
    await mod.bench();
  }
}

void main();
