/**
 * The time order of a trace's events (issue #14, #30): events by `t`, ties in file order, their
 * canonical types and times in one pass; a growing trace's order goes on from its carry's.
 * Pure: no `vscode`.
 */
import type { EventFields } from '../trace/event-fields';
import { canonicalType, EVENT_TYPES, type EventType, type TraceEvent } from '../trace/schema';
import type { Arena } from './arena';
import { grownTo } from './prefix-carry';

/** Every written type -> its canonical type, as the constant strings of the vocabulary. */
const CANONICAL_TYPES = new Map<string, EventType>(EVENT_TYPES.map((t) => [t, canonicalType(t)]));

/**
 * Events in time order (by `t`, ties in file order; a `t` that is not a finite number counts as 0),
 * their canonical types, whether that is the file order, and else each position's index in `raw`.
 * Most traces are written in time order: no sort then. The times are scratch in `arena`, given back here.
 */
export function timeOrder(raw: EventFields, arena: Arena, room: boolean): { events: EventFields; types: EventType[]; time: Float64Array; inFileOrder: boolean; order?: number[] } {
  const n = raw.length;
  // the index's column (before the scratch)
  const time = arena.float64(n);
  const scratch = arena.mark();
  try {
    const types = typesAndTimes(raw, time, room);
    // the file's own list, not a copy (8 MB at 1M events): the index never changes it
    if (isSorted(time)) return { events: raw, types, time, inFileOrder: true };
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => time[a] - time[b] || a - b);
    gatherInPlace(types, order, arena);
    const sorted = arena.float64(n);
    for (let k = 0; k < n; k++) sorted[k] = time[order[k]];
    time.set(sorted);
    return { events: raw.reordered(order), types, time, inFileOrder: false, order };
  } finally {
    arena.release(scratch);
  }
}

/**
 * The time order of a growing trace whose first `types.length` events were in file order (a
 * carry's): still the file order when the events after them are in time order and none is earlier
 * than the last of them; then their types are added to `types` (which the index takes as its own).
 * @returns undefined when the order is another (nothing added).
 */
export function appendedOrder(raw: EventFields, types: EventType[]): { events: EventFields; types: EventType[]; inFileOrder: true; order?: number[] } | undefined {
  const from = types.length;
  let last = from > 0 ? eventTime(raw.t(from - 1)) : -Infinity;
  for (let i = from; i < raw.length; i++) {
    const t = eventTime(raw.t(i));
    if (t < last) return undefined;
    last = t;
  }
  for (let i = from; i < raw.length; i++) types.push(canonicalTypeOf(raw.type(i)));
  return { events: raw, types, inFileOrder: true };
}

/** A carried time column (its first `from` positions) grown to `events`' length (with room: prefix-carry.ts `grownTo`), the new positions' times read. */
export function timesOn(carried: Float64Array, events: EventFields, from: number): Float64Array {
  const n = events.length;
  const time = grownTo(carried, n, from, (size) => new Float64Array(size));
  for (let i = from; i < n; i++) time[i] = eventTime(events.t(i));
  return time;
}

/** An event's time as the time order reads it from its `t`: seconds or the trace's unit, 0 when not a finite number. */
export function eventTime(t: number): number {
  return typeof t === 'number' && Number.isFinite(t) ? t : 0;
}

/** An event's canonical type, as the constant string of the vocabulary (later comparisons with it are pointer comparisons). */
function canonicalTypeOf(type: TraceEvent['type']): EventType {
  return CANONICAL_TYPES.get(type) ?? canonicalType(type);
}

/**
 * Each event's canonical type (the type strings of the vocabulary themselves: later comparisons
 * with them are pointer comparisons), in file order, and into `time` its `t` (0 when not a finite
 * number): one pass over the events (each read is a cache miss at a million events), and one list
 * made at its size. The list is made at its length and filled by index, not by `map`: a list from
 * `map` is of one kind (V8's hidden class) until V8 optimizes this function and of another after,
 * and then every optimized function that reads the list is thrown away and compiled again (a
 * wave of 40 deoptimizations some 800 traces into a corpus run, per thread: issue 30).
 * @param room a followed trace's (its carry keeps the list, and each append adds its events' types):
 *   made with room for a quarter more, so that the first appends do not copy it into a list half
 *   as long again (12 MB of new memory at 1M events, in the first append after the whole analysis).
 */
function typesAndTimes(raw: EventFields, time: Float64Array, room: boolean): EventType[] {
  const n = raw.length;
  const types = new Array<EventType>(room ? n + (n >> 2) + 4096 : n);
  for (let i = 0; i < n; i++) {
    time[i] = eventTime(raw.t(i));
    types[i] = canonicalTypeOf(raw.type(i));
  }
  // (a list made shorter keeps its memory while more than half of it is used)
  if (room) types.length = n;
  return types;
}

/** True when the times never decrease. */
function isSorted(time: Float64Array): boolean {
  for (let i = 1; i < time.length; i++) if (time[i] < time[i - 1]) return false;
  return true;
}

/** Rearranges `list` so that its k-th entry is the one that was at `from[k]` (a permutation), following its cycles: no second list. */
function gatherInPlace<T>(list: T[], from: ArrayLike<number>, arena: Arena): void {
  const done = arena.uint8(list.length);
  for (let start = 0; start < list.length; start++) {
    if (done[start] === 1) continue;
    const first = list[start];
    for (let k = start; ; ) {
      done[k] = 1;
      const source = from[k];
      if (source === start) {
        list[k] = first;
        break;
      }
      list[k] = list[source];
      k = source;
    }
  }
}
