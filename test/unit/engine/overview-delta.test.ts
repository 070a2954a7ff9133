/**
 * The overview sent as a delta after an append (src/engine/overview-delta.ts makes it,
 * src/shared/overview-delta.ts is the webview's code that applies it): random traces written to a
 * file in random pieces and followed as a session follows them; after each piece the overview the
 * webview holds (the first one read back from its bytes, then each delta applied to it) must equal
 * the whole overview of the same bytes, and a structure extended by the append gives a delta.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { followLayout, layoutStructureExtensions } from '../../../src/engine/structure-growth';
import { graphOverview } from '../../../src/engine/graph-window';
import { overviewDelta } from '../../../src/engine/overview-delta';
import { appendedSnapshot, makeSnapshot, readSnapshot } from '../../../src/engine/snapshot';
import { SessionStore } from '../../../src/engine/session-store';
import { applyOverviewDelta } from '../../../src/shared/overview-delta';
import { packOverview, unpackOverview } from '../../../src/shared/overview-columns';
import type { GraphOverview } from '../../../src/shared/protocol';
import { GrowingLoad } from '../../../src/trace/growing-load';
import '../../../src/trace/importers';
import { LiveFiles } from '../../../src/trace/live-files';
import type { MappingSource } from '../../../src/trace/mapping-choice';
import { choice, traceLines } from './random-appends';
import { writeOtraceTrace } from '../../../bench/live';
import { followedFile } from './followed-file';

/** One list for every load: another list of mappings starts the growing import again. */
const NO_MAPPINGS: MappingSource[] = [];
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-overview-delta-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

/** An overview in plain values (typed arrays as arrays, findings' events read). */
function plain(o: GraphOverview): unknown {
  return {
    ...o,
    columns: Object.fromEntries(Object.entries(o.columns).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)])),
    findings: o.findings.map((f) => ({ ...f, events: Array.from(f.events) })),
  };
}

/** The whole overview as the webview reads it from its bytes. */
function asSent(o: GraphOverview): GraphOverview {
  const { json, columns } = packOverview(o);
  return unpackOverview(json, columns);
}

let files = 0;

/** Follows a file through its pieces; per piece the held overview (delta applied, or whole) must equal the whole overview. Returns how many deltas were applied. */
function follow(pieces: string[]): number {
  const file = path.join(DIR, `t${files++}.otrace.jsonl`);
  fs.writeFileSync(file, '');
  const live = new LiveFiles();
  const growing = new GrowingLoad();
  let engineHeld: GraphOverview | undefined;
  let held: GraphOverview | undefined;
  let deltas = 0;
  let stamp = 1;
  for (const piece of pieces) {
    fs.appendFileSync(file, piece);
    for (const p of live.paths()) live.refresh(p);
    const loaded = growing.load(file, live, NO_MAPPINGS);
    followLayout(loaded);
    const extended = layoutStructureExtensions();
    const next = { ...graphOverview(readSnapshot('k', -1, 'trace.otrace.jsonl', loaded), 'title'), stamp: stamp++ };
    const delta = engineHeld && layoutStructureExtensions() > extended ? overviewDelta(engineHeld, next) : undefined;
    if (engineHeld && layoutStructureExtensions() > extended) assert.ok(delta, 'an extended structure gives a delta');
    if (delta) {
      held = applyOverviewDelta(held!, delta);
      deltas++;
    } else held = asSent(next);
    engineHeld = next;
    assert.deepEqual(plain(held), plain(next), `after ${fs.statSync(file).size} bytes: the overview held equals the whole overview`);
  }
  return deltas;
}

describe('the overview sent as a delta after an append', () => {
  it('applied to the overview held, equals the whole overview of the same bytes (random traces, random cuts)', () => {
    let deltas = 0;
    fc.assert(
      fc.property(fc.array(choice, { minLength: 1, maxLength: 70 }), fc.nat(12), fc.array(fc.nat(10), { minLength: 1, maxLength: 8 }), (choices, first, cuts) => {
        const text = `${traceLines(choices).join('\n')}\n`;
        const breaks: number[] = [];
        for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) breaks.push(k + 1);
        let line = Math.min(first, breaks.length - 1);
        const pieces = [text.slice(0, breaks[line])];
        let shown = breaks[line];
        for (const cut of cuts) {
          line = Math.min(breaks.length - 1, line + cut);
          pieces.push(text.slice(shown, breaks[line]));
          shown = breaks[line];
        }
        pieces.push(text.slice(shown));
        deltas += follow(pieces);
      }),
      { numRuns: 200, seed: 30 },
    );
    assert.ok(deltas > 40, `${deltas} deltas applied`);
  });

  it('moves no old axis position on an append that keeps the threshold of the axis: the delta carries the appended events only', () => {
    // two bursts of work with an idle gap between them (a human pause), then events appended one by one
    const lines = [JSON.stringify({ trace_id: 'p', task_id: 'p', system: 'test' })];
    const ev = (i: number, t: number) => JSON.stringify({ id: `e${i}`, t, type: i % 3 ? 'message' : 'tool_call', agent: i % 2 ? 'a' : 'b', to: i % 2 ? 'b' : 'a', tool: 'bash', content: `m${i}` });
    for (let i = 0; i < 100; i++) lines.push(ev(i, i * 0.5));
    for (let i = 100; i < 200; i++) lines.push(ev(i, 5000 + i * 0.5));
    const file = path.join(DIR, 'pause.otrace.jsonl');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const load = followedOverviews(file);
    let engineHeld = load(1);
    let held = asSent(engineHeld);
    assert.equal(engineHeld.axis.gaps.length, 1, 'the pause is an idle gap');
    for (let k = 0; k < 20; k++) {
      fs.appendFileSync(file, `${ev(200 + k, 5100 + k * 0.5 + 0.25)}\n`);
      const next = load(k + 2);
      const delta = overviewDelta(engineHeld, next);
      assert.ok(delta, `append ${k}: a delta`);
      assert.equal(delta.tx, undefined, `append ${k}: no old position moved (the axis's span grew from ${engineHeld.axis.span} to ${next.axis.span})`);
      assert.ok(delta.appended.length + delta.changed.byteLength < 200, `append ${k}: ${delta.appended.length + delta.changed.byteLength} bytes of columns for one event`);
      held = applyOverviewDelta(held, delta);
      assert.deepEqual(plain(held), plain(next));
      engineHeld = next;
    }
  });

  it("leaves out the findings while an append is analysed (the last analysis's, listed again), and sends them when they change", () => {
    const demo = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
    const file = path.join(DIR, 'analysed.otrace.jsonl');
    fs.writeFileSync(file, `${demo.slice(0, 20).join('\n')}\n`);
    const live = new LiveFiles();
    const growing = new GrowingLoad();
    const load = (to: number) => {
      fs.appendFileSync(file, `${demo.slice(fs.readFileSync(file, 'utf8').split('\n').length - 1, to).join('\n')}\n`);
      for (const p of live.paths()) live.refresh(p);
      const loaded = growing.load(file, live, NO_MAPPINGS);
      followLayout(loaded);
      return loaded;
    };
    load(20);
    const analysed = makeSnapshot('k', 1, 'trace.otrace.jsonl', load(22));
    let engineHeld = { ...graphOverview(analysed, 'title'), stamp: 1 };
    let held = asSent(engineHeld);
    assert.ok(engineHeld.findings.length > 0, 'findings to list');
    let shown = analysed;
    for (const [k, to] of [25, 28].entries()) {
      const read = appendedSnapshot('k', 2 + k, 'trace.otrace.jsonl', load(to), shown);
      const next = { ...graphOverview(read, 'title'), stamp: 2 + k };
      const delta = overviewDelta(engineHeld, next)!;
      assert.equal(delta.findingsKept, true, `append ${k}: the same findings, kept`);
      assert.equal('findings' in JSON.parse(new TextDecoder().decode(delta.json)), false, `append ${k}: not sent again`);
      held = applyOverviewDelta(held, delta);
      assert.deepEqual(plain(held), plain(next), `append ${k}: the overview held equals the whole overview`);
      engineHeld = next;
      shown = read;
    }
    // the append's own analysis ends: its findings are sent
    const done = { ...graphOverview(makeSnapshot('k', 4, 'trace.otrace.jsonl', shown.loaded), 'title'), stamp: 4 };
    const delta = overviewDelta(engineHeld, done)!;
    assert.equal(delta.findingsKept, undefined);
    assert.deepEqual(plain(applyOverviewDelta(held, delta)), plain(done));
  });

  it("sends only the findings that changed when an append's analysis ends (a generated trace of loops and stops, followed)", () => {
    const file = path.join(DIR, 'generated.otrace.jsonl');
    const more = writeOtraceTrace(file, 3000, 600);
    const load = followedFile(file);
    load();
    let engineHeld = { ...graphOverview(makeSnapshot('k', 1, 'trace.otrace.jsonl', load()), 'title'), stamp: 1 };
    let held = asSent(engineHeld);
    assert.ok(engineHeld.findings.length > 5, `${engineHeld.findings.length} findings to list`);
    let kept = 0;
    let sent = 0;
    for (let k = 0; k < 6; k++) {
      fs.appendFileSync(file, `${more.slice(k * 100, (k + 1) * 100).join('\n')}\n`);
      const next = { ...graphOverview(makeSnapshot('k', 2 + k, 'trace.otrace.jsonl', load()), 'title'), stamp: 2 + k };
      const delta = overviewDelta(engineHeld, next)!;
      assert.ok(delta, `append ${k}: a delta`);
      const listed = (JSON.parse(new TextDecoder().decode(delta.json)) as { findings?: unknown[] }).findings ?? [];
      if (delta.findingsFrom) {
        assert.equal(delta.findingsFrom.length, next.findings.length);
        assert.equal(listed.length, delta.findingsFrom.filter((x) => x < 0).length, `append ${k}: the findings not kept are sent`);
        kept += delta.findingsFrom.filter((x) => x >= 0).length;
      }
      sent += listed.length;
      held = applyOverviewDelta(held, delta);
      assert.deepEqual(plain(held), plain(next), `append ${k}: the overview held equals the whole overview`);
      engineHeld = next;
    }
    assert.ok(kept > sent, `${kept} findings kept, ${sent} sent again`);
    // a delta naming a finding the held overview lacks is refused, not applied wrong
    const bad = { ...overviewDelta(engineHeld, { ...engineHeld, findings: [...engineHeld.findings], stamp: 99 })!, findingsFrom: Int32Array.of(engineHeld.findings.length + 5) };
    assert.throws(() => applyOverviewDelta(held, bad), /no finding/);
  });

  it('grows the held columns in place when they have room (no copy per append)', () => {
    const lines = [JSON.stringify({ trace_id: 'g', task_id: 'g', system: 'test' })];
    for (let i = 0; i < 40; i++) lines.push(JSON.stringify({ id: `e${i}`, t: i, type: 'message', agent: i % 2 ? 'a' : 'b', to: i % 2 ? 'b' : 'a', content: `m${i}` }));
    const text = lines.map((l) => `${l}\n`);
    const file = path.join(DIR, 'room.otrace.jsonl');
    fs.writeFileSync(file, text.slice(0, 21).join(''));
    const load = followedOverviews(file);
    let engineHeld = load(1);
    let held = asSent(engineHeld);
    const buffers: ArrayBufferLike[] = [];
    for (let k = 21; k < text.length; k++) {
      fs.appendFileSync(file, text[k]);
      const next = load(k);
      const delta = overviewDelta(engineHeld, next);
      assert.ok(delta, `append ${k}: a delta`);
      held = applyOverviewDelta(held, delta);
      assert.deepEqual(plain(held), plain(next));
      buffers.push(held.columns.lane.buffer);
      engineHeld = next;
    }
    // 19 appends of one event to 20: the lane column was copied at most twice (twice as large each time)
    assert.ok(new Set(buffers).size <= 2, `${new Set(buffers).size} lane buffers over 19 appends`);
  });

  it('in a session that answers the trace as read first, the analysed overview of an append is a delta against it (the same layout: marks and findings changed)', async () => {
    const demo = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
    const file = path.join(DIR, 'progressive.otrace.jsonl');
    fs.writeFileSync(file, `${demo.slice(0, 20).join('\n')}\n`);
    // every trace answered as read before its analysis (progressive from 1 event)
    const store = new SessionStore({ progressiveFromEvents: 1 });
    let id = 0;
    let held: GraphOverview | undefined;
    const answers: string[] = [];
    /** Asks the overview as the graph view does (holding `held`); checks the webview's overview after it against the whole one. */
    const ask = (when: string) => {
      const answer = store.graphOverviewUpdate('k', 'title', 800, held?.stamp)!;
      held = 'delta' in answer ? applyOverviewDelta(held!, answer.delta) : unpackOverview(answer.json, answer.columns);
      assert.deepEqual(plain(held), plain(store.graphOverview('k', 'title')!), `${when}: the overview held equals the whole one`);
      answers.push(`${when} ${'delta' in answer ? 'delta' : 'whole'}`);
    };
    const load = async (k: number) => {
      await store.load({ key: 'k', version: -1, path: file, local: true, changed: [file] }, ++id, (p) => {
        if (p.read) ask(`load ${k} as read:`);
      });
      ask(`load ${k} analysed:`);
    };
    await load(0);
    for (let k = 1; k <= 3; k++) {
      fs.appendFileSync(file, `${demo.slice(18 + 2 * k, 20 + 2 * k).join('\n')}\n`);
      await load(k);
    }
    assert.deepEqual(answers.slice(-4), ['load 2 as read: delta', 'load 2 analysed: delta', 'load 3 as read: delta', 'load 3 analysed: delta'], answers.join('; '));
  });

  it('in a session, answers a file seen growing with a delta against the overview the webview holds, else whole', async () => {
    const ev = (id: number, t: number, type: string, agent: string, more: Record<string, unknown> = {}) => `${JSON.stringify({ id: `e${id}`, t, type, agent, ...more })}\n`;
    const file = path.join(DIR, 'session.otrace.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ trace_id: 's', task_id: 's', system: 'test' })}\n${ev(0, 0, 'spawn', 'orchestrator', { to: 'w' })}${ev(1, 1, 'tool_call', 'w', { tool: 'bash' })}`);
    const store = new SessionStore();
    let id = 0;
    let held: GraphOverview | undefined;
    /** Loads what is on disk and asks the overview as the graph view does (holding `held`); the webview's overview after it. */
    const update = async (): Promise<'delta' | 'whole'> => {
      await store.load({ key: 'k', version: -1, path: file, local: true, changed: [file] }, ++id);
      const answer = store.graphOverviewUpdate('k', 'title', 800, held?.stamp)!;
      assert.ok(answer.first, 'with the first window');
      held = 'delta' in answer ? applyOverviewDelta(held!, answer.delta) : unpackOverview(answer.json, answer.columns);
      assert.equal(held.stamp, answer.stamp);
      assert.deepEqual(plain(held), plain(store.graphOverview('k', 'title')!), 'the overview held equals the whole one');
      return 'delta' in answer ? 'delta' : 'whole';
    };
    assert.equal(await update(), 'whole', 'the first answer');
    fs.appendFileSync(file, ev(2, 2, 'tool_result', 'w', { tool: 'bash' }));
    assert.equal(await update(), 'whole', 'seen growing: laid out whole');
    fs.appendFileSync(file, `${ev(3, 3, 'message', 'w', { to: 'orchestrator' })}${ev(4, 9, 'tool_call', 'w', { tool: 'search' })}`);
    assert.equal(await update(), 'delta', 'the layout extended: a delta');
    fs.appendFileSync(file, ev(5, 12, 'tool_result', 'w', { tool: 'search' }));
    assert.equal(await update(), 'delta', 'extended again: a delta (an old call now a bar)');
    // a webview that holds another overview (a page loaded again) gets the whole one
    held = undefined;
    fs.appendFileSync(file, ev(6, 13, 'message', 'w', { to: 'orchestrator' }));
    assert.equal(await update(), 'whole', 'nothing held: whole');
    // an append that reaches back (a new agent's lane): whole
    fs.appendFileSync(file, ev(7, 14, 'message', 'x', { to: 'orchestrator' }));
    assert.equal(await update(), 'whole', 'a new lane: whole');
  });

  it('comes with the window of the view the page held (its last request), reaching the new end when the view reached the old one', async () => {
    const ev = (id: number, t: number, agent: string) => `${JSON.stringify({ id: `e${id}`, t, type: 'tool_call', agent, tool: 'bash' })}\n`;
    const file = path.join(DIR, 'held-view.otrace.jsonl');
    let text = `${JSON.stringify({ trace_id: 'h', task_id: 'h', system: 'test' })}\n`;
    for (let k = 0; k < 40; k++) text += ev(k, k, k % 2 ? 'a' : 'b');
    fs.writeFileSync(file, text);
    const store = new SessionStore();
    let id = 0;
    const load = () => store.load({ key: 'v', version: -1, path: file, local: true, changed: [file] }, ++id);
    await load();
    fs.appendFileSync(file, ev(40, 40, 'a'));
    await load(); // seen growing: followed from here
    const held = store.graphOverviewUpdate('v', 't', 800, undefined)!;
    const heldOverview = store.graphOverview('v', 't')!;
    // the page zoomed into the middle, and (another request) to the end
    const middle = { seq: 7, stamp: held.stamp, mode: 'time' as const, from: 10, to: 20, scale: 40, keep: [] };
    const end = { ...middle, seq: 8, from: 30, to: heldOverview.axis.span + 2 };
    fs.appendFileSync(file, `${ev(41, 41, 'b')}${ev(42, 42, 'a')}`);
    await load();
    const grown = store.graphOverview('v', 't')!;
    assert.ok(grown.axis.span > heldOverview.axis.span, 'the axis grew');
    const inMiddle = store.graphOverviewUpdate('v', 't', 800, held.stamp, middle)!;
    assert.equal(inMiddle.first?.stamp, grown.stamp, 'the window is of the new overview');
    assert.ok(inMiddle.first!.from <= 10 && inMiddle.first!.to >= 20 && inMiddle.first!.to < grown.axis.span, `the middle view's window: ${inMiddle.first!.from}..${inMiddle.first!.to}`);
    // asked again as held over the same overview: the view that reached the old end reaches the new one
    const atEnd = store.graphOverviewUpdate('v', 't', 800, held.stamp, end)!;
    assert.ok(atEnd.first!.from <= 30 && atEnd.first!.to >= grown.axis.span, `the end view's window reaches the new end ${grown.axis.span}: ${atEnd.first!.from}..${atEnd.first!.to}`);
    assert.ok(atEnd.first!.nodes.some((n) => n.index === 42) || atEnd.first!.runs.length > 0, 'the appended events are in it');
    // a view of another overview than the one held: the whole axis at Fit
    const stale = store.graphOverviewUpdate('v', 't', 800, held.stamp, { ...middle, stamp: held.stamp - 1 })!;
    assert.ok(stale.first!.from <= 0 && stale.first!.to >= grown.axis.span, 'Fit');
  });

  it('finds the changed values among equal bytes, and in a column whose element type grew (a lane column past 255 lanes)', () => {
    const n = 10_000;
    const columns = (lane: Uint8Array | Uint16Array) => ({ byTime: Int32Array.from({ length: n }, (_, i) => i), tx: Float64Array.from({ length: n }, (_, i) => i), lane, kind: new Uint8Array(n), end: Int32Array.from({ length: n }, (_, i) => i), row: new Uint8Array(n) });
    const base = { title: 't', format: 'otrace', totalEvents: n, lanes: [], axis: { points: [], gaps: [], span: n }, kinds: [], findings: [], problems: { errors: 0, warnings: 0 }, legend: { edgeTypes: [], bars: false, credit: false, cues: [], marks: [] } };
    const held = { ...base, stamp: 1, columns: columns(new Uint8Array(n).fill(3)) } as unknown as GraphOverview;
    const nextLane = new Uint16Array(n + 2).fill(3);
    nextLane[7_777] = 300;
    const next = { ...base, stamp: 2, totalEvents: n + 2, columns: { ...columns(nextLane), byTime: Int32Array.from({ length: n + 2 }, (_, i) => i), tx: Float64Array.from({ length: n + 2 }, (_, i) => i), kind: new Uint8Array(n + 2), end: Int32Array.from({ length: n + 2 }, (_, i) => i), row: new Uint8Array(n + 2) } } as unknown as GraphOverview;
    next.columns.row[5_000] = 2; // one changed value in 10,000 equal bytes
    const delta = overviewDelta(held, next)!;
    assert.deepEqual(Array.from(delta.changed), [0, 7_777, 300, 3, 5_000, 2], 'lane (code 0) and row (code 3) changes, nothing else');
    assert.equal(delta.tx, undefined, 'no old position moved');
  });

  it('is refused for an overview the delta was not made from', () => {
    const o = asSent({ title: 't', format: 'otrace', stamp: 3, totalEvents: 0, lanes: [], axis: { points: [], gaps: [], span: 0 }, columns: { byTime: new Int32Array(0), tx: new Float64Array(0), lane: new Uint8Array(0), kind: new Uint8Array(0), end: new Int32Array(0), row: new Uint8Array(0) }, kinds: [], findings: [], problems: { errors: 0, warnings: 0 }, legend: { edgeTypes: [], bars: false, credit: false, cues: [], marks: [] } });
    const delta = overviewDelta(o, { ...o, stamp: 4 })!;
    assert.throws(() => applyOverviewDelta({ ...o, stamp: 2 }, delta), /for the overview 3, applied to 2/);
  });
});

/** The overview of `file` as a followed session makes it after each change on disk: call once per change, with the stamp it carries. */
function followedOverviews(file: string) {
  const live = new LiveFiles();
  const growing = new GrowingLoad();
  return (stamp: number) => {
    for (const p of live.paths()) live.refresh(p);
    const loaded = growing.load(file, live, NO_MAPPINGS);
    followLayout(loaded);
    return { ...graphOverview(readSnapshot('k', -1, 'trace.otrace.jsonl', loaded), 'title'), stamp };
  };
}
