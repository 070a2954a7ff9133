/**
 * Pairs of 32-bit integers -> small integers numbered in order of first appearance (a fingerprint
 * per distinct (prefix, content hash)), in an open-addressing table over typed arrays: no map per
 * prefix and no entry object, sized once for the number of pairs expected.
 */
export class PairNumbering {
  private first = new Int32Array(0);
  private second = new Int32Array(0);
  /** Slots: number + 1, or 0 when empty; at most half full. */
  private slots = new Int32Array(16);
  private count = 0;

  /** @param expected pairs to come (an upper bound is fine). */
  constructor(expected = 0) {
    this.reserve(expected);
  }

  /** Number of distinct pairs so far. */
  get size(): number {
    return this.count;
  }

  /** The number of the pair (a, b): the one it got when first seen, else the next one. */
  number(a: number, b: number): number {
    const h = mix(a, b);
    let mask = this.slots.length - 1;
    let slot = h & mask;
    for (let e = this.slots[slot]; e !== 0; e = this.slots[slot]) {
      if (this.first[e - 1] === a && this.second[e - 1] === b) return e - 1;
      slot = (slot + 1) & mask;
    }
    const id = this.count;
    if (this.reserve(id + 1)) {
      mask = this.slots.length - 1;
      slot = h & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    }
    this.first[id] = a;
    this.second[id] = b;
    this.slots[slot] = id + 1;
    this.count = id + 1;
    return id;
  }

  /** Room for `count` pairs; @returns true when the slots were rebuilt. */
  private reserve(count: number): boolean {
    if (count > this.first.length) {
      const size = Math.max(count, this.first.length * 2, 16);
      const first = new Int32Array(size);
      first.set(this.first);
      this.first = first;
      const second = new Int32Array(size);
      second.set(this.second);
      this.second = second;
    }
    if (count * 2 <= this.slots.length) return false;
    let capacity = this.slots.length;
    while (count * 2 > capacity) capacity *= 2;
    const slots = new Int32Array(capacity);
    const mask = capacity - 1;
    for (let e = 0; e < this.count; e++) {
      let slot = mix(this.first[e], this.second[e]) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = e + 1;
    }
    this.slots = slots;
    return true;
  }
}

/** A 32-bit mix of two integers (multiplicative hashing of the first, folded into the second). */
function mix(a: number, b: number): number {
  const h = Math.imul(a ^ (a >>> 16), 0x45d9f3b) ^ b;
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ (h >>> 13);
}
