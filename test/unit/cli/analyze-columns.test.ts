/**
 * `otrace analyze FILE` reads an otrace JSONL file of one trace into columns (src/trace/columns:
 * no object per event; the analysis's index reads the columns) and every other file as before:
 * its output (the readable lines or --json, the problems on stderr, the exit code) is what the
 * object reader's trace gives, on every otrace JSONL fixture, the sample, a generated trace with
 * long content and importers' traces written as otrace JSONL (their fields beyond the schema kept).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { analysisLines } from '../../../src/cli/analyze';
import { loadAnalysed, printProblems, recordPlace, safeJson } from '../../../src/cli/common';
import { ColumnEventFields } from '../../../src/trace/columns/column-fields';
import '../../../src/trace/importers';
import { loadTraceFile } from '../../../src/trace/load-file';
import { nodeFileAccess } from '../../../src/trace/node-files';
import { toOtraceJsonl } from '../../../src/trace/write';
import { generateRecords } from '../../../bench/_generate';
import { otraceJsonlFixtures } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const FIXTURES = path.join(ROOT, 'test', 'fixtures');

/** What `otrace analyze FILE [--json]` printed when it read objects: the object reader's trace analysed. */
function expected(file: string, json: boolean): { stdout: string; stderr: string; status: number } {
  const loaded = loadTraceFile(file, nodeFileAccess);
  let stderr = '';
  const err = new Writable({
    write(chunk: Buffer, _enc, done) {
      stderr += chunk.toString();
      done();
    },
  });
  const errors = printProblems(file, loaded, err);
  const a = analyzeTrace(loaded);
  const recordOf = (i: number) => {
    const o = loaded.eventOrigins.get(i);
    return o ? recordPlace(o.file ?? file, o.range.start) : 'no record';
  };
  return { stdout: json ? safeJson(a) + '\n' : analysisLines(file, a, recordOf).join('\n') + '\n', stderr, status: errors > 0 ? 1 : 0 };
}

test('otrace analyze prints for an otrace JSONL file read into columns what the object reader gives', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-analyze-columns-'));
  try {
    const generated = path.join(dir, 'generated.otrace.jsonl');
    fs.writeFileSync(generated, [...generateRecords(4000, { longContent: true, seed: 3 })].map((r) => JSON.stringify(r)).join('\n') + '\n');
    // importers' traces as otrace JSONL: fields beyond the schema (phase, exit_code, ...) read from their records
    const imported = ['claude-code/short.jsonl', 'claude-code/subagent.jsonl', 'codex/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl'].map((name, k) => {
      const out = path.join(dir, `imported-${k}.otrace.jsonl`);
      fs.writeFileSync(out, toOtraceJsonl(loadTraceFile(path.join(FIXTURES, name), nodeFileAccess).trace));
      return out;
    });
    const files = [...otraceJsonlFixtures(), path.join(ROOT, 'samples', 'demo.otrace.jsonl'), generated, ...imported];
    assert.ok(files.length > 16);
    for (const file of files) {
      for (const json of [false, true]) {
        const r = spawnSync(process.execPath, [CLI, 'analyze', file, ...(json ? ['--json'] : [])], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
        const want = expected(file, json);
        assert.equal(r.stderr, want.stderr, `${file} stderr`);
        assert.equal(r.stdout, want.stdout, `${file}${json ? ' --json' : ''}`);
        assert.equal(r.status, want.status, file);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('otrace analyze reads an otrace JSONL file of one trace into columns, a file of several traces and other formats as objects', () => {
  const one = loadAnalysed(path.join(ROOT, 'samples', 'demo.otrace.jsonl'));
  assert.ok(typeof one !== 'number');
  assert.ok(one.loaded.eventFields instanceof ColumnEventFields, 'the sample is read into columns');
  assert.equal(one.loaded.trace.events.length, 0, 'no object per event');
  assert.ok(one.loaded.eventFields.length > 10);
  for (const file of ['several-traces/two-runs.otrace.jsonl', 'survey/example_trace.json']) {
    const other = loadAnalysed(path.join(FIXTURES, file));
    assert.ok(typeof other !== 'number');
    assert.equal(other.loaded.eventFields, undefined, file);
    assert.ok(other.loaded.trace.events.length > 0, file);
  }
});
