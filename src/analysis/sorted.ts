/** Searches in sorted numbers. */

/**
 * The first place in `sorted` (ascending) whose value is above `value` (binary search, O(log n));
 * `sorted.length` when none is.
 */
export function upperBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
