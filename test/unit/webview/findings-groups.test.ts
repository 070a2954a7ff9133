/** The findings list's group names: what a stop finding is called depends on whether the run had a stop at all. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { buildGraph } from '../../../src/engine/graph-model';
import { readTraceJsonl } from '../../../src/trace/read';
import { groupOf } from '../../../webview/findings';

/** A worker repeating a failing build until the end; `stop` adds the orchestrator's stop event after it. */
function trace(stop: boolean): string {
  const lines = [
    { id: 'e0', t: 0, type: 'spawn', agent: 'orchestrator', to: 'worker' },
    { id: 'e1', t: 1, type: 'message', agent: 'orchestrator', to: 'worker', content: 'build the site' },
    ...Array.from({ length: 6 }, (_, i) => ({ id: `b${i}`, t: 2 + i, type: 'tool_call', agent: 'worker', tool: 'bash', content: 'npm run build # fails the same way' })),
    ...(stop ? [{ id: 'end', t: 9, type: 'stop', agent: 'orchestrator', reason: 'task_complete' }] : []),
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n');
}

function stopGroups(stop: boolean): string[] {
  const loaded = readTraceJsonl(trace(stop));
  return buildGraph(loaded, 'run', Infinity, analyzeTrace(loaded)).findings.filter((f) => f.kind === 'stop' && f.mode === 'no_stop').map((f) => groupOf(f)!.title);
}

test('a run without a stop event "never stopped"; one whose stop came while a loop went on "stopped without finishing"', () => {
  assert.deepEqual(stopGroups(false), ['Never stopped']);
  assert.deepEqual(stopGroups(true), ['Stopped without finishing']);
});

test('a group head counts overlapping waste once: a repeated sequence inside a step restated three times (a real ChatDev run)', async () => {
  await import('../../../src/trace/importers');
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { loadTrace } = await import('../../../src/trace/formats');
  const { groupFindings } = await import('../../../webview/findings');
  const file = path.join(__dirname, '..', '..', 'fixtures', 'mast', 'ChatDev_MAD_records', 'trace_0_ChatDev.json');
  const loaded = loadTrace(fs.readFileSync(file, 'utf8'), file);
  const findings = buildGraph(loaded, 'chatdev', Infinity, analyzeTrace(loaded)).findings;
  const loops = findings.filter((f) => f.kind === 'loop');
  assert.equal(loops.length, 2);
  assert.ok(loops[0].events.some((i) => loops[1].events.includes(i)), 'the two loops share events');
  const group = groupFindings(findings).find((g) => g.key === 'loop-seq')!;
  assert.equal(group.tokens, Math.max(...loops.map((f) => f.tokens ?? 0)), 'the larger waste, not the sum');
});
