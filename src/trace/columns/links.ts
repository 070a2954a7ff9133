/**
 * Finding the event an id names, in file order, for a trace kept in columns: the event carrying it
 * in its trace, or when several do, the nearest one before the event naming it (else the first):
 * the rule of the analysis's index (`TraceIndex.resolve`, src/analysis/trace-index.ts).
 */
import { IdTable } from '../id-table';

/** The key of an id in trace `trace` (undefined: the event names none): the cross-record checks' own, whose table the columns share. */
export { scopedId } from '../check';

/**
 * Ids of the events added so far, in file order, -> where they are: the first event carrying each,
 * and for an id carried by several, all of them.
 */
export class IdPlaces {
  /** Scoped id -> index of the first event carrying it (the ids are read from the events, see the constructor). */
  readonly table: IdTable;
  /** Scoped id -> the indices of the later events carrying it, for ids carried more than once. */
  private readonly repeats = new Map<string, number[]>();

  /** @param keyOf the scoped id of event `i` (the table keeps no list of ids). */
  constructor(keyOf: (i: number) => string) {
    this.table = new IdTable(0, keyOf);
  }

  /** Makes room for `events` ids in all (an estimate). */
  reserve(events: number): void {
    this.table.reserve(events);
  }

  /** Adds event `i` (after every event before it) carrying scoped id `key`; @returns false when an earlier event carries it. */
  add(key: string, i: number): boolean {
    if (this.table.add(key, i)) return true;
    const list = this.repeats.get(key);
    if (list) list.push(i);
    else this.repeats.set(key, [i]);
    return false;
  }

  /** The latest event added so far carrying `key` (the nearest before an event being added), or -1. */
  latest(key: string): number {
    if (this.repeats.size !== 0) {
      const list = this.repeats.get(key);
      if (list) return list[list.length - 1];
    }
    return this.table.get(key) ?? -1;
  }

  /** True once some id was added twice. */
  get repeated(): boolean {
    return this.repeats.size !== 0;
  }

  /** The first event carrying `key`, or -1. */
  firstOf(key: string): number {
    return this.table.get(key) ?? -1;
  }
}
