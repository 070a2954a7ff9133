/**
 * Runs the reader fuzzing (fuzz-readers.ts) in a child process with a timeout, so that a hang in a
 * reader fails the test instead of stalling the run. Seed and run count: see the child's output.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';

const TIMEOUT_MS = 120_000;

test('every reader survives truncations, byte flips, invalid UTF-8, line splits, shuffles and heavy inputs (fast-check, seeded)', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fuzz-readers.ts')], { encoding: 'utf8', timeout: TIMEOUT_MS, env: { ...process.env, OTRACE_FUZZ_SEED: process.env.OTRACE_FUZZ_SEED ?? '11' } });
  assert.notEqual(r.signal, 'SIGTERM', `the fuzz run hung (no result within ${TIMEOUT_MS / 1000} s)`);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const summary = /fuzz: (\d+) runs, seed (\d+)/.exec(r.stdout);
  assert.ok(summary, r.stdout);
  assert.ok(Number(summary[1]) >= 200);
  process.stdout.write(`# ${r.stdout.trim().split('\n').pop()}\n`);
});
