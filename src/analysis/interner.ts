/**
 * Tokens of texts as small integer ids, looked up straight from the text they occur in: a token
 * already met costs a hash of its characters and one comparison, and no token is copied out of its
 * text: a token is kept as where it first occurred (the text, its start and length), so a million
 * distinct tokens (numbers in a 1M-event trace) make no million strings for the collector. Open
 * addressing over 32-bit FNV-1a hashes (Fowler, Noll, Vo).
 */
export class TokenInterner {
  /** Per id, the text of its first occurrence, where it starts there, its length, and 1 when it was lower-cased. */
  private readonly sources: string[] = [];
  private starts = new Int32Array(256);
  private lengths = new Int32Array(256);
  private lowers = new Uint8Array(256);
  private hashes = new Int32Array(256);
  /** Per id, 1 when the token is in the `skip` set given to the constructor. */
  private skips = new Uint8Array(256);
  /** Slots: id + 1, or 0 when empty. */
  private table = new Int32Array(1024);
  /** First characters of the skip set's tokens: only a token starting with one of them is looked up there. */
  private readonly skipFirsts = new Set<number>();

  /** @param skip tokens to mark as skipped (common words); {@link skipped} tells. */
  constructor(private readonly skip?: ReadonlySet<string>) {
    if (skip) for (const w of skip) if (w.length > 0) this.skipFirsts.add(w.charCodeAt(0));
  }

  /** Number of distinct tokens met (ids are below it). */
  get size(): number {
    return this.sources.length;
  }

  /** The token of an id (made from its first occurrence when asked). */
  key(id: number): string {
    const start = this.starts[id];
    const token = this.sources[id].slice(start, start + this.lengths[id]);
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
    const id = this.sources.length;
    this.sources.push(text);
    if (id === this.hashes.length) this.grow(id * 2);
    this.starts[id] = start;
    this.lengths[id] = end - start;
    this.lowers[id] = lower ? 1 : 0;
    this.hashes[id] = h;
    this.skips[id] = this.inSkipSet(text, start, end, lower) ? 1 : 0;
    this.table[slot] = id + 1;
    if (this.sources.length * 2 > this.table.length) this.rehash();
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
    const source = this.sources[id];
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
    this.starts = grown(this.starts, new Int32Array(size));
    this.lengths = grown(this.lengths, new Int32Array(size));
    this.lowers = grown(this.lowers, new Uint8Array(size));
    this.hashes = grown(this.hashes, new Int32Array(size));
    this.skips = grown(this.skips, new Uint8Array(size));
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.sources.length; id++) {
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
