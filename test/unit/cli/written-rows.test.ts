/**
 * Rows written to a file as traces come (src/cli/written-rows.ts, `otrace dataset ... -o FILE`): at
 * the end the file holds exactly the rows of the traces kept, in order, whichever were dropped.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { WrittenRows } from '../../../src/cli/written-rows';

test('the file holds the rows of the traces kept, in order, whichever traces written before were dropped (none, first, middle, last, several, all; traces without rows; multi-byte text)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-written-'));
  try {
    const traces = ['{"a":1}\n{"a":2}\n', undefined, '{"b":"é→✓"}\n', '', '{"c":3}\n'.repeat(50), '{"d":"𝄞"}\n'].map((text, k) => ({ result: { k }, text }));
    const drops: number[][] = [[], [0], [2], [5], [1, 2, 4], [0, 1, 2, 3, 4, 5], [3]];
    for (const dropped of drops) {
      const file = path.join(dir, `out-${dropped.join('-')}.jsonl`);
      const fd = fs.openSync(file, 'w');
      const written = new WrittenRows(fd);
      for (const t of traces) written.add(t.result, t.text);
      assert.equal(fs.readFileSync(file, 'utf8'), traces.map((t) => t.text ?? '').join(''), 'all written as they came');
      const kept = traces.filter((_, k) => !dropped.includes(k));
      written.keepOnly(kept);
      fs.closeSync(fd);
      assert.equal(fs.readFileSync(file, 'utf8'), kept.map((t) => t.text ?? '').join(''), `dropped ${dropped.join(', ') || 'none'}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
