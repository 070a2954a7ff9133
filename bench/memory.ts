/**
 * Where the engine's memory goes while a large trace loads (issue #14): the phases of a load as
 * the engine's worker runs them (read, analysis, long content set aside, summary, graph overview),
 * on this thread, with the modules SessionStore runs. Per phase: the memory kept after it (V8 heap
 * and typed arrays' buffers, after a full GC) and the process's peak RSS during it (VmHWM, reset
 * before each phase; Linux only, else '–'; RSS freed by a phase is not given back at once, so a
 * later phase's peak counts from there). Then the session's structures are dropped one by one and
 * the memory each frees is listed (retained sizes, MB and bytes per event).
 *
 * With OTRACE_BENCH_MEMORY=progressive the phases are those of a progressive open instead (a trace
 * of 50,000 events or more in the engine, src/engine/session-store.ts): the read snapshot and its
 * summary, its graph index and overview bytes with the first window (what the host draws first),
 * each phase of the analysis as the engine runs them with the read snapshot still the session's,
 * then the analysed snapshot, its summary and its overview.
 *
 *   npm run bench -- memory
 *   OTRACE_BENCH_SIZES=1M npm run bench -- memory
 *   OTRACE_BENCH_SIZES=1M OTRACE_BENCH_MEMORY=progressive npm run bench -- memory
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { graphOverviewBytes, graphWindow, prepareGraph, snapshotStamp } from '../src/engine/graph-window';
import { setAsideLongContent } from '../src/engine/long-content';
import { analysedSnapshot, makeSnapshot, readSnapshot, snapshotAnalysis, type TraceSnapshot } from '../src/engine/snapshot';
import { fitWindowRequest } from '../src/shared/fit';
import { summarize, type SessionSummary } from '../src/engine/summary';
import { graphLayout } from '../src/engine/graph-model';
import { LiveFiles } from '../src/trace/live-files';
import { loadTraceFile } from '../src/trace/load-file';
import { OriginArray, type LoadedTrace } from '../src/trace/model';
import type { TraceEvent } from '../src/trace/schema';
import { writeTraceFile } from './_generate';

const SIZES: Record<string, number> = { '100k': 100_000, '1M': 1_000_000 };
const MB = 1024 * 1024;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Memory kept after a full GC (bytes): the V8 heap and the typed arrays' buffers (off the heap). */
function heapAfterGc(): number {
  gc();
  gc();
  return v8.getHeapStatistics().used_heap_size + process.memoryUsage().arrayBuffers;
}

/** The process's peak RSS since the last {@link resetPeak} (bytes), or NaN where /proc is not there. */
function peakRss(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

function resetPeak(): void {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux: peaks stay NaN-free but cumulative
  }
}

const f = (bytes: number) => (Number.isNaN(bytes) ? '–' : String(Math.round(bytes / MB)));

interface Phase {
  phase: string;
  heap: number;
  peak: number;
}

/** Runs the phases of one load and the teardown; prints the tables. */
async function measure(file: string): Promise<void> {
  const rows: Phase[] = [];
  const idleHeap = heapAfterGc();
  const idleRss = process.memoryUsage().rss;
  /** OTRACE_BENCH_NO_GC=1: no full collection between phases (peaks as in the engine; kept is then the heap used, garbage included). */
  const noGc = process.env.OTRACE_BENCH_NO_GC === '1';
  const phase = <T>(name: string, run: () => T): T => {
    resetPeak();
    const out = run();
    const peak = peakRss() - idleRss;
    rows.push({ phase: name, heap: (noGc ? v8.getHeapStatistics().used_heap_size + process.memoryUsage().arrayBuffers : heapAfterGc()) - idleHeap, peak });
    return out;
  };
  const loaded = phase('read (parse + check + origins)', () => loadTraceFile(file, new LiveFiles()));
  let snapshot: TraceSnapshot | undefined;
  let summary: SessionSummary | undefined;
  let overview: { json: Uint8Array; columns: Uint8Array } | undefined;
  if (process.env.OTRACE_BENCH_MEMORY === 'progressive') {
    // As SessionStore.run does for a trace of PROGRESSIVE_FROM_EVENTS or more.
    let first: TraceSnapshot | undefined = phase('read snapshot + its summary', () => readSnapshot('bench', -1, file, loaded));
    let readSummary: SessionSummary | undefined = summarize(first, snapshotStamp(first), loaded.bytes, false);
    phase('read: graph index (prepareGraph)', () => prepareGraph(first!));
    phase('read: overview bytes + first window (sent, then dropped)', () => {
      const o = graphOverviewBytes(first!, 'bench');
      graphWindow(first!, fitWindowRequest(o.overview, 1200));
    });
    const steps = snapshotAnalysis(first);
    let result: ReturnType<typeof steps.next> | undefined;
    for (let done = false; !done; ) {
      result = phase('analysis: …', () => steps.next());
      done = result.done === true;
      rows[rows.length - 1].phase = `analysis: ${done ? 'findings' : String(result.value)}`;
    }
    const analysis = result!.value as Parameters<typeof analysedSnapshot>[1];
    snapshot = phase('analysed snapshot (findings by event, run summary)', () => analysedSnapshot(first!, analysis));
    phase('long content set aside (read from disk on demand)', () => setAsideLongContent(snapshot!));
    summary = phase('summary (the read snapshot let go)', () => {
      first = undefined;
      readSummary = undefined;
      return summarize(snapshot!, snapshotStamp(snapshot!), loaded.bytes, false);
    });
    void readSummary;
    overview = phase('graph overview (index + JSON and column bytes)', () => graphOverviewBytes(snapshot!, 'bench'));
  } else {
    snapshot = phase('analysis (snapshot)', () => makeSnapshot('bench', -1, file, loaded));
    phase('long content set aside (read from disk on demand)', () => setAsideLongContent(snapshot!));
    summary = phase('summary', () => summarize(snapshot!, snapshotStamp(snapshot!), loaded.bytes, false));
    phase('graph layout alone (then dropped)', () => void graphLayout(loaded, Infinity, snapshot!.analysis));
    overview = phase('graph overview (index + JSON and column bytes)', () => graphOverviewBytes(snapshot!, 'bench'));
  }
  const overviewBytes = overview.json.length + overview.columns.length;
  overview = undefined;
  const n = summary.counts.events; // the summary was kept through the overview, as the engine keeps it
  summary = undefined;
  process.stdout.write(`\n${path.basename(file)}: ${n.toLocaleString('en-US')} events, ${f(fs.statSync(file).size)} MB; overview ${f(overviewBytes)} MB (JSON and packed columns)\n`);
  process.stdout.write('| phase | kept above idle MB | peak RSS above idle MB | bytes/event kept |\n|---|---|---|---|\n');
  for (const r of rows) process.stdout.write(`| ${r.phase} | ${f(r.heap)} | ${f(r.peak)} | ${Math.round(r.heap / n)} |\n`);
  const holder = { snapshot };
  snapshot = undefined;
  teardown(holder, n);
}

/** Drops the session's structures one at a time and lists the heap each one held. */
function teardown(holder: { snapshot?: TraceSnapshot }, n: number): void {
  const loaded = holder.snapshot!.loaded as LoadedTrace & { trace: { events: TraceEvent[] } };
  const analysis = () => holder.snapshot!.analysis as unknown as Record<string, unknown> | undefined;
  const steps: [string, () => void][] = [
    // The graph index is held in a WeakMap keyed by the snapshot: keep a copy of the snapshot only.
    ['graph index (layout columns, lanes, edges by source)', () => (holder.snapshot = { ...holder.snapshot! })],
    ['snapshot: byFile + findingsOf', () => Object.assign(holder.snapshot!, { byFile: new Map(), findingsOf: new Map() })],
    ['analysis: credit', () => analysis() && (analysis()!.credit = undefined)],
    ['analysis: loops + findings + stops', () => analysis() && Object.assign(analysis()!, { loops: [], findings: [], stops: [] })],
    ['analysis: metrics + the rest', () => Object.assign(holder.snapshot!, { analysis: undefined, findings: [] })],
    ['event origins', () => (loaded.eventOrigins = new OriginArray())],
    ['event content strings', () => loaded.trace.events.forEach((e) => 'content' in e && (e.content = ''))],
    ['events (the rest)', () => (loaded.trace.events = [])],
    ['edges + edge origins', () => Object.assign(loaded, { edgeOrigins: new OriginArray(), trace: { ...loaded.trace, edges: [] } })],
    ['the rest (problems, files)', () => (holder.snapshot = undefined)],
  ];
  process.stdout.write('\n| structure (dropped in this order) | MB | bytes/event |\n|---|---|---|\n');
  let before = heapAfterGc();
  for (const [name, drop] of steps) {
    drop();
    const after = heapAfterGc();
    process.stdout.write(`| ${name} | ${f(before - after)} | ${Math.round((before - after) / n)} |\n`);
    before = after;
  }
}

export async function bench(): Promise<void> {
  const dir = process.env.OTRACE_BENCH_DIR ?? path.join(os.tmpdir(), 'otrace-bench');
  const sizes = (process.env.OTRACE_BENCH_SIZES ?? '100k').split(',').filter((s) => s in SIZES);
  for (const size of sizes) {
    const file = path.join(dir, `trace-${size}.otrace.jsonl`);
    writeTraceFile(file, SIZES[size]);
    await measure(file);
  }
  process.stdout.write(`(load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})\n`);
}
