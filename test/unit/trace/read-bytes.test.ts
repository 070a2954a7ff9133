/**
 * The streaming JSONL reader (bytes in chunks, src/trace/jsonl.ts + read.ts) against the text
 * reader on the same file: the same events, edges, origins (plus byte offsets that point at each
 * record) and problems, for lines cut across chunks of any size, CRLF, a byte-order mark, a cut-off
 * last line, multi-byte characters and the readers' fuzz mutations. And loadTraceFile: otrace JSONL
 * streamed from disk, other formats read as text, and a clear message past the size limit.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mock, test } from 'node:test';
import fc from 'fast-check';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { loadTraceFile, readRecordAt } from '../../../src/trace/load-file';
import { LineOrigin, LineOrigins, originsOf, type LoadedTrace } from '../../../src/trace/model';
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
  originsOf(got.eventOrigins).forEach((o, i) => {
    // The byte reader's origins are made from columns when asked: the text reader's fields plus the bytes.
    const { offset, bytes, ...rest } = o!;
    assert.deepStrictEqual(rest, want.eventOrigins.get(i));
    const line = lines[o!.record].replace(/\r$/, '').replace(/^\ufeff/, '');
    assert.equal(buf.toString('utf8', offset, offset! + bytes!).replace(/^\ufeff/, ''), line);
  });
  assert.deepStrictEqual(
    originsOf(got.edgeOrigins).map((o) => ({ range: o!.range, record: o!.record })),
    originsOf(want.edgeOrigins),
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

test('lines parsed together in a run give what each line alone gives: lines that are JSON only when joined, non-objects, non-ASCII text, CRLF and bytes that are not UTF-8', () => {
  const ev = (id: string, extra = '') => `{"id":"${id}","t":0,"type":"message","agent":"a"${extra}}`;
  // Each of these lines is bad alone; joined with commas they would make a valid array of as many values as lines.
  const joinable = ['1,2', '[3', '4]', '{"a":[1', '2]}', '{"x":1},{"y":2}', '"open', 'string"'];
  const lines = [ev('a'), ...joinable, ev('b', ',"content":"ü😀 日本語"'), '42', '"a string"', '[]', 'null', ev('c', ',"content":"\\u00e9"'), ev('d')];
  for (const text of [lines.join('\n'), `${lines.join('\r\n')}\r\n`, `${lines.join('\n')}\n`]) {
    for (const chunk of [5, 64, 1 << 20]) same(text, chunk);
    const got = readBytes(text, 1 << 20);
    assert.deepStrictEqual(got.trace.events.map((e) => e.id), ['a', 'b', 'c', 'd']);
    assert.equal(got.problems.filter((p) => /syntax error|must be a JSON object/.test(p.message)).length, joinable.length + 4);
  }
  // bytes that are not UTF-8 inside a run: each line decoded alone (its own replacement characters)
  const bad = Buffer.concat([Buffer.from(`${ev('a')}\n{"id":"b`), Buffer.from([0xe6, 0x97]), Buffer.from(`","t":0,"type":"message","agent":"a"}\n${ev('c')}\n`)]);
  const fromBytes = readTraceJsonlBytes(
    (b, offset, length, position) => bad.copy(b, offset, position, Math.min(bad.length, position + length)),
    (offset, bytes) => bad.toString('utf8', offset, offset + bytes),
  );
  assert.deepStrictEqual(fromBytes.trace, readText(bad.toString('utf8')).trace);
  assert.equal(fromBytes.trace.events[1].id, 'b\ufffd');
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
    assert.ok(loaded.eventOrigins.get(i)!.offset! > 0);
    assert.deepStrictEqual(readRecordAt(demo, loaded.eventOrigins.get(i)!), JSON.parse(text.split('\n')[loaded.eventOrigins.get(i)!.record]));

    const survey = path.join(FIXTURES, 'survey', 'example_trace.json');
    const doc = loadTraceFile(survey);
    assert.deepStrictEqual({ ...doc, bytes: undefined }, { ...loadTrace(fs.readFileSync(survey, 'utf8'), survey), bytes: undefined });
    assert.equal(readRecordAt(survey, doc.eventOrigins.get(0)!), undefined, 'a document record has no byte offset');

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

test('loadTraceFile reads a small otrace JSONL file into buffers of its size, not of a whole chunk (a corpus of small files made V8 collect every few files), and reads it whole', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-read-small-'));
  const buffers: number[] = [];
  const readSync = nodeFs.readSync;
  // every read of the file goes through fs.readSync (the module itself, not this file's view of it): the length of each buffer handed to it is noted
  const spy = mock.method(nodeFs, 'readSync', (...args: Parameters<typeof fs.readSync>) => {
    buffers.push((args[1] as Uint8Array).length);
    return (readSync as (...a: Parameters<typeof fs.readSync>) => number)(...args);
  });
  try {
    const lines = ['{"trace_id":"t"}', ...Array.from({ length: 40 }, (_, i) => JSON.stringify({ id: `e${i}`, t: i, type: 'message', agent: `a${i % 3}`, content: 'é'.repeat(i), ...(i ? { causes: [`e${i - 1}`] } : {}) }))];
    const cases: [string, string][] = [
      ['newline at the end', `${lines.join('\n')}\n`],
      ['no newline at the end', lines.join('\n')],
      ['CRLF', `${lines.join('\r\n')}\r\n`],
      ['one line', lines[1]],
    ];
    for (const [name, text] of cases) {
      const file = path.join(dir, 'small.otrace.jsonl');
      fs.writeFileSync(file, text);
      buffers.length = 0;
      const loaded = loadTraceFile(file);
      assert.deepStrictEqual(loaded.trace, readText(text).trace, name);
      assert.deepStrictEqual(loaded.problems, readText(text).problems, name);
      assert.equal(loaded.bytes, Buffer.byteLength(text), name);
      assert.ok(buffers.length > 0, `${name}: read through fs.readSync`);
      const size = Buffer.byteLength(text);
      assert.ok(Math.max(...buffers) <= size + 1, `${name}: buffers of ${buffers.join(', ')} bytes for a file of ${size}`);
    }
  } finally {
    spy.mock.restore();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('line origins kept in columns give the plain origin of each line, by index, as JSON too; a copy goes its own way', () => {
  const cursor = new LineOrigin(7, 42, 1000, 45);
  assert.deepStrictEqual(cursor.range, { start: { line: 7, character: 0 }, end: { line: 7, character: 42 } });
  assert.equal(JSON.stringify(cursor), JSON.stringify({ range: cursor.range, record: 7, offset: 1000, bytes: 45 }));
  const list = new LineOrigins();
  for (let k = 0; k < 40; k++) {
    // one object moved from line to line: the list copies its numbers
    Object.assign(cursor, { record: 2 * k, chars: k + 1, offset: 3_000_000_000 + 10 * k, bytes: k + 3 });
    list.add(cursor);
  }
  assert.equal(list.length, 40);
  assert.deepStrictEqual(list.get(5), { range: { start: { line: 10, character: 0 }, end: { line: 10, character: 6 } }, record: 10, offset: 3_000_000_050, bytes: 8 });
  assert.equal(list.record(39), 78);
  for (const i of [-1, 40, 1.5, Number.NaN]) {
    assert.equal(list.get(i), undefined);
    assert.equal(list.record(i), undefined);
  }
  assert.ok(list.inLineOrder);
  assert.deepStrictEqual(JSON.parse(JSON.stringify(list)), originsOf(list));
  const copy = list.copy();
  Object.assign(cursor, { record: 3, chars: 1, offset: 0, bytes: 1 });
  list.add(cursor);
  assert.equal(copy.length, 40);
  assert.equal(list.length, 41);
  assert.equal(list.inLineOrder, false, 'a line before the one before');
  assert.ok(copy.inLineOrder);
  list.trim();
  assert.deepStrictEqual(list.get(40), { range: { start: { line: 3, character: 0 }, end: { line: 3, character: 1 } }, record: 3, offset: 0, bytes: 1 });
  assert.deepStrictEqual(list.get(5), copy.get(5));
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

test('a file whose lines end in CR alone is reported as such at its first CR by both readers, not as a line cut off', () => {
  const lines = ['{"id":"a","t":0,"type":"spawn","agent":"lead","to":"w"}', '{"id":"b","t":1,"type":"message","agent":"w"}', '{"id":"c","t":2,"type":"return","agent":"w","to":"lead"}'];
  for (const text of [lines.join('\r') + '\r', lines.join('\r')]) {
    for (const loaded of [readText(text), readBytes(text, 7), readBytes(text, 1 << 16)]) {
      assert.equal(loaded.trace.events.length, 0);
      const p = loaded.problems.find((q) => /carriage return alone/.test(q.message));
      assert.ok(p, JSON.stringify(loaded.problems));
      assert.ok(!loaded.problems.some((q) => /cut off|syntax error/.test(q.message)), JSON.stringify(loaded.problems));
      assert.deepEqual(p.range.start, { line: 0, character: lines[0].length });
    }
  }
  // CRLF line ends, and a CR before a line's LF, stay ordinary line ends
  assert.equal(readText(lines.join('\r\n') + '\r\n').problems.length, 0);
  assert.equal(readBytes(lines.join('\r\r\n') + '\r\n', 5).problems.length, 0);
  // a syntax error before a CR of a later record is a syntax error
  const bad = readText('{"id":"a",,}\r{"id":"b"}\n');
  assert.ok(bad.problems.some((q) => /syntax error/.test(q.message)), JSON.stringify(bad.problems));
});
