/**
 * What the column reader keeps per event (src/trace/columns): after reading 100,000 generated
 * events (bench/_generate.ts), the V8 heap and array buffers kept after full collections, in a
 * child process with --expose-gc (heap-kept.ts), against the object reader on the same bytes.
 * Measured here (2026-12-03): columns 115 bytes per event, objects 338. And a read of the decoded
 * text (an editor's document): 2026-12-07, 536 bytes per event while it kept each line's origin as
 * four objects and a map entry, 321 with its origins in columns.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';

/** Bytes per event the reader `which` keeps after reading `n` generated events (a child process). */
function keptPerEvent(which: 'columns' | 'objects' | 'text', n: number): number {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(__dirname, 'heap-kept.ts'), which, String(n)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { events: number; bytesPerEvent: number };
  assert.equal(out.events, n);
  return out.bytesPerEvent;
}

test('after reading 100,000 events the column reader keeps under 130 bytes per event (the object reader keeps over 250)', () => {
  const n = 100_000;
  const columns = keptPerEvent('columns', n);
  const objects = keptPerEvent('objects', n);
  assert.ok(columns < 130, `columns keep ${columns.toFixed(1)} bytes per event`);
  assert.ok(objects > 250, `objects keep ${objects.toFixed(1)} bytes per event`);
});

test("a read of the text keeps about what a read of the same bytes keeps per event: a line's origin is no object", () => {
  const n = 100_000;
  const text = keptPerEvent('text', n);
  const bytes = keptPerEvent('objects', n);
  // columns either way: line and length (8 bytes a record, up to twice that while they grow, and each line's start)
  // against line, length, offset and size (20); four objects and a map entry a line kept about 200 more
  assert.ok(text < bytes + 40, `text read keeps ${text.toFixed(1)} bytes per event, bytes read ${bytes.toFixed(1)}`);
});
