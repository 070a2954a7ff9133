/**
 * A session that follows its file: after each append the engine's answer (summary, decorations'
 * marks of every kind) equals what a fresh engine answers for the same file, and once the file was
 * seen growing, new events are taken on from the last analysis (src/analysis/follow.ts) instead of
 * analysed whole; edges to events read before are analysed whole.
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
        const whole = (await fresh.load({ ...request, key: 'live' }))!;
        assert.equal(whole.analysedAs, undefined);
        assert.deepEqual(await view(engine, grown), await view(fresh, whole), `after lines ${from}-${to}: the same summary and marks as a fresh load`);
      }
      assert.deepEqual(hows, ['whole', 'appended', 'whole'], 'the first append starts following (whole), the next events are taken on from the last analysis, edges to earlier events analyse whole');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
