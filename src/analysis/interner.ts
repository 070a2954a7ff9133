import type { Arena } from './arena';

/**
 * Tokens of texts as small integer ids, looked up straight from the text they occur in: a token
 * already met costs a hash of its characters and one comparison, and no token is copied out of its
 * text: a token is kept as where it first occurred (the text, its start and length), so a million
 * distinct tokens (numbers in a 1M-event trace) make no million strings for the collector. Open
 * addressing over 32-bit FNV-1a hashes (Fowler, Noll, Vo).
 */
export class TokenInterner {
  /** The texts tokens first occurred in; per id, where it starts there, its length, and 1 when it was lower-cased. */
  private readonly texts: string[] = [];
  /** Per id, its text's place in {@link texts}: the ids met in one text share one entry there (a pointer per text, not per token). */
  private sourceOf: Int32Array;
  /** Number of ids. */
  private count = 0;
  private starts: Int32Array;
  private lengths: Int32Array;
  private lowers: Uint8Array;
  private hashes: Int32Array;
  /** Per id, 1 when the token is in the `skip` set given to the constructor. */
  private skips: Uint8Array;
  /** Slots: id + 1, or 0 when empty; at most half full. */
  private table: Int32Array;
  /** First characters of the skip set's tokens: only a token starting with one of them is looked up there. */
  private readonly skipFirsts = new Set<number>();

  /**
   * @param skip tokens to mark as skipped (common words); {@link skipped} tells.
   * @param arena where the tables are made (arena.ts; the caller gives them back), else typed arrays of their own.
   * @param expected tokens to come (a guess: the tables grow past it).
   */
  constructor(
    private readonly skip?: ReadonlySet<string>,
    private readonly arena?: Arena,
    expected = 256,
  ) {
    if (skip) for (const w of skip) if (w.length > 0) this.skipFirsts.add(w.charCodeAt(0));
    const size = Math.max(256, expected);
    this.sourceOf = this.int32(size);
    this.starts = this.int32(size);
    this.lengths = this.int32(size);
    this.lowers = this.uint8(size);
    this.hashes = this.int32(size);
    this.skips = this.uint8(size);
    let slots = 1024;
    while (slots < 2 * size) slots *= 2;
    this.table = this.int32(slots);
  }

  private int32(length: number): Int32Array {
    return this.arena ? this.arena.int32(length) : new Int32Array(length);
  }

  private uint8(length: number): Uint8Array {
    return this.arena ? this.arena.uint8(length) : new Uint8Array(length);
  }

  /** Number of distinct tokens met (ids are below it). */
  get size(): number {
    return this.count;
  }

  /** The token of an id (made from its first occurrence when asked). */
  key(id: number): string {
    const start = this.starts[id];
    const token = this.texts[this.sourceOf[id]].slice(start, start + this.lengths[id]);
    return this.lowers[id] === 1 ? token.toLowerCase() : token;
  }

  /** True when the token of `id` is in the skip set. */
  skipped(id: number): boolean {
    return this.skips[id] === 1;
  }

  /**
   * The id of `text[start, end)`, with ASCII capitals lowered when `lower` (the token is then that
   * text lower-cased: callers pass only runs of ASCII when `lower`), added when new.
   */
  id(text: string, start: number, end: number, lower: boolean): number {
    let h = 0x811c9dc5 | 0;
    for (let k = start; k < end; k++) {
      let c = text.charCodeAt(k);
      if (lower && c >= 65 && c <= 90) c += 32;
      h = Math.imul(h ^ c, 0x01000193);
    }
    const mask = this.table.length - 1;
    let slot = h & mask;
    for (let entry = this.table[slot]; entry !== 0; entry = this.table[slot]) {
      const id = entry - 1;
      if (this.hashes[id] === h && this.sameToken(id, text, start, end, lower)) return id;
      slot = (slot + 1) & mask;
    }
    const id = this.count++;
    if (this.texts[this.texts.length - 1] !== text) this.texts.push(text);
    if (id === this.hashes.length) this.grow(id * 2);
    this.sourceOf[id] = this.texts.length - 1;
    this.starts[id] = start;
    this.lengths[id] = end - start;
    this.lowers[id] = lower ? 1 : 0;
    this.hashes[id] = h;
    this.skips[id] = this.inSkipSet(text, start, end, lower) ? 1 : 0;
    this.table[slot] = id + 1;
    if (this.count * 2 > this.table.length) this.rehash();
    return id;
  }

  /** True when the token is in the skip set (a string is made only when its first character may start one). */
  private inSkipSet(text: string, start: number, end: number, lower: boolean): boolean {
    if (!this.skip) return false;
    if (end <= start) return this.skip.has('');
    let first = text.charCodeAt(start);
    if (lower && first >= 65 && first <= 90) first += 32;
    if (!this.skipFirsts.has(first)) return false;
    const token = text.slice(start, end);
    return this.skip.has(lower ? token.toLowerCase() : token);
  }

  /** True when token `id` is `text[start, end)` (ASCII capitals lowered when `lower`; the token's own when it was). */
  private sameToken(id: number, text: string, start: number, end: number, lower: boolean): boolean {
    const length = this.lengths[id];
    if (length !== end - start) return false;
    const source = this.texts[this.sourceOf[id]];
    const from = this.starts[id];
    const sourceLower = this.lowers[id] === 1;
    for (let k = 0; k < length; k++) {
      let c = text.charCodeAt(start + k);
      if (lower && c >= 65 && c <= 90) c += 32;
      let d = source.charCodeAt(from + k);
      if (sourceLower && d >= 65 && d <= 90) d += 32;
      if (c !== d) return false;
    }
    return true;
  }

  private grow(size: number): void {
    this.sourceOf = grown(this.sourceOf, this.int32(size));
    this.starts = grown(this.starts, this.int32(size));
    this.lengths = grown(this.lengths, this.int32(size));
    this.lowers = grown(this.lowers, this.uint8(size));
    this.hashes = grown(this.hashes, this.int32(size));
    this.skips = grown(this.skips, this.uint8(size));
  }

  private rehash(): void {
    const table = this.int32(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = this.hashes[id] & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.table = table;
  }
}

function grown<T extends Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
