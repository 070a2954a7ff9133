/** The "Go to Source Prompt" rule, on the demo (one file) and the Claude Code session (sub-agent files). */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { sourcePromptOf } from '../../../src/engine/source-prompt';
import { loadTrace } from '../../../src/trace/formats';
import { nodeFileAccess } from '../../../src/trace/node-files';
import '../../../src/trace/importers';

const ROOT = path.join(__dirname, '..', '..', '..');
function snapshotOf(file: string) {
  return makeSnapshot(`file://${file}`, 1, file, loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess));
}

test('demo: own source first; a sub-agent event without one goes to the prompt of the task it was given', () => {
  const s = snapshotOf(path.join(ROOT, 'samples', 'demo.otrace.jsonl'));
  const at = (id: string) => s.loaded.trace.events.findIndex((e) => e.id === id);
  assert.deepEqual(sourcePromptOf(s, at('e4')), { kind: 'path', path: 'prompts/planner.md', line: 3, column: undefined, why: 'the event names its source prompt' });
  // e12: a return of the researcher, no source: the delegation that gave the researcher its task
  const e12 = sourcePromptOf(s, at('e12'))!;
  const task = e12.kind === 'path' ? e12 : undefined;
  assert.ok(task, JSON.stringify(e12));
  assert.match(task!.path, /orchestrator\.md$/);
});

test('Claude Code: a sub-agent event goes to the first record of its own transcript; a main-agent event to its turn prompt', () => {
  const s = snapshotOf(path.join(ROOT, 'test', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'));
  const events = s.loaded.trace.events;
  const sub = events.findIndex((e) => e.agent.startsWith('Explore:') && e.type === 'tool_call');
  const t = sourcePromptOf(s, sub)!;
  assert.equal(t.kind, 'event');
  const first = t.kind === 'event' ? t.index : -1;
  assert.ok(s.loaded.eventOrigins.get(first)?.file?.includes('subagents'), 'in the sub-agent file');
  assert.equal(events.findIndex((e) => e.agent === events[sub].agent), first);
  const main = events.findIndex((e, i) => i > 5 && e.agent === 'main' && e.type === 'tool_call');
  const p = sourcePromptOf(s, main)!;
  assert.equal(p.kind, 'event');
  const prompt = p.kind === 'event' ? events[p.index] : undefined;
  assert.equal(prompt?.type, 'message');
  assert.ok(p.kind === 'event' && p.index < main);
});
