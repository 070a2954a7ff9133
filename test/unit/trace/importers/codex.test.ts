import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectFormat, loadTrace } from '../../../../src/trace/formats';
import { originOfId, type LoadedTrace } from '../../../../src/trace/model';
import { TraceSchema, type TraceEvent } from '../../../../src/trace/schema';
import { traceStats } from '../../../../src/trace/stats';
import { analyzeTrace } from '../../../../src/analysis';
import { abortReason, isCodexText } from '../../../../src/trace/importers/codex';
import { tokenTotals } from '../../../../src/trace/tokens';
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
      ['orchestrator_decision', undefined, 'Summary of the work so far.', 520],
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
