/**
 * Two open traces compared for the compare panel (issue 28): src/analysis/compare's `compareRuns`
 * on two snapshots, laid out as the panel draws it (a {@link CompareModel}): per pair of lanes, the
 * columns of A's events above B's (the same step or the same step changed in one column, an event
 * of one run alone in its own), every difference with where its records are in both files, and
 * the header's words (each run's stop and outcome, the findings of one run only).
 *
 * Columns: each lane's events in time order (time, then file order), walked side by side; A event
 * and B event share a column when the comparison pairs them (the same step, or changed) and the
 * pair is next on both sides; any other event gets a column of its own (a moved event too: its
 * partner is elsewhere). Pure: no `vscode`.
 */
import { compareRuns, type RunComparison, type RunSide } from '../analysis/compare';
import type { LoadedTrace } from '../trace/model';
import type { TraceEvent } from '../trace/schema';
import { plainLabel } from '../shared/untrusted-text';
import { MAX_COLUMNS, MAX_DIFFERENCES, type ColumnKind, type CompareColumn, type CompareDifference, type CompareLanes, type CompareModel, type ComparePlace, type CompareSide } from '../shared/compare-protocol';
import { eventLabel } from './event-labels';
import { contentsOf } from './long-content';
import { whyNoAnalysis, type TraceSnapshot } from './snapshot';
import { endedLine } from '../shared/stop-words';

/** Characters of an event's words in a difference (hover, details). */
const WORDS_CHARS = 160;
/** Characters of a column's label. */
const LABEL_CHARS = 48;

/**
 * The comparison of snapshot A with snapshot B as the panel shows it.
 * @returns the model, or `{ error }` when either run's analysis failed or is still running (nothing to compare stops and findings with).
 */
export function compareView(a: TraceSnapshot, b: TraceSnapshot): CompareModel | { error: string } {
  if (!a.analysis || !b.analysis) return { error: whyNoAnalysis(!a.analysis ? a : b, !a.analysis ? 'A' : 'B') };
  const loadedA = withContent(a);
  const loadedB = withContent(b);
  const c = compareRuns({ loaded: loadedA, analysis: a.analysis }, { loaded: loadedB, analysis: b.analysis });
  return compareModel(loadedA, loadedB, c);
}

/**
 * The panel's model of a comparison already made (`compareRuns` on the same traces).
 * @param a, b the traces compared (events with their content).
 */
export function compareModel(a: LoadedTrace, b: LoadedTrace, c: RunComparison): CompareModel {
  const evA = a.trace.events;
  const evB = b.trace.events;
  // per difference: its index, by the event on each side
  const diffOfA = new Map<number, number>();
  const diffOfB = new Map<number, number>();
  c.differences.forEach((d, k) => {
    if (d.a_index !== null) diffOfA.set(d.a_index, k);
    if (d.b_index !== null) diffOfB.set(d.b_index, k);
  });
  const columnOf = new Map<number, { lanes: number; column: number }>();
  const lanesA = lanesOf(evA);
  const lanesB = lanesOf(evB);
  const all = c.agents.map((p, lanesIndex) => {
    const laneA = (p.a !== null && lanesA.get(p.a)) || [];
    const laneB = (p.b !== null && lanesB.get(p.b)) || [];
    // partners in one column: the same step, or changed
    const partner = new Map<number, number>(p.aligned);
    for (const [i, k] of diffOfA) {
      const d = c.differences[k];
      if (d.kind === 'changed' && d.agents === lanesIndex && d.b_index !== null) partner.set(i, d.b_index);
    }
    return laneColumns(laneA, laneB, partner, (i) => kindOf(c, diffOfA.get(i)), (j) => kindOf(c, diffOfB.get(j)));
  });
  const windows = columnWindows(all, MAX_COLUMNS);
  const lanes: CompareLanes[] = c.agents.map((p, lanesIndex) => {
    const columns = all[lanesIndex];
    const { start, count } = windows[lanesIndex];
    const kept = columns.slice(start, start + count);
    kept.forEach((col, x) => {
      const k = col.a !== undefined ? diffOfA.get(col.a) : undefined;
      const kb = col.b !== undefined ? diffOfB.get(col.b) : undefined;
      const diff = col.kind === 'same' ? undefined : (k ?? kb);
      if (diff !== undefined) {
        col.diff = diff;
        if (!columnOf.has(diff)) columnOf.set(diff, { lanes: lanesIndex, column: x });
      }
      if (col.a !== undefined) col.la = label(evA[col.a], LABEL_CHARS);
      if (col.b !== undefined) col.lb = label(evB[col.b], LABEL_CHARS);
    });
    return {
      a: p.a,
      b: p.b,
      pairedBy: p.paired_by,
      aStats: p.a_stats,
      bStats: p.b_stats,
      deltas: p.deltas,
      counts: { same: p.aligned.length, only_in_a: p.only_in_a, only_in_b: p.only_in_b, changed: p.changed, moved: p.moved },
      columns: kept,
      columnsBefore: start,
      columnsLeftOut: columns.length - kept.length,
    };
  });
  const differences: CompareDifference[] = c.differences.slice(0, MAX_DIFFERENCES).map((d, k) => {
    const at = columnOf.get(k);
    return {
      kind: d.kind,
      a: d.a_index,
      b: d.b_index,
      lanes: at?.lanes ?? d.agents,
      column: at?.column ?? -1,
      ...(d.a_index !== null && place(a, d.a_index) ? { placeA: place(a, d.a_index) } : {}),
      ...(d.b_index !== null && place(b, d.b_index) ? { placeB: place(b, d.b_index) } : {}),
      ...(d.a_index !== null ? { wordsA: label(evA[d.a_index], WORDS_CHARS) } : {}),
      ...(d.b_index !== null ? { wordsB: label(evB[d.b_index], WORDS_CHARS) } : {}),
    };
  });
  const findingWords = (list: RunComparison['findings']['only_in_a']) =>
    list.map((f) => plainLabel(`${f.severity} ${f.kind.replace('_', ' ')}${f.mode && f.mode !== 'ok' ? ` (${f.mode.replace('_', ' ')})` : f.mode === 'ok' ? ' (sound)' : ''}: ${f.message}`, 300));
  return {
    a: side(c.a),
    b: side(c.b),
    lanes,
    differences,
    differencesLeftOut: Math.max(0, c.differences.length - MAX_DIFFERENCES),
    counts: { same: c.same, only_in_a: c.only_in_a.length, only_in_b: c.only_in_b.length, changed: c.changed.length, moved: c.moved.length },
    findings: { a: findingWords(c.findings.only_in_a), b: findingWords(c.findings.only_in_b) },
  };
}

/**
 * The columns of one pair of lanes (see the module comment).
 * @param laneA, laneB event indexes of each lane, in time order
 * @param partner A event -> its B event in the same column (the same step, or changed)
 * @param kindA, kindB how an event with no partner in its column differs (`same` when the comparison says nothing of it)
 */
export function laneColumns(laneA: readonly number[], laneB: readonly number[], partner: ReadonlyMap<number, number>, kindA: (i: number) => ColumnKind, kindB: (j: number) => ColumnKind): CompareColumn[] {
  const posA = new Map<number, number>();
  laneA.forEach((i, k) => posA.set(i, k));
  const posB = new Map<number, number>();
  laneB.forEach((j, k) => posB.set(j, k));
  const partnerOfB = new Map<number, number>();
  for (const [i, j] of partner) partnerOfB.set(j, i);
  const out: CompareColumn[] = [];
  let i = 0;
  let j = 0;
  while (i < laneA.length || j < laneB.length) {
    // a B event with no partner ahead in A goes first: run order puts it right after the last pair before it
    if (j < laneB.length) {
      const p = partnerOfB.get(laneB[j]);
      const at = p === undefined ? undefined : posA.get(p);
      if (at === undefined || at < i || i >= laneA.length) {
        out.push({ kind: alone(kindB(laneB[j]), 'only_in_b'), b: laneB[j] });
        j++;
        continue;
      }
    }
    const ai = laneA[i];
    const m = partner.get(ai);
    const at = m === undefined ? undefined : posB.get(m);
    if (at !== undefined && at === j) {
      out.push({ kind: kindA(ai) === 'changed' ? 'changed' : 'same', a: ai, b: m });
      j++;
    } else out.push({ kind: alone(kindA(ai), 'only_in_a'), a: ai });
    i++;
  }
  return out;
}

/**
 * Which columns of each lane pair are sent when all of them are more than `max`: the budget shared
 * fairly (the shorter pairs whole, the rest split evenly), and each pair's window starting a little
 * before its first difference (so the first divergence is always drawn).
 * @returns per pair, the first column sent and how many.
 */
export function columnWindows(pairs: readonly CompareColumn[][], max: number): { start: number; count: number }[] {
  const out = pairs.map(() => ({ start: 0, count: 0 }));
  const order = pairs.map((_, k) => k).sort((x, y) => pairs[x].length - pairs[y].length);
  let left = max;
  order.forEach((k, n) => {
    const columns = pairs[k];
    const count = Math.min(columns.length, Math.floor(left / (order.length - n)));
    left -= count;
    const first = columns.findIndex((col) => col.kind !== 'same');
    const start = count === columns.length || first < 0 ? 0 : Math.max(0, Math.min(first - Math.floor(count / 10), columns.length - count));
    out[k] = { start, count };
  });
  return out;
}

/** An event alone in its column: how the comparison says it differs, else (a pair the walk could not keep together) one run's own. */
function alone(kind: ColumnKind, fallback: ColumnKind): ColumnKind {
  return kind === 'same' || kind === 'changed' ? fallback : kind;
}

function kindOf(c: RunComparison, k: number | undefined): ColumnKind {
  return k === undefined ? 'same' : c.differences[k].kind;
}

/** Each agent's events, in time order (time, then file order): one pass over the events. */
function lanesOf(events: readonly TraceEvent[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (let i = 0; i < events.length; i++) {
    const agent = events[i].agent;
    let lane = out.get(agent);
    if (!lane) out.set(agent, (lane = []));
    lane.push(i);
  }
  const t = Float64Array.from(events, (e) => (Number.isFinite(e.t) ? e.t : 0));
  for (const lane of out.values()) {
    let sorted = true;
    for (let k = 1; k < lane.length && sorted; k++) sorted = t[lane[k - 1]] <= t[lane[k]];
    if (!sorted) lane.sort((x, y) => t[x] - t[y] || x - y); // most traces are written in time order: no sort
  }
  return out;
}

function label(e: TraceEvent | undefined, max: number): string {
  return e ? plainLabel(eventLabel(e, true), max) : '';
}

function place(loaded: LoadedTrace, index: number): ComparePlace | undefined {
  const o = loaded.eventOrigins.get(index);
  return o && { file: o.file ?? '', range: { start: { ...o.range.start }, end: { ...o.range.end } } };
}

function side(s: RunSide): CompareSide {
  const e = s.ended;
  const ended = e ? endedLine(e) : 'no events';
  return {
    format: s.format,
    events: s.events,
    timeUnit: s.time_unit,
    task: plainLabel(s.task, 300),
    ended: plainLabel(ended, 300),
    outcome: s.outcome ? plainLabel(`${s.outcome.status} (${s.outcome.source})`, 200) : 'not recorded',
  };
}

/**
 * The snapshot's trace with the long content it let go read back from disk (long-content.ts):
 * the comparison tells events apart by their content. The snapshot itself is left as it is.
 */
function withContent(s: TraceSnapshot): LoadedTrace {
  const aside = s.setAside;
  if (!aside || aside.size === 0) return s.loaded;
  const indices = [...aside.keys()];
  const texts = contentsOf(s, indices);
  const events = s.loaded.trace.events.slice();
  indices.forEach((i, k) => {
    events[i] = { ...events[i], content: texts[k] ?? '' };
  });
  return { ...s.loaded, trace: { ...s.loaded.trace, events } };
}
