/**
 * Progressive open (issue 30, item 2): a large trace's load answers twice. First the trace as read
 * (its summary says `analysisPending`, no findings yet), whose snapshot already answers the graph's
 * overview and windows and the editor's queries; the analysis then runs in phases, letting those
 * requests in between; the load's answer is the analysed summary (another stamp). A pending
 * analysis is not a failed one; a newer load or a cancel ends it at its next phase.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { analysisSteps, analyzeTrace } from '../../../src/analysis';
import { InProcessEngine } from '../../../src/engine/in-process-engine';
import { layoutStructureBuilds } from '../../../src/engine/graph-structure';
import { readSnapshot, snapshotAnalysis, analysedSnapshot, appendedSnapshot, findingsOfEvent, makeSnapshot, whyNoAnalysis } from '../../../src/engine/snapshot';
import { eventInfo } from '../../../src/engine/queries';
import { graphOverview } from '../../../src/engine/graph-window';
import { summarize, type SessionSummary } from '../../../src/engine/summary';
import { PROGRESSIVE_FROM_EVENTS, SessionStore } from '../../../src/engine/session-store';
import { summaryText } from '../../../src/host/editor/status-bar-text';
import { noteInstead } from '../../../webview/findings';
import type { LoadProgress } from '../../../src/engine/worker-protocol';
import { readTraceJsonl } from '../../../src/trace/read';

const DEMO = path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl');
const request = { key: 'demo', version: -1, path: DEMO, local: true };
const OPTIONS = { stops: true, credit: true, loops: true };

/** A load of the demo trace that opens progressively (every trace does: the threshold is 0), with what it reported and when. */
function progressiveLoad(engine: InProcessEngine) {
  const order: string[] = [];
  let read: SessionSummary | undefined;
  let asked: Promise<unknown> | undefined;
  const load = engine.load(request, (p: LoadProgress) => {
    if (!p.read) return;
    read = p.read;
    order.push('read');
    // what the host does on the first answer: ask for the graph (before the analysis ends)
    const s = p.read;
    asked = Promise.all([
      engine.graphOverview(s.key, 'demo').then((o) => (order.push('overview'), o)),
      engine.graphWindow(s.key, { seq: 1, stamp: s.stamp, mode: 'time', from: -1e9, to: 1e9, scale: 1 }).then((w) => (order.push('window'), w)),
      engine.eventInfo(s.key, s.stamp, 0).then((e) => (order.push('eventInfo'), e)),
      engine.fileMarks(s.key, s.stamp, '', OPTIONS).then((m) => (order.push('marks'), m)),
      engine.compareSessions(s.key, s.stamp, s.key, s.stamp),
    ]);
  });
  void load.then(() => order.push('analysed'));
  return { load, order, read: () => read, asked: () => asked };
}

test('a large trace answers first as read (analysis pending, no findings), then analysed with the same findings as a whole load', async () => {
  const engine = new InProcessEngine({ progressiveFromEvents: 0 });
  const whole = (await new InProcessEngine().load(request))!;
  const { load, read } = progressiveLoad(engine);
  const analysed = (await load)!;
  const first = read();
  assert.ok(first, 'a first answer came before the load ended');
  assert.equal(first.analysisPending, true);
  assert.equal(first.analysisError, undefined, 'pending is not failed');
  assert.deepEqual(first.findings, []);
  assert.equal(first.counts.loops, 0, 'loops are found by the analysis');
  assert.equal(first.counts.events, whole.counts.events, 'every event is there as read');
  assert.equal(first.counts.stops, whole.counts.stops, 'stop events are counted as read');
  assert.deepEqual(first.diagnostics.flatMap((d) => d.items).filter((d) => !d.code), whole.diagnostics.flatMap((d) => d.items).filter((d) => !d.code), 'reader problems are there');
  assert.notEqual(analysed.stamp, first.stamp, 'the analysed snapshot is another one');
  assert.equal(analysed.analysisPending, undefined);
  assert.ok(whole.findings.length > 0, 'the demo has findings');
  assert.deepEqual({ ...analysed, stamp: 0 }, { ...whole, stamp: 0 }, 'the analysed summary is the summary of a load in one answer');
});

test('the graph and the queries are answered between the phases of the analysis, from the trace as read', async () => {
  const engine = new InProcessEngine({ progressiveFromEvents: 0 });
  const run = progressiveLoad(engine);
  const analysed = (await run.load)!;
  const [overview, window, info, marks, compare] = (await run.asked()) as [
    Awaited<ReturnType<InProcessEngine['graphOverview']>>,
    Awaited<ReturnType<InProcessEngine['graphWindow']>>,
    Awaited<ReturnType<InProcessEngine['eventInfo']>>,
    Awaited<ReturnType<InProcessEngine['fileMarks']>>,
    Awaited<ReturnType<InProcessEngine['compareSessions']>>,
  ];
  assert.deepEqual(run.order.slice(0, 5), ['read', 'overview', 'window', 'eventInfo', 'marks'], `answered before the analysis ended: ${run.order}`);
  assert.equal(run.order.at(-1), 'analysed');
  assert.equal(overview?.stamp, run.read()!.stamp, 'the overview of the trace as read');
  assert.equal(overview.analysing, true, 'the overview says the analysis runs');
  assert.deepEqual(overview.findings, []);
  assert.equal(overview.run, undefined, 'no run summary before the analysis');
  assert.equal(overview.totalEvents, analysed.counts.events);
  assert.ok(window && window.nodes.length > 0, 'a window of the trace as read');
  assert.ok(info, 'an event answers');
  assert.deepEqual(marks, { marks: [], loopRanges: [] }, 'no analysis marks yet (decorations come with the analysis)');
  assert.ok((await engine.fileMarks(analysed.key, analysed.stamp, '', OPTIONS))!.marks.length > 0, 'then they do');
  assert.deepEqual(compare, { error: 'the analysis of A is still running' }, 'a comparison says the analysis runs, not that it failed');
  const after = (await engine.graphOverview(analysed.key, 'demo'))!;
  assert.equal(after.stamp, analysed.stamp);
  assert.equal(after.analysing, undefined, 'the analysed overview');
  assert.ok(after.findings.length > 0 && after.run, 'with findings and the run summary');
  assert.equal(await engine.graphWindow(analysed.key, { seq: 2, stamp: run.read()!.stamp, mode: 'time', from: -1e9, to: 1e9, scale: 1 }), undefined, 'the snapshot as read is no longer answered');
});

test('the graph request the host sends when it hears of the trace as read is answered before the first phase of the analysis (seconds at 1M events)', async () => {
  const store = new SessionStore({ progressiveFromEvents: 0 });
  const order: string[] = [];
  const s = await store.load(request, 1, (p) => {
    // as the worker gets the host's request: a message, taken in at the store's next turn
    if (p.read) setImmediate(() => order.push(store.graphOverviewUpdate(p.read!.key, 'demo', 800, undefined) ? 'graph' : 'no graph'));
    else if (p.message.endsWith(' done')) order.push(p.message.slice(p.message.lastIndexOf(': ') + 2));
  });
  assert.ok(s && !s.analysisPending);
  assert.deepEqual(order, ['graph', 'index done', 'loops done', 'stops done', 'credit done', 'blame done', 'metrics done'], 'the request first, then each phase named in the progress as it ends');
});

test('a trace under the threshold answers once, analysed', async () => {
  const engine = new InProcessEngine();
  const reads: LoadProgress[] = [];
  const s = (await engine.load(request, (p) => p.read && reads.push(p)))!;
  assert.ok(s.counts.events < PROGRESSIVE_FROM_EVENTS);
  assert.deepEqual(reads, []);
  assert.ok(s.findings.length > 0 && s.analysisPending === undefined);
});

test('a newer load while the analysis runs ends it: the first answers undefined, the newer one answers analysed', async () => {
  const engine = new InProcessEngine({ progressiveFromEvents: 0 });
  let second: Promise<SessionSummary | undefined> | undefined;
  const first = engine.load(request, (p) => {
    if (p.read) second = engine.load({ ...request, version: 2, text: fs.readFileSync(DEMO, 'utf8') });
  });
  assert.equal(await first, undefined);
  const newer = (await second)!;
  assert.equal(newer.version, 2);
  assert.equal(newer.analysisPending, undefined);
  assert.ok(newer.findings.length > 0);
});

test('a file unchanged on disk is analysed again when the load that read it was superseded during its analysis (the session never keeps a pending snapshot as read and done)', async () => {
  const engine = new InProcessEngine({ progressiveFromEvents: 0 });
  let second: Promise<SessionSummary | undefined> | undefined;
  const first = engine.load(request, (p) => {
    if (p.read && !second) second = engine.load({ ...request });
  });
  assert.equal(await first, undefined);
  const again = (await second)!;
  assert.equal(again.analysisPending, undefined, 'the newer load of the same bytes brings the analysis');
  assert.ok(again.findings.length > 0);
});

test('a cancel while the analysis runs ends it as failed, "cancelled": the trace stays shown, without findings', async () => {
  const engine = new InProcessEngine({ progressiveFromEvents: 0 });
  const s = (await engine.load(request, (p) => p.read && engine.cancel(request.key)))!;
  assert.ok(s, 'the session stays (its trace was shown)');
  assert.equal(s.analysisPending, undefined, 'no longer pending');
  assert.equal(s.analysisError, 'the analysis was cancelled');
  assert.deepEqual(s.findings, []);
  const overview = (await engine.graphOverview(s.key, 'x'))!;
  assert.equal(overview.stamp, s.stamp);
  assert.equal(overview.analysing, undefined, 'the graph no longer says it is analysing');
  assert.equal(noteInstead(overview)?.text, 'not analysed: the analysis was cancelled', 'the findings list says why it lists none');
  assert.equal(summaryText(s), 'otrace: 35 events · 6 agents · 1 stop · not analysed', 'the status bar does not say "0 loops"');
  const again = (await engine.load({ ...request, force: true }))!;
  assert.ok(again.findings.length > 0, 'a later load analyses it');
});

for (const how of ['fails (its file is gone)', 'is cancelled'] as const) {
  test(`a newer load that ${how} after ending the analysis of a trace as read: that trace stays shown, no longer "analysing", and says why`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-pending-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'run.otrace.jsonl');
    fs.copyFileSync(DEMO, file);
    const own = { key: 'run', version: -1, path: file, local: true };
    const engine = new InProcessEngine({ progressiveFromEvents: 0 });
    let second: Promise<SessionSummary | undefined> | undefined;
    const reported: SessionSummary[] = [];
    const first = engine.load(own, (p) => {
      if (!p.read || second) return;
      if (how === 'is cancelled') second = engine.load({ ...own, force: true }, (q) => q.read && reported.push(q.read));
      else {
        fs.rmSync(file);
        second = engine.load({ ...own, changed: [file] }, (q) => q.read && reported.push(q.read));
      }
    });
    assert.equal(await first, undefined, 'the first load was superseded during its analysis');
    // (the newer load waits for the first to end: cancelled now, it has read nothing yet)
    if (how === 'is cancelled') engine.cancel(own.key);
    if (how === 'is cancelled') assert.equal(await second, undefined);
    else await assert.rejects(second!, /cannot read/);
    const shown = reported.at(-1);
    assert.ok(shown, 'the newer load reported what stays shown');
    assert.equal(shown.analysisPending, undefined, 'no longer pending: no analysis runs');
    assert.match(shown.analysisError ?? '', how === 'is cancelled' ? /cancelled.*the trace as read is shown, not analysed/ : /failed.*the trace as read is shown, not analysed/);
    assert.ok(shown.counts.events > 0, 'the trace as read is still there');
    assert.match(summaryText(shown), /· not analysed$/, 'the status bar does not say "0 loops" of a trace not analysed');
    const overview = (await engine.graphOverview(own.key, 'run'))!;
    assert.equal(overview.stamp, shown.stamp, 'the graph shows that snapshot');
    assert.equal(overview.analysing, undefined, 'the graph no longer says it is analysing');
    assert.equal(overview.notAnalysed, shown.analysisError, 'the graph says why it has no findings');
    assert.match(noteInstead(overview)?.text ?? '', /^not analysed: .*the trace as read is shown, not analysed$/, 'the findings list says so instead of looking clean');
  });
}

test('the analysis in phases: each phase named as it ends, the same analysis as in one call; ended early it throws nothing', () => {
  const loaded = readTraceJsonl(fs.readFileSync(DEMO, 'utf8'));
  const steps = analysisSteps(loaded);
  const phases: string[] = [];
  let step = steps.next();
  while (!step.done) {
    phases.push(step.value);
    step = steps.next();
  }
  // (a pause at a seam inside a phase comes when the phase ran long: src/analysis/pauses.ts)
  assert.deepEqual(phases.filter((p) => p !== 'pause'), ['index', 'loops', 'stops', 'credit', 'blame', 'metrics']);
  assert.deepEqual(step.value, analyzeTrace(loaded));
  const early = analysisSteps(loaded);
  early.next();
  assert.doesNotThrow(() => early.return(undefined as never), 'the index is freed');
});

test('a snapshot as read and its analysed snapshot: pending is distinct from failed, and the analysed one equals a whole snapshot', () => {
  const loaded = readTraceJsonl(fs.readFileSync(DEMO, 'utf8'));
  const read = readSnapshot('k', 1, DEMO, loaded);
  assert.equal(read.analysisPending, true);
  assert.equal(read.analysis, undefined);
  assert.equal(whyNoAnalysis(read), 'the analysis is still running');
  assert.equal(whyNoAnalysis({ analysisError: 'boom' }), 'the analysis failed: boom');
  assert.equal(summaryText(summarize(read, 1, 0, false)), 'otrace: 35 events · 6 agents · 1 stop · analysing…');
  const steps = snapshotAnalysis(read);
  let step = steps.next();
  while (!step.done) step = steps.next();
  const analysed = analysedSnapshot(read, step.value);
  const whole = makeSnapshot('k', 1, DEMO, readTraceJsonl(fs.readFileSync(DEMO, 'utf8')));
  assert.equal(analysed.analysisPending, undefined);
  assert.deepEqual(analysed.findings, whole.findings);
  assert.deepEqual(analysed.run, whole.run);
  assert.deepEqual(analysed.findingsOf, whole.findingsOf);
  assert.deepEqual(summarize(analysed, 1, 0, false), summarize(whole, 1, 0, false));
  const failed = analysedSnapshot(read, { error: 'boom' });
  assert.equal(failed.analysisPending, undefined);
  assert.equal(failed.analysisError, 'boom');
  assert.equal(whyNoAnalysis(failed), 'the analysis failed: boom');
});

/** The graph's answers for a loaded session: its overview and windows over the whole trace at three scales, in both modes (stamps left out: each snapshot has its own). */
async function graphAnswers(engine: InProcessEngine, summary: SessionSummary): Promise<unknown> {
  const overview = (await engine.graphOverview(summary.key, 'title'))!;
  const windows = [];
  for (const mode of ['time', 'order'] as const)
    for (const scale of [0.01, 1, 100])
      windows.push(await engine.graphWindow(summary.key, { seq: 1, stamp: summary.stamp, mode, from: -1e9, to: 1e9, scale, keep: [0] }));
  const unstamped = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v) => (k === 'stamp' ? 0 : ArrayBuffer.isView(v) ? Array.from(v as Int32Array) : v)));
  return { overview: unstamped(overview), windows: unstamped(windows) };
}

test('the analysed graph of a progressive load equals a one-answer load and reuses the layout of the trace as read (lanes, rows, axis and edges laid out once)', async () => {
  const whole = new InProcessEngine();
  const wholeSummary = (await whole.load(request))!;
  const expected = await graphAnswers(whole, wholeSummary);
  const builds = layoutStructureBuilds();
  const engine = new InProcessEngine({ progressiveFromEvents: 0 });
  const run = progressiveLoad(engine);
  const analysed = (await run.load)!;
  await run.asked(); // the graph of the trace as read was drawn
  assert.deepEqual(await graphAnswers(engine, analysed), expected, 'the analysed overview and windows are those of a one-answer load');
  assert.equal(layoutStructureBuilds() - builds, 1, 'one layout for the trace as read and the analysed trace');
});

test('a lane asked a long task: its words are made again once the long content is let go, as a one-answer load shows them', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-reuse-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'long-task.otrace.jsonl');
  const task = `Survey the sources ${'and check each claim '.repeat(20)}`;
  const lines = [
    { trace_id: 'long-task' },
    { id: 'e1', t: 0, type: 'spawn', agent: 'lead', to: 'worker', content: task },
    { id: 'e2', t: 1, type: 'message', agent: 'worker', content: 'on it' },
    { id: 'e3', t: 2, type: 'return', agent: 'worker', to: 'lead', content: 'done' },
    { id: 'e4', t: 3, type: 'stop', agent: 'lead', content: 'finished' },
  ];
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const longTask = { key: 'long-task', version: -1, path: file, local: true };
  const whole = new InProcessEngine();
  const expected = await graphAnswers(whole, (await whole.load(longTask))!);
  const engine = new InProcessEngine({ progressiveFromEvents: 0 });
  let asRead: Promise<unknown> | undefined;
  const analysed = (await engine.load(longTask, (p) => {
    if (p.read) asRead = engine.graphOverview(p.read.key, 'title');
  }))!;
  const readLanes = ((await asRead) as { lanes: { tip: string }[] }).lanes;
  assert.ok(readLanes.some((l) => l.tip.includes('asked: Survey the sources')), `the lane as read quotes its task: ${JSON.stringify(readLanes)}`);
  assert.deepEqual(await graphAnswers(engine, analysed), expected);
});

test("a trace as read after an append shows the last analysis's findings and credit for the events it read, none for the new ones; after any other change, none", () => {
  const text = fs.readFileSync(DEMO, 'utf8');
  const all = text.split('\n').filter((l) => l.trim() !== '');
  const before = makeSnapshot('k', 1, DEMO, readTraceJsonl(`${all.slice(0, 25).join('\n')}\n`));
  const n = before.loaded.trace.events.length;
  assert.ok(before.findings.length > 0);
  const appended = appendedSnapshot('k', 2, DEMO, readTraceJsonl(`${all.slice(0, 28).join('\n')}\n`), before);
  assert.equal(appended.analysisPending, true);
  assert.equal(appended.analysis, undefined, 'its own analysis is still running');
  assert.deepEqual(appended.carried, { events: n, analysis: before.analysis });
  assert.equal(appended.findings, before.findings);
  // the status bar keeps the loop count, the graph's findings bar the findings, each saying the newest events are analysed
  const summary = summarize(appended, 2, 0, true);
  assert.equal(summary.analysedEvents, n);
  assert.match(summaryText(summary), new RegExp(`^otrace: ${appended.loaded.trace.events.length} events · .* · ${before.analysis!.loops.length} loops? · analysing…$`));
  const overview = graphOverview(appended, 'demo');
  assert.equal(overview.analysing, true);
  assert.equal(overview.analysedEvents, n);
  assert.deepEqual(overview.findings, graphOverview(before, 'demo').findings);
  for (let i = 0; i < appended.loaded.trace.events.length; i++) assert.deepEqual(findingsOfEvent(appended, i), i < n ? findingsOfEvent(before, i) : [], `findings of event ${i}`);
  const credited = before.analysis!.credit.by_index.findIndex((v) => Math.abs(v) > 0.05);
  assert.ok(credited >= 0 && eventInfo(appended, credited)?.credit, 'a hover on an event read before shows its credit');
  assert.equal(eventInfo(appended, n)?.credit, undefined, 'a new event has none yet');
  assert.equal(appendedSnapshot('k', 2, DEMO, readTraceJsonl(`${all.slice(0, 28).join('\n')}\n`), readSnapshot('k', 1, DEMO, before.loaded)).carried, undefined, 'nothing to carry from a trace as read');
  // a line written in front of the old ones (a rewrite): the old events are on other lines, nothing is carried
  const moved = readTraceJsonl(`${[all[0], '', ...all.slice(1, 28)].join('\n')}\n`);
  const rewritten = appendedSnapshot('k', 2, DEMO, moved, before);
  assert.equal(rewritten.carried, undefined);
  assert.deepEqual(rewritten.findings, []);
});
