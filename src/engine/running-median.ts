/**
 * The median of a growing list of numbers, O(log n) per number added (issue #30): the gaps between
 * a followed trace's distinct times, whose median sets its time axis (src/shared/axis.ts). Kept
 * sorted in one array before, an append moved most of a million gaps to merge its own in. Two
 * heaps: the lower half (a max-heap) and the upper half (a min-heap, the median at its top).
 * Pure: no `vscode`.
 */
import { NumberHeap as Heap } from '../shared/number-heap';

export class RunningMedian {
  /** The smallest `length >> 1` values, as a max-heap. */
  private readonly lower: Heap;
  /** The others, as a min-heap: its top is the value at index `length >> 1` of all sorted. */
  private readonly upper: Heap;

  /** @param sorted values to start from, ascending (not kept). */
  constructor(sorted: ArrayLike<number> = []) {
    const half = sorted.length >> 1;
    // a descending array is a max-heap, an ascending one a min-heap: no heapify
    const low = new Float64Array(Math.max(16, half * 2));
    for (let k = 0; k < half; k++) low[k] = sorted[half - 1 - k];
    const high = new Float64Array(Math.max(16, (sorted.length - half) * 2));
    for (let k = half; k < sorted.length; k++) high[k - half] = sorted[k];
    this.lower = new Heap(low, half, 1);
    this.upper = new Heap(high, sorted.length - half, -1);
  }

  /** How many values were given. */
  get length(): number {
    return this.lower.size + this.upper.size;
  }

  /** The value at index `length >> 1` of all values sorted ascending (the upper median); 0 when there is none. */
  get median(): number {
    return this.upper.size ? this.upper.top() : 0;
  }

  /** Adds a value: O(log n). */
  add(v: number): void {
    if (this.lower.size && v < this.lower.top()) this.lower.push(v);
    else this.upper.push(v);
    const half = this.length >> 1;
    while (this.lower.size > half) this.upper.push(this.lower.pop());
    while (this.lower.size < half) this.lower.push(this.upper.pop());
  }
}
