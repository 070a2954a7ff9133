/**
 * What changed in the graph's overview after an append (issue #30): instead of the whole overview
 * (15 MB of columns at 1M events) the engine sends the overview the webview holds plus a delta,
 * and the webview applies it to what it holds. Pure: the engine makes deltas
 * (src/engine/overview-delta.ts), the webview applies them with {@link applyOverviewDelta}.
 *
 * A delta names the overview it applies to (`base`, its stamp) and how many events that one has
 * (`from`). It carries the rest of the overview whole as JSON (lanes, axis, findings, legend,
 * counts: small, since an extended layout has at most 1,000 lanes), the appended events' columns
 * packed as {@link packColumns} packs them (byTime: the time ranks `from` .. n - 1, which an append
 * that reaches nothing back gives to new events only), the old events' column values that changed
 * (a call whose result came is now a bar: its `end`; a row), and every event's axis position when
 * old ones moved (rarely: the axis keeps its old positions until its span or median gap doubles,
 * src/shared/axis.ts).
 */
import type { GraphColumns, GraphFinding, GraphOverview } from './protocol';
import { packColumns, unpackColumns } from './overview-columns';
import { appendColumn } from './append-column';

/** Column codes of {@link OverviewDelta.changed}. */
export const CHANGED_COLUMNS = ['lane', 'kind', 'end', 'row'] as const;

/** What changed in the overview from the one with stamp `base` and `from` events. */
export interface OverviewDelta {
  /** The stamp of the overview the delta applies to. */
  base: number;
  /** The number of events of that overview; the new one has `from` + the appended ones. */
  from: number;
  /** UTF-8 JSON of the new overview without its columns (findings whole, unless {@link findingsKept}). */
  json: Uint8Array;
  /**
   * True when the new overview lists the same findings as the held one (a trace as read after an
   * append shows the last analysis's): `json` leaves them out (300 findings over 1M events are a
   * megabyte of JSON) and the held ones are kept.
   */
  findingsKept?: true;
  /**
   * When the findings changed, for each of the new overview's findings in order: the index of the
   * held finding it equals (kept, not sent again), or -1 for the next of those `json` lists. A
   * followed trace's analysis after an append changes a few of its findings (a loop that grew, a
   * new one); 300 findings over 1M events sent whole were a megabyte of JSON per append.
   */
  findingsFrom?: Int32Array;
  /** The appended events' columns (packColumns; byTime: the ranks from `from` on, event indices). */
  appended: Uint8Array;
  /** Old events' values that changed: triples (column code in {@link CHANGED_COLUMNS}, event index, value). */
  changed: Int32Array;
  /** Every event's axis position, when an old one moved; else only the appended ones' (in `appended`). */
  tx?: Float64Array;
}

/** The largest value a lane column of this type holds. */
function laneMax(col: GraphColumns['lane']): number {
  return col instanceof Uint8Array ? 0xff : col instanceof Uint16Array ? 0xffff : 0x7fffffff;
}

/**
 * Applies `delta` to `held` (the overview with stamp `delta.base`) and returns the new overview.
 * The columns are grown in place when they have room, else into arrays a quarter larger
 * (src/shared/append-column.ts: n appends cost O(appended) each, amortized), and changed values are
 * written into them: `held`'s columns may be written, so `held` must not be used afterwards. Throws when `held` is not the overview the delta applies to.
 * @returns the overview equal to the engine's whole overview of the new snapshot.
 */
export function applyOverviewDelta(held: GraphOverview, delta: OverviewDelta): GraphOverview {
  if (held.stamp !== delta.base) throw new Error(`overview delta: for the overview ${delta.base}, applied to ${held.stamp}`);
  const from = delta.from;
  const c = held.columns;
  if (c.tx.length !== from) throw new Error(`overview delta: from ${from} events, the overview holds ${c.tx.length}`);
  const rest = JSON.parse(new TextDecoder().decode(delta.json)) as Omit<GraphOverview, 'columns'>;
  const add = unpackColumns(delta.appended).columns;
  const n = from + add.tx.length;
  // the lane column widened when an appended or changed lane does not fit it
  let widest = 0;
  for (let i = 0; i < add.lane.length; i++) widest = Math.max(widest, add.lane[i]);
  for (let k = 0; k < delta.changed.length; k += 3) if (delta.changed[k] === 0) widest = Math.max(widest, delta.changed[k + 2]);
  const laneOld = widest > laneMax(c.lane) ? Int32Array.from(c.lane) : c.lane;
  const columns: GraphColumns = {
    byTime: appendColumn(c.byTime, n),
    tx: delta.tx ? delta.tx : appendColumn(c.tx, n),
    lane: appendColumn(laneOld, n),
    kind: appendColumn(c.kind, n),
    end: appendColumn(c.end, n),
    row: appendColumn(c.row, n),
  };
  if (columns.tx.length !== n) throw new Error(`overview delta: ${columns.tx.length} axis positions for ${n} events`);
  columns.byTime.set(add.byTime, from);
  if (!delta.tx) columns.tx.set(add.tx, from);
  columns.lane.set(add.lane, from);
  columns.kind.set(add.kind, from);
  columns.end.set(add.end, from);
  columns.row.set(add.row, from);
  const d = delta.changed;
  for (let k = 0; k < d.length; k += 3) columns[CHANGED_COLUMNS[d[k]]][d[k + 1]] = d[k + 2];
  return { ...rest, ...(delta.findingsKept ? { findings: held.findings } : delta.findingsFrom ? { findings: findingsFrom(held.findings, rest.findings, delta.findingsFrom) } : {}), columns };
}

/** The findings listed by {@link OverviewDelta.findingsFrom}: the held ones it names, the others from `sent` in order. Throws when it names a finding neither list holds. */
function findingsFrom(held: readonly GraphFinding[], sent: readonly GraphFinding[], from: Int32Array): GraphFinding[] {
  let next = 0;
  return Array.from(from, (k) => {
    const finding = k >= 0 ? held[k] : sent[next++];
    if (!finding) throw new Error(`overview delta: no finding ${k >= 0 ? `${k} held` : `${next - 1} sent`}`);
    return finding;
  });
}

/** The appended events' columns packed (see {@link OverviewDelta.appended}): values `from` .. n - 1 of each. */
export function packAppended(c: GraphColumns, from: number): Uint8Array {
  return packColumns({
    byTime: c.byTime.subarray(from),
    tx: c.tx.subarray(from),
    lane: c.lane.subarray(from),
    kind: c.kind.subarray(from),
    end: c.end.subarray(from),
    row: c.row.subarray(from),
  });
}
