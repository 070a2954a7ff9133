/**
 * Hostile otrace JSONL that the column reader and the object reader must read alike and in time:
 * a line with very many problems (a causes list naming 20,000 missing events).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventColumns } from '../../../../src/trace/columns/event-columns';
import { readTraceColumns } from '../../../../src/trace/columns/read-columns';
import { readTraceJsonlBytes } from '../../../../src/trace/read';

/** `buf` read the way a file is, counting the lines read again to position a problem. */
function access(buf: Buffer) {
  const counts = { lines: 0 };
  const read = (b: Buffer, offset: number, length: number, position: number) => buf.copy(b, offset, position, Math.min(buf.length, position + length));
  const readLine = (offset: number, bytes: number) => {
    counts.lines++;
    return buf.toString('utf8', offset, offset + bytes);
  };
  return { read, readLine, counts };
}

test('a causes list naming 20,000 missing events gives one positioned problem each, its line parsed once (not once per problem: that took minutes at 100k)', () => {
  const n = 20_000;
  const causes = Array.from({ length: n }, (_, k) => `missing${k}`);
  const text = `{"id":"a","t":0,"type":"message","agent":"a"}\n{"id":"b","t":1,"type":"message","agent":"a","causes":${JSON.stringify(['a', ...causes])}}\n`;
  const buf = Buffer.from(text, 'utf8');
  const objects = access(buf);
  const columns = access(buf);
  const o = readTraceJsonlBytes(objects.read, objects.readLine, undefined, buf.length);
  const c = readTraceColumns(columns.read, columns.readLine, undefined, buf.length);
  assert.deepStrictEqual(c.problems, o.problems);
  const missing = o.problems.filter((p) => /"causes" names a missing event/.test(p.message));
  assert.equal(missing.length, n);
  // the last problem points at the last id of the list, on line 1
  const last = missing[missing.length - 1];
  assert.equal(last.range.start.line, 1);
  assert.equal(text.split('\n')[1].slice(last.range.start.character, last.range.end.character), `"missing${n - 1}"`);
  assert.ok(objects.counts.lines <= 2, `object reader parsed the line ${objects.counts.lines} times`);
  assert.ok(columns.counts.lines <= 2, `column reader parsed the line ${columns.counts.lines} times`);
  assert.equal(c.columns.event(1)?.causes?.length, n + 1);
});

test('the column reader checks a causes list of 20,000 ids in work linear in its length (each cause named a few times, not the whole list once per cause)', (t) => {
  const n = 20_000;
  const causes = Array.from({ length: n }, (_, k) => `missing${k}`);
  const text = `{"id":"a","t":0,"type":"message","agent":"a"}\n{"id":"b","t":1,"type":"message","agent":"a","causes":${JSON.stringify(causes)}}\n`;
  const buf = Buffer.from(text, 'utf8');
  const { read, readLine } = access(buf);
  let named = 0;
  const causeName = EventColumns.prototype.causeName;
  t.mock.method(EventColumns.prototype, 'causeName', function (this: EventColumns, k: number) {
    if (++named > 10 * n) throw new Error(`a cause named more than ${10 * n} times for a list of ${n}`);
    return causeName.call(this, k);
  });
  const c = readTraceColumns(read, readLine, undefined, buf.length);
  assert.equal(c.problems.filter((p) => /"causes" names a missing event/.test(p.message)).length, n);
  assert.ok(named <= 10 * n);
});
