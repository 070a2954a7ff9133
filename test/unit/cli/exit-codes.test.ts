/**
 * Every `otrace` command keeps the same exit codes (src/cli/common.ts EXIT): 0 when the traces read
 * have no error, 1 when the output is written but something in it is wrong (a trace with errors, a
 * file of no known format, no trace found), 2 for a command line that cannot run or a path that
 * cannot be read, said in words without the usage text. `convert` never writes over its input.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fixturePath } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
const CUT = fixturePath('broken', 'cut-off.otrace.jsonl');

function otrace(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-exit-'));
const MISSING = path.join(scratch, 'no-such-trace.jsonl');
const EMPTY_DIR = fs.mkdirSync(path.join(scratch, 'empty'), { recursive: true }) ?? path.join(scratch, 'empty');
const NOT_TRACE = path.join(scratch, 'package.json');
fs.writeFileSync(NOT_TRACE, '{"name": "not a trace", "version": "1.0.0"}\n');

test('a path that cannot be read: exit 2, the reason in words, no usage text, for every command', () => {
  for (const args of [['analyze', MISSING], ['stats', MISSING], ['summary', MISSING], ['convert', MISSING, '--to', 'otrace-json'], ['validate', MISSING], ['dataset', 'stops', MISSING], ['analyze', DEMO, MISSING]]) {
    const r = otrace(...args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /otrace: cannot read .*no-such-trace\.jsonl: no such file or folder/, args.join(' '));
    assert.doesNotMatch(r.stderr, /ENOENT|usage:/, args.join(' '));
  }
  const folder = otrace('stats', scratch);
  assert.equal(folder.status, 2);
  assert.match(folder.stderr, /it is a folder/);
  assert.doesNotMatch(folder.stderr, /EISDIR|usage:/);
});

test('several traces with one missing: the others are still reported, then exit 2', () => {
  const r = otrace('analyze', DEMO, MISSING);
  assert.match(r.stdout, /demo\.otrace\.jsonl\s+35/);
  assert.equal(r.status, 2);
});

test('a folder without traces: exit 1 and "no traces found", no empty table', () => {
  for (const args of [['analyze', EMPTY_DIR], ['dataset', 'stops', EMPTY_DIR]]) {
    const r = otrace(...args);
    assert.equal(r.status, 1, args.join(' '));
    assert.match(r.stderr, /no traces found in .*empty/);
    assert.doesNotMatch(r.stdout, /^trace\s+events/m);
  }
  const withJson = otrace('analyze', scratch);
  assert.equal(withJson.status, 1);
  assert.match(withJson.stderr, /no traces found .*\(1 \.json\/\.jsonl files? of no known trace format\)/);
});

test('a file of no known format: its problem, exit 1, and no analysis, stats or converted output', () => {
  const out = path.join(scratch, 'converted.json');
  for (const args of [['analyze', NOT_TRACE], ['stats', NOT_TRACE], ['convert', NOT_TRACE, '--to', 'otrace-json', '-o', out]]) {
    const r = otrace(...args);
    assert.equal(r.status, 1, args.join(' '));
    assert.match(r.stderr, /not a recognized trace format/);
    assert.equal(r.stdout, '', args.join(' '));
  }
  assert.ok(!fs.existsSync(out), 'convert wrote nothing');
});

test('a trace with errors: the full output of what loaded, the problems on stderr, exit 1 (analyze, stats, convert)', () => {
  const analyze = otrace('analyze', CUT);
  assert.equal(analyze.status, 1);
  assert.match(analyze.stdout, /outcome /);
  assert.match(analyze.stderr, /error: last line is cut off/);
  const stats = otrace('stats', CUT);
  assert.equal(stats.status, 1);
  assert.match(stats.stdout, /events {5}\d+/);
  assert.match(stats.stderr, /error: last line is cut off/);
  const convert = otrace('convert', CUT, '--to', 'otrace-jsonl');
  assert.equal(convert.status, 1);
  assert.ok(convert.stdout.split('\n').filter(Boolean).length > 0);
  assert.match(convert.stderr, /not in the output/);
  for (const args of [['analyze', DEMO], ['stats', DEMO], ['convert', DEMO, '--to', 'otrace-json']]) assert.equal(otrace(...args).status, 0, args.join(' '));
});

test('convert -o onto the trace it reads (same path, or a link to it): refused, exit 2, the trace unchanged', () => {
  const trace = path.join(scratch, 'mine.otrace.jsonl');
  fs.copyFileSync(CUT, trace);
  const link = path.join(scratch, 'link.otrace.jsonl');
  fs.symlinkSync(trace, link);
  const before = fs.readFileSync(trace);
  for (const target of [trace, link, path.join(scratch, '.', 'mine.otrace.jsonl')]) {
    const r = otrace('convert', trace, '--to', 'otrace-jsonl', '-o', target);
    assert.equal(r.status, 2, target);
    assert.match(r.stderr, /is the trace being read; convert never writes over it/);
    assert.deepEqual(fs.readFileSync(trace), before);
  }
});

test('an unknown option or --help after a command: its usage, never a stack trace (convert --help threw the parser\'s error)', () => {
  const help = otrace('convert', '--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: otrace convert FILE --to /);
  for (const args of [['analyze', '--bogus', 'x'], ['summary', '-z'], ['query', '--nope'], ['dataset', 'stops', '--jobs']]) {
    const r = otrace(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^otrace: /, args.join(' '));
    assert.doesNotMatch(r.stderr, /\n\s+at |node:internal/, `${args.join(' ')}: no stack trace`);
  }
});
