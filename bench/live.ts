/**
 * Live traces: the time to take 100 appended lines into a followed trace, through the format's
 * growing import (src/trace/growing-load.ts: the new lines into the state kept) beside a whole
 * re-import of the file's text (what a session did on each append before), and the analysis that
 * follows each change (run whole on the new trace; measured, not changed here).
 *
 * Traces: a generated otrace JSONL trace of 100k events (bench/_generate.ts), a large Claude Code
 * session (the real session of the corpus, or of the fixtures when the corpus is absent,
 * replicated to ~20 MB as bench/import-agents.ts does, with its sub-agent files) and a Codex
 * rollout replicated to ~10 MB. Each is written to a temporary folder and appended to on disk;
 * LiveFiles reads the appended bytes. And a generated trace of 300k events (~68 MB), over the size
 * from which a session streams a file's bytes instead of holding its text, followed from its bytes.
 *
 * Each figure is the median over {@link ROUNDS} appends of 100 lines. A table on stdout and the
 * figures in bench/results.json (`live`).
 *
 * Then the analysis that follows appends (src/analysis/follow.ts), per size of OTRACE_BENCH_SIZES
 * (default 1M): a generated otrace JSONL trace followed through the worker's SessionFiles, and per
 * append of 100 lines ({@link FOLLOW_ROUNDS} of them) the followed analysis, then {@link FOLLOW_WHOLE_ROUNDS}
 * whole analyses of the last trace (checked to find what the followed one found); median and p95, how each append was
 * taken in, the machine's load. `OTRACE_BENCH_LIVE=follow` runs only these rows:
 *   OTRACE_BENCH_SIZES=1M OTRACE_BENCH_LIVE=follow npm run bench -- live
 * (OTRACE_BENCH_DEBUG=1 prints each append's time and how its links were made.)
 *
 * And a trace written while it is analysed (bench/live-written.ts), a mode of its own:
 *   OTRACE_BENCH_SIZES=1M OTRACE_BENCH_LIVE=written npm run bench -- live
 *
 * And "append -> graph current" (issue #30: within 100 ms p95 at 1M events), a mode of its own:
 *   OTRACE_BENCH_SIZES=1M OTRACE_BENCH_LIVE=graph npm run bench -- live
 * (with OTRACE_BENCH_OVERVIEW=whole each append's overview is made whole, as before the deltas)
 * a generated trace loaded through a SessionStore as the worker does, 12 appends of 100 lines, per
 * append the time from the load's call until the overview's bytes and the first window are made,
 * by phase (bytes read + import, read snapshot + summary, layout structure, graph index, overview, first window),
 * median and p95, and how the layout structure was made (extended from the last one, or whole and why).
 * After each load, untimed, the analysed trace's overview and first window are made, as the host asks
 * for them when the analysis ends (since 2026-12-03: the page's graph of the analysed trace is the
 * one the next append's trace as read is made from: its marks, plans and findings list).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { analyzeTrace } from '../src/analysis';
import { FollowAnalysis, type FollowHow } from '../src/analysis/follow';
import { SessionFiles, STREAM_FROM_BYTES } from '../src/engine/session-input';
import type { LoadRequest } from '../src/engine/worker-protocol';
import { loadTrace } from '../src/trace/formats';
import { GrowingLoad } from '../src/trace/growing-load';
import '../src/trace/importers';
import { LiveFiles } from '../src/trace/live-files';
import { loadTraceFile } from '../src/trace/load-file';
import type { MappingSource } from '../src/trace/mapping-choice';
import type { LoadedTrace } from '../src/trace/model';
import { generateRecords } from './_generate';
import { SessionStore } from '../src/engine/session-store';
import { layoutStructure } from '../src/engine/graph-structure';
import { lastExtension } from '../src/engine/structure-growth';
import { graphOverviewBytes, graphWindow, prepareGraph } from '../src/engine/graph-window';
import type { GraphOverview } from '../src/shared/protocol';
import type { OverviewDelta } from '../src/shared/overview-delta';
import { fitWindowRequest } from '../src/shared/fit';
import type { TraceSnapshot } from '../src/engine/snapshot';
import { fmt } from './_util';

/** Appends measured per trace. */
const ROUNDS = 7;
/** Lines per append. */
const LINES = 100;
/** Appends whose analysis is timed (it takes seconds at 100k events). */
const ANALYSIS_ROUNDS = 2;
const NO_MAPPINGS: MappingSource[] = [];
const SESSION = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';

/** One row of the table. */
interface LiveRow {
  trace: string;
  events: number;
  file_mb: number;
  first_load_ms: number;
  /** Refresh (read the appended bytes) + growing import, per append of 100 lines. */
  append_growing_ms: number;
  /** Refresh + whole re-import of the file's text (from memory), per append. */
  append_whole_ms: number;
  speedup: number;
  /** analyzeTrace on the trace after an append (run whole). */
  analysis_ms: number;
}

/** Appends whose followed analysis is timed, per size. */
const FOLLOW_ROUNDS = 20;
/** Whole analyses of the last append's trace timed after the followed ones (seconds each at 1M events). */
const FOLLOW_WHOLE_ROUNDS = 3;
/** Sizes of the follow rows (OTRACE_BENCH_SIZES picks among them). */
const FOLLOW_SIZES: Record<string, number> = { '100k': 100_000, '300k': 300_000, '1M': 1_000_000 };

/** One row of the followed analysis's table. */
interface FollowRow {
  events: number;
  file_mb: number;
  /** Appends of {@link LINES} lines, and how the followed analysis took each in. */
  appends: number;
  taken: Record<FollowHow, number>;
  /** Reading the appended lines (the followed file's reader). */
  read_median_ms: number;
  /** The followed analysis of each append, every append (whole ones included). */
  follow_median_ms: number;
  follow_p95_ms: number;
  /** The same, over the appends taken in as appends only. */
  appended_median_ms: number;
  appended_p95_ms: number;
  /** A whole analysis of the trace after the last append. */
  whole_median_ms: number;
  /** Load average (1 min) before and after the row. */
  load: [number, number];
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
/** The value at quantile q (nearest rank) of xs. */
export const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.ceil(q * xs.length) - 1))];
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Follows `main` while `append(k)` adds the k-th batch of lines: per batch, the growing load and a
 * whole re-import of the same text (checked to give as many events), and for the first batches the analysis.
 */
function follow(name: string, main: string, append: (k: number) => void): LiveRow {
  const live = new LiveFiles();
  const growing = new GrowingLoad();
  let t0 = process.hrtime.bigint();
  let loaded: LoadedTrace = growing.load(main, live, NO_MAPPINGS);
  const first = ms(t0);
  const grow: number[] = [];
  const whole: number[] = [];
  const analysis: number[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    append(k);
    t0 = process.hrtime.bigint();
    for (const p of live.paths()) live.refresh(p);
    loaded = growing.load(main, live, NO_MAPPINGS);
    grow.push(ms(t0));
    t0 = process.hrtime.bigint();
    const again = loadTrace(live.readText(main)!, main, live);
    whole.push(ms(t0));
    if (again.trace.events.length !== loaded.trace.events.length || again.problems.length !== loaded.problems.length) throw new Error(`${name}: the growing import differs from the whole import after append ${k + 1}`);
    if (k < ANALYSIS_ROUNDS) {
      t0 = process.hrtime.bigint();
      analyzeTrace(loaded);
      analysis.push(ms(t0));
    }
  }
  if (growing.counts.whole !== 1) throw new Error(`${name}: ${growing.counts.whole} whole reads, expected only the first`);
  const g = median(grow);
  const w = median(whole);
  return { trace: name, events: loaded.trace.events.length, file_mb: Math.round((fs.statSync(main).size / 1e6) * 10) / 10, first_load_ms: Math.round(first), append_growing_ms: Math.round(g * 10) / 10, append_whole_ms: Math.round(w), speedup: Math.round(w / g), analysis_ms: Math.round(median(analysis)) };
}

/** The lines of a generated otrace JSONL trace of `n` events, and `extra` more lines after them. */
function otraceLines(n: number, extra: number): { head: string[]; more: string[] } {
  const lines = [JSON.stringify({ trace_id: `live-${n}`, task_id: 'bench', system: 'generated' })];
  let events = 0;
  let more: string[] | undefined;
  for (const r of generateRecords(n + extra * 2)) {
    lines.push(JSON.stringify('event' in r ? r.event : { edge: r.edge }));
    if ('event' in r && ++events === n) more = [];
    if (more && lines.length > n + 1) more.push(lines.pop()!);
    if (more && more.length >= extra) break;
  }
  return { head: lines, more: more! };
}

function otraceRow(dir: string, n: number): LiveRow {
  const file = path.join(dir, `live-${n}.otrace.jsonl`);
  const more = writeOtraceTrace(file, n, ROUNDS * LINES);
  return follow(`otrace JSONL ${fmt(n / 1000, 0)}k events`, file, (k) => fs.appendFileSync(file, `${more.slice(k * LINES, (k + 1) * LINES).join('\n')}\n`));
}

/** The real session (corpus, else fixtures): its text and sub-agent folder. */
function claudeSource(): { main: string; subDir: string; label: string } {
  const corpus = process.env.OTRACE_CORPUS ?? path.join(__dirname, '..', '..', 'shared', 'corpus');
  const inCorpus = path.join(corpus, 'claude-code', `${SESSION}.jsonl`);
  if (fs.existsSync(inCorpus)) return { main: inCorpus, subDir: path.join(corpus, 'claude-code', SESSION, 'subagents'), label: 'corpus' };
  const fixtures = path.join(__dirname, '..', 'test', 'fixtures', 'claude-code-session');
  return { main: path.join(fixtures, `${SESSION}.jsonl`), subDir: path.join(fixtures, SESSION, 'subagents'), label: 'fixtures' };
}

function claudeRow(dir: string, bytes: number): LiveRow {
  const src = claudeSource();
  const text = fs.readFileSync(src.main, 'utf8');
  const body = text.endsWith('\n') ? text : `${text}\n`;
  const ids = /\b(toolu_|msg_)[A-Za-z0-9]+|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
  const copies = Math.max(2, Math.round(bytes / Buffer.byteLength(body)));
  const parts: string[] = [];
  for (let k = 0; k < copies; k++) parts.push(k === 0 ? body : body.replace(ids, (m) => `${m}c${k}`));
  // The last copy's first lines are what gets appended.
  const lines = parts.pop()!.split('\n').filter((l) => l.trim() !== '');
  const main = path.join(dir, `${SESSION}.jsonl`);
  fs.writeFileSync(main, parts.join(''));
  fs.cpSync(src.subDir, path.join(dir, SESSION, 'subagents'), { recursive: true });
  return follow(`Claude Code session (${src.label}, ${copies - 1} copies + sub-agents)`, main, (k) => fs.appendFileSync(main, `${lines.slice(k * LINES, (k + 1) * LINES).join('\n')}\n`));
}

/** The long real rollout (corpus, else fixtures), replicated to about `bytes`, each copy's call ids its own. */
function codexRow(dir: string, bytes: number): LiveRow {
  const name = 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl';
  const corpus = path.join(process.env.OTRACE_CORPUS ?? path.join(__dirname, '..', '..', 'shared', 'corpus'), 'codex', 'raw', 'sessions', name);
  const src = fs.existsSync(corpus) ? { file: corpus, label: 'corpus' } : { file: path.join(__dirname, '..', 'test', 'fixtures', 'codex', name), label: 'fixtures' };
  const text = fs.readFileSync(src.file, 'utf8');
  const body = text.endsWith('\n') ? text : `${text}\n`;
  const copies = Math.max(2, Math.round(bytes / Buffer.byteLength(body)));
  const parts: string[] = [];
  for (let k = 0; k < copies; k++) parts.push(k === 0 ? body : body.replace(/\bcall_[A-Za-z0-9]+/g, (m) => `${m}c${k}`));
  // The last copy's lines after its first (a session_meta) are what gets appended.
  const lines = parts.pop()!.split('\n').filter((l) => l.trim() !== '').slice(1);
  const main = path.join(dir, name);
  fs.writeFileSync(main, parts.join(''));
  return follow(`Codex rollout (${src.label}, ${copies - 1} copies)`, main, (k) => fs.appendFileSync(main, `${lines.slice(k * LINES, (k + 1) * LINES).join('\n')}\n`));
}

/**
 * A generated otrace JSONL trace of `n` events above the streaming size (64 MB), followed through
 * the worker's SessionFiles (read from its bytes, src/trace/growing-file.ts) beside a whole
 * streamed read (`loadTraceFile`, what a session did on each change before).
 */
function streamedRow(dir: string, n: number): LiveRow {
  const file = path.join(dir, `live-${n}.otrace.jsonl`);
  const more = writeOtraceTrace(file, n, ROUNDS * LINES);
  if (fs.statSync(file).size < STREAM_FROM_BYTES) throw new Error(`${file} is under the streaming size`);
  const files = new SessionFiles();
  const load = sessionLoader(files, 'live', file, false);
  let t0 = process.hrtime.bigint();
  let loaded = load();
  const first = ms(t0);
  const grow: number[] = [];
  const whole: number[] = [];
  const analysis: number[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    fs.appendFileSync(file, `${more.slice(k * LINES, (k + 1) * LINES).join('\n')}\n`);
    const bytesBefore = files.bytesRead;
    t0 = process.hrtime.bigint();
    loaded = load();
    grow.push(ms(t0));
    // the file, just written, is followed from its first read (src/engine/session-input.ts, MAY_BE_WRITTEN_MS): each append
    // reads only what was appended (a file written long before is read whole once more at its first append)
    if (k === 0) process.stdout.write(`  streamed ${n}: first append read ${files.bytesRead - bytesBefore} bytes in ${Math.round(grow[0])} ms\n`);
    if (files.bytesRead - bytesBefore > 2 * fs.statSync(file).size / (n / LINES)) throw new Error(`append ${k + 1}: ${files.bytesRead - bytesBefore} bytes read: not followed`);
    if (k < 3) {
      t0 = process.hrtime.bigint();
      const again = loadTraceFile(file);
      whole.push(ms(t0));
      if (again.trace.events.length !== loaded.trace.events.length || again.problems.length !== loaded.problems.length) throw new Error(`streamed: the growing read differs from the whole read after append ${k + 1}`);
    }
    if (k < ANALYSIS_ROUNDS) {
      t0 = process.hrtime.bigint();
      analyzeTrace(loaded);
      analysis.push(ms(t0));
    }
  }
  const g = median(grow.slice(1)); // the appends after the first (printed above)
  const w = median(whole);
  return { trace: `otrace JSONL ${fmt(n / 1000, 0)}k events, streamed (over 64 MB)`, events: loaded.trace.events.length, file_mb: Math.round((fs.statSync(file).size / 1e6) * 10) / 10, first_load_ms: Math.round(first), append_growing_ms: Math.round(g * 10) / 10, append_whole_ms: Math.round(w), speedup: Math.round(w / g), analysis_ms: Math.round(median(analysis)) };
}

/**
 * Writes a generated otrace JSONL trace of `n` events to `file` (new) and returns the `extra` lines
 * that come after them, to be appended. The written lines are not returned: a row that held them
 * (a string per line, 390 MB at 1M events) while it timed made every full collection mark a heap
 * twice the engine's (760 MB live, not 385), which never holds its file's text.
 */
export function writeOtraceTrace(file: string, n: number, extra: number): string[] {
  const { head, more } = otraceLines(n, extra);
  writeLines(file, head);
  return more;
}

/** Writes `lines` to `file` (new), 10,000 lines a write. */
function writeLines(file: string, lines: readonly string[]): void {
  const out = fs.openSync(file, 'w');
  for (let k = 0; k < lines.length; k += 10_000) fs.writeSync(out, `${lines.slice(k, k + 10_000).join('\n')}\n`);
  fs.closeSync(out);
}

/**
 * A load of `file` through `files` as the worker's session does it (`mayGrow`: the file was read
 * from disk before, so an append is read from where it ended); throws when the read found nothing new.
 */
function sessionLoader(files: SessionFiles, key: string, file: string, mayGrow: boolean): () => LoadedTrace {
  const request: LoadRequest = { key, version: -1, path: file, local: true, changed: [file] };
  return () => {
    const r = files.read(request, NO_MAPPINGS, mayGrow);
    if (r === 'unchanged') throw new Error('unchanged');
    files.kept();
    return r.loaded;
  };
}

/**
 * A generated otrace JSONL trace of `n` events followed through SessionFiles (as the worker follows
 * it) while {@link FOLLOW_ROUNDS} appends of {@link LINES} lines come: per append the read and the
 * followed analysis; then {@link FOLLOW_WHOLE_ROUNDS} whole analyses of the last trace (checked to
 * give the same findings, stops, loops and outcome as the followed one).
 */
async function followRow(dir: string, n: number): Promise<FollowRow> {
  const load0 = os.loadavg()[0];
  const file = path.join(dir, `follow-${n}.otrace.jsonl`);
  const more = writeOtraceTrace(file, n, (FOLLOW_ROUNDS + 1) * LINES);
  const files = new SessionFiles();
  const load = sessionLoader(files, 'follow', file, true);
  const append = (k: number) => fs.appendFileSync(file, `${more.slice(k * LINES, (k + 1) * LINES).join('\n')}\n`);
  const follow = new FollowAnalysis();
  load();
  // the file, just written, was read by a reader that follows it (src/engine/session-input.ts, MAY_BE_WRITTEN_MS); the first append starts the followed analysis (whole)
  append(0);
  let t0 = process.hrtime.bigint();
  let loaded = load();
  follow.update(loaded);
  process.stdout.write(`  follow ${n}: first append (read + whole analysis) ${Math.round(ms(t0))} ms (${follow.last.how})\n`);
  const read: number[] = [];
  const followed: number[] = [];
  const appended: number[] = [];
  const whole: number[] = [];
  const taken: Record<FollowHow, number> = { whole: 0, appended: 0, unchanged: 0 };
  let last: ReturnType<typeof analyzeTrace> | undefined;
  for (let k = 1; k <= FOLLOW_ROUNDS; k++) {
    // each append comes in a turn of its own, as the engine's load messages do: one synchronous loop over
    // every append kept each list a WeakRef held alive to its end (the reader's noted copies: +11 MB per
    // append, a heap twice the engine's, whose major collections set the p95)
    await new Promise((resolve) => setImmediate(resolve));
    append(k);
    t0 = process.hrtime.bigint();
    loaded = load();
    read.push(ms(t0));
    t0 = process.hrtime.bigint();
    const analysis = follow.update(loaded);
    const took = ms(t0);
    followed.push(took);
    taken[follow.last.how]++;
    if (follow.last.how === 'appended') appended.push(took);
    else process.stdout.write(`  follow ${n}: append ${k} ${follow.last.how} (${follow.last.reason}) in ${Math.round(took)} ms\n`);
    // OTRACE_BENCH_DEBUG=1: each append's time and how its links were made (links made whole set the p95: docs/large-traces.md)
    if (process.env.OTRACE_BENCH_DEBUG) process.stdout.write(`  follow ${n}: append ${k}: ${Math.round(took)} ms, links ${follow.last.links?.how ?? '-'} (${follow.last.links?.reason ?? ''})\n`);
    last = analysis;
  }
  // the whole analyses after the timed appends: between them, their garbage (hundreds of MB each at 1M) made the collector's
  // full collections fall in the appends that followed, which a followed trace's worker never runs between two appends
  for (let k = 0; k < FOLLOW_WHOLE_ROUNDS; k++) {
    t0 = process.hrtime.bigint();
    const again = analyzeTrace(loaded);
    whole.push(ms(t0));
    const facts = (a: typeof again) => JSON.stringify([a.findings.length, a.stops.length, a.loops.length, a.outcome, a.best_stop, a.metrics.events]);
    if (facts(again) !== facts(last!)) throw new Error(`follow ${n}: the followed analysis differs from the whole one after the last append`);
  }
  const round1 = (x: number) => Math.round(x * 10) / 10;
  return {
    events: loaded.trace.events.length,
    file_mb: Math.round((fs.statSync(file).size / 1e6) * 10) / 10,
    appends: FOLLOW_ROUNDS,
    taken,
    read_median_ms: round1(median(read)),
    follow_median_ms: round1(median(followed)),
    follow_p95_ms: round1(quantile(followed, 0.95)),
    appended_median_ms: appended.length ? round1(median(appended)) : NaN,
    appended_p95_ms: appended.length ? round1(quantile(appended, 0.95)) : NaN,
    whole_median_ms: Math.round(median(whole)),
    load: [load0, os.loadavg()[0]].map((l) => Math.round(l * 10) / 10) as [number, number],
  };
}

/** The table of the follow rows. */
function followTable(rows: FollowRow[]): string {
  return [
    `| events | file MB | appends of ${LINES} lines (appended / whole / unchanged) | read ms (median) | followed analysis ms: median, p95 | appended only: median, p95 | whole analysis ms (median of ${FOLLOW_WHOLE_ROUNDS}) | load before, after |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${fmt(r.events, 0)} | ${fmt(r.file_mb)} | ${r.appends} (${r.taken.appended} / ${r.taken.whole} / ${r.taken.unchanged}) | ${fmt(r.read_median_ms)} | ${fmt(r.follow_median_ms, 0)}, ${fmt(r.follow_p95_ms, 0)} | ${fmt(r.appended_median_ms, 0)}, ${fmt(r.appended_p95_ms, 0)} | ${fmt(r.whole_median_ms, 0)} | ${r.load.join(', ')} |`),
  ].join('\n');
}

/** Appends timed in the graph row (after one that starts following the file). */
const GRAPH_ROUNDS = 12;
/** The graph area's width of the first window, px. */
const GRAPH_WIDTH = 1200;

/** One row of "append -> graph current": per phase median and p95 (ms) over the appends. */
interface GraphRow {
  events: number;
  file_mb: number;
  appends: number;
  /** Per phase: [median, p95] ms. */
  phases: Record<string, [number, number]>;
  /** From the load's call until the overview's bytes and the first window are made: [median, p95] ms. */
  total: [number, number];
  /** Of the total, the collector's pauses of the thread (PerformanceObserver 'gc' entries that started inside it): [median, p95] ms. */
  gc: [number, number];
  /** Bytes of the overview (json + columns) sent per append (median). */
  overview_bytes: number;
  load: [number, number];
}

/**
 * Append -> graph current at `n` events: a generated otrace JSONL trace loaded through a
 * SessionStore as the worker does (`load` with the file's change named), {@link GRAPH_ROUNDS}
 * appends of {@link LINES} lines; per append the phases until the trace as read answers (bytes read
 * + import: SessionFiles.read; read snapshot + summary: the rest until the store reports the read
 * summary) and then, as the host asks right away, the layout structure, the overview's bytes and the
 * first window (Fit at {@link GRAPH_WIDTH} px). The analysis of each load runs to its end before the
 * next append (not timed: nothing waits for it).
 */
/** OTRACE_BENCH_OVERVIEW=whole: each append's overview made whole as before the deltas (to compare in one run). */
const WHOLE_OVERVIEW = process.env.OTRACE_BENCH_OVERVIEW === 'whole';

/** Bytes a delta takes on its way (its JSON, appended columns, changed values, axis positions). */
function deltaBytes(d: OverviewDelta): number {
  return d.json.length + d.appended.length + d.changed.byteLength + (d.tx?.byteLength ?? 0);
}

async function graphRow(dir: string, n: number): Promise<GraphRow> {
  const load0 = os.loadavg()[0];
  const file = path.join(dir, `graph-${n}.otrace.jsonl`);
  const more = writeOtraceTrace(file, n, (GRAPH_ROUNDS + 1) * LINES);
  const store = new SessionStore();
  const key = 'graph';
  const sessionsOf = (s: SessionStore) => (s as unknown as { sessions: Map<string, { snapshot?: TraceSnapshot; sent?: { overview: GraphOverview } }> }).sessions;
  /** The stamp of the overview the graph view holds; how each timed append's overview was answered. */
  let held: number | undefined;
  const kinds: string[] = [];
  // the time of each SessionFiles.read (bytes read + import), wrapped for this bench only
  const proto = SessionFiles.prototype as unknown as { read: (...a: unknown[]) => unknown };
  const read0 = proto.read;
  let readMs = 0;
  proto.read = function (this: unknown, ...a: unknown[]) {
    const t = process.hrtime.bigint();
    try {
      return read0.apply(this, a);
    } finally {
      readMs = ms(t);
    }
  };
  const phases: Record<string, number[]> = { 'bytes read + import': [], 'read snapshot + summary': [], 'layout structure': [], 'graph index': [], overview: [], 'first window': [] };
  const totals: number[] = [];
  /** Per timed append: the collector's pauses of this thread inside it (ms; part of the total, not a phase of its own). */
  const gcPauses: number[] = [];
  const gcs: { start: number; duration: number }[] = [];
  const gcObserver = new PerformanceObserver((list) => gcs.push(...list.getEntries().map((e) => ({ start: e.startTime, duration: e.duration }))));
  gcObserver.observe({ entryTypes: ['gc'] });
  const sizes: number[] = [];
  let version = 0;
  const loadOnce = async (timed: boolean): Promise<string> => {
    const t0 = process.hrtime.bigint();
    const p0 = performance.now();
    let graphDone = false;
    let how = '';
    await store.load({ key, version: -1, path: file, local: true, changed: [file] }, ++version, (p) => {
      if (p.phase !== 'analyze' || !p.read || graphDone) return;
      graphDone = true;
      const answered = ms(t0);
      const snapshot = sessionsOf(store).get(key)!.snapshot!;
      let t = process.hrtime.bigint();
      layoutStructure(snapshot.loaded);
      const structure = ms(t);
      how = lastExtension();
      t = process.hrtime.bigint();
      prepareGraph(snapshot);
      const index = ms(t);
      t = process.hrtime.bigint();
      // as the graph view asks: a delta against the overview it holds (OTRACE_BENCH_OVERVIEW=whole: the whole overview's bytes, as before)
      let size: number;
      let at: Pick<GraphOverview, 'axis' | 'stamp'>;
      if (WHOLE_OVERVIEW) {
        const bytes = graphOverviewBytes(snapshot, 'bench');
        size = bytes.json.length + bytes.columns.length;
        at = bytes.overview;
      } else {
        const answer = store.graphOverviewUpdate(key, 'bench', undefined, held)!;
        size = 'delta' in answer ? deltaBytes(answer.delta) : answer.json.length + answer.columns.length;
        held = answer.stamp;
        // a file not yet seen growing keeps no overview sent (its first loads here)
        at = sessionsOf(store).get(key)!.sent?.overview ?? graphOverviewBytes(snapshot, 'bench').overview;
        if (timed) kinds.push('delta' in answer ? 'delta' : 'whole');
      }
      const overview = ms(t);
      t = process.hrtime.bigint();
      const first = graphWindow(snapshot, fitWindowRequest(at, GRAPH_WIDTH));
      const window = ms(t);
      const total = ms(t0);
      if (!timed) return;
      const p1 = performance.now();
      timedSpans.push([p0, p1]);
      if (first.nodes.length + first.runs.length === 0) throw new Error('graph row: the first window drew nothing');
      phases['bytes read + import'].push(readMs);
      phases['read snapshot + summary'].push(answered - readMs);
      phases['layout structure'].push(structure);
      phases['graph index'].push(index);
      phases.overview.push(overview);
      phases['first window'].push(window);
      totals.push(total);
      sizes.push(size);
    });
    if (!graphDone) throw new Error('graph row: the trace as read never answered');
    // as the host does when the analysed answer comes (untimed): the page is sent its overview and draws it
    const analysed = store.graphOverviewUpdate(key, 'bench', GRAPH_WIDTH, held);
    if (analysed) held = analysed.stamp;
    return how;
  };
  /** The timed appends' spans on the performance clock (their GC pauses are summed once the observer delivered them). */
  const timedSpans: [number, number][] = [];
  try {
    await loadOnce(false);
    // the first append (untimed): the file, just written, is followed from its first read (src/engine/session-input.ts); this one's structure is the first extended
    fs.appendFileSync(file, `${more.slice(0, LINES).join('\n')}\n`);
    await loadOnce(false);
    for (let k = 1; k <= GRAPH_ROUNDS; k++) {
      fs.appendFileSync(file, `${more.slice(k * LINES, (k + 1) * LINES).join('\n')}\n`);
      const how = await loadOnce(true);
      await new Promise((r) => setImmediate(r)); // the observer's entries are delivered asynchronously
      const [p0, p1] = timedSpans[timedSpans.length - 1];
      gcPauses.push(gcs.filter((g) => g.start >= p0 && g.start < p1).reduce((sum, g) => sum + g.duration, 0));
      process.stdout.write(`  graph ${n}: append ${k}: ${Math.round(totals[totals.length - 1])} ms (GC pauses ${Math.round(gcPauses[gcPauses.length - 1])} ms), structure ${how}, overview ${WHOLE_OVERVIEW ? 'whole (forced)' : kinds[kinds.length - 1]} (${Object.entries(phases).map(([p, xs]) => `${p} ${Math.round(xs[xs.length - 1])}`).join(', ')})\n`);
    }
  } finally {
    proto.read = read0;
    gcObserver.disconnect();
  }
  const round1 = (x: number) => Math.round(x * 10) / 10;
  const pair = (xs: number[]): [number, number] => [round1(median(xs)), round1(quantile(xs, 0.95))];
  const events = sessionsOf(store).get(key)!.snapshot!.loaded.trace.events.length;
  return {
    events,
    file_mb: Math.round((fs.statSync(file).size / 1e6) * 10) / 10,
    appends: GRAPH_ROUNDS,
    phases: Object.fromEntries(Object.entries(phases).map(([p, xs]) => [p, pair(xs)])),
    total: pair(totals),
    gc: pair(gcPauses),
    overview_bytes: median(sizes),
    load: [load0, os.loadavg()[0]].map((l) => Math.round(l * 10) / 10) as [number, number],
  };
}

/** The table of the graph rows. */
function graphTable(rows: GraphRow[]): string {
  const names = Object.keys(rows[0]?.phases ?? {});
  return [
    `| events | file MB | appends of ${LINES} lines | append -> graph current ms: median, p95 | of it GC pauses ms | ${names.map((p) => `${p} ms`).join(' | ')} | overview bytes | load before, after |`,
    `|---|---|---|---|---|${names.map(() => '---|').join('')}---|---|`,
    ...rows.map((r) => `| ${fmt(r.events, 0)} | ${fmt(r.file_mb)} | ${r.appends} | ${fmt(r.total[0], 0)}, ${fmt(r.total[1], 0)} | ${r.gc ? `${fmt(r.gc[0], 0)}, ${fmt(r.gc[1], 0)}` : '–'} | ${names.map((p) => `${fmt(r.phases[p][0])}, ${fmt(r.phases[p][1])}`).join(' | ')} | ${fmt(r.overview_bytes, 0)} | ${r.load.join(', ')} |`),
  ].join('\n');
}

export async function bench(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-bench-live-'));
  try {
    if (process.env.OTRACE_BENCH_LIVE === 'graph') {
      // append -> graph current (issue #30): OTRACE_BENCH_LIVE=graph npm run bench -- live
      const sizes = (process.env.OTRACE_BENCH_SIZES ?? '1M').split(',').filter((s) => s in FOLLOW_SIZES);
      const rows: GraphRow[] = [];
      for (const size of sizes) rows.push(await graphRow(dir, FOLLOW_SIZES[size]));
      process.stdout.write(`\nappend -> graph current (per phase: median, p95)\n${graphTable(rows)}\n(${GRAPH_ROUNDS} appends per row; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores)\n`);
      saveResults('live_graph', { date: new Date().toISOString(), node: process.version, load: os.loadavg(), rows });
      return;
    }
    if (process.env.OTRACE_BENCH_LIVE === 'written') {
      // a trace written while it is analysed (issue #30): OTRACE_BENCH_LIVE=written npm run bench -- live
      const { writtenRow, writtenTable } = await import('./live-written');
      const sizes = (process.env.OTRACE_BENCH_SIZES ?? '1M').split(',').filter((s) => s in FOLLOW_SIZES);
      const rows = [];
      for (const size of sizes) rows.push(await writtenRow(dir, FOLLOW_SIZES[size]));
      process.stdout.write(`\na trace written while it is analysed: append -> graph current, append -> its findings shown\n${writtenTable(rows)}\n(load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores)\n`);
      saveResults('live_written', { date: new Date().toISOString(), node: process.version, load: os.loadavg(), rows });
      return;
    }
    const sizes = (process.env.OTRACE_BENCH_SIZES ?? '1M').split(',').filter((s) => s in FOLLOW_SIZES);
    const followRows: FollowRow[] = [];
    for (const size of sizes) followRows.push(await followRow(dir, FOLLOW_SIZES[size]));
    process.stdout.write(`\n${followTable(followRows)}\n(${FOLLOW_ROUNDS} appends per row; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores)\n`);
    saveResults('live_follow', { date: new Date().toISOString(), node: process.version, load: os.loadavg(), rows: followRows });
    if (process.env.OTRACE_BENCH_LIVE === 'follow') return;
    const rows = [otraceRow(dir, 100_000), streamedRow(dir, 300_000), claudeRow(fs.mkdtempSync(path.join(dir, 'cc-')), 20e6), codexRow(fs.mkdtempSync(path.join(dir, 'codex-')), 10e6)];
    const lines = [
      `| trace | events | file MB | first load ms | ${LINES} lines appended: growing import ms | whole re-import ms | speed-up | analysis after the append ms |`,
      '|---|---|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.trace} | ${fmt(r.events, 0)} | ${fmt(r.file_mb)} | ${fmt(r.first_load_ms, 0)} | ${fmt(r.append_growing_ms)} | ${fmt(r.append_whole_ms, 0)} | ${r.speedup}x | ${fmt(r.analysis_ms, 0)} |`),
    ];
    process.stdout.write(`\n${lines.join('\n')}\n(median of ${ROUNDS} appends; analysis: median of ${ANALYSIS_ROUNDS}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores)\n`);
    saveResults('live', { date: new Date().toISOString(), node: process.version, load: os.loadavg(), rows });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Puts `value` under `key` in bench/results.json (the other keys kept). */
export function saveResults(key: string, value: unknown): void {
  const out = path.join(__dirname, 'results.json');
  const previous = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
  previous[key] = value;
  fs.writeFileSync(out, `${JSON.stringify(previous, null, 2)}\n`);
}
