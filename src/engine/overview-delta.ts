/**
 * The delta from one overview of a growing trace to the next (issue #30): what the webview, which
 * holds the first, needs to make the second (src/shared/overview-delta.ts applies it). Made from
 * the two overviews, so it is right whatever made them; worth it only when the second's layout
 * was extended from the first's (src/engine/structure-growth.ts): the old events then keep their
 * time ranks and nearly all their values. Pure: no `vscode`.
 */
import type { GraphOverview } from '../shared/protocol';
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
  // the same list (made once per analysis: graph-model.ts `findingsForGraph`) is not sent again
  const findingsKept = next.findings === held.findings && next.findings.length > 0;
  const { findings: _findings, ...withoutFindings } = rest;
  return {
    base: held.stamp,
    from,
    json: new TextEncoder().encode(JSON.stringify(findingsKept ? withoutFindings : rest)),
    ...(findingsKept ? { findingsKept: true as const } : {}),
    appended: packAppended(b, from),
    changed: Int32Array.from(changed),
    ...(moved ? { tx: b.tx.slice() } : {}),
  };
}
