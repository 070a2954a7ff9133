/**
 * Folding sub-agent lanes into the lane of the agent that spawned them: which lanes get a row,
 * which spawners fold so that every row stays readable, how many lanes a fold hides. Pure: lanes
 * are the overview's, in spawn-tree order (a sub-agent's lane follows its spawner's).
 */
import type { GraphLane } from '../src/shared/protocol';

/** The row of each lane (undefined when folded away under a collapsed spawner), rows counted from 0. */
export function laneRows(lanes: readonly GraphLane[], collapsed: ReadonlySet<string>): (number | undefined)[] {
  const hidden = new Set<string>();
  for (const l of lanes) if (l.parent && (collapsed.has(l.parent) || hidden.has(l.parent))) hidden.add(l.name);
  let row = 0;
  return lanes.map((l) => (hidden.has(l.name) ? undefined : row++));
}

/** How many lanes have a row. */
export function rowCount(rows: readonly (number | undefined)[]): number {
  return rows.filter((r) => r !== undefined).length;
}

/** The rows inside the lanes left on rows (each lane's `rows`, at least 1): the height they need in rows. */
export function innerRowCount(lanes: readonly GraphLane[], rows: readonly (number | undefined)[]): number {
  let n = 0;
  rows.forEach((r, lane) => {
    if (r !== undefined) n += Math.max(1, lanes[lane]?.rows ?? 1);
  });
  return n;
}

/**
 * Folds spawners into `collapsed` until `fits(rows)` holds for the rows the lanes left on rows
 * need (their rows inside, see {@link innerRowCount}): one level at a time, deepest spawners first
 * (all workers fold into theirs before the orchestrator does). Returns the rows after folding.
 */
export function foldToFit(lanes: readonly GraphLane[], collapsed: Set<string>, fits: (rows: number) => boolean): (number | undefined)[] {
  let rows = laneRows(lanes, collapsed);
  const parents = new Set(lanes.map((l) => l.parent).filter((p): p is string => !!p));
  const depth = new Map(lanes.map((l) => [l.name, l.depth]));
  const levels = [...new Set([...parents].map((p) => depth.get(p) ?? 0))].sort((a, b) => b - a);
  for (const level of levels) {
    if (fits(innerRowCount(lanes, rows))) break;
    for (const p of parents) if ((depth.get(p) ?? 0) === level) collapsed.add(p);
    rows = laneRows(lanes, collapsed);
  }
  return rows;
}

/** Lanes under a lane (its sub-agents, theirs, ...): those its fold hides. */
export function lanesUnder(lanes: readonly GraphLane[], name: string): number {
  let n = 0;
  const under = new Set([name]);
  for (const l of lanes)
    if (l.parent && under.has(l.parent)) {
      under.add(l.name);
      n++;
    }
  return n;
}
