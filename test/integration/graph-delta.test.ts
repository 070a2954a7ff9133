/**
 * A trace growing on disk, open in the graph editor of a real VS Code (issue #30): once the file is
 * followed, each append reaches the page as a delta against the overview it holds (not the whole
 * overview again), and the page draws the grown trace: the header counts the new events and the
 * overview it holds equals the engine's whole overview of the trace; a line written in two halves
 * (a live writer's normal state) is information in Problems until it ends, and appends come as
 * deltas again once it has.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OtraceApi } from '../../src/host/extension';
import type { GraphOverview } from '../../src/shared/protocol';
import { evalInWebview } from './bridge';
import { untilValue } from './wait';

/** What the test reads of the page. */
interface Seen {
  summary: string;
  total: number;
  columns: number;
  deltas: { applied: number; refused: number };
  renders: number;
  /** Windows the page drew and asked for so far. */
  windows: { applied: number; asked: number };
  /** The overview's columns as arrays, and its lanes and axis. */
  held: unknown;
}

const ev = (k: number, agent: string, type: string, more: Record<string, unknown> = {}) => JSON.stringify({ id: `e${k}`, t: k, type, agent, content: `${type} ${k}`, ...more });

describe('a growing trace in the graph editor: appends arrive as deltas', function () {
  this.timeout(180_000);
  let dir = '';
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('draws each append from a delta applied to the overview the page holds', async () => {
    const api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-delta-'));
    const file = path.join(dir, 'growing.otrace.jsonl');
    const lines = [JSON.stringify({ trace_id: 'grow', task_id: 'grow', system: 'test' }), ev(0, 'orchestrator', 'spawn', { to: 'worker' })];
    for (let k = 1; k < 40; k++) lines.push(ev(k, k % 3 ? 'worker' : 'orchestrator', k % 2 ? 'tool_call' : 'tool_result', { tool: 'bash' }));
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'otrace.traceGraph');
    const frame = `body[data-state="ready"][data-title="${path.basename(file)}"]`;
    const seen = () =>
      evalInWebview<Seen>(
        `() => { const g = globalThis.__otrace.graph; return { summary: document.getElementById('summary').textContent, total: g.totalEvents, columns: g.columns.tx.length, deltas: globalThis.__otrace.deltas(), renders: globalThis.__otrace.renders(), windows: globalThis.__otrace.windows(), held: { columns: Object.fromEntries(Object.entries(g.columns).map(([k, v]) => [k, Array.from(v)])), lanes: g.lanes, axis: g.axis } }; }`,
        { selector: frame, timeoutMs: 60_000 },
      );
    /** The engine's whole overview of the trace now, in the page's terms. */
    const whole = async () => {
      const o = (await api.sessions.engine.graphOverview(vscode.Uri.file(file).toString(), path.basename(file))) as GraphOverview;
      return { columns: Object.fromEntries(Object.entries(o.columns).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)])), lanes: o.lanes, axis: o.axis };
    };
    const first = await untilValue('the graph', () => seen(), (v) => v.total === 40, 60_000);
    assert.equal(first.deltas.applied, 0, 'the first overview comes whole');
    // appends: the first makes the file followed (laid out whole), the later ones extend the layout
    // the page's view made known to the host: zoomed to the last event, a window asked for
    await vscode.commands.executeCommand('otrace.graph.lastEvent');
    await vscode.commands.executeCommand('otrace.graph.zoomToSelection');
    await untilValue('the zoomed window asked and drawn', () => seen(), (v) => v.windows.asked > 0 && v.windows.applied > 0, 60_000);
    let n = 40;
    const asked: number[] = [];
    /** Per round, whether the page drew only that append's update since the last round's window (no other update came between). */
    const clean: boolean[] = [];
    let rendersDrawn = (await seen()).renders;
    for (let round = 0; round < 4; round++) {
      const more = Array.from({ length: 10 }, (_, j) => ev(n + j, j % 2 ? 'worker' : 'orchestrator', 'message', { to: j % 2 ? 'orchestrator' : 'worker' }));
      fs.appendFileSync(file, `${more.join('\n')}\n`);
      n += 10;
      const grown = await untilValue(`the graph of ${n} events`, () => seen(), (v) => v.total === n, 60_000);
      assert.equal(grown.columns, n, 'the overview held has a column value per event');
      assert.deepEqual(grown.held, await whole(), `after ${n} events (${JSON.stringify(grown.deltas)}): the page's overview equals the engine's whole overview`);
      assert.match(grown.summary, new RegExp(`\\b${n} events\\b`), `the header: ${grown.summary}`);
      const drawn = await untilValue(`the window of ${n} events drawn`, () => seen(), (v) => v.windows.applied > 0, 60_000);
      asked.push(drawn.windows.asked);
      clean.push(drawn.renders === rendersDrawn + 1);
      rendersDrawn = drawn.renders;
    }
    // once the file is followed (after the first append, laid out whole), the window of the view the page held (the zoomed one, reaching the end) comes with each update: drawn at once, none asked.
    // (Another update between two appends, e.g. the file read again once it stopped growing for the live window on a slow
    // machine, can be made before the page's window request reaches the host: that round may ask; seen once in a full run.)
    const cleanLater = asked.map((a, round) => ({ a, round })).filter(({ round }) => round > 0 && clean[round]);
    assert.ok(cleanLater.length >= 1, `a round after the first with only its append's update drawn: ${JSON.stringify({ asked, clean })}`);
    assert.deepEqual(cleanLater.map(({ a }) => a), cleanLater.map(() => 0), `windows asked by the page after each append with only its update drawn: ${JSON.stringify({ asked, clean })}`);
    const last = await seen();
    assert.ok(last.deltas.applied >= 2, `appends drawn from deltas: ${JSON.stringify(last.deltas)}`);
    assert.equal(last.deltas.refused, 0, 'every delta applied to the overview held');

    // a line written in two halves (a live writer's normal state): once it ends, appends come as deltas again
    const line = ev(n, 'worker', 'message', { to: 'orchestrator' });
    fs.appendFileSync(file, line.slice(0, 20));
    // in Problems as information (the file is being written), not an error: the graph's header counts none
    const uri = vscode.Uri.file(file);
    const halfLine = () => vscode.languages.getDiagnostics(uri).filter((d) => /^last line has no line break yet/.test(d.message));
    const listed = await untilValue('the half line read', async () => halfLine(), (ds) => ds.length === 1, 60_000);
    assert.equal(listed[0].severity, vscode.DiagnosticSeverity.Information);
    assert.doesNotMatch((await seen()).summary, /error/, 'no error in the graph header');
    fs.appendFileSync(file, `${line.slice(20)}\n`);
    n += 1;
    const ended = await untilValue('the line ended', () => seen(), (v) => v.total === n && halfLine().length === 0, 60_000);
    for (let round = 0; round < 2; round++) {
      const more = Array.from({ length: 10 }, (_, j) => ev(n + j, j % 2 ? 'worker' : 'orchestrator', 'message', { to: j % 2 ? 'orchestrator' : 'worker' }));
      fs.appendFileSync(file, `${more.join('\n')}\n`);
      n += 10;
      await untilValue(`the graph of ${n} events`, () => seen(), (v) => v.total === n, 60_000);
    }
    const after = await seen();
    assert.ok(after.deltas.applied > ended.deltas.applied, `appends after the line ended drawn from deltas: ${JSON.stringify(ended.deltas)} -> ${JSON.stringify(after.deltas)}, renders ${ended.renders} -> ${after.renders}`);

    // the trace has no stop: while it is written, its end is no stop yet (no "never stopped" error); judged once it stops growing
    const neverStopped = () => vscode.languages.getDiagnostics(uri).filter((d) => d.code === 'stop' && /no stop at end of trace/.test(d.message));
    assert.deepEqual(neverStopped(), [], 'no "never stopped" error while the file is written');
    const inline = await evalInWebview<string[]>(`() => globalThis.__otrace.graph.findings.filter((f) => f.kind === 'stop').map((f) => f.inline)`, { selector: frame });
    assert.deepEqual(inline, ['■ no stop yet']);
    const window = api.sessions.liveWindowMs;
    try {
      api.sessions.liveWindowMs = 1000;
      const judged = await untilValue('the end judged once the file stopped growing', async () => neverStopped(), (ds) => ds.length === 1, 60_000);
      assert.equal(judged[0].severity, vscode.DiagnosticSeverity.Error);
    } finally {
      api.sessions.liveWindowMs = window;
    }
  });
});
