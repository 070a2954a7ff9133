/** Shared helpers for unit tests: fixture paths and reading. */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const FIXTURES = path.join(__dirname, '..', 'fixtures');

/** The text of a file under test/fixtures. */
export function fixture(...parts: string[]): string {
  return fs.readFileSync(path.join(FIXTURES, ...parts), 'utf8');
}

/** The path of a file under test/fixtures. */
export function fixturePath(...parts: string[]): string {
  return path.join(FIXTURES, ...parts);
}

/** Every otrace JSONL file under test/fixtures (paths), folders walked. */
export function otraceJsonlFixtures(dir = FIXTURES): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return otraceJsonlFixtures(p);
    return e.name.endsWith('.otrace.jsonl') ? [p] : [];
  });
}
