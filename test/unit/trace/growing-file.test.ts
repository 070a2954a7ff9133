/**
 * An otrace JSONL file followed from its bytes (the reading of files too large for one string)
 * equals `loadTraceFile` of the file after every append, whatever the appends: real otrace
 * fixtures written to disk in random steps (cut at line ends, inside a line, just before a line
 * break), now and then replaced by a rewritten copy; and it reads about the bytes appended.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it, test } from 'node:test';
import fc from 'fast-check';
import { GrowingTraceFile } from '../../../src/trace/growing-file';
import { loadTraceFile } from '../../../src/trace/load-file';
import type { LoadedTrace } from '../../../src/trace/model';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures');
const FILES = [
  ...['cut-off', 'edge-missing', 'syntax-error', 'time-backwards', 'unknown-type', 'stop-reward-fields'].map((n) => path.join(FIXTURES, 'broken', `${n}.otrace.jsonl`)),
  path.join(FIXTURES, 'several-traces', 'two-runs.otrace.jsonl'),
  path.join(FIXTURES, 'hostile', 'control-names.otrace.jsonl'),
  path.join(FIXTURES, 'large-content', 'long-result.otrace.jsonl'),
];

/** One step: write more of the file (up to a line end, inside a line, or just before a break), or replace it by a copy with its first line blanked. */
type Step = { at: number; cut: 'line' | 'inLine' | 'beforeBreak' | 'replace' };
const at = fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.double({ min: 0, max: 0.05, noNaN: true }) }, { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) });
const steps = fc.array(fc.record({ at, cut: fc.constantFrom<Step['cut']>('line', 'line', 'inLine', 'beforeBreak', 'beforeBreak', 'replace') }), { minLength: 1, maxLength: 12 });

/** Where a step writes up to in `full` from `from` (bytes). */
function cutPoint(full: Buffer, from: number, s: Step): number {
  const target = from + Math.floor((full.length - from) * s.at);
  const nl = full.indexOf(0x0a, target);
  const end = nl === -1 ? full.length : nl + 1;
  if (s.cut === 'line' || nl === -1) return end;
  if (s.cut === 'beforeBreak') return nl > from && full[nl - 1] === 0x0d ? nl - 1 : nl;
  return Math.max(from + 1, end - 1 - Math.floor((end - target) / 2));
}

const plain = (t: LoadedTrace) => {
  const { bytes: _bytes, ...rest } = t as LoadedTrace & { bytes?: number };
  return JSON.parse(JSON.stringify(rest));
};

describe('GrowingTraceFile equals loadTraceFile after every append', () => {
  for (const source of FILES) {
    it(path.basename(source), () => {
      const full = fs.readFileSync(source);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-growing-file-'));
      const file = path.join(dir, 'live.otrace.jsonl');
      fc.assert(
        fc.property(steps, (plan) => {
          let shown = full.indexOf(0x0a) + 1 || full.length;
          let content = full.subarray(0, shown);
          fs.writeFileSync(file, content);
          let growing = new GrowingTraceFile(file);
          let appended = 0;
          let before = 0;
          const check = (when: string) => {
            // A blank file is no trace to stream (loadTraceFile says it is empty): sessions stream only files of 64 MB and more.
            if (content.toString('utf8').trim() === '') return;
            let got = growing.update();
            if (!got) {
              growing = new GrowingTraceFile(file);
              got = growing.update();
              before = growing.bytesRead;
              appended = 0;
            }
            assert.ok(got, `${when}: read`);
            assert.deepEqual(plain(got), plain(loadTraceFile(file)), `${when}: the same trace as loadTraceFile`);
          };
          check('first read');
          before = growing.bytesRead;
          plan.forEach((s, k) => {
            if (s.cut === 'replace') {
              // Another file in its place (as an editor's save): the first line blanked.
              const nl = content.indexOf(0x0a);
              if (nl > 0) content = Buffer.concat([Buffer.from(' '.repeat(nl)), content.subarray(nl)]);
              fs.writeFileSync(`${file}.new`, content);
              fs.renameSync(`${file}.new`, file);
            } else {
              const to = cutPoint(full, shown, s);
              fs.appendFileSync(file, full.subarray(shown, to));
              appended += to - shown;
              content = Buffer.concat([content, full.subarray(shown, to)]);
              shown = to;
            }
            check(`step ${k + 1} (${s.cut} to ${shown})`);
          });
          // Bytes read after the first read: the bytes appended, each once.
          assert.ok(growing.bytesRead - before <= appended, `${growing.bytesRead - before} bytes read for ${appended} appended`);
        }),
        { numRuns: 40, seed: 14 },
      );
    });
  }
});

describe('GrowingTraceFile read in parts (update(upTo)) equals loadTraceFile of the part read', () => {
  const parts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 });
  for (const source of FILES) {
    it(path.basename(source), () => {
      const full = fs.readFileSync(source);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-growing-part-'));
      const file = path.join(dir, 'large.otrace.jsonl');
      const prefix = path.join(dir, 'prefix.otrace.jsonl');
      fs.writeFileSync(file, full);
      fc.assert(
        fc.property(parts, fc.boolean(), (plan, appendAfter) => {
          fs.writeFileSync(file, full);
          const growing = new GrowingTraceFile(file);
          let to = 0;
          for (const p of plan) {
            const upTo = to + Math.floor((full.length - to) * p);
            const got = growing.update(upTo);
            assert.ok(got, `part to ${upTo}: read`);
            // complete lines only: up to the last break at or before upTo, else (a line longer than the part) the first after it
            const lastBreak = upTo > 0 ? full.lastIndexOf(0x0a, upTo - 1) + 1 : 0;
            const nextBreak = full.indexOf(0x0a, upTo) + 1 || full.length;
            const end = lastBreak > to ? lastBreak : nextBreak;
            assert.equal(growing.readTo, upTo >= full.length || end === full.length ? growing.readTo : end, `part to ${upTo}: read to`);
            assert.equal(growing.atEnd, upTo >= full.length || end === full.length, `part to ${upTo}: at the end`);
            if (!growing.atEnd) assert.ok(growing.readTo > to || to === full.length, `part to ${upTo}: moved on from ${to}`);
            to = growing.readTo;
            // read to the end, its last line too (complete or not): the whole file
            const shown = growing.atEnd ? full.length : to;
            if (full.subarray(0, shown).toString('utf8').trim() === '') continue;
            fs.writeFileSync(prefix, full.subarray(0, shown));
            const part = plain(got);
            const whole = plain(loadTraceFile(prefix));
            // the origins name the file read
            assert.deepEqual(part.trace, whole.trace, `part to ${upTo}: the trace of the first ${to} bytes`);
            assert.deepEqual(part.problems, whole.problems, `part to ${upTo}: its problems`);
          }
          if (appendAfter) fs.appendFileSync(file, full.subarray(0, full.indexOf(0x0a) + 1));
          const rest = growing.update();
          assert.ok(rest, 'the rest: read');
          assert.deepEqual(plain(rest), plain(loadTraceFile(file)), 'the rest: the whole file');
          // each byte read once (and the ends compared to see the file unchanged, not counted)
          assert.equal(growing.bytesRead, fs.statSync(file).size, 'bytes read');
        }),
        { numRuns: 30, seed: 30 },
      );
    });
  }
});

test('a pending last line that the file no longer holds (cut and written anew since) is read again, not taken from memory', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-growing-pending-'));
  const file = path.join(dir, 'live.otrace.jsonl');
  const line = (id: string, t: number) => JSON.stringify({ id, t, type: 'message', agent: 'a', content: `text of ${id}` });
  const head = `${line('e1', 1)}\n${line('e2', 2)}\n`;
  const half = line('e3', 3).slice(0, 30);
  fs.writeFileSync(file, head + half);
  const growing = new GrowingTraceFile(file);
  assert.ok(growing.update(), 'read with its half line pending');
  // the half line cut away and another line written in its place, longer than the half line
  fs.truncateSync(file, Buffer.byteLength(head));
  fs.appendFileSync(file, `${line('x3', 3)}\n${line('x4', 4)}\n`);
  const got = growing.update();
  assert.ok(got);
  assert.deepEqual(plain(got).trace, plain(loadTraceFile(file)).trace);
  assert.deepEqual(got.trace.events.map((e) => e.id), ['e1', 'e2', 'x3', 'x4']);
});

test("an append is read through a buffer its own size, not the whole reader's 8 MB (memory outside the heap that brought V8's next full collection nearer at each append)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-growing-buffer-'));
  const file = path.join(dir, 'live.otrace.jsonl');
  const line = (k: number) => JSON.stringify({ id: `e${k}`, t: k, type: 'message', agent: 'a', content: `text of e${k}` });
  const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `${line(from + k)}\n`).join('');
  fs.writeFileSync(file, lines(0, 200));
  const growing = new GrowingTraceFile(file);
  assert.ok(growing.update());
  const asked: number[] = [];
  const allocUnsafe = Buffer.allocUnsafe;
  Buffer.allocUnsafe = (size: number) => (asked.push(size), allocUnsafe(size));
  try {
    // a part ending in a line break, then one with a pending last line, then a long line that fills its buffer
    fs.appendFileSync(file, lines(200, 300));
    assert.equal(growing.update()?.trace.events.length, 300);
    fs.appendFileSync(file, `${lines(300, 310)}${line(310).slice(0, 20)}`);
    assert.equal(growing.update()?.trace.events.length, 310);
    fs.appendFileSync(file, `${line(310).slice(20)}\n${JSON.stringify({ id: 'long', t: 400, type: 'message', agent: 'a', content: 'x'.repeat(200_000) })}\n`);
    assert.deepEqual(growing.update()?.trace.events.slice(-2).map((e) => e.id), ['e310', 'long']);
  } finally {
    Buffer.allocUnsafe = allocUnsafe;
  }
  assert.ok(asked.length >= 3, `buffers asked: ${asked.join(', ')}`);
  assert.ok(Math.max(...asked) <= 512 << 10, `buffers asked for the appends (bytes): ${asked.join(', ')}`);
});

test('a held last line that ended in a carriage return: a line break after it is the same record, another carriage return and a break make it longer (as a whole read reads it)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-held-cr-'));
  try {
    const file = path.join(dir, 'live.otrace.jsonl');
    const e0 = '{"id":"e0","t":0,"type":"message","agent":"a","content":"hi"}';
    for (const [first, then] of [
      [`${e0}\r`, '\r\n'],
      [`${e0}\r`, '\n'],
      [e0, '\r\n'],
      [`${e0}\r`, '\r{"id":"e1"'],
    ]) {
      fs.writeFileSync(file, first);
      const growing = new GrowingTraceFile(file);
      assert.deepEqual(plain(growing.update()!), plain(loadTraceFile(file)), `${JSON.stringify(first)}: read`);
      fs.appendFileSync(file, then);
      // (undefined: the held line went on, and the file is read whole again)
      const got = growing.update() ?? new GrowingTraceFile(file).update()!;
      assert.deepEqual(plain(got), plain(loadTraceFile(file)), `${JSON.stringify(first)} then ${JSON.stringify(then)}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
