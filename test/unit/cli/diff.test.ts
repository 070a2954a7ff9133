/**
 * `otrace diff A B [--json]` and `otrace diff --group DIR [--json]` (issue 28): what a user reads
 * first (the first divergence with both sides' event in words, each side's stop and outcome, the
 * agent pairs' deltas, findings of one side only), the JSON result, and runs of one task clustered.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { toOtraceJsonl } from '../../../src/trace/write';
import { fixturePath } from '../helpers';
import { baseRun, editedCopy, type Ev } from '../analysis/compare/edited-runs';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

function otrace(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}

function writeRun(file: string, events: Ev[]): void {
  fs.writeFileSync(file, toOtraceJsonl({ trace_id: path.basename(file), events: events.map((e, i) => ({ ...e, t: i })) }));
}

test('otrace diff A B: the first divergence in words with both positions, how each run ended, the steps, per-agent deltas and findings of one side only', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-diff-cli-'));
  try {
    const base = baseRun(8, 2);
    const { copy } = editedCopy(base, [{ round: 2, edit: 'change', pick: 0.3 }, { round: 4, edit: 'loop', pick: 0 }], null);
    writeRun(path.join(dir, 'a.otrace.jsonl'), base);
    writeRun(path.join(dir, 'b.otrace.jsonl'), copy);
    const r = otrace('diff', path.join(dir, 'a.otrace.jsonl'), path.join(dir, 'b.otrace.jsonl'));
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0], /^A {2}.*a\.otrace\.jsonl \(otrace-jsonl, 33 events\)$/);
    assert.match(lines[1], /^B {2}.*b\.otrace\.jsonl \(otrace-jsonl, 37 events\)$/);
    const at = lines.findIndex((l) => l.startsWith('first divergence'));
    assert.match(lines[at], /^first divergence {2}the same step with other content, agent worker_0$/);
    assert.match(lines[at + 1], /^ {2}A: .*a\.otrace\.jsonl:11 {2}tool call search: \w/);
    assert.match(lines[at + 2], /^ {2}B: .*b\.otrace\.jsonl:11 {2}tool call search: new/);
    assert.ok(lines.some((l) => /^ended {6}A: stopped \(task complete\): done w\w+x/.test(l)), r.stdout);
    assert.ok(lines.includes('outcome    A: not recorded'), r.stdout);
    assert.ok(lines.includes('steps      32 the same, 0 only in A, 4 only in B, 1 changed, 0 moved'), r.stdout);
    assert.ok(lines.some((l) => /^ {2}worker_0: events \d+ → \d+ \(\+4\), tool calls \d+ → \d+ \(\+2\), failed calls 0 → 0, time .*; steps \d+ the same, 4 only in B, 1 changed$/.test(l)), r.stdout);
    assert.ok(lines.includes('agents     3 pairs'), r.stdout);
    assert.ok(lines.includes('findings only in A: none'), r.stdout);
    assert.ok(lines.some((l) => /^ {2}warning loop: search ".*" called 3 times by worker_0/.test(l)), r.stdout);

    const j = otrace('diff', path.join(dir, 'a.otrace.jsonl'), path.join(dir, 'b.otrace.jsonl'), '--json');
    assert.equal(j.status, 0, j.stderr);
    const c = JSON.parse(j.stdout);
    assert.deepEqual(Object.keys(c), ['a', 'b', 'first_divergence', 'agents', 'only_in_a', 'only_in_b', 'changed', 'moved', 'differences', 'same', 'findings']);
    assert.deepEqual(Object.keys(c.agents[0].deltas), ['events', 'tool_calls', 'failed_calls', 'tokens', 'time']);
    assert.equal(c.first_divergence.kind, 'changed');
    assert.deepEqual(c.changed, [[c.first_divergence.a, c.first_divergence.b]]);
    assert.equal(c.only_in_b.length, 4);
    assert.ok(Array.isArray(c.agents[0].aligned[0]) && c.agents[0].aligned[0].length === 2, 'aligned pairs of event indexes');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('otrace diff on a Claude Code session and a Codex rollout: the main agents pair as the agents the user prompted; a step only in one run says what the other does next', () => {
  const r = otrace('diff', fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'), fixturePath('codex', 'rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl'));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\n {2}main ↔ codex \(paired by root\): events 515 → 80 \(−435\), tool calls 195 → 39 \(−156\), failed calls 8 → 3 \(−5\), tokens input \+/);
  assert.match(r.stdout, /\n {2}Explore:a93ccab \(only in A\): 63 events, 25 tool calls, 0 failed, tokens .*, 57\.675 s\n/);
  assert.match(r.stdout, /\nended {6}A: turn ended \(handed back\): All pushed\./);
  assert.match(r.stdout, /\n {11}B: no stop at its end: it ends after its last event\n/);
  assert.match(r.stdout, /\nfindings only in B: 1\n {2}error stop \(no stop\): no stop at end of trace/);
  for (const line of r.stdout.split('\n')) assert.ok(line.length <= 1000);
});

test('otrace diff --group DIR: runs of one task clustered by where they leave the reference, with their stops and outcomes; usage errors exit 2', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-diff-group-'));
  try {
    const base = baseRun(8, 1);
    writeRun(path.join(dir, 'run-1.otrace.jsonl'), base);
    writeRun(path.join(dir, 'run-2.otrace.jsonl'), base);
    writeRun(path.join(dir, 'run-3.otrace.jsonl'), editedCopy(base, [{ round: 3, edit: 'remove', pick: 0.3 }], null).copy);
    writeRun(path.join(dir, 'run-4.otrace.jsonl'), editedCopy(base, [{ round: 3, edit: 'remove', pick: 0.3 }, { round: 6, edit: 'change', pick: 0 }], null).copy);
    writeRun(path.join(dir, 'run-5.otrace.jsonl'), editedCopy(base, [{ round: 1, edit: 'move_stop', pick: 0 }], null).copy);
    const r = otrace('diff', '--group', dir);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0], /: 5 runs, 3 clusters by where they leave the reference run$/);
    assert.equal(lines[1], 'reference  run-1.otrace.jsonl (most like the others)');
    assert.equal(lines[2], 'cluster 1: 2 runs (run-1.otrace.jsonl, run-2.otrace.jsonl)');
    assert.equal(lines[3], "  the reference's steps throughout");
    assert.equal(lines[4], '  ended    stopped (task complete) ×2');
    assert.equal(lines[5], '  outcome  not recorded ×2');
    assert.equal(lines[6], 'cluster 2: 1 run (run-5.otrace.jsonl)');
    assert.match(lines[7], /^ {2}leave the reference at its step 5 \(stop: task complete\): they do stop: task complete \(a step the reference does elsewhere\)$/);
    assert.equal(lines[10], 'cluster 3: 2 runs (run-3.otrace.jsonl, run-4.otrace.jsonl)');
    assert.match(lines[11], /^ {2}leave the reference at its step 14 \(tool call search: w\w+x w\w+x w\w+x\): they leave that step out$/);
    const j = JSON.parse(otrace('diff', '--group', dir, '--json').stdout);
    assert.deepEqual(j.clusters.map((c: { runs: string[] }) => c.runs.length), [2, 1, 2]);
    assert.equal(otrace('diff', 'only-one.json').status, 2);
    assert.equal(otrace('diff', '--group', dir, 'extra.json').status, 2);
    assert.ok(!lines.some((l) => l.startsWith('note')), 'runs of one task: no note');
    // a run of another task in the folder (the task ids say so): said before the clusters
    const withTask = (name: string, task: string) => fs.writeFileSync(path.join(dir, name), fs.readFileSync(path.join(dir, name), 'utf8').replace(`"trace_id":"${name}"`, `"trace_id":"${name}","task_id":"${task}"`));
    for (let k = 1; k <= 5; k++) withTask(`run-${k}.otrace.jsonl`, 'the-task');
    assert.ok(!otrace('diff', '--group', dir).stdout.split('\n').some((l) => l.startsWith('note')), 'one task id: no note');
    writeRun(path.join(dir, 'other.otrace.jsonl'), base);
    withTask('other.otrace.jsonl', 'another-task');
    const mixed = otrace('diff', '--group', dir).stdout.split('\n');
    assert.match(mixed[1], /^note {7}these runs answer 2 different tasks/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('otrace diff: two steps whose words read the same show where their content differs (a changed option past the words shown)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-diff-cli-'));
  try {
    const command = (priority: number) => `bd create --title="Setup Code Quality Tools (Credo, Dialyxir, mix_audit) for the Phoenix app" --type=epic --priority=${priority}`;
    const run = (priority: number): Ev[] => [
      { id: 'u', type: 'message', agent: 'main', from: 'user', content: 'create the beads' },
      { id: 'c', type: 'tool_call', agent: 'main', tool: 'Bash', content: command(priority) },
      { id: 'r', type: 'tool_result', agent: 'main', tool: 'Bash', content: 'created spotter-0p7' },
      { id: 's', type: 'stop', agent: 'main', reason: 'task_complete' },
    ] as Ev[];
    writeRun(path.join(dir, 'a.otrace.jsonl'), run(2));
    writeRun(path.join(dir, 'b.otrace.jsonl'), run(1));
    const r = otrace('diff', path.join(dir, 'a.otrace.jsonl'), path.join(dir, 'b.otrace.jsonl'));
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('first divergence'));
    assert.equal(lines[at + 1].replace(/^.*\.jsonl:\d+ {2}/, ''), lines[at + 2].replace(/^.*\.jsonl:\d+ {2}/, ''), 'the words of both steps are the same');
    assert.match(lines[at + 3], /^ {2}where they differ \(character \d+\):$/);
    assert.match(lines[at + 4], /^ {4}A: ….*--priority=2$/);
    assert.match(lines[at + 5], /^ {4}B: ….*--priority=1$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('otrace diff says times as the graph does (minutes and seconds, the change signed), not raw seconds ("3904.085 s → 311.378 s")', () => {
  const a = fixturePath('codex', 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
  const b = fixturePath('codex', 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl');
  const r = otrace('diff', a, b);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /time 1 h 5 min → 1 min 37 s \(−1 h 3 min\)/);
  assert.doesNotMatch(r.stdout, /\d\.\d+ s/);
});

test('otrace diff of runs asked different things says so before their steps (compared step by step, they read as one task done two ways)', () => {
  const r = otrace('diff', fixturePath('who-and-when', 'Hand-Crafted', '12.json'), fixturePath('who-and-when', 'Algorithm-Generated', '102.json'));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\nnote {7}the runs were asked different things: /);
  // one task: no note
  const same = fixturePath('who-and-when', 'Hand-Crafted', '12.json');
  assert.doesNotMatch(otrace('diff', same, same).stdout, /asked different things/);
});
