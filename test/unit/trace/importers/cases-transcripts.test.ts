/**
 * The transcript cases of issue #11 (Claude Code, Codex; test/fixtures/cases, copied from the shared
 * cases, see its SOURCE.md): one test per file, asserting what the cases README says a user expects.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyzeTrace } from '../../../../src/analysis';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { originOfId, type LoadedTrace } from '../../../../src/trace/model';
import { nodeFileAccess } from '../../../../src/trace/node-files';
import { traceStats } from '../../../../src/trace/stats';
import { tokenTotals } from '../../../../src/trace/tokens';
import { runSummary } from '../../../../src/analysis/run-summary';
import { fixture, fixturePath } from '../../helpers';

const load = (name: string): LoadedTrace => loadTrace(fixture('cases', name), name);
const byId = (l: LoadedTrace, id: string) => l.trace.events.find((e) => e.id === id)!;
const problems = (l: LoadedTrace) => l.problems.map((p) => `${p.range.start.line + 1}:${p.range.start.character + 1}: ${p.severity}: ${p.message}`);
const U = (n: string) => `00000000-0000-4000-8000-0000000${n}`;
const ESC = /[\x1b\x9b\x9d]/;

test('04 one API response in three records: one model call, blocks in order, tokens once, calls caused by it', () => {
  const l = load('04-duplicate-message-id-snapshots.jsonl');
  assert.deepEqual(problems(l), ['2:1: info: read as their own kinds: 1 API response written as several records (read as one model call)']);
  const call = byId(l, U('00002'));
  assert.equal(call.model_call, 'msg_fx_0001');
  assert.deepEqual(call.response_events, [U('00002'), 'toolu_fx_01', 'toolu_fx_02']);
  // Usage counted once, from the final snapshot (output 187), on the model call, by kind; its own tokens are its output.
  assert.deepEqual(call.usage, { input: 4, output: 187, cache_read: 8000, cache_write: 1200 });
  assert.equal(call.tokens, 187);
  assert.equal(byId(l, 'toolu_fx_01').tokens, undefined);
  assert.equal(byId(l, 'toolu_fx_02').tokens, undefined);
  assert.equal(l.trace.costs?.tokens, 9391 + 9256);
  for (const t of ['toolu_fx_01', 'toolu_fx_02']) {
    assert.deepEqual(byId(l, t).causes, [U('00002')], `${t} is caused by the model call`);
    assert.deepEqual(byId(l, `${t}:result`).causes, [t], 'each result paired to its call');
  }
  assert.equal(l.trace.events.filter((e) => e.model_call !== undefined).length, 2, 'two API responses, two model calls');
});

test('10 /compact: one compaction event joined through logicalParentUuid with the summary; the command is a local command', () => {
  const l = load('10-compact-boundary-detached.jsonl');
  assert.deepEqual(problems(l), ['5:1: info: read as their own kinds: 1 compaction (its summary inside it), 1 meta row (injected by the harness), 1 local command (not a prompt)']);
  const compaction = l.trace.events.filter((e) => e.kind === 'compaction');
  assert.equal(compaction.length, 1);
  const c = compaction[0];
  assert.equal(c.id, U('00035'));
  assert.match(c.content!, /^This session continues an earlier conversation/);
  assert.ok(l.trace.edges.some((e) => e.dst === c.id && e.type === 'causal' && byId(l, e.src).agent === 'main'), 'joined to the chain it compacted');
  assert.ok(c.causes?.length);
  // The summary row and the /compact output are no user messages.
  assert.ok(!l.trace.events.some((e) => e.id === U('00036')));
  const cmd = byId(l, U('00038'));
  assert.deepEqual([cmd.type, cmd.kind, cmd.command, cmd.stdout], ['message', 'local_command', '/compact', 'Compacted']);
  assert.equal(byId(l, U('00037')).kind, 'meta');
  const users = l.trace.events.filter((e) => e.from === 'user' && e.kind === undefined).map((e) => e.id);
  assert.deepEqual(users, [U('00031'), U('00040')]);
  // They take no credit, and do not cause the model's next answer.
  const a = analyzeTrace(l, { outcome: 'success' });
  assert.equal(a.credit.events[U('00038')], 0);
  assert.ok(!byId(l, U('00041')).causes!.includes(U('00038')));
});

test('13 tool_use without a result at the end: the call is marked "no result", the run ended during a tool call', () => {
  const l = load('13-dangling-tool-use-at-eof.jsonl');
  assert.deepEqual(problems(l), ['4:1: warning: 1 tool call has no result in the file: toolu_fx_d2 (Bash)']);
  assert.equal(byId(l, 'toolu_fx_d2').call_status, 'no_result');
  assert.ok(!l.trace.events.some((e) => e.type === 'tool_result' && e.causes?.includes('toolu_fx_d2')));
  const a = analyzeTrace(l);
  assert.match(a.stops[a.stops.length - 1].message, /ended during a tool call/);
  // A file still being written (last line cut off) is in progress, not ended.
  const text = fixture('cases', '13-dangling-tool-use-at-eof.jsonl').trimEnd();
  const live = loadTrace(`${text}\n{"parentUuid":"00000000-0000-4000-8000-000000000064","type":"user","mess`, 'live.jsonl');
  assert.equal(byId(live, 'toolu_fx_d2').call_status, 'in_progress');
  assert.match(live.problems.map((p) => p.message).join('\n'), /still being written, or its writer stopped mid-record.*toolu_fx_d2 \(Bash\)/);
  const b = analyzeTrace(live);
  // (read as a finished file, not known to be written: its end gets no verdict, never "no stop")
  assert.match(b.stops[b.stops.length - 1].message, /^no verdict about the end: the file ends in a cut-off line \(still being written, or its writer stopped mid-record/);
  assert.equal(b.stops[b.stops.length - 1].finding, 'ok');
});

test('14 interruption markers and a refused call: user stops, the call denied, no blame on the agent', () => {
  const l = load('14-interrupt-marker-variants.jsonl');
  assert.deepEqual(problems(l), ['3:1: info: read as their own kinds: 2 user interruptions, 1 call refused by the user']);
  const stops = l.trace.events.filter((e) => e.type === 'stop');
  assert.deepEqual(stops.map((e) => [e.kind, e.reason, e.decided_by]), [
    ['interruption', 'user_abort', 'user'],
    ['interruption', 'user_abort', 'user'],
  ]);
  assert.equal(byId(l, 'toolu_fx_e1').call_status, 'denied');
  assert.equal(byId(l, 'toolu_fx_e1:result').denied, true);
  for (const outcome of [undefined, 'failure'] as const) {
    const a = analyzeTrace(l, { outcome });
    for (const s of a.stops) {
      assert.equal(s.finding, 'ok', s.message);
      assert.match(s.message, /the user stopped the run.*not an agent failure/);
    }
    assert.notEqual(a.blame?.event, 'toolu_fx_e1');
  }
  // a call the user refused did not fail: the run summary lists no failed call for it
  assert.equal(runSummary(l, analyzeTrace(l)).failed_calls, null);
});

test('20 synthetic API error, meta "continue" row and placeholder: an error stop; the placeholder is no model output', () => {
  const l = load('20-cc-synthetic-api-error-rows.jsonl');
  assert.deepEqual(problems(l), ['4:1: info: read as their own kinds: 1 API error row, 1 meta row (injected by the harness), 1 synthetic placeholder row (not model output)']);
  const err = byId(l, `${U('02004')}:stop`);
  assert.deepEqual([err.type, err.kind, err.reason, err.decided_by], ['stop', 'api_error', 'error', 'api']);
  assert.equal(byId(l, U('02005')).kind, 'meta');
  const ph = byId(l, U('02006'));
  assert.deepEqual([ph.kind, ph.synthetic, ph.model_call, ph.tokens], ['placeholder', true, undefined, undefined]);
  for (const outcome of [undefined, 'failure'] as const) {
    const a = analyzeTrace(l, { outcome });
    assert.notEqual(a.best_stop?.event, ph.id, 'no final answer from a placeholder');
    assert.notEqual(a.blame?.event, ph.id);
    assert.equal(a.credit.events[ph.id], 0);
    assert.ok(!a.stops.some((s) => s.finding === 'no_stop'), 'the placeholder is no work after the stop');
  }
  // the API error failed the run through no agent's output: nothing blamed, credit not signed by it, and the turn's end is
  // said as an error, not as a hand-back the agent chose
  const a = analyzeTrace(l);
  assert.deepEqual([a.outcome.status, a.outcome.notAgentFailure, a.blame, a.credit.signed], ['failure', true, null, false]);
  assert.ok(Object.values(a.credit.events).every((v) => v >= 0), 'no blame in the credit');
  const stop = a.stops.find((s) => s.event === err.id)!;
  assert.match(stop.message, /^turn ended \(error\): the turn ended on an error \(.+\), not a hand-back the agent chose/);
  assert.doesNotMatch(stop.message, /handed back to the user/);
});

test('24 ANSI escapes: stripped from shown text; /context is a local command and causes no "no stop" finding', () => {
  const l = load('24-cc-ansi-escapes-in-tool-output.jsonl');
  assert.deepEqual(problems(l), ['3:1: info: read as their own kinds: 2 texts with terminal escape sequences (stripped), 1 meta row (injected by the harness), 1 local command (not a prompt)']);
  for (const e of l.trace.events) for (const v of Object.values(e)) if (typeof v === 'string') assert.ok(!ESC.test(v), `${e.id}: ${v.slice(0, 40)}`);
  const result = byId(l, 'toolu_fx_2401:result');
  assert.match(result.content!, /AssertionError: expected 10\.005 to be 10\.01/);
  assert.equal(result.content_ansi, true);
  const cmd = byId(l, U('02405'));
  assert.deepEqual([cmd.kind, cmd.command], ['local_command', '/context']);
  assert.match(cmd.stdout as string, /^Context Usage\n/);
  const a = analyzeTrace(l);
  assert.deepEqual(a.stops.map((s) => s.finding), ['ok']);
  assert.equal(a.best_stop?.event, U('02404'));
});

test('16 Codex multi-agent rollouts: spawns into two worker lanes, the wait as a join, children pulled in from the folder', () => {
  const dir = fixturePath('cases', '16-codex-spawn-agent');
  const [parent, franklin, ohm] = fs.readdirSync(dir).sort().map((n) => path.join(dir, n));
  const l = loadTrace(fs.readFileSync(parent, 'utf8'), parent, nodeFileAccess);
  assert.deepEqual(problems(l), []);
  assert.deepEqual(traceStats(l).agents, ['codex', 'worker:Franklin', 'worker:Ohm']);
  const spawns = l.trace.events.filter((e) => e.type === 'spawn');
  assert.deepEqual(spawns.map((e) => [e.id, e.agent, e.to]), [['call_fx_spawn_pay', 'codex', 'worker:Franklin'], ['call_fx_spawn_cart', 'codex', 'worker:Ohm']]);
  for (const [spawn, lane, file] of [['call_fx_spawn_pay', 'worker:Franklin', franklin], ['call_fx_spawn_cart', 'worker:Ohm', ohm]]) {
    const first = l.trace.events.find((e) => e.agent === lane)!;
    assert.equal(originOfId(l, first.id)!.file, file);
    assert.ok(l.trace.edges.some((e) => e.src === spawn && e.dst === first.id && e.type === 'spawn'));
  }
  const join = byId(l, 'call_fx_wait:result');
  assert.equal(join.type, 'aggregate');
  assert.deepEqual(join.causes, ['call_fx_wait', 'Franklin/msg:L7', 'Ohm/msg:L7']);
  for (const ret of ['Franklin/msg:L7', 'Ohm/msg:L7']) {
    assert.deepEqual([byId(l, ret).type, byId(l, ret).to], ['return', 'codex']);
    assert.ok(l.trace.edges.some((e) => e.src === ret && e.dst === join.id && e.type === 'return'));
  }
  const a = analyzeTrace(l);
  assert.deepEqual(a.stops.map((s) => s.finding), ['ok', 'ok', 'ok']);
  assert.equal(a.best_stop?.event, 'msg:L16');
  // A child opened alone says whose sub-agent it is.
  const alone = loadTrace(fs.readFileSync(franklin, 'utf8'), franklin, nodeFileAccess);
  assert.deepEqual(problems(alone), ['1:1: info: this rollout is the sub-agent Franklin (worker) of thread 019f7000-0000-7000-8000-00000000a016; open the parent rollout to see it in its run']);
  assert.deepEqual(traceStats(alone).agents, ['worker:Franklin']);
  // and its run summary says it first (it read as a run of its own: "one agent", "handed back to the user"); its parent has none
  assert.equal(runSummary(alone, analyzeTrace(alone)).spawned_by, 'thread 019f7000-0000-7000-8000-00000000a016');
  assert.equal(runSummary(l, a).spawned_by, undefined);
});

test('30 a Codex fork: the replayed parent history is one inherited-context event, not the fork\'s turns, tokens or time', () => {
  const file = fixturePath('cases', '30-codex-fork-replayed-parent-history', 'rollout-2026-01-06T09-00-00-019f8e10-4a00-7000-8000-00000000f030.jsonl');
  const l = loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess);
  const PARENT = '019f8a20-1c00-7000-8000-00000000a030';
  // The second session_meta is said, with the lines the replay takes.
  assert.deepEqual(problems(l), [
    `2:1: info: a second session_meta (thread ${PARENT}): this rollout is a fork of thread ${PARENT}; lines 2–21 replay its history (2 turns), shown as one inherited-context event, not counted as this rollout's turns, tokens or time`,
  ]);
  const meta = l.trace.metadata as Record<string, unknown>;
  assert.equal(meta.forked_from_id, PARENT, 'the fork keeps its parent');
  assert.deepEqual(meta.inherited, { event: 'inherited:L1', threads: [PARENT], turns: 2, records: 20, first_line: 1, last_line: 20, tokens: 21500 });
  // One event shows the replay: harness context (no agent output), with the parent's prompts and answers inside.
  const inherited = l.trace.events.filter((e) => e.inherited === true);
  assert.equal(inherited.length, 1);
  const h = inherited[0];
  assert.deepEqual([h.type, h.kind, h.from, h.agent, h.forked_from], ['message', 'meta', 'harness', 'codex', PARENT]);
  assert.match(h.content!, /^History of thread 019f8a20-\S+ replayed into this fork \(2 turns, 20 records, lines 2–21\)/);
  assert.match(h.content!, /\nuser: Add offset pagination to GET \/orders \(page, page_size\)\.\n/);
  assert.match(h.content!, /\nassistant: Added test\/orders\.test\.ts case for page 2; all 3 tests pass\.$/);
  // No other event comes from the replayed lines: no turns, prompts, calls or stops of the parent.
  const replayed = l.trace.events.filter((e) => e !== h && originOfId(l, e.id)!.record <= 20);
  assert.deepEqual(replayed.map((e) => e.id), []);
  assert.deepEqual((meta.turns as { turn_id: string }[]).map((t) => t.turn_id), ['019f8e10-4b00-7000-8000-0000000f3030']);
  assert.equal(l.trace.events.filter((e) => e.type === 'stop').length, 1);
  // The fork's own work: 1 turn and 18,000 tokens (16,700 in, 1,300 out), as the events and the costs say.
  assert.deepEqual(tokenTotals(l.trace.events).by_kind, { input: 16700, output: 1300, cache_read: 0, reasoning: 0 });
  assert.deepEqual([l.trace.costs?.tokens, l.trace.costs?.input_tokens, l.trace.costs?.output_tokens], [18000, 16700, 1300]);
  // No millisecond durations: the replay is placed where the fork's own work starts (09:01:10), written at 4 ms.
  assert.deepEqual([h.t, h.replayed_t], [70, 0.004]);
  const a = analyzeTrace(l);
  const summary = runSummary(l, a);
  assert.equal(summary.task, 'Switch to cursor-based pagination instead of offsets.');
  assert.deepEqual(summary.duration, { value: 19.2, unit: 'seconds', from: 70 });
  assert.deepEqual([summary.tokens.input, summary.tokens.output], [16700, 1300]);
  assert.deepEqual(a.loops, [], 'no loops from the replayed turns');
  assert.deepEqual(a.stops.map((s) => s.finding), ['ok']);
});

test('33 Codex exit codes: from exec_command_end (paired by call_id), else the output header, never free text', () => {
  const l = load('33-codex-exec-exit-codes-header-vs-raw.jsonl');
  assert.deepEqual(problems(l), [], 'the exec_command_end events are read, none left unshown');
  const results = ['call_fx_3301', 'call_fx_3302', 'call_fx_3303'].map((c) => byId(l, `${c}:result`));
  assert.deepEqual(
    results.map((e) => [e.exit_code, e.is_error === true]),
    [
      [1, true],
      [0, false],
      [2, true],
    ],
    'calls 1 and 3 failed, call 2 (whose output only mentions "exit code: 1") succeeded',
  );
  // Without the exec_command_end events: call 1 from its header; call 2 (free text) and call 3 (raw output) say nothing.
  const text = fixture('cases', '33-codex-exec-exit-codes-header-vs-raw.jsonl')
    .split('\n')
    .filter((x) => !x.includes('"exec_command_end"'))
    .join('\n');
  const alone = loadTrace(text, '33.jsonl');
  assert.deepEqual(
    ['call_fx_3301', 'call_fx_3302', 'call_fx_3303'].map((c) => [byId(alone, `${c}:result`).exit_code, byId(alone, `${c}:result`).is_error === true]),
    [
      [1, true],
      [undefined, false],
      [undefined, false],
    ],
  );
});

test('28 background Bash and Agent: each task-notification is the outcome of its call, the build failed when its notification came, the turn ends are hand-offs', async () => {
  const { TraceIndex } = await import('../../../../src/analysis/trace-index');
  const file = fixturePath('cases', '28-cc-background-task-notifications', '0f1e2d3c-0000-4000-8000-00000000c028.jsonl');
  const l = loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess);
  const N = (n: string) => `00000000-0000-4000-8000-2800000000${n}`;
  // Only what was read as its own kind: the two records of msg_fx_2801 (same usage) are the format's layout, not noted.
  assert.deepEqual(problems(l), ["7:1: info: read as their own kinds: 2 task notifications (background calls' outcomes, each tied to its call), 1 background call failed when its notification arrived"]);
  // The Bash build: launched in the background, failed when its notification arrived (exit code 2).
  assert.equal(byId(l, 'toolu_fx_2801').background, true);
  const build = byId(l, N('07'));
  assert.deepEqual([build.type, build.from, build.tool, build.is_error, build.task_status, build.exit_code, build.t], ['tool_result', 'harness', 'Bash', true, 'failed', 2, 130]);
  assert.deepEqual(build.causes, ['toolu_fx_2801']);
  assert.ok(l.trace.edges.some((e) => e.src === 'toolu_fx_2801' && e.dst === build.id && e.type === 'tool_dependency'));
  assert.equal(byId(l, 'toolu_fx_2801:result').is_error, undefined, 'the launch itself did not fail');
  const index = new TraceIndex(l);
  const at = (id: string) => l.trace.events.findIndex((e) => e.id === id);
  assert.equal(index.id(index.resultOf(index.at(at('toolu_fx_2801')))), build.id, 'the call is answered by its outcome');
  // The audit agent, tied by <task-id> alone: its report returns to that notification.
  const lane = 'general-purpose:a28bc0ffee01d2e3f';
  const audit = byId(l, N('11'));
  assert.deepEqual([audit.type, audit.from, audit.tool, audit.is_error, audit.task_status], ['tool_result', 'harness', 'Agent', undefined, 'completed']);
  const ret = l.trace.events.find((e) => e.type === 'return' && e.agent === lane)!;
  assert.deepEqual(audit.causes, [ret.id]);
  assert.ok(l.trace.edges.some((e) => e.src === ret.id && e.dst === audit.id && e.type === 'return'));
  // Notifications are harness events, not human prompts; the agent lane runs while main is idle.
  assert.deepEqual(l.trace.events.filter((e) => e.from === 'user').map((e) => e.id), [N('01')]);
  const own = l.trace.events.filter((e) => e.agent === lane).map((e) => e.t);
  assert.ok(Math.min(...own) < 6 + 1 && Math.max(...own) > 130, `agent lane from ${Math.min(...own)} s to ${Math.max(...own)} s`);
  // Ending a turn while work runs in the background is a designed hand-off, never a premature stop.
  assert.deepEqual(byId(l, 'msg_fx_2802:stop').background_running, ['toolu_fx_2801', 'toolu_fx_2802']);
  assert.deepEqual(byId(l, 'msg_fx_2804:stop').background_running, ['toolu_fx_2802']);
  assert.equal(byId(l, 'msg_fx_2805:stop').background_running, undefined);
  const a = analyzeTrace(l);
  assert.ok(a.stops.every((s) => s.finding === 'ok'), a.stops.map((s) => s.message).join('\n'));
  assert.match(a.stops.find((s) => s.event === 'msg_fx_2802:stop')!.message, /with 2 calls still running in the background: a designed hand-off .*not a premature stop/);
});
