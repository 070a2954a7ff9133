/**
 * Sequence alignment of two lanes' steps (issue 28): which step of one run is which step of the
 * other, in order, near-linear in practice.
 *
 * 1. The common head is matched as it is. (Not the tail: a step repeated at the end of a stretch
 *    is then matched with its first occurrence, so that the repeats are what is added, as a reader
 *    of a loop expects; the anchors below match a unique tail as well.)
 * 2. Anchors: the steps that occur exactly once in each stretch, matched in the longest run that
 *    keeps their order (patience sorting's longest increasing subsequence: B. Cohen's patience
 *    diff, as `git diff --patience` does), and the stretches between anchors aligned the same way,
 *    down to {@link MAX_DEPTH} levels.
 * 3. A stretch with no anchor: Myers' O(ND) algorithm (myers.ts, jsdiff; its cost is about
 *    length × edits), allowed as many edits as the budget left allows (at least {@link MIN_EDITS}):
 *    the budget is {@link MYERS_BASE} + {@link MYERS_PER_STEP} × (both lengths), for one alignment
 *    or shared by all the alignments of two runs (every lane pair, and within them the changed
 *    steps), so that small runs are aligned exactly and two long unrelated ones in linear time.
 * 4. Past that (two stretches that share little): a greedy walk that matches equal steps met within
 *    {@link LOOKAHEAD} steps of each other, O(length × LOOKAHEAD). Its matches are in order but may
 *    be fewer than the longest common subsequence.
 *
 * Symbols are small non-negative numbers (fingerprints.ts); `alphabet` bounds them.
 */
import { myersPairs } from './myers';

/** Deepest nesting of anchor rounds before a stretch goes to Myers. */
const MAX_DEPTH = 48;
/** Myers' budget of one alignment, in steps (length × edits) given whatever the lengths (see the module comment). */
const MYERS_BASE = 4_000_000;
/** Myers' budget of one alignment, in steps per symbol aligned. */
const MYERS_PER_STEP = 64;
/** Fewest edits Myers is allowed on any stretch. */
const MIN_EDITS = 16;
/** How far the greedy walk looks ahead for an equal step. */
const LOOKAHEAD = 32;

/** Aligns sequences of small numbers; keeps its counting columns between calls. */
export class Aligner {
  private countA: Int32Array;
  private countB: Int32Array;
  private posB: Int32Array;
  private matchA!: Int32Array;
  private matchB!: Int32Array;
  private a!: Int32Array;
  private b!: Int32Array;
  /** Myers steps (length × edits) left. */
  private budget = 0;
  /** True when the budget is the caller's, shared by every alignment of this aligner. */
  private readonly shared: boolean;

  /**
   * @param alphabet every symbol aligned is below it.
   * @param symbols when given, the budget is shared by every alignment of this aligner and made for
   *   this many symbols in all (the events of two runs); else each alignment has its own.
   */
  constructor(alphabet: number, symbols?: number) {
    this.shared = symbols !== undefined;
    if (symbols !== undefined) this.budget = MYERS_BASE + MYERS_PER_STEP * symbols;
    this.countA = new Int32Array(Math.max(1, alphabet));
    this.countB = new Int32Array(Math.max(1, alphabet));
    this.posB = new Int32Array(Math.max(1, alphabet));
  }

  /**
   * Aligns `a` with `b`.
   * @returns `matchA[i]` = the position in `b` aligned with `a[i]`, else -1; `matchB` the other way.
   *   Aligned symbols are equal; pairs are in order (i < i' ⇔ matchA[i] < matchA[i']).
   */
  align(a: Int32Array, b: Int32Array): { matchA: Int32Array; matchB: Int32Array } {
    this.ensure(Math.max(maxOf(a), maxOf(b)) + 1);
    this.a = a;
    this.b = b;
    this.matchA = new Int32Array(a.length).fill(-1);
    this.matchB = new Int32Array(b.length).fill(-1);
    if (!this.shared) this.budget = MYERS_BASE + MYERS_PER_STEP * (a.length + b.length);
    this.range(0, a.length, 0, b.length, 0);
    return { matchA: this.matchA, matchB: this.matchB };
  }

  private ensure(size: number): void {
    if (size <= this.countA.length) return;
    this.countA = new Int32Array(size);
    this.countB = new Int32Array(size);
    this.posB = new Int32Array(size);
  }

  private pair(i: number, j: number): void {
    this.matchA[i] = j;
    this.matchB[j] = i;
  }

  private range(a0: number, a1: number, b0: number, b1: number, depth: number): void {
    const { a, b } = this;
    while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) this.pair(a0++, b0++);
    if (a0 === a1 || b0 === b1) return;
    if (depth < MAX_DEPTH) {
      const anchors = this.anchors(a0, a1, b0, b1);
      if (anchors.length > 0) {
        let i0 = a0;
        let j0 = b0;
        for (let k = 0; k < anchors.length; k += 2) {
          const i = anchors[k];
          const j = anchors[k + 1];
          this.range(i0, i, j0, j, depth + 1);
          this.pair(i, j);
          i0 = i + 1;
          j0 = j + 1;
        }
        this.range(i0, a1, j0, b1, depth + 1);
        return;
      }
    }
    const length = a1 - a0 + (b1 - b0);
    const maxEdits = Math.min(length, Math.max(MIN_EDITS, Math.floor(this.budget / length)));
    const edits = myersPairs(a, a0, a1, b, b0, b1, maxEdits, (i, j) => this.pair(i, j));
    this.budget -= length * (edits === -1 ? maxEdits : Math.max(1, edits));
    if (edits === -1) this.greedy(a0, a1, b0, b1);
  }

  /**
   * The symbols that occur once in `a[a0, a1)` and once in `b[b0, b1)`, as pairs of positions
   * (i, j, i, j, ...) in the longest chain increasing in both.
   */
  private anchors(a0: number, a1: number, b0: number, b1: number): number[] {
    const { a, b, countA, countB, posB } = this;
    for (let i = a0; i < a1; i++) countA[a[i]]++;
    for (let j = b0; j < b1; j++) {
      countB[b[j]]++;
      posB[b[j]] = j;
    }
    const is: number[] = [];
    const js: number[] = [];
    for (let i = a0; i < a1; i++) {
      const s = a[i];
      if (countA[s] === 1 && countB[s] === 1) {
        is.push(i);
        js.push(posB[s]);
      }
    }
    for (let i = a0; i < a1; i++) countA[a[i]] = 0;
    for (let j = b0; j < b1; j++) countB[b[j]] = 0;
    const chain = longestIncreasing(js);
    const out: number[] = [];
    for (const k of chain) out.push(is[k], js[k]);
    return out;
  }

  /** Matches equal symbols met within {@link LOOKAHEAD} steps of each other, in order. */
  private greedy(a0: number, a1: number, b0: number, b1: number): void {
    const { a, b } = this;
    let i = a0;
    let j = b0;
    while (i < a1 && j < b1) {
      if (a[i] === b[j]) {
        this.pair(i++, j++);
        continue;
      }
      let di = -1;
      let dj = -1;
      for (let k = 1; k <= LOOKAHEAD && i + k < a1; k++) {
        if (a[i + k] === b[j]) {
          di = k;
          break;
        }
      }
      for (let k = 1; k <= LOOKAHEAD && j + k < b1; k++) {
        if (b[j + k] === a[i]) {
          dj = k;
          break;
        }
      }
      if (di < 0 && dj < 0) {
        i++;
        j++;
      } else if (dj < 0 || (di >= 0 && di <= dj)) i += di;
      else j += dj;
    }
  }
}

/** Indices (ascending) of a longest strictly increasing subsequence of `xs`: patience sorting, O(k log k). */
export function longestIncreasing(xs: readonly number[]): number[] {
  const k = xs.length;
  if (k === 0) return [];
  const tails: number[] = []; // tails[l] = index of the smallest tail of an increasing run of length l + 1
  const prev = new Int32Array(k).fill(-1);
  for (let x = 0; x < k; x++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[tails[mid]] < xs[x]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[x] = tails[lo - 1];
    tails[lo] = x;
  }
  const out = new Array<number>(tails.length);
  for (let x = tails[tails.length - 1], l = tails.length - 1; x !== -1; x = prev[x], l--) out[l] = x;
  return out;
}

function maxOf(xs: Int32Array): number {
  let m = 0;
  for (let i = 0; i < xs.length; i++) if (xs[i] > m) m = xs[i];
  return m;
}
