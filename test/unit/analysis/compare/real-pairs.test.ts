/**
 * The comparison on real runs (issue 28, "Must show"): two Codex rollouts of one project, a Claude
 * Code session against a copy of itself with one sub-agent file removed (written to a temporary
 * folder), and the two Who&When logs of one question (AG2 and Magentic-One).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyzeTrace } from '../../../../src/analysis';
import { compareRuns, type RunComparison } from '../../../../src/analysis/compare';
import { load } from '../../../../src/cli/common';
import { fixturePath } from '../../helpers';

const SESSION_ID = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';

function compareFiles(fa: string, fb: string): RunComparison {
  const a = load(fa);
  const b = load(fb);
  return compareRuns({ loaded: a, analysis: analyzeTrace(a) }, { loaded: b, analysis: analyzeTrace(b) });
}

/** Every event is the same step, changed, moved or on one side, once. */
function accounted(c: RunComparison): void {
  assert.equal(c.same + c.only_in_a.length + c.changed.length + c.moved.length, c.a.events);
  assert.equal(c.same + c.only_in_b.length + c.changed.length + c.moved.length, c.b.events);
  assert.equal(c.differences.length, c.only_in_a.length + c.only_in_b.length + c.changed.length + c.moved.length);
  for (let k = 1; k < c.differences.length; k++) assert.ok(c.differences[k].at >= c.differences[k - 1].at, 'differences in run order');
}

test('Claude Code session against itself without one sub-agent file: the sub-agent loses the 10 events only its file held; main and the others are the same step for step', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-diff-cc-'));
  try {
    const src = fixturePath('claude-code-session');
    fs.copyFileSync(path.join(src, `${SESSION_ID}.jsonl`), path.join(dir, `${SESSION_ID}.jsonl`));
    fs.mkdirSync(path.join(dir, SESSION_ID, 'subagents'), { recursive: true });
    for (const f of fs.readdirSync(path.join(src, SESSION_ID, 'subagents'))) if (f !== 'agent-a93ccab.jsonl') fs.copyFileSync(path.join(src, SESSION_ID, 'subagents', f), path.join(dir, SESSION_ID, 'subagents', f));
    const c = compareFiles(path.join(src, `${SESSION_ID}.jsonl`), path.join(dir, `${SESSION_ID}.jsonl`));
    accounted(c);
    assert.deepEqual(c.agents.map((p) => [p.a, p.b, p.paired_by]), [
      ['main', 'main', 'name'],
      ['Explore:a93ccab', 'Explore:a93ccab', 'name'],
      ['Explore:aa84377', 'Explore:aa84377', 'name'],
      ['compact:acompact-70d8e7', 'compact:acompact-70d8e7', 'name'],
    ]);
    const explore = c.agents[1];
    assert.deepEqual([explore.a_stats?.events, explore.b_stats?.events, explore.only_in_a, explore.only_in_b, explore.changed], [63, 53, 10, 0, 0], 'the main file still holds the sub-agent\'s progress records');
    assert.ok((explore.deltas.tokens.output ?? 0) < 0, 'its model calls\' output is gone with its file');
    for (const p of [c.agents[0], c.agents[2], c.agents[3]]) assert.equal(p.only_in_a + p.only_in_b + p.changed + p.moved, 0, `${p.a} is the same`);
    assert.equal(c.first_divergence?.kind, 'only_in_a');
    assert.equal(c.first_divergence?.agents, 1);
    const loaded = load(path.join(src, `${SESSION_ID}.jsonl`));
    assert.match(loaded.eventOrigins.get(c.first_divergence!.a_index!)?.file ?? '', /agent-a93ccab\.jsonl$/, 'the first divergence is in the removed file');
    assert.deepEqual([c.a.ended?.reason, c.b.ended?.reason], ['task_complete', 'task_complete']);
    assert.deepEqual(c.findings, { only_in_a: [], only_in_b: [] });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('two Codex rollouts of one project (redacted, two tasks): one agent pair, tokens and time by kind, the tasks told apart', () => {
  const c = compareFiles(fixturePath('codex', 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl'), fixturePath('codex', 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl'));
  accounted(c);
  assert.deepEqual(c.agents.map((p) => [p.a, p.b, p.paired_by]), [['codex', 'codex', 'name']]);
  const p = c.agents[0];
  assert.deepEqual([p.a_stats?.events, p.b_stats?.events, p.a_stats?.tool_calls, p.b_stats?.tool_calls], [277, 24, 105, 5]);
  assert.equal(p.deltas.tokens.output, (p.b_stats!.tokens.output ?? 0) - (p.a_stats!.tokens.output ?? 0));
  assert.equal(p.deltas.tokens.cache_write, null, 'a kind neither run records');
  assert.ok(p.deltas.time! < -3000, String(p.deltas.time));
  assert.notEqual(c.a.task, c.b.task);
  assert.ok(c.first_divergence);
});

test('the two Who&When logs of one question (Magentic-One and AG2): no agent in common, the same task, A stopped on an error with a wrong final answer, B a recorded failure, and what each run found alone', () => {
  const c = compareFiles(fixturePath('who-and-when', 'Hand-Crafted', '48.json'), fixturePath('compare', 'who-and-when', 'Algorithm-Generated', '111.json'));
  accounted(c);
  assert.equal(c.a.task, c.b.task);
  assert.match(c.a.task, /rainy day .* Seattle/);
  assert.deepEqual([c.a.time_unit, c.b.time_unit], ['steps', 'steps']);
  assert.ok(c.agents.every((p) => p.a === null || p.b === null), `no pair: ${JSON.stringify(c.agents.map((p) => [p.a, p.b]))}`);
  assert.equal(c.same, 0);
  assert.deepEqual([c.a.ended?.reason, c.b.ended?.reason], ['error', 'task_complete']);
  assert.deepEqual([c.a.outcome?.status ?? null, c.b.outcome?.status], ['failure', 'failure']);
  // a Hand-Crafted log records no is_correct: its outcome is its final answer against the dataset's (its error stop is not one)
  assert.equal(c.a.outcome?.source, 'its final answer “20” is not the dataset\'s correct answer “14.2” (GAIA\'s scorer)');
  assert.ok(c.findings.only_in_b.some((f) => f.kind === 'verification'), 'AG2 claims task_complete on a failed run');
});
