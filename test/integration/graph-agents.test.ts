/**
 * A trace of 100,000 events, each its own agent (issue #30 "Any shape, bounded"), in a real VS
 * Code: generated at test time into a temporary folder (bench/_generate.ts `agentPerEvent`,
 * deterministic; never committed) and opened in the trace graph editor. The engine folds the
 * agents into named group lanes: the header says what it folded, the lane column holds a few dozen
 * lanes named by their group, Cytoscape a bounded number of elements. The extension host's
 * event-loop delay meanwhile is logged (the target is a `npm run bench -- host` figure, not asserted here).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { writeTraceFile } from '../../bench/_generate';
import { evalInWebview, screenshot, testLog } from './bridge';

const EVENTS = 100_000;
/** Most Cytoscape elements a window may hold. */
const BOUND = 4_000;
/** Most lanes a folded graph shows (src/engine/lane-folds.ts: the busiest 40, 40 groups by spawner, 40 by prefix, "other"). */
const MAX_LANES = 121;

describe('a trace of 100,000 agents in a real VS Code', function () {
  this.timeout(10 * 60_000);
  let dir = '';
  let file = '';

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-agents-'));
    file = path.join(dir, 'agents-100k.otrace.jsonl');
    const bytes = writeTraceFile(file, EVENTS, { exact: true, agentPerEvent: true });
    testLog(`      generated ${EVENTS.toLocaleString('en-US')} events, each its own agent, ${Math.round(bytes / 1e6)} MB`);
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows its graph with the agents folded into named group lanes, and says what it folded', async () => {
    await vscode.extensions.getExtension('otrace.otrace')!.activate();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = Date.now();
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'otrace.traceGraph');
    const frame = `body[data-state="ready"][data-title="${path.basename(file)}"]`;
    const seen = await evalInWebview<{ summary: string; lanes: string[]; tips: string[]; elements: number; nodes: number }>(
      `() => ({
        summary: document.getElementById('summary').textContent,
        lanes: [...document.querySelectorAll('#lanes .lane .lane-name')].map((e) => e.textContent),
        tips: [...document.querySelectorAll('#lanes .lane')].map((e) => e.title),
        elements: globalThis.__otrace.cy.elements().length,
        nodes: globalThis.__otrace.cy.nodes().length,
      })`,
      { selector: frame, timeoutMs: 8 * 60_000 },
    );
    delay.disable();
    const seconds = (Date.now() - t0) / 1000;
    assert.match(seen.summary, /\b100,000 events · 100,000 of 100,000 agents folded into \d+ group lanes by name prefix\b/, `the header: ${seen.summary}`);
    assert.ok(seen.lanes.length > 1 && seen.lanes.length <= MAX_LANES, `${seen.lanes.length} lanes`);
    assert.ok(seen.lanes.some((l) => /^worker_3#\* · [\d,]+ agents$/.test(l)), `a group lane of worker_3's agents: ${seen.lanes.join(' | ')}`);
    assert.ok(seen.tips.some((t) => /^[\d,]+ agents folded into one lane \(named worker_3#…\), e\.g\. worker_3#e\d+/.test(t)), 'its tooltip names what it holds');
    assert.ok(seen.nodes > 0, 'the graph draws nodes');
    assert.ok(seen.elements <= BOUND, `Cytoscape holds ${seen.elements} elements`);
    testLog(
      `      100k agents: graph shown ${seconds.toFixed(1)} s after opening with ${seen.lanes.length} lanes; ${seen.nodes} nodes drawn; extension host event-loop delay meanwhile: max ${(delay.max / 1e6).toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms`,
    );
    await screenshot('test-output/graph-agents-100k.png');
  });
});
