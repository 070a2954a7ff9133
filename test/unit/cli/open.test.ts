/** Opening a trace by path: `npm start -- PATH`'s and the URI handler's choice of file, and `otrace open`. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { newestTrace, openTarget, OpenTargetError, resolveArg, traceOfOpenRequest } from '../../../src/engine/open-target';
import { fixturePath } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const SESSION = fixturePath('claude-code', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');

/** A scratch folder with files of the given contents and ages (seconds ago). */
function scratch(files: Record<string, [content: string, age: number]>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-open-'));
  const now = Date.now() / 1000;
  for (const [name, [content, age]] of Object.entries(files)) {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    fs.utimesSync(file, now - age, now - age);
  }
  return dir;
}

test('relative paths start at the given folder, ~ is the home folder', () => {
  assert.equal(resolveArg('a/b.jsonl', '/x/y'), '/x/y/a/b.jsonl');
  assert.equal(resolveArg('/abs.jsonl', '/x'), '/abs.jsonl');
  assert.equal(resolveArg('~/s.jsonl', '/x'), path.join(os.homedir(), 's.jsonl'));
});

test('a trace file opens in its own folder', () => {
  assert.deepEqual(openTarget(SESSION), { folder: path.dirname(SESSION), trace: SESSION });
});

test('a folder opens its newest trace; sub-agent files, non-traces and hidden folders are passed over', () => {
  const demo = fs.readFileSync(DEMO, 'utf8');
  const dir = scratch({
    'old.jsonl': [demo, 300],
    '2026/02/23/rollout-new.jsonl': [demo, 100],
    'session/subagents/agent-1.jsonl': [demo, 10],
    '.hidden/x.jsonl': [demo, 5],
    'package.json': ['{"name": "not a trace"}', 1],
    'notes.txt': ['newest, not json', 0],
  });
  assert.equal(newestTrace(dir), path.join(dir, '2026/02/23/rollout-new.jsonl'));
  assert.deepEqual(openTarget(dir), { folder: dir, trace: path.join(dir, '2026/02/23/rollout-new.jsonl') });
});

test('the Claude Code fixture folder opens a session, not a sub-agent file', () => {
  const { trace } = openTarget(fixturePath('claude-code'));
  assert.equal(path.dirname(trace), fixturePath('claude-code'));
});

test('a missing path or a folder without traces is a message for the user', () => {
  assert.throws(() => openTarget('/no/such/otrace/path'), (e: Error) => e instanceof OpenTargetError && /no such file or folder: \/no\/such\/otrace\/path/.test(e.message));
  const dir = scratch({ 'package.json': ['{"name": "x"}', 0] });
  assert.throws(() => openTarget(dir), /no trace file/);
});

test('the open link accepts absolute paths of traces only', () => {
  assert.equal(traceOfOpenRequest('/open', `path=${DEMO}`), DEMO);
  assert.equal(traceOfOpenRequest('/open', `path=${path.join(ROOT, 'samples', 'prompts', '..')}`).startsWith(path.join(ROOT, 'samples')), true);
  const odd = scratch({ 'a&b+c d.jsonl': [fs.readFileSync(DEMO, 'utf8'), 0] });
  assert.equal(traceOfOpenRequest('/open', `path=${odd}/a&b+c d.jsonl`), path.join(odd, 'a&b+c d.jsonl'));
  assert.throws(() => traceOfOpenRequest('/run', `path=${DEMO}`), /unknown request/);
  assert.throws(() => traceOfOpenRequest('/open', 'path=samples/demo.otrace.jsonl'), /not an absolute path/);
  assert.throws(() => traceOfOpenRequest('/open', `path=${path.join(ROOT, 'package.json')}`), /not a trace/);
  assert.throws(() => traceOfOpenRequest('/open', ''), /names no file/);
});

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
