/**
 * A large file opened for the first time is read in parts (issue #30, progressive open): its first
 * part answers at once (the graph draws the start of the run, the queries answer), the rest is read
 * a part at a time with a turn between parts (the graph's requests answered, a newer load or a
 * cancel seen), then the whole trace answers as read and analysed, equal to a load in one read. The
 * first part lists no problems (a reference to an event not read yet is no missing event); no byte
 * is read twice, whatever ends the read.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { InProcessEngine } from '../../../src/engine/in-process-engine';
import type { SessionSummary } from '../../../src/engine/summary';
import type { LoadProgress } from '../../../src/engine/worker-protocol';
import { summaryText } from '../../../src/host/editor/status-bar-text';
import { partWords } from '../../../src/shared/part-words';

const DEMO = path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl');
/** Every file streamed, every trace progressive; parts of about a sixth of the demo (70 lines, 9 KB). */
const PARTS = { streamFromBytes: 1, progressiveFromEvents: 0, firstPartBytes: 1500, partBytes: 1500 };

/** A copy of `source` in a folder of its own, last written an hour ago (a finished run's file) or now (`recent`: it may still be written, and is followed). */
function copyOf(source: string, recent = false): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-parts-')), path.basename(source));
  fs.copyFileSync(source, file);
  if (!recent) fs.utimesSync(file, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
  return file;
}

/** A demo trace whose first events name events later in the file (a parent written after its child: the file is not in time order of writing). */
function withForwardReference(): string {
  const lines = fs.readFileSync(DEMO, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const last = JSON.parse(lines[lines.length - 1]) as { id: string };
  const first = lines.findIndex((l) => (JSON.parse(l) as { id?: string; t?: number }).id !== undefined);
  const e = JSON.parse(lines[first]) as Record<string, unknown>;
  lines[first] = JSON.stringify({ ...e, causes: [last.id] });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-parts-')), 'forward.otrace.jsonl');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  fs.utimesSync(file, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
  return file;
}

const request = (file: string) => ({ key: 'parts', version: -1, path: file, local: true });
/** The summary without what differs between two loads of the same bytes (its stamp). */
const same = (s: SessionSummary | undefined) => s && { ...s, stamp: 0 };

/** Loads `file` with the engine's progress recorded: each answer as read, and each message. */
function recordedLoad(engine: InProcessEngine, file: string, onRead?: (s: SessionSummary) => void) {
  const reads: SessionSummary[] = [];
  const messages: string[] = [];
  /** The bytes read so far of each report of the rest's read (the views say how far it got). */
  const parts: { bytes: number; of: number }[] = [];
  const load = engine.load(request(file), (p: LoadProgress) => {
    messages.push(p.message);
    if (p.part) parts.push(p.part);
    if (p.read) {
      reads.push(p.read);
      onRead?.(p.read);
    }
  });
  return { load, reads, messages, parts };
}

for (const recent of [false, true]) {
  test(`a large file ${recent ? 'that may still be written (followed)' : 'of a finished run'} answers first with its first part, then whole, and its analysed summary equals a load in one read`, async () => {
    const file = copyOf(DEMO, recent);
    const whole = await new InProcessEngine({ streamFromBytes: 1 }).load(request(file));
    const engine = new InProcessEngine(PARTS);
    const { load, reads, messages, parts } = recordedLoad(engine, file);
    const analysed = await load;
    assert.ok(reads.length >= 2, `a first part, then the whole as read (${reads.length} answers as read)`);
    const [first, asRead] = [reads[0], reads[reads.length - 1]];
    assert.ok(first.reading && first.reading.bytes > 0 && first.reading.bytes < first.reading.of, 'the first answer is a part of the file');
    assert.equal(first.reading.of, fs.statSync(file).size);
    assert.ok(first.counts.events > 0 && first.counts.events < whole!.counts.events, `${first.counts.events} of ${whole!.counts.events} events in the first part`);
    assert.equal(first.analysisPending, true);
    assert.match(summaryText(first), new RegExp(`^otrace: first ${first.counts.events} events · .* · \\d+% of 0 MB shown, reading the rest…$`), 'the status bar says it is a part');
    assert.equal(asRead.reading, undefined, 'then the trace read whole');
    assert.equal(asRead.counts.events, whole!.counts.events);
    // the progress says how far the read went, in order
    const read = messages.filter((m) => /^reading .*: \d+% \(/.test(m)).map((m) => Number(/: (\d+)%/.exec(m)![1]));
    assert.ok(read.length >= 3, `the parts read are reported (${messages.join(' | ')})`);
    assert.deepEqual(read, [...read].sort((a, b) => a - b), 'as the read goes on');
    // and in numbers, for the graph's header and findings bar and the status bar: bytes read so far, after the part shown
    assert.equal(parts.length, read.length - 1, 'each part read after the one shown is reported in bytes too');
    assert.ok(parts.every((p, k) => p.of === first.reading!.of && p.bytes > first.reading!.bytes && (k === 0 || p.bytes > parts[k - 1].bytes)), JSON.stringify(parts));
    assert.match(partWords({ ...first.reading!, read: parts[parts.length - 1].bytes }), /^\d+% of 0 MB shown, \d+% read…$/);
    assert.deepEqual(same(analysed), same(whole), 'the analysed summary is that of a load in one read');
  });
}

test('the first part lists no problems (an event it names may be in the rest); the whole trace lists its own', async () => {
  const file = withForwardReference();
  const whole = (await new InProcessEngine({ streamFromBytes: 1 }).load(request(file)))!;
  const engine = new InProcessEngine(PARTS);
  const { load, reads } = recordedLoad(engine, file);
  const analysed = (await load)!;
  assert.ok(reads[0].reading, 'a first part');
  assert.ok(reads[0].counts.problems > 0, 'whose reader saw a reference to an event not read yet');
  assert.deepEqual(reads[0].diagnostics, [], 'no problem listed for the first part');
  const missing = (s: SessionSummary) => s.diagnostics.flatMap((d) => d.items).filter((d) => /missing event/.test(d.message));
  assert.deepEqual(missing(whole), [], 'the reference resolves in the whole trace');
  assert.deepEqual(same(analysed), same(whole), 'whose problems are listed as a load in one read lists them');
});

test("the graph's overview and windows of the first part are answered while the rest is read, and say how much of the file they show", async () => {
  const file = copyOf(DEMO);
  const engine = new InProcessEngine(PARTS);
  const order: string[] = [];
  let asked: Promise<unknown> | undefined;
  const { load } = recordedLoad(engine, file, (s) => {
    order.push(s.reading ? 'part' : 'whole');
    if (!s.reading || asked) return;
    asked = Promise.all([
      engine.graphOverview(s.key, 'parts').then((o) => (order.push('overview'), o)),
      engine.graphWindow(s.key, { seq: 1, stamp: s.stamp, mode: 'time', from: -1e9, to: 1e9, scale: 1 }).then((w) => (order.push('window'), w)),
    ]);
  });
  await load;
  const [overview, window] = (await asked) as [Awaited<ReturnType<InProcessEngine['graphOverview']>>, Awaited<ReturnType<InProcessEngine['graphWindow']>>];
  assert.ok(overview?.reading, 'the overview of the first part says it is one');
  assert.deepEqual(overview.problems, { errors: 0, warnings: 0 });
  assert.ok(window && window.nodes.length + window.runs.length > 0, 'its first window draws events');
  assert.ok(order.indexOf('window') < order.indexOf('whole'), `answered before the file was read whole (${order.join(', ')})`);
});

test('a newer load while the file is read in parts ends that load; the newer one reads on from where it ended (no byte read twice) and equals a load in one read', async () => {
  const file = copyOf(DEMO);
  const whole = await new InProcessEngine({ streamFromBytes: 1 }).load(request(file));
  const engine = new InProcessEngine(PARTS);
  let newer: Promise<SessionSummary | undefined> | undefined;
  const { load } = recordedLoad(engine, file, (s) => {
    if (s.reading && !newer) newer = engine.load(request(file));
  });
  assert.equal(await load, undefined, 'the first load was superseded');
  const analysed = await newer;
  assert.deepEqual(same(analysed), same({ ...whole!, bytesRead: analysed!.bytesRead }));
  assert.equal(analysed!.bytesRead, fs.statSync(file).size, 'each byte read once');
  assert.equal(analysed!.reading, undefined);
});

test('a cancel while the file is read in parts ends the load, its part shown as cancelled there (not pending); the next load reads on and equals a load in one read', async () => {
  const file = copyOf(DEMO);
  const whole = await new InProcessEngine({ streamFromBytes: 1 }).load(request(file));
  const engine = new InProcessEngine(PARTS);
  const { load, reads } = recordedLoad(engine, file, (s) => {
    if (s.reading && !s.reading.stopped) engine.cancel(s.key);
  });
  assert.equal(await load, undefined, 'the load was cancelled');
  const last = reads[reads.length - 1];
  assert.ok(last.reading?.stopped, 'the views are told the read stopped');
  assert.equal(last.reading.bytes, reads[0].reading!.bytes, 'at the first part');
  assert.equal(last.analysisPending, undefined, 'no longer pending');
  assert.match(last.analysisError ?? '', /the read was cancelled/);
  assert.match(summaryText(last), /· \d+% of 0 MB shown, read stopped$/);
  const overview = await engine.graphOverview('parts', 'parts');
  assert.ok(overview?.reading?.stopped && !overview.analysing, 'the graph says it too');
  const next = await engine.load(request(file));
  assert.deepEqual(same(next), same(whole));
});

test('a file that grows while it is read in parts: the appended lines are read once, and the next load finds them as read', async () => {
  const file = copyOf(DEMO);
  const text = fs.readFileSync(file, 'utf8');
  const engine = new InProcessEngine(PARTS);
  const extra = text.split('\n').filter((l) => l.trim() !== '').slice(-1)[0].replace(/"id":"([^"]+)"/, '"id":"$1-again"');
  const { load, reads } = recordedLoad(engine, file, (s) => {
    if (s.reading && !fs.readFileSync(file, 'utf8').endsWith(`${extra}\n`)) fs.appendFileSync(file, `${extra}\n`);
  });
  const first = (await load)!;
  assert.ok(reads[0].reading, 'read in parts');
  const whole = await new InProcessEngine({ streamFromBytes: 1 }).load(request(file));
  assert.equal(first.counts.events, whole!.counts.events, 'the appended line was read by the read in parts');
  const next = (await engine.load(request(file)))!;
  assert.equal(next.counts.events, whole!.counts.events);
  assert.equal(next.bytesRead, fs.statSync(file).size, 'no byte read twice');
});

// Found by a fuzz of the reads in parts (appends, truncations, rewrites, deletes, newer loads, cancels, odd files).
test('a file whose last line has no line break, or holds a line longer than a part, is read to its end (a part always moves on)', { timeout: 60_000 }, async () => {
  const text = fs.readFileSync(DEMO, 'utf8');
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const long = JSON.parse(lines[10]) as Record<string, unknown>;
  const cases: [string, string, typeof PARTS][] = [
    ['no final line break', text.replace(/\n+$/, ''), PARTS],
    ['a cut-off last line', `${text}{"id":"cut","t":99,"ty`, PARTS],
    ['a line longer than a part', `${[...lines.slice(0, 10), JSON.stringify({ ...long, content: 'x'.repeat(5000) }), ...lines.slice(11)].join('\n')}\n`, PARTS],
    ['a first line longer than the first part', text, { ...PARTS, firstPartBytes: 50, partBytes: 50 }],
  ];
  for (const [name, content, options] of cases) {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-parts-')), 'odd.otrace.jsonl');
    fs.writeFileSync(file, content);
    fs.utimesSync(file, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
    const whole = await new InProcessEngine({ streamFromBytes: 1, firstPartBytes: Infinity }).load(request(file));
    const engine = new InProcessEngine(options);
    const { load, messages } = recordedLoad(engine, file);
    const analysed = await load;
    assert.ok(messages.length < 100, `${name}: ${messages.length} progress reports`);
    assert.deepEqual(same(analysed), same(whole), name);
  }
});

test('a file truncated and written anew between two parts: the rest read is what the file holds then', async () => {
  const file = copyOf(DEMO);
  const text = fs.readFileSync(file, 'utf8');
  const engine = new InProcessEngine(PARTS);
  let changed = false;
  const { load } = recordedLoad(engine, file, (s) => {
    if (!s.reading || changed) return;
    changed = true;
    // the lines after the first part written again with other ids, from the part's end
    const rest = text.slice(Buffer.from(text).subarray(0, s.reading.bytes).toString('utf8').length).replace(/"id":"/g, '"id":"new-');
    fs.truncateSync(file, s.reading.bytes);
    fs.appendFileSync(file, rest);
  });
  const analysed = await load;
  const fresh = await new InProcessEngine({ streamFromBytes: 1, firstPartBytes: Infinity }).load(request(file));
  assert.ok(changed);
  assert.deepEqual({ ...same(analysed), bytesRead: 0 }, { ...same(fresh), bytesRead: 0 });
});

test('a file deleted while it is read in parts: the load fails, and its part is shown as where the read stopped, not as reading', async () => {
  const file = copyOf(DEMO);
  const engine = new InProcessEngine(PARTS);
  const { load, reads } = recordedLoad(engine, file, (s) => {
    if (s.reading && !s.reading.stopped && fs.existsSync(file)) fs.unlinkSync(file);
  });
  await assert.rejects(load);
  const last = reads[reads.length - 1];
  assert.ok(last.reading?.stopped, 'the views are told the read stopped');
  assert.match(last.analysisError ?? '', /the read failed/);
  assert.equal(last.analysisPending, undefined);
});

// Found in review.
test('a newer load while the file is read in parts reads on in parts (not the whole rest at once); cancelled, its part is shown as stopped', async () => {
  const file = copyOf(DEMO);
  const engine = new InProcessEngine(PARTS);
  let newer: ReturnType<typeof recordedLoad> | undefined;
  const { load } = recordedLoad(engine, file, (s) => {
    if (s.reading && !newer) newer = recordedLoad(engine, file);
  });
  assert.equal(await load, undefined, 'superseded');
  const analysed = await newer!.load;
  const parts = newer!.messages.filter((m) => /^reading .*: \d+% \(/.test(m));
  assert.ok(parts.length >= 2, `the newer load read on a part at a time: ${newer!.messages.join(' | ')}`);
  assert.equal(analysed!.reading, undefined);

  // the same, the newer load cancelled as it reads on
  const other = copyOf(DEMO);
  const engine2 = new InProcessEngine(PARTS);
  let second: ReturnType<typeof recordedLoad> | undefined;
  const first = recordedLoad(engine2, other, (s) => {
    if (s.reading && !second) {
      second = recordedLoad(engine2, other, (t) => {
        if (t.reading && !t.reading.stopped) engine2.cancel(t.key);
      });
    }
  });
  assert.equal(await first.load, undefined);
  assert.equal(await second!.load, undefined, 'cancelled');
  const shown = second!.reads[second!.reads.length - 1];
  assert.ok(shown.reading?.stopped, `the part is shown as stopped, not as reading: ${JSON.stringify(shown.reading)}`);
  const overview = await engine2.graphOverview('parts', 'parts');
  assert.ok(overview?.reading?.stopped && !overview.analysing);
});

test('a large file of few events (not analysed progressively) read in parts: its whole trace as read replaces the part before its analysis', async () => {
  const file = copyOf(DEMO);
  const engine = new InProcessEngine({ ...PARTS, progressiveFromEvents: 1_000_000 });
  const { load, reads } = recordedLoad(engine, file);
  const analysed = await load;
  assert.ok(reads[0].reading, 'the first part first');
  assert.ok(reads.some((s) => !s.reading), `then the whole trace as read: ${reads.map((s) => s.counts.events).join(', ')}`);
  assert.equal(analysed!.reading, undefined);
});
