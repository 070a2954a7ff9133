/** Which trace a path opens (src/engine/open-target.ts): `npm start -- PATH`'s and the URI handler's choice of file. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { newestTrace, openTarget, OpenTargetError, resolveArg, traceOfOpenRequest } from '../../../src/engine/open-target';
import { fixturePath } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
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

test("a Codex folder whose newest rollout is a sub-agent's opens the rollout of the thread that spawned it (its run whole), up the spawn chain", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-open-codex-'));
  try {
    const src = fixturePath('cases', '16-codex-spawn-agent');
    const names = fs.readdirSync(src).sort();
    // written in order, a child last: the child is the newest file
    names.forEach((n, k) => {
      fs.copyFileSync(path.join(src, n), path.join(dir, n));
      fs.utimesSync(path.join(dir, n), 1_700_000_000 + k, 1_700_000_000 + k);
    });
    const parent = names.find((n) => n.endsWith('a016.jsonl'))!;
    assert.equal(newestTrace(dir), path.join(dir, parent));
    // a rollout no thread spawned opens as it is
    fs.utimesSync(path.join(dir, parent), 1_800_000_000, 1_800_000_000);
    assert.equal(newestTrace(dir), path.join(dir, parent));
    // a child whose parent is not in the folder opens as it is
    fs.rmSync(path.join(dir, parent));
    assert.match(path.basename(newestTrace(dir)!), /c016\.jsonl$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
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
