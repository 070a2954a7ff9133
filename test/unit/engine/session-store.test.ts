/**
 * The sessions where they are computed: what a load reads when it is superseded halfway, and a
 * document read from its text and then from disk again.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { InProcessEngine } from '../../../src/engine/in-process-engine';

const DEMO = path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl');
const lines = fs.readFileSync(DEMO, 'utf8').split('\n');

function liveFile(): { file: string; rest: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-store-'));
  const file = path.join(dir, 'live.otrace.jsonl');
  fs.writeFileSync(file, `${lines.slice(0, 20).join('\n')}\n`);
  return { file, rest: lines.slice(20).join('\n') };
}

test('lines a superseded load read are in the next load (they are not on disk to be found again)', async () => {
  const { file, rest } = liveFile();
  const engine = new InProcessEngine();
  const request = { key: 'k', version: -1, path: file, local: true };
  const first = (await engine.load(request))!;
  fs.appendFileSync(file, rest);
  let second: Promise<unknown> | undefined;
  // The first load reads the appended lines; a second load comes while it does, and supersedes it.
  const superseded = engine.load({ ...request, changed: [file] }, (p) => {
    if (p.phase === 'read') second = engine.load({ ...request, changed: [file] });
  });
  assert.equal(await superseded, undefined);
  const grown = (await second) as Awaited<ReturnType<typeof engine.load>>;
  assert.ok(grown && grown.stamp !== first.stamp, 'a new snapshot');
  assert.equal(grown.counts.events, 35);
  assert.ok(grown.grew);
});

test('a re-read that finds nothing changed still says the snapshot grew: a host that dropped the answer of the load that read the lines must learn it (a live trace showed new events with no "in progress")', async () => {
  const { file, rest } = liveFile();
  const engine = new InProcessEngine();
  const request = { key: 'k', version: 1, path: file, local: true };
  const first = (await engine.load(request))!;
  fs.appendFileSync(file, rest);
  const grown = (await engine.load({ ...request, version: 2, changed: [file] }))!; // the answer a host dropped
  assert.ok(grown.grew && grown.stamp !== first.stamp);
  const again = (await engine.load({ ...request, version: 3, changed: [file] }))!;
  assert.equal(again.stamp, grown.stamp, 'the same snapshot');
  assert.equal(again.version, 3);
  assert.equal(again.grew, true, 'made from appended lines');
});

test('a document read from its text (unsaved edits), then from disk, is read whole from disk', async () => {
  const { file, rest } = liveFile();
  const engine = new InProcessEngine();
  const request = { key: 'k', version: 1, path: file, local: true };
  const fromDisk = (await engine.load(request))!;
  assert.equal(fromDisk.counts.events, 19); // a trace-fields line and 19 events
  const edited = (await engine.load({ ...request, version: 2, text: `${lines.slice(0, 10).join('\n')}\n` }))!;
  assert.equal(edited.counts.events, 9);
  // saved with other content: the text on disk is not an append to what was read before
  fs.writeFileSync(file, `${lines.slice(0, 20).join('\n')}\n${rest}`);
  const saved = (await engine.load({ ...request, version: 3 }))!;
  assert.equal(saved.counts.events, 35);
  assert.equal(saved.version, 3);
  const same = (await engine.load({ ...request, version: 4 }))!;
  assert.equal(same.stamp, saved.stamp, 'unchanged on disk: the same snapshot, at the new version');
  assert.equal(same.version, 4);
});

test('a streamed trace that grows keeps the long content its next analysis needs, and answers as a fresh read', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-store-'));
  const file = path.join(dir, 'run.otrace.jsonl');
  const LONG = `build log ${'line of output '.repeat(40)} error: the build failed`;
  const event = (i: number) => JSON.stringify({ id: `e${i}`, t: i, type: i % 2 ? 'tool_result' : 'tool_call', agent: 'worker', tool: 'bash', content: i % 2 ? LONG : 'make build' });
  const batch = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `${event(from + k)}\n`).join('');
  fs.writeFileSync(file, `${JSON.stringify({ trace_id: 't', task_id: 'x' })}\n${batch(0, 6)}`);
  // Every otrace JSONL file is streamed from disk: long content is let go and read again on demand.
  const engine = new InProcessEngine({ streamFromBytes: 0 });
  const request = { key: 'k', version: -1, path: file, local: true };
  const first = (await engine.load(request))!;
  assert.equal(await engine.eventContent('k', first.stamp, 1), LONG, 'read again from disk');
  // It grows twice: the second append is read by the reader kept since the first.
  for (const [from, to] of [[6, 10], [10, 14]]) {
    fs.appendFileSync(file, batch(from, to));
    const grown = (await engine.load({ ...request, changed: [file] }))!;
    assert.equal(grown.counts.events, to);
    const fresh = (await new InProcessEngine({ streamFromBytes: 0 }).load({ ...request, key: 'fresh', inProgress: true }))!;
    assert.deepEqual(grown.findings.map((f) => f.message), fresh.findings.map((f) => f.message), `the findings of a fresh read after ${to} events`);
    for (const i of [1, to - 1]) assert.equal(await engine.eventContent('k', grown.stamp, i), LONG, `event ${i}'s content after ${to} events`);
  }
});

test("an OTel export's sibling logs file is among the session's files (the host watches them), and an append to it is read with the trace again", async () => {
  const split = path.join(__dirname, '..', '..', 'fixtures', 'otel', 'split');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-otel-logs-'));
  fs.cpSync(split, dir, { recursive: true });
  const traces = path.join(dir, 'traces.jsonl');
  const logs = path.join(dir, 'logs.jsonl');
  const engine = new InProcessEngine();
  const request = { key: 'otel', version: -1, path: traces, local: true };
  const first = (await engine.load(request))!;
  assert.ok(first.files.includes(logs), `files: ${JSON.stringify(first.files)}`);
  const lost = (s: typeof first) => s.diagnostics.flatMap((d) => d.items.map((i) => i.message)).find((m) => /GenAI log records? names? a span not in this file/.test(m));
  assert.match(lost(first) ?? '', /^1 GenAI log record names/);
  // one more record naming a span the traces file does not hold
  const doc = JSON.parse(fs.readFileSync(logs, 'utf8').split('\n')[0]);
  const record = { ...doc.resourceLogs[0].scopeLogs[0].logRecords[0], spanId: 'ffffffffffffffff' };
  doc.resourceLogs[0].scopeLogs[0].logRecords = [record];
  fs.appendFileSync(logs, `${JSON.stringify(doc)}\n`);
  const again = (await engine.load({ ...request, changed: [logs] }))!;
  assert.notEqual(again.stamp, first.stamp);
  assert.match(lost(again) ?? '', /^2 GenAI log records name/);
});
