/**
 * Each event's canonical type as a small number (issue #30): the events' types read and mapped
 * through their aliases once per events array, so what tests an event's kind again and again
 * while laying out a large trace (the summary's stops, the spawn tree, the pairing of tool calls,
 * the lane rows, the derived links, the graph index) compares bytes instead of looking a string up
 * in the alias table each time: at 1M events those lookups were about 1 s of the first paint.
 * Pure: no `vscode`.
 */
import { canonicalType, EVENT_TYPES, type EventType, type TraceEvent } from '../trace/schema';
import { notedSharedPrefix } from '../trace/shared-prefix';
import { appendColumn, copyColumn } from '../shared/append-column';

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
 * The events array whose column was made last, held weakly (a closed trace's events are not kept
 * alive by it): a followed file's next read hands out a new array that starts with the same event
 * objects (src/trace/read.ts copies its store per read), whose column starts as this one.
 */
let latest: { events: WeakRef<readonly TraceEvent[]>; n: number; column: KindColumn } | undefined;

/**
 * The {@link KindColumn} of `events`, made once per array (kept while the array lives; made again
 * when its length changed). O(n) for n events, one byte per event; for the array of a grown trace
 * (its first events the same objects as those of the array made last), a pointer comparison per
 * old event and a lookup per new or replaced one.
 */
export function kindColumn(events: readonly TraceEvent[]): KindColumn {
  const known = columns.get(events);
  if (known && known.n === events.length) return known.column;
  const n = events.length;
  const before = latest?.events.deref();
  const prefix = before && before !== events && latest!.n === before.length && before.length <= n ? latest! : undefined;
  // an event replaced since (a reader completes an event from a later line with a new object) is read again
  // (what the reader noted the same is not compared: src/trace/shared-prefix.ts)
  const replaced: number[] = [];
  if (prefix) for (let i = notedSharedPrefix(events, before!, prefix.n); i < prefix.n; i++) if (events[i] !== before![i]) replaced.push(i);
  // the old events' codes as they were: a longer view of their memory while none was replaced (src/shared/append-column.ts)
  const column = !prefix ? new Uint8Array(n) : replaced.length > 0 ? copyColumn(prefix.column, n) : appendColumn(prefix.column, n);
  for (const i of replaced) column[i] = codeOf(events[i].type);
  const from = prefix ? prefix.n : 0;
  // most neighbours share their type's string: one comparison instead of a lookup then
  let last: string | undefined;
  let lastCode = OTHER_KIND;
  for (let i = from; i < n; i++) {
    const type = events[i].type;
    if (type !== last) {
      last = type;
      lastCode = codeOf(type);
    }
    column[i] = lastCode;
  }
  columns.set(events, { n, column });
  latest = { events: new WeakRef(events), n, column };
  return column;
}

/** The code of an event's `type` as read (an alias has its canonical type's code). */
function codeOf(type: string): number {
  return CODES.get(type) ?? OTHER_KIND;
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
