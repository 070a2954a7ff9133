import type { Arena } from './arena';

/**
 * Pairs of 32-bit integers -> small integers numbered in order of first appearance (a fingerprint
 * per distinct (prefix, content hash)), in an open-addressing table over one typed array: each
 * slot holds its pair and number side by side (one cache line per probe), no map per prefix and
 * no entry object; sized once for the number of pairs expected.
 */
export class PairNumbering {
  /** Slots of three: first, second, number + 1 (0 = empty); at most half full. */
  private slots: Int32Array = new Int32Array(3 * 16);
  private count = 0;

  /**
   * @param expected pairs to come (an upper bound is fine).
   * @param arena where the slots are made (arena.ts; the caller gives them back), else a typed array of their own.
   */
  constructor(
    expected = 0,
    private readonly arena?: Arena,
  ) {
    this.reserve(expected);
  }

  /** Number of distinct pairs so far. */
  get size(): number {
    return this.count;
  }

  /** True when the pair (a, b) has a number (nothing is added). */
  has(a: number, b: number): boolean {
    const slots = this.slots;
    const mask = slots.length / 3 - 1;
    for (let slot = mix(a, b) & mask; slots[3 * slot + 2] !== 0; slot = (slot + 1) & mask) if (slots[3 * slot] === a && slots[3 * slot + 1] === b) return true;
    return false;
  }

  /** The number of the pair (a, b): the one it got when first seen, else the next one. */
  number(a: number, b: number): number {
    const h = mix(a, b);
    let slots = this.slots;
    let mask = slots.length / 3 - 1;
    let slot = h & mask;
    for (let e = slots[3 * slot + 2]; e !== 0; e = slots[3 * slot + 2]) {
      if (slots[3 * slot] === a && slots[3 * slot + 1] === b) return e - 1;
      slot = (slot + 1) & mask;
    }
    const id = this.count;
    if (this.reserve(id + 1)) {
      slots = this.slots;
      mask = slots.length / 3 - 1;
      slot = h & mask;
      while (slots[3 * slot + 2] !== 0) slot = (slot + 1) & mask;
    }
    const at = 3 * slot;
    slots[at] = a;
    slots[at + 1] = b;
    slots[at + 2] = id + 1;
    this.count = id + 1;
    return id;
  }

  /** Room for `count` pairs; @returns true when the slots were rebuilt. */
  private reserve(count: number): boolean {
    const capacity = this.slots.length / 3;
    if (count * 2 <= capacity) return false;
    let size = capacity;
    while (count * 2 > size) size *= 2;
    const slots = this.arena ? this.arena.int32(3 * size) : new Int32Array(3 * size);
    const mask = size - 1;
    const old = this.slots;
    for (let from = 0; from < old.length; from += 3) {
      if (old[from + 2] === 0) continue;
      let slot = mix(old[from], old[from + 1]) & mask;
      while (slots[3 * slot + 2] !== 0) slot = (slot + 1) & mask;
      const at = 3 * slot;
      slots[at] = old[from];
      slots[at + 1] = old[from + 1];
      slots[at + 2] = old[from + 2];
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
