/**
 * The run summary's agents (src/analysis/run-summary.ts): read in the one pass that reads the task,
 * the span and the tokens; past MAX_AGENTS lanes the busiest are tallied again in a second pass.
 * An agent is described the same either way: its events, its model calls' tokens, what it was asked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { MAX_AGENTS, runAgents, runSummary, type SummaryAgent } from '../../../src/analysis/run-summary';
import { readTraceJsonl } from '../../../src/trace/read';
import { load } from '../../../src/cli/common';
import '../../../src/trace/importers';
import { fixturePath } from '../helpers';

/**
 * A trace of `lanes` agents: `busy` calls a model three times (tool calls with usage) (10, 20, 30 input tokens; 1 output
 * each), is asked by `peer` at t = 5 and t = 2 (the earlier is its task), and has the most events;
 * every other agent says one thing to `busy`, which is not addressed to it (`to` names no one).
 */
function trace(lanes: number): string {
  const lines = [
    { id: 'c1', t: 10, agent: 'busy', type: 'tool_call', tool: 'model', usage: { input: 10, output: 1 } },
    { id: 'c2', t: 11, agent: 'busy', type: 'tool_call', tool: 'model', usage: { input: 20, output: 1 } },
    { id: 'r1', t: 5, agent: 'busy', type: 'message', from: 'peer', content: 'later words' },
    { id: 'r2', t: 2, agent: 'busy', type: 'message', from: 'peer', content: 'find the sync code' },
    { id: 'c3', t: 12, agent: 'busy', type: 'tool_call', tool: 'model', usage: { input: 30, output: 1, cache_read: 4 } },
  ];
  for (let i = 0; i < lanes - 1; i++) lines.push({ id: `o${i}`, t: 20 + i, agent: `other${i}`, type: 'message', from: `other${i}`, content: `note ${i}` } as (typeof lines)[number]);
  return lines.map((l) => JSON.stringify(l)).join('\n');
}

const busy = (agents: SummaryAgent[]) => agents.find((a) => a.name === 'busy');

test('an agent is described the same in a run of MAX_AGENTS lanes and in one of more (tallied again in a second pass): its events, tokens and task', () => {
  const expected: SummaryAgent = {
    name: 'busy',
    label: null,
    task: 'find the sync code',
    events: 5,
    tokens: { input: 60, output: 3, cache_read: 4, cache_write: null, reasoning: null },
  };
  for (const lanes of [1, MAX_AGENTS, MAX_AGENTS + 1, 3 * MAX_AGENTS]) {
    const loaded = readTraceJsonl(trace(lanes));
    const s = runSummary(loaded, analyzeTrace(loaded));
    assert.equal(s.agent_count, lanes);
    assert.equal(s.agents.length, Math.min(lanes, MAX_AGENTS));
    assert.deepEqual(busy(s.agents), expected, `${lanes} lanes: the busiest agent`);
    assert.deepEqual(busy(runAgents(loaded)), expected, `${lanes} lanes: runAgents`);
    assert.deepEqual(s.tokens, expected.tokens, `${lanes} lanes: the run's tokens are its one caller's`);
    for (const a of s.agents.filter((x) => x.name !== 'busy')) {
      assert.deepEqual([a.events, a.task, a.tokens.input], [1, null, null], `${lanes} lanes: ${a.name} said one thing, was asked nothing, called no model`);
    }
  }
});

test("a sub-agent's transcript opened alone ends on its final answer, which it returns to its caller (not on a step before it)", () => {
  const loaded = load(fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46', 'subagents', 'agent-a93ccab.jsonl'));
  const summary = runSummary(loaded, analyzeTrace(loaded));
  const answer = loaded.trace.events.filter((e) => e.type === 'return').at(-1)!;
  assert.ok(answer.content?.startsWith('Excellent! Now I have a comprehensive understanding'));
  assert.match(summary.ended!.text, /^Excellent! Now I have a comprehensive understanding/);
});
