/**
 * Commands over a corpus on every core (`--jobs N`, src/cli/corpus-run.ts) and one shard of it
 * (`--shard i/n`, src/cli/shard.ts), through the built CLI (dist/cli.js, whose bundle is also the
 * workers' script): the same output, byte for byte, whatever the number of worker threads; the
 * shards of a corpus partition its traces and their rows.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { shardOfKey } from '../../../src/cli/shard';
import { fixturePath } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

function cli(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
}

/** stderr without the run's duration (`in 1.2 s`), which differs from run to run. */
const timeless = (stderr: string) => stderr.replace(/ in \d+(\.\d+)? s\b/g, ' in … s');

/** A corpus of several formats in a scratch folder: Who&When, MAST, a Claude Code session with sub-agent files, a trace with errors, a file that is no trace; and (`withCodex`) a Codex run whose child rollouts sit beside it. */
function makeCorpus(withCodex: boolean): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-jobs-'));
  fs.cpSync(fixturePath('who-and-when'), path.join(dir, 'who'), { recursive: true });
  fs.cpSync(fixturePath('mast'), path.join(dir, 'mast'), { recursive: true });
  fs.cpSync(fixturePath('claude-code'), path.join(dir, 'cc'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'odd'));
  fs.copyFileSync(fixturePath('broken', 'syntax-error.otrace.jsonl'), path.join(dir, 'odd', 'syntax-error.otrace.jsonl'));
  fs.copyFileSync(fixturePath('not-traces', 'cities.json'), path.join(dir, 'odd', 'cities.json'));
  if (withCodex) fs.cpSync(fixturePath('cases', '16-codex-spawn-agent'), path.join(dir, 'codex'), { recursive: true });
  return dir;
}

let corpus: string;
let withCodex: string;
before(() => {
  corpus = makeCorpus(false);
  withCodex = makeCorpus(true);
});

/** The JSON lines of a run's stdout, by trace (in the order the traces come). */
function rowsByTrace(stdout: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of stdout.split('\n').filter(Boolean)) {
    const trace = (JSON.parse(line) as { trace: string }).trace;
    if (!out.has(trace)) out.set(trace, []);
    out.get(trace)!.push(line);
  }
  return out;
}

test('dataset stops|findings|events and analyze DIR: --jobs 1, 2 (and 3) give the same output byte for byte, the same summary and exit code', () => {
  for (const args of [['dataset', 'stops', withCodex], ['dataset', 'findings', withCodex], ['dataset', 'events', withCodex], ['analyze', withCodex, '--json']]) {
    const one = cli(...args, '--jobs', '1');
    assert.ok(one.stdout.length > 0, `${args[1]}: ${one.stderr}`);
    assert.equal(one.status, 1, 'a trace with errors in the corpus: exit 1');
    if (args[0] === 'dataset') assert.match(one.stderr, new RegExp(`otrace: ${one.stdout.split('\n').length - 1} rows from `), `${args[1]}: the rows counted are the lines written`);
    for (const jobs of args[1] === 'stops' ? ['2', '3'] : ['2']) {
      const many = cli(...args, '--jobs', jobs);
      assert.equal(many.stdout, one.stdout, `${args.join(' ')} --jobs ${jobs}: stdout`);
      assert.equal(timeless(many.stderr), timeless(one.stderr), `${args.join(' ')} --jobs ${jobs}: stderr`);
      assert.equal(many.status, one.status);
    }
  }
  // what the corpus holds, as counted the same way by every run
  const { stderr } = cli('dataset', 'stops', withCodex, '--jobs', '2');
  assert.match(stderr, /from 16 traces .*\(left out: 5 pulled in by a parent trace, 1 not traces\)/);
});

test('--jobs and --shard: a bad value is a usage error (exit 2) that says what is wanted', () => {
  for (const [args, said] of [
    [['--jobs', '0'], /--jobs takes a whole number/],
    [['--jobs', 'many'], /--jobs takes a whole number/],
    [['--shard', '2/2'], /counted from 0/],
    [['--shard', '1'], /--shard takes i\/n/],
    [['--shard-by', 'folder'], /--shard-by goes with --shard/],
    [['--shard', '0/2', '--shard-by', 'day'], /file or folder/],
  ] as const) {
    const r = cli('dataset', 'stops', corpus, ...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, said);
  }
});

test('--shard i/n: the shards partition the traces and the rows of a corpus (any n; sub-agent files with their session)', () => {
  const whole = cli('dataset', 'stops', corpus, '--jobs', '1');
  const all = rowsByTrace(whole.stdout);
  assert.ok(all.size >= 12, `${all.size} traces`);
  for (const n of [2, 3]) {
    const seen = new Map<string, string[]>();
    let traces = 0;
    let pulled = 0;
    for (let i = 0; i < n; i++) {
      const r = cli('dataset', 'stops', corpus, '--shard', `${i}/${n}`, '--jobs', '2');
      assert.ok(!/warning/.test(r.stderr), r.stderr);
      const m = /from (\d+) traces of shard (\d+)\/(\d+)/.exec(r.stderr);
      assert.ok(m && m[2] === String(i) && m[3] === String(n), r.stderr);
      traces += Number(m[1]);
      pulled += Number(/(\d+) pulled in/.exec(r.stderr)?.[1] ?? 0);
      for (const [trace, rows] of rowsByTrace(r.stdout)) {
        assert.ok(!seen.has(trace), `${trace} in two shards of ${n}`);
        seen.set(trace, rows);
      }
      // each shard's rows come in the order of the whole run
      const order = [...rowsByTrace(r.stdout).keys()];
      assert.deepEqual(order, [...all.keys()].filter((t) => order.includes(t)));
    }
    assert.deepEqual([...seen.keys()].sort(), [...all.keys()].sort(), `${n} shards: every trace once`);
    for (const [trace, rows] of all) assert.deepEqual(seen.get(trace), rows, `${n} shards: the rows of ${trace}`);
    assert.equal(traces, Number(/from (\d+) traces/.exec(whole.stderr)![1]));
    assert.equal(pulled, 3, 'the three sub-agent files are pulled in by their session, in its shard');
  }
});

test('--shard-by folder keeps a folder together: a Codex run and the child rollouts beside it; by file, a trace that pulls in a file of another shard is named', () => {
  const all = rowsByTrace(cli('dataset', 'stops', withCodex, '--jobs', '1').stdout);
  for (const n of [2, 3]) {
    const seen = new Map<string, string[]>();
    for (let i = 0; i < n; i++) {
      const r = cli('dataset', 'stops', withCodex, '--shard', `${i}/${n}`, '--shard-by', 'folder');
      assert.ok(!/warning/.test(r.stderr), r.stderr);
      for (const [trace, rows] of rowsByTrace(r.stdout)) seen.set(trace, rows);
    }
    assert.deepEqual([...seen.keys()].sort(), [...all.keys()].sort());
    for (const [trace, rows] of all) assert.deepEqual(seen.get(trace), rows);
  }
  // by file, the parent rollout and its children fall in different shards for some n: that shard says so
  const codex = fs.readdirSync(path.join(withCodex, 'codex')).sort();
  const keys = codex.map((f) => `codex/${f.replace(/\.jsonl$/, '')}`);
  const n = [2, 3, 4, 5, 6, 7].find((k) => new Set(keys.map((key) => shardOfKey(key, k))).size > 1)!;
  const parentShard = shardOfKey(keys[0], n);
  const r = cli('dataset', 'stops', withCodex, '--shard', `${parentShard}/${n}`);
  assert.match(r.stderr, /warning: codex\/rollout-2026-01-01T10-00-00-[\w-]+\.jsonl pulls in codex\/rollout-.*which another shard reads as a trace of its own: run the shards with --shard-by folder/);
});
