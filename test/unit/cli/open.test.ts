/** `otrace open PATH`: the vscode:// link handed to a desktop code, or the npm start line (the choice of file: test/unit/engine/open-target.test.ts). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');

/** Runs the built CLI with `PATH` set to `pathDirs` (plus node's folder). */
function otraceOpen(arg: string, pathDirs: string[]) {
  const env = { ...process.env, PATH: [...pathDirs, path.dirname(process.execPath)].join(path.delimiter) };
  return spawnSync(process.execPath, [CLI, 'open', arg], { cwd: ROOT, encoding: 'utf8', env });
}

test('otrace open without a desktop code prints the npm start line', () => {
  const r = otraceOpen('samples/demo.otrace.jsonl', []);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`npm start -- ${DEMO.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`));
});

test('otrace open hands a desktop code the vscode:// link of the trace', () => {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-code-'));
  const record = path.join(bin, 'args.txt');
  fs.writeFileSync(path.join(bin, 'code'), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${record}'\n`, { mode: 0o755 });
  const r = otraceOpen('samples/demo.otrace.jsonl', [bin]);
  assert.equal(r.status, 0, r.stderr);
  const calls = fs.readFileSync(record, 'utf8').trim().split('\n');
  assert.deepEqual(calls.slice(-2), ['--open-url', `vscode://otrace.otrace/open?path=${encodeURIComponent(DEMO)}`]);
});

test('otrace open says so for a missing path (exit 2)', () => {
  const r = otraceOpen('no-such-trace.jsonl', []);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /otrace: no such file or folder: .*no-such-trace\.jsonl/);
});
