/**
 * `columns.event(i)` / `edge(i)` / `eventsInRange` / `content(i)` / `contentsInRange` once the file changed after the read (rewritten,
 * truncated, deleted): undefined, never another record's content and never a throw; the rule of
 * long content read again from disk (src/engine/long-content.ts).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import fsModule from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { readTraceColumns } from '../../../../src/trace/columns/read-columns';
import { fileStamp, loadTraceColumnsFile } from '../../../../src/trace/load-file';
import { RecordScanner } from '../../../../src/trace/columns/record-scanner';

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

test('a settled file\'s contents are decoded from their places without a scan; once the file is written, each is checked again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-cols-'));
  const scan = RecordScanner.prototype.scan;
  try {
    const file = path.join(dir, 't.otrace.jsonl');
    const rec = (t: number, agent: string, content: string) => `{"id":"x","t":${t},"type":"message","agent":"${agent}","content":"${content}"}`;
    fs.writeFileSync(file, [rec(1, 'a', 'one'), rec(2, 'b', 'tw\\u006f'), rec(3, 'a', 'six')].join('\n') + '\n');
    const fresh = loadTraceColumnsFile(file)!.columns;
    assert.equal(fresh.unchanged, undefined, 'a file written just now may be written again in the same tick of the file clock');
    assert.deepStrictEqual(fresh.contentsInRange(0, 3), ['one', 'two', 'six']);
    // wait until the file's last change is settled (the file clock's tick passed)
    while (!fileStamp(file)!.settled) await new Promise((resolve) => setTimeout(resolve, 50));
    const c = loadTraceColumnsFile(file)!.columns;
    assert.equal(c.unchanged?.(), true);
    let scans = 0;
    RecordScanner.prototype.scan = function (this: RecordScanner, ...args: Parameters<typeof scan>) {
      scans++;
      return scan.apply(this, args);
    };
    assert.deepStrictEqual([...c.contentsInRange(0, 3), c.content(1)], ['one', 'two', 'six', 'two']);
    assert.equal(scans, 0, 'no record scanned again');
    // the same bytes in other places: records of the same id and length swapped, a content changed
    fs.writeFileSync(file, [rec(2, 'b', 'tw\\u006f'), rec(1, 'a', 'one'), rec(3, 'a', 'ten')].join('\n') + '\n');
    assert.equal(c.unchanged?.(), false);
    assert.deepStrictEqual(c.contentsInRange(0, 3), [undefined, undefined, 'ten']);
    assert.deepStrictEqual([c.content(0), c.content(1)], [undefined, undefined]);
    assert.ok(scans > 0);
  } finally {
    RecordScanner.prototype.scan = scan;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a path that names another file while it is read (a symbolic link changed around the read) is not trusted: its contents are checked', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-cols-'));
  // the module object the reader's `fs` reads its functions from (a namespace import cannot be patched)
  const nodeFs = fsModule;
  const { openSync, closeSync } = nodeFs;
  try {
    // two settled files of the same layout, one secret; the path names the secret one before and after the read
    const ev = (id: string, content: string) => JSON.stringify({ id, t: 1, type: 'message', agent: 'm', content });
    const x = path.join(dir, 'x.jsonl');
    const y = path.join(dir, 'y.jsonl');
    fs.writeFileSync(x, ['{"task":"x"}', ev('p', 'SECRET-X-1'), ev('q', 'SECRET-X-2'), ''].join('\n'));
    fs.writeFileSync(y, ['{"task":"y"}', ev('a', 'public--y1'), ev('b', 'public--y2'), ''].join('\n'));
    const link = path.join(dir, 't.otrace.jsonl');
    fs.symlinkSync(x, link);
    while (!fileStamp(x)!.settled || !fileStamp(y)!.settled) await new Promise((resolve) => setTimeout(resolve, 50));
    const retarget = (to: string) => {
      fs.symlinkSync(to, path.join(dir, 'next'));
      fs.renameSync(path.join(dir, 'next'), link);
    };
    let phase = 0;
    nodeFs.openSync = ((...args: Parameters<typeof openSync>) => {
      if (phase === 0) {
        retarget(y);
        phase = 1;
      }
      return openSync(...args);
    }) as typeof openSync;
    nodeFs.closeSync = ((fd: number) => {
      closeSync(fd);
      if (phase === 1) {
        retarget(x);
        phase = 2;
      }
    }) as typeof closeSync;
    const loaded = loadTraceColumnsFile(link)!;
    nodeFs.openSync = openSync;
    nodeFs.closeSync = closeSync;
    assert.equal(loaded.header.task, 'y', 'the read opened the other file');
    assert.equal(loaded.columns.unchanged, undefined, 'the file read is not the file stat\'ed');
    assert.deepStrictEqual(loaded.columns.contentsInRange(0, 2), [undefined, undefined], 'the secret file\'s records are not events a and b');
  } finally {
    nodeFs.openSync = openSync;
    nodeFs.closeSync = closeSync;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
