/**
 * What the "otrace" output channel gets for an error (src/host/log-text.ts): what was done and the
 * message on one line each, with a file name's control characters shown, so neither can forge a
 * line of the log; then the error's stack frames.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorText } from '../../../src/host/log-text';

test('an error: what was done, its message, then its frames', () => {
  const err = new Error('cannot read /w/run.jsonl');
  err.stack = 'Error: cannot read /w/run.jsonl\n    at readTrace (dist/engine-worker.js:1:200)\n    at load (dist/engine-worker.js:1:900)';
  assert.equal(errorText('reading /w/run.jsonl again', err), 'reading /w/run.jsonl again: cannot read /w/run.jsonl\n    at readTrace (dist/engine-worker.js:1:200)\n    at load (dist/engine-worker.js:1:900)');
});

test('a file name with a line break or an escape cannot forge a log line or a frame', () => {
  const name = '/w/x\n2026-01-01 [error] forged\n    at fake (x:1:1)\u001b[31m.jsonl';
  const err = new Error(`cannot read ${name}`);
  const text = errorText(`reading ${name}`, err);
  const lines = text.split('\n');
  assert.ok(lines[0].includes('forged at fake'), 'the name stays on the first line');
  assert.ok(!lines.slice(1).some((l) => l.includes('forged') || l.includes('fake')), text);
  assert.ok(lines[0].includes('⟨U+001B⟩'), 'the escape is shown, not sent');
  assert.ok(lines.slice(1).every((l) => /^\s+at /.test(l)), 'only real frames follow');
});

test('a value that is no Error is written as text', () => {
  assert.equal(errorText('asking the engine', 'gone'), 'asking the engine: gone');
});
