/** Long content on demand: let go after the analysis, read again from the event's line on disk by every view. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { findEvents, graphEvent, graphOverview, graphWindow } from '../../../src/engine/graph-window';
import { contentOf, LONG_CONTENT_CHARS, setAsideLongContent } from '../../../src/engine/long-content';
import { eventContent, eventInfo } from '../../../src/engine/queries';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { loadTraceFile } from '../../../src/trace/load-file';

const LONG = `build log ✓ ${'line of output '.repeat(40)} needle-in-the-log`;

function traceFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-long-'));
  const file = path.join(dir, 'long.otrace.jsonl');
  const lines = [
    { trace_id: 't', task_id: 'x' },
    { id: 'e1', t: 0, type: 'tool_call', agent: 'a', tool: 'bash', content: 'make' },
    { id: 'e2', t: 1, type: 'tool_result', agent: 'a', tool: 'bash', content: LONG },
    { id: 'e3', t: 2, type: 'stop', agent: 'a', reason: 'task_complete' },
  ];
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

test('long content is let go after the analysis and every view reads it again from disk', () => {
  const file = traceFile();
  const kept = makeSnapshot('k', -1, file, loadTraceFile(file));
  const s = makeSnapshot('k', -1, file, loadTraceFile(file));
  const before = { info: eventInfo(s, 1), node: graphEvent(s, 1) };
  assert.ok(LONG.length >= LONG_CONTENT_CHARS);
  assert.equal(setAsideLongContent(s), 1, 'only the long content');
  assert.equal(s.loaded.trace.events[1].content, '', 'not in memory any more');
  assert.equal(s.loaded.trace.events[0].content, 'make', 'short content stays');
  assert.equal(eventContent(s, 1), LONG);
  assert.deepEqual(eventInfo(s, 1), before.info);
  assert.deepEqual(graphEvent(s, 1), before.node);
  assert.deepEqual(findEvents(s, 'NEEDLE-in-the'), [1]);
  assert.deepEqual(findEvents(s, 'needle'), findEvents(kept, 'needle'));
});

test('when the line on disk no longer holds the event, its content is missing, never another line', () => {
  const file = traceFile();
  const s = makeSnapshot('k', -1, file, loadTraceFile(file));
  setAsideLongContent(s);
  const text = fs.readFileSync(file, 'utf8').replace('"id":"e2"', '"id":"eX"');
  fs.writeFileSync(file, text);
  assert.equal(contentOf(s, 1), undefined);
  fs.rmSync(file);
  assert.equal(contentOf(s, 1), undefined, 'a removed file: no content, no throw');
  assert.equal(contentOf(s, 0), 'make');
});

test('a sub-agent lane keeps what it was asked in its label and tooltip when that task is long content let go', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-long-'));
  const file = path.join(dir, 'lanes.otrace.jsonl');
  const task = `Find where the config loader reads ${'the environment and the files it merges, '.repeat(8)}and list them`;
  assert.ok(task.length >= LONG_CONTENT_CHARS);
  const lines = [
    { trace_id: 't', task_id: 'x' },
    { id: 'e1', t: 0, type: 'message', agent: 'main', content: 'look into the config' },
    { id: 'e2', t: 1, type: 'spawn', agent: 'main', to: 'Explore:a93ccab', role: 'Explore', content: task },
    { id: 'e3', t: 2, type: 'delegate', agent: 'main', from: 'main', to: 'Explore:a93ccab', content: task },
    { id: 'e4', t: 3, type: 'message', agent: 'Explore:a93ccab', content: 'done' },
  ];
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const kept = makeSnapshot('k', -1, file, loadTraceFile(file));
  const s = makeSnapshot('k', -1, file, loadTraceFile(file));
  const laneOf = (snap: typeof s) => graphOverview(snap, 'lanes').lanes.find((l) => l.name === 'Explore:a93ccab');
  const before = laneOf(kept);
  assert.match(before?.tip ?? '', /asked: Find where the config loader/);
  assert.match(before?.label ?? '', /^Explore: Find where the config loader/);
  assert.ok(setAsideLongContent(s) >= 1, 'the task is let go');
  assert.deepEqual(laneOf(s), before);
});

test("a message whose long content was let go keeps its label in the graph's windows (read back from disk), as when it is in memory", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-long-label-'));
  const file = path.join(dir, 'label.otrace.jsonl');
  const said = `Deploy the parser fix to staging, then ${'report what changed '.repeat(30)}`;
  const lines = [
    { trace_id: 't', task_id: 'x' },
    { id: 'e1', t: 0, type: 'message', agent: 'lead', to: 'worker', content: said },
    { id: 'e2', t: 1, type: 'stop', agent: 'lead', reason: 'task_complete' },
  ];
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const nodeOf = (s: ReturnType<typeof makeSnapshot>) => {
    const o = graphOverview(s, 't');
    return graphWindow(s, { seq: 1, stamp: o.stamp, mode: 'time', from: 0, to: o.axis.span + 1, scale: 100, keep: [] }).nodes.find((n) => n.eventId === 'e1')!;
  };
  const inMemory = nodeOf(makeSnapshot('k', -1, file, loadTraceFile(file)));
  assert.match(inMemory.label, /Deploy the parser fix/, 'labelled from what was said');
  const s = makeSnapshot('k', -1, file, loadTraceFile(file));
  assert.equal(setAsideLongContent(s), 1);
  assert.equal(s.loaded.trace.events[0].content, '', 'let go');
  assert.deepEqual(nodeOf(s), inMemory);
  assert.equal(graphEvent(s, 0)?.label, inMemory.label, 'the event asked alone (hover, details) is labelled the same');
  fs.rmSync(dir, { recursive: true, force: true });
});
