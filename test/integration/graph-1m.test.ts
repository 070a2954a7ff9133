/**
 * A trace of one million events in a real VS Code (issue 14): generated at test time into a
 * temporary folder (bench/_generate.ts, deterministic; never committed), opened in the trace graph
 * editor as a user opens a file too large for the text editor, read and analysed in the engine's
 * worker thread. A progress notification names the phase while it loads; the graph shows, its
 * header counts 1,000,000 events, and the extension host
 * stays responsive meanwhile (its event-loop delay is logged; the targets are `npm run bench --
 * host` figures, not asserted here). Skipped, saying why, when the disk has under 1 GB free.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { writeTraceFile } from '../../bench/_generate';
import type { OtraceApi } from '../../src/host/extension';
import { evalInPage, evalInWebview, screenshot, testLog } from './bridge';
import { until } from './wait';

const EVENTS = 1_000_000;
/** Free space below which the test is skipped (the file is about 230 MB; the generator wants twice that). */
const MIN_FREE_BYTES = 1024 ** 3;
/** Most Cytoscape elements a window may hold. */
const BOUND = 4_000;

describe('a 1,000,000-event trace in a real VS Code', function () {
  this.timeout(15 * 60_000);
  let dir = '';
  let file = '';

  before(function () {
    const stat = fs.statfsSync(os.tmpdir());
    const free = stat.bavail * stat.bsize;
    if (free < MIN_FREE_BYTES) {
      testLog(`      SKIPPED: ${Math.round(free / 1e6)} MB free in ${os.tmpdir()}, the 1M-event trace needs 1 GB`);
      this.skip();
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-1m-'));
    file = path.join(dir, 'run-1m.otrace.jsonl');
    const t0 = Date.now();
    const bytes = writeTraceFile(file, EVENTS, { exact: true });
    testLog(`      generated ${EVENTS.toLocaleString('en-US')} events, ${Math.round(bytes / 1e6)} MB, in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('opens in the graph editor: the graph is drawn and the header counts 1,000,000 events', async () => {
    const api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const uri = vscode.Uri.file(file);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = Date.now();
    await vscode.commands.executeCommand('vscode.openWith', uri, 'otrace.traceGraph');
    // The load takes more than a second: a progress notification says which phase it is in (read
    // from the workbench's screen-reader announcement, which every notification gets; no toast
    // element was found in this build's DOM).
    const announced = `() => [...document.querySelectorAll('.monaco-alert')].map((e) => e.textContent).filter((t) => t.includes('otrace: ${path.basename(file)}'))`;
    const progress = await until('the progress notification', async () => (await evalInPage<string[]>(announced)).join(' | ') || undefined, 60_000);
    // The phase comes with the notification or in a later announcement (VS Code may announce the
    // title alone when the phase is reported as the toast appears): wait for it a little.
    const phase = /reading|analysing 1,000,000 events|indexing/;
    const named = await until('a phase in the notification', async () => (await evalInPage<string[]>(announced)).find((t) => phase.test(t)), 20_000).catch(() => undefined);
    if (!named) testLog(`      the notification was announced without its phase: ${progress}`);
    const frame = `body[data-state="ready"][data-title="${path.basename(file)}"]`;
    const seen = await evalInWebview<{ summary: string; total: number; nodes: number; elements: number }>(
      `() => ({ summary: document.getElementById('summary').textContent, total: globalThis.__otrace.graph.totalEvents, nodes: globalThis.__otrace.cy.nodes().length, elements: globalThis.__otrace.cy.elements().length })`,
      { selector: frame, timeoutMs: 12 * 60_000 },
    );
    delay.disable();
    const seconds = (Date.now() - t0) / 1000;
    assert.match(seen.summary, /\b1,000,000 events · 22 agents\b/, `the header: ${seen.summary}`);
    assert.equal(seen.total, EVENTS);
    assert.ok(seen.nodes > 0, 'the graph draws nodes');
    assert.ok(seen.elements <= BOUND, `Cytoscape holds ${seen.elements} elements for ${EVENTS} events`);
    const summary = api.sessions.peek(uri);
    assert.equal(summary?.counts.events, EVENTS, 'the session summary counts every event');
    assert.ok(summary.findings.length > 0, 'the analysis ran (findings)');
    testLog(
      `      1M events: progress "${(named ?? progress).trim()}"; graph shown ${seconds.toFixed(1)} s after opening; ${seen.nodes} nodes drawn; extension host event-loop delay meanwhile: max ${(delay.max / 1e6).toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms`,
    );
    await screenshot('test-output/graph-1m.png');
  });
});
