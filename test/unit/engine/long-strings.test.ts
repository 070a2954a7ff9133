/**
 * Events inside a long JSON string (issue #26, item 4): the MAST ChatDev record's log is one
 * string of 178 KB on one line of the file; a jump to an event there opens the string's text at the
 * event's line. Here: finding the string and the place, through escapes and surrogate pairs.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { InProcessEngine } from '../../../src/engine/in-process-engine';
import { eventString, eventStringSpots, LONG_LINE_CHARS, stringAt } from '../../../src/engine/long-strings';
import { sessionDiagnostics } from '../../../src/engine/summary';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { loadTrace } from '../../../src/trace/formats';
import { nodeFileAccess } from '../../../src/trace/node-files';
import '../../../src/trace/importers';

const FIX = path.join(__dirname, '..', '..', 'fixtures');
const MAST = path.join(FIX, 'mast', 'ChatDev_MAD_records', 'trace_0_ChatDev.json');
const SESSION = path.join(FIX, 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');

function snapshotOf(file: string) {
  return makeSnapshot(`file://${file}`, 1, file, loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess));
}

test('stringAt: the string holding a character, decoded, and the character’s line and column in it', () => {
  const line = '{"a": 1, "log": "first\\nsecond \\"quoted\\" \\u00e9\\nthird 😀 x", "b": "y"}';
  const at = line.indexOf('third');
  const found = stringAt(line, at)!;
  assert.equal(found.text, 'first\nsecond "quoted" é\nthird 😀 x');
  assert.deepEqual(found.at, { line: 2, character: 0 });
  assert.equal(found.open, line.indexOf('"first') );
  assert.deepEqual(stringAt(line, line.indexOf('x"'))!.at, { line: 2, character: 'third 😀 '.length });
  assert.deepEqual(stringAt(line, line.indexOf('quoted'))!.at, { line: 1, character: 'second "'.length });
  // the opening quote itself: the start of the string
  assert.deepEqual(stringAt(line, line.indexOf('"first'))!.at, { line: 0, character: 0 });
  // outside any string: a number, a key's colon
  assert.equal(stringAt(line, line.indexOf('1')), undefined);
  assert.equal(stringAt(line, line.indexOf(':')), undefined);
  // an escaped quote does not end the string; a broken string gives nothing
  assert.equal(stringAt('{"a": "never closed', 8), undefined);
});

test('MAST: an event of the ChatDev log is found at its line of the decoded log', () => {
  const s = snapshotOf(MAST);
  const events = s.loaded.trace.events;
  const fileLine = fs.readFileSync(MAST, 'utf8').split('\n')[8];
  assert.ok(fileLine.length > LONG_LINE_CHARS, 'the log is one line the editor shows cut');
  for (const id of ['L2', 'L46', 'L107', 'L203']) {
    const i = events.findIndex((e) => e.id === id);
    const found = eventString(s, i)!;
    assert.ok(found, id);
    assert.equal(found.file, '');
    assert.equal(found.line, 8);
    const logLines = found.text.split('\n');
    // the event's entry starts there: ids are L{entry}, each entry starts with its [date INFO] header
    assert.match(logLines[found.at.line], /^\[2025-\d\d-\d\d \d\d:\d\d:\d\d INFO\] /, id);
    assert.equal(found.at.character, 0);
    assert.equal(found.text, (JSON.parse(fs.readFileSync(MAST, 'utf8')) as { trace: { trajectory: string } }).trace.trajectory, 'the whole log, decoded');
    assert.equal(fileLine.slice(found.open, found.open + 15), '"[2025-31-03 20');
  }
  const L46 = eventString(s, events.findIndex((e) => e.id === 'L46'))!;
  assert.equal(L46.at.line, 504);
  assert.equal(L46.text.split('\n')[504], '[2025-31-03 20:42:44 INFO] **[Update Codes]**');
});

test('records at the start of their line (Claude Code) and strings on short lines are not long strings', () => {
  const s = snapshotOf(SESSION);
  for (let i = 0; i < 50; i++) assert.equal(eventString(s, i), undefined);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-strings-'));
  const short = path.join(dir, 'short.json');
  const text = fs.readFileSync(MAST, 'utf8');
  // the same record with a log of a few entries: the editor shows its line whole
  const record = JSON.parse(text) as { trace: { trajectory: string } };
  const log = record.trace.trajectory;
  record.trace.trajectory = log.slice(0, log.lastIndexOf('\n[', 8000)); // whole entries, under the editor's limit once escaped
  fs.writeFileSync(short, JSON.stringify(record, null, 2));
  assert.ok(fs.readFileSync(short, 'utf8').split('\n').every((l) => l.length <= LONG_LINE_CHARS));
  const t = snapshotOf(short);
  assert.ok(t.loaded.trace.events.length > 0);
  for (let i = 0; i < t.loaded.trace.events.length; i++) assert.equal(eventString(t, i), undefined);
});

test('the engine answers where an event of a long string is, and the string’s text by its place', async () => {
  const engine = new InProcessEngine();
  const summary = (await engine.load({ key: 'k', version: -1, path: MAST, local: true }))!;
  const s = snapshotOf(MAST);
  const i = s.loaded.trace.events.findIndex((e) => e.id === 'L46');
  const found = (await engine.eventString('k', summary.stamp, i))!;
  assert.deepEqual(found.at, { line: 504, character: 0 });
  const again = (await engine.longStringAt('k', summary.stamp, '', { line: found.line, character: found.open }))!;
  assert.equal(again.text, found.text);
  engine.dispose();
});

test('the Problems panel entries of the MAST record say where their events are in the log string (the string’s line, not the collapsed line of the file)', () => {
  const s = snapshotOf(MAST);
  const items = sessionDiagnostics(s).flatMap((f) => f.items).filter((d) => d.code === 'loop');
  assert.ok(items.length >= 1);
  for (const d of items) {
    const main = s.loaded.trace.events.findIndex((_, i) => s.loaded.eventOrigins.get(i)?.range.start.character === d.range.start.character && s.loaded.eventOrigins.get(i)?.range.start.line === d.range.start.line);
    const expected = eventString(s, main)!;
    assert.deepEqual(d.inString, { at: expected.at, open: expected.open, file: '', line: 8, character: expected.character }, d.message);
    assert.ok(d.inString!.at.line > 100, 'a line of the log');
    for (const r of d.related ?? []) assert.equal(r.inString?.line, 8, r.message);
  }
  // records at the start of their line: no string, and the file is not read again for them
  const session = snapshotOf(SESSION);
  assert.ok(sessionDiagnostics(session).flatMap((f) => f.items).every((d) => d.inString === undefined && (d.related ?? []).every((r) => r.inString === undefined)));
  assert.equal(eventStringSpots(session, session.loaded.trace.events.map((_, i) => i)).size, 0);
});
