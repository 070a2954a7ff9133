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

/**
 * The first place in `list` from `lo` on whose item satisfies `pred`, which must be monotone over the
 * list (false, then true): binary search, O(log n); `list.length` when none does.
 */
export function lowerBound(list: ArrayLike<number>, pred: (item: number) => boolean, lo = 0): number {
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pred(list[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Two ascending lists of distinct numbers as one ascending list (a new one). */
export function mergedAscending(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i] < b[j] ? a[i++] : b[j++]);
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}
