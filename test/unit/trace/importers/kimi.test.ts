/**
 * The Kimi Code CLI importer on its session fixtures (test/fixtures/kimi, SOURCE.md): lanes and who
 * spawned whom, failed and refused calls, turn stops and interruptions, tokens by kind, a background
 * sub-agent read from its own folder, the legacy (pre-1.6) records, bad lines and unknown types,
 * and opening the session folder.
 */
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
import { tokenTotals } from '../../../../src/trace/tokens';
import { openTarget } from '../../../../src/engine/open-target';
import '../../../../src/trace/importers';
import { fixturePath } from '../../helpers';

const SESSION = fixturePath('kimi', 'session-1.10', '3b9e2c4a-6d1f-4e8a-9c2b-7f5a1e0d4c21');
const WIRE = path.join(SESSION, 'wire.jsonl');
const LEGACY = fixturePath('kimi', 'session-legacy', '0e7d4b1a-2c3f-4a5b-8d6e-9f0a1b2c3d4e', 'wire.jsonl');
const FG = 'coder:a1f3c9e2';
const BG = 'explore:a7b2d4e6';

const NO_FILES: FileAccess = { readText: () => undefined, list: () => undefined };
const read = (file: string, files: FileAccess = nodeFileAccess, text = fs.readFileSync(file, 'utf8')): LoadedTrace => loadTrace(text, file, files);
const event = (l: LoadedTrace, id: string): TraceEvent => {
  const e = l.trace.events.find((x) => x.id === id);
  assert.ok(e, `no event ${id}`);
  return e;
};
const edges = (l: LoadedTrace, type: string) => l.trace.edges.filter((e) => e.type === type).map((e) => `${e.src} -> ${e.dst}`);

test('a 1.10 session: lanes, who spawned whom, the foreground agent from its SubagentEvents, the background one from its folder', () => {
  const l = read(WIRE);
  assert.equal(l.format, 'kimi');
  assert.ok(TraceSchema.safeParse(l.trace).success);
  const s = traceStats(l);
  assert.deepEqual([...s.agents].sort(), [FG, BG, 'main'].sort());
  assert.deepEqual(s.by_type, { message: 9, spawn: 2, tool_call: 4, tool_result: 6, return: 2, stop: 4, orchestrator_decision: 1 });
  // parentage is exact: each Agent call spawns the lane its records name, and the spawn edge reaches the run's first event (the prompt, from main)
  assert.equal(event(l, 'tool_Kp2sQ8vN1xR4').to, FG);
  assert.equal(event(l, 'tool_Zt6wB3mJ9cL0').to, BG);
  assert.deepEqual(edges(l, 'spawn').sort(), ['tool_Kp2sQ8vN1xR4 -> a1f3c9e2/prompt:L8.1', 'tool_Zt6wB3mJ9cL0 -> a7b2d4e6/prompt:L1'].sort());
  assert.deepEqual([event(l, 'a1f3c9e2/prompt:L8.1').from, event(l, 'a7b2d4e6/prompt:L1').from], ['main', 'main']);
  // the foreground agent's answer returns with its call's result; the background one's returns later, with no edge
  assert.deepEqual(edges(l, 'return'), ['a1f3c9e2/msg:L15.1 -> tool_Kp2sQ8vN1xR4:result']);
  assert.deepEqual([event(l, 'a1f3c9e2/msg:L15.1').to, event(l, 'a7b2d4e6/msg:L7').to], ['main', 'main']);
  // the foreground agent's own folder repeats its SubagentEvents: read once, from the session's file
  assert.equal(l.trace.events.filter((e) => e.agent === FG).length, 5);
  assert.ok(l.trace.events.filter((e) => e.agent === FG).every((e) => originOfId(l, e.id)!.file === undefined));
  const bgFile = path.join(SESSION, 'subagents', 'a7b2d4e6', 'wire.jsonl');
  assert.ok(l.trace.events.filter((e) => e.agent === BG).every((e) => originOfId(l, e.id)!.file === bgFile));
  assert.equal(originOfId(l, 'a1f3c9e2/tool_Gr4pH7eT2wQ1')!.record, 11);
  const meta = l.trace.metadata as { subagents: { agent_id: string; read_from: string }[]; protocol_version: string; session_id: string };
  assert.deepEqual(meta.subagents.map((a) => [a.agent_id, a.read_from]), [['a1f3c9e2', 'SubagentEvent records of the session'], ['a7b2d4e6', 'its own wire.jsonl']]);
  assert.equal(meta.protocol_version, '1.10');
  assert.equal(l.trace.trace_id, '3b9e2c4a-6d1f-4e8a-9c2b-7f5a1e0d4c21');
});

test('failed and refused calls: is_error results, a rejected approval is the user refusing the call', () => {
  const l = read(WIRE);
  const failed = l.trace.events.filter((e) => e.type === 'tool_result' && (e as { is_error?: boolean }).is_error).map((e) => e.id);
  assert.deepEqual(failed, ['tool_Rd8fL2kP5sV7:result', 'tool_Sh3lM6nQ0aZ8:result']);
  assert.equal(event(l, 'tool_Rd8fL2kP5sV7:result').content, '`src/http/settings.py` does not exist.', 'a ToolError has no output: its message is the content');
  assert.equal(event(l, 'tool_Sh3lM6nQ0aZ8').call_status, 'denied');
  assert.equal((event(l, 'tool_Sh3lM6nQ0aZ8:result') as { denied?: boolean }).denied, true);
  assert.equal(event(l, 'tool_Rd8fL2kP5sV7').call_status, undefined);
  assert.deepEqual(edges(l, 'tool_dependency').length, 6);
});

test('stops: TurnEnd ends a turn (scope turn in main, none in a sub-agent), a step that failed after retries is an API error, one stop per turn', () => {
  const l = read(WIRE);
  const stops = l.trace.events.filter((e) => e.type === 'stop').map((e) => [e.agent, e.reason, e.kind ?? '', (e as { scope?: string }).scope ?? '', originOfId(l, e.id)!.record]);
  assert.deepEqual(stops, [
    [FG, 'task_complete', '', '', 17],
    ['main', 'task_complete', '', 'turn', 27],
    [BG, 'task_complete', '', '', 9],
    // step 2 of turn 2 was retried (HTTP 503) then interrupted; the TurnEnd after it adds no second stop
    ['main', 'error', 'api_error', 'turn', 42],
  ]);
  assert.match(event(l, 'stop:L42').detail!, /retries: APIStatusError \(HTTP 503\)/);
  const turns = (l.trace.metadata as { turns: { lane: string; stop: string | null }[] }).turns;
  assert.deepEqual(turns.map((t) => [t.lane, t.stop]), [['main', 'task_complete'], [FG, 'task_complete'], ['main', 'error'], [BG, 'task_complete']]);
});

test('an interrupted step with no retry is the user interrupting; a turn that ends after a tool call has no answer', () => {
  const lines = fs.readFileSync(WIRE, 'utf8').split('\n');
  const noRetry = lines.filter((x) => !x.includes('"StepRetry"')).join('\n');
  const l = read(WIRE, NO_FILES, noRetry);
  const stop = l.trace.events.find((e) => e.type === 'stop' && e.agent === 'main' && e.turn_id === 'turn-2')!;
  assert.deepEqual([stop.reason, stop.kind, stop.decided_by], ['user_abort', 'interruption', 'user']);
  assert.ok(l.problems.some((p) => p.severity === 'info' && /1 step interrupted/.test(p.message)));
  // without the interruption, the TurnEnd after a refused call ends a turn with no answer
  const cut = lines.filter((x) => !x.includes('"StepInterrupted"')).join('\n');
  const end = read(WIRE, NO_FILES, cut).trace.events.filter((e) => e.type === 'stop' && e.agent === 'main').pop()!;
  assert.deepEqual([end.reason, (end as { scope?: string }).scope], ['unknown', 'turn']);
});

test('tokens by kind: each StatusUpdate on its step\'s model call; costs sum them', () => {
  const l = read(WIRE);
  assert.deepEqual(event(l, 'msg:L4').usage, { input: 10230, output: 412, cache_read: 0, cache_write: 2048 });
  assert.equal(event(l, 'msg:L4').tokens, 412);
  assert.deepEqual(event(l, 'a1f3c9e2/tool_Gr4pH7eT2wQ1').usage, { input: 1840, output: 96, cache_read: 4096, cache_write: 0 });
  assert.deepEqual(event(l, 'a7b2d4e6/msg:L7').usage, { input: 240, output: 52, cache_read: 5120, cache_write: 0 });
  // 8 model calls with a count: 4 of main (the retried step recorded none), 2 of each sub-agent
  assert.equal(l.trace.events.filter((e) => e.usage).length, 8);
  const totals = tokenTotals(l.trace.events);
  assert.deepEqual([totals.calls, totals.total, totals.by_kind], [8, 68376, { input: 18040, output: 928, cache_read: 47360, cache_write: 2048 }]);
  const c = l.trace.costs as Record<string, number>;
  assert.deepEqual([c.tokens, c.input_tokens, c.output_tokens, c.cache_read_tokens, c.cache_write_tokens, c.unattributed_tokens, c.tool_calls], [68376, 18040, 928, 47360, 2048, 0, 6]);
});

test('compaction, harness notifications and unknown record types: meta rows with one info, no warning storm', () => {
  const l = read(WIRE);
  const compaction = l.trace.events.filter((e) => e.kind === 'compaction');
  assert.deepEqual(compaction.map((e) => [e.type, e.duration_s]), [['orchestrator_decision', 4.58]]);
  const meta = l.trace.events.filter((e) => e.kind === 'meta');
  assert.deepEqual(meta.map((e) => e.role), ['notification', 'FutureProgress', 'FutureProgress']);
  assert.ok(meta.every((e) => e.from === 'harness'));
  assert.deepEqual(
    l.problems.map((p) => [p.severity, p.message, p.range.start.line]),
    [
      ['info', '2 records of 1 type this reader does not know (a later wire version?) read as meta rows: FutureProgress 2', 39],
      ['info', 'read as their own kinds: 1 call refused by the user, 1 step failed after retries (an API error)', 36],
    ],
  );
});

test('before wire 1.6: Task calls, task_tool_call_id, ApprovalRequestResolved, no metadata line', () => {
  const text = fs.readFileSync(LEGACY, 'utf8');
  assert.equal(detectFormat(text, LEGACY)?.id, 'kimi');
  const l = read(LEGACY);
  assert.deepEqual(l.problems, []);
  assert.deepEqual([...traceStats(l).agents].sort(), ['main', 'summarizer:Task:0']);
  assert.equal(event(l, 'Task:0').type, 'spawn');
  assert.equal(event(l, 'Task:0').to, 'summarizer:Task:0');
  assert.deepEqual(edges(l, 'spawn'), ['Task:0 -> Task:0/ReadFile:0']);
  assert.deepEqual(edges(l, 'return'), ['Task:0/msg:L7.1 -> Task:0:result']);
  // the approved write is no refusal
  assert.equal(event(l, 'WriteFile:1').call_status, undefined);
  assert.equal((l.trace.metadata as { protocol_version: unknown }).protocol_version, null);
});

test('bad lines: a broken line and a cut-off last line are positioned errors, the rest loads, the open call is in progress', () => {
  const lines = fs.readFileSync(WIRE, 'utf8').split('\n');
  lines[24] = '{"timestamp": 1777363581.0, "message": {"type": "ToolCall", "payl';
  const cutAt = lines.findIndex((x) => x.includes('"ApprovalResponse"'));
  const text = [...lines.slice(0, cutAt), lines[cutAt].slice(0, 40)].join('\n');
  const l = read(WIRE, NO_FILES, text);
  const errors = l.problems.filter((p) => p.severity === 'error');
  assert.deepEqual(errors.map((p) => p.range.start.line), [24, cutAt]);
  assert.match(errors[0].message, /^JSON syntax error: .*; line skipped$/);
  assert.match(errors[1].message, /^last line is cut off/);
  assert.equal(event(l, 'tool_Sh3lM6nQ0aZ8').call_status, 'in_progress');
  // everything before the cut loads but the broken line (step 3's StepBegin)
  assert.equal(l.trace.events.length, 19);
  assert.equal((l.trace.metadata as { steps: number }).steps, 5);
});

test('records of no wire shape: one warning for all of them', () => {
  const lines = fs.readFileSync(LEGACY, 'utf8').split('\n');
  lines.splice(2, 0, '{"timestamp": 1777363574.0, "note": "no message"}', '{"timestamp": 1777363574.1, "message": "text"}');
  const l = read(LEGACY, NO_FILES, lines.join('\n'));
  assert.deepEqual(l.problems.map((p) => [p.severity, p.message, p.range.start.line]), [['warning', '2 lines are JSON but not a wire record ({"timestamp", "message": {"type", "payload"}}): not shown', 2]]);
});

test('a sub-agent\'s own wire opened alone: its lane, and where its run is', () => {
  const file = path.join(SESSION, 'subagents', 'a7b2d4e6', 'wire.jsonl');
  const l = read(file);
  assert.deepEqual(traceStats(l).agents, [BG]);
  assert.equal(l.trace.trace_id, '3b9e2c4a-6d1f-4e8a-9c2b-7f5a1e0d4c21/a7b2d4e6');
  assert.match(l.problems[0].message, /^this is the wire of sub-agent a7b2d4e6 \(explore\); open the session's wire\.jsonl/);
});

test('without its folder, the session still has its foreground sub-agent (from SubagentEvents); the background spawn names its lane', () => {
  const l = read(WIRE, NO_FILES);
  assert.deepEqual([...traceStats(l).agents].sort(), [FG, 'main'].sort());
  assert.equal(event(l, 'tool_Zt6wB3mJ9cL0').to, BG);
});

test('opening the session folder opens its wire.jsonl, even when context.jsonl is newer', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-kimi-'));
  try {
    fs.cpSync(SESSION, dir, { recursive: true });
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(dir, 'context.jsonl'), later, later);
    fs.utimesSync(path.join(dir, 'subagents', 'a7b2d4e6', 'wire.jsonl'), later, later);
    assert.equal(openTarget(dir).trace, path.join(dir, 'wire.jsonl'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a background sub-agent whose own wire is not beside the session's says so: its work is not shown (the graph read '2 agents' silently)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-kimi-alone-'));
  try {
    const src = fixturePath('kimi', 'session-1.10', '3b9e2c4a-6d1f-4e8a-9c2b-7f5a1e0d4c21', 'wire.jsonl');
    const file = path.join(dir, 'wire.jsonl');
    fs.copyFileSync(src, file);
    const said = (f: string) => loadTrace(fs.readFileSync(f, 'utf8'), f, nodeFileAccess).problems.filter((p) => /worked on its own/.test(p.message)).map((p) => p.message);
    assert.deepEqual(said(file), ['sub-agent a7b2d4e6 (explore) worked on its own (a background agent), and its wire (subagents/a7b2d4e6/wire.jsonl) is not beside this one: its work is not shown']);
    // with its folder, nothing to say
    assert.deepEqual(said(src), []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
