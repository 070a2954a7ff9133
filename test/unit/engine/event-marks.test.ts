/** The decoration model: one combined mark per event at the start of its range, by file. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { marksInLines } from '../../../src/engine/event-marks';
import { eventMarks } from '../../../src/engine/marks';
import { eventInfo } from '../../../src/engine/queries';
import { creditWorthShowing } from '../../../src/shared/credit-words';
import { eventAt, makeSnapshot } from '../../../src/engine/snapshot';
import { loadTrace } from '../../../src/trace/formats';
import { nodeFileAccess } from '../../../src/trace/node-files';
import '../../../src/trace/importers';

const ROOT = path.join(__dirname, '..', '..', '..');
const ALL = { stops: true, credit: true, loops: true };

function snapshotOf(file: string) {
  const loaded = loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess);
  return makeSnapshot(`file://${file}`, 1, file, loaded);
}

test('demo: the stop, the loop and credit are marked at the start of their lines', () => {
  const s = snapshotOf(path.join(ROOT, 'samples', 'demo.otrace.jsonl'));
  const { marks, loopRanges } = eventMarks(s, ALL).get('')!;
  const byId = new Map(marks.map((m) => [s.loaded.trace.events[m.index].id, m]));
  const stop = byId.get('e35')!;
  assert.equal(stop.category, 'stop');
  assert.match(stop.text, /^■ quality met/);
  assert.equal(stop.at.character, 0);
  const loop = s.findings.find((f) => f.kind === 'loop')!;
  const first = marks.find((m) => m.index === loop.events[0])!;
  assert.match(first.text, new RegExp(`loop ×${loop.loop!.repetitions}`));
  const members = new Set(s.findings.filter((f) => f.kind === 'loop').flatMap((f) => f.events));
  assert.equal(loopRanges.length, members.size);
  // credit on message-like events only, signed by the outcome
  const credited = marks.filter((m) => /[+−]\d\.\d\d/.test(m.text)).map((m) => s.loaded.trace.events[m.index].type);
  assert.ok(credited.length > 0);
  // the value is named: beside a decisive error or a stop, a bare −0.33 reads as a second blame
  for (const m of marks.filter((m) => /[+−]\d\.\d\d/.test(m.text))) assert.match(m.text, /(^| · )credit [+−]\d\.\d\d/);
  for (const t of credited) assert.ok(['delegate', 'communicate', 'message', 'return', 'aggregate', 'orchestrator_decision'].includes(t), t);
  // marks are sorted by position: the visible-lines lookup relies on it
  for (let i = 1; i < marks.length; i++) assert.ok(marks[i - 1].at.line <= marks[i].at.line);
  assert.deepEqual(marksInLines(marks, [{ start: stop.at.line, end: stop.at.line }]).map((m) => m.index), [stop.index]);
});

test('settings turn each kind of mark off', () => {
  const s = snapshotOf(path.join(ROOT, 'samples', 'demo.otrace.jsonl'));
  const none = eventMarks(s, { stops: false, credit: false, loops: false }).get('')!;
  assert.deepEqual(none.marks, []);
  assert.deepEqual(none.loopRanges, []);
  const stopsOnly = eventMarks(s, { stops: true, credit: false, loops: false }).get('')!;
  assert.ok(stopsOnly.marks.every((m) => m.category === 'stop' || m.category === 'stopProblem' || m.category === 'bestStop'));
});

test('two events on one line (minified JSON) get one mark each, at their own start', () => {
  const file = path.join(ROOT, 'test', 'fixtures', 'editor', 'minified.otrace.json');
  const s = snapshotOf(file);
  const { marks } = eventMarks(s, ALL).get('')!;
  const onLine0 = marks.filter((m) => m.at.line === 0);
  assert.ok(onLine0.length >= 2, `marks on the one line: ${JSON.stringify(onLine0)}`);
  assert.equal(new Set(onLine0.map((m) => m.at.character)).size, onLine0.length);
  for (const m of onLine0) assert.equal(eventAt(s, '', m.at), m.index, 'the event at a mark is the marked event');
});

test('Claude Code session: sub-agent events are marked in their own files', () => {
  const file = path.join(ROOT, 'test', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
  const s = snapshotOf(file);
  const files = eventMarks(s, ALL);
  const sub = [...files.keys()].filter((k) => k.includes('subagents'));
  assert.equal(sub.length, 3);
  for (const k of sub) assert.ok(files.get(k)!.marks.some((m) => m.category === 'stop'), `${k} has its stop marked`);
  assert.ok(files.get('')!.marks.filter((m) => m.category === 'stop' || m.category === 'stopProblem').length >= 3);
});

test('the marks show credit where the hover and the graph do: from the shared threshold (what prints as 0.01), none that prints as 0.00', () => {
  // message credit as the trace gives it, around the threshold: 0.007 prints as 0.01 and says something
  const given = [0.5, 0.007, -0.006, 0.004, -0.001];
  const lines = [
    ...given.map((credit, k) => JSON.stringify({ id: `m${k}`, t: k, type: 'message', agent: 'lead', to: 'worker', content: `part ${k}`, credit })),
    JSON.stringify({ id: 'end', t: 9, type: 'stop', agent: 'lead', reason: 'task_complete' }),
  ];
  const file = path.join(ROOT, 'given-credit.otrace.jsonl');
  const s = makeSnapshot(`file://${file}`, 1, file, loadTrace(lines.join('\n'), file, nodeFileAccess));
  const marked = new Set(eventMarks(s, ALL).get('')!.marks.filter((m) => /credit|of the result/.test(m.text)).map((m) => s.loaded.trace.events[m.index].id));
  const hovered = new Set(given.map((_, k) => k).filter((k) => eventInfo(s, k)?.credit !== undefined).map((k) => `m${k}`));
  const shown = new Set(given.map((v, k) => (creditWorthShowing(v) ? `m${k}` : '')).filter(Boolean));
  assert.deepEqual([...shown], ['m0', 'm1', 'm2']);
  assert.deepEqual([...hovered], [...shown], 'the hover');
  assert.deepEqual([...marked], [...shown], 'the inline marks');
});

test('a decisive error the trace records is marked as an error; a hypothesis with its chance as a warning (as Problems shows them)', () => {
  const snapshot = (lines: object[]) => makeSnapshot('k', 1, 'run.otrace.jsonl', loadTrace(lines.map((l, t) => JSON.stringify({ t, ...l })).join('\n'), 'run.otrace.jsonl'));
  const blameMark = (lines: object[]) => eventMarks(snapshot(lines), ALL).get('')!.marks.find((m) => /decisive error/.test(m.text));
  // a failed call, then the run stops on the error: recorded
  const recorded = blameMark([
    { id: 'c1', type: 'tool_call', agent: 'writer', tool: 'send_email' },
    { id: 'c1r', type: 'tool_result', agent: 'writer', tool: 'send_email', error: '535 authentication failed' },
    { id: 's', type: 'stop', agent: 'writer', reason: 'error', decided_by: 'writer' },
  ]);
  assert.deepEqual([recorded?.category, recorded?.text.startsWith('✖ decisive error')], ['blame', true]);
  // a wrong final answer judged by a reward: the blamed step is the model's estimate
  const guessed = blameMark([
    { id: 'task', type: 'message', agent: 'user', to: 'lead', content: 'What share of the Lakeside 2023 budget went to schools?' },
    { id: 'r1', type: 'tool_result', agent: 'search', content: 'Lakeside budget 2023: schools 18.5 million, roads 6.5 million, other 15 million.' },
    { id: 'misread', type: 'message', agent: 'reader', causes: ['r1'], content: 'Lakeside budget 2023: school spending 18.5 million dollars, roads spending 5.6 million dollars.' },
    { id: 'final', type: 'message', agent: 'lead', causes: ['misread'], content: 'FINAL ANSWER: 47.31' },
    { id: 'rw', type: 'reward', agent: 'judge', value: 0, channel: 'outcome' },
  ]);
  assert.equal(guessed?.category, 'blameWarning');
  assert.match(guessed!.text, /^⚠ .*decisive error \(\d+%\)/);
});
