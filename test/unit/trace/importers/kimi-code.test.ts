/**
 * The Kimi Code (TypeScript CLI) importer on its fixtures (test/fixtures/kimi-code, SOURCE.md): a
 * session written from the format's code (lanes and who spawned whom from `task.started`, a
 * foreground agent's return with its call's result, a background agent's, a refused and a failed
 * call, turn stops completed / failed / cancelled, tokens by kind, a prompt of the harness), the two
 * real session folders of kimi-code's own tests, a sub-agent's wire opened alone, protocol 1.0
 * records, bad lines and unknown types, and detection against kimi-cli's wire.
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

const SESSION = fixturePath('kimi-code', 'session', 'wd_7c1e0a9b', '5f0c1a2e-8b3d-4c6f-9e21-0d4a7b3c9e58');
const MAIN = path.join(SESSION, 'agents', 'main', 'wire.jsonl');
const CODER = 'coder:agent-0';
const EXPLORE = 'explore:agent-1';
const REAL_MAIN = fixturePath('kimi-code', 'real', 'sample-main', 'agents', 'main', 'wire.jsonl');
const REAL_COMPACTION = fixturePath('kimi-code', 'real', 'sample-compaction', 'agents', 'main', 'wire.jsonl');
const KIMI_CLI = fixturePath('kimi', 'session-1.10', '3b9e2c4a-6d1f-4e8a-9c2b-7f5a1e0d4c21', 'wire.jsonl');

const NO_FILES: FileAccess = { readText: () => undefined, list: () => undefined };
const read = (file: string, files: FileAccess = nodeFileAccess, text = fs.readFileSync(file, 'utf8')): LoadedTrace => loadTrace(text, file, files);
const event = (l: LoadedTrace, id: string): TraceEvent & Record<string, unknown> => {
  const e = l.trace.events.find((x) => x.id === id);
  assert.ok(e, `no event ${id}`);
  return e as TraceEvent & Record<string, unknown>;
};
const edges = (l: LoadedTrace, type: string) => l.trace.edges.filter((e) => e.type === type).map((e) => `${e.src} -> ${e.dst}`);
const messages = (l: LoadedTrace) => l.problems.map((p) => p.message);

test('a Kimi Code session: the sub-agents named by task.started are lanes spawned by their Agent calls, read from their own wires', () => {
  const l = read(MAIN);
  assert.equal(l.format, 'kimi-code');
  assert.ok(TraceSchema.safeParse(l.trace).success);
  const s = traceStats(l);
  assert.deepEqual([...s.agents].sort(), [CODER, EXPLORE, 'main'].sort());
  assert.deepEqual(s.by_type, { message: 9, spawn: 2, tool_call: 6, tool_result: 8, return: 2, stop: 6, orchestrator_decision: 1 });
  assert.equal(event(l, 'call_agent_1').to, CODER);
  assert.equal(event(l, 'call_agent_2').to, EXPLORE);
  assert.deepEqual(edges(l, 'spawn').sort(), ['call_agent_1 -> agent-0/prompt:L2', 'call_agent_2 -> agent-1/prompt:L2']);
  assert.equal(event(l, 'agent-0/prompt:L2').from, 'main');
  // the foreground agent's answer returns with its call's result; the background one's with no edge (it comes back later)
  assert.deepEqual(edges(l, 'return'), ['agent-0/msg:L9 -> call_agent_1:result']);
  assert.deepEqual([event(l, 'agent-0/msg:L9').type, event(l, 'agent-1/msg:L9').type, event(l, 'agent-1/msg:L9').to], ['return', 'return', 'main']);
  // each event points at its own file and line
  const coderFile = path.join(SESSION, 'agents', 'agent-0', 'wire.jsonl');
  assert.deepEqual(originOfId(l, 'agent-0/call_grep_1'), { ...originOfId(l, 'agent-0/call_grep_1')!, file: coderFile, record: 5 });
  assert.equal(originOfId(l, 'call_read_1')!.file, undefined);
  const meta = l.trace.metadata as { session_id: string; protocol_version: string; subagents: { agent_id: string; lane: string }[] };
  assert.equal(meta.session_id, '5f0c1a2e-8b3d-4c6f-9e21-0d4a7b3c9e58');
  assert.equal(meta.protocol_version, '1.5');
  assert.deepEqual(meta.subagents.map((a) => a.lane), [CODER, EXPLORE]);
});

test('a Kimi Code session: refused and failed calls, turn stops completed / failed / cancelled, tokens by kind, the harness prompt', () => {
  const l = read(MAIN);
  assert.equal(event(l, 'call_bash_1').call_status, 'denied');
  assert.equal(event(l, 'call_bash_1:result').is_error, true);
  assert.equal(event(l, 'call_read_1:result').is_error, true);
  assert.equal(event(l, 'call_edit_1:result').is_error, undefined);
  const stops = l.trace.events.filter((e) => e.type === 'stop').map((e) => [e.agent, e.reason, e.scope ?? null]);
  assert.deepEqual(stops, [[CODER, 'task_complete', null], ['main', 'task_complete', 'turn'], [EXPLORE, 'task_complete', null], ['main', 'task_complete', 'turn'], ['main', 'error', 'turn'], ['main', 'user_abort', 'turn']]);
  assert.match(String(event(l, 'stop:L49').detail), /turn failed: provider\.rate_limit: Rate limit reached \(429\)/);
  // the turn the background agent's notification started is the harness's, not the user's
  assert.deepEqual([event(l, 'prompt:L38').from, event(l, 'prompt:L38').role], ['harness', 'task']);
  assert.deepEqual([event(l, 'prompt:L4').from, event(l, 'prompt:L44').from], ['user', 'user']);
  // the prompt's own copy in context.append_message is not a second message
  assert.equal(l.trace.events.filter((e) => e.type === 'message' && e.content === 'Fix the flaky retry test in net/retry.test.ts').length, 1);
  // tokens by kind: step.end usage on the step's model call (usage.record repeats them and is not added)
  assert.deepEqual(tokenTotals(l.trace.events).by_kind, { input: 6530, output: 480, cache_read: 96400, cache_write: 1800 });
  assert.deepEqual(event(l, 'agent-0/call_grep_1').usage, { input: 1800, output: 40, cache_read: 0, cache_write: 1800 });
  assert.match(String(event(l, 'compaction:L46').content), /summary: Fixed the flaky retry test/);
  assert.ok(messages(l).includes('read as their own kinds: 1 call refused by the user, 1 step interrupted, 1 turn failed (an error)'), messages(l).join('\n'));
  assert.equal(l.problems.filter((p) => p.severity !== 'info').length, 0);
});

test('the real session folders of kimi-code: a turn with its tokens and an agent no call started; a compaction between messages of protocol 1.1', () => {
  const l = read(REAL_MAIN);
  assert.equal(l.format, 'kimi-code');
  assert.deepEqual(l.trace.events.map((e) => [e.type, e.from, e.content]), [['message', 'user', 'hi'], ['message', 'main', 'hello'], ['stop', undefined, undefined]]);
  // its last step ended the turn (finishReason end_turn after the answer) and no turn end follows: a hand-back, inferred (it read "never stopped")
  const end = l.trace.events[2];
  assert.deepEqual([end.reason, end.scope, end.detail], ['task_complete', 'turn', 'inferred: the last step ended with finishReason end_turn after an answer; no turn end recorded']);
  assert.deepEqual(event(l, 'msg:L7').usage, { input: 10, output: 5, cache_read: 0, cache_write: 0 });
  assert.ok(messages(l).some((m) => m.startsWith('1 agent has a wire in this session that no Agent call of it started') && m.includes('agent-0')), messages(l).join('\n'));
  const c = read(REAL_COMPACTION);
  assert.deepEqual(c.trace.events.map((e) => [e.type, e.from ?? null]), [['message', 'user'], ['message', 'main'], ['orchestrator_decision', null], ['message', 'user']]);
  assert.match(String(event(c, 'compaction:L4').content), /compacted summary/);
});

test('a sub-agent wire opened alone is read alone and says whose it is; with no file access the main wire still reads', () => {
  const sub = read(path.join(SESSION, 'agents', 'agent-0', 'wire.jsonl'));
  assert.equal(sub.format, 'kimi-code');
  assert.deepEqual([...traceStats(sub).agents], ['subagent:agent-0']);
  assert.ok(messages(sub).some((m) => m.startsWith('this is the wire of sub-agent agent-0')));
  const alone = read(MAIN, NO_FILES);
  assert.deepEqual([...traceStats(alone).agents].sort(), ['main']);
  assert.equal(event(alone, 'call_agent_1').type, 'spawn');
  assert.equal(event(alone, 'call_agent_1').to, CODER);
});

test('Kimi Code wires: protocol 1.0 tool calls, bad lines, records without a type and unknown types are read or said, never thrown', () => {
  const text = [
    '{"type":"metadata","protocol_version":"1.0","created_at":1000}',
    '{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":"list files"}],"toolCalls":[]},"time":1000}',
    '{"type":"context.append_message","message":{"role":"assistant","content":[],"toolCalls":[{"type":"function","id":"c1","function":{"name":"Bash","arguments":"{\\"command\\":\\"ls\\"}"}}]},"time":2000}',
    'not json',
    '{"type":"context.append_message","message":{"role":"tool","content":[{"type":"text","text":"a.ts"}],"toolCalls":[],"toolCallId":"c1"},"time":3000}',
    '{"no_type":true,"time":3500}',
    '{"type":"future.record","x":1,"time":4000}',
    '{"type":"turn.prompt","input":[{"type":"text","text":"cut',
  ].join('\n');
  const l = read('/tmp/s/agents/main/wire.jsonl', NO_FILES, text);
  assert.equal(l.format, 'kimi-code');
  assert.deepEqual([event(l, 'c1').tool, event(l, 'c1').content], ['Bash', '{"command":"ls"}']);
  assert.deepEqual(edges(l, 'tool_dependency'), ['c1 -> c1:result']);
  const at = (re: RegExp) => l.problems.find((p) => re.test(p.message));
  assert.equal(at(/not valid JSON|JSON/)?.range.start.line, 3);
  assert.equal(at(/1 line is JSON but not a wire record/)?.range.start.line, 5);
  assert.equal(at(/type this reader does not know.*future\.record 1/)?.range.start.line, 6);
  assert.ok(at(/cut off/), messages(l).join('\n'));
});

test('Kimi Code and kimi-cli wires are told apart: each detector takes only its own', () => {
  assert.equal(detectFormat(fs.readFileSync(MAIN, 'utf8'), MAIN)?.id, 'kimi-code');
  assert.equal(detectFormat(fs.readFileSync(REAL_COMPACTION, 'utf8'), REAL_COMPACTION)?.id, 'kimi-code');
  assert.equal(detectFormat(fs.readFileSync(KIMI_CLI, 'utf8'), KIMI_CLI)?.id, 'kimi');
  // a metadata line alone: kimi-cli's has no created_at
  assert.equal(detectFormat('{"type":"metadata","protocol_version":"1.5","created_at":1}\n', 'wire.jsonl')?.id, 'kimi-code');
  assert.equal(detectFormat('{"type":"metadata","protocol_version":"1.10"}\n', 'wire.jsonl')?.id, 'kimi');
});

const REAL_CLI = fixturePath('kimi', 'real', 'with-tool-calls');

test("a kimi-cli context.jsonl opened alone: the model's context as one lane, injected text as harness rows, a failed call, and a pointer to the wire beside it", () => {
  const l = read(path.join(REAL_CLI, 'context.jsonl'));
  assert.equal(l.format, 'kimi-context');
  assert.deepEqual(l.trace.events.map((e) => [e.type, e.from ?? null, e.kind ?? null]), [['message', 'user', null], ['message', 'harness', 'meta'], ['tool_call', null, null], ['tool_result', null, null], ['stop', null, null]]);
  assert.equal(event(l, 'meta:L4').content?.startsWith('<system-reminder>'), true);
  assert.deepEqual([event(l, 'tc1').tool, event(l, 'tc1:result').is_error], ['Shell', true]);
  // the context ends after a result: the turn ended with no answer, so its stop says unknown, not complete
  assert.equal(event(l, 'stop:L9').reason, 'unknown');
  assert.deepEqual((l.trace.metadata as { context_tokens: number[] }).context_tokens, [10, 12]);
  assert.ok(messages(l).some((m) => m.includes("the session's wire.jsonl beside it has them")), messages(l).join('\n'));
  const alone = read(path.join(REAL_CLI, 'context.jsonl'), NO_FILES);
  assert.ok(messages(alone).some((m) => m.includes('it records no times')), messages(alone).join('\n'));
});

test('opening a Kimi Code session folder opens agents/main/wire.jsonl even when a sub-agent wire is newer; a kimi-cli folder its wire, not its context', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-kimi-code-'));
  try {
    fs.cpSync(SESSION, path.join(dir, 's'), { recursive: true });
    fs.cpSync(REAL_CLI, path.join(dir, 'cli'), { recursive: true });
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(dir, 's', 'agents', 'agent-1', 'wire.jsonl'), later, later);
    fs.utimesSync(path.join(dir, 'cli', 'context.jsonl'), later, later);
    assert.equal(openTarget(path.join(dir, 's')).trace, path.join(dir, 's', 'agents', 'main', 'wire.jsonl'));
    assert.equal(openTarget(path.join(dir, 'cli')).trace, path.join(dir, 'cli', 'wire.jsonl'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a real kimi-cli wire (kimi-code migration fixture, wire 1.6): the coder agent named by its SubagentEvents is a lane spawned by its Agent call', () => {
  const l = read(fixturePath('kimi', 'real', 'with-subagent-collapsed', 'wire.jsonl'));
  assert.equal(l.format, 'kimi');
  assert.deepEqual([...traceStats(l).agents].sort(), ['coder:ac1f74988', 'main']);
  assert.deepEqual(edges(l, 'spawn'), ['tool_Ct3NdbCjJ2Xbl7YzithE2Dy8 -> ac1f74988/prompt:L7.1']);
});

test('Kimi Code: one call of another tool that starts several agents (a swarm) is a spawn of each, its first lane its target', () => {
  const rec = (o: Record<string, unknown>) => JSON.stringify(o);
  const loop = (event: Record<string, unknown>, time: number) => rec({ type: 'context.append_loop_event', event, time });
  const main = [
    rec({ type: 'metadata', protocol_version: '1.5', created_at: 1000 }),
    rec({ type: 'turn.prompt', input: [{ type: 'text', text: 'audit both packages' }], origin: { kind: 'user' }, time: 1000 }),
    loop({ type: 'step.begin', uuid: 's0', step: 0 }, 1100),
    loop({ type: 'tool.call', stepUuid: 's0', toolCallId: 'call_swarm', name: 'AgentSwarm', args: { tasks: ['core', 'cli'] } }, 1200),
    rec({ type: 'task.started', info: { kind: 'agent', agentId: 'agent-0', subagentType: 'coder', parentToolCallId: 'call_swarm' }, time: 1300 }),
    rec({ type: 'task.started', info: { kind: 'agent', agentId: 'agent-1', subagentType: 'coder', parentToolCallId: 'call_swarm' }, time: 1300 }),
    loop({ type: 'tool.result', toolCallId: 'call_swarm', result: { output: 'both done' } }, 5000),
  ].join('\n');
  const sub = (id: string) => [
    rec({ type: 'metadata', protocol_version: '1.5', created_at: 1300 }),
    rec({ type: 'turn.prompt', input: [{ type: 'text', text: `audit ${id}` }], origin: { kind: 'user' }, time: 1400 }),
    loop({ type: 'step.begin', uuid: `${id}s0`, step: 0 }, 1500),
    loop({ type: 'content.part', stepUuid: `${id}s0`, part: { type: 'text', text: `${id}: nothing unused` } }, 2000),
    rec({ type: 'turn.ended', turnId: 1, reason: 'completed', time: 2100 }),
  ].join('\n');
  const texts: Record<string, string> = { '/s/agents/agent-0/wire.jsonl': sub('agent-0'), '/s/agents/agent-1/wire.jsonl': sub('agent-1') };
  const files: FileAccess = { readText: (p) => texts[p], list: (d) => (d === '/s/agents' ? ['main', 'agent-0', 'agent-1'] : undefined) };
  const l = read('/s/agents/main/wire.jsonl', files, main);
  assert.deepEqual([event(l, 'call_swarm').type, event(l, 'call_swarm').to], ['spawn', 'coder:agent-0']);
  assert.deepEqual(edges(l, 'spawn').sort(), ['call_swarm -> agent-0/prompt:L1', 'call_swarm -> agent-1/prompt:L1']);
  assert.deepEqual([...traceStats(l).agents].sort(), ['coder:agent-0', 'coder:agent-1', 'main']);
});

test("Kimi Code: the prompt's copy in the context is skipped even when its text was expanded; a later user message of the context is injected context, not a new turn", () => {
  const rec = (o: Record<string, unknown>) => JSON.stringify(o);
  const text = [
    rec({ type: 'metadata', protocol_version: '1.5', created_at: 1000 }),
    rec({ type: 'turn.prompt', input: [{ type: 'text', text: 'fix @src/a.ts' }], origin: { kind: 'user' }, time: 1000 }),
    rec({ type: 'context.append_message', message: { role: 'user', content: [{ type: 'text', text: 'fix src/a.ts\n<file>…</file>' }], toolCalls: [] }, time: 1001 }),
    rec({ type: 'context.append_message', message: { role: 'user', content: [{ type: 'text', text: '<system-reminder>plan mode is off</system-reminder>' }], toolCalls: [] }, time: 1002 }),
  ].join('\n');
  const l = read('/s/agents/main/wire.jsonl', NO_FILES, text);
  assert.deepEqual(l.trace.events.map((e) => [e.type, e.from, e.kind ?? null]), [['message', 'user', null], ['message', 'harness', 'meta']]);
  assert.equal((l.trace.metadata as { turns: unknown[] }).turns.length, 1);
});

test('a turn end is inferred only from a last step that ended the turn after an answer, in a file not cut off', () => {
  const head = [
    '{"type":"metadata","protocol_version":"1.1","created_at":1000}',
    '{"type":"turn.prompt","input":[{"type":"text","text":"list files"}],"origin":{"kind":"user"},"time":1000}',
    '{"type":"context.append_loop_event","event":{"type":"step.begin","uuid":"s1","turnId":"t1","step":0},"time":1100}',
  ];
  const answer = '{"type":"context.append_loop_event","event":{"type":"content.part","uuid":"c1","turnId":"t1","step":0,"stepUuid":"s1","part":{"type":"text","text":"done"}},"time":1200}';
  const call = '{"type":"context.append_loop_event","event":{"type":"tool.call","uuid":"c2","turnId":"t1","step":0,"toolCallId":"k1","name":"Bash","args":{"command":"ls"}},"time":1200}';
  const end = (why: string) => `{"type":"context.append_loop_event","event":{"type":"step.end","uuid":"s1","turnId":"t1","step":0,"finishReason":"${why}"},"time":1300}`;
  const stops = (lines: string[], tail = '\n') => loadTrace(lines.join('\n') + tail, 'wire.jsonl', nodeFileAccess).trace.events.filter((e) => e.type === 'stop');
  assert.equal(stops([...head, answer, end('end_turn')]).length, 1, 'an answer, then end_turn: the turn handed back');
  assert.equal(stops([...head, call, end('tool_use')]).length, 0, 'a tool call pending: the turn went on (or the file ends during it)');
  assert.equal(stops([...head, answer, end('length')]).length, 0, 'cut at its length: no hand-back inferred');
  assert.equal(stops([...head, answer, end('end_turn'), '{"type":"usage.rec'], '').length, 0, 'a file cut off mid-line may still be written: nothing inferred');
});
