/**
 * String keys -> integers for sets of keys that are usually small and sometimes huge (a trace's
 * agents: a few, or 1M when every event is its own agent). Up to {@link SMALL} keys a Map (a
 * string keeps its hash: the quickest lookup of a key seen again and again); past it an
 * {@link IdTable} that reads each key back from its value (no Map entry or key list per key:
 * about 3x faster to fill with 1M keys and off the heap). Pure: no imports but the table.
 */
import { IdTable } from './id-table';

/** Keys held in a Map up to this many. */
export const SMALL = 4_096;

export class KeyTable {
  private small: Map<string, number> | undefined = new Map();
  private table: IdTable | undefined;

  /** @param keyOf the key of a value given: every value set must be one whose `keyOf` is its key (read once past {@link SMALL} keys). */
  constructor(private readonly keyOf: (value: number) => string) {}

  /** Number of keys. */
  get size(): number {
    return this.small ? this.small.size : this.table!.size;
  }

  /** The value of `key`, or undefined. */
  get(key: string): number | undefined {
    return this.small ? this.small.get(key) : this.table!.get(key);
  }

  /** Sets the value of `key` (one whose `keyOf` is `key`). */
  set(key: string, value: number): void {
    if (!this.small) {
      this.table!.set(key, value);
      return;
    }
    this.small.set(key, value);
    if (this.small.size > SMALL) {
      const table = new IdTable(2 * this.small.size, this.keyOf);
      for (const [k, v] of this.small) table.set(k, v);
      this.table = table;
      this.small = undefined;
    }
  }
}
