/**
 * `npm run bench -- targets`: issue #30's targets in one run, each beside the machine's load while
 * it was measured. It runs the benches that hold them, on their 1M-event traces:
 * - read (bench/read.ts, 1M and 1M-long): read + validate + index / bare per-line parse, / a parse
 *   that keeps its values (the engine's object reader, and the column reader beside it), analysis events/s;
 * - host (bench/host.ts, 1M and 1M-agents): first paint / bare parse, host RSS above idle (peak), host
 *   loop delay p99, with the engine where the extension runs it (its own process; `otrace.engine.ownProcess`),
 *   the same figures with the engine in a worker thread of the host beside them;
 * - live, follow (bench/live.ts): the followed analysis of a 100-line append at 1M, p95;
 * - live, graph: from a 100-line append at 1M until the graph's overview and first window are made, p95;
 * - live, written (bench/live-written.ts): a 1M trace appended every 400 ms while it is analysed, from
 *   each append's write until the graph holds its events and until its findings are shown, p95;
 * - corpus (bench/corpus.ts): `otrace dataset stops --jobs 2` against `--jobs 1` over 10,000 traces.
 * each in a process of its own, and prints one table (target, figure, holds, load average before and after the bench that measured
 * it), kept in bench/results.json (`targets`). The benches' own tables print as they run. About
 * 15 minutes on 2 cores; `OTRACE_BENCH_TARGETS=read,host` runs only some of them.
 *
 * Seconds differ between machines of one kind (the same code gave 1.9x and 3.5x): every target but
 * events/s, RSS and loop delay is a ratio of two timings of the same run.
 *
 * The benches run on the Node that runs them (`npm run bench`: the machine's). The extension's engine
 * runs on the editor's (VS Code's Electron: Node 22; the test code-server: Node 24, in
 * .vscode-test/node24), whose compilers warm up sooner: to measure there, run this file with that
 * node (README, "Benchmarks"). The table says which Node ran it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

/** One bench this runs: its name here, its bench (bench/<bench>.ts), the environment it runs with. */
interface Step {
  name: string;
  bench: string;
  env: Record<string, string>;
}

const STEPS: Step[] = [
  { name: 'read', bench: 'read', env: { OTRACE_BENCH_SIZES: '1M' } },
  { name: 'host', bench: 'host', env: { OTRACE_BENCH_SIZES: '1M,1M-agents', OTRACE_BENCH_ENGINES: 'process,thread' } },
  { name: 'follow', bench: 'live', env: { OTRACE_BENCH_SIZES: '1M', OTRACE_BENCH_LIVE: 'follow' } },
  { name: 'graph', bench: 'live', env: { OTRACE_BENCH_SIZES: '1M', OTRACE_BENCH_LIVE: 'graph' } },
  { name: 'written', bench: 'live', env: { OTRACE_BENCH_SIZES: '1M', OTRACE_BENCH_LIVE: 'written' } },
  // the corpus bench writes its figures only on a quiet machine unless told to: here the load is printed beside them
  { name: 'corpus', bench: 'corpus', env: { OTRACE_BENCH_WRITE: '1' } },
];

/** A row of the targets table. */
export interface TargetRow {
  target: string;
  figure: string;
  /** true / false, or undefined when the bench that measures it did not run or gave no figure. */
  holds: boolean | undefined;
  /** 1-minute load average before and after the bench that measured it. */
  load: [number, number] | undefined;
}

/** The figures this reads from bench/results.json (as the benches write them). */
interface Results {
  read?: { rows?: { trace: string; ratio: number; ratio_runs: number[]; read_ms: number; bare_ms: number; ratio_to_kept: number; kept_ms: number; columns_ratio: number; columns_ratio_to_kept: number; analysis_events_per_s: number; analysis_first_events_per_s?: number }[] };
  host?: { rows?: { trace: string; engine: string; first_paint_s: number; bare_parse_s: number; first_paint_to_bare: number; first_paint_before_analysis: boolean; first_paint_part?: { mb: number; of_mb: number; events: number }; whole_paint_s?: number; whole_paint_to_bare?: number; rss_peak_above_idle_mb: number; rss_after_above_idle_mb: number; idle_rss_mb: number; loop_delay_p99_ms: number; loop_delay_max_ms: number; engine_process_peak_rss_mb?: number }[] };
  live_follow?: { rows?: { follow_p95_ms: number; follow_median_ms: number; whole_median_ms: number }[] };
  live_graph?: { rows?: { total: [number, number] }[] };
  live_written?: { rows?: { period_ms: number; graph: [number, number, number]; findings: [number, number, number] }[] };
  corpus?: { traces: number; speedup: number; jobs1_s: number; jobs2_s: number; two_shard_processes_speedup: number };
  [key: string]: unknown;
}

const load1 = () => Math.round(os.loadavg()[0] * 10) / 10;
const x = (n: number) => `${Math.round(n * 100) / 100}x`;

/**
 * The targets table from the benches' figures.
 * @param results bench/results.json as the benches of this run left it (keys of steps that did not run are ignored)
 * @param loads per step name, the load average before and after it ran
 */
export function targetRows(results: Results, loads: Record<string, [number, number]>): TargetRow[] {
  const ran = (step: string) => loads[step] !== undefined;
  const readRow = ran('read') ? results.read?.rows?.find((r) => r.trace === '1M') : undefined;
  /** The host's figures with the engine where the extension runs it (its own process), and in a worker thread (beside them). */
  const host = (trace: string, engine: 'process' | 'thread' = 'process') => (ran('host') ? results.host?.rows?.find((r) => r.trace === trace && r.engine === engine) : undefined);
  const h1 = host('1M');
  const hAgents = host('1M-agents');
  /** A figure of the thread engine's row, to put beside the process's. */
  const inThread = (trace: string, figure: (v: NonNullable<ReturnType<typeof host>>) => string) => {
    const v = host(trace, 'thread');
    return v ? `; engine in a worker thread: ${figure(v)}` : '';
  };
  const follow = ran('follow') ? results.live_follow?.rows?.[0] : undefined;
  const graph = ran('graph') ? results.live_graph?.rows?.[0] : undefined;
  const written = ran('written') ? results.live_written?.rows?.[0] : undefined;
  const corpus = ran('corpus') ? results.corpus : undefined;
  const rows: TargetRow[] = [];
  const add = <T>(target: string, step: string, value: T | undefined, figure: (v: T) => string, holds: (v: T) => boolean) =>
    rows.push(value === undefined ? { target, figure: 'not measured', holds: undefined, load: loads[step] } : { target, figure: figure(value), holds: holds(value), load: loads[step] });
  add('read + validate + index of 1M ≤ 1.5x the bare per-line parse', 'read', readRow, (v) => `${x(v.ratio)} (${v.read_ms} / ${v.bare_ms} ms; runs ${v.ratio_runs.join(', ')}); column reader ${x(v.columns_ratio)}`, (v) => v.ratio <= 1.5);
  add('... and ≤ 1.0x a per-line parse that keeps its values', 'read', readRow, (v) => `${x(v.ratio_to_kept)} (kept ${v.kept_ms} ms); column reader ${x(v.columns_ratio_to_kept)}`, (v) => v.ratio_to_kept <= 1.0);
  // a large file read in parts paints its first part first: how much it showed, and when the whole trace was on the graph
  const whole = (v: NonNullable<ReturnType<typeof host>>) =>
    v.first_paint_part && v.whole_paint_s !== undefined ? `, the first ${v.first_paint_part.mb} of ${v.first_paint_part.of_mb} MB (${v.first_paint_part.events.toLocaleString('en-US')} events); the whole trace ${x(v.whole_paint_to_bare ?? 0)} (${v.whole_paint_s} s)` : '';
  const paint = (v: NonNullable<ReturnType<typeof host>>) => `${x(v.first_paint_to_bare)} (${v.first_paint_s} s / ${v.bare_parse_s} s${v.first_paint_before_analysis ? ', before the analysis' : ''}${whole(v)})`;
  add('first paint of 1M ≤ 1.5x the bare parse of its file', 'host', h1, (v) => `${paint(v)}${inThread('1M', paint)}`, (v) => v.first_paint_to_bare <= 1.5);
  add('analysis ≥ 300k events/s at 1M', 'read', readRow, (v) => `${Math.round(v.analysis_events_per_s / 1000)}k events/s${v.analysis_first_events_per_s ? ` (the process's first run, compiling it too: ${Math.round(v.analysis_first_events_per_s / 1000)}k)` : ''}`, (v) => v.analysis_events_per_s >= 300_000);
  add('100-line append to 1M: graph current within 100 ms (p95)', 'graph', graph, (v) => `p95 ${Math.round(v.total[1])} ms, median ${Math.round(v.total[0])} ms`, (v) => v.total[1] <= 100);
  add('... decorations current within 100 ms (p95): the followed analysis', 'follow', follow, (v) => `p95 ${Math.round(v.follow_p95_ms)} ms, median ${Math.round(v.follow_median_ms)} ms (whole ${Math.round(v.whole_median_ms)} ms)`, (v) => v.follow_p95_ms <= 100);
  // the same target while the trace is written faster than it is analysed (an append every 400 ms): from each write
  add('... appended every 400 ms while analysed: graph current within 100 ms (p95)', 'written', written, (v) => `p95 ${v.graph[1]} ms, median ${v.graph[0]} ms (appends every ${v.period_ms} ms)`, (v) => v.graph[1] <= 100);
  add('... and its findings shown within 100 ms (p95)', 'written', written, (v) => `p95 ${v.findings[1]} ms, median ${v.findings[0]} ms`, (v) => v.findings[1] <= 100);
  // the engine's own process is not the host's: its peak is printed beside (a trace's memory moved, not saved)
  const signed = (mb: number) => (mb < 0 ? `−${-mb}` : `+${mb}`);
  const rss = (v: NonNullable<ReturnType<typeof host>>) => `${signed(v.rss_peak_above_idle_mb)} MB peak, ${signed(v.rss_after_above_idle_mb)} after (idle ${v.idle_rss_mb} MB)`;
  add('host RSS at 1M ≤ +400 MB over idle', 'host', h1, (v) => `${rss(v)}${v.engine_process_peak_rss_mb === undefined ? '' : `; the engine's process: ${v.engine_process_peak_rss_mb} MB peak`}${inThread('1M', rss)}`, (v) => v.rss_peak_above_idle_mb <= 400);
  const agentsPaint = (v: NonNullable<ReturnType<typeof host>>) => `${x(v.first_paint_to_bare)} (${v.first_paint_s} s / ${v.bare_parse_s} s${whole(v)})`;
  add('1M events in 1M agents: graph within 3x the bare parse', 'host', hAgents, (v) => `${agentsPaint(v)}${inThread('1M-agents', agentsPaint)}`, (v) => v.first_paint_to_bare <= 3);
  const loop = (v: NonNullable<ReturnType<typeof host>>) => `${v.loop_delay_p99_ms} ms (max ${v.loop_delay_max_ms})`;
  add('... host loop p99 < 50 ms', 'host', hAgents, (v) => `${loop(v)}${inThread('1M-agents', loop)}`, (v) => v.loop_delay_p99_ms < 50);
  add('`dataset stops --jobs 2` over 10,000 traces ≥ 1.8x one job', 'corpus', corpus, (v) => `${x(v.speedup)} (${v.jobs1_s.toFixed(2)} / ${v.jobs2_s.toFixed(2)} s over ${v.traces.toLocaleString('en-US')} traces; two one-job processes on a shard each: ${x(v.two_shard_processes_speedup)})`, (v) => v.speedup >= 1.8);
  return rows;
}

/** The rows as a markdown table. */
export function targetTable(rows: TargetRow[]): string {
  return [
    '| target | figure | holds | load before, after |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.target} | ${r.figure} | ${r.holds === undefined ? '–' : r.holds ? 'yes' : 'no'} | ${r.load ? r.load.join(', ') : '–'} |`),
  ].join('\n');
}

export async function bench(): Promise<void> {
  const wanted = process.env.OTRACE_BENCH_TARGETS?.split(',');
  const out = path.join(__dirname, 'results.json');
  const loads: Record<string, [number, number]> = {};
  const start = { date: new Date().toISOString(), load: os.loadavg() };
  for (const step of STEPS) {
    if (wanted && !wanted.includes(step.name)) continue;
    const before = load1();
    process.stdout.write(`\n### ${step.name} (load ${before})\n`);
    // each bench in a process of its own: what one leaves in the heap (the read bench's 1M events) skews the next's RSS and collector
    const run = spawnSync(process.execPath, [...process.execArgv, path.join(__dirname, 'run.ts'), step.bench], { env: { ...process.env, ...step.env }, stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`bench ${step.bench} (${step.name}) failed: exit ${run.status ?? run.signal}`);
    loads[step.name] = [before, load1()];
  }
  const results = JSON.parse(fs.readFileSync(out, 'utf8')) as Results;
  const rows = targetRows(results, loads);
  process.stdout.write(`\nissue #30's targets (started ${start.date}, load ${start.load.map((l) => l.toFixed(1)).join(' ')}; ended load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores; Node ${process.version})\n${targetTable(rows)}\n`);
  results.targets = { date: start.date, node: process.version, load_start: start.load, load_end: os.loadavg(), rows };
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
}
