/**
 * Tokens of texts as small integer ids, looked up straight from the text they occur in: a token
 * already met costs a hash of its characters and one comparison, with no string copied out of the
 * text (a new one is copied once). Open addressing over 32-bit FNV-1a hashes (Fowler, Noll, Vo).
 */
export class TokenInterner {
  private readonly keys: string[] = [];
  private hashes = new Int32Array(256);
  /** Per id, 1 when the token is in the `skip` set given to the constructor. */
  private skips = new Uint8Array(256);
  /** Slots: id + 1, or 0 when empty. */
  private table = new Int32Array(1024);

  /** @param skip tokens to mark as skipped (common words); {@link skipped} tells. */
  constructor(private readonly skip?: ReadonlySet<string>) {}

  /** Number of distinct tokens met (ids are below it). */
  get size(): number {
    return this.keys.length;
  }

  /** The token of an id. */
  key(id: number): string {
    return this.keys[id];
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
      if (this.hashes[id] === h && sameToken(this.keys[id], text, start, end, lower)) return id;
      slot = (slot + 1) & mask;
    }
    const key = lower ? text.slice(start, end).toLowerCase() : text.slice(start, end);
    const id = this.keys.length;
    this.keys.push(key);
    if (id === this.hashes.length) {
      this.hashes = grown(this.hashes, new Int32Array(id * 2));
      this.skips = grown(this.skips, new Uint8Array(id * 2));
    }
    this.hashes[id] = h;
    this.skips[id] = this.skip?.has(key) ? 1 : 0;
    this.table[slot] = id + 1;
    if (this.keys.length * 2 > this.table.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.keys.length; id++) {
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

/** True when `key` is `text[start, end)` (ASCII capitals lowered when `lower`). */
function sameToken(key: string, text: string, start: number, end: number, lower: boolean): boolean {
  if (key.length !== end - start) return false;
  for (let k = 0; k < key.length; k++) {
    let c = text.charCodeAt(start + k);
    if (lower && c >= 65 && c <= 90) c += 32;
    if (c !== key.charCodeAt(k)) return false;
  }
  return true;
}
