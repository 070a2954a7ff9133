/**
 * `otrace analyze DIR|FILE... [--json] [--outcome failure|success]`: the analysis of every trace under
 * the paths, one row per trace (events, agents, outcome, the run's final stop finding, loops, blamed
 * agent and step) and totals. Files a parent trace pulls in are counted once (corpus.ts). Text output
 * goes through `safe` (trace names and ids are untrusted); `--json` prints `{ traces, totals, left_out }`.
 */
import { clipList, safe, safeJson, writeLines } from './common';
import { corpusExit } from './corpus';
import type { CorpusRow } from './corpus-row';
import { runCorpus, type RunOptions } from './corpus-run';
import { addTo } from '../trace/counts';

export type { CorpusRow } from './corpus-row';

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

/** Runs the corpus view (on `options.jobs` worker threads, over one shard when asked: corpus-run.ts); returns the exit code ({@link corpusExit}: 2 a file unreadable, 1 no trace found or a trace with errors). */
export async function analyzeCorpus(paths: string[], options: { json: boolean; outcome?: 'failure' | 'success' } & RunOptions): Promise<number> {
  const { results, summary } = await runCorpus(paths, { kind: 'analyze', outcome: options.outcome }, options);
  const rows = results.map((r) => r.result as CorpusRow);
  const count = (key: (r: CorpusRow) => string) => rows.reduce<Record<string, number>>((acc, r) => (addTo(acc, key(r)), acc), {});
  const totals: CorpusTotals = {
    traces: rows.length,
    events: rows.reduce((s, r) => s + r.events, 0),
    outcomes: count((r) => r.outcome),
    // by verdict: a hand-back to the user ends a turn, not the run; a failed run's stop is not a sound one ("ok 3" counted both)
    stops: count((r) => r.stop_verdict ?? 'none'),
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
    r.stop_words ? safe(r.stop_words) : 'none',
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
