/** The hover's figures (src/host/editor/hover-text.ts) from the engine's event info (src/engine/queries.ts). */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { recordsFailure } from '../../../../src/shared/recorded-failure';
import { eventInfo } from '../../../../src/engine/queries';
import { makeSnapshot } from '../../../../src/engine/snapshot';
import { hoverFigures } from '../../../../src/host/editor/hover-text';
import { load } from '../../../../src/cli/common';
import { readTraceJsonl } from '../../../../src/trace/read';
import { fixturePath } from '../../helpers';

test('a tool result whose failure the trace records says "failed" first in its hover, with how it is recorded', () => {
  const loaded = load(fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'));
  const snap = makeSnapshot('k', 1, 'session.jsonl', loaded);
  const failed = loaded.trace.events.findIndex((e) => e.type === 'tool_result' && recordsFailure(e));
  assert.ok(failed >= 0);
  assert.equal(hoverFigures(eventInfo(snap, failed)!).figures[0], 'failed (marked as an error)');
  const ok = loaded.trace.events.findIndex((e) => e.type === 'tool_result' && !recordsFailure(e));
  assert.ok(!hoverFigures(eventInfo(snap, ok)!).figures.some((f) => f.startsWith('failed')), 'a result that records no failure says none');
  const codes = readTraceJsonl(['{"id":"c","t":0,"type":"tool_call","agent":"a","tool":"bash","content":"make"}', '{"id":"r","t":1,"type":"tool_result","agent":"a","tool":"bash","content":"make: *** Error 2","exit_code":2}'].join('\n'));
  assert.equal(hoverFigures(eventInfo(makeSnapshot('k', 1, 'x.otrace.jsonl', codes), 1)!).figures[0], 'failed (exit code 2)');
});

test("a turn end's hover says it handed back, with the reason the trace records for it (not a bare task_complete beside \"no verdict\")", () => {
  const loaded = load(fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'));
  const snap = makeSnapshot('k', 1, 'session.jsonl', loaded);
  const turnEnd = loaded.trace.events.findIndex((e) => e.type === 'stop' && e.scope === 'turn' && e.reason === 'task_complete');
  assert.ok(turnEnd >= 0);
  const figures = hoverFigures(eventInfo(snap, turnEnd)!).figures;
  assert.ok(figures.includes('reason: handed back (task_complete)'), figures.join(' | '));
});

test("a stop's hover reads its reason for what the analysis says it ended (a compaction's end is a phase: 'done'), and the end of a cut-off file is no stop", () => {
  const loaded = load(fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'));
  const snap = makeSnapshot('k', 1, 'session.jsonl', loaded);
  const phaseEnd = snap.analysis!.stops.find((s) => s.scope === 'phase' && s.reason === 'task_complete' && !s.synthetic);
  assert.ok(phaseEnd, 'the compaction ends a phase');
  assert.ok(hoverFigures(eventInfo(snap, phaseEnd.index)!).figures.includes('reason: done (task_complete)'));
  // the demo cut off inside its 20th record: its last event carries the end's finding, which names no stop
  const lines = fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8').split('\n');
  const cut = makeSnapshot('c', 1, 'cut.otrace.jsonl', readTraceJsonl(`${lines.slice(0, 19).join('\n')}\n${lines[19].slice(0, 45)}`));
  const end = cut.analysis!.stops.at(-1)!;
  assert.ok(end.synthetic);
  const labels = eventInfo(cut, end.index)!.findings.map((f) => f.label);
  assert.ok(labels.includes('end of the trace, no stop'), labels.join(' | '));
  assert.ok(!labels.some((l) => /reason unknown/.test(l)), labels.join(' | '));
});

test("a spawn's event info names the agent it spawns as its lane is labelled (the hover and the CodeLens agree)", () => {
  const loaded = load(fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'));
  const snap = makeSnapshot('k', 1, 'session.jsonl', loaded);
  const spawn = loaded.trace.events.findIndex((e) => typeof e.to === 'string' && e.to.startsWith('Explore:'));
  assert.ok(spawn >= 0);
  const info = eventInfo(snap, spawn)!;
  assert.match(info.to!, /^Explore:/);
  assert.match(info.toLabel ?? '', /^Explore existing/);
});
