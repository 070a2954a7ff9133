/**
 * The streaming JSONL reader told the file's size (`readTraceJsonlBytes(..., fileBytes)`, as
 * loadTraceFile does): it sizes its columns and id table from an estimate made on the first
 * records, and must read the same trace, origins and problems as without the size, whether the
 * estimate is short (the later lines are shorter), long (they are longer) or the size is wrong.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { originsOf, type LoadedTrace } from '../../../src/trace/model';
import { readTraceJsonlBytes } from '../../../src/trace/read';

/** Reads `text` with the streaming reader, told `fileBytes` (or not). */
function read(text: string, fileBytes?: number): LoadedTrace {
  const buf = Buffer.from(text, 'utf8');
  return readTraceJsonlBytes(
    (b, offset, length, position) => buf.copy(b, offset, position, Math.min(buf.length, position + length)),
    (offset, bytes) => buf.toString('utf8', offset, offset + bytes),
    4096,
    fileBytes,
  );
}

/** A trace of `n` events (each `pad` characters of content, by index) with an edge every 3 events, and a repeated id and a missing reference near the end. */
function trace(n: number, pad: (i: number) => number): string {
  const lines = ['{"trace_id":"t"}'];
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({ id: `e${i}`, t: i / 2, type: 'message', agent: `a${i % 4}`, content: 'x'.repeat(pad(i)), ...(i > 0 ? { causes: [`e${i - 1}`] } : {}) }));
    if (i % 3 === 2) lines.push(JSON.stringify({ edge: { src: `e${i - 1}`, dst: `e${i}`, type: 'return' } }));
  }
  lines.push(JSON.stringify({ id: 'e5', t: n, type: 'message', agent: 'a0', parent: 'nowhere' }));
  return `${lines.join('\n')}\n`;
}

function assertSame(got: LoadedTrace, want: LoadedTrace): void {
  assert.deepStrictEqual(got.trace, want.trace);
  assert.deepStrictEqual(got.problems, want.problems);
  assert.deepStrictEqual(originsOf(got.eventOrigins), originsOf(want.eventOrigins));
  assert.deepStrictEqual(originsOf(got.edgeOrigins), originsOf(want.edgeOrigins));
}

for (const [name, pad] of [
  ['lines of one length', () => 20],
  ['later lines shorter (the estimate is short)', (i: number) => (i < 3000 ? 200 : 0)],
  ['later lines longer (the estimate is long)', (i: number) => (i < 3000 ? 0 : 200)],
] as const) {
  test(`told the file's size, the reader reads what it reads without it: ${name}`, () => {
    const text = trace(9000, pad);
    const want = read(text);
    assert.equal(want.trace.events.length, 9001);
    assert.ok(want.problems.some((p) => p.message.startsWith('duplicate event id "e5"')));
    assert.ok(want.problems.some((p) => p.message.includes('missing event "nowhere"')));
    const bytes = Buffer.byteLength(text);
    for (const size of [bytes, Math.floor(bytes / 10), bytes * 10, 0]) assertSame(read(text, size), want);
  });
}
