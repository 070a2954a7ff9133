/**
 * `otrace validate` reads otrace JSONL files into columns (src/trace/columns) and every other
 * file as before: its output (problems on stdout, the ok line on stderr, the exit code) is what
 * the object reader's problems and counts give, on every otrace JSONL fixture and on other formats.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { printProblems, safe, MAX_PATH } from '../../../src/cli/common';
import { loadTraceColumnsFile, loadTraceFile } from '../../../src/trace/load-file';
import { nodeFileAccess } from '../../../src/trace/node-files';
import { otraceJsonlFixtures } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const FIXTURES = path.join(ROOT, 'test', 'fixtures');

/** The otrace JSONL fixtures, relative to the project root. */
function jsonlFixtures(): string[] {
  return otraceJsonlFixtures().map((p) => path.relative(ROOT, p));
}

/** What validate printed before it read columns: the object reader's problems and event count. */
function expected(file: string): { stdout: string; stderr: string; status: number } {
  const loaded = loadTraceFile(path.join(ROOT, file), nodeFileAccess);
  let stdout = '';
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      stdout += chunk.toString();
      done();
    },
  });
  const errors = printProblems(file, loaded, out);
  return { stdout, stderr: errors > 0 ? '' : `${safe(file, MAX_PATH)}: ok (${loaded.format}, ${loaded.trace.events.length} events)\n`, status: errors > 0 ? 1 : 0 };
}

test('otrace validate prints for every otrace JSONL fixture, read into columns, what the object reader gives, and reads other formats as before', () => {
  const files = [...jsonlFixtures(), 'samples/demo.otrace.jsonl', 'test/fixtures/survey/example_trace.json', 'test/fixtures/broken/missing-field.otrace.json'];
  assert.ok(files.length > 14);
  for (const file of files) {
    const r = spawnSync(process.execPath, [CLI, 'validate', file], { cwd: ROOT, encoding: 'utf8' });
    const want = expected(file);
    assert.equal(r.stdout, want.stdout, file);
    assert.equal(r.stderr, want.stderr, file);
    assert.equal(r.status, want.status, file);
  }
});

test('loadTraceColumnsFile reads otrace JSONL into columns with the object reader problems and events, and leaves other formats to loadTraceFile', () => {
  for (const file of jsonlFixtures()) {
    const columns = loadTraceColumnsFile(path.join(ROOT, file))!;
    const objects = loadTraceFile(path.join(ROOT, file));
    assert.deepStrictEqual(columns.problems, objects.problems, file);
    assert.equal(columns.columns.eventCount, objects.trace.events.length, file);
    // a record read again from the file on disk, after the read closed it
    objects.trace.events.forEach((e, i) => assert.deepStrictEqual(columns.columns.event(i), e, `${file} event ${i}`));
  }
  assert.equal(loadTraceColumnsFile(path.join(FIXTURES, 'survey', 'example_trace.json')), undefined);
});
