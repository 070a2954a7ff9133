import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { detectFormat, loadTrace, type FileAccess } from '../../../../src/trace/formats';
import { originOfId, type LoadedTrace } from '../../../../src/trace/model';
import { nodeFileAccess } from '../../../../src/trace/node-files';
import { TraceSchema, type TraceEvent } from '../../../../src/trace/schema';
import { traceStats } from '../../../../src/trace/stats';
import { isClaudeCodeText, mapStopReason, usageTokens } from '../../../../src/trace/importers/claude-code';
import { tokenTotals } from '../../../../src/trace/tokens';
import '../../../../src/trace/importers';
/**
 * Problems other than the one info that lists what was read as its own kind (asserted in
 * cases-transcripts.test.ts and below).
 */
const problemsOf = (l: LoadedTrace) => l.problems.filter((p) => !(p.severity === 'info' && p.message.startsWith('read as their own kinds:')));
import { fixture, fixturePath } from '../../helpers';

const SESSION = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const MAIN = fixturePath('claude-code', `${SESSION}.jsonl`);
const SUB = (id: string) => fixturePath('claude-code', SESSION, 'subagents', `agent-${id}.jsonl`);
const TASK_1 = 'toolu_01Y64XEaRvUYinzv9rW9qZXd';
const TASK_2 = 'toolu_013mmyY3eDBg4Ji6oAszYt6p';

/** Loads a fixture with its sibling files (`files` null: none). */
function open(path: string, files: FileAccess | null = nodeFileAccess, text = fs.readFileSync(path, 'utf8')): LoadedTrace {
  return loadTrace(text, path, files ?? undefined);
}

const byType = (l: LoadedTrace, type: string) => l.trace.events.filter((e) => e.type === type);
const edgesOf = (l: LoadedTrace, type: string) => l.trace.edges.filter((e) => e.type === type);
const event = (l: LoadedTrace, id: string): TraceEvent => {
  const e = l.trace.events.find((x) => x.id === id);
  assert.ok(e, `no event ${id}`);
  return e;
};
const firstOfLane = (l: LoadedTrace, lane: string) => l.trace.events.find((e) => e.agent === lane)!;

/** Every event's origin lies on the line of the record it names, in the file it names. */
function assertOriginsOnRecords(l: LoadedTrace, opened: string): number {
  const lines = new Map<string, string[]>();
  let checked = 0;
  for (const e of l.trace.events) {
    const o = originOfId(l, e.id);
    assert.ok(o, `event ${e.id} has no origin`);
    const file = o.file ?? opened;
    if (!lines.has(file)) lines.set(file, fs.readFileSync(file, 'utf8').split('\n'));
    const line = lines.get(file)![o.record];
    assert.ok(line !== undefined && line.trim() !== '', `${e.id}: record ${o.record} is not a line of ${file}`);
    assert.equal(o.range.start.line, o.record, `${e.id}: range starts on another line`);
    assert.equal(o.range.end.line, o.record, `${e.id}: range ends on another line`);
    assert.ok(o.range.start.character >= 0 && o.range.start.character <= o.range.end.character && o.range.end.character <= line.length, `${e.id}: range outside its line`);
    assert.equal(typeof JSON.parse(line), 'object');
    checked++;
  }
  return checked;
}

test('the fa812bfe session opens with its two Explore sub-agents and the compaction agent as lanes', () => {
  const l = open(MAIN);
  assert.equal(l.format, 'claude-code');
  assert.deepEqual(problemsOf(l), []);
  const s = traceStats(l);
  assert.deepEqual(s.agents, ['main', 'Explore:a93ccab', 'Explore:aa84377', 'compact:acompact-70d8e7']);
  // 33 prompts and answers (the compaction summary is inside its compaction event) plus 13 meta
  // rows (hook context the harness injected), their own kind.
  assert.deepEqual(s.by_type, { message: 46, tool_call: 67, tool_result: 69, spawn: 2, delegate: 2, return: 3, stop: 6, orchestrator_decision: 1 });
  assert.equal(l.trace.events.filter((e) => e.kind === 'meta').length, 13);
  assert.equal(s.events, 196);
  assert.match(l.problems.find((p) => p.severity === 'info')!.message, /^read as their own kinds: .*1 compaction \(its summary inside it\), 13 meta rows \(injected by the harness\)/);
  assert.equal(s.edges, 78); // + the compaction joined to the chain it compacted (logicalParentUuid)
  assert.equal(l.trace.trace_id, SESSION);
  assert.ok(TraceSchema.safeParse(l.trace).success);
  const agents = (l.trace.metadata as { agents: Record<string, { file?: string; spawned_by?: string }> }).agents;
  assert.equal(agents['Explore:a93ccab'].file, SUB('a93ccab'));
  assert.equal(agents['Explore:a93ccab'].spawned_by, TASK_1);
  assert.equal(agents['Explore:aa84377'].spawned_by, TASK_2);
});

test('each Task call is a spawn and a delegate linked to its Explore sub-agent, whose final answer returns to the Task result', () => {
  const l = open(MAIN);
  for (const [call, lane, file, lastLine] of [
    [TASK_1, 'Explore:a93ccab', SUB('a93ccab'), 61],
    [TASK_2, 'Explore:aa84377', SUB('aa84377'), 51],
  ] as const) {
    const spawn = event(l, `${call}:spawn`);
    assert.equal(spawn.type, 'spawn');
    assert.equal(spawn.to, lane);
    assert.equal(spawn.role, 'Explore');
    const delegate = event(l, call);
    assert.equal(delegate.type, 'delegate');
    assert.equal(delegate.to, lane);
    assert.equal(delegate.parent, spawn.id);
    const first = firstOfLane(l, lane);
    assert.equal(first.content, delegate.content, 'the sub-agent starts from the delegated prompt');
    assert.deepEqual(edgesOf(l, 'spawn').filter((e) => e.src === spawn.id), [{ src: spawn.id, dst: first.id, type: 'spawn' }]);
    assert.deepEqual(edgesOf(l, 'message').filter((e) => e.src === delegate.id), [{ src: delegate.id, dst: first.id, type: 'message' }]);
    const ret = byType(l, 'return').find((e) => e.agent === lane)!;
    assert.equal(ret.to, 'main');
    assert.equal(originOfId(l, ret.id)!.file, file);
    assert.equal(originOfId(l, ret.id)!.record, lastLine);
    assert.deepEqual(edgesOf(l, 'return').filter((e) => e.src === ret.id), [{ src: ret.id, dst: `${call}:result`, type: 'return' }]);
    const result = event(l, `${call}:result`);
    assert.equal(result.agent, 'main');
    assert.deepEqual(result.causes, [call, ret.id]);
    assert.ok(ret.t <= result.t);
    assert.ok(first.t >= delegate.t);
  }
  assert.equal(edgesOf(l, 'spawn').length, 2, 'the two Task spawns: the compaction is no spawned sub-agent');
  assert.equal(edgesOf(l, 'message').length, 3, 'the two delegated prompts and the conversation handed to the compaction');
  assert.equal(edgesOf(l, 'return').length, 3);
});

test('tool_use and tool_result pair by id, with a tool_dependency edge each', () => {
  const l = open(MAIN);
  const calls = [...byType(l, 'tool_call'), ...byType(l, 'delegate')];
  const results = byType(l, 'tool_result');
  assert.equal(calls.length, 69);
  assert.equal(results.length, 69);
  const deps = edgesOf(l, 'tool_dependency');
  assert.equal(deps.length, 69);
  for (const c of calls) {
    const r = event(l, `${c.id}:result`);
    assert.equal(r.agent, c.agent, 'the result lands in the calling lane');
    assert.equal(r.tool, c.tool);
    assert.ok(r.causes?.includes(c.id));
    assert.equal(deps.filter((d) => d.src === c.id && d.dst === r.id).length, 1);
  }
  const perLane = (lane: string) => byType(l, 'tool_call').filter((e) => e.agent === lane).length;
  assert.deepEqual([perLane('main'), perLane('Explore:a93ccab'), perLane('Explore:aa84377')], [21, 25, 21]);
});

test('turn ends and sub-agent ends are stop events with reasons', () => {
  const l = open(MAIN);
  const stops = byType(l, 'stop').map((e) => [e.agent, e.reason, originOfId(l, e.id)!.record]);
  assert.deepEqual(stops, [
    ['Explore:a93ccab', 'task_complete', 61],
    ['main', 'task_complete', 33],
    ['main', 'task_complete', 37],
    ['Explore:aa84377', 'task_complete', 51],
    ['compact:acompact-70d8e7', 'task_complete', 14],
    ['main', 'task_complete', 73],
  ]);
  // The main lane's stops sit on the turn-end records (stop_hook_summary).
  const lines = fixture('claude-code', `${SESSION}.jsonl`).split('\n');
  for (const line of [33, 37, 73]) assert.equal(JSON.parse(lines[line]).subtype, 'stop_hook_summary');
});

test('an assistant stop_reason is the stop of its turn, mapped to a standard reason', () => {
  const lines = fixture('claude-code', `${SESSION}.jsonl`).split('\n');
  // The last assistant text of turn 1 (line 32) as an older Claude Code wrote it, with its stop_reason.
  const rec = JSON.parse(lines[32]);
  assert.equal(rec.type, 'assistant');
  rec.message.stop_reason = 'max_tokens';
  lines[32] = JSON.stringify(rec);
  const l = open(MAIN, nodeFileAccess, lines.join('\n'));
  const main = byType(l, 'stop').filter((e) => e.agent === 'main');
  assert.deepEqual(
    main.map((e) => [e.reason, e.decided_by, originOfId(l, e.id)!.record]),
    [
      ['budget_exhausted', 'model', 32],
      ['task_complete', 'main', 37],
      ['task_complete', 'main', 73],
    ],
    'no second stop from the turn-end records of the same turn',
  );
  assert.deepEqual(
    ['end_turn', 'stop_sequence', 'max_tokens', 'model_context_window_exceeded', 'refusal', 'tool_use', 'pause_turn', null, 'something_new'].map(mapStopReason),
    ['task_complete', 'task_complete', 'budget_exhausted', 'budget_exhausted', 'error', undefined, undefined, undefined, 'unknown'],
  );
});

test('compaction is marked and kept visible, with the compaction agent returning the summary', () => {
  const l = open(MAIN);
  const marked = l.trace.events.filter((e) => (e as Record<string, unknown>).compaction === true);
  assert.deepEqual(
    marked.map((e) => [e.type, e.agent, originOfId(l, e.id)!.record]),
    [['orchestrator_decision', 'main', 61]],
  );
  // The summary row (record 62) is inside the compaction event, not a user message.
  assert.equal(marked[0].kind, 'compaction');
  assert.equal(marked[0].summary_record, 62);
  assert.equal(marked[0].content_is_summary, true);
  const boundary = marked[0] as Record<string, unknown>;
  assert.equal(boundary.compaction_trigger, 'auto');
  assert.equal(boundary.pre_tokens, 167117);
  const ret = byType(l, 'return').find((e) => e.agent === 'compact:acompact-70d8e7')!;
  assert.deepEqual(edgesOf(l, 'return').filter((e) => e.src === ret.id), [{ src: ret.id, dst: marked[0].id, type: 'return' }]);
  assert.equal((l.trace.metadata as { compactions: number }).compactions, 1);
  const stop = l.trace.events.find((e) => e.type === 'stop' && e.agent === 'compact:acompact-70d8e7')!;
  assert.equal(stop.detail, 'the context compaction returned its summary', 'a compaction is no sub-agent with a final answer');
});

test('the compaction agent\'s file opens with rows of the session it forks (hook reminders): they are main\'s, at their own times, and the compaction lane begins with its task', () => {
  // the whole session (the trimmed one under claude-code/ lacks the rows the reminders' parents are)
  const full = fixturePath('claude-code-session', `${SESSION}.jsonl`);
  const l = open(full);
  const lane = 'compact:acompact-70d8e7';
  const own = l.trace.events.filter((e) => e.agent === lane);
  const task = own[0];
  assert.equal(task.type, 'message');
  assert.notEqual(task.kind, 'meta');
  assert.ok(own.every((e) => e.t >= task.t), `nothing in the compaction lane before its task: ${own.map((e) => e.t)}`);
  const fromItsFile = l.trace.events.filter((e) => originOfId(l, e.id)?.file === fixturePath('claude-code-session', SESSION, 'subagents', 'agent-acompact-70d8e7.jsonl'));
  const carried = fromItsFile.filter((e) => e.kind === 'meta');
  assert.equal(carried.length, 13, 'the 13 hook reminders of its file');
  assert.ok(carried.every((e) => e.agent === 'main' && e.t < task.t), 'read into main, before the task');
  // main's conversation is handed to it (a message, not a spawn: a compaction is no sub-agent)
  assert.deepEqual(edgesOf(l, 'spawn').filter((e) => e.dst === task.id), []);
  const handed = edgesOf(l, 'message').find((e) => e.dst === task.id)!;
  assert.equal(event(l, handed.src).agent, 'main');
  // main's own reading state is unchanged: its last stop is still the last turn end
  assert.equal(byType(l, 'stop').filter((e) => e.agent === 'main').pop()!.t, Math.max(...l.trace.events.filter((e) => e.agent === 'main' && e.type === 'stop').map((e) => e.t)));
});

test('usage becomes tokens: one usage by kind per API message, on its model call; its own tokens are the output', () => {
  const l = open(MAIN);
  const sum = l.trace.events.reduce((s, e) => s + (e.tokens ?? 0), 0);
  assert.equal(sum, l.trace.costs?.output_tokens);
  assert.equal(tokenTotals(l.trace.events).total, 2053418);
  assert.equal(l.trace.costs?.tokens, 2053418);
  // The final answer of the first sub-agent carries the final usage its Task result reports.
  const lines = fixture('claude-code', `${SESSION}.jsonl`).split('\n');
  const result = JSON.parse(lines[14]);
  assert.equal(usageTokens(result.toolUseResult.usage), result.toolUseResult.totalTokens);
  const answer = byType(l, 'return').find((e) => e.agent === 'Explore:a93ccab')!;
  assert.equal(tokenTotals([answer]).total, 49100);
  assert.equal(answer.tokens, result.toolUseResult.usage.output_tokens);
  assert.equal(result.toolUseResult.totalTokens, 49100);
});

test('events from sub-agent files carry the file; problems in them carry it too, and the rest loads', () => {
  const l = open(MAIN);
  for (const e of l.trace.events) {
    const file = originOfId(l, e.id)!.file;
    if (e.agent === 'Explore:a93ccab') assert.equal(file, SUB('a93ccab'));
    else if (e.agent === 'main') assert.equal(file, undefined);
  }
  // The second sub-agent's file cut off in its last line, and a broken line in the first one.
  const cut = fs.readFileSync(SUB('aa84377'), 'utf8');
  const cutText = cut.slice(0, cut.lastIndexOf('\n', cut.length - 2) + 41);
  const a93 = fs.readFileSync(SUB('a93ccab'), 'utf8').split('\n');
  a93[5] = '{"type":"user",';
  const files: FileAccess = {
    list: (dir) => nodeFileAccess.list(dir),
    readText: (p) => (p === SUB('aa84377') ? cutText : p === SUB('a93ccab') ? a93.join('\n') : nodeFileAccess.readText(p)),
  };
  const damaged = open(MAIN, files);
  // Exact problems: positioned, in their files.
  const positioned = problemsOf(damaged).map((p) => ({ severity: p.severity, file: p.file, line: p.range.start.line, character: p.range.start.character }));
  assert.deepEqual(positioned, [
    { severity: 'error', file: SUB('a93ccab'), line: 5, character: 15 },
    { severity: 'error', file: SUB('aa84377'), line: 51, character: 14 },
    { severity: 'warning', file: SUB('a93ccab'), line: 4, character: 0 },
  ]);
  assert.match(problemsOf(damaged)[2].message, /^1 tool call has no result in the file: /);
  assert.match(problemsOf(damaged)[1].message, /^last line is cut off/);
  assert.deepEqual(traceStats(damaged).agents, ['main', 'Explore:a93ccab', 'Explore:aa84377', 'compact:acompact-70d8e7']);
  // The cut-off sub-agent lost its final answer: the Task result still carries it.
  const ret = byType(damaged, 'return').find((e) => e.agent === 'Explore:aa84377')!;
  assert.equal(ret.id, `${TASK_2}:return`);
  assert.equal(originOfId(damaged, ret.id)!.file, undefined);
  assert.equal(originOfId(damaged, ret.id)!.record, 47);
});

test('without its sub-agent files the session loads; sub-agent lanes come from the Task results', () => {
  const l = open(MAIN, null);
  assert.deepEqual(traceStats(l).agents, ['main', 'Explore:a93ccab', 'Explore:aa84377']);
  assert.deepEqual(
    byType(l, 'return').map((e) => [e.id, e.agent, originOfId(l, e.id)!.record]),
    [
      [`${TASK_1}:return`, 'Explore:a93ccab', 14],
      [`${TASK_2}:return`, 'Explore:aa84377', 47],
    ],
  );
  assert.equal(edgesOf(l, 'return').length, 2);
  assert.deepEqual(problemsOf(l), []);
});

test('a sub-agent with no file is built from the agent_progress records that mirror it, and the missing transcript is said', () => {
  const path = fixturePath('claude-code', 'subagent.jsonl');
  const l = open(path);
  // the session names the agent (its agentId) but its transcript was not copied beside it: said once, as a warning
  assert.deepEqual(
    problemsOf(l).map((p) => [p.severity, p.message]),
    [['warning', '1 sub-agent transcript is not beside the session (subagent/subagents/agent-<id>.jsonl): afb92ff; its lane holds only what this file records of it, not its own records and tokens']],
  );
  const s = traceStats(l);
  assert.deepEqual(s.agents, ['main', 'Plan:afb92ff']);
  const lane = l.trace.events.filter((e) => e.agent === 'Plan:afb92ff');
  assert.deepEqual(
    Object.entries(lane.reduce<Record<string, number>>((m, e) => ((m[e.type] = (m[e.type] ?? 0) + 1), m), {})),
    [
      ['message', 1],
      ['tool_call', 9],
      ['tool_result', 9],
      ['return', 1],
      ['stop', 1],
    ],
  );
  const lines = fixture('claude-code', 'subagent.jsonl').split('\n');
  for (const e of lane) {
    const o = originOfId(l, e.id)!;
    assert.equal(o.file, undefined);
    const rec = JSON.parse(lines[o.record]);
    if (e.type === 'return' || e.type === 'stop') assert.equal(rec.type, 'user', 'the return is read from the Task result');
    else assert.equal(rec.data.type, 'agent_progress');
  }
  const call = 'toolu_01Cz2Pnv7qNcnK1ZiocxWhQX';
  assert.deepEqual(edgesOf(l, 'spawn'), [{ src: `${call}:spawn`, dst: lane[0].id, type: 'spawn' }]);
  assert.deepEqual(edgesOf(l, 'return'), [{ src: `${call}:return`, dst: `${call}:result`, type: 'return' }]);
  assert.deepEqual(
    s.stops.map((x) => [x.agent, x.reason]),
    [
      ['Plan:afb92ff', 'task_complete'],
      ['main', 'user_abort'],
      ['main', 'task_complete'],
    ],
  );
});

test('an interrupted turn stops with user_abort', () => {
  const path = fixturePath('claude-code', 'short.jsonl');
  const l = open(path);
  assert.deepEqual(problemsOf(l).map((p) => [p.severity, p.range.start.line, p.message]), [['info', 0, '4 records of 2 kinds not shown: progress/hook_progress 3, file-history-snapshot 1']]);
  const s = traceStats(l);
  // The /model local command (a system record and its output) is one local_command event.
  assert.deepEqual(s.by_type, { message: 3, tool_call: 2, tool_result: 2, stop: 1 });
  assert.deepEqual(l.trace.events.filter((e) => e.kind === 'local_command').map((e) => [e.command, e.stdout]), [['/model', 'Kept model as Default (recommended)']]);
  assert.deepEqual(s.stops.map((x) => [x.reason, originOfId(l, x.id)!.record]), [['user_abort', 12]]);
  assert.equal(edgesOf(l, 'tool_dependency').length, 2);
});

test('every event range lies on the line of the record it came from (all fixtures, sub-agent files included)', () => {
  const counts = [MAIN, fixturePath('claude-code', 'subagent.jsonl'), fixturePath('claude-code', 'short.jsonl'), SUB('a93ccab')].map((p) => assertOriginsOnRecords(open(p), p));
  assert.deepEqual(counts, [196, 66, 8, 63]);
});

test('cut-off last lines and bad lines of the session are positioned problems; the rest loads', () => {
  const text = fixture('claude-code', 'short.jsonl');
  const lines = text.split('\n');
  lines[7] = lines[7].slice(0, 30); // a broken line in the middle
  const cut = lines.slice(0, 14).join('\n') + '\n' + lines[14].slice(0, 50); // and a cut-off last line
  const l = loadTrace(cut, 'short.jsonl');
  assert.equal(l.format, 'claude-code');
  assert.deepEqual(
    problemsOf(l).map((p) => [p.severity, p.range.start.line, p.range.start.character, p.message.replace(/ \(.*$/, '').replace(/:.*$/, '')]),
    [
      ['error', 7, 14, 'JSON syntax error'],
      ['error', 14, 14, 'last line is cut off'],
      ['warning', 10, 0, 'tool_result for "toolu_0116Hyi5v8ut7Ffb7d8qV1Sc", which no tool_use of this session started'],
      ['info', 0, 0, '4 records of 2 kinds not shown'],
    ],
  );
  assert.deepEqual(traceStats(l).by_type, { message: 3, tool_call: 1, tool_result: 2, stop: 1 }); // one is the /model local command
});

test('long content is kept whole (the UI collapses it), never clipped', () => {
  const lines = fixture('claude-code', 'short.jsonl').split('\n');
  const rec = JSON.parse(lines[3]);
  rec.message.content = 'x'.repeat(50_000) + 'END';
  lines[3] = JSON.stringify(rec);
  const l = loadTrace(lines.join('\n'), 'short.jsonl');
  const prompt = l.trace.events.find((e) => e.from === 'user')!;
  assert.equal(prompt.content, 'x'.repeat(50_000) + 'END');
  assert.equal((prompt as Record<string, unknown>).content_length, undefined);
});

test('older sessions with sub-agent messages inline (isSidechain) get a lane per sidechain', () => {
  const main = fixture('claude-code', `${SESSION}.jsonl`).split('\n');
  const side = fs.readFileSync(SUB('a93ccab'), 'utf8').trim().split('\n');
  const merged = [...main.slice(0, 14), ...side, ...main.slice(14)].join('\n');
  const l = loadTrace(merged, 'old-session.jsonl');
  assert.deepEqual(traceStats(l).agents, ['main', 'Explore:a93ccab', 'Explore:aa84377']);
  const ret = byType(l, 'return').find((e) => e.agent === 'Explore:a93ccab')!;
  assert.equal(originOfId(l, ret.id)!.record, 14 + 61);
  assert.deepEqual(edgesOf(l, 'return').filter((e) => e.src === ret.id), [{ src: ret.id, dst: `${TASK_1}:result`, type: 'return' }]);
  assert.equal(l.trace.events.filter((e) => e.agent === 'Explore:a93ccab' && e.type === 'tool_call').length, 25);
});

test('detection is by content, not by file name', () => {
  const text = fixture('claude-code', 'short.jsonl');
  assert.equal(isClaudeCodeText(text), true);
  assert.equal(detectFormat(text, 'notes.txt')?.id, 'claude-code');
  assert.equal(detectFormat(fixture('claude-code', SESSION, 'subagents', 'agent-a93ccab.jsonl'), 'x.jsonl')?.id, 'claude-code');
  assert.equal(isClaudeCodeText(fixture('codex', 'rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl')), false);
  assert.equal(isClaudeCodeText('{"id":"e1","t":0,"type":"message","agent":"a"}\n'), false);
  assert.equal(detectFormat('{"id":"e1","t":0,"type":"message","agent":"a"}\n', `${SESSION}.jsonl`)?.id, 'otrace-jsonl');
});

test('an Agent call (the newer name of Task) links the same way; an asynchronous agent returns to its task-notification', () => {
  const ls = fixture('claude-code', `${SESSION}.jsonl`).split('\n');
  ls[13] = ls[13].replace('"name":"Task"', '"name":"Agent"');
  const result = JSON.parse(ls[14]);
  result.message.content[0].content = [{ type: 'text', text: 'Async agent launched successfully. agentId: a93ccab' }];
  result.toolUseResult = { isAsync: true, status: 'async_launched', agentId: 'a93ccab' };
  ls[14] = JSON.stringify(result);
  const notification = `<task-notification>\n<task-id>a93ccab</task-id>\n<tool-use-id>${TASK_1}</tool-use-id>\n<status>completed</status>\n</task-notification>`;
  ls.splice(15, 0, JSON.stringify({ parentUuid: result.uuid, isSidechain: false, sessionId: SESSION, type: 'user', message: { role: 'user', content: notification }, uuid: 'notification-1', timestamp: '2026-02-12T15:37:40.000Z' }));
  const l = open(MAIN, nodeFileAccess, ls.join('\n'));
  assert.deepEqual(problemsOf(l), []);
  assert.equal(event(l, TASK_1).tool, 'Agent');
  assert.equal(event(l, `${TASK_1}:spawn`).to, 'Explore:a93ccab');
  const ret = byType(l, 'return').find((e) => e.agent === 'Explore:a93ccab')!;
  assert.deepEqual(edgesOf(l, 'return').filter((e) => e.src === ret.id), [{ src: ret.id, dst: 'notification-1', type: 'return' }]);
  assert.deepEqual(event(l, 'notification-1').causes, [ret.id]);
  assert.equal(event(l, 'notification-1').from, 'harness');
  assert.deepEqual(event(l, `${TASK_1}:result`).causes, [TASK_1], 'the launch result is not the return');
});

test('a turn that ends in text and is followed by the next prompt, with no stop recorded, stops there (inferred)', () => {
  const ls = fixture('claude-code', `${SESSION}.jsonl`).split('\n');
  assert.deepEqual([JSON.parse(ls[33]).subtype, JSON.parse(ls[34]).subtype], ['stop_hook_summary', 'turn_duration']);
  ls.splice(33, 2);
  const l = open(MAIN, nodeFileAccess, ls.join('\n'));
  const main = byType(l, 'stop').filter((e) => e.agent === 'main');
  assert.deepEqual(
    main.map((e) => [e.reason, originOfId(l, e.id)!.record, e.detail?.startsWith('inferred')]),
    [
      ['task_complete', 32, true],
      ['task_complete', 35, false],
      ['task_complete', 71, false],
    ],
  );
});

test('an API error message ends the turn with error (budget_exhausted for a context limit)', () => {
  for (const [text, reason] of [
    ['API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}', 'error'],
    ['Prompt is too long', 'budget_exhausted'],
  ] as const) {
    const ls = fixture('claude-code', 'short.jsonl').split('\n');
    ls[12] = JSON.stringify({ parentUuid: null, isSidechain: false, sessionId: '55604662-cf2a-4331-851a-ec234028f8ca', type: 'assistant', uuid: 'api-error-1', timestamp: '2026-02-10T21:12:02.500Z', isApiErrorMessage: true, message: { id: 'e1', model: '<synthetic>', role: 'assistant', type: 'message', content: [{ type: 'text', text }], stop_reason: 'stop_sequence', usage: { input_tokens: 0, output_tokens: 0 } } });
    const l = loadTrace(ls.join('\n'), 'short.jsonl');
    assert.deepEqual(
      byType(l, 'stop').map((e) => [e.reason, e.decided_by, originOfId(l, e.id)!.record, e.content]),
      [[reason, 'api', 12, text]],
    );
  }
});

test('a sub-agent file that no record names is linked to the call whose prompt it starts with', () => {
  const ls = fixture('claude-code', `${SESSION}.jsonl`).split('\n');
  const result = JSON.parse(ls[14]);
  delete result.toolUseResult.agentId;
  result.message.content[0].content = result.message.content[0].content.filter((b: { text: string }) => !b.text.startsWith('agentId:'));
  ls[14] = JSON.stringify(result);
  assert.doesNotMatch(ls[14], /a93ccab/);
  const l = open(MAIN, nodeFileAccess, ls.join('\n'));
  assert.deepEqual(problemsOf(l), []);
  assert.deepEqual(traceStats(l).agents, ['main', 'Explore:a93ccab', 'Explore:aa84377', 'compact:acompact-70d8e7']);
  const ret = byType(l, 'return').find((e) => e.agent === 'Explore:a93ccab')!;
  assert.deepEqual(edgesOf(l, 'return').filter((e) => e.src === ret.id), [{ src: ret.id, dst: `${TASK_1}:result`, type: 'return' }]);
  assert.equal(edgesOf(l, 'spawn').filter((e) => e.src === `${TASK_1}:spawn`).length, 1);
});

test('the shared assembler keeps ids unique and puts the file on cross-record problems of another file', async () => {
  const { TraceAssembler, lineRange } = await import('../../../../src/trace/importers/jsonl-records');
  const problems: LoadedTrace['problems'] = [];
  const out = new TraceAssembler(problems);
  const sub = '/s/subagents/agent-x.jsonl';
  assert.equal(out.add({ id: 'a', t: 2, type: 'message', agent: 'main' }, { range: lineRange(3, 10), record: 3 }), 'a');
  assert.equal(out.add({ id: 'a', t: 1, type: 'message', agent: 'x' }, { range: lineRange(7, 5), record: 7, file: sub }), 'a#2');
  out.edge('a#2', 'gone', 'return');
  const l = out.finish('test', {});
  assert.deepEqual(l.trace.events.map((e) => e.id), ['a#2', 'a'], 'ordered by time');
  assert.deepEqual(originOfId(l, 'a#2'), { range: lineRange(7, 5), record: 7, file: sub });
  assert.deepEqual(
    problems.map((p) => [p.severity, p.file, p.range.start.line, p.message]),
    [['error', sub, 7, 'edge dst "gone" is not an event of this trace']],
  );
});

// ---- Claude Code 2.1.x layouts (test/fixtures/claude-code-layouts, see its SOURCE.md) ----

const LAYOUT = (n: string) => fixturePath('claude-code-layouts', `0f1e2d3c-0000-4000-8000-0000000a${n}.jsonl`);
const LAYOUT_DIR = (n: string, ...parts: string[]) => fixturePath('claude-code-layouts', `0f1e2d3c-0000-4000-8000-0000000a${n}`, ...parts);
const shown = (l: LoadedTrace) => l.problems.map((p) => `${p.file ? `${p.file.slice(p.file.lastIndexOf('/') + 1)}:` : ''}${p.range.start.line + 1}:${p.range.start.character + 1}: ${p.severity}: ${p.message}`);
/** The real files, with `hide` (paths) absent and `replace` (path -> text) read instead. */
const filesWith = (hide: (p: string) => boolean, replace: Record<string, string> = {}): FileAccess => ({
  list: (dir) => nodeFileAccess.list(dir)?.filter((n) => !hide(`${dir}/${n}`)),
  readText: (p) => (hide(p) ? undefined : (replace[p] ?? nodeFileAccess.readText(p))),
});

test('a sidecar (agent-<id>.meta.json) links its sub-agent to its Agent call exactly, where the same prompt would pick the other call; its type, description and spawn depth are kept', () => {
  const l = open(LAYOUT('5101'));
  assert.deepEqual(shown(l), []);
  const ledger = 'code-reviewer:a5101aaaaaaaaaaa1';
  const billing = 'code-reviewer:a5101bbbbbbbbbbb2';
  assert.equal(event(l, 'toolu_fx_5101a').to, billing, 'the sidecar of agent-…bbb2 names toolu_fx_5101a');
  assert.equal(event(l, 'toolu_fx_5101b').to, ledger);
  assert.deepEqual(edgesOf(l, 'spawn').map((e) => [e.src, event(l, e.dst).agent]), [['toolu_fx_5101b:spawn', ledger], ['toolu_fx_5101a:spawn', billing]]);
  const agents = (l.trace.metadata as { agents: Record<string, Record<string, unknown>> }).agents;
  assert.deepEqual([agents[ledger].spawned_by, agents[ledger].description, agents[ledger].spawn_depth, agents[ledger].subagent_type], ['toolu_fx_5101b', 'Review ledger', 1, 'code-reviewer']);
  // Without the sidecars, today's matching: the same prompt links the first file to the first call.
  const without = open(LAYOUT('5101'), filesWith((p) => p.endsWith('.meta.json')));
  assert.equal(event(without, 'toolu_fx_5101a').to, ledger);
  // A sidecar that cannot be read: a positioned warning in it, and the agent linked without it.
  const meta = LAYOUT_DIR('5101', 'subagents', 'agent-a5101aaaaaaaaaaa1.meta.json');
  const broken = open(LAYOUT('5101'), filesWith(() => false, { [meta]: '{"agentType":"code-reviewer","toolUseId":' }));
  assert.deepEqual(shown(broken), ['agent-a5101aaaaaaaaaaa1.meta.json:1:42: warning: the sub-agent sidecar is cut off (it may still be being written); read without it']);
  assert.equal(event(broken, 'toolu_fx_5101a').to, billing, 'the other sidecar still links its agent; the rest by prompt');
  assert.equal(event(broken, 'toolu_fx_5101b').to, ledger);
});

test('a Workflow run: its agents (subagents/workflows/wf_<runId>/) are lanes spawned by the Workflow call, their reports return to the run\'s completion notification', () => {
  const l = open(LAYOUT('5102'));
  const U = (n: string) => `00000000-0000-4000-8000-5102${n}`;
  assert.deepEqual(shown(l), ["5:1: info: read as their own kinds: 1 task notification (a background call's outcome, tied to its call)"]);
  const core = 'workflow-subagent:a5102c0e00000001';
  const cli = 'workflow-subagent:a5102c1100000002';
  assert.deepEqual(traceStats(l).agents, ['main', core, cli]);
  const journal = LAYOUT_DIR('5102', 'subagents', 'workflows', 'wf_5102abcd-e01', 'journal.jsonl');
  const spawns = byType(l, 'spawn');
  assert.deepEqual(
    spawns.map((e) => [e.id, e.agent, e.to, e.tool, e.role, e.content, originOfId(l, e.id)!.file, originOfId(l, e.id)!.record]),
    [
      ['toolu_fx_5102w:spawn:a5102c0e00000001', 'main', core, 'Workflow', 'audit:core', 'package-audit: audit:core', journal, 0],
      ['toolu_fx_5102w:spawn:a5102c1100000002', 'main', cli, 'Workflow', 'audit:cli', 'package-audit: audit:cli', journal, 1],
    ],
    'spawned by the call, each where the journal records its dispatch',
  );
  const done = event(l, U('0000005'));
  assert.deepEqual([done.type, done.from, done.tool], ['tool_result', 'harness', 'Workflow']);
  for (const [spawn, lane] of [[spawns[0], core], [spawns[1], cli]] as const) {
    const first = firstOfLane(l, lane);
    assert.ok(first.t >= spawn.t && edgesOf(l, 'spawn').some((e) => e.src === spawn.id && e.dst === first.id));
    const ret = byType(l, 'return').find((e) => e.agent === lane)!;
    assert.equal(ret.to, 'main');
    assert.ok(edgesOf(l, 'return').some((e) => e.src === ret.id && e.dst === done.id), `${lane} returns to the completion`);
    assert.equal(byType(l, 'stop').filter((e) => e.agent === lane).length, 1);
  }
  const agents = (l.trace.metadata as { agents: Record<string, { parent?: string; workflow?: Record<string, string> }> }).agents;
  assert.deepEqual(agents[core].workflow, { run_id: 'wf_5102abcd-e01', name: 'package-audit', label: 'audit:core', phase: 'Audit', launched_by: 'toolu_fx_5102w' });
  assert.equal(agents[core].parent, 'main');
  assert.deepEqual(byType(l, 'stop').filter((e) => e.agent === 'main').map((e) => e.background_running), [['toolu_fx_5102w'], undefined]);
  // A run no call of the session names: its agents are still lanes (under main), and one info says so.
  const lines = fixture('claude-code-layouts', '0f1e2d3c-0000-4000-8000-0000000a5102.jsonl').split('\n');
  const result = JSON.parse(lines[2]);
  delete result.toolUseResult;
  result.message.content[0].content = 'Workflow launched in background.';
  lines[2] = JSON.stringify(result);
  const unlinked = open(LAYOUT('5102'), nodeFileAccess, lines.join('\n'));
  assert.deepEqual(traceStats(unlinked).agents, ['main', core, cli]);
  assert.deepEqual(byType(unlinked, 'spawn'), []);
  assert.ok(shown(unlinked).includes('agent-a5102c0e00000001.jsonl:1:1: info: 1 workflow run is not tied to a Workflow call of this session (its agents are shown under main): wf_5102abcd-e01'), shown(unlinked).join('\n'));
});

test("a Workflow run's journal results: each agent's return carries the value it handed back; an agent ending on a structured-output call returns it from the journal", () => {
  const l = open(LAYOUT('5102'));
  const cli = 'workflow-subagent:a5102c1100000002';
  const values = Object.fromEntries(byType(l, 'return').map((e) => [e.agent, (e as Record<string, unknown>).returned_value]));
  assert.deepEqual(values, { 'workflow-subagent:a5102c0e00000001': { package: 'core', unused: ['formatCents'] }, [cli]: { package: 'cli', unused: [] } });
  // the cli agent's transcript ends on a structured-output call instead of its final text
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-wf-'));
  try {
    const session = path.join(dir, path.basename(LAYOUT('5102')));
    fs.copyFileSync(LAYOUT('5102'), session);
    fs.cpSync(LAYOUT_DIR('5102'), path.join(dir, path.basename(LAYOUT_DIR('5102'))), { recursive: true });
    const agentFile = path.join(dir, path.basename(LAYOUT_DIR('5102')), 'subagents', 'workflows', 'wf_5102abcd-e01', 'agent-a5102c1100000002.jsonl');
    const lines = fs.readFileSync(agentFile, 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1]);
    last.message.content = [{ type: 'tool_use', id: 'toolu_fx_5102so', name: 'StructuredOutput', input: { package: 'cli', unused: [] } }];
    last.message.stop_reason = 'tool_use';
    lines[lines.length - 1] = JSON.stringify(last);
    fs.writeFileSync(agentFile, lines.join('\n') + '\n');
    const cut = open(session);
    const ret = byType(cut, 'return').find((e) => e.agent === cli);
    assert.ok(ret, 'the cli agent returns its journal result');
    assert.deepEqual([ret.id, ret.to, ret.content], [`${cli}:journal-result`, 'main', '{"package":"cli","unused":[]}']);
    const journal = path.join(dir, path.basename(LAYOUT_DIR('5102')), 'subagents', 'workflows', 'wf_5102abcd-e01', 'journal.jsonl');
    assert.deepEqual([originOfId(cut, ret.id)!.file, originOfId(cut, ret.id)!.record], [journal, 3]);
    assert.ok(edgesOf(cut, 'return').some((e) => e.src === ret.id && e.dst === event(cut, '00000000-0000-4000-8000-51020000005').id), 'it returns to the completion notification');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a finished sub-agent resumed with SendMessage: the resume is its caller\'s message, each report a return (the first to the call\'s result, the second to the notification)', () => {
  const l = open(LAYOUT('5103'));
  const M = (n: string) => `00000000-0000-4000-8000-5103000${n}`;
  const S = (n: string) => `00000000-0000-4000-8000-5103100${n}`;
  const lane = 'general-purpose:a5103f00d0000001';
  assert.deepEqual(shown(l), ["7:1: info: read as their own kinds: 1 task notification (a background call's outcome, tied to its call)"]);
  const send = event(l, 'toolu_fx_5103b');
  assert.deepEqual([send.type, send.agent, send.from, send.to, send.tool], ['message', 'main', 'main', lane, 'SendMessage']);
  assert.match(send.content!, /^Fix it: replace the sleep/);
  const resumed = event(l, S('0005'));
  assert.deepEqual([resumed.type, resumed.from, resumed.content], ['message', 'main', send.content], 'not a human prompt');
  assert.deepEqual(edgesOf(l, 'message').filter((e) => e.src === send.id), [{ src: send.id, dst: resumed.id, type: 'message' }]);
  assert.deepEqual(l.trace.events.filter((e) => e.from === 'user').map((e) => e.id), [M('0001')]);
  // Two reports, two returns: the first to the Agent call's result, the second to the task-notification.
  const returns = byType(l, 'return').filter((e) => e.agent === lane);
  assert.deepEqual(returns.map((e) => e.id), [S('0004'), S('0010')]);
  assert.deepEqual(edgesOf(l, 'return').map((e) => [e.src, e.dst]), [
    [S('0004'), 'toolu_fx_5103a:result'],
    [S('0010'), M('0007')],
  ]);
  assert.deepEqual([event(l, M('0007')).type, event(l, M('0007')).tool], ['tool_result', 'SendMessage']);
  // Resumed in the background: main's turn ends while it runs, a hand-off.
  assert.deepEqual(event(l, 'toolu_fx_5103b').background, true);
  assert.deepEqual(event(l, 'msg_fx_5103c:stop').background_running, ['toolu_fx_5103b']);
  // The first run's end is a hand-back to its caller (a turn), the second ends the lane's run.
  assert.deepEqual(byType(l, 'stop').filter((e) => e.agent === lane).map((e) => [e.id, e.scope]), [['msg_fx_51032:stop', 'turn'], ['msg_fx_51035:stop', undefined]]);
  const agents = (l.trace.metadata as { agents: Record<string, { reports?: number }> }).agents;
  assert.equal(agents[lane].reports, 2);
});

test('side-channel records (mode, permission-mode, ai-title, bridge-session, atis-latch, …) are session metadata with no warning; an unknown type with no conversation is one info line', () => {
  const l = open(LAYOUT('5104'));
  assert.deepEqual(shown(l), ['10:1: info: 2 records of 1 type otrace does not know yet, with no conversation in them, read as session metadata: reef-checkpoint 2']);
  assert.deepEqual(traceStats(l).by_type, { message: 4, stop: 2 });
  const m = l.trace.metadata as Record<string, unknown>;
  assert.deepEqual(m.session_state, { permission_mode: 'default', mode: 'plan', ai_title: 'Explain the retry policy', bridge_session_id: 'cse_fx5104' });
  assert.deepEqual(m.side_records, { 'permission-mode': 1, mode: 3, 'ai-title': 1, 'last-prompt': 1, 'bridge-session': 1, 'atis-latch': 1, 'reef-checkpoint': 2 });
  assert.deepEqual(m.skipped_records, {});
  // A record of an unknown type that carries a message holds content otrace cannot show: still "not shown".
  const text = `${fixture('claude-code-layouts', '0f1e2d3c-0000-4000-8000-0000000a5104.jsonl')}{"type":"reef-note","sessionId":"s","message":{"role":"user","content":"lost"}}\n`;
  assert.deepEqual(shown(loadTrace(text, 'x.jsonl')).slice(-1), ['15:1: warning: 1 record of 1 kind not shown: unknown/reef-note 1']);
});

test('one API response in one record, with an Agent call (a spawn and a delegate), is no "several records" note', () => {
  const ls = fixture('claude-code-layouts', '0f1e2d3c-0000-4000-8000-0000000a5103.jsonl').split('\n');
  const l = loadTrace(ls.slice(0, 3).join('\n'), 'one-agent-call.jsonl');
  assert.deepEqual(problemsOf(l), []);
  assert.ok(!l.problems.some((p) => /several records/.test(p.message)), l.problems.map((p) => p.message).join('\n'));
});

test('a background agent whose notification has not come is still running: no return to its launch result, no stop; one info names the calls still running', () => {
  const file = fixturePath('cases', '28-cc-background-task-notifications', '0f1e2d3c-0000-4000-8000-00000000c028.jsonl');
  const sub = fixturePath('cases', '28-cc-background-task-notifications', '0f1e2d3c-0000-4000-8000-00000000c028', 'subagents', 'agent-a28bc0ffee01d2e3f.jsonl');
  const main = fs.readFileSync(file, 'utf8').split('\n').slice(0, 6).join('\n');
  const partial = fs.readFileSync(sub, 'utf8').split('\n').slice(0, 3).join('\n') + '\n';
  const l = loadTrace(main, file, filesWith(() => false, { [sub]: partial }));
  const lane = 'general-purpose:a28bc0ffee01d2e3f';
  assert.deepEqual(byType(l, 'stop').filter((e) => e.agent === lane), []);
  assert.deepEqual(edgesOf(l, 'return'), []);
  assert.ok(shown(l).includes('2:1: info: 2 calls running in the background had not reported when the file ended (no task-notification): toolu_fx_2801 (Bash), toolu_fx_2802 (Agent)'), shown(l).join('\n'));
});

test('task-notification blocks: ids, status, exit code; several in one row; a killed run is no failure; a row naming no call is the harness\'s, never a prompt', async () => {
  const { taskNotifications, notificationFailed } = await import('../../../../src/trace/importers/claude-code/background');
  const text = '<task-notification>\n<task-id>b1</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n<status>failed</status>\n<summary>Background command "x" failed with exit code 3</summary>\n</task-notification>\n<task-notification><task-id>b2</task-id><status>killed</status><exit-code>-1</exit-code><summary>Command "y" was stopped</summary></task-notification>';
  const blocks = taskNotifications(text);
  assert.deepEqual(blocks.map((b) => [b.taskId, b.toolUseId, b.status, b.exitCode, notificationFailed(b)]), [
    ['b1', 'toolu_1', 'failed', 3, true],
    ['b2', undefined, 'killed', -1, false],
  ]);
  const row = { parentUuid: null, isSidechain: false, sessionId: 's', type: 'user', uuid: 'n1', timestamp: '2026-03-01T10:00:00.000Z', origin: { kind: 'task-notification' }, message: { role: 'user', content: text } };
  const l = loadTrace(`${JSON.stringify({ parentUuid: null, isSidechain: false, sessionId: 's', type: 'user', uuid: 'u1', timestamp: '2026-03-01T09:59:00.000Z', message: { role: 'user', content: 'go' } })}\n${JSON.stringify(row)}\n`, 'n.jsonl');
  assert.deepEqual(l.trace.events.map((e) => [e.id, e.type, e.from, e.task_id]), [
    ['u1', 'message', 'user', undefined],
    ['n1', 'message', 'harness', 'b1'],
    ['n1:2', 'message', 'harness', 'b2'],
  ]);
  // A harness row that is no notification (origin.kind other than human) is no prompt either.
  const hook = { ...row, uuid: 'h1', message: { role: 'user', content: 'Stop hook feedback: run the linter' } };
  assert.equal(loadTrace(`${JSON.stringify(hook)}\n`, 'h.jsonl').trace.events[0].from, 'harness');
});

test('a real background Bash (the full spotter session): marked at its launch, ended when TaskOutput said so, and its late task-notification is its outcome', () => {
  const l = open(fixturePath('claude-code-session', `${SESSION}.jsonl`));
  const call = 'toolu_01L1VMLcUu7fcGfhBR8PB7Ru';
  assert.equal(event(l, call).background, true);
  const outcome = l.trace.events.find((e) => e.task_id === 'b7b23b2')!;
  assert.deepEqual([outcome.type, outcome.from, outcome.tool, outcome.task_status, outcome.causes], ['tool_result', 'harness', 'Bash', 'completed', [call]]);
  // TaskOutput (block) returned the task's end before the turn did: no turn end leaves it running.
  assert.deepEqual(l.trace.events.filter((e) => e.type === 'stop' && e.background_running !== undefined).map((e) => e.id), []);
  assert.ok(!l.problems.some((p) => /running in the background/.test(p.message)));
});
