/**
 * Events on a long line of JSON outside any string (issue #26, item 4): a one-line OTLP export
 * puts every span on one line of 100 KB and more, past what the editor draws. A jump there shows
 * the line's JSON formatted; here: the formatter's map from a column of the line to its place in
 * the formatted text, the window formatted, and the engine's answers for a one-line export.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { InProcessEngine } from '../../../src/engine/in-process-engine';
import { formatJson, formatWindow, lineWindow, MAX_FORMAT_CHARS, valueEnd } from '../../../src/engine/long-lines';
import { eventString, eventStringSpots, LONG_LINE_CHARS } from '../../../src/engine/long-strings';
import { sessionDiagnostics } from '../../../src/engine/summary';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { loadTrace } from '../../../src/trace/formats';
import { nodeFileAccess } from '../../../src/trace/node-files';
import '../../../src/trace/importers';

const OTLP = path.join(__dirname, '..', '..', 'fixtures', 'otel', 'multi-agent.otlp.jsonl');

function snapshotOf(file: string) {
  return makeSnapshot(`file://${file}`, 1, file, loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess));
}

/** The fixture with its first batch's first span carrying 40,000 characters more: its other spans start past column 40,000 of line 1. */
function oneLineExport(cut = false): { file: string; lines: string[] } {
  const [first, second] = fs.readFileSync(OTLP, 'utf8').trim().split('\n');
  const batch = JSON.parse(first) as { resourceSpans: { scopeSpans: { spans: { attributes: unknown[] }[] }[] }[] };
  batch.resourceSpans[0].scopeSpans[0].spans[0].attributes.push({ key: 'test.padding', value: { stringValue: 'padding '.repeat(5000) } });
  let long = JSON.stringify(batch);
  if (cut) long = long.slice(0, -3); // a cut-off export: the line is no JSON value as a whole
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-long-lines-')), 'one-line.otlp.jsonl');
  fs.writeFileSync(file, `${long}\n${second}\n`);
  return { file, lines: [long, second] };
}

test('formatJson: every token keeps its place: an offset of the source maps to the same token in the formatted text', () => {
  const source = '{"a":[1,{"b":"x, {y}"}],"c":{"d":null}}';
  const f = formatJson(source)!;
  assert.equal(f.text, JSON.stringify(JSON.parse(source), null, 2));
  const lines = f.text.split('\n');
  const charAt = (offset: number) => {
    const p = f.place(offset);
    return lines[p.line][p.character];
  };
  for (let k = 0; k < source.length; k++) {
    if (source[k] === ' ') continue;
    assert.equal(charAt(k), source[k], `offset ${k}`);
  }
  assert.deepEqual(f.place(source.indexOf('{"b"')), { line: 3, character: 4 });
  assert.deepEqual(f.place(source.indexOf('{"d"')), { line: 7, character: 7 });
  assert.deepEqual(f.place(source.length), { line: lines.length - 1, character: 1 }, 'the end: after the last brace');
  assert.equal(formatJson('{"a": [1, 2'), undefined, 'a cut-off value');
});

test('valueEnd and lineWindow: an object’s end past brackets inside strings; a line too long to format whole gives the object alone', () => {
  const line = '[{"a":"} ] \\" {"},{"b":[1,[2]]}]';
  assert.equal(valueEnd(line, 1), line.indexOf(',{"b"'));
  assert.equal(valueEnd(line, line.indexOf('{"b"')), line.length - 1);
  assert.equal(valueEnd(line, 0), line.length);
  assert.equal(valueEnd(line, 2), undefined, 'a string opens no value');
  assert.equal(valueEnd('{"a": {', 0), undefined, 'not closed');
  assert.deepEqual(lineWindow(line, 1), { open: 0, close: line.length });
  const huge = `[${'{"x":1},'.repeat(Math.ceil(MAX_FORMAT_CHARS / 8))}{"last":true}]`;
  const at = huge.lastIndexOf('{"last"');
  assert.deepEqual(lineWindow(huge, at), { open: at, close: huge.length - 1 });
  const alone = formatWindow(huge, at)!;
  assert.equal(alone.text, '{\n  "last": true\n}');
  assert.deepEqual(alone.place(at), { line: 0, character: 0 }, 'offsets of the line, not of the window');
});

test('a one-line OTLP export: each span is shown in the line’s JSON formatted, its object from its brace to its end', () => {
  const { file, lines } = oneLineExport();
  const s = snapshotOf(file);
  const events = s.loaded.trace.events;
  const i = events.findIndex((e) => e.id === 'e5e5e5e5e5e5e5e5');
  const origin = s.loaded.eventOrigins.get(i)!;
  assert.ok(origin.range.start.character > 40_000 && lines[0].length > LONG_LINE_CHARS);
  const found = eventString(s, i)!;
  assert.equal(found.view, 'json');
  assert.equal(found.open, 0, 'the whole line');
  assert.deepEqual([found.file, found.line, found.character], ['', 0, origin.range.start.character]);
  assert.equal(found.text, JSON.stringify(JSON.parse(lines[0]), null, 2));
  const text = found.text.split('\n');
  assert.equal(text[found.at.line], `${' '.repeat(found.at.character)}{`);
  // the object from the event's brace to its end is the span
  const object = [...text.slice(found.at.line, found.end!.line), text[found.end!.line].slice(0, found.end!.character)].join('\n').slice(found.at.character);
  assert.equal((JSON.parse(object) as { spanId: string }).spanId, 'e5e5e5e5e5e5e5e5');
  // the span at the line's start of the short second line stays in the file
  for (let k = 0; k < events.length; k++) if (s.loaded.eventOrigins.get(k)?.range.start.line === 1) assert.equal(eventString(s, k), undefined, events[k].id);
  // the Problems panel: the span not shown (a plain HTTP span) points into the formatted line
  const notShown = sessionDiagnostics(s).flatMap((f) => f.items).find((d) => /not shown/.test(d.message))!;
  assert.equal(notShown.inString?.view, 'json');
  assert.match(text[notShown.inString!.at.line + 2], /"spanId": /);
  assert.equal(eventStringSpots(s, [i]).get(i)?.at.line, found.at.line);
});

test('a cut-off one-line export: a span is shown as its own object formatted', () => {
  const { file, lines } = oneLineExport(true);
  const s = snapshotOf(file);
  const i = s.loaded.trace.events.findIndex((e) => e.id === 'e5e5e5e5e5e5e5e5');
  assert.ok(i >= 0);
  const found = eventString(s, i)!;
  assert.equal(found.view, 'json');
  assert.equal(found.open, s.loaded.eventOrigins.get(i)!.range.start.character);
  assert.equal(lines[0][found.open], '{');
  assert.deepEqual(found.at, { line: 0, character: 0 });
  assert.equal((JSON.parse(found.text) as { spanId: string }).spanId, 'e5e5e5e5e5e5e5e5');
});

test('the engine answers where a span of a one-line export is, and the formatted line by its place', async () => {
  const { file } = oneLineExport();
  const engine = new InProcessEngine();
  const summary = (await engine.load({ key: 'k', version: -1, path: file, local: true }))!;
  const i = snapshotOf(file).loaded.trace.events.findIndex((e) => e.id === 'f6f6f6f6f6f6f6f6');
  const found = (await engine.eventString('k', summary.stamp, i))!;
  assert.equal(found.view, 'json');
  const again = (await engine.longStringAt('k', summary.stamp, '', { line: found.line, character: found.open }, 'json'))!;
  assert.equal(again.text, found.text);
  assert.equal(again.view, 'json');
  // without the view: the position is no string
  assert.equal(await engine.longStringAt('k', summary.stamp, '', { line: found.line, character: found.open }), undefined);
  engine.dispose();
});
