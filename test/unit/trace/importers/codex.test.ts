import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectFormat, loadTrace } from '../../../../src/trace/formats';
import { originOfId, type LoadedTrace } from '../../../../src/trace/model';
import { TraceSchema, type TraceEvent } from '../../../../src/trace/schema';
import { traceStats } from '../../../../src/trace/stats';
import { analyzeTrace } from '../../../../src/analysis';
import { abortReason, isCodexText } from '../../../../src/trace/importers/codex';
import { tokenTotals } from '../../../../src/trace/tokens';
import { headerExitCode, metadataExitCode } from '../../../../src/trace/importers/codex-exit-code';
import { uuidV7Ms } from '../../../../src/trace/importers/codex-history';
import type { FileAccess } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { fixture } from '../../helpers';

/** The one problem: the injected-context rows (developer instructions, AGENTS.md) said to be meta rows; nothing left unshown. */
function onlyDeveloperRowsNotShown(l: LoadedTrace): void {
  assert.deepEqual(l.problems.map((p) => p.severity), ['info']);
  assert.match(l.problems[0].message, /^read as their own kinds: \d+ meta rows \(injected context: developer instructions, AGENTS\.md, environment\)$/);
}

const FIVE_TURNS = 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl';
const MCP = 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';

const load = (text: string, name = FIVE_TURNS): LoadedTrace => loadTrace(text, name);
const lines = (name = FIVE_TURNS) => fixture('codex', name).split('\n');
const byType = (l: LoadedTrace, type: string) => l.trace.events.filter((e) => e.type === type);
const event = (l: LoadedTrace, id: string): TraceEvent => {
  const e = l.trace.events.find((x) => x.id === id);
  assert.ok(e, `no event ${id}`);
  return e;
};
const record = (l: LoadedTrace, e: TraceEvent) => originOfId(l, e.id)!.record;
type Turn = { turn_id: string; stop: string | null; line: number };
const turnsOf = (l: LoadedTrace) => (l.trace.metadata as { turns: Turn[] }).turns;

test('a five-turn rollout: turns, paired tool calls, stops, token costs', () => {
  const l = load(fixture('codex', FIVE_TURNS));
  assert.equal(l.format, 'codex');
  onlyDeveloperRowsNotShown(l);
  assert.ok(TraceSchema.safeParse(l.trace).success);
  const s = traceStats(l);
  assert.deepEqual(s.agents, ['codex']);
  assert.deepEqual(s.by_type, { message: 63, tool_call: 105, tool_result: 104, stop: 5 });
  // 15 of the messages are injected context (10 developer rows, 5 user-role rows that repeat no prompt): meta rows from the harness.
  const meta = l.trace.events.filter((e) => e.kind === 'meta');
  assert.deepEqual([meta.length, meta.filter((e) => e.role === 'developer').length, new Set(meta.map((e) => e.from)).size], [15, 10, 1]);
  assert.ok(meta.every((e) => e.from === 'harness'));
  assert.equal(l.trace.events.filter((e) => e.type === 'message' && e.from === 'user').length, 5, 'the five prompts stay user messages');
  assert.equal(s.edges, 104);
  assert.equal(l.trace.trace_id, '019c8a4c-ed82-79a1-aa28-7738fc5ab61a');
  assert.deepEqual(
    turnsOf(l).map((t) => [t.line, t.stop]),
    [
      [7, 'task_complete'],
      [186, 'task_complete'],
      [288, 'task_complete'],
      [528, 'task_complete'],
      [651, 'task_complete'],
    ],
  );
  assert.deepEqual(
    s.stops.map((x) => [x.reason, record(l, event(l, x.id))]),
    [
      ['task_complete', 185],
      ['task_complete', 287],
      ['task_complete', 519],
      ['task_complete', 650],
      ['task_complete', 701],
    ],
  );
  // 82 function_call + 22 custom_tool_call, each paired by call_id; the web search has no output.
  const calls = byType(l, 'tool_call');
  const tools = calls.reduce<Record<string, number>>((m, e) => ((m[e.tool!] = (m[e.tool!] ?? 0) + 1), m), {});
  assert.equal(tools.apply_patch, 22);
  assert.equal(tools.web_search, 1);
  assert.equal(calls.length - 23, 82);
  for (const c of calls) {
    if (c.tool === 'web_search') continue;
    const r = event(l, `${c.id}:result`);
    assert.deepEqual(r.causes, [c.id]);
    assert.equal(r.tool, c.tool);
    assert.equal(l.trace.edges.filter((e) => e.type === 'tool_dependency' && e.src === c.id && e.dst === r.id).length, 1);
  }
  // token_count: the cumulative usage is the cost, and every increase sits on the output it counts.
  assert.equal(l.trace.costs?.tokens, 7240100);
  assert.equal(l.trace.costs?.output_tokens, 36075);
  assert.equal(l.trace.costs?.unattributed_tokens, 0);
  assert.equal(tokenTotals(l.trace.events).total, 7240100);
  assert.equal(l.trace.events.reduce((n, e) => n + (e.tokens ?? 0), 0), 36075, 'each output its own tokens: the outputs');
  assert.equal(l.trace.events.filter((e) => e.usage !== undefined).length, 81);
  // Time: seconds since the first record (session_meta at 11:40:29.275Z).
  assert.equal(event(l, 'user:L9').t, 0.004);
  assert.equal(event(l, 'stop:019c8a86-f3b9-7ac0-803b-be0e5fc1ebde').t, 3904.087);
});

test('parallel calls pair by call_id, and the next output is caused by all their results', () => {
  const l = load(fixture('codex', FIVE_TURNS));
  const [a, b] = ['call_zC8Bb98Ju4Ft4evnpeMpIu85', 'call_pOeDz7Zbi8sTHazcDXghLt7O'].map((id) => event(l, id));
  assert.deepEqual([record(l, a), record(l, b)], [16, 17]);
  assert.deepEqual([record(l, event(l, `${a.id}:result`)), record(l, event(l, `${b.id}:result`))], [19, 20]);
  assert.deepEqual(event(l, 'msg:L26').causes, [`${a.id}:result`, `${b.id}:result`]);
  assert.deepEqual(event(l, 'msg:L15').causes, ['user:L9']);
  assert.equal(tokenTotals([event(l, b.id)]).total, 17561, 'the first token_count goes on the last output of the response');
});

test('repeated identical tool calls keep their arguments, so loops can be found', () => {
  const l = load(fixture('codex', FIVE_TURNS));
  const groups = new Map<string, number>();
  for (const c of byType(l, 'tool_call')) groups.set(`${c.tool}\u0000${c.content}`, (groups.get(`${c.tool}\u0000${c.content}`) ?? 0) + 1);
  const repeated = [...groups.entries()].filter(([, n]) => n > 1).map(([k, n]) => [k.split('\u0000')[0], n]);
  assert.deepEqual(repeated.sort(), [
    ['exec_command', 2],
    ['exec_command', 2],
    ['write_stdin', 7],
  ]);
});

test('a turn that started and never completed ends with no stop recorded', () => {
  const ls = lines();
  assert.match(ls[519], /"task_complete"/);
  ls.splice(519, 1);
  const l = load(ls.join('\n'));
  onlyDeveloperRowsNotShown(l);
  assert.deepEqual(turnsOf(l).map((t) => t.stop), ['task_complete', 'task_complete', null, 'task_complete', 'task_complete']);
  assert.equal((l.trace.metadata as { turns_without_stop: number }).turns_without_stop, 1);
  assert.equal(byType(l, 'stop').length, 4);
});

test('an aborted turn stops with user_abort; an error event stops with error', () => {
  const ls = lines();
  ls[701] = JSON.stringify({ timestamp: '2026-02-23T12:45:33.362Z', type: 'event_msg', payload: { type: 'turn_aborted', turn_id: '019c8a86-f3b9-7ac0-803b-be0e5fc1ebde', reason: 'interrupted' } });
  ls[650] = JSON.stringify({ timestamp: '2026-02-23T12:43:06.562Z', type: 'event_msg', payload: { type: 'error', message: 'stream disconnected before completion' } });
  const l = load(ls.join('\n'));
  assert.deepEqual(
    byType(l, 'stop').map((e) => [e.reason, e.decided_by, record(l, e)]),
    [
      ['task_complete', 'codex', 185],
      ['task_complete', 'codex', 287],
      ['task_complete', 'codex', 519],
      ['error', 'codex', 650],
      ['user_abort', 'user', 701],
    ],
  );
  assert.deepEqual(['interrupted', 'replaced', 'review_ended'].map(abortReason), ['user_abort', 'user_abort', 'unknown']);
});

test('compaction is marked and kept visible', () => {
  const ls = lines();
  const at = '2026-02-23T11:55:20.000Z';
  ls.splice(
    520,
    0,
    JSON.stringify({ timestamp: at, type: 'compacted', payload: { message: 'Summary of the work so far.', replacement_history: [{ type: 'message', role: 'user', content: [] }] } }),
    JSON.stringify({ timestamp: at, type: 'event_msg', payload: { type: 'context_compacted' } }),
  );
  const l = load(ls.join('\n'));
  onlyDeveloperRowsNotShown(l);
  const marked = l.trace.events.filter((e) => (e as Record<string, unknown>).compaction === true);
  assert.deepEqual(
    marked.map((e) => [e.type, e.from, e.content, record(l, e)]),
    [
      ['orchestrator_decision', undefined, 'Summary of the work so far.\n\nHistory kept (1 item)', 520],
    ],
    'the summary and its marker are one compaction event, the summary inside it',
  );
  assert.equal(marked[0].kind, 'compaction');
  assert.equal((l.trace.metadata as { compactions: number }).compactions, 1);
  // The next output of the agent follows from the summary.
  const next = l.trace.events.find((e) => e.t > marked[0].t && (e.type === 'message' || e.type === 'tool_call') && e.from !== 'user' && e.kind !== 'meta')!;
  assert.ok(next.causes?.includes(marked[0].id));
});

test('every event range lies on the line of the record it came from', () => {
  for (const name of [FIVE_TURNS, MCP]) {
    const text = fixture('codex', name);
    const ls = text.split('\n');
    const l = load(text, name);
    for (const e of l.trace.events) {
      const o = originOfId(l, e.id)!;
      assert.equal(o.file, undefined);
      const line = ls[o.record];
      assert.ok(line.trim() !== '');
      assert.equal(o.range.start.line, o.record);
      assert.equal(o.range.end.line, o.record);
      assert.equal(o.range.start.character, 0);
      assert.equal(o.range.end.character, line.length);
    }
  }
});

test('MCP tools in a one-turn rollout', () => {
  const l = load(fixture('codex', MCP), MCP);
  onlyDeveloperRowsNotShown(l);
  const s = traceStats(l);
  assert.deepEqual(s.by_type, { message: 13, tool_call: 5, tool_result: 5, stop: 1 });
  assert.equal(l.trace.events.filter((e) => e.kind === 'meta').length, 6);
  assert.deepEqual(byType(l, 'tool_call').map((e) => e.tool), [
    'mcp__cloud-associates__search_workflows',
    '[REDACTED_NAME len=43 sha=c186413b]',
    'mcp__cloud-associates__execute_workflow',
    'mcp__cloud-associates__execute_workflow',
    'mcp__cloud-associates__execute_workflow',
  ]);
});

test('cut-off last lines and bad lines are positioned problems; the rest loads', () => {
  const ls = lines();
  ls[100] = ls[100].slice(0, 60);
  const l = load(ls.slice(0, 701).join('\n') + '\n' + ls[701].slice(0, 120));
  assert.deepEqual(
    l.problems.map((p) => [p.severity, p.range.start.line, p.message.replace(/ \(.*$/, '').replace(/:.*$/, '')]),
    [
      ['error', 100, 'JSON syntax error'],
      ['error', 701, 'last line is cut off'],
      ['info', 1, 'read as their own kinds'],
    ],
  );
  assert.deepEqual(
    l.problems.map((p) => p.range.start.character),
    [59, 103, 0],
  );
  assert.equal(byType(l, 'stop').length, 4, 'the cut-off task_complete is lost, the other four load');
  assert.equal(l.trace.events.length, 277 - 1, 'only the cut-off stop is lost (the broken line was an agent_reasoning record, which gives no event)');
});

test('detection is by content: session_meta first, not the file name', () => {
  const text = fixture('codex', MCP);
  assert.equal(isCodexText(text), true);
  assert.equal(detectFormat(text, 'anything.jsonl')?.id, 'codex');
  assert.equal(detectFormat(fixture('claude-code', 'short.jsonl'), 'rollout-2026-01-01T00-00-00-x.jsonl')?.id, 'claude-code');
  // A rollout whose session_meta line is damaged is still recognized by its name and records.
  const damaged = ['{"timestamp":"2026-02-23T19:34:26', ...text.split('\n').slice(1)].join('\n');
  assert.equal(isCodexText(damaged, 'x.jsonl'), false);
  assert.equal(detectFormat(damaged, '/s/rollout-2026-02-23T20-34-25-019c8bfe.jsonl')?.id, 'codex');
  const l = loadTrace(damaged, '/s/rollout-2026-02-23T20-34-25-019c8bfe.jsonl');
  assert.deepEqual(l.problems.map((p) => [p.range.start.line, p.severity]), [[0, 'error'], [1, 'info']]); // + the injected-context rows read as meta rows
  assert.equal(l.trace.events.length, 24); // 18 + 6 meta rows
});

test('a call the user refused (approval declined) is marked denied; the analysis does not blame the agent for it', () => {
  const ls = lines(MCP);
  const at = '2026-02-23T20:35:00.000Z';
  const last = ls.findIndex((x) => x.includes('"task_complete"'));
  ls.splice(
    last,
    0,
    JSON.stringify({ timestamp: at, type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"command":["rm","-rf","build"]}', call_id: 'call_no1' } }),
    JSON.stringify({ timestamp: at, type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_no1', output: 'exec command rejected by user' } }),
    JSON.stringify({ timestamp: at, type: 'response_item', payload: { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch', call_id: 'call_no2', status: 'completed' } }),
    JSON.stringify({ timestamp: at, type: 'event_msg', payload: { type: 'patch_apply_end', call_id: 'call_no2', status: 'declined' } }),
    JSON.stringify({ timestamp: at, type: 'response_item', payload: { type: 'custom_tool_call_output', call_id: 'call_no2', output: 'the user said no' } }),
    JSON.stringify({ timestamp: at, type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'call_ok' } }),
    JSON.stringify({ timestamp: at, type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_ok', output: 'the file says: exec command rejected by user' } }),
  );
  const l = load(ls.join('\n'), MCP);
  assert.deepEqual(['call_no1', 'call_no2', 'call_ok'].map((id) => event(l, id).call_status), ['denied', 'denied', undefined]);
  assert.equal((event(l, 'call_no1:result') as Record<string, unknown>).denied, true);
  assert.ok(l.problems.some((p) => p.severity === 'info' && /2 calls refused by the user/.test(p.message)));
  const a = analyzeTrace(l, { outcome: 'failure' });
  assert.ok(!a.blame || !['call_no1', 'call_no2', 'call_no1:result', 'call_no2:result'].includes(a.blame.event), `blame: ${a.blame?.event}`);
});

/** A rollout written here: `[type, payload, ms]` records (ms after 2026-01-01T10:00:00Z; by default a second apart). */
function written(records: [string, Record<string, unknown>, number?][]): string {
  return records.map(([type, payload, ms], k) => JSON.stringify({ timestamp: new Date(Date.UTC(2026, 0, 1, 10) + (ms ?? k * 1000)).toISOString(), type, payload })).join('\n');
}
const fnCall = (id: string, name = 'exec_command', args = '{"cmd":"make"}'): [string, Record<string, unknown>] => ['response_item', { type: 'function_call', name, arguments: args, call_id: id }];
const fnOutput = (id: string, output: string): [string, Record<string, unknown>] => ['response_item', { type: 'function_call_output', call_id: id, output }];
const said = (text: string): [string, Record<string, unknown>] => ['response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }];
const prompt = (text: string): [string, Record<string, unknown>] => ['event_msg', { type: 'user_message', message: text }];
const started = (turn: string): [string, Record<string, unknown>] => ['event_msg', { type: 'task_started', turn_id: turn }];
const done = (turn: string): [string, Record<string, unknown>] => ['event_msg', { type: 'task_complete', turn_id: turn }];
const tokens = (total: number, last: number): [string, Record<string, unknown>] => ['event_msg', { type: 'token_count', info: { total_token_usage: { input_tokens: total - 10 * Math.floor(total / 100), output_tokens: 10 * Math.floor(total / 100), total_tokens: total }, last_token_usage: { input_tokens: last - 10 * Math.floor(last / 100), output_tokens: 10 * Math.floor(last / 100), total_tokens: last } } }];
const exitOf = (l: LoadedTrace, id: string) => {
  const e = event(l, `${id}:result`);
  return [e.exit_code, e.is_error === true];
};

test('the exit code header Codex writes before a command output is read by its structure, never from free text', () => {
  assert.equal(headerExitCode('Chunk ID: 7a1c\nWall time: 5.1504 seconds\nProcess exited with code 1\nOriginal token count: 41\nOutput:\nFAIL\n'), 1);
  assert.equal(headerExitCode('Exit code: 2\nWall time: 0.3 seconds\nTotal output lines: 4\nOutput:\nerror\n'), 2);
  assert.equal(headerExitCode('Exit code: 0\r\nOutput:\r\nok'), 0);
  assert.equal(headerExitCode('Chunk ID: b\nWall time: 1.0 seconds\nProcess running with session ID 42\nOriginal token count: 5\nOutput:\nstill building\n'), undefined, 'still running: no code yet');
  for (const free of ['If npm test stops with exit code: 1, delete .jest-cache.\n', 'Exit code: 1\n', 'make: *** [all] Error 2\nOutput:\nExit code: 1\n', 'Output:\nProcess exited with code 1\n', 'note\nExit code: 1\nOutput:\nx']) {
    assert.equal(headerExitCode(free), undefined, free);
  }
  assert.equal(metadataExitCode('{"output":"boom\\n","metadata":{"exit_code":2,"duration_seconds":0.1}}'), 2);
  assert.equal(metadataExitCode('{"exit_code": 1}'), undefined, 'JSON that is not the shell output shape');
});

test('a command fails by its exit code: exec_command_end (also after the output), the header, the old JSON metadata, patch_apply_end', () => {
  const l = loadTrace(
    written([
      ['session_meta', { id: 'exit-codes', cwd: '/w' }],
      started('t1'),
      prompt('build it'),
      // A long-running command: its first output says it runs; a poll reads the exit; the end event comes last.
      fnCall('c1'),
      fnOutput('c1', 'Chunk ID: a\nWall time: 10.0 seconds\nProcess running with session ID 7\nOriginal token count: 3\nOutput:\nbuilding\n'),
      fnCall('c2', 'write_stdin', '{"session_id":7,"chars":""}'),
      fnOutput('c2', 'Chunk ID: b\nWall time: 2.0 seconds\nProcess exited with code 3\nOriginal token count: 3\nOutput:\nerror: linker\n'),
      ['event_msg', { type: 'exec_command_end', call_id: 'c1', exit_code: 3, aggregated_output: 'building\nerror: linker\n' }],
      // The freeform header, and the older JSON output.
      fnCall('c3', 'shell'),
      fnOutput('c3', 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\nexit code: 1 in the log is just text\n'),
      fnCall('c4', 'shell'),
      fnOutput('c4', '{"output":"No such file\\n","metadata":{"exit_code":1,"duration_seconds":0.0}}'),
      // An end event that contradicts an earlier header: the end event, paired by call_id, wins.
      fnCall('c5'),
      ['event_msg', { type: 'exec_command_end', call_id: 'c5', exit_code: 0 }],
      fnOutput('c5', 'Exit code: 1\nOutput:\n'),
      // A patch that did not apply.
      ['response_item', { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch', call_id: 'c6' }],
      ['event_msg', { type: 'patch_apply_end', call_id: 'c6', success: false }],
      ['response_item', { type: 'custom_tool_call_output', call_id: 'c6', output: 'patch failed' }],
      said('the build fails at the linker'),
      done('t1'),
    ]),
    'exit-codes.jsonl',
  );
  assert.deepEqual(l.problems, []);
  assert.deepEqual(
    ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((c) => exitOf(l, c)),
    [
      [3, true],
      [3, true],
      [0, false],
      [1, true],
      [0, false],
      [1, true],
    ],
  );
});

test('a forked rollout: the replay ends at a pause or at a turn made after the fork; a fork of a fork replays both histories', () => {
  const FORK = '019f8e10-4a00-7000-8000-0000000000f1'; // UUID v7: made after the parent's turns below
  const PARENT = '019f8a20-1c00-7000-8000-0000000000a1';
  const GRAND = '019f8000-0000-7000-8000-0000000000b1';
  const replay = (base: number): [string, Record<string, unknown>, number][] =>
    (
      [
        ['session_meta', { id: PARENT, forked_from_id: GRAND, cwd: '/a' }],
        ['session_meta', { id: GRAND, cwd: '/a' }],
        started('019f8000-0100-7000-8000-000000000001'),
        prompt('first task'),
        fnCall('p1'),
        fnOutput('p1', 'Exit code: 0\nOutput:\nok\n'),
        fnCall('p1', 'exec_command', '{"cmd":"make"}'), // the same call again: would be a loop if it were the fork's own
        fnOutput('p1', 'Exit code: 0\nOutput:\nok\n'),
        said('first done'),
        tokens(1000, 1000),
        done('019f8000-0100-7000-8000-000000000001'),
        started('019f8a20-0100-7000-8000-000000000002'),
        prompt('second task'),
        said('second done'),
        tokens(1500, 500),
        done('019f8a20-0100-7000-8000-000000000002'),
      ] as [string, Record<string, unknown>][]
    ).map(([t, p], k) => [t, p, base + k]);
  const own = (turn: string, at: number): [string, Record<string, unknown>, number][] => [
    ['turn_context', { turn_id: turn, cwd: '/b', model: 'model-x' }, at],
    [...started(turn), at],
    [...prompt('the fork\'s task'), at + 1],
    [...said('fork done'), at + 2],
    [...tokens(1800, 300), at + 3],
    [...done(turn), at + 4],
  ];
  const meta: [string, Record<string, unknown>, number] = ['session_meta', { id: FORK, forked_from_id: PARENT, cwd: '/b' }, 0];
  const check = (text: string, ownTurns: string[], why: string) => {
    const l = loadTrace(text, 'fork.jsonl');
    const h = l.trace.events.filter((e) => e.inherited === true);
    assert.equal(h.length, 1, why);
    assert.deepEqual(h[0].inherited_threads, [PARENT, GRAND], why);
    assert.match(h[0].content!, /\(history of thread 019f8000-0000-7000-8000-0000000000b1\)\nuser: first task\n/, why);
    assert.deepEqual((l.trace.metadata!.turns as { turn_id: string }[]).map((t) => t.turn_id), ownTurns, why);
    assert.ok(!l.trace.events.some((e) => e.type === 'tool_call'), `${why}: no call of the parent's`);
    assert.deepEqual(analyzeTrace(l).loops, [], why);
    return l;
  };
  // The fork's turn starts right after the replay (a sub-agent forked with the parent's history): its v7 turn id is newer than the fork.
  const quick = check(written([meta, ...replay(2), ...own('019f8e10-4b00-7000-8000-000000000003', 40)]), ['019f8e10-4b00-7000-8000-000000000003'], 'quick');
  assert.deepEqual([quick.trace.costs?.tokens, quick.trace.costs?.output_tokens], [300, 30], 'only the fork\'s own tokens');
  // Turn ids that are no UUID v7: the pause before the fork's turn ends the replay.
  check(written([meta, ...replay(2), ...own('turn-3', 60000)]), ['turn-3'], 'paused');
  // A fork with no turn of its own yet: everything after its session_meta is inherited; no tokens of its own.
  const bare = check(written([meta, ...replay(2)]), [], 'bare');
  assert.equal(bare.trace.costs?.tokens, undefined);
  assert.equal(bare.trace.events.length, 1);
  assert.equal(uuidV7Ms(FORK)! > uuidV7Ms(PARENT)!, true);
  assert.equal(uuidV7Ms('turn-3'), undefined);
});

test('sub-agents: thread_spawn depth and agent_path, a sub-agent\'s own workers as lanes under it, inter-agent messages between lanes', () => {
  const ROOT = '019f7000-0000-7000-8000-0000000000c1';
  const A = '019f7000-0001-7000-8000-0000000000c2';
  const B = '019f7000-0002-7000-8000-0000000000c3';
  const spawnEnd = (call: string, thread: string, nickname: string): [string, Record<string, unknown>] => ['event_msg', { type: 'collab_agent_spawn_end', call_id: call, new_thread_id: thread, new_agent_nickname: nickname, new_agent_role: 'worker' }];
  const source = (parent: string, depth: number, path: string, nickname: string) => ({ subagent: { thread_spawn: { parent_thread_id: parent, depth, agent_path: path, agent_nickname: nickname, agent_role: 'worker' } } });
  const files = new Map<string, string>([
    [
      `/s/rollout-2026-01-01T10-00-00-${ROOT}.jsonl`,
      written([
        ['session_meta', { id: ROOT, cwd: '/w', source: 'cli' }],
        started('r1'),
        prompt('plan and build'),
        fnCall('s1', 'spawn_agent', '{"task_name":"planner","message":"plan it"}'),
        spawnEnd('s1', A, 'Ada'),
        fnOutput('s1', '{"task_name":"/root/planner","nickname":"Ada"}'),
        ['inter_agent_communication', { author: '/root/planner', recipient: '/root', other_recipients: [], content: 'the plan is ready', trigger_turn: true }],
        said('all done'),
        done('r1'),
      ]),
    ],
    [
      `/s/rollout-2026-01-01T10-00-03-${A}.jsonl`,
      written([
        ['session_meta', { id: A, cwd: '/w', source: source(ROOT, 1, '/root/planner', 'Ada') }],
        started('a1'),
        ['inter_agent_communication', { author: '/root', recipient: '/root/planner', other_recipients: [], content: 'plan it', trigger_turn: true }],
        fnCall('s2', 'spawn_agent', '{"task_name":"coder","message":"write it"}'),
        spawnEnd('s2', B, 'Bo'),
        fnOutput('s2', '{"task_name":"/root/planner/coder","nickname":"Bo"}'),
        said('the plan is ready'),
        done('a1'),
      ]),
    ],
    [
      `/s/rollout-2026-01-01T10-00-05-${B}.jsonl`,
      written([
        ['session_meta', { id: B, cwd: '/w', source: source(A, 2, '/root/planner/coder', 'Bo') }],
        started('b1'),
        ['response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: JSON.stringify({ author: '/root/planner', recipient: '/root/planner/coder', other_recipients: [], content: 'write it', trigger_turn: true }) }], phase: 'commentary' }],
        said('written'),
        done('b1'),
      ]),
    ],
  ]);
  const access: FileAccess = { readText: (p) => files.get(p), list: (d) => (d === '/s' ? [...files.keys()].map((p) => p.slice(3)) : undefined) };
  const [root, a, b] = [...files.keys()];
  const l = loadTrace(files.get(root)!, root, access);
  assert.deepEqual(l.problems, []);
  assert.deepEqual(traceStats(l).agents, ['codex', 'worker:Ada', 'worker:Bo']);
  // Bo was spawned by Ada: the spawn is in Ada's lane, and Bo's answer returns to Ada.
  assert.deepEqual([event(l, 'Ada/s2').agent, event(l, 'Ada/s2').type, event(l, 'Ada/s2').to], ['worker:Ada', 'spawn', 'worker:Bo']);
  assert.ok(l.trace.edges.some((e) => e.src === 'Ada/s2' && e.type === 'spawn' && event(l, e.dst).agent === 'worker:Bo'));
  const boAnswer = l.trace.events.find((e) => e.agent === 'worker:Bo' && e.type === 'return')!;
  assert.equal(boAnswer.to, 'worker:Ada');
  // Inter-agent messages: from the author's lane to the recipient's, an input of the recipient's next output.
  const messages = l.trace.events.filter((e) => e.author_path !== undefined).map((e) => [e.agent, e.from, e.to, e.content]);
  assert.deepEqual(messages, [
    ['worker:Ada', 'codex', 'worker:Ada', 'plan it'],
    ['worker:Bo', 'worker:Ada', 'worker:Bo', 'write it'],
    ['codex', 'worker:Ada', 'codex', 'the plan is ready'],
  ]);
  assert.ok(!l.trace.events.some((e) => e.type === 'message' && e.from === 'worker:Bo' && e.content?.startsWith('{')), 'the JSON envelope is no answer of Bo');
  // A sub-agent opened alone says whose, at what depth and path.
  const alone = loadTrace(files.get(b)!, b, access);
  assert.deepEqual(alone.problems.map((p) => p.message), [`this rollout is the sub-agent Bo (worker) of thread ${A} at depth 2 (/root/planner/coder); open the parent rollout to see it in its run`]);
  assert.deepEqual([alone.trace.metadata!.spawn_depth, alone.trace.metadata!.agent_path], [2, '/root/planner/coder']);
  assert.ok(a);
});

test('a worker forked with its parent\'s history: the replay is inherited, its own first prompt comes from the parent, the parent\'s workers are not read again', () => {
  const ROOT = '019f7100-0000-7000-8000-0000000000d1';
  const W = '019f7100-0001-7000-8000-0000000000d2';
  const X = '019f7100-0002-7000-8000-0000000000d3';
  const spawnEnd = (call: string, thread: string, nickname: string): [string, Record<string, unknown>] => ['event_msg', { type: 'collab_agent_spawn_end', call_id: call, new_thread_id: thread, new_agent_nickname: nickname, new_agent_role: 'worker' }];
  const earlier: [string, Record<string, unknown>][] = [started('r0'), prompt('look around'), fnCall('sx', 'spawn_agent', '{"message":"scan"}'), spawnEnd('sx', X, 'Xi'), fnOutput('sx', `{"agent_id":"${X}","nickname":"Xi"}`), said('scanned'), done('r0')];
  const root = `/s/rollout-2026-01-01T10-00-00-${ROOT}.jsonl`;
  const w = `/s/rollout-2026-01-01T10-01-00-${W}.jsonl`;
  const x = `/s/rollout-2026-01-01T10-00-02-${X}.jsonl`;
  const files = new Map<string, string>([
    [root, written([['session_meta', { id: ROOT, cwd: '/w', source: 'cli' }], ...earlier, started('r1'), prompt('now fix it'), fnCall('sw', 'spawn_agent', '{"message":"fix the bug","fork_context":true}'), spawnEnd('sw', W, 'Wu'), fnOutput('sw', `{"agent_id":"${W}","nickname":"Wu"}`), said('fixed'), done('r1')])],
    [
      w,
      written([
        ['session_meta', { id: W, forked_from_id: ROOT, thread_source: 'subagent', cwd: '/w', source: { subagent: { thread_spawn: { parent_thread_id: ROOT, depth: 1, agent_nickname: 'Wu', agent_role: 'worker' } } } }, 0],
        ...([['session_meta', { id: ROOT, cwd: '/w', source: 'cli' }], ...earlier] as [string, Record<string, unknown>][]).map(([t, p], k): [string, Record<string, unknown>, number] => [t, p, 1 + k]),
        [...started('w1'), 5000],
        [...prompt('fix the bug'), 5001],
        [...said('bug fixed'), 5002],
        [...done('w1'), 5003],
      ]),
    ],
    [x, written([['session_meta', { id: X, cwd: '/w', source: { subagent: { thread_spawn: { parent_thread_id: ROOT, depth: 1, agent_nickname: 'Xi', agent_role: 'worker' } } } }], started('x1'), prompt('scan'), said('scanned'), done('x1')])],
  ]);
  const access: FileAccess = { readText: (p) => files.get(p), list: (d) => (d === '/s' ? [...files.keys()].map((p) => p.slice(3)) : undefined) };
  const l = loadTrace(files.get(root)!, root, access);
  assert.deepEqual(traceStats(l).agents, ['codex', 'worker:Xi', 'worker:Wu']);
  assert.equal((l.trace.metadata as { child_rollouts: string[] }).child_rollouts.filter((p) => p === x).length, 1, 'Xi read once, as the root\'s worker');
  assert.ok(!l.trace.events.some((e) => e.id.startsWith('Wu/Xi/')), 'the replayed spawn of Xi is no spawn of Wu');
  const wu = l.trace.events.filter((e) => e.agent === 'worker:Wu');
  assert.deepEqual(wu.map((e) => [e.id, e.type, e.from]), [
    ['Wu/inherited:L1', 'message', 'harness'],
    ['Wu/user:L10', 'message', 'codex'],
    ['Wu/msg:L11', 'return', 'worker:Wu'],
    ['Wu/stop:w1', 'stop', undefined],
  ]);
  assert.ok(l.trace.edges.some((e) => e.src === 'sw' && e.dst === 'Wu/user:L10' && e.type === 'spawn'), 'the spawn points at the worker\'s own first event');
});
