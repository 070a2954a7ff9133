import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import { tokenTotals } from '../../../../src/trace/tokens';
import '../../../../src/trace/importers';
import { fixture } from '../../helpers';
import { assertRangesReparse, assertSpansAccounted, byType, sorted } from './span-export-checks';

type Raw = Record<string, any>;

/** The separate walk: all runs (nested ones too), and the LangGraph nodes that contain a model call. */
function walk(roots: Raw[]): Raw[] {
  const out: Raw[] = [];
  const go = (r: Raw) => (out.push(r), (r.child_runs ?? []).forEach(go));
  roots.forEach(go);
  return out;
}

function expectations(runs: Raw[]) {
  const node = (r: Raw) => r.extra?.metadata?.langgraph_node;
  const llmNodes = new Set(runs.filter((r) => r.run_type === 'llm').map(node));
  const isAgent = (r: Raw) => r.run_type === 'chain' && node(r) === r.name && llmNodes.has(r.name);
  const out: Record<string, number> = {};
  const add = (k: string) => (out[k] = (out[k] ?? 0) + 1);
  for (const r of runs) {
    if (isAgent(r)) {
      add('delegate');
      add('return');
      if (r.error) add('stop');
    } else if (r.run_type === 'chain') add('orchestrator_decision');
    else if (r.run_type === 'llm') add('message');
    else if (r.run_type === 'tool') {
      add('tool_call');
      add('tool_result');
    }
  }
  return { byType: sorted(out), agents: [...new Set(runs.filter(isAgent).map((r) => r.name))] };
}

for (const [file, label] of [
  ['run-tree.langsmith.json', 'one run with nested child_runs'],
  ['runs.langsmith.jsonl', 'JSON Lines of runs with parent_run_id'],
] as const) {
  test(`LangSmith (docs-written, ${label}): agents, events by type and parents from a raw walk`, () => {
    const text = fixture('langsmith', file);
    const loaded = loadTrace(text, file);
    assert.equal(loaded.format, 'langsmith');
    const runs = walk(file.endsWith('.jsonl') ? text.trim().split('\n').map((l) => JSON.parse(l)) : [JSON.parse(text)]);
    const x = expectations(runs);
    assert.deepEqual(byType(loaded), x.byType);
    for (const a of x.agents) assert.ok(loaded.trace.events.some((e) => e.agent === a && e.type === 'return'), `lane ${a}`);
    const chains = new Set(runs.filter((r) => r.run_type === 'prompt').map((r) => r.id));
    for (const r of runs) {
      const e = loaded.trace.events.find((ev) => ev.id === r.id);
      if (e) assert.equal(e.parent, r.parent_run_id ?? undefined, `parent of ${r.name}`);
      else assert.ok(chains.has(r.id), `${r.name} skipped`);
    }
    assertSpansAccounted(loaded, 'langsmith', runs.length);
    assertRangesReparse(text, loaded, (r) => r.id);
    // The recursion-limit error of the last supervisor step is a max_turns stop.
    const failed = runs.find((r) => r.error)!;
    assert.equal(loaded.trace.events.find((e) => e.id === `${failed.id}.stop`)!.reason, 'max_turns');
    assert.equal(tokenTotals(loaded.trace.events).total, runs.reduce((n, r) => n + (r.prompt_tokens ?? 0) + (r.completion_tokens ?? 0), 0));
    assert.equal(loaded.trace.events.reduce((n, e) => n + (e.tokens ?? 0), 0), runs.reduce((n, r) => n + (r.completion_tokens ?? 0), 0));
  });
}

test('LangSmith: without parent_run_id, the parent comes from dotted_order', () => {
  const text = fixture('langsmith', 'runs.langsmith.jsonl');
  const stripped = text.trim().split('\n').map((l) => JSON.stringify({ ...JSON.parse(l), parent_run_id: undefined })).join('\n');
  const loaded = loadTrace(stripped, 'runs.jsonl');
  const runs = text.trim().split('\n').map((l) => JSON.parse(l));
  for (const r of runs) {
    const e = loaded.trace.events.find((ev) => ev.id === r.id);
    if (e) assert.equal(e.parent, r.parent_run_id ?? undefined, `parent of ${r.name}`);
  }
});

test("a root chain with no agent run under it is the run's agent: its close is the run's stop (a finished AgentExecutor run is no 'no stop')", () => {
  const run = {
    id: 'r0',
    name: 'research_agent',
    run_type: 'chain',
    start_time: '2026-01-01T00:00:00',
    end_time: '2026-01-01T00:00:40',
    inputs: { input: 'What was Q3 revenue?' },
    outputs: { output: 'Q3 revenue was $4.2M' },
    child_runs: [
      { id: 'r1', name: 'ChatOpenAI', run_type: 'llm', start_time: '2026-01-01T00:00:01', end_time: '2026-01-01T00:00:05', prompt_tokens: 900, completion_tokens: 20, outputs: { text: 'call read_pdf' } },
      { id: 'r2', name: 'read_pdf', run_type: 'tool', start_time: '2026-01-01T00:00:06', end_time: '2026-01-01T00:00:07', inputs: { path: 'report.pdf' }, error: 'FileNotFoundError: report.pdf' },
      { id: 'r3', name: 'ChatOpenAI', run_type: 'llm', start_time: '2026-01-01T00:00:08', end_time: '2026-01-01T00:00:39', prompt_tokens: 1000, completion_tokens: 15, outputs: { text: 'Q3 revenue was $4.2M' } },
    ],
  };
  const loaded = loadTrace(JSON.stringify(run), 'run.json');
  const stop = loaded.trace.events.find((e) => e.type === 'stop');
  assert.ok(stop, 'the run stopped where its root closed');
  assert.equal(stop.agent, 'research_agent');
  assert.ok(loaded.trace.events.filter((e) => e.type !== 'delegate').every((e) => e.agent === 'research_agent'), 'its events are in the lane of its name');
  const nested = { ...run, id: 'g0', name: 'LangGraph', child_runs: [{ ...run, id: 'n1', name: 'researcher', extra: { metadata: { langgraph_node: 'researcher' } }, start_time: '2026-01-01T00:00:00.5', child_runs: run.child_runs.map((c) => ({ ...c, id: `n1-${c.id}` })) }] };
  const graph = loadTrace(JSON.stringify(nested), 'graph.json');
  assert.deepEqual([...new Set(graph.trace.events.filter((e) => e.type === 'delegate').map((e) => e.to))], ['researcher'], 'a LangGraph root over agent nodes stays the orchestrator');
});
