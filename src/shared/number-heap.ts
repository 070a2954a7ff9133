/**
 * A binary heap of numbers (the running median's halves, src/engine/running-median.ts; the positions
 * credit's backward pass takes in order, src/analysis/credit.ts). Pure: no imports.
 */

/**
 * A binary heap of numbers in a growable Float64Array; `sign` 1: largest on top, -1: smallest on
 * top. O(log n) a push or a pop. @param data its storage, the first `size` entries already a heap
 * (a sorted array is one; grown when full); @param size entries held.
 */
export class NumberHeap {
  constructor(
    private data: Float64Array,
    public size: number,
    private readonly sign: 1 | -1,
  ) {}

  /** The value on top (undefined content when empty). */
  top(): number {
    return this.data[0];
  }

  /** True when a should sit above b. */
  private above(a: number, b: number): boolean {
    return this.sign > 0 ? a > b : a < b;
  }

  /** Adds `v`. */
  push(v: number): void {
    if (this.size === this.data.length) {
      const more = new Float64Array(this.data.length * 2);
      more.set(this.data);
      this.data = more;
    }
    const d = this.data;
    let k = this.size++;
    while (k > 0) {
      const parent = (k - 1) >> 1;
      if (!this.above(v, d[parent])) break;
      d[k] = d[parent];
      k = parent;
    }
    d[k] = v;
  }

  /** Takes the value on top away and returns it (the heap must not be empty). */
  pop(): number {
    const d = this.data;
    const out = d[0];
    const last = d[--this.size];
    let k = 0;
    for (;;) {
      let child = 2 * k + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && this.above(d[child + 1], d[child])) child++;
      if (!this.above(d[child], last)) break;
      d[k] = d[child];
      k = child;
    }
    if (this.size > 0) d[k] = last;
    return out;
  }
}
