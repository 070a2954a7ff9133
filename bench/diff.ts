/**
 * `npm run bench -- diff` (issue 28): two runs of one task compared, beside the time to read them.
 * Per size (100k and 1M events by default): a generated trace (bench/_generate.ts, seed 1) and a copy
 * of it with about 0.3% of its events edited (one in 997 removed, one in 1,009 with other content,
 * one in 1,013 followed by an inserted message), both written as otrace JSONL to the bench folder
 * and read from disk. Then, in CPU time of the process (user + system; see bench/read.ts for why):
 * - read: `loadTraceFile` of each (parse, check, origins);
 * - analysis: `analyzeTrace` of each (the findings a comparison reads);
 * - align: `alignRuns` (agent pairing, fingerprints, each lane pair aligned): the diff itself;
 * - compare: the rest of `compareRuns` (per-agent figures, findings of one side, how each run ended);
 * - diff / read: (align + compare) over the read of one trace;
 * and the process's peak RSS (VmHWM, Linux). Targets: two 100k-event traces diff in under 2 s, two
 * 1M-event traces without running out of memory. At the smallest size given, the trace is also
 * compared with an unrelated one (seed 2: every content differs): the alignment's worst case,
 * bounded by its Myers budget (src/analysis/compare/align.ts).
 *
 *   npm run bench -- diff                       100k and 1M
 *   OTRACE_BENCH_SIZES=10k npm run bench -- diff
 *   OTRACE_BENCH_DIR=/path  (default: the OS temp folder, otrace-bench/)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeTrace } from '../src/analysis';
import { alignRuns, comparison } from '../src/analysis/compare';
import { loadTraceFile } from '../src/trace/load-file';
import type { LoadedTrace } from '../src/trace/model';
import type { TraceEvent } from '../src/trace/schema';
import { generateRecords, writeTraceFile } from './_generate';
import { fmt } from './_util';

const SIZES: Record<string, number> = { '10k': 10_000, '100k': 100_000, '1M': 1_000_000 };

/** CPU milliseconds of `f` and its result. */
function cpu<T>(f: () => T): [T, number] {
  const t0 = process.cpuUsage();
  const r = f();
  const d = process.cpuUsage(t0);
  return [r, (d.user + d.system) / 1000];
}

/** The process's peak RSS in MB (VmHWM), or NaN where /proc is not there. */
function peakRssMb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Writes the generated trace of `n` events (seed 1) with its edits (see the module comment) as
 * otrace JSONL; does nothing when the file is there with the size written before (`.done` marker).
 */
function writeEditedTraceFile(file: string, n: number): { removed: number; changed: number; inserted: number } {
  const counts = { removed: 0, changed: 0, inserted: 0 };
  const marker = `${file}.done`;
  if (fs.existsSync(marker) && fs.existsSync(file) && fs.readFileSync(marker, 'utf8').startsWith(`${fs.statSync(file).size} `)) return JSON.parse(fs.readFileSync(marker, 'utf8').split(' ')[1]) as typeof counts;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  const removed = new Set<string>();
  let chunk: string[] = [JSON.stringify({ trace_id: `bench-${n}-edited`, task_id: 'bench', system: 'generated' })];
  const flush = () => {
    fs.writeSync(fd, `${chunk.join('\n')}\n`);
    chunk = [];
  };
  let k = 0;
  try {
    for (const r of generateRecords(n, { seed: 1 })) {
      if ('edge' in r) {
        if (!removed.has(r.edge.src) && !removed.has(r.edge.dst)) chunk.push(JSON.stringify(r));
        continue;
      }
      const e: TraceEvent = { ...r.event };
      k++;
      if (k % 997 === 13 && e.type !== 'spawn' && e.type !== 'stop') {
        removed.add(e.id);
        counts.removed++;
        continue;
      }
      if (k % 1009 === 7 && typeof e.content === 'string') {
        e.content = `${e.content} (edited)`;
        counts.changed++;
      }
      if (e.causes) e.causes = e.causes.filter((c) => !removed.has(c));
      chunk.push(JSON.stringify(e));
      if (k % 1013 === 5) {
        chunk.push(JSON.stringify({ id: `ins${k}`, t: e.t, type: 'message', agent: e.agent, content: `an extra note ${String.fromCharCode(97 + (k % 26))}${String.fromCharCode(97 + ((k >> 5) % 26))}` }));
        counts.inserted++;
      }
      if (chunk.length > 20_000) flush();
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
  fs.writeFileSync(marker, `${fs.statSync(file).size} ${JSON.stringify(counts)}`);
  return counts;
}

interface Row {
  size: string;
  events: [number, number];
  read_ms: [number, number];
  analysis_ms: [number, number];
  align_ms: number;
  compare_ms: number;
  diff_over_read: number;
  found: { same: number; only_in_a: number; only_in_b: number; changed: number; moved: number };
  edits: { removed: number; changed: number; inserted: number };
  peak_rss_mb: number;
  unrelated_align_ms?: number;
}

export async function bench(): Promise<void> {
  const dir = process.env.OTRACE_BENCH_DIR ?? path.join(os.tmpdir(), 'otrace-bench');
  const sizes = (process.env.OTRACE_BENCH_SIZES ?? '100k,1M').split(',').filter((s) => s in SIZES);
  const rows: Row[] = [];
  for (const size of sizes) {
    const n = SIZES[size];
    const fileA = path.join(dir, `trace-${size}.otrace.jsonl`);
    const fileB = path.join(dir, `trace-${size}-edited.otrace.jsonl`);
    writeTraceFile(fileA, n);
    const edits = writeEditedTraceFile(fileB, n);
    const [readA0, readA] = cpu(() => loadTraceFile(fileA));
    const [readB0, readB] = cpu(() => loadTraceFile(fileB));
    // held through variables that are let go as soon as they are done with (the 1M traces are large)
    let a: LoadedTrace | undefined = readA0;
    let b: LoadedTrace | undefined = readB0;
    const [analysisA, anaA] = cpu(() => analyzeTrace(a!));
    const [analysisB, anaB] = cpu(() => analyzeTrace(b!));
    const [al, alignMs] = cpu(() => alignRuns(a!, b!));
    const [c, compareMs] = cpu(() => comparison({ loaded: a!, analysis: analysisA }, { loaded: b!, analysis: analysisB }, al));
    const row: Row = {
      size,
      events: [a!.trace.events.length, b!.trace.events.length],
      read_ms: [Math.round(readA), Math.round(readB)],
      analysis_ms: [Math.round(anaA), Math.round(anaB)],
      align_ms: Math.round(alignMs),
      compare_ms: Math.round(compareMs),
      diff_over_read: Math.round(((alignMs + compareMs) / readA) * 100) / 100,
      found: { same: c.same, only_in_a: c.only_in_a.length, only_in_b: c.only_in_b.length, changed: c.changed.length, moved: c.moved.length },
      edits,
      peak_rss_mb: peakRssMb(),
    };
    b = undefined;
    if (size === sizes[0]) {
      const other = path.join(dir, `trace-${size}-seed2.otrace.jsonl`);
      writeTraceFile(other, n, { seed: 2 });
      const unrelated = loadTraceFile(other);
      row.unrelated_align_ms = Math.round(cpu(() => alignRuns(a!, unrelated))[1]);
    }
    a = undefined;
    rows.push(row);
    process.stdout.write(
      `  ${size}: ${fmt(row.events[0], 0)} vs ${fmt(row.events[1], 0)} events (${edits.removed} removed, ${edits.changed} changed, ${edits.inserted} inserted); read ${row.read_ms[0]} + ${row.read_ms[1]} ms, analysis ${row.analysis_ms[0]} + ${row.analysis_ms[1]} ms; ` +
        `diff: align ${row.align_ms} ms + compare ${row.compare_ms} ms = ${row.diff_over_read}x the read of one trace; found ${row.found.only_in_a} only in A, ${row.found.only_in_b} only in B, ${row.found.changed} changed, ${row.found.moved} moved; peak RSS ${row.peak_rss_mb} MB` +
        `${row.unrelated_align_ms !== undefined ? `; against an unrelated run: align ${row.unrelated_align_ms} ms` : ''}\n`,
    );
  }
  const lines = [
    '| events | read A + B ms (CPU) | analysis A + B ms | align ms | compare ms | diff / read of one | found (only A, only B, changed, moved) | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.size} | ${r.read_ms.join(' + ')} | ${r.analysis_ms.join(' + ')} | ${r.align_ms} | ${r.compare_ms} | ${r.diff_over_read}x | ${r.found.only_in_a}, ${r.found.only_in_b}, ${r.found.changed}, ${r.found.moved} | ${r.peak_rss_mb} |`),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n(target: align + compare under 2,000 ms at 100k; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores)\n`);
  const out = path.join(__dirname, 'results.json');
  const previous = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
  previous.diff = { date: new Date().toISOString(), node: process.version, load: os.loadavg(), rows };
  fs.writeFileSync(out, `${JSON.stringify(previous, null, 2)}\n`);
}

if (require.main === module) void bench();
