/**
 * Runs the mapping-file fuzzing (fuzz-mappings.ts) in a child process with a timeout, so that a
 * glob that backtracks for minutes fails the test instead of stalling the run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';

const TIMEOUT_MS = 120_000;

test('hostile mapping files and otrace.mappings values never throw, never hang, never read outside the workspace, and get positioned problems (fast-check, seeded)', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fuzz-mappings.ts')], { encoding: 'utf8', timeout: TIMEOUT_MS, env: { ...process.env, OTRACE_FUZZ_SEED: process.env.OTRACE_FUZZ_SEED ?? '11' } });
  assert.notEqual(r.signal, 'SIGTERM', `the fuzz run hung (no result within ${TIMEOUT_MS / 1000} s)`);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const summary = /fuzz mappings: (\d+) runs, seed (\d+)/.exec(r.stdout);
  assert.ok(summary, r.stdout);
  assert.ok(Number(summary[1]) >= 900);
  process.stdout.write(`# ${r.stdout.trim().split('\n').pop()}\n`);
});
