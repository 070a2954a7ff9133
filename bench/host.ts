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
 * - wall time of the load and of the overview.
 * Each trace is loaded twice: with the engine in a worker thread (the extension's way) and, for
 * comparison, in a child process (the same bundle over IPC), where the engine's memory is not in
 * the host's process (its own peak RSS, VmHWM, is listed apart).
 * - the bare per-line JSON.parse of the same file (wall time, read included) and (load + overview)
 *   over it: how far the graph's first overview is from the floor of any reader (issue #30 target
 *   for the 1M-agents shape: within 3x).
 * Traces: 100k and 1M events of the bench's orchestrator, and `1M-agents` (`100k-agents`): the same
 * with every event its own agent (1M lanes), a hostile shape the overview must fold.
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

/** The traces measured: a size, and the shape `-agents` (every event its own agent: as many lanes as events). */
const SIZES: Record<string, { n: number; options?: GenerateOptions }> = {
  '100k': { n: 100_000 },
  '1M': { n: 1_000_000 },
  '100k-agents': { n: 100_000, options: { agentPerEvent: true } },
  '1M-agents': { n: 1_000_000, options: { agentPerEvent: true } },
};
/** Measured unless OTRACE_BENCH_SIZES names others. */
const DEFAULT_SIZES = ['100k', '1M', '1M-agents'];
const ROOT = path.join(__dirname, '..');
const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));

interface Row {
  trace: string;
  engine: EngineMode;
  events: number;
  file_mb: number;
  load_s: number;
  overview_s: number;
  loop_delay_max_ms: number;
  loop_delay_p99_ms: number;
  idle_rss_mb: number;
  rss_peak_above_idle_mb: number;
  rss_after_above_idle_mb: number;
  host_heap_above_idle_mb: number;
  summary_kb: number;
  overview_kb: number;
  /** Wall ms of the bare per-line JSON.parse of the same file (median of 3), and (load + overview) / that: the graph's first overview against the floor of any reader. */
  bare_parse_ms: number;
  graph_to_bare: number;
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
async function measure(script: string, name: string, file: string, mode: EngineMode, bareMs: number): Promise<Row> {
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
    const summary = await engine.load({ key: name, version: -1, path: file, local: true }, (p) => (phase = p.phase));
    const t1 = performance.now();
    phase = 'overview';
    const overview = await engine.graphOverviewBytes(name, name);
    const t2 = performance.now();
    delay.disable();
    clearInterval(sampler);
    if (!summary || !overview) throw new Error(`${name}: no summary or overview`);
    const after = process.memoryUsage();
    process.stdout.write(`  ${name} (${mode}) peak RSS above idle per phase, MB: ${[...phasePeaks].map(([k, v]) => `${k} ${mb(v - idle.rss)}`).join(', ')}\n`);
    const hwm = mode === 'process' ? /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${engine.threadId}/status`, 'utf8'))?.[1] : undefined;
    return {
      trace: name,
      engine: mode,
      events: summary.counts.events,
      file_mb: Math.round(fs.statSync(file).size / 1e5) / 10,
      load_s: Math.round((t1 - t0) / 100) / 10,
      overview_s: Math.round((t2 - t1) / 100) / 10,
      loop_delay_max_ms: Math.round(delay.max / 1e5) / 10,
      loop_delay_p99_ms: Math.round(delay.percentile(99) / 1e5) / 10,
      idle_rss_mb: mb(idle.rss),
      rss_peak_above_idle_mb: mb(peak - idle.rss),
      rss_after_above_idle_mb: mb(after.rss - idle.rss),
      host_heap_above_idle_mb: mb(after.heapUsed - idle.heapUsed),
      summary_kb: Math.round(JSON.stringify(summary).length / 1024),
      overview_kb: Math.round((overview.json.length + overview.columns.length) / 1024),
      bare_parse_ms: Math.round(bareMs),
      graph_to_bare: Math.round(((t2 - t0) / bareMs) * 100) / 100,
      engine_process_peak_rss_mb: hwm ? Math.round(Number(hwm) / 1024) : undefined,
    };
  } finally {
    engine.dispose();
  }
}

/** Wall ms of the bare per-line JSON.parse of a file (read included), median of 3 after a warm-up. */
function bareParseMs(file: string): number {
  const times: number[] = [];
  for (let k = 0; k < 4; k++) {
    const t0 = performance.now();
    bareParse(fs.readFileSync(file));
    if (k > 0) times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[1];
}

export async function bench(): Promise<void> {
  const dir = process.env.OTRACE_BENCH_DIR ?? path.join(os.tmpdir(), 'otrace-bench');
  const sizes = (process.env.OTRACE_BENCH_SIZES ?? DEFAULT_SIZES.join(',')).split(',').filter((s) => s in SIZES);
  const script = await buildWorker();
  const rows: Row[] = [];
  for (const size of sizes) {
    const file = path.join(dir, `trace-${size}.otrace.jsonl`);
    writeTraceFile(file, SIZES[size].n, SIZES[size].options);
    const bareMs = bareParseMs(file);
    process.stdout.write(`  ${size}: bare per-line JSON.parse ${Math.round(bareMs)} ms (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})\n`);
    const modes = (process.env.OTRACE_BENCH_ENGINES ?? 'thread,process').split(',').filter((m): m is EngineMode => m === 'thread' || m === 'process');
    for (const mode of modes) {
      const row = await measure(script, size, file, mode, bareMs);
      rows.push(row);
      process.stdout.write(`  ${size} (${mode}): load ${row.load_s} s + overview ${row.overview_s} s = ${row.graph_to_bare}x the bare parse; host loop delay max ${row.loop_delay_max_ms} ms, p99 ${row.loop_delay_p99_ms} ms; host RSS +${row.rss_peak_above_idle_mb} MB peak, host heap +${row.host_heap_above_idle_mb} MB\n`);
    }
  }
  const lines = [
    '| trace | engine | events | file MB | load s | overview s | bare parse s | (load + overview) / bare | host loop delay max / p99 ms | host RSS above idle, peak / after MB | host heap above idle MB | engine process peak RSS MB | summary / overview KB to the host |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.trace} | ${r.engine === 'thread' ? 'worker thread (in the host process)' : 'child process'} | ${fmt(r.events, 0)} | ${fmt(r.file_mb)} | ${r.load_s} | ${r.overview_s} | ${fmt(r.bare_parse_ms / 1000)} | ${r.graph_to_bare}x | ${r.loop_delay_max_ms} / ${r.loop_delay_p99_ms} | ${fmt(r.rss_peak_above_idle_mb, 0)} / ${fmt(r.rss_after_above_idle_mb, 0)} | ${r.host_heap_above_idle_mb} | ${r.engine_process_peak_rss_mb === undefined ? '–' : fmt(r.engine_process_peak_rss_mb, 0)} | ${fmt(r.summary_kb, 0)} / ${fmt(r.overview_kb, 0)} |`,
    ),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n(idle RSS ${rows[0]?.idle_rss_mb} MB; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores; targets at 1M: loop delay p99 < 50 ms, RSS < 600 MB above idle; 1M-agents: load + overview within 3x the bare parse)\n`);
  const out = path.join(__dirname, 'results.json');
  const previous = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
  previous.host = { date: new Date().toISOString(), node: process.version, load: os.loadavg(), rows };
  fs.writeFileSync(out, `${JSON.stringify(previous, null, 2)}\n`);
}
