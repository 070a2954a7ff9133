/**
 * The layout structure extended by appends (src/engine/structure-growth.ts) equals the structure
 * built whole from the same bytes, and so do the graph's overview and windows made from it. Random
 * otrace JSONL traces (agents that spawn, message and delegate, tool calls and results paired by
 * `parent`, `causes` or the time order, nested spans, stops, equal times, now and then an event out
 * of time order, a new agent, an edge, a second trace) are written to a file in random pieces cut
 * at line ends; the file is followed as a session follows it (LiveFiles + GrowingLoad) and after
 * each piece the structure of the trace as read must equal that of a fresh read of the file's text.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { layoutStructure, type LayoutStructure } from '../../../src/engine/graph-structure';
import { followLayout, lastExtension, layoutStructureExtensions } from '../../../src/engine/structure-growth';
import { graphOverview, graphWindow } from '../../../src/engine/graph-window';
import { graphIndex, graphIndexExtensions, graphPlansCarried, graphRunsRecredited, type GraphIndex } from '../../../src/engine/graph-index';
import { analysedSnapshot, appendedSnapshot, makeSnapshot, readSnapshot, type TraceSnapshot } from '../../../src/engine/snapshot';
import type { GraphOverview, GraphWindow as GraphWindowAnswer } from '../../../src/shared/protocol';
import { SessionStore } from '../../../src/engine/session-store';
import { summarize, summaryCountsCarried } from '../../../src/engine/summary';
import { fitWindowRequest } from '../../../src/shared/fit';
import '../../../src/trace/importers';
import type { LoadedTrace } from '../../../src/trace/model';
import { loadTraceFile } from '../../../src/trace/load-file';
import { choice, traceLines } from './random-appends';
import { FollowedFile } from '../trace/followed-file';

/** How often each reason for a whole build was seen (printed when the property finds too few extensions). */
const whys = new Map<string, number>();
/** Graph indices made per number of appends their edge lookup reads through (src/engine/edge-lookup.ts; 0: built whole). */
const edgeLayers = new Map<number, number>();
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-structure-growth-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

/** What a structure shows, in plain values (edge types as names: their numbering may differ). */
function plainStructure(s: LayoutStructure): unknown {
  const e = s.edges;
  const edges = Array.from({ length: e.count }, (_, k) => [e.source[k], e.target[k], e.types[e.type[k]], e.derived[k], e.id[k]]);
  return {
    events: s.events.length,
    grouped: s.grouped.all(),
    traces: s.grouped.traces,
    laneCount: s.laneCount,
    groupedCounts: Array.from(s.groupedCounts),
    rows: Array.from(s.rows),
    axis: s.axis,
    lane: Array.from(s.lane),
    row: Array.from(s.row),
    order: Array.from(s.order),
    byTime: Array.from(s.byTime),
    tx: Array.from(s.tx),
    end: Array.from(s.end),
    barOf: Array.from(s.barOf),
    edges,
    fold: s.fold ? 'folded' : undefined,
  };
}

/** What a graph index answers windows from, in plain values (the plans made so far left out). */
function plainIndex(ix: GraphIndex): unknown {
  return {
    kinds: ix.kinds,
    kind: Array.from(ix.kind),
    role: Array.from(ix.role),
    tracks: ix.tracks.map((t) => ({ ...t, time: Array.from(t.time), order: Array.from(t.order) })),
    stops: ix.stops.map((s) => ({ time: Array.from(s.time), order: Array.from(s.order) })),
    // per event, the edges from it and into it (a grown lookup lists its old ones first: the windows sort them)
    edges: Array.from({ length: ix.layout.events.length }, (_, i) => {
      const from: number[] = [];
      const into: number[] = [];
      ix.edges.forEachFrom(i, (k) => from.push(k));
      ix.edges.forEachInto(i, (k) => into.push(k));
      return [from.sort((a, b) => a - b), into.sort((a, b) => a - b)];
    }),
    cues: ix.cues,
  };
}

/** The overview and a few windows of a trace as read and analysed, as JSON (the stamp left out: each snapshot has its own). */
function graphAnswers(loaded: LoadedTrace): string {
  const read = readSnapshot('k', -1, 'trace.otrace.jsonl', loaded);
  return JSON.stringify([snapshotAnswers(read), snapshotAnswers(makeSnapshot('k', -1, 'trace.otrace.jsonl', loaded))]);
}

/** The overview and a few windows of a snapshot. */
function snapshotAnswers(s: TraceSnapshot): unknown {
  const { stamp: _stamp, ...overview } = graphOverview(s, 'title');
  const plain = { ...overview, columns: Object.fromEntries(Object.entries(overview.columns).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)])) };
  const fit = fitWindowRequest({ axis: overview.axis, stamp: 0 }, 1200);
  const n = s.loaded.trace.events.length;
  const windows = [fit, { ...fit, mode: 'order' as const, to: n, scale: 1100 / Math.max(n, 1) }, { ...fit, scale: fit.scale * 8, to: fit.to / 8, keep: [0, n - 1] }].map((r) => {
    const { stamp: _s, ...w } = graphWindow(s, { ...r, stamp: 0 });
    return w;
  });
  return { overview: plain, windows };
}

/** A followed trace file: pieces appended to it, each load's structure checked against a whole build. */
class Followed extends FollowedFile {
  constructor(first: string) {
    super(DIR, first);
  }

  /** The structure of the last load, and what it was then (an extension must leave it as it was: its snapshot may still be shown). */
  private last?: { structure: LayoutStructure; plain: string };
  /** The graph index of the last load, what it was then, and the load. */
  private lastIndex?: { index: GraphIndex; plain: string; loaded: LoadedTrace };

  /** Loads what is on disk now; its structure (and graph, with `graph`) must equal a whole build of the file's text. */
  check(what: string, graph = false): LoadedTrace {
    const { loaded, fresh } = this.load();
    followLayout(loaded); // as a session does for a file seen growing
    const why = lastExtension();
    const grown = layoutStructure(loaded);
    if (this.last) assert.equal(JSON.stringify(plainStructure(this.last.structure)), this.last.plain, `${what}: the structure extended from is as it was`);
    this.last = { structure: grown, plain: JSON.stringify(plainStructure(grown)) };
    if (lastExtension() !== why) whys.set(lastExtension(), (whys.get(lastExtension()) ?? 0) + 1);
    // events of their own (a whole build of these is not taken for the followed trace's)
    fresh.trace.events = fresh.trace.events.map((e) => ({ ...e }));
    assert.deepEqual(plainStructure(grown), plainStructure(layoutStructure(fresh)), `${what}: the structure equals a whole build`);
    // the graph index of every load (an extended structure's index is made from its predecessor's), and its summary (counts carried)
    const read = readSnapshot('k', -1, 'trace.otrace.jsonl', loaded);
    const summaryOf = (s: TraceSnapshot) => {
      const { counts, files, promptFiles } = summarize(s, 0, 0, false);
      return { counts, files, promptFiles, byFile: [...s.byFile] };
    };
    assert.deepEqual(summaryOf(read), summaryOf(readSnapshot('k', -1, 'trace.otrace.jsonl', fresh)), `${what}: the summary's counts equal a whole count's`);
    const index = graphIndex(read);
    if (this.lastIndex) {
      assert.equal(JSON.stringify(plainIndex(this.lastIndex.index)), this.lastIndex.plain, `${what}: the graph index extended from is as it was`);
      // and one made now of the last load (another snapshot of it: an analysed one shown after this read) from its structure's index, kept
      assert.equal(JSON.stringify(plainIndex(graphIndex(readSnapshot('k', -1, 'trace.otrace.jsonl', this.lastIndex.loaded)))), this.lastIndex.plain, `${what}: a graph index made now of the load before is as it was then`);
    }
    this.lastIndex = { index, plain: JSON.stringify(plainIndex(index)), loaded };
    edgeLayers.set(index.edges.layers, (edgeLayers.get(index.edges.layers) ?? 0) + 1);
    assert.deepEqual(plainIndex(index), plainIndex(graphIndex(readSnapshot('k', -1, 'trace.otrace.jsonl', fresh))), `${what}: the graph index equals a whole build's`);
    // its windows (bucket plans carried from the last load's, where the append left them alone; planned here for the next load to carry)
    assert.equal(JSON.stringify(snapshotAnswers(read)), JSON.stringify(snapshotAnswers(readSnapshot('k', -1, 'trace.otrace.jsonl', fresh))), `${what}: the windows equal a whole build's`);
    if (graph) assert.equal(graphAnswers(loaded), graphAnswers(fresh), `${what}: the overview and windows equal a whole build's`);
    return loaded;
  }
}

const lines = (ls: string[]) => `${ls.join('\n')}\n`;

/** Whether appending `more` to a followed file of `start` extends its structure; each load checked equal to a whole build (the graph's too after the append). */
function appendExtends(start: readonly string[], more: readonly string[], what: string): boolean {
  const f = new Followed(lines([...start]));
  f.check('start');
  const before = layoutStructureExtensions();
  f.append(lines([...more]));
  f.check(what, true);
  return layoutStructureExtensions() > before;
}
/** An event line. */
const ev = (id: number, t: number, type: string, agent: string, more: Record<string, unknown> = {}) => JSON.stringify({ id: `e${id}`, t, type, agent, ...more });
const header = JSON.stringify({ trace_id: 'cases', task_id: 'cases', system: 'test' });

describe('the layout structure extended by appends', () => {
  it('equals a whole build of the same bytes after every piece appended (random traces, random cuts)', () => {
    const before = layoutStructureExtensions();
    const indexBefore = graphIndexExtensions();
    const carriedBefore = summaryCountsCarried();
    const plansBefore = graphPlansCarried();
    fc.assert(
      fc.property(fc.array(choice, { minLength: 1, maxLength: 70 }), fc.nat(12), fc.array(fc.nat(10), { minLength: 1, maxLength: 8 }), (choices, first, pieces) => {
        const text = `${traceLines(choices).join('\n')}\n`;
        const breaks: number[] = [];
        for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) breaks.push(k + 1);
        // a first read with the agents in it mostly (a new agent's lane is laid out whole)
        let line = Math.min(first, breaks.length - 1);
        let shown = breaks[line];
        const f = new Followed(text.slice(0, shown));
        f.check('first load');
        pieces.forEach((piece, k) => {
          line = Math.min(breaks.length - 1, line + piece);
          const to = breaks[line];
          f.append(text.slice(shown, to));
          shown = to;
          f.check(`after ${shown} of ${text.length} characters`, k % 3 === 0);
        });
        f.append(text.slice(shown));
        f.check('whole text', true);
      }),
      { numRuns: Number(process.env.RUNS ?? 300), seed: Number(process.env.SEED ?? 23) },
    );
    // the property covers the extension, not only whole builds
    assert.ok(layoutStructureExtensions() - before > 40, `extended ${layoutStructureExtensions() - before} times; ${JSON.stringify([...whys])}`);
    // the edges by event made from the last index's (layers of appends read through), not whole
    assert.ok([...edgeLayers].some(([layers, count]) => layers > 1 && count > 10), `edge lookups by layers: ${JSON.stringify([...edgeLayers])}`);
    // and read again with nothing appended (a piece of no line): the same layout, made from the last one
    assert.ok((whys.get('unchanged') ?? 0) > 10, `read again unchanged ${whys.get('unchanged') ?? 0} times`);
    // and the graph index made from the last one's, not whole
    assert.ok(graphPlansCarried() - plansBefore > 100, `${graphPlansCarried() - plansBefore} bucket plans carried`);
    assert.ok(summaryCountsCarried() - carriedBefore > 100, `summary counts carried ${summaryCountsCarried() - carriedBefore} times`);
    assert.ok(graphIndexExtensions() - indexBefore > 30, `graph index extended ${graphIndexExtensions() - indexBefore} times of ${layoutStructureExtensions() - before}`);
  });

  it("summarizes an older read after a newer one from the older read's own counts (an analysed snapshot shown after the next append was read)", () => {
    const f = new Followed(lines([header, ev(0, 0, 'spawn', 'orchestrator', { to: 'w' }), ev(1, 1, 'tool_call', 'w', { tool: 'bash' })]));
    f.check('start');
    f.append(lines([ev(2, 2, 'stop', 'w', { reason: 'task_complete' }), ev(3, 3, 'message', 'orchestrator', { to: 'w' })]));
    const older = f.check('an append');
    f.append(lines([ev(4, 4, 'message', 'reviewer', { content: 'ok' })]));
    f.check('the next append');
    const carried = summaryCountsCarried();
    const { counts } = summarize(readSnapshot('k', -1, 'trace.otrace.jsonl', older), 0, 0, false);
    assert.deepEqual([counts.events, counts.agents, counts.stops, summaryCountsCarried() - carried], [4, 2, 1, 1], 'its own counts, carried (not counted whole)');
  });

  it('extends the structure by an append of new events in time order (no whole build)', () => {
    const f = new Followed(lines([header, ev(0, 0, 'spawn', 'orchestrator', { to: 'w' }), ev(1, 1, 'tool_call', 'w', { tool: 'bash' }), ev(2, 2, 'message', 'orchestrator', { to: 'w' })]));
    f.check('start');
    const before = layoutStructureExtensions();
    // the result of the old call (now a bar), the message's target in w, a new call
    f.append(lines([ev(3, 3, 'tool_result', 'w', { tool: 'bash', parent: 'e1' }), ev(4, 4, 'message', 'w', { to: 'orchestrator' }), ev(5, 500, 'tool_call', 'w', { tool: 'search' })]));
    f.check('appended', true);
    assert.equal(layoutStructureExtensions(), before + 1, 'extended, not built whole');
  });

  it('plans again the bucket of an old call whose result an append brings (its run bar now ends later)', () => {
    // ten calls close together (one run bar at Fit), results of none, then the result of one of them
    const calls = Array.from({ length: 10 }, (_, k) => ev(1 + k, 1 + k * 0.01, 'tool_call', 'w', { tool: 'bash' }));
    const f = new Followed(lines([header, ev(0, 0, 'spawn', 'orchestrator', { to: 'w' }), ...calls, ev(11, 100, 'message', 'orchestrator', { to: 'w' })]));
    f.check('start');
    const before = graphPlansCarried();
    f.append(lines([ev(12, 101, 'tool_result', 'w', { tool: 'bash', parent: 'e4' }), ev(13, 102, 'message', 'orchestrator', { to: 'w' })]));
    f.check('the result of an old call appended');
    assert.ok(graphPlansCarried() > before, 'plans carried');
  });

  it('extends when an append brings edges to old events (a writer puts an edge line after its events: a cut between them)', () => {
    const start = [header, ev(0, 0, 'spawn', 'orchestrator', { to: 'w' }), ev(1, 5, 'tool_call', 'w', { tool: 'bash' }), ev(2, 6, 'tool_result', 'w', { tool: 'bash' }), ev(3, 7, 'message', 'w', { to: 'orchestrator' })];
    const edge = (src: string, dst: string, type: string) => JSON.stringify({ edge: { src, dst, type } });
    const extended: string[] = [];
    for (const [what, more] of [
      ['an edge between two old events', [edge('e1', 'e3', 'causal')]],
      ['a new event and an edge between two old ones', [ev(4, 8, 'message', 'orchestrator', { to: 'w' }), edge('e1', 'e3', 'message')]],
      ['an edge from a new event back to an old one (dropped as backwards)', [ev(4, 8, 'message', 'w', { to: 'orchestrator' }), edge('e4', 'e0', 'causal')]],
      ['a tool dependency to an old result', [edge('e1', 'e2', 'tool_dependency')]],
      // extended or built whole (an old link joins the same nodes after it; pairs; spawners): equal to a whole build either way
      ['a delegation edge between old events', [edge('e0', 'e1', 'delegate')]],
      ['an edge beside an old link', [ev(4, 8, 'message', 'orchestrator', { to: 'w' }), edge('e0', 'e3', 'message')]],
      ['a tool dependency from an old call to a new result', [ev(4, 8, 'tool_result', 'w', { tool: 'bash' }), edge('e1', 'e4', 'tool_dependency')]],
      ['a spawn edge between old events', [edge('e0', 'e3', 'spawn')]],
    ] as const) {
      if (appendExtends(start, more, what)) extended.push(what);
    }
    assert.deepEqual(extended, ['an edge between two old events', 'a new event and an edge between two old ones', 'an edge from a new event back to an old one (dropped as backwards)', 'a tool dependency to an old result']);
  });

  it("leaves the graph of each load as it was when a later append's edge joins an old event to another lane (its role changes in the later index only)", () => {
    const edge = (src: string, dst: string, type: string) => JSON.stringify({ edge: { src, dst, type } });
    const f = new Followed(lines([header, ev(0, 0, 'spawn', 'orchestrator', { to: 'w' }), ev(1, 5, 'tool_call', 'w', { tool: 'bash' }), ev(2, 6, 'tool_result', 'w', { tool: 'bash' })]));
    f.check('start');
    // appends that extend the index in its memory (the first takes memory with room), then an edge from an old call to an old orchestrator's event
    f.append(lines([ev(3, 7, 'tool_call', 'w', { tool: 'bash' })]));
    f.check('an append');
    f.append(lines([ev(4, 8, 'tool_call', 'orchestrator', { tool: 'search' })]));
    const another = graphIndex(readSnapshot('k', -1, 'trace.otrace.jsonl', f.check('another')));
    f.append(lines([ev(5, 9, 'tool_call', 'w', { tool: 'bash' })]));
    const third = graphIndex(readSnapshot('k', -1, 'trace.otrace.jsonl', f.check('a third')));
    // (new memory per append was external memory: at 1M events it brought the collector's full collections every few appends)
    assert.equal(third.kind.buffer, another.kind.buffer, "an append's kinds are a longer view of the last one's memory");
    const extended = graphIndexExtensions();
    f.append(lines([edge('e3', 'e4', 'causal')]));
    const edged = graphIndex(readSnapshot('k', -1, 'trace.otrace.jsonl', f.check('an edge between two old events of two lanes', true)));
    assert.equal(graphIndexExtensions(), extended + 1, 'the index extended, not made whole');
    // the edges, made again with the trace edge in its place, have room: the next append's link extends them in their memory
    f.append(lines([ev(6, 10, 'message', 'w', { to: 'orchestrator' }), ev(7, 11, 'message', 'orchestrator')]));
    const linked = graphIndex(readSnapshot('k', -1, 'trace.otrace.jsonl', f.check('a message to another lane')));
    assert.deepEqual([linked.layout.edges.count > edged.layout.edges.count, linked.layout.edges.source.buffer === edged.layout.edges.source.buffer], [true, true]);
  });

  it('builds whole when an append reaches back: an earlier time, a new agent', () => {
    const start = [header, ev(0, 0, 'spawn', 'orchestrator', { to: 'w' }), ev(1, 5, 'tool_call', 'w', { tool: 'bash' })];
    for (const [what, more] of [
      ['an earlier time', [ev(2, 4, 'message', 'w', { to: 'orchestrator' })]],
      ['a new agent', [ev(2, 6, 'message', 'x', { to: 'orchestrator' })]],
    ] as const) {
      assert.equal(appendExtends(start, more, what), false, `${what}: built whole`);
    }
  });

  it("keeps the last analysis's marks on the graph of a trace as read after an append, with the plans of the buckets the append left alone", () => {
    // a worker that repeats one call 30 times (a loop, drawn as run bars), then reports
    const trace = [header, ev(0, 0, 'spawn', 'orchestrator', { to: 'w', content: 'Find the file' })];
    for (let k = 0; k < 30; k++) trace.push(ev(1 + 2 * k, 1 + k * 0.02, 'tool_call', 'w', { tool: 'bash', content: 'ls /tmp' }), ev(2 + 2 * k, 1.01 + k * 0.02, 'tool_result', 'w', { tool: 'bash', content: 'nothing here', parent: `e${1 + 2 * k}` }));
    trace.push(ev(61, 100, 'message', 'w', { to: 'orchestrator', content: 'Found it: Paris 42' }));
    const later = (k: number) => ev(62 + k, 101 + k, 'message', 'orchestrator', { to: 'w', content: `Check ${k}` });
    const f = new Followed(lines(trace));
    f.check('start');
    f.append(lines([later(0)]));
    const analysed = makeSnapshot('k', 1, 'trace.otrace.jsonl', f.check('seen growing'));
    const marked = analysed.analysis!;
    assert.ok(marked.loops.length > 0, 'a loop to show');
    assert.ok(graphWindow(analysed, { ...fitWindowRequest(graphOverview(analysed, 'title'), 1200), stamp: 0 }).runs.some((r) => r.loop), 'the loop is drawn as run bars');
    let shown: TraceSnapshot = analysed;
    for (const [what, k] of [['an append while analysed (plans of the same marks)', 1], ['another before that analysis ends (plans of the trace without marks)', 2]] as const) {
      // the second time the page last drew the trace without marks: the buckets of marked events are planned again
      if (k === 2) snapshotAnswers(readSnapshot('k', 2, 'trace.otrace.jsonl', shown.loaded));
      f.append(lines([later(k)]));
      const { loaded, fresh } = f.load();
      followLayout(loaded);
      const plansBefore = graphPlansCarried();
      const read = appendedSnapshot('k', 2, 'trace.otrace.jsonl', loaded, shown);
      assert.equal(read.carried?.analysis, marked, `${what}: carries the analysis`);
      const answers = snapshotAnswers(read) as { overview: GraphOverview; windows: GraphWindowAnswer[] };
      // the same as a whole build of the same bytes carrying the same analysis
      assert.equal(JSON.stringify(answers), JSON.stringify(snapshotAnswers(appendedSnapshot('k', 2, 'trace.otrace.jsonl', fresh, analysed))), `${what}: equals a whole build`);
      if (k === 1) assert.ok(graphPlansCarried() > plansBefore, `${what}: plans carried`);
      assert.deepEqual(answers.overview.legend.marks, graphOverview(analysed, 'title').legend.marks, `${what}: the legend keeps the analysis's marks`);
      assert.ok(answers.overview.legend.marks.includes('loop'), `${what}: the loop among them`);
      assert.ok(answers.windows[0].runs.some((r) => r.loop), `${what}: the loop is drawn`);
      for (const w of answers.windows) for (const node of w.nodes) if (node.index >= read.carried!.events) assert.equal(node.credit, undefined, `${what}: a new event has no credit yet`);
      shown = read;
    }
  });

  it("in a session, keeps the plans of the buckets whose events' credit alone an append's analysis changed (a reward came), their run bars' credit taken again: the windows equal a whole build's", async () => {
    // three workers busy with tool calls (run bars at Fit), a judge's reward on a worker's result now and then
    const file = path.join(DIR, 'rewarded.otrace.jsonl');
    const records: string[] = [header];
    for (let k = 0; k < 2400; k++) {
      const w = `w${k % 3}`;
      if (k % 37 === 36) records.push(ev(k, k, 'reward', 'judge', { value: (k % 5) / 4, channel: 'step', target: `e${k - 2}` }));
      else records.push(ev(k, k, k % 2 ? 'tool_result' : 'tool_call', w, { tool: 'search', content: `query ${k % 11} about Paris`, ...(k % 2 ? { parent: `e${k - 1}` } : { causes: [`e${Math.max(0, k - 3)}`] }) }));
    }
    fs.writeFileSync(file, lines(records.slice(0, 2001)));
    const store = new SessionStore();
    const sessions = (store as unknown as { sessions: Map<string, { snapshot?: TraceSnapshot }> }).sessions;
    let id = 0;
    const recredited = graphRunsRecredited();
    const plansCarried = graphPlansCarried();
    let credited = 0;
    let before: TraceSnapshot | undefined;
    for (let at = 2001, k = 0; ; at += 23, k++) {
      await store.load({ key: 'k', version: -1, path: file, local: true, changed: [file] }, ++id);
      const shown = sessions.get('k')!.snapshot!;
      assert.ok(shown.analysis, 'analysed');
      // the same analysis on a whole read of the same bytes: its graph index made whole, every bucket planned
      const whole = analysedSnapshot(readSnapshot('w', 1, file, loadTraceFile(file)), shown.analysis);
      const fit = fitWindowRequest(graphOverview(shown, 'title'), 1200);
      /** Zoomed in 2, 4 or 8 times (a width the last load planned the first half of), over one half of the axis. */
      const zoomed = (load: number, half: 0 | 1) => ({ ...fit, scale: fit.scale * 2 ** (1 + (load % 3)), stamp: 0, ...(half ? { from: fit.to / 2 } : { to: fit.to / 2 }) });
      // the index of this load made (the last one's plans carried); then the trace before it drawn where its plans did not
      // reach (the buckets it plans now are not this load's: their credit may be the last analysis's)
      graphIndex(shown);
      if (before) graphWindow(before, zoomed(k - 1, 1));
      // at Fit, the half the load before left unplanned, and the first half of the next width, as the page asks
      for (const request of [{ ...fit, stamp: 0 }, ...(before ? [zoomed(k - 1, 1)] : []), zoomed(k, 0)]) {
        const window = graphWindow(shown, request);
        assert.equal(JSON.stringify(window), JSON.stringify(graphWindow(whole, request)), `after ${at} records: the window at scale ${request.scale} from ${request.from} equals a whole build's`);
        credited += window.runs.filter((r) => r.credit !== undefined).length;
      }
      before = shown;
      if (at >= records.length) break;
      fs.appendFileSync(file, lines(records.slice(at, Math.min(records.length, at + 23))));
    }
    assert.ok(credited > 100, `run bars with credit: ${credited}`);
    assert.ok(graphPlansCarried() > plansCarried, 'plans carried');
    assert.ok(graphRunsRecredited() - recredited > 20, `run bars given another credit: ${graphRunsRecredited() - recredited}`);
  });

  it('in a session, extends the graph of a file seen growing on disk, from its second append on', async () => {
    const file = path.join(DIR, 'session.otrace.jsonl');
    fs.writeFileSync(file, lines([header, ev(0, 0, 'spawn', 'orchestrator', { to: 'w' }), ev(1, 1, 'tool_call', 'w', { tool: 'bash' })]));
    const store = new SessionStore();
    let id = 0;
    const load = async () => {
      await store.load({ key: 'k', version: -1, path: file, local: true, changed: [file] }, ++id);
      return store.graphOverview('k', 'title')!;
    };
    await load();
    fs.appendFileSync(file, lines([ev(2, 2, 'tool_result', 'w', { tool: 'bash' })]));
    await load(); // seen growing: laid out whole, keeping what the next append extends
    const before = layoutStructureExtensions();
    fs.appendFileSync(file, lines([ev(3, 3, 'return', 'w', { to: 'orchestrator' }), ev(4, 4, 'stop', 'orchestrator', { reason: 'task_complete' })]));
    const overview = await load();
    assert.equal(layoutStructureExtensions(), before + 1, 'the layout extended');
    assert.equal(overview.totalEvents, 5);
    // a trace read from a document's text is not followed: nothing kept, laid out whole
    await store.load({ key: 't', version: 1, path: file, local: true, text: fs.readFileSync(file, 'utf8') }, ++id);
    store.graphOverview('t', 'title');
    await store.load({ key: 't', version: 2, path: file, local: true, text: `${fs.readFileSync(file, 'utf8')}${lines([ev(5, 5, 'message', 'w', { to: 'orchestrator' })])}` }, ++id);
    store.graphOverview('t', 'title');
    assert.equal(layoutStructureExtensions(), before + 1, 'a text is laid out whole');
  });
});
