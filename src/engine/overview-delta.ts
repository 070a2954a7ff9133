/**
 * The delta from one overview of a growing trace to the next (issue #30): what the webview, which
 * holds the first, needs to make the second (src/shared/overview-delta.ts applies it). Made from
 * the two overviews, so it is right whatever made them; worth it only when the second's layout
 * was extended from the first's (src/engine/structure-growth.ts): the old events then keep their
 * time ranks and nearly all their values. Pure: no `vscode`.
 */
import type { GraphFinding, GraphOverview } from '../shared/protocol';
import { CHANGED_COLUMNS, packAppended, type OverviewDelta } from '../shared/overview-delta';
import { differingChunks, sameUpTo } from './typed-diff';

/** Beyond this share of old values changed, a delta is not worth it (the whole overview is sent). */
const MOST_CHANGED = 1 / 8;

/**
 * The delta that makes `next` from `held` ({@link OverviewDelta}); undefined when `next` is not
 * `held` with events appended: fewer events, the old events' time order changed (an append that
 * reaches back), or more than an eighth of the old values changed. O(n) for n events, as byte
 * comparisons of the typed arrays (memcmp), values compared one by one only where bytes differ; the delta's size is O(appended + changed), plus 8 bytes per event when old
 * axis positions moved (when the axis's threshold changed: src/shared/axis.ts).
 */
export function overviewDelta(held: GraphOverview, next: GraphOverview): OverviewDelta | undefined {
  const a = held.columns;
  const b = next.columns;
  const from = a.tx.length;
  const n = b.tx.length;
  if (n < from) return undefined;
  if (!sameUpTo(a.byTime, b.byTime, from)) return undefined;
  const changed: number[] = [];
  const most = Math.max(64, from * MOST_CHANGED) * 3;
  for (let code = 0; code < CHANGED_COLUMNS.length; code++) {
    const x = a[CHANGED_COLUMNS[code]];
    const y = b[CHANGED_COLUMNS[code]];
    for (const [start, end] of differingChunks(x, y, from)) {
      for (let i = start; i < end; i++) {
        if (x[i] === y[i]) continue;
        changed.push(code, i, y[i]);
        if (changed.length > most) return undefined;
      }
    }
  }
  let moved = false;
  for (const [start, end] of differingChunks(a.tx, b.tx, from)) {
    for (let i = start; i < end && !moved; i++) moved = a.tx[i] !== b.tx[i] && !(Number.isNaN(a.tx[i]) && Number.isNaN(b.tx[i]));
    if (moved) break;
  }
  const { columns: _columns, ...rest } = next;
  // the same list (made once per analysis: graph-model.ts `findingsForGraph`) is not sent again; of another, the findings held are not
  const findingsKept = next.findings === held.findings && next.findings.length > 0;
  const kept = findingsKept ? undefined : keptFindings(held.findings, next.findings);
  const { findings: _findings, ...withoutFindings } = rest;
  const json = findingsKept ? withoutFindings : kept ? { ...withoutFindings, findings: next.findings.filter((_, k) => kept[k] < 0) } : rest;
  return {
    base: held.stamp,
    from,
    json: new TextEncoder().encode(JSON.stringify(json)),
    ...(findingsKept ? { findingsKept: true as const } : {}),
    ...(kept ? { findingsFrom: kept } : {}),
    appended: packAppended(b, from),
    changed: Int32Array.from(changed),
    ...(moved ? { tx: b.tx.slice() } : {}),
  };
}

/**
 * Per finding of `next`, the index of a finding of `held` equal to it in every field (each held one
 * taken once), or -1; undefined when none is (nothing to keep). O(findings + the events of those
 * whose kind and message match).
 */
function keptFindings(held: readonly GraphFinding[], next: readonly GraphFinding[]): Int32Array | undefined {
  const byText = new Map<string, number[]>();
  held.forEach((f, k) => {
    const key = `${f.kind}\u0000${f.message}`;
    const list = byText.get(key);
    if (list) list.push(k);
    else byText.set(key, [k]);
  });
  const taken = new Uint8Array(held.length);
  const out = new Int32Array(next.length).fill(-1);
  let any = false;
  next.forEach((f, k) => {
    const match = byText.get(`${f.kind}\u0000${f.message}`)?.find((h) => !taken[h] && sameFinding(held[h], f));
    if (match === undefined) return;
    taken[match] = 1;
    out[k] = match;
    any = true;
  });
  return any ? out : undefined;
}

/** True when two findings hold the same values in every field (their events element by element; any other object field as JSON). */
function sameFinding(a: GraphFinding, b: GraphFinding): boolean {
  const keys = Object.keys(a) as (keyof GraphFinding)[];
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    const x = a[key];
    const y = b[key];
    if (x === y) continue;
    if (key === 'events') {
      if (a.events.length !== b.events.length) return false;
      for (let i = 0; i < a.events.length; i++) if (a.events[i] !== b.events[i]) return false;
    } else if (typeof x !== 'object' || typeof y !== 'object' || JSON.stringify(x) !== JSON.stringify(y)) return false;
  }
  return true;
}
