/**
 * Myers' O(ND) difference algorithm (E. W. Myers, "An O(ND) Difference Algorithm and Its
 * Variations", Algorithmica 1986) through jsdiff's `diffArrays` (npm `diff`), for the stretches
 * between the alignment's anchors (align.ts). jsdiff gives up past `maxEditLength` edits: the
 * caller sets that from a budget, so that two unrelated runs cost O(length) and not O(length²).
 */
import { diffArrays } from 'diff';

/**
 * The longest common subsequence of `a[a0, a1)` and `b[b0, b1)`, as pairs handed to `pair(i, j)` in
 * order.
 * @returns the insertions and removals it took, or -1 (and no pair handed) when it needs more than `maxEdits`.
 */
export function myersPairs(a: Int32Array, a0: number, a1: number, b: Int32Array, b0: number, b1: number, maxEdits: number, pair: (i: number, j: number) => void): number {
  const changes = diffArrays(Array.from(a.subarray(a0, a1)), Array.from(b.subarray(b0, b1)), { maxEditLength: maxEdits });
  if (!changes) return -1;
  let i = a0;
  let j = b0;
  let edits = 0;
  for (const c of changes) {
    const count = c.count ?? 0;
    if (c.added) {
      j += count;
      edits += count;
    } else if (c.removed) {
      i += count;
      edits += count;
    } else for (let k = 0; k < count; k++) pair(i++, j++);
  }
  return edits;
}
