import type { Arena } from './arena';

/**
 * Tokens of texts as small integer ids, looked up straight from the text they occur in: a token
 * already met costs a hash of its characters and one comparison, and no token is copied out of its
 * text: a token is kept as where it first occurred (the text, its start and length), so a million
 * distinct tokens (numbers in a 1M-event trace) make no million strings for the collector. Open
 * addressing over 32-bit FNV-1a hashes (Fowler, Noll, Vo).
 */
export class TokenInterner {
  /** The texts tokens first occurred in (the ids met in one text share one entry: a pointer per text, not per token). */
  private readonly texts: string[] = [];
  /** Number of ids. */
  private count = 0;
  /**
   * Per id, {@link STRIDE} entries side by side (one cache line for all a lookup reads of it): its
   * hash, its text's place in {@link texts}, where it starts there, and its length with the flags
   * {@link LOWER} (lower-cased) and {@link SKIP} (in the `skip` set given to the constructor).
   */
  private tokens: Int32Array;
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
    this.tokens = this.int32(STRIDE * size);
    let slots = 1024;
    while (slots < 2 * size) slots *= 2;
    this.table = this.int32(slots);
  }

  private int32(length: number): Int32Array {
    return this.arena ? this.arena.int32(length) : new Int32Array(length);
  }

  /** Number of distinct tokens met (ids are below it). */
  get size(): number {
    return this.count;
  }

  /** Distinct tokens it can hold before its tables grow (an interner made in an arena's kept columns must not grow there: trace-index.ts). */
  get capacity(): number {
    return Math.min(this.tokens.length / STRIDE, this.table.length >> 1);
  }

  /** The token of an id (made from its first occurrence when asked). */
  key(id: number): string {
    const at = STRIDE * id;
    const start = this.tokens[at + 2];
    const info = this.tokens[at + 3];
    const token = this.texts[this.tokens[at + 1]].slice(start, start + (info & LENGTH));
    return (info & LOWER) !== 0 ? token.toLowerCase() : token;
  }

  /** True when the token of `id` is in the skip set. */
  skipped(id: number): boolean {
    return (this.tokens[STRIDE * id + 3] & SKIP) !== 0;
  }

  /**
   * The id of `text[start, end)`, with ASCII capitals lowered when `lower` (the token is then that
   * text lower-cased: callers pass only runs of ASCII when `lower`), added when new.
   */
  id(text: string, start: number, end: number, lower: boolean): number {
    let h = FNV_OFFSET;
    for (let k = start; k < end; k++) {
      let c = text.charCodeAt(k);
      if (lower && c >= 65 && c <= 90) c += 32;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    return this.idOfHash(text, start, end, lower, h);
  }

  /**
   * {@link id} for a caller that hashed the token as it read it (text.ts `hashAndSalientIds`: each
   * character read once): `h` must be what {@link id} computes, the 32-bit FNV-1a of the token's
   * characters (lowered when `lower`) from {@link FNV_OFFSET} with {@link FNV_PRIME}.
   */
  idOfHash(text: string, start: number, end: number, lower: boolean, h: number): number {
    const table = this.table;
    const mask = table.length - 1;
    let slot = h & mask;
    for (let entry = table[slot]; entry !== 0; entry = table[slot]) {
      const id = entry - 1;
      if (this.tokens[STRIDE * id] === h && this.sameToken(id, text, start, end, lower)) return id;
      slot = (slot + 1) & mask;
    }
    return this.add(text, start, end, lower, h, slot);
  }

  /** Adds the token `text[start, end)` of hash `h` at the empty `slot`; @returns its id. */
  private add(text: string, start: number, end: number, lower: boolean, h: number, slot: number): number {
    const id = this.count++;
    if (this.texts[this.texts.length - 1] !== text) this.texts.push(text);
    if (STRIDE * id === this.tokens.length) this.tokens = grown(this.tokens, this.int32(2 * this.tokens.length));
    const at = STRIDE * id;
    this.tokens[at] = h;
    this.tokens[at + 1] = this.texts.length - 1;
    this.tokens[at + 2] = start;
    this.tokens[at + 3] = (end - start) | (lower ? LOWER : 0) | (this.inSkipSet(text, start, end, lower) ? SKIP : 0);
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
    const at = STRIDE * id;
    const info = this.tokens[at + 3];
    const length = info & LENGTH;
    if (length !== end - start) return false;
    const source = this.texts[this.tokens[at + 1]];
    const from = this.tokens[at + 2];
    const sourceLower = (info & LOWER) !== 0;
    for (let k = 0; k < length; k++) {
      let c = text.charCodeAt(start + k);
      if (lower && c >= 65 && c <= 90) c += 32;
      let d = source.charCodeAt(from + k);
      if (sourceLower && d >= 65 && d <= 90) d += 32;
      if (c !== d) return false;
    }
    return true;
  }

  private rehash(): void {
    const table = this.int32(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.count; id++) {
      let slot = this.tokens[STRIDE * id] & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.table = table;
  }
}

/** 32-bit FNV-1a's offset basis and prime (Fowler, Noll, Vo), as the interner hashes a token. */
export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 0x01000193;

/** Entries per id in the interner's token table: hash, text, start, length and flags. */
const STRIDE = 4;
/** The length's bits of a token's last entry (a string is shorter than 2^29 code units in V8 and SpiderMonkey; 2^30 - 1 allows more). */
const LENGTH = (1 << 29) - 1;
const LOWER = 1 << 29;
const SKIP = 1 << 30;

function grown(from: Int32Array, to: Int32Array): Int32Array {
  to.set(from);
  return to;
}
