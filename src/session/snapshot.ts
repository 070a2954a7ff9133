/**
 * A trace session's content: one parse and one analysis of a trace file, computed together and
 * read by every view (decorations, Problems, hovers, CodeLens, Outline, status bar, graph).
 * Pure: no `vscode`, so a worker thread can compute it (the large-traces issue moves it there).
 */
import { analyzeTrace, type Analysis, type Finding } from '../analysis';
import type { LoadedTrace, Origin, Position } from '../trace/model';

/** The parse and analysis of one version of a trace file. */
export interface TraceSnapshot {
  /** Session key: the trace file's URI as a string. */
  key: string;
  /** Document version it was read from (-1 when read from disk). */
  version: number;
  /** File system path of the trace file (sub-agent files are relative to its folder). */
  path: string;
  loaded: LoadedTrace;
  /** Undefined only when the analysis itself failed (`analysisError` says why): the trace still shows. */
  analysis: Analysis | undefined;
  analysisError?: string;
  /** Findings of the analysis (empty when it failed). */
  findings: Finding[];
  /** Per file (`''` = the trace file, else the origin's `file`): event indices sorted by the start of their range. */
  byFile: Map<string, number[]>;
  /** Event index -> indices into `findings` that concern it. */
  findingsOf: Map<number, number[]>;
}

/** Builds a snapshot from a loaded trace: runs the analysis and the per-file event lookups. Never throws. */
export function makeSnapshot(key: string, version: number, path: string, loaded: LoadedTrace): TraceSnapshot {
  let analysis: Analysis | undefined;
  let analysisError: string | undefined;
  try {
    analysis = analyzeTrace(loaded);
  } catch (err) {
    analysisError = (err as Error).message;
  }
  const findings = analysis?.findings ?? [];
  const findingsOf = new Map<number, number[]>();
  findings.forEach((f, k) => {
    for (const i of new Set(f.events)) findingsOf.set(i, [...(findingsOf.get(i) ?? []), k]);
  });
  return { key, version, path, loaded, analysis, analysisError, findings, byFile: eventsByFile(loaded.eventOrigins), findingsOf };
}

/** Event indices grouped by the file they came from, each group sorted by range start (then end). */
export function eventsByFile(origins: readonly (Origin | undefined)[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  let file: string | undefined;
  let list: number[] = [];
  for (let i = 0; i < origins.length; i++) {
    const o = origins[i];
    if (!o) continue;
    const f = o.file ?? '';
    if (f !== file) {
      // the list of the previous event's file is kept at hand: events of one file come in runs
      file = f;
      let l = out.get(f);
      if (!l) out.set(f, (l = []));
      list = l;
    }
    list.push(i);
  }
  const byRange = (a: number, b: number) => compare(origins[a]!.range.start, origins[b]!.range.start) || compare(origins[a]!.range.end, origins[b]!.range.end);
  // a reader gives its events in file order: most lists are sorted already (checked in one pass)
  for (const group of out.values()) if (!isSorted(group, byRange)) group.sort(byRange);
  return out;
}

/** True when `list` is in the order of `cmp` (no pair out of order). */
function isSorted(list: readonly number[], cmp: (a: number, b: number) => number): boolean {
  for (let k = 1; k < list.length; k++) if (cmp(list[k - 1], list[k]) > 0) return false;
  return true;
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
    if (compare(origins[list[mid]]!.range.start, at) <= 0) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  let best: number | undefined;
  let bestSize = Infinity;
  for (let k = found; k >= 0 && k > found - 64; k--) {
    const r = origins[list[k]]!.range;
    if (compare(r.end, at) >= 0) {
      const size = (r.end.line - r.start.line) * 1e7 + (r.end.character - r.start.character);
      if (size < bestSize) {
        best = list[k];
        bestSize = size;
      }
    }
  }
  if (best !== undefined) return best;
  const last = found >= 0 ? origins[list[found]]! : undefined;
  return last && last.range.start.line === at.line ? list[found] : undefined;
}

/** Compares two positions: negative when `a` is before `b`. */
export function compare(a: Position, b: Position): number {
  return a.line - b.line || a.character - b.character;
}
