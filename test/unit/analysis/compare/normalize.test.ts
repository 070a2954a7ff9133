/**
 * What steps are compared by (src/analysis/compare/normalize.ts): content without what always
 * differs between two runs of one task, tools by what they do across agent tools.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { comparableContent, toolFamily } from '../../../../src/analysis/compare/normalize';

test('content: white space, ids, numbers, timestamps and the home folder normalized; words kept', () => {
  const one = comparableContent('Read  /home/alice/proj/src/app.ts at 2026-02-23T12:40:23.123Z\n(call_dZSePrFOxvfSdMF4NR8IIqo6, toolu_01Y64XEaRvUYinzv9rW9qZXd) pid 4312 commit 9f3c2ab1 uuid 019c8a4c-ed82-79a1-aa28-7738fc5ab61a');
  const two = comparableContent('read /Users/bob/proj/src/app.ts at 2025-11-17 15:30:28\t(call_ABCDEFGH12345678, toolu_99ZZZZZZZZZZZZ) pid 77 commit 0d1e2f30 uuid 11111111-2222-3333-4444-555555555555');
  assert.equal(one, two);
  assert.equal(one, 'read ~/proj/src/app.ts at <time> (<id>, <id>) pid <n> commit <id> uuid <id>');
  assert.notEqual(comparableContent('npm test'), comparableContent('npm run build'));
  assert.equal(comparableContent(''), '');
  assert.equal(comparableContent('x'.repeat(20_000)).length, 8000, 'the head is compared');
});

test('tools by family across Claude Code, Codex, Kimi, Copilot CLI and Gemini CLI; unknown tools by their name', () => {
  for (const t of ['Bash', 'shell', 'exec_command', 'local_shell', 'Shell', 'run_shell_command']) assert.equal(toolFamily(t), 'shell', t);
  for (const t of ['Edit', 'MultiEdit', 'apply_patch', 'StrReplaceFile', 'str_replace_editor']) assert.equal(toolFamily(t), 'edit', t);
  for (const t of ['Read', 'read_file', 'ReadFile', 'view']) assert.equal(toolFamily(t), 'read', t);
  for (const t of ['Task', 'Agent', 'spawn_agent']) assert.equal(toolFamily(t), 'agent', t);
  assert.equal(toolFamily('mcp__cloud__search'), 'mcp__cloud__search');
  assert.equal(toolFamily(undefined), '');
  assert.equal(toolFamily('constructor'), 'constructor', 'no prototype names');
});
