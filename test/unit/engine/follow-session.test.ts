/**
 * A session that follows its file: after each append the engine's answer (summary, decorations'
 * marks of every kind) equals what a fresh engine answers for the same file, and once the file was
 * seen growing, new events (and edges, to events read before too) are taken on from the last
 * analysis (src/analysis/follow.ts) instead of analysed whole.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { InProcessEngine } from '../../../src/engine/in-process-engine';
import type { SessionSummary } from '../../../src/engine/summary';

const DEMO = path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl');
const lines = fs.readFileSync(DEMO, 'utf8').split('\n').filter((l) => l.trim() !== '');
const ALL_MARKS = { stops: true, credit: true, loops: true };

/** What a view reads of a snapshot: the summary (but what says how and when it was made) and the marks of the trace file. */
async function view(engine: InProcessEngine, summary: SessionSummary) {
  const { stamp, bytesRead, grew, analysedAs, version, ...rest } = summary;
  const marks = await engine.fileMarks(summary.key, stamp, '', ALL_MARKS);
  return JSON.parse(JSON.stringify({ rest, marks })) as unknown;
}

for (const [read, options] of [
  ['read from its text', {}],
  ['streamed from its bytes', { streamFromBytes: 1 }],
] as const) {
  test(`an append to a followed session (${read}) gives the summary and marks of a fresh load, the analysis taken on from the last one`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-follow-session-'));
    try {
      const file = path.join(dir, 'live.otrace.jsonl');
      fs.writeFileSync(file, `${lines.slice(0, 20).join('\n')}\n`);
      const engine = new InProcessEngine(options);
      const request = { key: 'live', version: -1, path: file, local: true };
      const first = (await engine.load(request))!;
      assert.equal(first.analysedAs, undefined, 'a file not seen growing is analysed whole, nothing kept');
      const hows: (string | undefined)[] = [];
      // lines 20-30 are events; from line 30 on, the demo's edges, many to events read before
      for (const [from, to] of [
        [20, 25],
        [25, 30],
        [30, lines.length],
      ]) {
        fs.appendFileSync(file, `${lines.slice(from, to).join('\n')}\n`);
        const grown = (await engine.load({ ...request, changed: [file] }))!;
        assert.ok(grown.grew);
        hows.push(grown.analysedAs);
        const fresh = new InProcessEngine(options);
        const whole = (await fresh.load({ ...request, key: 'live', inProgress: true }))!;
        assert.equal(whole.analysedAs, undefined);
        assert.deepEqual(await view(engine, grown), await view(fresh, whole), `after lines ${from}-${to}: the same summary and marks as a fresh load of a trace being written`);
      }
      assert.deepEqual(hows, ['whole', 'appended', 'appended'], 'the first append starts following (whole), the next events are taken on from the last analysis, and so are edges to events read before');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

for (const [read, options] of [
  ['read from its text', {}],
  ['streamed from its bytes', { streamFromBytes: 1 }],
] as const) {
  test(`a large followed trace (${read}): after an append the trace as read keeps the last analysis's findings and marks; a newer load does not end the append's analysis, its read is shown meanwhile`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-follow-large-'));
    try {
      const file = path.join(dir, 'live.otrace.jsonl');
      fs.writeFileSync(file, `${lines.slice(0, 25).join('\n')}\n`);
      // every trace opens as a large one does (progressively): the trace as read first, then its analysis in phases
      const engine = new InProcessEngine({ ...options, progressiveFromEvents: 0 });
      const request = { key: 'live', version: -1, path: file, local: true };
      const first = (await engine.load(request))!;
      assert.ok(first.findings.length > 0, 'the first 24 events have findings (a repeated search)');
      const firstMarks = await engine.fileMarks('live', first.stamp, '', ALL_MARKS);
      assert.ok(firstMarks!.marks.some((m) => m.category.startsWith('credit')) && firstMarks!.marks.some((m) => m.category === 'loop'), 'credit and loop marks');

      // an append: while its analysis runs, the trace as read shows the first analysis's findings and marks
      fs.appendFileSync(file, `${lines.slice(25, 27).join('\n')}\n`);
      let shown: { summary: SessionSummary; marks: unknown } | undefined;
      const asRead: Promise<void>[] = [];
      const grown = (await engine.load({ ...request, changed: [file] }, (p) => {
        if (p.read) asRead.push(engine.fileMarks('live', p.read.stamp, '', ALL_MARKS).then((marks) => void (shown = { summary: p.read!, marks })));
      }))!;
      await Promise.all(asRead);
      assert.ok(shown, 'the trace as read was answered first');
      assert.equal(shown.summary.analysisPending, true);
      assert.equal(shown.summary.counts.events, first.counts.events + 2);
      assert.equal(shown.summary.analysedEvents, first.counts.events, 'it says which events its findings are of');
      assert.deepEqual(shown.summary.findings, first.findings, "the last analysis's findings, at the same places");
      assert.deepEqual(shown.marks, firstMarks, 'the same decorations: none blinks out while the append is analysed');
      assert.equal(grown.analysisPending, undefined);
      assert.equal(grown.analysedEvents, undefined, 'the analysed answer is of every event');

      // another append, and a newer load while its analysis runs: the analysis runs to its end (an append abandoned for
      // the next one would leave a trace written faster than it is analysed without findings), and the newer load's read
      // is taken between its phases: the views show the newest events at once, then with the findings of that analysis
      fs.appendFileSync(file, `${lines.slice(27, 28).join('\n')}\n`);
      let newer: Promise<SessionSummary | undefined> | undefined;
      const newerReads: SessionSummary[] = [];
      let supersededDone = false;
      const superseded = await engine.load({ ...request, changed: [file] }, (p) => {
        if (!p.read || newer) return;
        fs.appendFileSync(file, `${lines.slice(28, 30).join('\n')}\n`);
        newer = engine.load({ ...request, changed: [file] }, (q) => {
          if (q.read) newerReads.push(q.read);
          if (q.read && newerReads.length === 1) assert.equal(supersededDone, false, 'the newer read is shown while the analysis before it runs');
        });
      });
      supersededDone = true;
      assert.equal(superseded, undefined, 'the load whose analysis a newer read overtook answers as superseded');
      const last = (await newer)!;
      assert.equal(newerReads.length, 2, 'the newer trace as read is reported twice: as read, then with the findings of the analysis before it');
      assert.deepEqual(
        newerReads.map((r) => [r.counts.events, r.analysedEvents, r.analysisPending]),
        [
          [first.counts.events + 5, first.counts.events + 2, true],
          [first.counts.events + 5, first.counts.events + 3, true],
        ],
      );
      assert.equal(last.analysedAs, 'appended', 'the newer load goes on from it');
      assert.equal(last.counts.events, first.counts.events + 5);
      const fresh = new InProcessEngine(options);
      const whole = (await fresh.load({ ...request, key: 'live', inProgress: true }))!;
      assert.deepEqual(await view(engine, last), await view(fresh, whole), 'the same summary and marks as a fresh load of a trace being written');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
