/**
 * Commands over many traces: `otrace dataset stops` (one row per decision point of the lane that owns
 * the stop decision) and `otrace analyze DIR` (one row per trace and totals). Files a parent trace
 * pulls in (Claude Code sub-agent files, Codex child rollouts) are counted once.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyzeIndex, TraceIndex } from '../../../src/analysis';
import { stopOwner, stopRows, type StopRow } from '../../../src/analysis/stop-dataset';
import { traceFiles } from '../../../src/cli/corpus';
import { traceOf } from '../analysis/build';
import { fixturePath } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const CLAUDE = fixturePath('claude-code');
const CODEX_SPAWN = fixturePath('cases', '16-codex-spawn-agent');
const WHO = fixturePath('who-and-when');

function cli(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
}

/** Runs `otrace dataset stops` into a scratch file and returns its rows and stderr. */
function dataset(...paths: string[]): { rows: StopRow[]; stderr: string; status: number | null } {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-ds-')), 'stops.jsonl');
  const r = cli('dataset', 'stops', ...paths, '-o', out);
  const text = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
  return { rows: text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as StopRow), stderr: r.stderr, status: r.status };
}

test('dataset stops: a Claude Code folder gives rows of the sessions only; sub-agent files are pulled in by their session, not counted twice', () => {
  const { rows, stderr, status } = dataset(CLAUDE);
  assert.equal(status, 0, stderr);
  const traces = [...new Set(rows.map((r) => r.trace))].sort();
  assert.deepEqual(traces, ['fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl', 'short.jsonl', 'subagent.jsonl']);
  assert.match(stderr, /from 3 traces .*3 pulled in by a parent trace/);
  assert.ok(!stderr.includes('\r['), 'no progress bar when stderr is not a terminal');
  for (const t of traces) {
    const mine = rows.filter((r) => r.trace === t);
    assert.equal(mine.filter((r) => r.labels.stop).length, 1, `${t}: one actual stop`);
    assert.equal(new Set(mine.map((r) => r.owner)).size, 1, `${t}: one owner lane`);
    assert.deepEqual(mine.map((r) => r.features.lane_index), mine.map((_, k) => k), `${t}: every event of the owner lane, in order`);
    for (let k = 1; k < mine.length; k++) assert.ok(mine[k].features.tokens_so_far >= mine[k - 1].features.tokens_so_far);
    assert.ok(mine.every((r) => r.features.elapsed_unit === 'seconds' && r.labels.v_stop === null));
  }
  // the session that spawned sub-agents: the main agent owns the stop decision and has delegations open while they work
  const session = rows.filter((r) => r.trace.startsWith('fa812bfe'));
  assert.ok(session.some((r) => r.features.open_delegations > 0));
});

test('dataset stops: Codex child rollouts count once, as a folder or named one by one in any order', () => {
  const files = fs.readdirSync(CODEX_SPAWN).map((f) => path.join(CODEX_SPAWN, f));
  for (const order of [files, [...files].reverse()]) {
    const { rows, stderr } = dataset(...order);
    assert.deepEqual([...new Set(rows.map((r) => path.basename(r.trace)))], [path.basename(files.sort()[0])], stderr);
    assert.match(stderr, /from 1 traces .*2 pulled in/);
  }
  const { rows } = dataset(CODEX_SPAWN);
  const spawn = rows.findIndex((r) => r.type === 'spawn');
  assert.ok(spawn >= 0 && rows[spawn].features.open_delegations > 0, 'a delegation is open after the spawn');
  assert.equal(rows[rows.length - 1].features.open_delegations, 0, 'and answered by the end');
});

test('dataset stops: Who&When rows count steps, carry the outcome, and have no V_stop (no rewards over time)', () => {
  const { rows } = dataset(WHO);
  assert.equal(new Set(rows.map((r) => r.trace)).size, 9);
  assert.ok(rows.every((r) => r.features.elapsed_unit === 'steps' && r.labels.v_stop === null));
  const hc = rows.filter((r) => r.trace.startsWith('Hand-Crafted'));
  assert.ok(hc.every((r) => r.owner === 'Orchestrator'), 'the Magentic-One orchestrator owns the stop');
  assert.ok(rows.filter((r) => r.trace === 'Algorithm-Generated/12.json').every((r) => r.labels.outcome === 'failure'));
});

test('dataset stops: a sub-agent file read before the session that pulls it in is dropped with its rows', () => {
  const sub = path.join(CLAUDE, 'fa812bfe-b295-4cca-9c2f-fdf01028cb46', 'subagents');
  const child = fs.readdirSync(sub).find((f) => f.endsWith('.jsonl'))!;
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-ds-')), 'stops.jsonl');
  // from inside the sub-agent folder the child's path is the shorter one, so it is read first
  const r = spawnSync(process.execPath, [CLI, 'dataset', 'stops', child, path.join('..', '..', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'), '-o', out], { cwd: sub, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const traces = new Set(fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as StopRow).trace));
  assert.deepEqual([...traces], [path.join('..', '..', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl')]);
  assert.match(r.stderr, /from 1 traces .*1 pulled in/);
});

test('stop rows: features from the past only, labels from hindsight (V_stop = final reward - reward so far)', () => {
  const loaded = traceOf([
    { id: 'u', type: 'message', agent: 'user', to: 'lead', content: 'fix the parser', t: 0 },
    { id: 's', type: 'spawn', agent: 'lead', to: 'dev', t: 1, tokens: 10 },
    { id: 'c', type: 'tool_call', agent: 'dev', tool: 'Bash', content: 'pytest tests/', t: 2, tokens: 5 },
    { id: 'r', type: 'tool_result', agent: 'dev', tool: 'Bash', content: '1 failed, 3 passed', t: 3, exit_code: 1 },
    { id: 'w1', type: 'reward', agent: 'judge', value: 0.2, t: 4 },
    { id: 'l1', type: 'message', agent: 'lead', to: 'dev', content: 'please fix the failing test', t: 5, tokens: 20 },
    { id: 'c2', type: 'tool_call', agent: 'dev', tool: 'Bash', content: 'pytest tests/', t: 6 },
    { id: 'r2', type: 'tool_result', agent: 'dev', tool: 'Bash', content: '4 passed', t: 7, exit_code: 0 },
    { id: 'ret', type: 'return', agent: 'dev', to: 'lead', content: 'all tests pass now', t: 8 },
    { id: 'w2', type: 'reward', agent: 'judge', value: 0.9, t: 9 },
    { id: 'l2', type: 'message', agent: 'lead', to: 'user', content: 'done', t: 10, tokens: 7 },
    { id: 'st', type: 'stop', agent: 'lead', reason: 'task_complete', t: 11 },
  ]);
  const index = new TraceIndex(loaded);
  assert.equal(stopOwner(index), 'lead');
  const rows = stopRows(index, analyzeIndex(index), 'x');
  const by = new Map(rows.map((r) => [r.event, r]));
  assert.deepEqual(rows.map((r) => r.event), ['s', 'l1', 'l2', 'st']);
  assert.deepEqual([by.get('s')!.features.open_delegations, by.get('l1')!.features.open_delegations, by.get('l2')!.features.open_delegations], [1, 1, 0]);
  assert.deepEqual([by.get('s')!.features.last_check, by.get('l1')!.features.last_check, by.get('l2')!.features.last_check], [null, 'fail', 'pass']);
  assert.deepEqual([by.get('s')!.features.tokens_so_far, by.get('l1')!.features.tokens_so_far, by.get('l2')!.features.tokens_so_far], [10, 35, 42]);
  assert.deepEqual(rows.map((r) => r.features.elapsed), [1, 5, 10, 11]);
  assert.ok(rows.every((r) => r.features.elapsed_unit === 'seconds'));
  // V_stop: null before any reward, 0.9 - 0.2 after the first, 0 after the last
  assert.deepEqual(rows.map((r) => r.labels.v_stop), [null, 0.7, 0, 0]);
  assert.deepEqual(rows.map((r) => r.labels.stop), [false, false, false, true]);
  assert.equal(rows.filter((r) => r.labels.best_stop).length, 1);
  assert.ok(by.get('l2')!.labels.best_stop, 'the first decision point after the last reward improvement');
});

test('stop rows: loop state as the past shows it (a loop is known once it repeats), and a trace without times counts events', () => {
  const events = [{ id: 'u', type: 'message' as const, agent: 'user', to: 'lead', content: 'go' }];
  for (let k = 0; k < 4; k++) {
    events.push({ id: `c${k}`, type: 'tool_call' as never, agent: 'lead', tool: 'search', content: 'same query' } as never);
    events.push({ id: `r${k}`, type: 'tool_result' as never, agent: 'lead', tool: 'search', content: 'no results' } as never);
  }
  events.push({ id: 'm', type: 'message', agent: 'lead', to: 'user', content: 'I could not find it, here is something new' });
  const loaded = traceOf(events.map((e) => ({ ...e, t: 0 })));
  const index = new TraceIndex(loaded);
  const rows = stopRows(index, analyzeIndex(index), 'x');
  assert.ok(rows.every((r) => r.features.elapsed_unit === 'events'));
  assert.deepEqual(rows.map((r) => r.features.elapsed), rows.map((r) => r.features.event_index));
  const at = (id: string) => rows.find((r) => r.event === id)!.features;
  // the past only: the first call is no loop yet (nothing has repeated), the fourth is inside one
  assert.deepEqual([at('c0').loop_state, at('c0').loops_so_far], ['none', 0]);
  assert.equal(at('c3').loop_state, 'in_loop');
  assert.equal(at('m').loop_state, 'after_loop');
  assert.ok(at('m').loops_so_far >= 1);
});

test('trace files: parents before the files they hold, mapping files and other extensions left out', () => {
  const names = traceFiles([CLAUDE]).map((f) => f.name);
  assert.ok(names.indexOf('fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl') < names.findIndex((n) => n.includes('subagents')));
  assert.ok(!names.some((n) => n.endsWith('.md')));
});

test('trace files: in natural order of their names (run-2 before run-10), shallower first, as localeCompare with numeric order sorts them', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-order-'));
  try {
    const names = ['run-10.jsonl', 'run-2.jsonl', 'Run-3.jsonl', 'b/run-1.jsonl', 'a/run-20.jsonl', 'a/run-3.jsonl', 'é-1.jsonl', 'e-2.jsonl', 'x 1.json'];
    for (const n of names) {
      fs.mkdirSync(path.dirname(path.join(dir, n)), { recursive: true });
      fs.writeFileSync(path.join(dir, n), '{}');
    }
    const got = traceFiles([dir]).map((f) => f.name.split(path.sep).join('/'));
    const depth = (n: string) => n.split('/').length;
    assert.deepEqual(got, [...names].sort((a, b) => depth(a) - depth(b) || a.localeCompare(b, undefined, { numeric: true })));
    assert.ok(got.indexOf('run-2.jsonl') < got.indexOf('run-10.jsonl'));
    assert.ok(got.indexOf('a/run-3.jsonl') < got.indexOf('a/run-20.jsonl'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('analyze DIR: one row per trace and totals; --json for scripts; sub-agent files once', () => {
  const r = cli('analyze', WHO, '--outcome', 'failure');
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0], /^trace\s+events\s+agents\s+outcome\s+stop\s+loops\s+blame$/);
  assert.equal(lines.filter((l) => /\.json\s/.test(l)).length, 9);
  assert.match(r.stdout, /9 traces, \d+ events; outcomes: failure 9; final stops: .*; blame in 9/);
  // counted by verdict: a failed run's stop is no "ok" beside a sound one
  const stops = /final stops: ([^;]*);/.exec(r.stdout)![1];
  assert.match(stops, /run failed \d/);
  assert.doesNotMatch(stops, /\bok\b/);
  const j = JSON.parse(cli('analyze', CLAUDE, '--json').stdout);
  assert.deepEqual(j.traces.map((t: { trace: string }) => t.trace).sort(), ['fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl', 'short.jsonl', 'subagent.jsonl']);
  assert.equal(j.totals.traces, 3);
  assert.equal(j.left_out.pulled_in.length, 3);
  assert.equal(j.totals.events, j.traces.reduce((s: number, t: { events: number }) => s + t.events, 0));
  // a Claude Code session's last stop hands back to the user: said so, never "ok (task_complete)", and counted as a turn's end
  const session = j.traces.find((t: { trace: string }) => t.trace.startsWith('fa812bfe'));
  assert.deepEqual([session.stop_scope, session.stop_words], ['turn', 'turn ended (handed back)']);
  const table = cli('analyze', CLAUDE).stdout;
  assert.match(table, /fa812bfe-b295-4cca-9c2f-fdf01028cb46\.jsonl\s+\d+\s+\d+\s+\S+\s+turn ended \(handed back\)/);
  assert.doesNotMatch(table, /ok \(task_complete\)/);
  assert.match(table, /final stops: [^;]*turn ended \d/);
  // one file stays the single-trace report
  assert.match(cli('analyze', path.join(WHO, 'Hand-Crafted', '24.json')).stdout, /^\S.*24\.json\n {2}outcome/);
});

test('analyze and dataset over several files print no raw control or bidi character from a hostile trace', () => {
  const hostile = fixturePath('hostile', 'control-names.otrace.jsonl');
  const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
  for (const args of [['analyze', hostile, hostile], ['analyze', hostile, path.join(WHO, 'Hand-Crafted', '24.json'), '--json'], ['dataset', 'stops', hostile]]) {
    const r = cli(...args);
    assert.ok((r.stdout + r.stderr).length > 0);
    assert.ok(!RAW.test(r.stdout + r.stderr), `${args[0]}: ${JSON.stringify((r.stdout + r.stderr).match(RAW))}`);
  }
});
