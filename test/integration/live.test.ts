/**
 * A live trace, in a real VS Code: a Claude Code session shown in the graph (read from disk, not
 * open as a document) grows while it is shown. Its trace file gets lines, one of them written in
 * two halves, and a new sub-agent file appears. The session, its findings and the graph follow
 * without reopening, and what otrace reads after the first load is about what was appended.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { analyzeTrace } from '../../src/analysis';
import type { OtraceApi } from '../../src/host/extension';
import { loadTrace } from '../../src/trace/formats';
import '../../src/trace/importers';
import { nodeFileAccess } from '../../src/trace/node-files';
import { evalInWebview, screenshot, testLog } from './bridge';
import { until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'claude-code-session');
const SESSION = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const LATE_AGENT = 'agent-aa84377.jsonl';
const ready = (file: string) => `body[data-state="ready"][data-title="${path.basename(file)}"]`;

describe('a live trace', function () {
  this.timeout(180_000);
  let api: OtraceApi;
  before(async () => {
    api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('shows appended lines, a line written in two halves and a new sub-agent file, reading about the bytes added', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-live-'));
    fs.cpSync(FIXTURE, dir, { recursive: true });
    const main = path.join(dir, `${SESSION}.jsonl`);
    const late = path.join(dir, SESSION, 'subagents', LATE_AGENT);
    const full = fs.readFileSync(main);
    const cut = full.indexOf(0x0a, Math.floor(full.length * 0.6)) + 1;
    fs.writeFileSync(main, full.subarray(0, cut));
    fs.rmSync(late);
    const uri = vscode.Uri.file(main);

    await vscode.commands.executeCommand('otrace.openGraphToSide', uri);
    const first = await until('the first load', () => api.sessions.peek(uri));
    await evalInWebview('1', { selector: ready(main), timeoutMs: 60_000 });
    const firstBytes = api.sessions.bytesRead(uri);
    const files = cut + fs.statSync(path.join(dir, SESSION, 'subagents', 'agent-a93ccab.jsonl')).size + fs.statSync(path.join(dir, SESSION, 'subagents', 'agent-acompact-70d8e7.jsonl')).size;
    // Each file once; late watcher events of the copy may each re-check one byte.
    assert.ok(firstBytes >= files && firstBytes <= files + 16, `the first load reads each file once: ${firstBytes} bytes for ${files}`);
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString()), 'shown from disk, not as a document');

    // First write: up to the middle of a line.
    const rest = full.subarray(cut);
    const middle = rest.indexOf(0x0a, Math.floor(rest.length / 2)) - 40;
    fs.appendFileSync(main, rest.subarray(0, middle));
    const half = await until('the first write', () => {
      const s = api.sessions.peek(uri);
      return s && s.counts.events > first.counts.events ? s : undefined;
    }, 60_000);
    testLog(`live: ${first.counts.events} events, then ${half.counts.events} after the first write`);

    // The graph says the run is in progress; following it keeps the newest events in view.
    await until('the graph of the first write', async () =>
      (await evalInWebview<number>('__otrace.graph.totalEvents', { selector: ready(main) })) === half.counts.events || undefined,
    60_000);
    const shown = await evalInWebview<{ hidden: boolean; pressed: string | null }>(
      `(() => { const b = document.getElementById('follow-run'); return { hidden: b.hidden, pressed: b.getAttribute('aria-pressed') }; })()`,
      { selector: ready(main) },
    );
    assert.deepEqual(shown, { hidden: false, pressed: 'false' }, 'a growing trace shows "in progress", not yet followed');
    // and its run summary does not say the run ended: its last stop is only the last so far
    const ended = await evalInWebview<{ text: string; title: string }>(`(() => { const v = document.querySelector('#run .run-growing')?.parentElement; return { text: v?.textContent ?? '', title: v?.title ?? '' }; })()`, { selector: ready(main) });
    // a stop recorded so far right after "so far:" (a narrow panel cuts the rest), else "not yet"
    assert.match(ended.text, /^(not yet: still being written( · the last event)?|so far: .+)$/, ended.text);
    assert.equal(ended.title, ended.text, 'the whole row on hover (a narrow panel cuts it)');
    // The first event selected (its details come again after each drawing of the grown trace, and must not pull the
    // view back to it), zoomed in on the first events, newer ones off screen; following brings the newest into view.
    await evalInWebview(`(() => { document.getElementById('first').click(); return 1; })()`, { selector: ready(main) });
    await until('the details of the first event', async () =>
      (await evalInWebview<boolean>(`(() => { const o = __otrace; const d = o.details(); return !!d && d.index === o.current(); })()`, { selector: ready(main) })) || undefined,
    60_000);
    const detailsBefore = await evalInWebview<number>(`(() => { const o = __otrace; o.view.frameIndices(o.timeline().slice(0, 8)); document.getElementById('follow-run').click(); return o.detailsShown(); })()`, { selector: ready(main) });

    // Second write: the rest of that line and the others; then the new sub-agent file.
    fs.appendFileSync(main, rest.subarray(middle));
    fs.copyFileSync(path.join(FIXTURE, SESSION, 'subagents', LATE_AGENT), late);
    const fresh = loadTrace(fs.readFileSync(main, 'utf8'), main, nodeFileAccess);
    const expected = fresh.trace.events.length;
    const grown = await until(`${expected} events with the new sub-agent's lane`, async () => {
      const s = api.sessions.peek(uri);
      const t = s && s.counts.events === expected ? await api.sessions.inspect(uri, expected) : undefined;
      return s && t?.events.some((e) => e.agent.endsWith(':aa84377')) ? { ...s, events: t.events } : undefined;
    }, 60_000);
    assert.deepEqual(
      grown.events.map((e) => e.id),
      fresh.trace.events.map((e) => e.id),
      'the same events as a fresh read of the final files',
    );
    assert.deepEqual(
      grown.findings.map((f) => f.message),
      analyzeTrace(fresh).findings.map((f) => f.message),
      'the findings of the grown trace',
    );

    // The graph shows the grown trace without being reopened.
    const summary = await until('the graph to show the grown trace', async () => {
      const text = await evalInWebview<string>(`document.getElementById('summary').textContent`, { selector: ready(main) });
      return text.includes(`${expected.toLocaleString('en-US')} events`) ? text : undefined;
    }, 60_000);
    testLog(`live: graph header "${summary}"`);
    // the selected event's details again, for the grown trace drawn (the last drawing's, its analysis done)
    await until('the selected event\'s details for the grown trace', async () =>
      (await evalInWebview<boolean>(`(() => { const o = __otrace; return document.body.dataset.analysis === 'done' && o.detailsShown() > ${detailsBefore} && o.details()?.index === o.current() && o.settled(); })()`, { selector: ready(main) })) || undefined,
    60_000);
    const newest = await evalInWebview<{ x: number; width: number; pressed: string | null }>(
      `(() => { const o = __otrace; const order = o.timeline(); const last = order[order.length - 1];
        return { x: o.view.screenX(o.view.spanOf(o.view.drawnIndex(last))[0]), width: o.cy.width(), pressed: document.getElementById('follow-run').getAttribute('aria-pressed') }; })()`,
      { selector: ready(main) },
    );
    testLog(`live: following the run, the newest event is drawn at x=${Math.round(newest.x)} of ${newest.width} px`);
    assert.equal(newest.pressed, 'true', 'following stays on across the update');
    assert.ok(newest.x >= 0 && newest.x <= newest.width, `the newest event is in view while following: x=${newest.x} of ${newest.width}`);

    assert.ok(api.sessions.isGrowing(uri), 'the growing session is in progress');
    assert.ok(!api.sessions.isGrowing(vscode.Uri.file(path.join(FIXTURE, `${SESSION}.jsonl`))), 'a session that does not grow is not');

    // The writer stops: once the live window passes (two minutes; a second here), the graph says the run is no longer in progress, with no new load.
    const window = api.sessions.liveWindowMs;
    try {
      api.sessions.liveWindowMs = 1000;
      const stopped = await until('the graph to say the run is no longer being written', async () => {
        const v = await evalInWebview<{ hidden: boolean; ended: string }>(
          `(() => ({ hidden: document.getElementById('follow-run').hidden, ended: document.getElementById('run').textContent }))()`,
          { selector: ready(main) },
        );
        // (and the session not in progress: on a loaded machine the watcher may tell of the last bytes after a window
        // passed, which starts another; the state asserted is both at once)
        return v.hidden && !v.ended.includes('still being written') && !api.sessions.isGrowing(uri) ? v : undefined;
      }, 30_000);
      assert.ok(!api.sessions.isGrowing(uri), 'no longer in progress');
      assert.match(stopped.ended, /Ended/);
    } finally {
      api.sessions.liveWindowMs = window;
    }

    const added = rest.length + fs.statSync(late).size;
    const after = api.sessions.bytesRead(uri) - firstBytes;
    testLog(`live: ${after} bytes read after the first load for ${added} bytes added`);
    assert.ok(after >= added && after <= added * 1.1, `${after} bytes read for ${added} added`);
  });

  it('follows a session whose trace file is quiet while its sub-agents write: a sub-agent folder made after the open, a file in it growing alone', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-live-parts-'));
    fs.cpSync(FIXTURE, dir, { recursive: true });
    const main = path.join(dir, `${SESSION}.jsonl`);
    const parts = path.join(dir, SESSION);
    const subagents = path.join(parts, 'subagents');
    const sub = path.join(subagents, 'agent-a93ccab.jsonl');
    const whole = fs.readFileSync(path.join(FIXTURE, SESSION, 'subagents', 'agent-a93ccab.jsonl'));
    const cut = whole.indexOf(0x0a, Math.floor(whole.length / 2)) + 1;
    // the session before its first sub-agent started: no folder of sub-agents yet
    fs.rmSync(parts, { recursive: true });
    const uri = vscode.Uri.file(main);
    const mainBytes = fs.readFileSync(main);
    const events = (t: { events: { agent: string }[] }) => t.events.filter((e) => e.agent.endsWith(':a93ccab')).length;
    const fresh = () => loadTrace(fs.readFileSync(main, 'utf8'), main, nodeFileAccess).trace;

    // the trace open in an editor, its graph beside it (as a user opens a session)
    await vscode.window.showTextDocument(uri, { preview: false });
    await vscode.commands.executeCommand('otrace.openGraphToSide', uri);
    const first = await until('the first load', () => api.sessions.peek(uri));
    await evalInWebview('1', { selector: ready(main), timeoutMs: 60_000 });

    // the first sub-agent starts: its folder and the first half of its file
    fs.mkdirSync(subagents, { recursive: true });
    fs.writeFileSync(sub, whole.subarray(0, cut));
    const halfRead = fresh();
    const expectedHalf = events(halfRead);
    assert.ok(expectedHalf > 0, 'the half file has sub-agent events');
    // (the session's count may fall: a sub-agent's own file stands for what the trace file said of it)
    const half = await until(`the new sub-agent's ${expectedHalf} events`, async () => {
      const s = api.sessions.peek(uri);
      const t = s && s.stamp !== first.stamp ? await api.sessions.inspect(uri, halfRead.events.length) : undefined;
      return t && events(t) === expectedHalf ? s : undefined;
    }, 30_000);
    assert.equal(half.counts.events, halfRead.events.length, 'the events of a fresh read');
    assert.ok(api.sessions.isGrowing(uri), 'a session whose sub-agent started is in progress');

    // the sub-agent writes on; the trace file stays as it was
    fs.appendFileSync(sub, whole.subarray(cut));
    const expected = fresh();
    const grown = await until(`all ${events(expected)} of the sub-agent's events`, async () => {
      const s = api.sessions.peek(uri);
      const t = s && s.stamp !== half.stamp ? await api.sessions.inspect(uri, expected.events.length) : undefined;
      return t && events(t) === events(expected) ? t : undefined;
    }, 30_000);
    assert.deepEqual(grown.events.map((e) => e.id), expected.events.map((e) => e.id), 'the same events as a fresh read of the files');
    await until('the graph to show the grown session', async () => {
      const text = await evalInWebview<string>(`document.getElementById('summary').textContent`, { selector: ready(main) });
      return text.includes(`${expected.events.length.toLocaleString('en-US')} events`) || undefined;
    }, 30_000);
    assert.ok(fs.readFileSync(main).equals(mainBytes), 'the trace file unchanged on disk');
  });

  it("keeps following a session whose editor closes while its graph shows it: Problems stay, appends are read, and closing the graph lets it go", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-live-closed-'));
    fs.cpSync(FIXTURE, dir, { recursive: true });
    const main = path.join(dir, `${SESSION}.jsonl`);
    const full = fs.readFileSync(main);
    const cut = full.indexOf(0x0a, Math.floor(full.length * 0.6)) + 1;
    fs.writeFileSync(main, full.subarray(0, cut));
    const uri = vscode.Uri.file(main);
    const problems = () => vscode.languages.getDiagnostics(uri).length;

    // opened as a user opens it (an editor's document is let go when its tab closes; one an extension opened is kept for minutes)
    await vscode.commands.executeCommand('vscode.open', uri, { preview: false });
    await vscode.commands.executeCommand('otrace.openGraphToSide', uri);
    const first = await until('the first load', () => api.sessions.peek(uri));
    await evalInWebview('1', { selector: ready(main), timeoutMs: 60_000 });
    // the Problems of the trace file as the session has them
    const published = () => api.sessions.peek(uri)?.diagnostics.find((d) => d.file === '')?.items.length ?? 0;
    await until("the trace's Problems", () => (problems() > 0 && problems() === published()) || undefined);

    // the trace's editor closes; the graph stays
    const tab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString());
    assert.ok(tab, 'the trace open in an editor');
    await vscode.window.tabGroups.close(tab);
    await until('the document closed', () => !vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString()) || undefined);

    // the run goes on: the session, read from disk now, follows it
    fs.appendFileSync(main, full.subarray(cut));
    const expected = loadTrace(fs.readFileSync(main, 'utf8'), main, nodeFileAccess).trace.events.length;
    await until(`${expected} events after the append`, () => (api.sessions.peek(uri)?.counts.events === expected ? true : undefined), 30_000);
    assert.ok(expected > first.counts.events);
    await until('the graph of the grown session', async () =>
      (await evalInWebview<number>('__otrace.graph.totalEvents', { selector: ready(main) })) === expected || undefined,
    30_000);
    assert.ok(api.sessions.isGrowing(uri), 'the graph says the run is in progress');
    await until(`its Problems stay, those of the grown session (${published()})`, () => (problems() > 0 && problems() === published()) || undefined);

    // the graph closes too: nothing shows the session, it is let go with its Problems
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await until('the session let go', () => (api.sessions.peek(uri) === undefined && problems() === 0) || undefined, 30_000);
  });

  it('says when the trace file a graph shows is deleted or moved (the tab\'s title and the page), keeps what was read, and takes the file back when it returns', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-live-gone-'));
    const file = path.join(dir, 'gone.otrace.jsonl');
    fs.copyFileSync(path.join(ROOT, 'samples', 'demo.otrace.jsonl'), file);
    const uri = vscode.Uri.file(file);
    await vscode.commands.executeCommand('otrace.openGraphToSide', uri);
    const first = await until('the first load', () => api.sessions.peek(uri));
    await evalInWebview('1', { selector: ready(file), timeoutMs: 60_000 });
    const graphTab = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.label.includes('gone.otrace.jsonl'));
    const signShown = () => evalInWebview<boolean>("!document.getElementById('file-gone').hidden", { selector: ready(file) });
    assert.equal(graphTab()?.label, 'Graph: gone.otrace.jsonl');
    assert.equal(await signShown(), false);

    // moved away (as a rename or a delete does): no error, the graph keeps what was read and says the file is gone
    fs.renameSync(file, `${file}.moved`);
    await until('the session marked gone', () => api.sessions.isGone(uri) || undefined, 30_000);
    await until('the sign in the page', async () => (await signShown()) || undefined);
    assert.equal(graphTab()?.label, 'Graph: gone.otrace.jsonl (deleted)');
    await screenshot('test-output/graph-file-gone.png');
    assert.equal(api.sessions.peek(uri)?.counts.events, first.counts.events, 'what was read stays shown');
    assert.equal(await evalInWebview<number>('__otrace.graph.totalEvents', { selector: ready(file) }), first.counts.events);

    // back under its name as it was: no longer said gone (nothing new to read)
    fs.renameSync(`${file}.moved`, file);
    await until('the file back, not gone', () => (!api.sessions.isGone(uri) ? true : undefined), 30_000);
    await until('the sign gone from the page', async () => (await signShown()) === false || undefined);
    assert.equal(graphTab()?.label, 'Graph: gone.otrace.jsonl');

    // away again, then back under its name grown: read again
    fs.renameSync(file, `${file}.moved`);
    await until('the session marked gone again', () => api.sessions.isGone(uri) || undefined, 30_000);
    fs.renameSync(`${file}.moved`, file);
    fs.appendFileSync(file, `${JSON.stringify({ id: 'back', t: 1e6, type: 'message', agent: 'orchestrator', content: 'back again' })}\n`);
    await until('the session read again', () => (api.sessions.peek(uri)?.counts.events === first.counts.events + 1 && !api.sessions.isGone(uri)) || undefined, 30_000);
    await until('the sign gone from the page', async () => (await signShown()) === false || undefined);
    assert.equal(graphTab()?.label, 'Graph: gone.otrace.jsonl');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('shows a run being written whole while its view is Fit: opened with one event, its new agents and later times come into view with no Fit; a view the user moved stays where it is', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-live-fit-'));
    const file = path.join(dir, 'growing.otrace.jsonl');
    const ev = (id: string, t: number, agent: string, to?: string) => `${JSON.stringify({ id, t, type: 'message', agent, ...(to ? { to } : {}), content: `${agent} at ${t} s` })}\n`;
    fs.writeFileSync(file, `${JSON.stringify({ trace_id: 'g', task_id: 'g', system: 'test' })}\n${ev('e0', 0, 'user', 'coder')}`);
    const uri = vscode.Uri.file(file);
    await vscode.commands.executeCommand('otrace.openGraphToSide', uri);
    const frame = ready(file);
    await evalInWebview('1', { selector: frame, timeoutMs: 60_000 });
    assert.equal(await evalInWebview<boolean>('() => globalThis.__otrace.atFit()', { selector: frame }), true, 'opened at Fit');
    // the events drawn outside the graph's box (none when the whole run is in view)
    const outOfView = `() => { const o = globalThis.__otrace; const w = o.cy.width(); const h = o.cy.height(); const out = [];
      for (let i = 0; i < o.graph.totalEvents; i++) { const b = o.view.eventBox(i); if (!b || b.x2 < -0.5 || b.x1 > w + 0.5 || b.y2 < -0.5 || b.y1 > h + 0.5) out.push(i); }
      return { total: o.graph.totalEvents, out }; }`;
    const grown = async (total: number) =>
      until(`${total} events drawn`, async () => {
        const v = await evalInWebview<{ total: number; out: number[] }>(outOfView, { selector: frame });
        return v.total === total ? v : undefined;
      }, 30_000);

    // the run goes on: two new agents, and time ten times as long
    fs.appendFileSync(file, ev('e1', 1, 'coder') + ev('e2', 2, 'coder', 'reviewer') + ev('e3', 30, 'reviewer') + ev('e4', 31, 'auditor'));
    assert.deepEqual((await grown(5)).out, [], 'every event in view with no Fit (the view stayed on the first event)');

    // the user zooms in on the first events: the next append leaves that view as it is
    await evalInWebview('(() => { globalThis.__otrace.view.frameIndices([0, 1], 0.1); return 1; })()', { selector: frame });
    assert.equal(await evalInWebview<boolean>('() => globalThis.__otrace.atFit()', { selector: frame }), false, 'zoomed in: no longer at Fit');
    fs.appendFileSync(file, ev('e5', 60, 'coder'));
    const kept = await grown(6);
    assert.ok(kept.out.includes(5), `the newest event is out of the view the user chose: ${JSON.stringify(kept)}`);

    // the file written anew with another run, where the view held the first second of the old one: the new run is shown whole
    const other = path.join(dir, 'other.tmp');
    fs.writeFileSync(other, `${JSON.stringify({ trace_id: 'h', task_id: 'h', system: 'test' })}\n${['a', 'b', 'c'].map((agent, k) => ev(`n${k}`, k * 20, agent)).join('')}`);
    fs.renameSync(other, file);
    const replaced = await until('the run written anew drawn', async () => {
      const v = await evalInWebview<{ total: number; out: number[] }>(outOfView, { selector: frame });
      return v.total === 3 && (await evalInWebview<boolean>('() => globalThis.__otrace.settled()', { selector: frame })) ? v : undefined;
    }, 30_000);
    assert.deepEqual(replaced.out, [], 'every event of the new run in view');
    // and drawn across the graph, not cut to the first second the view held for the old run
    const spread = await evalInWebview<number>('() => { const o = globalThis.__otrace; return (o.view.eventBox(2).x2 - o.view.eventBox(0).x1) / o.cy.width(); }', { selector: frame });
    assert.ok(spread > 0.5, `the new run spans ${Math.round(spread * 100)}% of the graph's width`);

    // zoomed in on its first second, the file written anew with a longer list of events over 4 ms: shown whole, not as a sliver of the view held
    await evalInWebview('(() => { globalThis.__otrace.view.frameIndices([0], 0.5, 1 / 40); return 1; })()', { selector: frame });
    assert.equal(await evalInWebview<boolean>('() => globalThis.__otrace.atFit()', { selector: frame }), false, 'zoomed in');
    fs.writeFileSync(other, `${JSON.stringify({ trace_id: 'i', task_id: 'i', system: 'test' })}\n${['a', 'b', 'c', 'd', 'e'].map((agent, k) => ev(`m${k}`, k * 0.001, agent)).join('')}`);
    fs.renameSync(other, file);
    await until('the third run drawn', async () => ((await evalInWebview<{ total: number }>(outOfView, { selector: frame })).total === 5 && (await evalInWebview<boolean>('() => globalThis.__otrace.settled()', { selector: frame })) ? true : undefined), 30_000);
    const third = await evalInWebview<number>('() => { const o = globalThis.__otrace; return (o.view.eventBox(4).x2 - o.view.eventBox(0).x1) / o.cy.width(); }', { selector: frame });
    assert.ok(third > 0.5, `the third run spans ${Math.round(third * 100)}% of the graph's width`);
  });
});
