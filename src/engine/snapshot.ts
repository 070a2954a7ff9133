/**
 * A trace session's content: one parse and one analysis of a trace file, computed together and
 * read by every view (decorations, Problems, hovers, CodeLens, Outline, status bar, graph).
 * Pure: no `vscode`, so a worker thread can compute it (the large-traces issue moves it there).
 */
import { analysisSteps, type Analysis, type AnalysisPhase, type Finding } from '../analysis';
import { countsSteps as traceCountsSteps, LineOrigins, type LoadedTrace, type OriginList, type Position, type Range } from '../trace/model';
import { runSummary, type RunSummary } from '../analysis/run-summary';
import { notedSharedPrefix } from '../trace/shared-prefix';
import type { SetAside } from './long-content';

/** Event indices (read only; a list may be shared between snapshots). */
export type EventList = ArrayLike<number> & Iterable<number>;

/** The parse and analysis of one version of a trace file. */
export interface TraceSnapshot {
  /** Session key: the trace file's URI as a string. */
  key: string;
  /** Document version it was read from (-1 when read from disk). */
  version: number;
  /** File system path of the trace file (sub-agent files are relative to its folder). */
  path: string;
  loaded: LoadedTrace;
  /**
   * Undefined while the analysis runs (`analysisPending`: the trace as read, shown before its
   * analysis) or when the analysis itself failed (`analysisError` says why): the trace still shows.
   */
  analysis: Analysis | undefined;
  analysisError?: string;
  /** True for the snapshot of a trace as read, whose analysis is still running (a later snapshot of the same read brings it); never set with `analysisError`. */
  analysisPending?: true;
  /** Findings of the analysis (empty while it runs or when it failed; while it runs after an append, those of the last analysis: {@link carried}). */
  findings: Finding[];
  /** Per file (`''` = the trace file, else the origin's `file`): event indices sorted by the start of their range (read only: a list may be shared). */
  byFile: Map<string, EventList>;
  /** The findings that concern each event, in columns (read with {@link findingsOfEvent}). */
  findingsOf: FindingsOf;
  /** The run at a glance (no cost: the price data is the CLI's), computed before long content is let go; undefined while the analysis runs or when it failed. */
  run?: RunSummary;
  /** Events whose long content was let go after the analysis, to be read from disk (src/engine/long-content.ts). */
  setAside?: SetAside;
  /**
   * Set on a trace as read after lines were appended to its files, while its own analysis runs: the
   * last analysis's findings, credit, loop count, graph marks and run summary are shown meanwhile
   * (`findings`, `findingsOf`, `run`, and that `analysis` here) for the first `events` events, which
   * came from the same records at the same indices (see {@link appendedSnapshot}); every index the
   * carried analysis names is below `events`. A live trace keeps its decorations and its graph's
   * marks between appends.
   */
  carried?: { events: number; analysis: Analysis };
  /**
   * Set on the trace of a large file's first part while the rest is read (issue #30, progressive
   * open: src/engine/session-input.ts): the trace of the file's first `bytes` of its `of` bytes. Its
   * problems are not listed meanwhile (a reference to an event not read yet is no missing event).
   * `stopped`: the read was cancelled or failed before its end (the part stays shown, unanalysed; the next load reads on).
   */
  reading?: { bytes: number; of: number; stopped?: true };
}

/** Per event index i, the indices into `findings` that concern it: `list[start[i] .. start[i + 1])`, ascending. */
export interface FindingsOf {
  /** Per event, where its findings start in `list` (and the next event's, where they end); fewer entries than events + 1 when the last events have none (an append's snapshot keeps the last one's columns). */
  start: Int32Array;
  list: Int32Array;
}

/**
 * Builds a snapshot from a loaded trace: runs the analysis and the per-file event lookups. Never throws.
 * @param outcome the run's outcome as the user states it (overrides the trace's own signal), or undefined
 */
export function makeSnapshot(key: string, version: number, path: string, loaded: LoadedTrace, outcome?: 'success' | 'failure'): TraceSnapshot {
  const read = readSnapshot(key, version, path, loaded);
  const steps = snapshotAnalysis(read, outcome);
  let step = steps.next();
  while (!step.done) step = steps.next();
  const analysis = step.value;
  return analysedSnapshot(read, analysis);
}

/**
 * The snapshot of a trace as read, before its analysis (`analysisPending`): no findings, no run
 * summary; the per-file event lookups are made (every view but the analysis marks can answer).
 * O(n) for n events. Never throws.
 */
export function readSnapshot(key: string, version: number, path: string, loaded: LoadedTrace): TraceSnapshot {
  return withoutFindings(key, version, path, loaded, { start: new Int32Array(loaded.trace.events.length + 1), list: new Int32Array(0) });
}

/** A {@link readSnapshot} with the per-event finding columns `findingsOf` (an append that carries findings makes them once, not twice). */
function withoutFindings(key: string, version: number, path: string, loaded: LoadedTrace, findingsOf: FindingsOf): TraceSnapshot {
  return { key, version, path, loaded, analysis: undefined, analysisPending: true, findings: [], byFile: eventsByFile(loaded.eventOrigins), findingsOf };
}

/**
 * The snapshot of a trace as read after lines were appended to the files `before` was read from
 * (the caller knows the bytes read before are unchanged): a {@link readSnapshot} showing what
 * `before` shows of the analysis (its own, or the one it carried) while its own analysis runs,
 * when every event that analysis read is at the same index here, from the same record (file and
 * line: a sub-agent's events read in between would move them); else a plain {@link readSnapshot}.
 * O(n) for n events (the records compared).
 */
export function appendedSnapshot(key: string, version: number, path: string, loaded: LoadedTrace, before: TraceSnapshot | undefined): TraceSnapshot {
  const shown = before && analysisShown(before);
  if (!shown || !sameRecords(before.loaded.eventOrigins, loaded.eventOrigins, shown.events) || shown.events > loaded.trace.events.length) return readSnapshot(key, version, path, loaded);
  // the carried analysis's columns as they are: the events past those it read have no findings (their entries, if any, are
  // all the same), and an event past the columns has none (findingsOfEvent); a copy widened was 4 MB at each read at 1M events
  const read = withoutFindings(key, version, path, loaded, before.findingsOf);
  return { ...read, findings: before.findings, ...(before.run ? { run: before.run } : {}), carried: shown };
}

/**
 * The analysis a snapshot shows: its own, else (while an append is analysed) the one it carries,
 * whose indices name only the first `carried.events` events; undefined when it shows none.
 */
export function shownAnalysis(s: TraceSnapshot): Analysis | undefined {
  return s.analysis ?? s.carried?.analysis;
}

/** What a snapshot shows of an analysis: how many events it read, and the analysis; undefined when it shows none. */
function analysisShown(s: TraceSnapshot): TraceSnapshot['carried'] {
  if (s.analysis) return { events: s.analysis.metrics.events, analysis: s.analysis };
  return s.carried;
}

/** True when the first `n` records of both lists are the same records (line and file): lines were only appended. O(n), no allocation. */
function sameRecords(before: OriginList, after: OriginList, n: number): boolean {
  if (before.length < n || after.length < n) return false;
  // the origins a growing read noted the same (src/trace/shared-prefix.ts) are not compared
  if (notedSharedPrefix(after, before, n) === n) return true;
  for (let i = 0; i < n; i++) if (before.record(i) !== after.record(i)) return false;
  if (before instanceof LineOrigins && after instanceof LineOrigins) return true; // one file: no file per record
  for (let i = 0; i < n; i++) if (before.get(i)?.file !== after.get(i)?.file) return false;
  return true;
}

/**
 * The analysis of a snapshot as read, run in phases ({@link analysisSteps}): yields each phase's
 * name as it ends (the engine's worker answers other messages there), returns the analysis, or
 * `{ error }` with the message of the exception a phase threw. Ending it early frees what it holds.
 * @param outcome the run's outcome as the user states it, or undefined (the trace's own signal).
 * @param inProgress the trace's files are still being written (StopOptions.inProgress).
 * @param pauseAfterMs a long phase pauses at its next seam after this many ms (AnalysisOptions.pauseAfterMs; default 40).
 */
export function* snapshotAnalysis(read: TraceSnapshot, outcome?: 'success' | 'failure', inProgress = false, pauseAfterMs?: number): Generator<AnalysisPhase, Analysis | { error: string }, void> {
  try {
    return yield* analysisSteps(read.loaded, { ...(outcome ? { outcome } : {}), ...(inProgress ? { inProgress } : {}), ...(pauseAfterMs !== undefined ? { pauseAfterMs } : {}) });
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/**
 * The snapshot of `read` (a {@link readSnapshot}) with its analysis, or with why it failed: a new
 * snapshot (a new stamp) sharing the read trace and its per-file lookups. O(n + findings' events).
 * @param summarize makes the run summary (a followed trace's goes on from the last one: FollowAnalysis.summary); runSummary by default.
 */
export function analysedSnapshot(read: TraceSnapshot, result: Analysis | { error: string }, summarize: (loaded: LoadedTrace, analysis: Analysis) => RunSummary = runSummary): TraceSnapshot {
  const { key, version, path, loaded, byFile } = read;
  const analysis = 'error' in result ? undefined : result;
  const findings = analysis?.findings ?? [];
  const findingsOf = findingsWhenRead(findings, loaded.trace.events.length);
  let run: RunSummary | undefined;
  try {
    run = analysis && summarize(loaded, analysis);
  } catch {
    run = undefined; // the summary is a view of the analysis: the graph still opens without it
  }
  return { key, version, path, loaded, analysis, ...('error' in result ? { analysisError: result.error } : {}), findings, byFile, findingsOf, ...(run ? { run } : {}) };
}

/**
 * Why a snapshot has no analysis, in words: `the analysis is still running`, or `the analysis failed:
 * <error>`; with `of`, `the analysis of <of> …` (a comparison names its runs A and B).
 */
export function whyNoAnalysis(snapshot: Pick<TraceSnapshot, 'analysisPending' | 'analysisError'>, of?: string): string {
  const what = of ? `the analysis of ${of}` : 'the analysis';
  return snapshot.analysisPending ? `${what} is still running` : `${what} failed: ${snapshot.analysisError ?? 'unknown error'}`;
}

/** The findings of each of `n` events (see {@link FindingsOf}); 8 bytes per event and per (event, finding) pair, no object per event. */
export function findingsByEvent(findings: readonly Finding[], n: number): FindingsOf {
  const start = new Int32Array(n + 1);
  // each finding's events once each and in range: the last finding that counted an event is noted
  // per event (a set of a loop's hundred thousand events per finding was 30 ms at 1M events)
  const counted = new Int32Array(n).fill(-1);
  const inRange = (i: number) => Number.isInteger(i) && i >= 0 && i < n;
  findings.forEach((f, k) => {
    for (const i of f.events) {
      if (!inRange(i) || counted[i] === k) continue;
      counted[i] = k;
      start[i + 1]++;
    }
  });
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const list = new Int32Array(start[n]);
  const fill = counted; // (reused: each event's next place in the list)
  fill.set(start.subarray(0, n));
  findings.forEach((f, k) => {
    for (const i of f.events) if (inRange(i) && (fill[i] === start[i] || list[fill[i] - 1] !== k)) list[fill[i]++] = k;
  });
  return { start, list };
}

/**
 * {@link findingsByEvent}, made when its `start` or `list` is first read: an analysed snapshot's
 * columns are read by the queries of one event (a hover, the details, a chat tool), and most
 * snapshots of a followed trace are never asked (15-30 ms each at 1M events). A snapshot spread
 * into another shares them unmade.
 */
function findingsWhenRead(findings: readonly Finding[], n: number): FindingsOf {
  let made: FindingsOf | undefined;
  const make = () => (made ??= findingsByEvent(findings, n));
  const out = {} as FindingsOf;
  Object.defineProperty(out, 'start', { enumerable: true, get: () => make().start });
  Object.defineProperty(out, 'list', { enumerable: true, get: () => make().list });
  return out;
}

/** Indices into `snapshot.findings` of the findings that concern event `index`, ascending. */
export function findingsOfEvent(snapshot: TraceSnapshot, index: number): number[] {
  const { start, list } = snapshot.findingsOf;
  if (!Number.isInteger(index) || index < 0 || index + 1 >= start.length) return [];
  return Array.from(list.subarray(start[index], start[index + 1]));
}

/**
 * Event indices grouped by the file they came from, each group sorted by range start (then end).
 * The streaming reader's origins (every record a line of the trace file, in line order) are in
 * range order as they are. Other files mostly list their events in the order they are written:
 * each group is checked as it is made, and only a group found out of order is sorted (stably).
 */
export function eventsByFile(origins: OriginList): Map<string, EventList> {
  const out = new Map<string, EventList>();
  const n = origins.length;
  if (origins instanceof LineOrigins && origins.inLineOrder) {
    if (n === 0) return out;
    out.set('', firstIndices(n));
    return out;
  }
  const lists = new Map<string, number[]>();
  const last = new Map<string, Range>(); // file -> range of its latest event so far
  const unsorted = new Set<string>();
  for (let i = 0; i < n; i++) {
    const o = origins.get(i);
    if (!o) continue;
    const file = o.file ?? '';
    const range = o.range;
    const before = last.get(file);
    last.set(file, range);
    if (before === undefined) {
      lists.set(file, [i]);
      continue;
    }
    if (compareRanges(before, range) > 0) unsorted.add(file);
    lists.get(file)!.push(i);
  }
  for (const file of unsorted) sortByRange(lists.get(file)!, origins);
  return lists;
}

/** 0, 1, ..., m - 1 for the largest m asked so far: never written once made (a larger one replaces it), so the lists handed out are views of it. */
let counting = new Int32Array(0);

/**
 * 0, 1, ..., n - 1: a view of {@link counting}, made larger (by at least 64k) when n is: O(1) per
 * snapshot (a copy per snapshot was 8 MB of heap and about 20 ms at 1M events, twice per append to
 * a followed trace: its trace as read, then analysed).
 */
function firstIndices(n: number): Int32Array {
  if (counting.length < n) {
    const grown = new Int32Array(Math.max(n, counting.length + 65_536));
    grown.set(counting);
    for (let i = counting.length; i < grown.length; i++) grown[i] = i;
    counting = grown;
  }
  return counting.subarray(0, n);
}

/** Range order: by start, then by end. */
function compareRanges(a: Range, b: Range): number {
  return compare(a.start, b.start) || compare(a.end, b.end);
}

/**
 * Sorts event indices by their origins' ranges, stable. Each range is read once into columns
 * (lines and characters are below 2^31, as a string's length is: 32-bit integers hold them).
 */
function sortByRange(list: number[], origins: OriginList): void {
  const key = new Int32Array(4 * list.length);
  list.forEach((i, k) => {
    const { start, end } = origins.get(i)!.range;
    key.set([start.line, start.character, end.line, end.character], 4 * k);
  });
  const byRange = (a: number, b: number) => {
    for (let c = 0; c < 4; c++) {
      const d = key[4 * a + c] - key[4 * b + c];
      if (d !== 0) return d;
    }
    return 0;
  };
  const order = list.map((_, k) => k).sort(byRange);
  const events = order.map((k) => list[k]);
  for (let k = 0; k < list.length; k++) list[k] = events[k];
}

/**
 * The event whose range holds `at` in `file` (`''` = the trace file): the innermost one when
 * ranges nest, else the last one starting at or before `at` on the same line. Undefined when none.
 */
export function eventAt(snapshot: TraceSnapshot, file: string, at: Position): number | undefined {
  const list = snapshot.byFile.get(file);
  if (!list || list.length === 0) return undefined;
  const origins = snapshot.loaded.eventOrigins;
  // last event starting at or before `at`
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (compare(origins.get(list[mid])!.range.start, at) <= 0) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  let best: number | undefined;
  let bestSize = Infinity;
  for (let k = found; k >= 0 && k > found - 64; k--) {
    const r = origins.get(list[k])!.range;
    if (compare(r.end, at) >= 0) {
      const size = (r.end.line - r.start.line) * 1e7 + (r.end.character - r.start.character);
      if (size < bestSize) {
        best = list[k];
        bestSize = size;
      }
    }
  }
  if (best !== undefined) return best;
  const last = found >= 0 ? origins.get(list[found])! : undefined;
  return last && last.range.start.line === at.line ? list[found] : undefined;
}

/** Compares two positions: negative when `a` is before `b`. */
export function compare(a: Position, b: Position): number {
  return a.line - b.line || a.character - b.character;
}

/** True when the snapshot's trace counts steps, not seconds (trace/model.ts `countsSteps`). */
export function countsSteps(snapshot: Pick<TraceSnapshot, 'loaded'>): boolean {
  return traceCountsSteps(snapshot.loaded);
}
