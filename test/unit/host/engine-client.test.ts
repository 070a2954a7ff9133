/**
 * The engine in its worker thread (the worker's bundle built from the sources, as esbuild.mjs
 * does): it reads trace files from disk itself, answers the editor's questions as the in-process
 * engine does, sends the host a summary far smaller than the trace, lets a newer load or a cancel
 * supersede a running load, follows appends by reading the appended bytes only, and is started
 * again when it stops.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { threadId } from 'node:worker_threads';
import * as esbuild from 'esbuild';
import { writeTraceFile } from '../../../bench/_generate';
import { unpackOverview } from '../../../src/shared/overview-columns';
import type { GraphOverview } from '../../../src/shared/protocol';
import { InProcessEngine } from '../../../src/engine/in-process-engine';
import { WorkerEngine } from '../../../src/host/engine-client';
import { PROGRESSIVE_FROM_EVENTS } from '../../../src/engine/session-store';

const ROOT = path.join(__dirname, '..', '..', '..');
const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
const SESSION = path.join(ROOT, 'test', 'fixtures', 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
const OPTIONS = { stops: true, credit: true, loops: true };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-worker-'));
let script = '';

before(async () => {
  const { BUILDS } = (await import(path.join(ROOT, 'esbuild.mjs'))) as { BUILDS: Record<string, esbuild.BuildOptions> };
  await esbuild.build({ ...BUILDS.worker, absWorkingDir: ROOT, outdir: dir, sourcemap: false, logLevel: 'error' });
  script = path.join(dir, 'engine-worker.js');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The overview the webview reads from the engine's bytes (as webview/main.ts does), lanes as Int32 (they come in the integers they were packed in). */
function overviewOfBytes(sent: { json: Uint8Array; columns: Uint8Array }): GraphOverview {
  const o = unpackOverview(sent.json, sent.columns);
  return { ...o, columns: { ...o.columns, lane: Int32Array.from(o.columns.lane) } };
}

describe('the engine in a worker thread', () => {
  test('reads a file from disk and answers as the in-process engine does', async () => {
    const worker = new WorkerEngine(script);
    const local = new InProcessEngine();
    try {
      for (const file of [DEMO, SESSION]) {
        const request = { key: `file://${file}`, version: -1, path: file, local: true };
        const [w, l] = await Promise.all([worker.load(request), local.load(request)]);
        assert.ok(w && l);
        assert.ok(worker.threadId !== undefined && worker.threadId !== threadId, 'the sessions are in another thread');
        assert.deepEqual({ ...w, stamp: 0 }, { ...l, stamp: 0 }, `${path.basename(file)}: the same summary`);
        assert.ok(w.counts.events > 0 && w.bytesRead >= fs.statSync(file).size, 'the worker read the file itself');
        for (const f of w.files) {
          assert.deepEqual(await worker.fileMarks(w.key, w.stamp, f, OPTIONS), await local.fileMarks(l.key, l.stamp, f, OPTIONS));
          assert.deepEqual(await worker.codeLenses(w.key, w.stamp, f), await local.codeLenses(l.key, l.stamp, f));
          assert.deepEqual(await worker.outline(w.key, w.stamp, f), await local.outline(l.key, l.stamp, f));
        }
        const sent = (await worker.graphOverviewBytes(w.key, 'x'))!;
        assert.ok(sent.json instanceof Uint8Array && sent.columns instanceof Uint8Array, 'the overview crosses the thread as bytes');
        assert.deepEqual(overviewOfBytes(sent), { ...(await local.graphOverview(l.key, 'x'))!, stamp: w.stamp }, `${path.basename(file)}: the same overview from its bytes`);
        const some = [0, Math.floor(w.counts.events / 2), w.counts.events - 1];
        for (const i of some) {
          const info = await worker.eventInfo(w.key, w.stamp, i);
          assert.deepEqual(info, await local.eventInfo(l.key, l.stamp, i));
          assert.equal(await worker.eventAt(w.key, w.stamp, info!.file, info!.range.start), i, 'the event at the start of its record');
          assert.deepEqual(await worker.sourcePrompt(w.key, w.stamp, i), await local.sourcePrompt(l.key, l.stamp, i));
        }
        assert.equal(await worker.eventInfo(w.key, w.stamp + 1000, 0), undefined, 'another stamp is not answered');
      }
    } finally {
      worker.dispose();
      local.dispose();
    }
  });

  test('as a child process, the engine answers the same', async () => {
    const child = new WorkerEngine(script, { mode: 'process' });
    const local = new InProcessEngine();
    try {
      const request = { key: 'k', version: -1, path: DEMO, local: true };
      const [c, l] = await Promise.all([child.load(request), local.load(request)]);
      assert.deepEqual({ ...c, stamp: 0 }, { ...l, stamp: 0 });
      const sent = (await child.graphOverviewBytes('k', 'demo'))!;
      assert.deepEqual(overviewOfBytes(sent), { ...(await local.graphOverview('k', 'demo'))!, stamp: c!.stamp });
    } finally {
      child.dispose();
      local.dispose();
    }
  });

  test('the summary of a large trace is small: no event arrays reach the host', async () => {
    const file = path.join(dir, 'trace-40k.otrace.jsonl');
    const bytes = writeTraceFile(file, 40_000);
    const worker = new WorkerEngine(script);
    try {
      const s = (await worker.load({ key: 'k', version: -1, path: file, local: true }))!;
      assert.ok(s.counts.events >= 40_000);
      const size = JSON.stringify(s).length;
      assert.ok(size < bytes / 20, `summary ${size} bytes for a ${bytes}-byte trace`);
      assert.ok(longestArray(s) < s.counts.events / 100, `an array of ${longestArray(s)} items in the summary of ${s.counts.events} events`);
      const o = (await worker.graphOverview('k', 'x'))!;
      assert.equal(o.totalEvents, s.counts.events);
      assert.equal(o.stamp, s.stamp, 'the graph and the summary name the same snapshot');
    } finally {
      worker.dispose();
    }
  });

  // In a child process too: its answers go through a pipe a turn of its event loop at a time, and a load turned it only
  // between its phases (the overview of the trace as read came after the analysis, with every progress report).
  for (const mode of ['thread', 'process'] as const) {
    test(`a large trace opens progressively (engine in a ${mode}): the host gets the trace as read, and its overview, before the analysis ends`, async () => {
      const file = path.join(dir, `trace-progressive-${mode}.otrace.jsonl`);
      // the smallest trace that opens progressively; in a process, one whose overview (~4 MB) is many pipes' worth
      writeTraceFile(file, mode === 'thread' ? PROGRESSIVE_FROM_EVENTS : 300_000);
      const worker = new WorkerEngine(script, { mode });
      try {
        const order: string[] = [];
        let overview: Promise<{ json: Uint8Array; columns: Uint8Array } | undefined> | undefined;
        let read: { stamp: number; analysisPending?: true; findings: unknown[] } | undefined;
        const load = worker.load({ key: 'k', version: -1, path: file, local: true }, (p) => {
          if (!p.read) return;
          read = p.read;
          order.push('read');
          overview = worker.graphOverviewBytes('k', 'x', 800).then((o) => {
            order.push('overview');
            // a question asked now (the user clicks an event) is answered between the analysis's phases
            void worker.eventInfo('k', p.read!.stamp, 0).then((info) => order.push(info ? 'event info' : 'no event info'));
            return o;
          });
        });
        const analysed = (await load)!;
        order.push('analysed');
        // a file streamed from disk (64 MB and more: the process's) is read in parts, its first part shown first (src/engine/session-input.ts)
        const reads = mode === 'process' ? 2 : 1;
        assert.deepEqual(order, [...Array.from({ length: reads }, () => ['read', 'overview', 'event info']).flat(), 'analysed'], 'the overview of the trace as read came before the analysed answer, and so did an answer asked for then');
        assert.ok(read?.analysisPending && read.findings.length === 0);
        const first = overviewOfBytes((await overview)!);
        assert.equal(first.stamp, read.stamp);
        assert.equal(first.analysing, true);
        assert.ok(analysed.findings.length > 0 && analysed.stamp !== read.stamp && !analysed.analysisPending);
      } finally {
        worker.dispose();
      }
    });
  }

  test('a newer load supersedes a running one; a cancel stops it; both answer undefined', async () => {
    const file = path.join(dir, 'trace-40k.otrace.jsonl');
    writeTraceFile(file, 40_000);
    const worker = new WorkerEngine(script);
    try {
      const phases: string[] = [];
      const first = worker.load({ key: 'k', version: 1, path: file, local: true }, (p) => phases.push(p.phase));
      const second = worker.load({ key: 'k', version: 2, path: DEMO, text: fs.readFileSync(DEMO, 'utf8'), local: true });
      assert.equal(await first, undefined, 'the first load is superseded');
      assert.equal((await second)?.counts.events, 35);
      assert.ok(phases.length < 3, `the superseded load stopped before its last phase: ${phases}`);
      const cancelled = worker.load({ key: 'c', version: 1, path: file, local: true });
      worker.cancel('c');
      assert.equal(await cancelled, undefined, 'a cancelled load answers undefined');
      assert.equal(await worker.graphOverview('c', 'x'), undefined, 'and leaves no session');
    } finally {
      worker.dispose();
    }
  });

  test('a file on disk is followed: after an append only the appended bytes are read', async () => {
    const file = path.join(dir, 'live.otrace.jsonl');
    const lines = fs.readFileSync(DEMO, 'utf8').split('\n');
    const head = `${lines.slice(0, 20).join('\n')}\n`;
    fs.writeFileSync(file, head);
    const worker = new WorkerEngine(script);
    try {
      const request = { key: 'live', version: -1, path: file, local: true };
      const first = (await worker.load(request))!;
      assert.equal(first.bytesRead, Buffer.byteLength(head));
      const again = (await worker.load({ ...request, changed: [file] }))!;
      assert.equal(again.stamp, first.stamp, 'nothing changed: the same snapshot');
      assert.equal(again.bytesRead - first.bytesRead, 0, 'no byte of the trace read again to see the file unchanged (its first and last 4 KB compared: src/trace/read-ends.ts)');
      const rest = lines.slice(20).join('\n');
      fs.appendFileSync(file, rest);
      const grown = (await worker.load({ ...request, changed: [file] }))!;
      assert.ok(grown.grew, 'the session grew');
      assert.equal(grown.counts.events, 35);
      assert.equal(grown.bytesRead - again.bytesRead, Buffer.byteLength(rest), 'the appended bytes read');
    } finally {
      worker.dispose();
    }
  });

  test('a worker that stops is started again: pending calls fail, the sessions are told to load again', async () => {
    const worker = new WorkerEngine(script);
    try {
      await worker.load({ key: 'k', version: -1, path: DEMO, local: true });
      let restarted = 0;
      worker.onDidRestart(() => restarted++);
      const pending = worker.load({ key: 'k', version: 2, path: path.join(dir, 'trace-40k.otrace.jsonl'), local: true });
      await (worker as unknown as { worker: { stop(): Promise<unknown> } }).worker.stop();
      await assert.rejects(pending, /stopped/);
      assert.equal(restarted, 1);
      const again = await worker.load({ key: 'k', version: -1, path: DEMO, local: true });
      assert.equal(again?.counts.events, 35, 'a new worker answers');
    } finally {
      worker.dispose();
    }
  });

  test('starts no worker until a request needs one: no mapping files to read is not one', async () => {
    const worker = new WorkerEngine(script);
    const sent: string[] = [];
    worker.probe = (m) => sent.push(m.kind === 'call' ? m.method : m.kind);
    try {
      assert.deepEqual(await worker.configure([]), []);
      worker.cancel('k');
      worker.release('k');
      assert.equal(worker.threadId, undefined, 'no worker yet');
      assert.deepEqual(sent, []);
      assert.equal((await worker.load({ key: 'k', version: -1, path: DEMO, local: true }))?.counts.events, 35);
      assert.ok(worker.threadId !== undefined, 'the first trace starts it');
      assert.deepEqual(sent, ['load']);
    } finally {
      worker.dispose();
    }
  });

  test("a failed request rejects with the worker's message and stack; a stopped worker is told to the log", async () => {
    const logged: string[] = [];
    const worker = new WorkerEngine(script, { log: (what, err) => logged.push(`${what}: ${err.message}`) });
    try {
      const missing = path.join(dir, 'no-such-trace.otrace.jsonl');
      await assert.rejects(worker.load({ key: 'gone', version: -1, path: missing, local: true }), (err: Error) => {
        assert.ok(!err.message.includes('\n'), `the message alone: ${err.message}`);
        assert.match(err.stack ?? '', /engine-worker\.js/, 'the frames are the worker\'s');
        return true;
      });
      assert.deepEqual(logged, []);
      await (worker as unknown as { worker: { stop(): Promise<unknown> } }).worker.stop();
      await until(() => logged.length > 0);
      assert.match(logged[0], /^the engine worker stopped; it starts again for the next request: the otrace engine stopped/);
    } finally {
      worker.dispose();
    }
  });

  test('disposed, it stops its worker and refuses requests', async () => {
    const worker = new WorkerEngine(script);
    await worker.load({ key: 'k', version: -1, path: DEMO, local: true });
    const thread = (worker as unknown as { worker: { stop(): Promise<unknown> } }).worker;
    const stop = thread.stop;
    let stopped: Promise<unknown> | undefined;
    thread.stop = () => (stopped = stop());
    worker.dispose();
    assert.ok(stopped, 'the worker was told to stop');
    assert.equal(await stopped, 1, 'the thread ended (exit code 1: terminated)');
    assert.equal(worker.threadId, undefined);
    await assert.rejects(worker.load({ key: 'k', version: -1, path: DEMO, local: true }), /disposed/);
  });
});

/** The length of the longest array anywhere in a value. */
function longestArray(v: unknown): number {
  if (Array.isArray(v)) return Math.max(v.length, ...v.map(longestArray));
  if (v && typeof v === 'object') return Math.max(0, ...Object.values(v).map(longestArray));
  return 0;
}

/** Waits (polling every 10 ms, at most 10 s) until `ok` holds. */
async function until(ok: () => boolean): Promise<void> {
  for (const end = Date.now() + 10_000; !ok(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
