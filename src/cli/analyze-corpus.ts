/**
 * `otrace analyze DIR|FILE... [--json] [--outcome failure|success]`: the analysis of every trace under
 * the paths, one row per trace (events, agents, outcome, the run's final stop finding, loops, blamed
 * agent and step) and totals. Files a parent trace pulls in are counted once (corpus.ts). Text output
 * goes through `safe` (trace names and ids are untrusted); `--json` prints `{ traces, totals, left_out }`.
 */
import { analyzeTrace } from '../analysis';
import { clipList, errorCount, safe, safeJson, writeLines } from './common';
import { corpusExit, forEachTrace } from './corpus';
import { addTo } from '../trace/counts';

/** One trace's row. */
export interface CorpusRow {
  trace: string;
  format: string;
  events: number;
  agents: number;
  outcome: string;
  /** The finding at the run's final stop (ok, premature, delayed, no_stop), and its reason. */
  stop: string | null;
  stop_reason: string | null;
  loops: number;
  /** Loops the run ended inside. */
  unresolved_loops: number;
  blame: { agent: string; event: string; record: number; basis: string } | null;
  /** Errors found while reading. */
  errors: number;
}

/** Totals over the rows. */
export interface CorpusTotals {
  traces: number;
  events: number;
  outcomes: Record<string, number>;
  stops: Record<string, number>;
  loops: number;
  traces_with_loops: number;
  blamed: number;
}

/** Runs the corpus view; returns the exit code ({@link corpusExit}: 2 a file unreadable, 1 no trace found or a trace with errors). */
export function analyzeCorpus(paths: string[], options: { json: boolean; outcome?: 'failure' | 'success' }): number {
  const { results, summary } = forEachTrace(paths, (loaded, name): CorpusRow => {
    const a = analyzeTrace(loaded, { outcome: options.outcome });
    const final = a.stops.length ? a.stops[a.stops.length - 1] : undefined;
    return {
      trace: name,
      format: loaded.format,
      events: loaded.trace.events.length,
      agents: new Set(loaded.trace.events.map((e) => e.agent)).size,
      outcome: a.outcome.status,
      stop: final?.finding ?? null,
      stop_reason: final?.reason ?? null,
      loops: a.loops.length,
      unresolved_loops: a.loops.filter((l) => l.unresolved).length,
      blame: a.blame ? { agent: a.blame.agent, event: a.blame.event, record: a.blame.record, basis: a.blame.basis } : null,
      errors: errorCount(loaded),
    };
  });
  const rows = results.map((r) => r.result);
  const count = (key: (r: CorpusRow) => string) => rows.reduce<Record<string, number>>((acc, r) => (addTo(acc, key(r)), acc), {});
  const totals: CorpusTotals = {
    traces: rows.length,
    events: rows.reduce((s, r) => s + r.events, 0),
    outcomes: count((r) => r.outcome),
    stops: count((r) => r.stop ?? 'none'),
    loops: rows.reduce((s, r) => s + r.loops, 0),
    traces_with_loops: rows.filter((r) => r.loops > 0).length,
    blamed: rows.filter((r) => r.blame).length,
  };
  const leftOut = { pulled_in: summary.pulled_in, not_traces: summary.not_traces, unreadable: summary.unreadable };
  if (options.json) {
    process.stdout.write(safeJson({ traces: rows, totals, left_out: leftOut }) + '\n');
    return corpusExit(summary, paths);
  }
  if (rows.length === 0) return corpusExit(summary, paths); // says why on stderr; no empty table
  const header = ['trace', 'events', 'agents', 'outcome', 'stop', 'loops', 'blame'];
  const cells = rows.map((r) => [
    safe(r.trace, 80),
    String(r.events),
    String(r.agents),
    r.outcome,
    r.stop ? `${r.stop} (${safe(r.stop_reason)})` : 'none',
    r.unresolved_loops ? `${r.loops} (${r.unresolved_loops} unresolved)` : String(r.loops),
    r.blame ? `${safe(r.blame.agent, 40)} @ ${r.blame.record} (${r.blame.basis})` : '-',
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...cells.map((row) => row[c].length)));
  const line = (row: string[]) => row.map((x, c) => (c === 1 || c === 2 ? x.padStart(widths[c]) : x.padEnd(widths[c]))).join('  ').trimEnd();
  const fmt = (rec: Record<string, number>) => clipList(Object.entries(rec), ([k, v]) => `${safe(k)} ${v}`, 200);
  const out = [
    line(header),
    ...cells.map(line),
    '',
    `${totals.traces} traces, ${totals.events} events; outcomes: ${fmt(totals.outcomes)}; final stops: ${fmt(totals.stops)}; ${totals.loops} loops in ${totals.traces_with_loops} traces; blame in ${totals.blamed}`,
  ];
  const left = [
    summary.pulled_in.length ? `${summary.pulled_in.length} files pulled in by a parent trace` : '',
    summary.not_traces.length ? `${summary.not_traces.length} not traces` : '',
    summary.unreadable.length ? `${summary.unreadable.length} unreadable` : '',
  ].filter(Boolean);
  if (left.length) out.push(`left out: ${left.join(', ')}`);
  writeLines(process.stdout, out);
  return corpusExit(summary, paths);
}
