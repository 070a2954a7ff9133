/**
 * Readable record labels (issue #26, item 4) on real files: the Claude Code session with its
 * sub-agents and compaction, a Codex rollout, a MAST ChatDev record; the visible-lines lookup, the
 * cap, the Outline's names, and hostile text shown as text.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { buildGraph } from '../../../src/engine/graph-model';
import { InProcessEngine } from '../../../src/engine/in-process-engine';
import { outline } from '../../../src/engine/queries';
import { toolArgument } from '../../../src/engine/event-labels';
import { eventLabel, LABEL_CHARS, MAX_LABELS, recordLabels } from '../../../src/engine/record-labels';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { loadTrace } from '../../../src/trace/formats';
import { nodeFileAccess } from '../../../src/trace/node-files';
import '../../../src/trace/importers';

const FIX = path.join(__dirname, '..', '..', 'fixtures');
const SESSION = path.join(FIX, 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const CODEX = path.join(FIX, 'codex', 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
const MAST = path.join(FIX, 'mast', 'ChatDev_MAD_records', 'trace_0_ChatDev.json');

function snapshotOf(file: string, text = fs.readFileSync(file, 'utf8')) {
  return makeSnapshot(`file://${file}`, 1, file, loadTrace(text, file, nodeFileAccess));
}

const ALL_LINES = [{ start: 0, end: 1e9 }];
/** Labels of a file as `line: text`. */
function labelsOf(s: ReturnType<typeof snapshotOf>, file = ''): Map<number, string> {
  return new Map(recordLabels(s, file, ALL_LINES).map((l) => [l.at.line, l.text]));
}

const session = snapshotOf(SESSION);
const main = labelsOf(session);

test('Claude Code: the prompt, the assistant, tool calls with their argument, results with their end', () => {
  // line numbers are the raw file's (0-based); each label sits at the start of its record
  assert.equal(main.get(6), 'user: Work on bead spotter-a0y. Run bd show spotter-a0y to see…');
  assert.equal(main.get(9), 'Bash: bd show spotter-a0y');
  assert.equal(main.get(41), 'Bash: bd update spotter-a0y.1 --status in_progress → ✓ Updated issue: spotter-a0y.1');
  assert.match(main.get(42)!, /^assistant: Let me explore the existing codebase/);
  assert.equal(main.get(99), 'Read: …/session_hook_controller.ex');
  // a failed command says so, with its exit code, on the result's line
  assert.match(main.get(1031)!, /^Bash: mix test test\/spotter\/transcripts\/jobs\/sync_transcripts_tes.* ✗ exit 2$/);
  assert.match(main.get(638)!, /^Bash: git push 2>&1 ✗ exit 128$/);
  // is_error without an exit code
  assert.match(main.get(1357)!, / ✗ error$/);
  for (const l of recordLabels(session, '', ALL_LINES)) {
    assert.equal(l.at.character, 0, 'at the start of the record line');
    assert.ok(l.text.length <= LABEL_CHARS + 30 && !/\n/.test(l.text), l.text);
  }
  // every record holding events has one label; lines without events (snapshots, progress rows) none
  const lines = new Set(Array.from(session.byFile.get('')!, (i) => session.loaded.eventOrigins.get(i)!.range.start.line));
  assert.deepEqual([...main.keys()].sort((a, b) => a - b), [...lines].sort((a, b) => a - b));
});

test('Claude Code: a sub-agent spawn, its answer, turn ends and the compaction', () => {
  // the Task call holds the spawn and its delegation: one label, the sub-agent and what it was asked
  assert.equal(main.get(43), 'sub-agent Explore existing codebase');
  assert.match(main.get(96)!, /^sub-agent Explore:a93ccab answered: Excellent! Now I have/);
  assert.equal(main.get(661), 'turn ended (handed back)', 'a hand-back, not "task complete" (no claim about the task)');
  assert.equal(main.get(1583), 'compaction');
  // in the sub-agent's own file: the task it got from main, its own words, its return and stop
  const file = [...session.byFile.keys()].find((f) => f.endsWith('agent-a93ccab.jsonl'))!;
  const sub = labelsOf(session, file);
  assert.match(sub.get(0)!, /^task from main: Explore the codebase to understand/);
  assert.match(sub.get(1)!, /^assistant: I'll explore the codebase/);
  assert.match(sub.get(115)!, /^answer → main: Excellent!.* · stop: task complete$/);
});

test('Codex rollout: user, assistant, tool calls and results, turn ends', () => {
  const s = snapshotOf(CODEX);
  const labels = labelsOf(s);
  assert.equal(labels.get(9), 'user: [REDACTED_MESSAGE len=516 sha=05857781]');
  assert.equal(labels.get(15), 'assistant: [REDACTED_TEXT len=178 sha=ba799f97]');
  assert.equal(labels.get(16), 'exec_command: [REDACTED_ARGUMENTS len=153 sha=23291271]');
  assert.match(labels.get(19)!, /^exec_command: \[REDACTED_ARGUMENTS len=153 sha=23291271\] → \[REDACTED_OUTPUT/);
  assert.equal(labels.get(1), 'harness: [REDACTED_TEXT len=3640 sha=9c9ba526]');
  const texts = [...labels.values()];
  assert.equal(texts.filter((t) => t.startsWith('turn ended')).length, 5, 'five turns, each handed back');
  assert.ok(texts.some((t) => t.startsWith('apply_patch: ')));
});

test('MAST: no inline labels (its events are inside one JSON string), but every event has a label for the Outline', () => {
  const s = snapshotOf(MAST);
  assert.deepEqual(recordLabels(s, '', ALL_LINES), [], 'not a transcript whose records are lines');
  const named = recordLabels(s, '', ALL_LINES, false).map((l) => l.text);
  assert.ok(named.length > 50);
  assert.ok(named.includes('task → Chief Executive Officer: DemandAnalysis: Chief Product Officer <-> Chief Executive…'), named.slice(0, 3).join('\n'));
  assert.ok(named.some((t) => t.startsWith('Chief Product Officer → Chief Executive Officer: Considering the customer')), 'a speaker is named, not "assistant"');
  assert.ok(named.some((t) => t.startsWith('update_codes: fibonacci.py updated.')));
  // the Outline says the same words
  const outlined = outline(s, '').flatMap((lane) => lane.events.map((e) => e.detail));
  assert.ok(outlined.includes('task → Chief Executive Officer: DemandAnalysis: Chief Product Officer <-> Chief Executive…'));
});

test('the Outline names each event of the Claude Code session by its record label', () => {
  const events = outline(session, '').flatMap((lane) => lane.events);
  const names = new Map(events.map((e) => [e.range.start.line, e.detail] as const));
  for (const line of [6, 9, 41, 638, 1583]) assert.equal(names.get(line), main.get(line), `line ${line}`);
  // the Task record holds two events, each a symbol: the spawn (as the text says) and the task it passed
  assert.deepEqual(events.filter((e) => e.range.start.line === 43).map((e) => e.detail), ['sub-agent Explore existing codebase', 'task → Explore:a93ccab: Explore the codebase to understand the current structure…']);
});

test('the Outline lists at most maxEvents events, the first in file order; every agent keeps its symbol, range and count', () => {
  const whole = outline(session, '');
  const all = whole.flatMap((lane) => lane.events).sort((a, b) => a.range.start.line - b.range.start.line);
  assert.ok(all.length > 100);
  const capped = outline(session, '', 40);
  assert.equal(capped.reduce((sum, l) => sum + l.events.length, 0), 40);
  assert.deepEqual(capped.flatMap((l) => l.events).map((e) => e.range.start.line).sort((a, b) => a - b), all.slice(0, 40).map((e) => e.range.start.line), 'the first 40 events of the file');
  assert.deepEqual(capped.map((l) => [l.agent, l.count, l.range, l.first]), whole.map((l) => [l.agent, l.count, l.range, l.first]), 'the same lanes, ranges and counts');
  for (const lane of whole) assert.equal(lane.count, lane.events.length);
  // a run of several agents: a lane whose events come later lists none, and is still there
  const chat = snapshotOf(MAST);
  const agents = outline(chat, '');
  const first = outline(chat, '', 1);
  assert.ok(agents.length > 2);
  assert.deepEqual(first.map((l) => [l.agent, l.count]), agents.map((l) => [l.agent, l.count]));
  assert.equal(first.filter((l) => l.events.length > 0).length, 1);
  assert.deepEqual(outline(session, '', 0).flatMap((l) => l.events), []);
});

test("the Outline never names an agent on another agent's lines: an interleaved lane spans its first record, a lane alone in its stretch of the file spans it", () => {
  const demo = snapshotOf(path.join(FIX, '..', '..', 'samples', 'demo.otrace.jsonl'));
  const agents = snapshotOf(path.join(FIX, 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46', 'subagents', 'agent-acompact-70d8e7.jsonl'));
  for (const s of [demo, session, agents]) {
    const lanes = outline(s, '');
    // the lines of each lane's events (a record may hold events of two lanes: a Task record's spawn and its task)
    const linesOf = lanes.map((l) => new Set(l.events.map((e) => e.range.start.line)));
    const eventLines = new Set(linesOf.flatMap((set) => [...set]));
    lanes.forEach((lane, k) => {
      for (const line of eventLines) {
        const inRange = line >= lane.range.start.line && line <= lane.range.end.line;
        if (inRange) assert.ok(linesOf[k].has(line) || !linesOf.some((other, j) => j !== k && other.has(line)), `${lane.agent}'s range holds line ${line}, another agent's`);
      }
      assert.ok(lane.range.start.line <= lane.first.start.line && lane.range.end.line >= lane.first.end.line, 'the range holds the first record (the selection)');
    });
  }
  // the demo's agents take turns: every lane that speaks twice with another between spans its first record
  const demoLanes = outline(demo, '');
  const orchestrator = demoLanes.find((l) => l.agent === 'orchestrator')!;
  assert.deepEqual(orchestrator.range, orchestrator.first);
  // a file of one agent: its lane spans the file's records, first to last
  const [only] = outline(agents, '');
  assert.equal(outline(agents, '').length, 1);
  const lines = only.events.map((e) => e.range.start.line);
  assert.equal(only.range.start.line, Math.min(...lines));
  assert.equal(only.range.end.line, Math.max(...lines));
  assert.ok(only.range.end.line > only.range.start.line);
});

test('only the lines asked are labelled (the editor asks for its visible lines), at most MAX_LABELS', () => {
  const some = recordLabels(session, '', [{ start: 90, end: 110 }, { start: 100, end: 125 }]);
  assert.deepEqual(some.map((l) => l.at.line), [96, 98, 99, 102, 103, 106, 107, 110, 111, 114, 115, 118, 119, 122, 123, 124]);
  assert.deepEqual(recordLabels(session, '', [{ start: 5000, end: 6000 }]), []);
  // a generated Claude Code session larger than the cap
  const lines = [];
  for (let k = 0; k < MAX_LABELS + 500; k++) {
    lines.push(JSON.stringify({ type: 'user', uuid: `u${k}`, parentUuid: k ? `u${k - 1}` : null, sessionId: 's', timestamp: new Date(1_700_000_000_000 + k * 1000).toISOString(), message: { role: 'user', content: `prompt ${k}` } }));
  }
  const big = snapshotOf(path.join(os.tmpdir(), 'big-session.jsonl'), lines.join('\n'));
  assert.equal(big.loaded.format, 'claude-code');
  const capped = recordLabels(big, '', ALL_LINES);
  assert.equal(capped.length, MAX_LABELS);
  assert.equal(capped[0].text, 'user: prompt 0');
});

test('hostile text: controls and bidi overrides shown, one line, clipped; a key argument read from JSON', () => {
  const text = JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: 'evil\u202Egnp.exe\nsecond line\u0007 red' } });
  const s = snapshotOf(path.join(os.tmpdir(), 'hostile.jsonl'), text);
  const [label] = recordLabels(s, '', ALL_LINES);
  assert.equal(label.text, 'user: evil⟨U+202E⟩gnp.exe second line⟨U+0007⟩ red');
  assert.equal(toolArgument('Read', '{"file_path":"/home/u/projects/a/very/deep/folder/with/src/app.ts"}'), '…/src/app.ts');
  assert.equal(toolArgument('Grep', '{"pattern":"foo|bar","path":"/x"}'), 'foo|bar');
  assert.equal(toolArgument('Bash', 'not json'), 'not json');
  assert.equal(eventLabel(s, 99), '');
});

test('the engine answers the labels of the lines asked, for the session it holds', async () => {
  const engine = new InProcessEngine();
  const summary = (await engine.load({ key: 'k', version: -1, path: SESSION, local: true }))!;
  const labels = (await engine.recordLabels('k', summary.stamp, '', [{ start: 0, end: 10 }]))!;
  assert.deepEqual(labels.map((l) => [l.at.line, l.text]), [[6, main.get(6)], [9, main.get(9)]]);
  assert.equal(await engine.recordLabels('k', summary.stamp + 1, '', [{ start: 0, end: 10 }]), undefined, 'an old stamp gets no answer');
  engine.dispose();
});

test('one labeller: a tool call reads the same in the trace text and the Outline as on its graph node (tool, key argument, path, first words)', () => {
  const graph = buildGraph(session.loaded, 'g', Infinity);
  const nodeLabel = new Map(graph.nodes.map((n) => [n.eventId, n.label]));
  const events = session.loaded.trace.events;
  let compared = 0;
  const differ: string[] = [];
  events.forEach((e, i) => {
    if (e.type !== 'tool_call' || !nodeLabel.has(e.id) || e.call_status) return;
    compared++;
    const record = eventLabel(session, i);
    const node = nodeLabel.get(e.id)!;
    // the same words; the record label may be shorter (clipped sooner) but says nothing else
    const same = record === node || (record.endsWith('…') && node.startsWith(record.slice(0, -1).replace(/[\s,;:.]+$/, '')));
    if (!same) differ.push(`${record}  ≠  ${node}`);
  });
  assert.ok(compared > 100, `${compared} tool calls`);
  assert.deepEqual(differ.slice(0, 5), []);
  const read = events.findIndex((e) => e.id === 'toolu_01Lc1iXDm3oMyqhyT2LCaMH6');
  assert.equal(eventLabel(session, read), 'Read: …/session_hook_controller.ex', 'paths cut the same way, relative to the session folder');
});
