/**
 * Findings in words a stranger understands: no internal thresholds or statistics notation in a
 * message (the figures stay in the JSON as evidence), on the real Who&When, MAST, Claude Code and
 * Codex fixtures; `otrace analyze` prints credit and scores with two decimals.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { analysisLines } from '../../../src/cli/analyze';
import { loadTrace } from '../../../src/trace/formats';
import { nodeFileAccess } from '../../../src/trace/node-files';
import '../../../src/trace/importers';
import { FIXTURES, fixturePath } from '../helpers';

const FILES = [
  ...['Algorithm-Generated', 'Hand-Crafted'].flatMap((d) => fs.readdirSync(path.join(FIXTURES, 'who-and-when', d)).map((f) => fixturePath('who-and-when', d, f))),
  fixturePath('mast', 'AG2_early_human_annotated', 'AG2_trace2.json'),
  fixturePath('mast', 'ChatDev_MAD_records', 'trace_0_ChatDev.json'),
  fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'),
  fixturePath('codex', 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl'),
];

function analysed(file: string) {
  return analyzeTrace(loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess));
}

/** Words no stranger reads: a threshold compared against, statistics notation, an internal measure's name. */
const JARGON = /resemblance|>=|≥|<=|≤|\bp [=<>] |threshold|protocol overhead|\d\.\d{3,}/;

test('no finding message or inline mark states an internal threshold or a p-value', () => {
  let messages = 0;
  for (const file of FILES) {
    for (const f of analysed(file).findings) {
      messages++;
      assert.doesNotMatch(f.message, JARGON, `${path.basename(file)}: ${f.message}`);
      assert.doesNotMatch(f.inline, JARGON, `${path.basename(file)}: ${f.inline}`);
    }
  }
  assert.ok(messages > 20, `${messages} messages read`);
});

test('a loop of near-duplicate steps says so in words; the resemblance that joined them stays as its evidence', () => {
  const a = analysed(fixturePath('who-and-when', 'Hand-Crafted', '9.json'));
  const similar = a.loops.filter((l) => l.match === 'similar');
  assert.ok(similar.length >= 2, JSON.stringify(a.loops.map((l) => l.message)));
  for (const l of similar) {
    assert.match(l.message, /repeated nearly the same step .*\d+ times, in mostly the same words/);
    assert.ok(typeof l.resemblance === 'number' && l.resemblance >= 0.5 && l.resemblance <= 1 && Number(l.resemblance.toFixed(2)) === l.resemblance, `resemblance ${l.resemblance}`);
  }
});

test('otrace analyze: credit and scores with two decimals, credit that prints as 0.00 left out, the metrics in words', () => {
  const file = fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
  const lines = analysisLines(file, analysed(file), () => 'FILE:1');
  const line = (head: string) => lines.find((l) => l.trimStart().startsWith(head))!;
  assert.equal(line('credit').trim(), 'credit     none (no outcome recorded); share of the result by agent main 97%, Explore:a93ccab 3%');
  assert.equal(line('metrics').trim(), 'metrics    2 spawns (at most 2 by one agent, 1 level deep), parallelism 1.00 (lanes busy 2506.388 s / wall 2506.388 s; critical path 2506.388 s), messages between agents carry 85% of the tokens');
  const demo = path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl');
  const demoLines = analysisLines(demo, analysed(demo), () => 'FILE:1');
  for (const head of ['credit', 'V_stop', 'metrics']) {
    const l = demoLines.find((x) => x.trimStart().startsWith(head))!;
    // seconds keep their milliseconds (a duration, not a score); every other figure has at most two decimals
    assert.doesNotMatch(l.replace(/\d+\.\d+ s\b/g, 'S'), /\d\.\d{3,}/, l);
  }
  assert.match(demoLines.find((x) => x.trimStart().startsWith('credit'))!, /by agent orchestrator \+0\.\d\d/);
});
