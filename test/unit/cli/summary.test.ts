/**
 * `otrace summary FILE [--json]` (issue 26, item 1): what was asked, who did what, how it ended and
 * what went wrong, on the sessions people have: a Claude Code session with sub-agents, a Codex
 * rollout, a Who&When log. The run summary itself is src/analysis/run-summary.ts (pure); the CLI
 * prices it with @pydantic/genai-prices and prints it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { proseLine, runSummary } from '../../../src/analysis/run-summary';
import { load } from '../../../src/cli/common';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { buildGraph } from '../../../src/engine/graph-model';
import { priceCall } from '../../../src/cli/prices';
import { summaryLines, traceSummary } from '../../../src/cli/summary';
import { fixturePath } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const SESSION = fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const CODEX = fixturePath('codex', 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl');
const WHO = fixturePath('who-and-when', 'Hand-Crafted', '12.json');

function summaryOf(file: string) {
  const loaded = load(file);
  return runSummary(loaded, analyzeTrace(loaded), { price: priceCall });
}

/** C0 controls but newline, DEL, C1 controls and bidi marks, overrides and isolates. */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

test('Claude Code session: the first prompt, a turn end with the final answer, four lanes with what each was asked, tokens by kind and an estimated cost', () => {
  const s = summaryOf(SESSION);
  assert.match(s.task, /^Work on bead spotter-a0y\. Run bd show/);
  assert.doesNotMatch(s.task, /\n/);
  assert.deepEqual({ event: s.ended?.event, scope: s.ended?.scope, reason: s.ended?.reason }, { event: '5778e067-64e9-467c-8ce1-3190ff1a78cd:stop', scope: 'turn', reason: 'task_complete' });
  assert.ok(s.ended && s.ended.text.length > 0 && s.ended.text.length <= 200, s.ended?.text);
  assert.equal(s.outcome, null, 'the session records no outcome');
  assert.equal(s.duration.unit, 'seconds');
  assert.ok(s.duration.value > 2500 && s.duration.value < 2600, String(s.duration.value));
  // Each model call once: the sums the importer keeps in the trace's costs.
  const costs = load(SESSION).trace.costs as Record<string, number>;
  assert.equal(s.tokens.input, costs.input_tokens);
  assert.equal(s.tokens.output, costs.output_tokens);
  assert.equal(s.tokens.cache_read, costs.cache_read_input_tokens);
  assert.equal(s.tokens.cache_write, costs.cache_creation_input_tokens);
  assert.equal(s.tokens.reasoning, null, 'Claude Code records no reasoning tokens');
  // Opus for main, Haiku for the Explore agents: priced per lane's model, an estimate.
  assert.ok(s.cost && s.cost.usd > 1 && s.cost.estimate === true, JSON.stringify(s.cost));
  assert.deepEqual([...s.cost.models].sort(), ['claude-haiku-4-5-20251001', 'claude-opus-4-6']);
  assert.equal(s.cost.unpriced_calls, 0);
  assert.deepEqual(s.agents.map((a) => a.name), ['main', 'Explore:a93ccab', 'Explore:aa84377', 'compact:acompact-70d8e7']);
  const main = s.agents[0];
  assert.equal(main.label, null);
  assert.match(main.task ?? '', /^Work on bead/);
  const explore = s.agents[1];
  assert.equal(explore.label, 'Explore existing codebase', 'the Agent call\'s description, which names its subagent_type (Explore) already: not said twice');
  assert.ok(explore.task && explore.task.length > 20, 'the prompt it was given');
  assert.equal(s.agents.reduce((n, a) => n + a.events, 0), 634);
  assert.equal(s.agents.reduce((n, a) => n + (a.tokens.output ?? 0), 0), s.tokens.output);
  assert.deepEqual(s.findings, [], 'sound stops and turn ends are no problems');
});

test('Codex rollout: the user prompt, a turn end with the last agent message, duration in seconds, gpt-5.3-codex priced', () => {
  const s = summaryOf(CODEX);
  assert.equal(s.task, '[REDACTED_MESSAGE len=98 sha=c002ff99]', 'the user prompt, not the injected meta rows');
  assert.deepEqual(s.ended, { event: 'stop:019c8bfe-ed40-7a21-b57f-6447436c5881', index: 23, scope: 'turn', reason: 'task_complete', text: '[REDACTED_LAST_AGENT_MESSAGE len=647 sha=10502814]', recorded: true });
  assert.equal(load(CODEX).trace.events[23].id, s.ended!.event, 'the index names the stop');
  assert.equal(s.outcome, null);
  assert.equal(s.duration.unit, 'seconds');
  assert.ok(Math.abs(s.duration.value - 96.537) < 0.01, String(s.duration.value));
  assert.ok((s.tokens.input ?? 0) > 0 && (s.tokens.cache_read ?? 0) > 0 && (s.tokens.reasoning ?? 0) > 0, JSON.stringify(s.tokens));
  assert.deepEqual(s.cost?.models, ['gpt-5.3-codex']);
  assert.ok((s.cost?.usd ?? 0) > 0);
  assert.deepEqual(s.agents.map((a) => [a.name, a.events]), [['codex', 24]]);
  assert.deepEqual(s.findings, []);
});

test('a rollout cut off before any stop: the end is not recorded, and its words are the agent\'s last message, not the last tool output', () => {
  const s = summaryOf(fixturePath('codex', 'rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl'));
  assert.match(s.task, /lmstudio/i, 'the user asked to use LM Studio');
  assert.equal(s.ended?.recorded, false);
  assert.doesNotMatch(s.ended?.text ?? '', /^\{/, 'a tool result\'s JSON is not how the run ended');
});

test('Who&When log: the question is the task, the duration counts steps, no tokens, no cost', () => {
  const s = summaryOf(WHO);
  assert.match(s.task, /^According to Box Office Mojo's 2020 Worldwide Box Office list, how many/);
  assert.deepEqual({ event: s.ended?.event, scope: s.ended?.scope }, { event: 'h19', scope: 'run' });
  assert.match(s.ended!.text, /^FINAL ANSWER: 5\b/, "the marked answer, not the harness's warnings before it ('No agent selected. response = await client.create…')");
  assert.deepEqual(s.duration, { value: 19, unit: 'steps', from: 0 });
  assert.deepEqual(s.tokens, { input: null, output: null, cache_read: null, cache_write: null, reasoning: null });
  assert.equal(s.cost, null, 'no model known, no tokens');
  assert.ok(s.agents.some((a) => a.name === 'Orchestrator'));
  assert.ok(s.agents.some((a) => a.name === 'WebSurfer' && /Box Office Mojo/.test(a.task ?? '')), 'what the orchestrator asked the web surfer');
  assert.ok(s.findings.length <= 5);
});

test('span exports (LangSmith, Phoenix, Langfuse): the task is the root run\'s input and the end quotes its output, not a model call inside the run or a JSON of messages', () => {
  for (const [file, task, answer] of [
    [fixturePath('langsmith', 'run-tree.langsmith.json'), 'Who won the 2022 world cup?', 'Argentina'],
    [fixturePath('langsmith', 'runs.langsmith.jsonl'), 'Who won the 2022 world cup?', 'Argentina'],
    [fixturePath('phoenix', 'spans.phoenix.jsonl'), 'Solve 17*23 and explain', '391'],
    [fixturePath('langfuse', 'trace.langfuse.json'), 'I was charged twice', 'Refund issued'],
  ]) {
    const s = summaryOf(file);
    assert.deepEqual([s.task, s.ended?.scope, s.ended?.text], [task, 'run', answer], file);
  }
});

test('the model calls of an unknown model are not priced: cost null when none is', () => {
  const loaded = load(CODEX);
  for (const e of loaded.trace.events) (e as { model?: string }).model = 'no-such-model-xyz';
  delete (loaded.trace.metadata as Record<string, unknown>).models;
  const s = runSummary(loaded, analyzeTrace(loaded), { price: priceCall });
  assert.equal(s.cost, null);
  assert.ok(s.tokens.input! > 0, 'the tokens are still counted');
});

test('findings: the problems only, most severe first, at most 5', () => {
  const events = [{ id: 'u', t: 0, type: 'message', agent: 'a', from: 'user', content: 'do it' }];
  for (let i = 1; i <= 40; i++) events.push({ id: `c${i}`, t: i, type: 'tool_call', agent: 'a', tool: 'Bash', content: '{"command":"ls"}' } as never);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-summary-')), 'loop.otrace.jsonl');
  fs.writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const loaded = load(file);
  const a = analyzeTrace(loaded);
  const s = runSummary(loaded, a);
  assert.ok(s.findings.length >= 1 && s.findings.length <= 5, JSON.stringify(s.findings));
  const rank = { error: 0, warning: 1, info: 2 };
  for (let i = 1; i < s.findings.length; i++) assert.ok(rank[s.findings[i - 1].severity] <= rank[s.findings[i].severity]);
  assert.ok(s.findings.some((f) => f.kind === 'loop'), 'the repeated call');
  assert.equal(s.task, 'do it');
});

test('otrace summary prints a few short safe lines; --json the fields; no finding, yet the calls that failed (Bash exit codes the session recovered from) are said', () => {
  const r = spawnSync(process.execPath, [CLI, 'summary', SESSION], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.ok(lines.length >= 6 && lines.length <= 16, r.stdout);
  for (const l of lines) {
    assert.ok(l.length <= 1000);
    assert.doesNotMatch(l, RAW);
  }
  assert.match(r.stdout, /^task +Work on bead spotter-a0y/m);
  assert.match(r.stdout, /^ended +turn ended \(handed back\)/m);
  assert.match(r.stdout, /^cost +~\$\d+\.\d\d \(estimate/m);
  assert.match(r.stdout, /^problems +none found by the analysis \(but see the failed calls below\)$/m);
  assert.match(r.stdout, /^failed +8 tool calls recorded a failure; the first: Bash: Exit code 2/m);
  assert.match(r.stdout, /^ {2}Explore existing codebase \(Explore:a93ccab\): /m);
  assert.match(r.stdout, /^agents +3 · 1 context compaction$/m, 'a compaction is no agent of the run');
  const j = spawnSync(process.execPath, [CLI, 'summary', WHO, '--json'], { encoding: 'utf8' });
  assert.equal(j.status, 0, j.stderr);
  const s = JSON.parse(j.stdout);
  // (a Who&When file records its dataset's labels: `labelled`, beside otrace's verdicts)
  assert.deepEqual(Object.keys(s), ['task', 'ended', 'outcome', 'duration', 'tokens', 'event_tokens', 'cost', 'agents', 'agent_count', 'finding_count', 'findings', 'failed_calls', 'labelled']);
  assert.deepEqual(Object.keys(s.ended), ['event', 'index', 'scope', 'reason', 'text', 'recorded']);
  assert.deepEqual(Object.keys(s.agents[0]), ['name', 'label', 'task', 'events', 'tokens']);
  const w = spawnSync(process.execPath, [CLI, 'summary', WHO], { encoding: 'utf8' });
  assert.match(w.stdout, /^duration +steps 0–19$/m, 'the 20 records of steps 0 to 19: a span of 19 steps read as a count');
  assert.match(w.stdout, /^cost +unknown/m);
});

test('otrace summary names agents as the graph labels their lanes (a compaction is a compaction), in its text and in --json agents[].label', () => {
  const graph = buildGraph(load(SESSION), 'g', Infinity);
  const laneLabels = new Map(graph.lanes.filter((l) => l.label !== undefined).map((l) => [l.name, l.label!]));
  assert.equal(laneLabels.get('compact:acompact-70d8e7'), 'context compaction');
  const j = spawnSync(process.execPath, [CLI, 'summary', SESSION, '--json'], { encoding: 'utf8' });
  assert.equal(j.status, 0, j.stderr);
  const agents = (JSON.parse(j.stdout) as { agents: { name: string; label: string | null }[] }).agents;
  assert.equal(agents.length, 4);
  for (const a of agents) assert.equal(a.label, laneLabels.get(a.name) ?? null, `${a.name}: the lane's label`);
  const text = spawnSync(process.execPath, [CLI, 'summary', SESSION], { encoding: 'utf8' }).stdout;
  assert.match(text, /^ {2}context compaction \(compact:acompact-70d8e7\): 3 events/m);
  assert.match(text, /^ {2}Explore existing codebase \(Explore:a93ccab\): /m);
  assert.doesNotMatch(text, /^ {2}compact:/m, 'never named by its raw id alone');
});

test('summaryLines: trace text through safe, no line over 1,000 characters', () => {
  const hostile = `x\u001b[2J\u202e${'A'.repeat(5000)}\nsecond line`;
  const lines = summaryLines('f\u009b.jsonl', {
    task: hostile,
    later_prompts: { count: 3, last: hostile },
    ended: { event: hostile, index: 0, scope: 'run', reason: 'error', text: hostile, recorded: true },
    failed_calls: { count: 2, first: { event: hostile, index: 1, tool: hostile, error: hostile } },
    outcome: { status: 'failure', source: hostile },
    duration: { value: 3, unit: 'seconds', from: 0 },
    tokens: { input: 1, output: 2, cache_read: null, cache_write: null, reasoning: null },
    event_tokens: null,
    cost: null,
    agents: Array.from({ length: 50 }, (_, i) => ({ name: `${hostile}${i}`, label: hostile, task: hostile, events: 1, tokens: { input: null, output: null, cache_read: null, cache_write: null, reasoning: null } })),
    agent_count: 50,
    findings: [{ kind: 'loop', severity: 'warning', message: hostile }],
    finding_count: 1,
  });
  assert.ok(lines.length <= 21, String(lines.length));
  assert.match(lines[2], /^ {11}then 3 more prompts; the last: “x/, 'the later prompts under the task');
  for (const l of lines) {
    assert.ok(l.length <= 1000, String(l.length));
    assert.doesNotMatch(l, RAW);
  }
});

test('otrace summary counts the tokens a trace records with no kind: never "none recorded" beside a loop that wasted 550 of them', () => {
  const demo = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
  const r = spawnSync(process.execPath, [CLI, 'summary', demo], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const recorded = fs
    .readFileSync(demo, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { type?: string; tokens?: number })
    .filter((e) => e.type !== undefined)
    .reduce((sum, e) => sum + (e.tokens ?? 0), 0);
  assert.ok(recorded > 0);
  assert.match(r.stdout, new RegExp(`^tokens {5}${recorded.toLocaleString('en-US')} \\(no kind recorded\\)$`, 'm'));
  assert.match(r.stdout, /^cost {7}unknown \(tokens recorded with no kind/m);
  assert.match(r.stdout, /550 tokens/, 'the loop finding still counts its tokens');
  const j = JSON.parse(spawnSync(process.execPath, [CLI, 'summary', demo, '--json'], { encoding: 'utf8' }).stdout) as { event_tokens: number | null };
  assert.equal(j.event_tokens, recorded);
});

test('a run whose last stop is an error records no outcome: the summary says "not recorded" and the error once, in how it ended', () => {
  const kimi = fixturePath('kimi', 'session-1.10', '3b9e2c4a-6d1f-4e8a-9c2b-7f5a1e0d4c21', 'wire.jsonl');
  const s = summaryOf(kimi);
  assert.deepEqual([s.ended?.scope, s.ended?.reason], ['turn', 'error']);
  assert.equal(s.outcome, null, `not an outcome the trace records: ${JSON.stringify(s.outcome)}`);
  assert.ok(summaryLines(kimi, s).some((l) => l === 'outcome    not recorded'));
});

test('summaryLines of a run with a million agents: the count, the busiest listed, the rest as "… and N more"', () => {
  const none = { input: null, output: null, cache_read: null, cache_write: null, reasoning: null };
  const lines = summaryLines('f.jsonl', {
    task: 't',
    ended: null,
    outcome: null,
    duration: { value: 3, unit: 'seconds', from: 0 },
    tokens: none,
    event_tokens: null,
    cost: null,
    agents: Array.from({ length: 50 }, (_, i) => ({ name: `a${i}`, label: null, task: null, events: 2, tokens: none })),
    agent_count: 1_000_000,
    findings: [],
    finding_count: 0,
    failed_calls: null,
  });
  assert.ok(lines.includes('agents     1,000,000 (the 50 with the most events listed)'), lines.join('\n'));
  assert.ok(lines.includes('  … and 999,994 more'));
});

test('a run whose sub-agent\'s tool call failed (an OTel span with an ERROR status) never reads "no problems found": the failure is a fact beside the verdicts', () => {
  const file = fixturePath('otel', 'multi-agent.otlp.jsonl');
  const s = summaryOf(file);
  assert.deepEqual(s.failed_calls, { count: 1, first: { event: '0909090909090909.result', index: s.failed_calls?.first.index ?? -1, tool: 'send_email', error: '535 authentication failed' } });
  assert.equal(load(file).trace.events[s.failed_calls!.first.index].id, '0909090909090909.result', 'the index names the failed result');
  const lines = summaryLines(file, s);
  assert.ok(!lines.some((l) => l.includes('no problems found')), lines.join('\n'));
  assert.ok(lines.includes('failed     1 tool call recorded a failure; the first: send_email: 535 authentication failed'), lines.join('\n'));
});

test('a quoted answer or task reads as plain words: strong emphasis and heading marks left out, code and dunder names kept', () => {
  assert.equal(proseLine('All pushed. **Epic spotter-a0y complete.** 1. **spotter-a0y.1**: hooks', 200), 'All pushed. Epic spotter-a0y complete. 1. spotter-a0y.1: hooks');
  assert.equal(proseLine('## Plan\n- read **the** config', 200), 'Plan - read the config');
  for (const kept of ['2 ** 3 = 8', 'use `**kwargs` here', 'call __init__ and __main__', 'a ** b ** c']) assert.equal(proseLine(kept, 200), kept);
  const s = summaryOf(SESSION);
  assert.match(s.ended!.text, /Epic spotter-a0y complete\./);
  assert.doesNotMatch(s.ended!.text, /\*\*/, 'the session\'s final answer, as a stranger reads it');
});

test('a custom slash command that expanded into a prompt is what was asked (not a later follow-up, never the agent\'s own words)', () => {
  // the fixture's first row: `/ORG:create-beads` (its arguments trimmed), then the prompt it expanded into
  const text = fs.readFileSync(fixturePath('claude-code', 'subagent.jsonl'), 'utf8');
  const lines = text.split('\n');
  const followUp = lines.findIndex((l) => l.includes('"content":"create the beads'));
  assert.ok(followUp > 0);
  for (const [name, cut] of [
    ['whole', text],
    ['cut before the follow-up', lines.slice(0, followUp).join('\n')],
  ]) {
    const loaded = loadTrace(cut, 'subagent.jsonl');
    const s = runSummary(loaded, analyzeTrace(loaded));
    assert.match(s.task!, /^\/ORG:create-beads/, name);
    assert.match(s.agents.find((a) => a.name === 'main')!.task!, /^\/ORG:create-beads/, name);
  }
});

test('a file cut off inside a record: the summary says how the run ended is not known, as the analysis does (not "no stop at its end")', () => {
  const text = fs.readFileSync(fixturePath('claude-code', 'subagent.jsonl'), 'utf8');
  const cut = text.slice(0, text.indexOf('\n', text.length / 2) - 40);
  const loaded = loadTrace(cut, 'subagent.jsonl');
  const s = runSummary(loaded, analyzeTrace(loaded));
  assert.equal(s.ended?.recorded, false);
  assert.equal(s.ended?.unended, 'cut off');
  assert.match(summaryLines('subagent.jsonl', s)[2], /^ended {6}not known: the file is cut off inside a record/);
  const whole = loadTrace(text.slice(0, text.indexOf('\n', text.length / 2) + 1), 'subagent.jsonl');
  assert.equal(runSummary(whole, analyzeTrace(whole)).ended?.unended, undefined, 'a file that ends on a whole line is not cut off');
});

test("a background task's failure is said by its notification's summary, not its XML", () => {
  const loaded = load(fixturePath('cases', '28-cc-background-task-notifications', '0f1e2d3c-0000-4000-8000-00000000c028.jsonl'));
  const s = runSummary(loaded, analyzeTrace(loaded));
  assert.equal(s.failed_calls?.first.error, 'Background command "Full build" failed with exit code 2');
});

test("otrace summary of a file that records labels prints them beside otrace's verdicts (a benchmark's ground truth); none for a file without", () => {
  const lines = summaryLines(WHO, traceSummary(load(WHO)));
  const at = lines.findIndex((l) => l.startsWith('labelled   '));
  assert.ok(at > 0, lines.join('\n'));
  assert.equal(lines[at], "labelled   decisive mistake (the dataset's label): Assistant at step 16 (event h16); otrace blames WebSurfer at step 12 (event h12)");
  assert.equal(lines[at + 1], "           correct answer (the dataset's): 6");
  assert.ok(!summaryLines(SESSION, traceSummary(load(SESSION))).some((l) => l.startsWith('labelled')));
});
