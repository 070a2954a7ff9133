/**
 * A large followed trace written while it is analysed (issue #30: append -> graph current): the
 * analysis of an append runs to its end, but a newer load's read is taken between its phases
 * (SessionStore.readAhead), so the views show the newest events at once; a graph view that follows
 * the session is answered before the analysis's next phase; a read taken ahead that fails is the
 * newer load's failure only; a cancel shows the trace as analysed before it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { SessionStore } from '../../../src/engine/session-store';
import type { SessionSummary } from '../../../src/engine/summary';
import type { LoadProgress, LoadRequest } from '../../../src/engine/worker-protocol';

const DEMO = path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl');
const lines = fs.readFileSync(DEMO, 'utf8').split('\n').filter((l) => l.trim() !== '');

/** A store where every trace opens progressively, following a demo file of 25 lines that grew once (its analysis now follows appends). */
async function followed(dir: string, options: { streamFromBytes?: number } = {}) {
  const file = path.join(dir, 'live.otrace.jsonl');
  fs.writeFileSync(file, `${lines.slice(0, 22).join('\n')}\n`);
  const store = new SessionStore({ ...options, progressiveFromEvents: 0 });
  const request: LoadRequest = { key: 'live', version: -1, path: file, local: true, changed: [file] };
  let id = 0;
  await store.load(request, ++id);
  fs.appendFileSync(file, `${lines.slice(22, 25).join('\n')}\n`);
  const first = (await store.load(request, ++id))!;
  assert.equal(first.analysedAs, 'whole', 'the first append starts following the file');
  return { file, store, request, first, next: () => ++id };
}

/**
 * Appends two lines and loads them; when that load's trace as read is reported (its analysis about to
 * run), `meanwhile` changes the file (by default three more lines appended) and a newer load starts,
 * its progress to `onNewer`. @param onRunning the first load's progress, each report.
 * @returns the first load's answer, and the newer load once started.
 */
function newerWhileAnalysed(
  f: Awaited<ReturnType<typeof followed>>,
  onNewer: (q: LoadProgress) => void = () => undefined,
  meanwhile = () => fs.appendFileSync(f.file, `${lines.slice(27, 30).join('\n')}\n`),
  onRunning: (p: LoadProgress) => void = () => undefined,
): { running: Promise<SessionSummary | undefined>; newer: () => Promise<SessionSummary | undefined> } {
  fs.appendFileSync(f.file, `${lines.slice(25, 27).join('\n')}\n`);
  let newer: Promise<SessionSummary | undefined> | undefined;
  const running = f.store.load(f.request, f.next(), (p) => {
    onRunning(p);
    if (!p.read || newer) return;
    meanwhile();
    newer = f.store.load(f.request, f.next(), onNewer);
    newer.catch(() => undefined); // asserted by the caller
  });
  return { running, newer: () => newer! };
}

/** `n` turns of the event loop (a host's round trip, without a clock). */
async function turns(n: number): Promise<void> {
  for (let k = 0; k < n; k++) await new Promise((r) => setImmediate(r));
}

for (const [read, options] of [
  ['read from its text', {}],
  ['streamed from its bytes', { streamFromBytes: 1 }],
] as const) {
  test(`a graph view that follows a large trace (${read}) gets the newer read's overview before the running analysis's next phase`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-read-ahead-'));
    try {
      const f = await followed(dir, options);
      const { store, first } = f;
      // the graph view follows the session: it asked for the overview as bytes once
      assert.ok(store.graphOverviewUpdate('live', 'live', 800, undefined));
      const order: string[] = [];
      // the next append comes while this one's analysis runs; the host asks for the graph a few turns after each read
      const { running, newer } = newerWhileAnalysed(
        f,
        (q) => {
          if (!q.read) return;
          order.push(`read ${q.read.counts.events}`);
          void turns(3).then(() => {
            const answer = store.graphOverviewUpdate('live', 'live', 800, undefined);
            order.push(`graph ${answer ? 'answered' : 'none'}`);
          });
        },
        undefined,
        (p) => {
          if (p.message.endsWith(' done')) order.push(`phase ${p.message.split(': ')[1]}`);
        },
      );
      assert.equal(await running, undefined, 'the load whose analysis a newer read overtook answers as superseded');
      const last = (await newer())!;
      assert.equal(last.counts.events, first.counts.events + 5);
      const shown = order.indexOf(`read ${first.counts.events + 5}`);
      assert.ok(shown >= 0 && order.slice(shown).some((x) => x.startsWith('phase')), `the newer read came between the analysis's phases: ${order.join(', ')}`);
      assert.equal(order[shown + 1], 'graph answered', `the graph's request was answered before the next phase: ${order.join(', ')}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('a read taken ahead that fails is the newer load\'s failure: the analysis before it is shown, analysed', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-read-ahead-'));
  try {
    const f = await followed(dir);
    const { file, first } = f;
    // the file is gone when the newer load reads it
    const { running, newer } = newerWhileAnalysed(f, undefined, () => fs.renameSync(file, `${file}.gone`));
    const analysed = (await running)!;
    assert.ok(analysed, 'the analysis before the failed read answers');
    assert.equal(analysed.analysisPending, undefined);
    assert.equal(analysed.counts.events, first.counts.events + 2);
    await assert.rejects(newer(), /cannot read/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a cancel while a read taken ahead is shown ends the analysis as cancelled, and the next load reads the newer lines again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-read-ahead-'));
  try {
    const f = await followed(dir, { streamFromBytes: 1 });
    const { store, request, first, next } = f;
    let reads = 0;
    const { running, newer } = newerWhileAnalysed(f, (q) => {
      // the newer trace as read is shown: the user cancels
      if (q.read && ++reads === 1) store.cancel('live');
    });
    const cancelled = (await running)!;
    assert.equal(await newer(), undefined, 'the newer load is cancelled too');
    assert.equal(cancelled.analysisError, 'the analysis was cancelled');
    assert.equal(cancelled.counts.events, first.counts.events + 2, 'the trace of the cancelled analysis is shown');
    const again = (await store.load(request, next()))!;
    assert.equal(again.counts.events, first.counts.events + 5, 'the lines the read taken ahead took are in the next load');
    assert.equal(again.analysisPending, undefined);
    assert.equal(again.analysisError, undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The summary the session shows now (what the views answer). */
function shownNow(store: SessionStore): SessionSummary | undefined {
  return (store as unknown as { sessions: Map<string, { summary?: SessionSummary }> }).sessions.get('live')?.summary;
}

// Found by a helper fuzzing the reads taken ahead: both left the newer trace as read shown as pending, with no load running.
for (const [read, options] of [
  ['read from its text', {}],
  ['streamed from its bytes', { streamFromBytes: 1 }],
] as const) {
  test(`a cancel as the read taken ahead is shown with the ended analysis's findings (${read}) ends the newer load as cancelled, nothing left pending`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-read-ahead-'));
    try {
      const f = await followed(dir, options);
      const { store, first } = f;
      let reads = 0;
      const { running, newer } = newerWhileAnalysed(f, (q) => {
        // the second report: the newer read with the findings of the analysis that just ended (showAhead); the user cancels now
        if (q.read && ++reads === 2) store.cancel('live');
      });
      assert.equal(await running, undefined, 'superseded by the read taken ahead');
      const cancelled = (await newer())!;
      assert.equal(reads, 2);
      assert.equal(cancelled.analysisError, 'the analysis was cancelled');
      assert.equal(cancelled.counts.events, first.counts.events + 5);
      const now = shownNow(store)!;
      assert.equal(now.analysisPending, undefined, `the session shows ${now.counts.events} events, no analysis pending`);
      assert.equal(now.stamp, cancelled.stamp);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test(`a newer load that fails after a read taken ahead was shown (${read}): the read taken ahead is analysed, nothing left pending`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-read-ahead-'));
    try {
      const f = await followed(dir, options);
      const { file, store, request, first, next } = f;
      let newest: Promise<SessionSummary | undefined> | undefined;
      let reads = 0;
      const { running, newer } = newerWhileAnalysed(f, (q) => {
        // the newer read shown with the ended analysis's findings: then the file goes and one more load comes
        if (!q.read || ++reads !== 2) return;
        fs.renameSync(file, `${file}.gone`);
        newest = store.load(request, next());
        newest.catch(() => undefined);
      });
      assert.equal(await running, undefined, 'superseded by the read taken ahead');
      const analysed = (await newer())!;
      assert.deepEqual([analysed.counts.events, analysed.analysisPending, analysed.analysisError, analysed.analysedAs], [first.counts.events + 5, undefined, undefined, 'appended'], 'the read taken ahead, analysed though a newer load came');
      await assert.rejects(newest!, /cannot read/, 'the newest load fails: its own failure');
      const now = shownNow(store)!;
      assert.equal(now.analysisPending, undefined, `the session shows ${now.counts.events} events, no analysis pending`);
      assert.equal(now.stamp, analysed.stamp);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
