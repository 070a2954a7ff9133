/**
 * Gemini CLI sub-agents (`chats/<session id>/<agentId>.jsonl`) read as lanes of their session, by
 * src/trace/importers/gemini-subagents.ts; fixtures written from the writer's code (test/fixtures/gemini-cli/SOURCE.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import path from 'node:path';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { nodeFileAccess } from '../../../../src/trace/node-files';
import { fixture, fixturePath } from '../../helpers';

const MAIN = ['gemini-cli', 'chats', 'session-2026-06-10T14-02-7d41c0b9.jsonl'];
const SUB = ['gemini-cli', 'chats', '7d41c0b9-5e2a-4f10-9c3b-2a8e6f1d0c44', 'a3f9e2c1-6b7d-4e58-8c21-0f4d9b6e7a15.jsonl'];

test('Gemini CLI: a sub-agent file is its own lane, spawned by the call naming its agentId, the report of its complete_task call a return to the call result', () => {
  const l = loadTrace(fixture(...MAIN), fixturePath(...MAIN), nodeFileAccess);
  assert.deepEqual([...new Set(l.trace.events.map((e) => e.agent))], ['gemini', 'codebase_investigator']);
  const spawn = l.trace.events.find((e) => e.id === 'codebase_investigator-1749564138000-1') as Record<string, unknown>;
  assert.equal(spawn.type, 'spawn');
  assert.equal(spawn.to, 'codebase_investigator');
  const first = l.trace.events.find((e) => e.id === 's1') as Record<string, unknown>;
  assert.equal(first.from, 'gemini');
  assert.ok(l.trace.edges.some((e) => e.type === 'spawn' && e.src === spawn.id && e.dst === 's1'));
  const fin = l.trace.events.find((e) => e.id === 'complete_task-1749564159000-2:report') as Record<string, unknown>;
  assert.deepEqual([fin.type, fin.agent, fin.to, fin.content], ['return', 'codebase_investigator', 'gemini', 'The retry policy is set in src/http/client.ts (createClient, maxRetries: 3).']);
  assert.ok(l.trace.edges.some((e) => e.type === 'return' && e.src === fin.id && e.dst === 'codebase_investigator-1749564138000-1:result'));
  assert.equal(l.trace.events.find((e) => e.id === 's3')?.type, 'message', 'the answer beside the call stays a message');
  // the sub-agent's events point into its own file
  const i = l.trace.events.findIndex((e) => e.id === 's2');
  assert.equal(l.eventOrigins.get(i)?.file, path.join(path.dirname(fixturePath(...MAIN)), '7d41c0b9-5e2a-4f10-9c3b-2a8e6f1d0c44', 'a3f9e2c1-6b7d-4e58-8c21-0f4d9b6e7a15.jsonl'));
  // a call whose sub-agent file is missing: a positioned info, the call stays a tool call
  const missing = l.problems.find((p) => p.message.includes('0b6d2f8e-91c4-4a37-b5e0-7c3a9d1f4e62'));
  assert.equal(missing?.severity, 'info');
  assert.equal(missing?.range.start.line, 4);
  assert.equal(l.trace.events.find((e) => e.id === 'codebase_investigator-1749564185000-2')?.type, 'tool_call');
  assert.equal(l.problems.filter((p) => p.severity === 'error').length, 0);
});

test('Gemini CLI: the report is taken from complete_task even when the answer has no text; a sub-agent that never called it returns its last answer', () => {
  const subPath = fixturePath(...SUB);
  const lines = fixture(...SUB).trimEnd().split('\n');
  const withText = (edit: (rec: Record<string, any>) => void) => {
    const out = lines.map((line) => {
      const rec = JSON.parse(line);
      if (rec.id === 's3') edit(rec);
      return JSON.stringify(rec);
    });
    return loadTrace(fixture(...MAIN), fixturePath(...MAIN), { list: nodeFileAccess.list, readText: (p) => (p === subPath ? out.join('\n') + '\n' : nodeFileAccess.readText(p)) });
  };
  const silent = withText((rec) => {
    rec.content = '';
    rec.toolCalls[0].args = { result: 'maxRetries is 3 (src/http/client.ts).' };
  });
  const ret = silent.trace.events.filter((e) => e.type === 'return');
  assert.deepEqual(ret.map((e) => [e.id, e.content]), [['complete_task-1749564159000-2:report', 'maxRetries is 3 (src/http/client.ts).']]);
  const plain = withText((rec) => {
    rec.toolCalls = [];
  });
  assert.deepEqual(plain.trace.events.filter((e) => e.type === 'return').map((e) => e.id), ['s3']);
});

test('Gemini CLI: without file access the sub-agent calls stay tool calls; a broken sub-agent file is a warning and the session loads', () => {
  const alone = loadTrace(fixture(...MAIN), fixturePath(...MAIN));
  assert.deepEqual([...new Set(alone.trace.events.map((e) => e.agent))], ['gemini']);
  const broken = loadTrace(fixture(...MAIN), fixturePath(...MAIN), {
    readText: (p) => (p.endsWith('a3f9e2c1-6b7d-4e58-8c21-0f4d9b6e7a15.jsonl') ? '{"sessionId":"a3f9e2c1","projectHash":"x","kind":"subagent"}\n{not json' : undefined),
    list: () => [],
  });
  assert.ok(broken.problems.some((p) => p.severity === 'warning' && p.message.includes('holds no message')));
  assert.ok(broken.problems.some((p) => p.file?.endsWith('a3f9e2c1-6b7d-4e58-8c21-0f4d9b6e7a15.jsonl') && p.range.start.line === 1));
  assert.equal(broken.trace.events.find((e) => e.id === 'g2')?.type, 'message');
});

test('Gemini CLI: a sub-agent file opened alone loads and says whose sub-agent it is', () => {
  const l = loadTrace(fixture(...SUB), fixturePath(...SUB), nodeFileAccess);
  assert.equal(l.format, 'gemini-cli');
  assert.ok(l.problems.some((p) => p.severity === 'info' && p.message.includes('sub-agent') && p.message.includes('7d41c0b9-5e2a-4f10-9c3b-2a8e6f1d0c44')));
  assert.equal(l.trace.events.length, 7);
});

test('Gemini CLI: a spawn with one text input says what the sub-agent was asked', () => {
  const l = loadTrace(fixture(...MAIN), fixturePath(...MAIN), nodeFileAccess);
  const spawn = l.trace.events.find((e) => e.id === 'codebase_investigator-1749564138000-1') as Record<string, unknown>;
  assert.equal(spawn.content, "Find where the HTTP client's retry policy is configured.");
  assert.deepEqual(spawn.args, { objective: "Find where the HTTP client's retry policy is configured." });
});
