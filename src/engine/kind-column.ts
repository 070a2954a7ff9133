/**
 * Each event's canonical type as a small number (issue #30): the events' types read and mapped
 * through their aliases once per events array, so what tests an event's kind again and again
 * while laying out a large trace (the summary's stops, the spawn tree, the pairing of tool calls,
 * the lane rows, the derived links, the graph index) compares bytes instead of looking a string up
 * in the alias table each time: at 1M events those lookups were about 1 s of the first paint.
 * Pure: no `vscode`.
 */
import { canonicalType, EVENT_TYPES, type EventType, type TraceEvent } from '../trace/schema';

/** The code of an event whose type is none of {@link EVENT_TYPES} (a type the reader let through as it is). */
export const OTHER_KIND = 255;

/** Canonical type -> its code (its index in {@link EVENT_TYPES}); an alias has its canonical type's code. */
const CODES = new Map<string, number>(EVENT_TYPES.map((t) => [t, EVENT_TYPES.indexOf(canonicalType(t))]));

/** The code of a canonical event type (its index in {@link EVENT_TYPES}). */
export function kindCode(type: EventType): number {
  return CODES.get(canonicalType(type)) ?? OTHER_KIND;
}

/** Per event (file order): the code of its canonical type ({@link kindCode}), {@link OTHER_KIND} for a type not in the vocabulary. */
export type KindColumn = Uint8Array;

/** The column of each events array, with the length it was made for (an array that grew is read again). */
const columns = new WeakMap<readonly TraceEvent[], { n: number; column: KindColumn }>();

/**
 * The {@link KindColumn} of `events`, made once per array (kept while the array lives; made again
 * when its length changed). O(n) for n events, one byte per event.
 */
export function kindColumn(events: readonly TraceEvent[]): KindColumn {
  const known = columns.get(events);
  if (known && known.n === events.length) return known.column;
  const n = events.length;
  const column = new Uint8Array(n);
  // most neighbours share their type's string: one comparison instead of a lookup then
  let last: string | undefined;
  let lastCode = OTHER_KIND;
  for (let i = 0; i < n; i++) {
    const type = events[i].type;
    if (type !== last) {
      last = type;
      lastCode = CODES.get(type) ?? OTHER_KIND;
    }
    column[i] = lastCode;
  }
  columns.set(events, { n, column });
  return column;
}

/** The codes of the kinds the layout tests most. */
export const KIND = {
  spawn: kindCode('spawn'),
  delegate: kindCode('delegate'),
  message: kindCode('message'),
  return: kindCode('return'),
  tool_call: kindCode('tool_call'),
  tool_result: kindCode('tool_result'),
  stop: kindCode('stop'),
  human_intervention: kindCode('human_intervention'),
} as const;
