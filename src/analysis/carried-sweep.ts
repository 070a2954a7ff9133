/**
 * Passes that read the events from the first in time order and whose state after a position depends
 * only on the events up to it (and on what a key names: which lanes are tool lanes), as sweeps:
 * made once per analysis and shared by the passes that ask them; for a followed trace kept on its
 * carry (prefix-carry.ts `sweeps`), so that an append reads only the positions after those swept.
 * Each was a pass over every event at every append of a followed trace (5-20 ms each at 1M events).
 *
 * A sweep goes on from its state: the same state, position by position, as a sweep made from the
 * first event (its owner's docstring says why), so what it gives is what a whole analysis gives.
 */
import type { TraceIndex } from './trace-index';

/** The state of a sweep: how many first positions it read, and what its state depends on besides them. */
export interface Sweep {
  /** Positions read: [0, swept). */
  swept: number;
  /** What the state depends on besides the events (e.g. the tool lanes, as `toolLanesKey` joins them); '' for nothing. */
  readonly key: string;
  /** False once the state read something a later event may change (a cause no earlier event carries): then it is not kept. */
  carryable: boolean;
}

/** The sweeps of each index's analysis, by name (an index serves one analysis). */
const sweepsOf = new WeakMap<TraceIndex, Map<string, Sweep>>();

/**
 * The sweep `name` of `index`'s analysis: the one made for it already, else the one its carry kept
 * when it was made with the same `key`, read no further than `upTo` positions and can go on; else a
 * new one (`make`). The sweep is the carry's from then on (an analysis that does not finish leaves
 * no carry: follow.ts drops it).
 * @param upTo the positions the caller reads the sweep at first (a state past them is of no use to it).
 */
export function carriedSweep<S extends Sweep>(index: TraceIndex, name: string, key: string, make: () => S, upTo = index.size): S {
  let sweeps = sweepsOf.get(index);
  if (!sweeps) sweepsOf.set(index, (sweeps = new Map()));
  const made = sweeps.get(name) as S | undefined;
  if (made) return made;
  const carry = index.carry;
  const kept = carry?.sweeps.get(name) as S | undefined;
  const sweep = kept && kept.carryable && kept.key === key && kept.swept <= carry!.count && kept.swept <= upTo ? kept : make();
  sweeps.set(name, sweep);
  carry?.sweeps.set(name, sweep);
  return sweep;
}

/** A sweep of a list with an item per position where something holds. */
interface ListSweep<T> extends Sweep {
  items: T[];
}

/**
 * The items (in position order) that `itemAt` gives for the positions where it gives one, as a sweep
 * ({@link carriedSweep}): read from the last position swept to the index's end. `itemAt` answers for
 * one position from its event and what `key` names (undefined: none there); it marks the sweep not
 * `carryable` when its answer read something a later event may change. The list is the sweep's: it
 * grows with the next append (a caller that keeps it past its analysis copies it).
 */
export function carriedList<T>(index: TraceIndex, name: string, key: string, itemAt: (index: TraceIndex, i: number, sweep: Sweep) => T | undefined): readonly T[] {
  const sweep = carriedSweep<ListSweep<T>>(index, name, key, () => ({ swept: 0, key, carryable: true, items: [] }));
  for (let i = sweep.swept, n = index.size; i < n; i++) {
    const item = itemAt(index, i, sweep);
    if (item !== undefined) sweep.items.push(item);
  }
  sweep.swept = Math.max(sweep.swept, index.size);
  return sweep.items;
}

/**
 * The positions (ascending) where `holds` says yes, as a sweep ({@link carriedList}): read from the
 * last position swept to the index's end. `holds` answers for one position from its event and what
 * `key` names; it marks the sweep not `carryable` when its answer read something a later event may
 * change.
 */
export function carriedPositions(index: TraceIndex, name: string, key: string, holds: (index: TraceIndex, i: number, sweep: Sweep) => boolean): readonly number[] {
  return carriedList(index, name, key, (at, i, sweep) => (holds(at, i, sweep) ? i : undefined));
}
