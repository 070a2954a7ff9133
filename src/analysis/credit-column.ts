/**
 * Each event's credit value (file order) as a column that the analyses of a followed trace share
 * chunk by chunk (issue #30: after an append to a 1M-event trace, decorations current within 100
 * ms). An append changes the values of its new events and of a few hundred old ones, nearly all in
 * the last chunk and the first (the outcome's seed moves to the new final answer; the task's first
 * events lead to it); a list of every value copied per analysis was 8 MB of new memory per append
 * at 1M events, whose first touch cost 25-35 ms of page faults on a 2-core microVM (more than the
 * rest of the append's credit). Here a new analysis's column shares the chunks it leaves alone and
 * copies only those it writes (32 KB each: memory the allocator reuses).
 *
 * A column once handed out never changes: {@link CreditColumn.grown} makes a new one to write,
 * sealed by {@link CreditColumn.seal}. Pure: no `vscode`.
 */

/** log2 of the values per chunk. */
const CHUNK_BITS = 12;
/** Values per chunk (4,096: 32 KB of doubles). */
const CHUNK = 1 << CHUNK_BITS;
const LOW = CHUNK - 1;

/** Per-event credit values (see the module's comment): read with {@link at}, listed with {@link toArray}. */
export class CreditColumn {
  /** Per chunk, whether this column made it (written here, shared with no other column). */
  private owned: Uint8Array | undefined;
  private sealed: boolean;

  private constructor(
    /** The values as one list (a column made whole from a list, never written). */
    private readonly flat: readonly number[] | undefined,
    /** The values in chunks of {@link CHUNK} (a column grown from another). */
    private readonly chunks: Float64Array[],
    /** How many values it holds (events, file order). */
    readonly length: number,
  ) {
    this.sealed = flat !== undefined;
  }

  /** A sealed column of `values` (kept as they are, not copied: the caller never changes them). */
  static of(values: readonly number[]): CreditColumn {
    return new CreditColumn(values, [], values.length);
  }

  /** The value of event `i` (file order), undefined outside [0, length). */
  at(i: number): number | undefined {
    if (!(i >= 0 && i < this.length)) return undefined;
    return this.flat ? this.flat[i] : this.chunks[i >> CHUNK_BITS][i & LOW];
  }

  /**
   * A new column of `n` values (n ≥ length), open for {@link set}: its first `length` values are
   * this one's (shared, copied only where written), the others 0. This column is not changed.
   * O(n / 4,096) when this column is chunked; the first one grown from a list copies it into chunks.
   * @throws RangeError when n < length.
   */
  grown(n: number): CreditColumn {
    if (n < this.length) throw new RangeError(`a credit column of ${this.length} values cannot grow to ${n}`);
    const count = (n + LOW) >> CHUNK_BITS;
    const chunks = new Array<Float64Array>(count);
    const out = new CreditColumn(undefined, chunks, n);
    out.owned = new Uint8Array(count);
    if (this.flat) {
      for (let c = 0; c < count; c++) {
        const chunk = new Float64Array(CHUNK);
        const from = c << CHUNK_BITS;
        for (let i = from, to = Math.min(this.length, from + CHUNK); i < to; i++) chunk[i - from] = this.flat[i];
        chunks[c] = chunk;
        out.owned[c] = 1;
      }
      return out;
    }
    const shared = this.chunks.length;
    for (let c = 0; c < count; c++) chunks[c] = c < shared ? this.chunks[c] : ((out.owned[c] = 1), new Float64Array(CHUNK));
    // the values past this column's length in its last chunk are 0 (never written: a column is written only below its length)
    return out;
  }

  /** Writes event `i`'s value into a column made by {@link grown} and not sealed yet (its chunk copied first when shared). @throws Error when sealed or i is outside [0, length). */
  set(i: number, value: number): void {
    if (this.sealed) throw new Error('a credit column handed out never changes');
    if (!(i >= 0 && i < this.length)) throw new RangeError(`no event ${i} in a credit column of ${this.length}`);
    const c = i >> CHUNK_BITS;
    if (!this.owned![c]) {
      this.chunks[c] = this.chunks[c].slice();
      this.owned![c] = 1;
    }
    this.chunks[c][i & LOW] = value;
  }

  /**
   * Writes `count` values into a column made by {@link grown} and not sealed yet: event `from + k`
   * takes `values[k]`. One comparison per value (Object.is: -0 is not 0); a shared chunk is copied
   * only once a value in it changes. @throws Error when sealed or the range is outside [0, length).
   */
  putAll(from: number, values: Float64Array, count: number): void {
    if (this.sealed) throw new Error('a credit column handed out never changes');
    if (!(from >= 0 && from + count <= this.length)) throw new RangeError(`no events ${from}..${from + count} in a credit column of ${this.length}`);
    for (let i = from, end = from + count; i < end; ) {
      const c = i >> CHUNK_BITS;
      const stop = Math.min(end, (c + 1) << CHUNK_BITS);
      let chunk = this.chunks[c];
      let k = i - from;
      // the values the same as the chunk's are left alone; from the first that differs on, the chunk is written
      for (; i < stop; i++, k++) {
        const was = chunk[i & LOW];
        const v = values[k];
        if (v !== was || (v === 0 && 1 / v !== 1 / was)) break;
      }
      if (i === stop) continue;
      if (!this.owned![c]) {
        chunk = this.chunks[c] = chunk.slice();
        this.owned![c] = 1;
      }
      for (; i < stop; i++, k++) chunk[i & LOW] = values[k];
    }
  }

  /** Ends the writing: the column is handed out as it is from now on (its chunks stay shared with those grown from it). */
  seal(): this {
    this.sealed = true;
    this.owned = undefined;
    return this;
  }

  /**
   * True when this column and `other` hold the same values for events [from, to) because they
   * share the chunks that hold them (one grown from the other, neither writing there): no value is
   * read. False says nothing (the values may still be equal).
   */
  shares(other: CreditColumn, from: number, to: number): boolean {
    if (this === other) return true;
    if (this.flat || other.flat || to > this.length || to > other.length || from >= to) return false;
    for (let c = from >> CHUNK_BITS, last = (to - 1) >> CHUNK_BITS; c <= last; c++) if (this.chunks[c] !== other.chunks[c]) return false;
    return true;
  }

  /**
   * Adds to `out`, in order, the events of [from, to) whose values differ between this column and
   * `other` (`at`'s values compared with !==: -0 is 0). Chunks the two share are skipped; chunked
   * columns are compared chunk against chunk (a reward's append at 1M events changes a value or two
   * in most chunks: read per event through `at`, 14-20 ms of each graph answer; here 1-2).
   * @returns false as soon as `out` holds more than `most` (the rest not listed), else true.
   */
  listDiffering(other: CreditColumn, from: number, to: number, out: number[], most: number): boolean {
    const end = Math.min(to, this.length, other.length);
    if (this.flat || other.flat) {
      for (let i = from; i < end; i++) if (this.at(i) !== other.at(i) && out.push(i) > most) return false;
    } else {
      for (let i = from; i < end; ) {
        const c = i >> CHUNK_BITS;
        const stop = Math.min(end, (c + 1) << CHUNK_BITS);
        const x = this.chunks[c];
        const y = other.chunks[c];
        if (x !== y) for (let j = i; j < stop; j++) if (x[j & LOW] !== y[j & LOW] && out.push(j) > most) return false;
        i = stop;
      }
    }
    // past the shorter column's end every value of the longer one differs (undefined against a value)
    for (let i = Math.max(from, end); i < to && i < Math.max(this.length, other.length); i++) if (out.push(i) > most) return false;
    return true;
  }

  /** The values as a new list (what `Credit.by_index` holds). */
  toArray(): number[] {
    if (this.flat) return this.flat.slice();
    // a list that holds doubles from its first value (one made of small integers would be copied again at the first decimal)
    const out = [0.5];
    out.length = this.length;
    for (let i = 0; i < this.length; i++) out[i] = this.chunks[i >> CHUNK_BITS][i & LOW];
    return out;
  }
}

/** Per credit result, its column (made with it, or on the first ask from its list). */
const columns = new WeakMap<object, CreditColumn>();

/** Registers `column` as the values of `credit` (called where a credit result is made). */
export function keepCreditColumn(credit: object, column: CreditColumn): void {
  columns.set(credit, column);
}

/**
 * The column of `credit`'s per-event values: the one it was made with (a followed trace's shares
 * chunks with the analysis before), else one over its `by_index` (not copied). Reading it makes no
 * list of every value (`by_index` of a followed trace's analysis is made when first read).
 */
export function creditColumn(credit: { by_index: readonly number[] }): CreditColumn {
  let column = columns.get(credit);
  if (!column) columns.set(credit, (column = CreditColumn.of(credit.by_index)));
  return column;
}
