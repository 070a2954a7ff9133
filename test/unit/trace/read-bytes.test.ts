/**
 * The streaming JSONL reader (bytes in chunks, src/trace/jsonl.ts + read.ts) against the text
 * reader on the same file: the same events, edges, origins (plus byte offsets that point at each
 * record) and problems, for lines cut across chunks of any size, CRLF, a byte-order mark, a cut-off
 * last line, multi-byte characters and the readers' fuzz mutations. And loadTraceFile: otrace JSONL
 * streamed from disk, other formats read as text, and a clear message past the size limit.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { loadTraceFile, readRecordAt } from '../../../src/trace/load-file';
import { LineOrigin, type LoadedTrace, type Origin } from '../../../src/trace/model';
import { readTraceJsonlBytes } from '../../../src/trace/read';
import { apply, mutation } from '../fuzz/mutations';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures');
const JSONL = ['broken/cut-off.otrace.jsonl', 'broken/edge-missing.otrace.jsonl', 'broken/stop-reward-fields.otrace.jsonl', 'broken/syntax-error.otrace.jsonl', 'broken/time-backwards.otrace.jsonl', 'broken/unknown-type.otrace.jsonl', 'editor/hostile.otrace.jsonl', 'editor/long-line.otrace.jsonl', 'hostile/control-names.otrace.jsonl'];

/** Reads `text` with the streaming reader, `chunk` bytes at a time. */
function readBytes(text: string, chunk: number): LoadedTrace & { bytes: number } {
  const buf = Buffer.from(text, 'utf8');
  return readTraceJsonlBytes(
    (b, offset, length, position) => buf.copy(b, offset, position, Math.min(buf.length, position + length)),
    (offset, bytes) => buf.toString('utf8', offset, offset + bytes),
    chunk,
  );
}

/** The text reader's result, as loadTrace gives it (a byte-order mark read as a space). */
function readText(text: string): LoadedTrace {
  return loadTrace(text, 'x.otrace.jsonl');
}

/** Asserts both readers agree on `text` as a file holds it (UTF-8: a lone surrogate is U+FFFD), and each byte offset points at its record's line. */
function same(written: string, chunk: number): void {
  const text = Buffer.from(written, 'utf8').toString('utf8');
  const want = readText(text);
  const got = readBytes(text, chunk);
  assert.deepStrictEqual(got.trace, want.trace);
  assert.deepStrictEqual(got.problems, want.problems);
  assert.equal(got.bytes, Buffer.byteLength(text));
  const buf = Buffer.from(text, 'utf8');
  const lines = text.split('\n');
  assert.equal(got.eventOrigins.length, want.eventOrigins.length);
  got.eventOrigins.forEach((o, i) => {
    // The byte reader's origins are compact objects (range made on demand): compare their JSON fields.
    const { offset, bytes, ...rest } = JSON.parse(JSON.stringify(o)) as Origin;
    assert.deepStrictEqual(rest, want.eventOrigins[i]);
    const line = lines[o!.record].replace(/\r$/, '').replace(/^\ufeff/, '');
    assert.equal(buf.toString('utf8', offset, offset! + bytes!).replace(/^\ufeff/, ''), line);
  });
  assert.deepStrictEqual(
    got.edgeOrigins.map((o) => ({ range: o!.range, record: o!.record })),
    want.edgeOrigins,
  );
}

test('the streaming reader reads every otrace JSONL fixture as the text reader does, for chunks of 1 byte to 8 MB', () => {
  for (const rel of JSONL) {
    const text = fs.readFileSync(path.join(FIXTURES, rel), 'utf8');
    for (const chunk of [1, 7, 64, 4096, 8 << 20]) same(text, chunk);
  }
});

test('the streaming reader agrees on CRLF, a byte-order mark, multi-byte text, blank lines and a cut-off last line', () => {
  const lines = ['{"trace_id":"t"}', '{"id":"a","t":0,"type":"message","agent":"ü😀","content":"日本語 ✓"}', '', '   ', '{"edge":{"src":"a","dst":"zz","type":"causal"}}', '{"id":"b","t":-1,"type":"message","agent":"x"}', '{"id":"c","t":1,"type":"mess'];
  const text = lines.join('\n');
  for (const variant of [text, `${text}\n`, `\ufeff${text}`, lines.join('\r\n'), `\ufeff${lines.slice(0, 5).join('\r\n')}\r\n`]) {
    for (const chunk of [1, 3, 16, 1 << 20]) same(variant, chunk);
  }
  assert.ok(readText(text).problems.some((p) => /cut off/.test(p.message)));
});

test('the streaming reader agrees with the text reader on the fuzz mutations (fast-check, seeded)', () => {
  const text = fs.readFileSync(path.join(FIXTURES, 'hostile/control-names.otrace.jsonl'), 'utf8');
  fc.assert(
    fc.property(mutation(text.length, text.split('\n').length), fc.integer({ min: 1, max: 300 }), (m, chunk) => same(apply(text, m), chunk)),
    { seed: 14, numRuns: 200 },
  );
});

test('loadTraceFile streams otrace JSONL from disk, reads other formats as text, refuses documents past the limit with a message, and re-reads a record by its offset', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-read-bytes-'));
  try {
    const demo = path.join(FIXTURES, '..', '..', 'samples', 'demo.otrace.jsonl');
    const text = fs.readFileSync(demo, 'utf8');
    const loaded = loadTraceFile(demo);
    assert.deepStrictEqual(loaded.trace, readText(text).trace);
    assert.equal(loaded.bytes, fs.statSync(demo).size);
    const i = loaded.trace.events.length - 1;
    assert.ok(loaded.eventOrigins[i]!.offset! > 0);
    assert.deepStrictEqual(readRecordAt(demo, loaded.eventOrigins[i]!), JSON.parse(text.split('\n')[loaded.eventOrigins[i]!.record]));

    const survey = path.join(FIXTURES, 'survey', 'example_trace.json');
    const doc = loadTraceFile(survey);
    assert.deepStrictEqual({ ...doc, bytes: undefined }, { ...loadTrace(fs.readFileSync(survey, 'utf8'), survey), bytes: undefined });
    assert.equal(readRecordAt(survey, doc.eventOrigins[0]!), undefined, 'a document record has no byte offset');

    const big = loadTraceFile(survey, undefined, 100);
    assert.equal(big.trace.events.length, 0);
    assert.equal(big.problems.length, 1);
    assert.match(big.problems[0].message, /otrace \/ survey trace JSON file of 0 MB; otrace reads such files as one text up to 0 MB \(only otrace JSONL is read in a stream/);

    // otrace JSONL past the text limit still streams
    const copy = path.join(dir, 'demo.otrace.jsonl');
    fs.copyFileSync(demo, copy);
    assert.deepStrictEqual(loadTraceFile(copy, undefined, 100).trace, loaded.trace);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a compact line origin reads and serializes as the plain origin of its line', () => {
  const o = new LineOrigin(7, 42, 1000, 45);
  assert.deepStrictEqual(o.range, { start: { line: 7, character: 0 }, end: { line: 7, character: 42 } });
  assert.equal(o.record, 7);
  assert.equal(JSON.stringify(o), JSON.stringify({ range: o.range, record: 7, offset: 1000, bytes: 45 }));
  (o as Origin).file = 'sub.jsonl';
  assert.deepStrictEqual(JSON.parse(JSON.stringify(o)), { range: o.range, record: 7, offset: 1000, bytes: 45, file: 'sub.jsonl' });
});

test('a byte-order mark is not a column: problems on the first line sit where they do without it (text, bytes, any format)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-bom-'));
  const cases: [string, string][] = [
    ['x.otrace.jsonl', '{"id":"a","t":"x","type":"message","agent":"p"}\n{"id":"b","t":1,"type":"message","agent":"p"}\n'],
    ['x.json', '{"events":[{"id":"a","t":"x","type":"message","agent":"p"},{"id":"b","t":1,"type":"message","agent":"p"}]}'],
  ];
  for (const [name, text] of cases) {
    const plain = path.join(dir, `plain-${name}`);
    const marked = path.join(dir, `bom-${name}`);
    fs.writeFileSync(plain, text);
    fs.writeFileSync(marked, `\ufeff${text}`);
    const want = loadTraceFile(plain).problems.map((p) => p.range);
    assert.ok(want.length > 0 && want[0].start.character > 0, name);
    assert.deepEqual(loadTraceFile(marked).problems.map((p) => p.range), want, `${name} from disk`);
    assert.deepEqual(loadTrace(`\ufeff${text}`, name).problems.map((p) => p.range), want, `${name} as text`);
  }
});
