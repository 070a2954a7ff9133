/**
 * The rows of old events that an append's new edges end at (index-links.ts `appended`): mended
 * into what a whole build makes of them, the other rows copied as they were. An agent that writes an
 * edge after both its events (a tool call's `{"edge": ...}` line after the result's) can end an
 * append with the result and begin the next with its edge: each such append made the links of a
 * 1M-event trace whole (350 ms), and the analyses that read them, again.
 *
 * A whole build makes each row pass by pass (trace-index.ts's module comment), so a row is its edges
 * in file order, then the links of the later passes; a link u -> v that is there already is not
 * added again. The new edge is read after every edge already in the row (its line comes later):
 * - it goes after the row's edges;
 * - a link from the same event made by a later pass (a lane's succession, a reference, a guessed
 *   tool pair) is that edge now: in a whole build the edge pass comes first and the later pass finds
 *   the link there (its kind and edge type change; its number stays);
 * - an edge from the same event already in the row adds nothing;
 * - an implicit link goes: a whole build adds one only to a row whose links are all a lane's.
 * Tool pairs do not change (index-links.ts keeps an edge that would pair a result otherwise from
 * reaching here), nor receivers or parents (an edge sets neither).
 */
import { LINK_CODE } from './link-table';

/** A new edge whose target was read before the append: positions u -> v, its edge type's code. */
export interface ReachingEdge {
  u: number;
  v: number;
  edgeType: number;
}

/** The link columns of an append's index as they are joined (the old links, the new ones after). */
export interface JoinedColumns {
  linkU: Int32Array;
  linkKind: Uint8Array;
  linkEdgeType: Uint8Array;
  inStart: Int32Array;
  inLinks: Int32Array;
}

/**
 * Writes the incoming rows of old positions [first, m) into `out` from slot `at` (`out.inStart`
 * of each), each row that `reaching` edges end at mended (see the module's comment), the others
 * copied from `old`. New edge links take the numbers from `next` on.
 * @param reaching the edges in the order read (the order of their lines).
 * @returns the slot after the last row, the next free link number, and the old link numbers no
 *   row holds any more (implicit links gone: {@link closeHoles} fills them).
 */
export function mendRows(
  old: { inStart: Int32Array; inLinks: Int32Array },
  out: JoinedColumns,
  reaching: readonly ReachingEdge[],
  first: number,
  m: number,
  at: number,
  next: number,
): { at: number; next: number; holes: number[] } {
  const byTarget = new Map<number, ReachingEdge[]>();
  for (const r of reaching) {
    const list = byTarget.get(r.v);
    if (list) list.push(r);
    else byTarget.set(r.v, [r]);
  }
  const { linkU, linkKind, linkEdgeType, inStart, inLinks } = out;
  const holes: number[] = [];
  for (let v = first; v < m; v++) {
    inStart[v] = at;
    const edges = byTarget.get(v);
    if (!edges) {
      for (let q = old.inStart[v]; q < old.inStart[v + 1]; q++) inLinks[at++] = old.inLinks[q];
      continue;
    }
    const stated: number[] = [];
    const later: number[] = [];
    for (let q = old.inStart[v]; q < old.inStart[v + 1]; q++) {
      const k = old.inLinks[q];
      (linkKind[k] === LINK_CODE.edge ? stated : later).push(k);
    }
    for (const { u, edgeType } of edges) {
      if (stated.some((k) => linkU[k] === u)) continue;
      const same = later.findIndex((k) => linkU[k] === u);
      const k = same !== -1 ? later.splice(same, 1)[0] : next++;
      linkU[k] = u;
      linkKind[k] = LINK_CODE.edge;
      linkEdgeType[k] = edgeType;
      stated.push(k);
    }
    const implicit = later.findIndex((k) => linkKind[k] === LINK_CODE.implicit);
    if (implicit !== -1) holes.push(later.splice(implicit, 1)[0]);
    for (const k of stated) inLinks[at++] = k;
    for (const k of later) inLinks[at++] = k;
  }
  inStart[m] = at;
  return { at, next, holes };
}

/**
 * Numbers the links 0 .. total - holes - 1 again: each hole (a link number no row holds) takes the
 * last link's columns and row slot. @param total links numbered now (holes included); @param slots
 * the row slots filled (total - holes). @returns the number of links.
 */
export function closeHoles(out: JoinedColumns, holes: number[], total: number, slots: number): number {
  const { linkU, linkKind, linkEdgeType, inLinks } = out;
  // from the highest: the last link is never a hole still to close
  for (const h of [...holes].sort((a, b) => b - a)) {
    const last = total - 1;
    total--;
    if (h === last) continue;
    linkU[h] = linkU[last];
    linkKind[h] = linkKind[last];
    linkEdgeType[h] = linkEdgeType[last];
    inLinks[inLinks.lastIndexOf(last, slots - 1)] = h;
  }
  return total;
}
