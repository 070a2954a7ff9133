/**
 * Which lists a growing read handed out start with the same items (issue #30: an append at 1M
 * events). A followed file's reader hands out a new list of events, edges and origins per read
 * (src/trace/read.ts, TraceBuilder.finish with `keep`), each starting with the objects of the list
 * before it. The layout, the summary and the analysis that follow appends must know that the old
 * events are the same objects at the same places: compared one by one, that is a pass over a
 * million pointers (7-20 ms each, several per append). The reader notes it here as it copies, and
 * they ask in O(1).
 *
 * A note is a lower bound: `same` leading items of the list are those of the list before it (the
 * reader lowers it when it replaces an item in place). Lists no reader noted are compared item by
 * item, as before. Pure: no `vscode`.
 */

/** Per list handed out: the list handed out before it, and how many leading items of the two are the same. */
const notes = new WeakMap<object, { before: WeakRef<object>; same: number }>();
/** Per list handed out: the lowest index at which an item was replaced in place after it was handed out. */
const replaced = new WeakMap<object, number>();
/** The lists a {@link NotedCopies} handed out: a reader never changes them but through {@link replacedFrom}. */
const handedOut = new WeakSet<object>();

/**
 * True when `list` is a copy a reader handed out ({@link NotedCopies}): it changes only as
 * {@link replacedFrom} says, so a consumer may keep it to compare with the next read instead of a
 * copy of its own (whose note would say nothing).
 */
export function isNotedCopy(list: object): boolean {
  return handedOut.has(list);
}

/** How many notes back {@link notedSharedPrefix} follows (a consumer asks once per read, so its list is a few reads back at most). */
const MAX_STEPS = 16;

/**
 * Notes that the first `same` items of `list` are those of `before` (the same objects, or for a
 * column of numbers the same values, at the same places). Called by the reader that made `list`
 * from the store `before` was made from, with nothing of the first `same` changed in between.
 */
function noteSharedPrefix(list: object, before: object, same: number): void {
  notes.set(list, { before: new WeakRef(before), same: Math.max(0, same) });
}

/**
 * Says that items of `list` from index `from` on were replaced in place (e.g. an event copied
 * before named by its trace): what was noted of it, and what will be of a list made after it,
 * stops there.
 */
export function replacedFrom(list: object, from: number): void {
  const note = notes.get(list);
  if (note && from < note.same) note.same = Math.max(0, from);
  replaced.set(list, Math.min(replaced.get(list) ?? Infinity, from));
}

/**
 * The copies a store that grows at its end hands out (a reader's events, edges or origins), each
 * noted against the copy handed out before it ({@link noteSharedPrefix}).
 */
export class NotedCopies {
  private last?: WeakRef<object>;
  private lastLength = 0;
  private changedFrom = Infinity;

  /** Says that the store's items from index `from` on were replaced in place (since the last copy). */
  changed(from: number): void {
    this.changedFrom = Math.min(this.changedFrom, from);
  }

  /** Notes `copy`, made now from the store with its first `length` items, against the copy made before it. */
  made(copy: object, length: number): void {
    const before = this.last?.deref();
    // the same list handed out again (shared, nothing added since: src/trace/read.ts): its note stands
    if (before === copy) return;
    if (before) noteSharedPrefix(copy, before, Math.min(this.lastLength, this.changedFrom, replaced.get(before) ?? Infinity));
    handedOut.add(copy);
    this.last = new WeakRef(copy);
    this.lastLength = length;
    this.changedFrom = Infinity;
  }
}

/**
 * A lower bound, in [0, n], of how many leading items `list` and `before` share, from the reader's
 * notes (`list` made from `before`, or from a list made from it: up to 16 reads back); 0 when
 * nothing says so. O(reads between them); compares nothing.
 */
export function notedSharedPrefix(list: object, before: object, n: number): number {
  if (list === before) return n;
  let at: object = list;
  let same = n;
  for (let step = 0; step < MAX_STEPS; step++) {
    const note = notes.get(at);
    const earlier = note?.before.deref();
    if (!note || !earlier) return 0;
    // (an item of the earlier list replaced after the note was made ends it too)
    same = Math.min(same, note.same, replaced.get(earlier) ?? Infinity);
    if (earlier === before) return same;
    at = earlier;
  }
  return 0;
}

/**
 * True when the first `n` items of `list` are those of `before` (the same objects at the same
 * places; false when either is shorter). O(1) for what a reader noted ({@link notedSharedPrefix}),
 * the rest compared item by item.
 */
export function samePrefix<T>(list: ArrayLike<T>, before: ArrayLike<T>, n: number): boolean {
  if (list.length < n || before.length < n) return false;
  for (let i = notedSharedPrefix(list, before, n); i < n; i++) if (list[i] !== before[i]) return false;
  return true;
}
