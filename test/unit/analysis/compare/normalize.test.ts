/**
 * What steps are compared by (src/analysis/compare/normalize.ts): content without what always
 * differs between two runs of one task, tools by what they do across agent tools.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../../src/analysis';
import { compareRuns } from '../../../../src/analysis/compare';
import { comparableContent, toolFamily } from '../../../../src/analysis/compare/normalize';
import { loadedOf, type Ev } from './edited-runs';

test('content: white space, ids, numbers, timestamps and the home folder normalized; words kept', () => {
  const one = comparableContent('Read  /home/alice/proj/src/app.ts at 2026-02-23T12:40:23.123Z\n(call_dZSePrFOxvfSdMF4NR8IIqo6, toolu_01Y64XEaRvUYinzv9rW9qZXd) pid 4312 commit 9f3c2ab1 uuid 019c8a4c-ed82-79a1-aa28-7738fc5ab61a');
  const two = comparableContent('read /Users/bob/proj/src/app.ts at 2025-11-17 15:30:28\t(call_ABCDEFGH12345678, toolu_99ZZZZZZZZZZZZ) pid 77 commit 0d1e2f30 uuid 11111111-2222-3333-4444-555555555555');
  assert.equal(one, two);
  assert.equal(one, 'read ~/proj/src/app.ts at <time> (<id>, <id>) pid <n> commit <id> uuid <id>');
  assert.notEqual(comparableContent('npm test'), comparableContent('npm run build'));
  assert.equal(comparableContent(''), '');
  assert.equal(comparableContent('x'.repeat(20_000)).length, 8000, 'the head is compared');
});

test('counts are content: "3 failed" is not "4 failed"; durations, clock times, temporary names and long numeric ids are not', () => {
  const c = comparableContent;
  assert.notEqual(c('3 failed, 12 passed'), c('4 failed, 12 passed'));
  assert.notEqual(c('exit code 1'), c('exit code 2'));
  assert.notEqual(c('src/app.ts:12: error'), c('src/app.ts:13: error'), 'a line number is where the error is');
  assert.equal(c('12 passed in 0.53s'), c('12 passed in 1.2s'));
  assert.equal(c('took 120 ms'), c('took 95 ms'));
  assert.equal(c('took 120µs'), c('took 95 µs'));
  assert.equal(c('elapsed 1m30.5s'), c('elapsed 2m3s'));
  assert.equal(c('done in 3 minutes'), c('done in 12 minutes'));
  assert.notEqual(c('5 s'), c('6 s'), 'a one-letter unit only right after its number');
  assert.equal(c('[12:40:23.120] started'), c('[09:05:07.999] started'));
  assert.equal(c('wrote /tmp/tmpk2j3_x9z/out.txt'), c('wrote /tmp/tmpa81bq0c_/out.txt'));
  assert.equal(c('/private/var/folders/zz/zyxv_n0000gn/T/tmpabc/file'), c('/private/var/folders/ab/cdef_q1234gn/T/tmpxyz/file'));
  assert.equal(c('C:\\Users\\Ann\\AppData\\Local\\Temp\\abc123\\x.txt'), c('C:\\Users\\Bob\\AppData\\Local\\Temp\\zz9\\x.txt'));
  assert.notEqual(c('/tmp/output.txt'), c('/tmp/input.txt'), 'a plain name under /tmp is kept');
  assert.equal(c('/tmp/html_tmp_page'), '/tmp/html_tmp_page', 'a tmp inside a name is no temporary name');
  assert.equal(c('epoch 1735689600 id 17356896001234'), c('epoch 1735689699 id 99999999999999'));
  assert.notEqual(c('1234567 bytes'), c('1234568 bytes'), 'a size is kept');
  assert.equal(c('chatcmpl-AbC12345xyz ABCDEFGH12345678qq'), c('chatcmpl-ZZZ98765abc 0123456789abcdefQQ'));
  assert.equal(c('PID: 4312'), c('PID: 77'));
  assert.equal(c('  ÜBER  İstanbul\u00a0\u2003x  '), 'über i̇stanbul x');
});

test('two runs whose tool result differs only in a count: that step is changed; only in a duration: the same', () => {
  const run = (result: string): Ev[] => [
    { id: 'e0', type: 'tool_call', agent: 'main', tool: 'Bash', content: 'npm test' },
    { id: 'e1', type: 'tool_result', agent: 'main', tool: 'Bash', content: result },
    { id: 'e2', type: 'stop', agent: 'main', reason: 'task_complete', content: 'all done' },
  ];
  const compare = (x: Ev[], y: Ev[]) => {
    const a = loadedOf(x);
    const b = loadedOf(y);
    return compareRuns({ loaded: a, analysis: analyzeTrace(a) }, { loaded: b, analysis: analyzeTrace(b) });
  };
  const counted = compare(run('3 failed, 12 passed in 0.53s'), run('4 failed, 12 passed in 0.53s'));
  assert.deepEqual(counted.changed, [['e1', 'e1']]);
  assert.deepEqual(counted.first_divergence && [counted.first_divergence.kind, counted.first_divergence.a], ['changed', 'e1']);
  const timed = compare(run('3 failed, 12 passed in 0.53s'), run('3 failed, 12 passed in 0.71s'));
  assert.deepEqual([timed.changed, timed.first_divergence, timed.same], [[], null, 3]);
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
