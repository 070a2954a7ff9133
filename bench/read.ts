/**
 * Large traces (issue #14): generated otrace JSONL traces of 1k, 10k, 100k and 1M events, each
 * without and with long content (bench/_generate.ts; written once to a temporary folder after a
 * free-space check, reused by later runs), and per trace:
 * Times are CPU time of the process (user + system; see {@link ms}), not wall time.
 * - bare: a per-line `JSON.parse` of the file's Buffer (each line decoded from UTF-8 on its own);
 * - bare, kept: the bare per-line parse keeping every value in one array (the floor of any reader
 *   that keeps JSON.parse's objects as its events: the collector copies each survivor out of the
 *   young generation and marks it at each full collection, which the bare parse, dropping its
 *   values, never pays; read / that is the reader's own share). Timed as the read is (the
 *   previous result held), in a child process (bench/_kept.mjs) so that its garbage is in no other timing;
 * - bare in runs: the same lines decoded and parsed 64 KB of whole lines at a time, as one JSON
 *   array (the floor of the batching the reader does; the ratio against it says how much of the
 *   reader's lead over the per-line parse comes from that batching alone);
 * - read: the otrace reader on the same Buffer (`readTraceJsonlBytes`: decode and parse, runs of
 *   whole lines together (src/trace/jsonl.ts), validate with the fast path and zod, origins with
 *   byte offsets, cross-record checks)
 *   plus the per-file event index the editor uses (`eventsByFile`); the ratio read / bare is
 *   measured in the same process, run after run (median of the per-run ratios);
 * - column read: the same read into typed columns (`readTraceColumns`, src/trace/columns: the same
 *   loop, checks and problems, no object per record kept) plus the same index, timed in the same
 *   runs the same way (nothing held while it runs), with its ratios to bare and to bare kept;
 * - analysis: `analyzeTrace` in events/s, the best of three runs (the first, which also compiles
 *   the analysis, beside it); the process RSS after it;
 * - for the 1M trace without long content: `otrace analyze` as a user runs it (dist/cli.js, built
 *   first): wall time and peak RSS (from /usr/bin/time).
 * A table on stdout and the figures in bench/results.json.
 *
 *   npm run bench -- read                      all sizes
 *   OTRACE_BENCH_SIZES=1k,100k npm run bench -- read
 *   OTRACE_BENCH_DIR=/path  (default: the OS temp folder, otrace-bench/)
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeTrace } from '../src/analysis';
import { eventsByFile } from '../src/engine/snapshot';
import { readTraceColumns } from '../src/trace/columns/read-columns';
import { BUFFERS_IN_HEAP_LIMIT_FLAG, needsBuffersInHeapLimitFlag } from '../src/engine/heap-accounting';
import { readTraceJsonlBytes } from '../src/trace/read';
import { writeTraceFile } from './_generate';
import { fmt } from './_util';

const SIZES: Record<string, number> = { '1k': 1_000, '10k': 10_000, '100k': 100_000, '1M': 1_000_000 };

/** Per-line JSON.parse of a Buffer, each line decoded on its own: the floor of any JSONL reader. @returns the records parsed. */
export function bareParse(buf: Buffer): number {
  let at = 0;
  let records = 0;
  for (;;) {
    const nl = buf.indexOf(10, at);
    const end = nl === -1 ? buf.length : nl;
    if (end > at) {
      JSON.parse(buf.toString('utf8', at, end));
      records++;
    }
    if (nl === -1) return records;
    at = nl + 1;
  }
}

/** Bytes of whole lines parsed together by {@link bareParseRuns}, as the reader's runs. */
const RUN_BYTES = 64 * 1024;

/** The lines of a Buffer parsed as JSON arrays of about {@link RUN_BYTES} of whole lines (one decode and one parse per run). */
function bareParseRuns(buf: Buffer): number {
  let at = 0;
  let records = 0;
  while (at < buf.length) {
    let end = buf.indexOf(10, Math.min(buf.length, at + RUN_BYTES));
    if (end === -1) end = buf.length;
    const text = buf.toString('utf8', at, end).trimEnd();
    if (text) records += (JSON.parse(`[${text.split('\n').join(',')}]`) as unknown[]).length;
    at = end + 1;
  }
  return records;
}

/** The otrace reader on the same Buffer, and the editor's per-file index of its events. */
function otraceRead(buf: Buffer) {
  const loaded = readTraceJsonlBytes(
    (b, offset, length, position) => buf.copy(b, offset, position, Math.min(buf.length, position + length)),
    (offset, bytes) => buf.toString('utf8', offset, offset + bytes),
    undefined,
    buf.length, // the file's size, as loadTraceFile gives it
  );
  eventsByFile(loaded.eventOrigins);
  return loaded;
}

/** The column reader on the same Buffer (issue #30 item 1), and the same per-file index. */
function columnRead(buf: Buffer) {
  const loaded = readTraceColumns(
    (b, offset, length, position) => buf.copy(b, offset, position, Math.min(buf.length, position + length)),
    (offset, bytes) => buf.toString('utf8', offset, offset + bytes),
    undefined,
    buf.length,
  );
  eventsByFile(loaded.columns.eventOrigins);
  return loaded;
}

/**
 * CPU milliseconds of `f` (user + system, all threads of the process, GC helpers included): on a
 * machine shared with other work, wall time mostly measures the wait for a core; CPU time does not.
 */
function ms(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (bytes: number) => bytes / (1024 * 1024);

interface Row {
  trace: string;
  events: number;
  file_mb: number;
  bare_ms: number;
  read_ms: number;
  ratio: number;
  /** The bare parse keeping its values, and read / that (see the header). */
  kept_ms: number;
  ratio_to_kept: number;
  /** The bare parse in runs of whole lines, and read / that (see the header). */
  bare_runs_ms: number;
  ratio_to_runs: number;
  ratio_runs: number[];
  /** The column read (see the header): its time, its ratio to bare (median of the runs'), the runs' ratios, its ratio to bare kept. */
  columns_ms: number;
  columns_ratio: number;
  columns_ratio_runs: number[];
  columns_ratio_to_kept: number;
  analysis_ms: number;
  analysis_events_per_s: number;
  /** The first of the runs (it compiles the analysis too). */
  analysis_first_events_per_s: number;
  rss_mb: number;
  problems: number;
}

export async function bench(): Promise<void> {
  const dir = process.env.OTRACE_BENCH_DIR ?? path.join(os.tmpdir(), 'otrace-bench');
  const sizes = (process.env.OTRACE_BENCH_SIZES ?? Object.keys(SIZES).join(',')).split(',').filter((s) => s in SIZES);
  const rows: Row[] = [];
  for (const size of sizes) {
    for (const long of [false, true]) {
      const n = SIZES[size];
      const name = `${size}${long ? '-long' : ''}`;
      const file = path.join(dir, `trace-${name}.otrace.jsonl`);
      const bytes = writeTraceFile(file, n, { longContent: long });
      let buf: Buffer | undefined = fs.readFileSync(file);
      const runs = n >= 1_000_000 ? 3 : n >= 100_000 ? 4 : 7;
      bareParse(buf); // warm-up
      bareParseRuns(buf);
      otraceRead(buf);
      columnRead(buf);
      const bare: number[] = [];
      const bareRuns: number[] = [];
      const read: number[] = [];
      const ratios: number[] = [];
      const columns: number[] = [];
      const columnRatios: number[] = [];
      let columnEvents = 0;
      let loaded: ReturnType<typeof otraceRead> | undefined = otraceRead(buf);
      const reps = Math.max(1, Math.round(100_000 / n)); // each timing covers >= 100k events: small traces repeat
      for (let r = 0; r < runs; r++) {
        const b = ms(() => {
          for (let k = 0; k < reps; k++) bareParse(buf!);
        }) / reps;
        // the previous run's trace is let go first: a read that held it made every full collection
        // mark two traces (a first open holds none; the bare parse holds nothing either)
        loaded = undefined;
        let held: ReturnType<typeof columnRead> | undefined;
        const c = ms(() => {
          for (let k = 0; k < reps; k++) {
            held = undefined;
            held = columnRead(buf!);
          }
        }) / reps;
        columnEvents = held!.columns.eventCount;
        held = undefined;
        columns.push(c);
        columnRatios.push(c / b);
        const o = ms(() => {
          for (let k = 0; k < reps; k++) {
            loaded = undefined;
            loaded = otraceRead(buf!);
          }
        }) / reps;
        bareRuns.push(ms(() => {
          for (let k = 0; k < reps; k++) bareParseRuns(buf!);
        }) / reps);
        bare.push(b);
        read.push(o);
        ratios.push(o / b);
      }
      buf = undefined;
      // the best of 3 runs, the analysis at its steady rate: V8 compiles it again and again through the process's first
      // two (at 1M, 500 and 410 ms of CPU on the compiler's thread, 34 in the third); the first run's figure is shown beside
      const analysisRuns = [0, 1, 2].map(() => ms(() => analyzeTrace(loaded!)));
      const analysisMs = Math.min(...analysisRuns);
      const events = loaded!.trace.events.length;
      if (columnEvents !== events) throw new Error(`the column read of ${name} holds ${columnEvents} events, the object read ${events}`);
      const problems = loaded!.problems.length;
      const rss = process.memoryUsage().rss;
      loaded = undefined;
      const kept = keptParse(file, runs, reps);
      rows.push({
        trace: name,
        events,
        file_mb: Math.round(mb(bytes) * 10) / 10,
        bare_ms: Math.round(median(bare)),
        read_ms: Math.round(median(read)),
        ratio: Math.round(median(ratios) * 100) / 100,
        kept_ms: Math.round(kept),
        ratio_to_kept: Math.round((median(read) / kept) * 100) / 100,
        bare_runs_ms: Math.round(median(bareRuns)),
        ratio_to_runs: Math.round((median(read) / median(bareRuns)) * 100) / 100,
        ratio_runs: ratios.map((r) => Math.round(r * 100) / 100),
        columns_ms: Math.round(median(columns)),
        columns_ratio: Math.round(median(columnRatios) * 100) / 100,
        columns_ratio_runs: columnRatios.map((r) => Math.round(r * 100) / 100),
        columns_ratio_to_kept: Math.round((median(columns) / kept) * 100) / 100,
        analysis_ms: Math.round(analysisMs),
        analysis_events_per_s: Math.round(events / (analysisMs / 1000)),
        analysis_first_events_per_s: Math.round(events / (analysisRuns[0] / 1000)),
        rss_mb: Math.round(mb(rss)),
        problems,
      });
      const row = rows[rows.length - 1];
      process.stdout.write(`  ${name}: ${fmt(row.file_mb)} MB, read ${row.read_ms} ms / bare ${row.bare_ms} ms = ${row.ratio}x (runs ${row.ratio_runs.join(' ')}); bare kept ${row.kept_ms} ms, read / that ${row.ratio_to_kept}x; bare in runs ${row.bare_runs_ms} ms, read / that ${row.ratio_to_runs}x; column read ${row.columns_ms} ms = ${row.columns_ratio}x bare (runs ${row.columns_ratio_runs.join(' ')}), ${row.columns_ratio_to_kept}x bare kept; analysis ${fmt(row.analysis_events_per_s, 0)} events/s (the first run ${fmt(row.analysis_first_events_per_s, 0)}), RSS ${row.rss_mb} MB\n`);
    }
  }
  const cli = sizes.includes('1M') ? cliAnalyze(path.join(dir, 'trace-1M.otrace.jsonl')) : undefined;
  const header = '| trace | events | file MB | JSON.parse per line ms (CPU) | read+validate+index ms (CPU) | ratio | JSON.parse per line, values kept, ms | read / kept | JSON.parse in 64 KB runs ms | read / runs | column read ms (CPU) | column read / bare | column read / kept | analysis events/s (CPU; first run) | RSS MB |';
  const lines = [header, '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|', ...rows.map((r) => `| ${r.trace} | ${fmt(r.events, 0)} | ${fmt(r.file_mb)} | ${fmt(r.bare_ms, 0)} | ${fmt(r.read_ms, 0)} | ${r.ratio}x | ${fmt(r.kept_ms, 0)} | ${r.ratio_to_kept}x | ${fmt(r.bare_runs_ms, 0)} | ${r.ratio_to_runs}x | ${fmt(r.columns_ms, 0)} | ${r.columns_ratio}x | ${r.columns_ratio_to_kept}x | ${fmt(r.analysis_events_per_s, 0)} (${fmt(r.analysis_first_events_per_s, 0)}) | ${r.rss_mb} |`)];
  if (cli) lines.push('', `otrace analyze (1M events, ${fmt(cli.file_mb)} MB): ${fmt(cli.seconds)} s, peak RSS ${fmt(cli.peak_rss_mb, 0)} MB, exit ${cli.exit}`);
  process.stdout.write(`\n${lines.join('\n')}\n(load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores)\n`);
  const out = path.join(__dirname, 'results.json');
  const previous = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
  previous.read = { date: new Date().toISOString(), node: process.version, load: os.loadavg(), rows, cli_analyze_1M: cli };
  fs.writeFileSync(out, `${JSON.stringify(previous, null, 2)}\n`);
}

/**
 * CPU ms of the per-line JSON.parse of `file` keeping its values (median of `runs` timings of
 * `reps` parses): bench/_kept.mjs, in a child process (see there) whose heap counts typed arrays as
 * this one's does (src/engine/heap-accounting.ts).
 */
function keptParse(file: string, runs: number, reps: number): number {
  const heap = needsBuffersInHeapLimitFlag(process.versions.v8) ? [BUFFERS_IN_HEAP_LIMIT_FLAG] : [];
  const r = spawnSync(process.execPath, [...heap, path.join(__dirname, '_kept.mjs'), file, String(runs), String(reps)], { encoding: 'utf8' });
  const value = Number(r.stdout);
  if (r.status !== 0 || !Number.isFinite(value)) throw new Error(`bench/_kept.mjs failed on ${file}: ${r.stderr}`);
  return value;
}

/** `otrace analyze FILE` in a child process: wall seconds and peak RSS (GNU time's %M, in MB). */
function cliAnalyze(file: string): { seconds: number; peak_rss_mb: number; exit: number | null; file_mb: number } | undefined {
  const root = path.join(__dirname, '..');
  spawnSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, path.join(root, 'dist', 'cli.js'), 'analyze', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const m = /([\d.]+) (\d+)\s*$/.exec(r.stderr ?? '');
  if (!m) return undefined;
  return { seconds: Number(m[1]), peak_rss_mb: Math.round(Number(m[2]) / 1024), exit: r.status, file_mb: Math.round(mb(fs.statSync(file).size) * 10) / 10 };
}
