/**
 * The extension host while a large trace loads in the engine's worker thread (issue #14): this
 * process plays the host. It starts the real worker bundle (dist/engine-worker.js, built first with
 * the options of esbuild.mjs) through the extension's own WorkerEngine, asks it to load a
 * generated otrace JSONL trace from disk (the worker reads the file itself), then for the graph's
 * overview as a graph panel does (the JSON bytes it passes on to the webview unread), and
 * measures on the main thread:
 * - event-loop delay while the worker loads (`monitorEventLoopDelay`, 10 ms resolution): max and
 *   p99 in ms (target: p99 < 50 ms);
 * - the process RSS above its idle size (idle: the engine's worker started, no trace), sampled
 *   every 50 ms: peak and after the load. RSS is the whole process: the worker's heap counts in it,
 *   as it does in the extension host (target: < 600 MB above idle at 1M events);
 * - the host thread's own heap (V8 heap used by the main isolate) above idle, and the bytes of the
 *   summary and the overview that crossed to it;
 * - wall time of the load and of the overview; `first_paint_s`: from the load's start until the
 *   host holds an overview it can draw (a large trace's load reports the trace as read before its
 *   analysis: its overview is asked for then, as a graph panel does; else the analysed overview
 *   after the load); beside it the bare per-line JSON.parse of the same file (bench/read.ts
 *   `bareParse`, wall time on this thread, before the engine starts: the median of 3 runs, as one
 *   run on a shared machine can read 1.7x the others) and the ratio (target at 1M: ≤ 1.5).
 * Each trace is loaded twice: with the engine in a worker thread (the extension's way) and, for
 * comparison, in a child process (the same bundle over IPC), where the engine's memory is not in
 * the host's process (its own peak RSS, VmHWM, is listed apart).
 * A table on stdout and the figures in bench/results.json (`host`).
 *
 *   npm run bench -- host
 *   OTRACE_BENCH_SIZES=100k npm run bench -- host
 *   OTRACE_BENCH_SIZES=100k-agents,1M-agents OTRACE_BENCH_ENGINES=thread npm run bench -- host
 *   OTRACE_BENCH_DIR=/path  (default: the OS temp folder, otrace-bench/; the read bench's files)
 *   OTRACE_BENCH_ENGINES=thread  (only the worker thread; default: thread,process)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as esbuild from 'esbuild';
import type { EngineMode } from '../src/host/engine-channel';
import { WorkerEngine } from '../src/host/engine-client';
import { writeTraceFile, type GenerateOptions } from './_generate';
import { bareParse } from './read';
import { fmt } from './_util';

/** The traces measured: a size, and the shape `-agents` (every event its own agent: as many lanes as events, a hostile shape the overview must fold; issue #30 target: graph on screen within 3x the bare parse). */
const SIZES: Record<string, { n: number; options?: GenerateOptions }> = {
  '100k': { n: 100_000 },
  '1M': { n: 1_000_000 },
  '100k-agents': { n: 100_000, options: { agentPerEvent: true } },
  '1M-agents': { n: 1_000_000, options: { agentPerEvent: true } },
};
/** Measured unless OTRACE_BENCH_SIZES names others. */
const DEFAULT_SIZES = ['100k', '1M', '1M-agents'];
const ROOT = path.join(__dirname, '..');
/** How many times the bare parse is timed; the ratio uses their median. */
const BARE_RUNS = 3;
const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));

interface Row {
  trace: string;
  engine: EngineMode;
  events: number;
  file_mb: number;
  load_s: number;
  overview_s: number;
  /** From the load's start until the host holds the first overview it can draw (the trace as read, when the load reports it). */
  first_paint_s: number;
  /** Whether the first overview was of the trace as read (its analysis still running). */
  first_paint_before_analysis: boolean;
  /** When the first overview was of the file's first part (a large file read in parts): MB shown of the file's MB. */
  first_paint_part?: { mb: number; of_mb: number; events: number };
  /** From the load's start until the host holds an overview of the whole trace (as read, or analysed): the first paint when it was of the whole. */
  whole_paint_s: number;
  /** whole_paint_s / bare_parse_s. */
  whole_paint_to_bare: number;
  /** The bare per-line JSON.parse of the same file (wall time, this thread): the median of BARE_RUNS runs. */
  bare_parse_s: number;
  /** Each run of the bare parse, s (the median is bare_parse_s). */
  bare_parse_runs_s: number[];
  /** first_paint_s / bare_parse_s. */
  first_paint_to_bare: number;
  loop_delay_max_ms: number;
  loop_delay_p99_ms: number;
  idle_rss_mb: number;
  rss_peak_above_idle_mb: number;
  rss_after_above_idle_mb: number;
  host_heap_above_idle_mb: number;
  summary_kb: number;
  overview_kb: number;
  /** Child process only: the engine process's own peak RSS. */
  engine_process_peak_rss_mb?: number;
}

/** Builds the worker bundle as esbuild.mjs does; returns its path. */
async function buildWorker(): Promise<string> {
  const { BUILDS } = (await import(path.join(ROOT, 'esbuild.mjs'))) as { BUILDS: Record<string, esbuild.BuildOptions> };
  await esbuild.build({ ...BUILDS.worker, absWorkingDir: ROOT, logLevel: 'error' });
  return path.join(ROOT, 'dist', 'engine-worker.js');
}

/** Loads one trace through a fresh worker and measures the main thread. */
/**
 * Times the bare per-line JSON.parse of `bytes` `runs` times (wall time, this thread).
 * Returns each run's seconds and their median (the middle run; the mean of the two middle ones
 * for an even count).
 */
export function timeBareParse(bytes: Buffer, runs: number, parse: (bytes: Buffer) => unknown = bareParse): { median: number; runs: number[] } {
  const seconds: number[] = [];
  for (let i = 0; i < runs; i++) {
    const b0 = performance.now();
    parse(bytes);
    seconds.push((performance.now() - b0) / 1000);
  }
  const sorted = [...seconds].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, runs: seconds };
}

async function measure(script: string, name: string, file: string, mode: EngineMode, bare: { median: number; runs: number[] }): Promise<Row> {
  const bareSeconds = bare.median;
  const engine = new WorkerEngine(script, { mode });
  try {
    await engine.detect('{}', 'x.json', false); // the worker started: the host's idle state
    await new Promise((r) => setTimeout(r, 500));
    const idle = process.memoryUsage();
    let peak = idle.rss;
    /** Peak RSS per phase of the load (the worker's progress reports), then of the overview. */
    let phase = 'start';
    const phasePeaks = new Map<string, number>();
    const sampler = setInterval(() => {
      const rss = process.memoryUsage().rss;
      peak = Math.max(peak, rss);
      phasePeaks.set(phase, Math.max(phasePeaks.get(phase) ?? 0, rss));
    }, 50);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = performance.now();
    /** The overview of the trace as read, asked for when the load reports it (as the graph panel does), and when it came. */
    let early: Promise<number | undefined> | undefined;
    /** The overview of the whole trace as read (after a first part's), asked for when the load reports it. */
    let wholeEarly: Promise<number | undefined> | undefined;
    /** The first part a large file's first answer held (read in parts: src/engine/session-input.ts). */
    let part: Row['first_paint_part'];
    /** When the load reported the trace as read (its analysis then runs). */
    let readAt: number | undefined;
    const summary = await engine.load({ key: name, version: -1, path: file, local: true }, (p) => {
      phase = p.phase;
      if (!p.read) return;
      readAt = performance.now();
      const asked = engine.graphOverviewBytes(name, name, 1200).then((o) => (o ? performance.now() : undefined));
      early ??= asked;
      if (p.read.reading && !part) part = { mb: mb(p.read.reading.bytes), of_mb: mb(p.read.reading.of), events: p.read.counts.events };
      if (!p.read.reading) wholeEarly ??= asked;
    });
    const t1 = performance.now();
    phase = 'overview';
    const overview = await engine.graphOverviewBytes(name, name, 1200);
    const t2 = performance.now();
    const painted = (await early) ?? t2;
    const wholePainted = (await wholeEarly) ?? t2;
    delay.disable();
    clearInterval(sampler);
    if (!summary || !overview) throw new Error(`${name}: no summary or overview`);
    const after = process.memoryUsage();
    if (readAt !== undefined) process.stdout.write(`  ${name} (${mode}) from the trace as read to the analysed overview: ${Math.round((t2 - readAt) / 100) / 10} s (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})\n`);
    process.stdout.write(`  ${name} (${mode}) peak RSS above idle per phase, MB: ${[...phasePeaks].map(([k, v]) => `${k} ${mb(v - idle.rss)}`).join(', ')}\n`);
    const hwm = mode === 'process' ? /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${engine.threadId}/status`, 'utf8'))?.[1] : undefined;
    return {
      trace: name,
      engine: mode,
      events: summary.counts.events,
      file_mb: Math.round(fs.statSync(file).size / 1e5) / 10,
      load_s: Math.round((t1 - t0) / 100) / 10,
      overview_s: Math.round((t2 - t1) / 100) / 10,
      first_paint_s: Math.round((painted - t0) / 100) / 10,
      first_paint_before_analysis: painted < t1,
      ...(part ? { first_paint_part: part } : {}),
      whole_paint_s: Math.round((wholePainted - t0) / 100) / 10,
      whole_paint_to_bare: Math.round(((wholePainted - t0) / 1000 / bareSeconds) * 100) / 100,
      bare_parse_s: Math.round(bareSeconds * 10) / 10,
      bare_parse_runs_s: bare.runs.map((s) => Math.round(s * 100) / 100),
      first_paint_to_bare: Math.round(((painted - t0) / 1000 / bareSeconds) * 100) / 100,
      loop_delay_max_ms: Math.round(delay.max / 1e5) / 10,
      loop_delay_p99_ms: Math.round(delay.percentile(99) / 1e5) / 10,
      idle_rss_mb: mb(idle.rss),
      rss_peak_above_idle_mb: mb(peak - idle.rss),
      rss_after_above_idle_mb: mb(after.rss - idle.rss),
      host_heap_above_idle_mb: mb(after.heapUsed - idle.heapUsed),
      summary_kb: Math.round(JSON.stringify(summary).length / 1024),
      overview_kb: Math.round((overview.json.length + overview.columns.length) / 1024),
      engine_process_peak_rss_mb: hwm ? Math.round(Number(hwm) / 1024) : undefined,
    };
  } finally {
    engine.dispose();
  }
}

export async function bench(): Promise<void> {
  const dir = process.env.OTRACE_BENCH_DIR ?? path.join(os.tmpdir(), 'otrace-bench');
  const sizes = (process.env.OTRACE_BENCH_SIZES ?? DEFAULT_SIZES.join(',')).split(',').filter((s) => s in SIZES);
  const script = await buildWorker();
  const rows: Row[] = [];
  for (const size of sizes) {
    const file = path.join(dir, `trace-${size}.otrace.jsonl`);
    writeTraceFile(file, SIZES[size].n, SIZES[size].options);
    // a finished run's trace (read whole, its long content let go): one written in the last minutes is followed from its first read (src/engine/session-input.ts)
    const hourAgo = new Date(Date.now() - 3600_000);
    fs.utimesSync(file, hourAgo, hourAgo);
    const bytes = fs.readFileSync(file);
    const bare = timeBareParse(bytes, BARE_RUNS);
    process.stdout.write(`  ${size}: bare per-line parse ${bare.runs.map((s) => s.toFixed(2)).join(', ')} s, median ${bare.median.toFixed(2)} s\n`);
    const modes = (process.env.OTRACE_BENCH_ENGINES ?? 'thread,process').split(',').filter((m): m is EngineMode => m === 'thread' || m === 'process');
    for (const mode of modes) {
      const row = await measure(script, size, file, mode, bare);
      rows.push(row);
      process.stdout.write(`  ${size} (${mode}): first paint ${row.first_paint_s} s (${row.first_paint_part ? `the first ${row.first_paint_part.mb} of ${row.first_paint_part.of_mb} MB, ${row.first_paint_part.events} events; ` : ''}${row.first_paint_before_analysis ? 'before' : 'after'} the analysis; ${row.first_paint_to_bare}x the bare parse, median of ${BARE_RUNS}: ${row.bare_parse_s} s); the whole trace ${row.whole_paint_s} s (${row.whole_paint_to_bare}x); load ${row.load_s} s + overview ${row.overview_s} s; host loop delay max ${row.loop_delay_max_ms} ms, p99 ${row.loop_delay_p99_ms} ms; host RSS +${row.rss_peak_above_idle_mb} MB peak, host heap +${row.host_heap_above_idle_mb} MB\n`);
    }
  }
  const lines = [
    `| trace | engine | events | file MB | bare parse s (median of ${BARE_RUNS}) | first paint s (x bare) | the whole trace painted s (x bare) | load s | overview s | host loop delay max / p99 ms | host RSS above idle, peak / after MB | host heap above idle MB | engine process peak RSS MB | summary / overview KB to the host |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.trace} | ${r.engine === 'thread' ? 'worker thread (in the host process)' : 'child process'} | ${fmt(r.events, 0)} | ${fmt(r.file_mb)} | ${r.bare_parse_s} | ${r.first_paint_s} (${r.first_paint_to_bare}x${r.first_paint_part ? `, the first ${r.first_paint_part.mb} of ${r.first_paint_part.of_mb} MB` : ''}${r.first_paint_before_analysis ? ', before the analysis' : ''}) | ${r.whole_paint_s} (${r.whole_paint_to_bare}x) | ${r.load_s} | ${r.overview_s} | ${r.loop_delay_max_ms} / ${r.loop_delay_p99_ms} | ${fmt(r.rss_peak_above_idle_mb, 0)} / ${fmt(r.rss_after_above_idle_mb, 0)} | ${r.host_heap_above_idle_mb} | ${r.engine_process_peak_rss_mb === undefined ? '–' : fmt(r.engine_process_peak_rss_mb, 0)} | ${fmt(r.summary_kb, 0)} / ${fmt(r.overview_kb, 0)} |`,
    ),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n(idle RSS ${rows[0]?.idle_rss_mb} MB; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores; targets at 1M: first paint ≤ 1.5x the bare parse, loop delay p99 < 50 ms, RSS < 600 MB above idle)\n`);
  const out = path.join(__dirname, 'results.json');
  const previous = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
  previous.host = { date: new Date().toISOString(), node: process.version, load: os.loadavg(), rows };
  fs.writeFileSync(out, `${JSON.stringify(previous, null, 2)}\n`);
}
