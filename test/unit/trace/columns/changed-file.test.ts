/**
 * `columns.event(i)` / `edge(i)` / `eventsInRange` / `content(i)` / `contentsInRange` once the file changed after the read (rewritten,
 * truncated, deleted): undefined, never another record's content and never a throw; the rule of
 * long content read again from disk (src/engine/long-content.ts).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { readTraceColumns } from '../../../../src/trace/columns/read-columns';
import { loadTraceColumnsFile } from '../../../../src/trace/load-file';

/** Reads `text` into columns; the columns read records again from `file` (a buffer changed after the read). */
function columnsOf(text: string, file: { buf: Buffer }) {
  const buf = Buffer.from(text, 'utf8');
  file.buf = buf;
  const read = (b: Buffer, offset: number, length: number, position: number) => file.buf.copy(b, offset, position, Math.min(file.buf.length, position + length));
  return readTraceColumns(read, (offset, bytes) => buf.toString('utf8', offset, offset + bytes), undefined, buf.length).columns;
}

test('event(i) gives undefined, not another record, when the file is rewritten with records of the same id and length in other places', () => {
  // one id for every event (a retry loop writes the same id): the id alone cannot tell the records apart
  const rec = (t: number, agent: string, content: string) => `{"id":"x","t":${t},"type":"message","agent":"${agent}","content":"${content}"}`;
  const before = [rec(1, 'a', 'one'), rec(2, 'b', 'two'), rec(3, 'a', 'six')];
  const file = { buf: Buffer.alloc(0) };
  const c = columnsOf(before.join('\n') + '\n', file);
  assert.equal(c.event(1)?.content, 'two');
  assert.deepStrictEqual([c.content(1), ...c.contentsInRange(0, 3)], ['two', 'one', 'two', 'six']);
  file.buf = Buffer.from([before[1], before[0], rec(3, 'a', 'ten')].join('\n') + '\n', 'utf8');
  assert.equal(c.event(0), undefined, 'event 0 now holds event 1 bytes');
  assert.equal(c.event(1), undefined, 'event 1 now holds event 0 bytes');
  // same id, time, agent: the content changed and its length did not: not told apart (as long content)
  assert.equal(c.event(2)?.content, 'ten');
  assert.deepStrictEqual(c.eventsInRange(0, 2), [undefined, undefined]);
  // the content alone, read from the bytes without parsing them, is checked as the event is
  assert.deepStrictEqual([c.content(0), c.content(1), c.content(2)], [undefined, undefined, 'ten']);
  assert.deepStrictEqual(c.contentsInRange(0, 3), [undefined, undefined, 'ten']);
});

test('event(i) gives undefined when a record of the same id now holds other links, tool or measures', () => {
  const file = { buf: Buffer.alloc(0) };
  const c = columnsOf('{"id":"a","t":0,"type":"message","agent":"a"}\n{"id":"b","t":1,"type":"tool_call","agent":"a","parent":"a","tool":"ls","tokens":5}\n', file);
  for (const changed of ['"parent":"a","tool":"rm"', '"parent":"b","tool":"ls"', '"parent":"a","tool":"ls","causes":["a"]']) {
    file.buf = Buffer.from(`{"id":"a","t":0,"type":"message","agent":"a"}\n{"id":"b","t":1,"type":"tool_call","agent":"a",${changed},"tokens":5}\n`, 'utf8');
    assert.equal(c.event(1), undefined, changed);
  }
  const withContent = (tool: string) => `{"id":"a","t":0,"type":"message","agent":"a"}\n{"id":"b","t":1,"type":"tool_call","agent":"a","tool":"${tool}","content":"ls -la"}\n`;
  const d = columnsOf(withContent('sh'), file);
  assert.equal(d.content(1), 'ls -la');
  file.buf = Buffer.from(withContent('zz'), 'utf8');
  assert.equal(d.content(1), undefined, 'the tool changed: not event 1');
  file.buf = Buffer.from('{"id":"a","t":0,"type":"message","agent":"a"}\n{"id":"b","t":1,"type":"tool_call","agent":"a","parent":"a","tool":"ls","tokens":7}\n', 'utf8');
  assert.equal(c.event(1), undefined, 'tokens');
});

test('edge(i) gives undefined when the edge line now holds another type between the same ends', () => {
  const file = { buf: Buffer.alloc(0) };
  const c = columnsOf('{"id":"a","t":0,"type":"message","agent":"a"}\n{"edge":{"src":"a","dst":"a","type":"spawn"}}\n', file);
  assert.equal(c.edge(0)?.type, 'spawn');
  file.buf = Buffer.from('{"id":"a","t":0,"type":"message","agent":"a"}\n{"edge":{"src":"a","dst":"a","type":"link"} }\n', 'utf8');
  assert.equal(c.edge(0), undefined);
});

test('event(i), edge(i) and eventsInRange give undefined, not a throw, once the trace file is deleted or truncated', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-cols-'));
  try {
    const file = path.join(dir, 't.otrace.jsonl');
    fs.writeFileSync(file, '{"id":"a","t":0,"type":"message","agent":"a"}\n{"edge":{"src":"a","dst":"a","type":"spawn"}}\n{"id":"b","t":0,"type":"message","agent":"a"}\n');
    const c = loadTraceColumnsFile(file)!.columns;
    assert.equal(c.event(1)?.id, 'b');
    fs.truncateSync(file, 60);
    assert.equal(c.event(1), undefined);
    assert.equal(c.event(0)?.id, 'a');
    fs.rmSync(file);
    assert.equal(c.event(0), undefined);
    assert.equal(c.edge(0), undefined);
    assert.deepStrictEqual(c.eventsInRange(0, 2), [undefined, undefined]);
    assert.deepStrictEqual([c.content(0), ...c.contentsInRange(0, 2)], [undefined, undefined, undefined]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
