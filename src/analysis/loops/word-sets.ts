/**
 * Content words of dialogue steps as small integer ids and compact sets, for counting the words two
 * steps share without a string set per step (used by similar-steps.ts). Tables are scratch in the
 * index's arena (arena.ts), or typed arrays of their own for a scan kept between analyses of a
 * growing trace (no arena given).
 */
import type { Arena } from '../arena';
import { TokenInterner } from '../interner';
import { forEachContentWordId, FUNCTION_WORDS } from '../text';

/**
 * The word sets of the steps, for counting the words two steps share: word ids below 64 (the
 * first words met, the most common ones) as two 32-bit masks, counted by a population count of
 * their intersection; the others as a list (one after the other in {@link high}), counted one look
 * each against the marks of the step being compared ({@link add}). Scratch in the index's arena.
 */
export class StepSets {
  /** Word ids of 64 and more of each step added, one step after the other. */
  private high: Int32Array;
  private length = 0;
  /** Word id -> stamp of the last step added whose words it is among. */
  private mark: Int32Array;
  private stamp = 0;
  /** The last step added: masks of its word ids 0-31 and 32-63, and where its other ids start in {@link high}. */
  lo = 0;
  hi = 0;
  highFrom = 0;

  constructor(
    private readonly arena: Arena | undefined,
    events: number,
  ) {
    this.high = int32(arena, Math.max(1024, events));
    this.mark = int32(arena, 1024);
  }

  /** Adds the step whose distinct word ids are ids[from, to) (all below `vocabulary`) and marks its words. */
  add(ids: Int32Array, from: number, to: number, vocabulary: number): void {
    if (this.mark.length < vocabulary) this.mark = grownInt32(this.arena, this.mark, Math.max(vocabulary, this.mark.length * 2));
    if (this.length + (to - from) > this.high.length) this.high = grownInt32(this.arena, this.high, Math.max(this.length + (to - from), this.high.length * 2));
    this.stamp++;
    let lo = 0;
    let hi = 0;
    this.highFrom = this.length;
    for (let w = from; w < to; w++) {
      const id = ids[w];
      if (id < 32) lo |= 1 << id;
      else if (id < 64) hi |= 1 << (id - 32);
      else {
        this.mark[id] = this.stamp;
        this.high[this.length++] = id;
      }
    }
    this.lo = lo;
    this.hi = hi;
  }

  /**
   * The number of words the last step added shares with an earlier one (its number of words, its
   * masks and where its other ids start), or -1 when it is below `need` (the count stops once too
   * many are missing).
   */
  sharedWith(size: number, lo: number, hi: number, highFrom: number, need: number): number {
    const masked = bitCount(lo & this.lo) + bitCount(hi & this.hi);
    const highTo = highFrom + size - bitCount(lo) - bitCount(hi);
    let slack = highTo - highFrom - (need - masked); // other words of the earlier step that may be missing
    if (slack < 0) return -1;
    for (let w = highFrom; w < highTo; w++) if (this.mark[this.high[w]] !== this.stamp && --slack < 0) return -1;
    return need + slack;
  }
}

/** Number of bits set in a 32-bit integer (population count; Warren, Hacker's Delight, 5-2). */
function bitCount(x: number): number {
  x = (x - ((x >>> 1) & 0x55555555)) | 0;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Content words as small integers (one id per distinct word), for fast set comparisons. Its
 * tables are scratch in the index's arena (arena.ts), given back by the caller of the detector.
 */
export class WordIds {
  private readonly words: TokenInterner;
  /** Per id, the number of the last text it was seen in (to drop repeats within a text). */
  private seenIn: Int32Array;
  private texts = 0;
  /** The word ids of every text added, one after the other ({@link add}); the first {@link length} entries are set. */
  ids: Int32Array;
  /** Number of ids in {@link ids}. */
  length = 0;
  /** Made once (not a closure per text): keeps each word id once per text. */
  private readonly onWord = (id: number): void => {
    if (id >= this.seenIn.length) this.seenIn = grownInt32(this.arena, this.seenIn, Math.max(id + 1, this.seenIn.length * 2));
    if (this.seenIn[id] === this.texts) return;
    this.seenIn[id] = this.texts;
    if (this.length === this.ids.length) this.ids = grownInt32(this.arena, this.ids, this.ids.length * 2);
    this.ids[this.length++] = id;
  };

  /** @param events events to come (sizes the list of ids; the vocabulary's tables grow as words come). */
  constructor(
    private readonly arena: Arena | undefined,
    events: number,
  ) {
    this.words = new TokenInterner(FUNCTION_WORDS, arena);
    this.seenIn = int32(arena, 1024);
    // pages never written are never resident: room for 8 words per event costs nothing unused
    this.ids = int32(arena, Math.max(1024, 8 * events));
  }

  /** Ids are below this number. */
  get size(): number {
    return this.words.size;
  }

  /**
   * Adds the distinct content words of a text ({@link contentWords}), as ids in the order they first
   * occur, at the end of {@link ids}. @returns where they start (they end at {@link length}).
   */
  add(text: string): number {
    const from = this.length;
    this.texts++;
    forEachContentWordId(text, this.words, this.onWord);
    return from;
  }
}

/** True when ids[aFrom, aTo) and ids[bFrom, bTo) hold the same ids in the same order. */
export function sameIds(ids: Int32Array, aFrom: number, aTo: number, bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let k = 0; k < aTo - aFrom; k++) if (ids[aFrom + k] !== ids[bFrom + k]) return false;
  return true;
}

/** A zeroed Int32Array of `length` entries in `arena`, else of its own. */
function int32(arena: Arena | undefined, length: number): Int32Array {
  return arena ? arena.int32(length) : new Int32Array(length);
}

/** An Int32Array of `length` entries holding `from` (cut to it) then zeros, in `arena`, else of its own. */
function grownInt32(arena: Arena | undefined, from: Int32Array, length: number): Int32Array {
  if (arena) return arena.grownInt32(from, length);
  const out = new Int32Array(length);
  out.set(from.subarray(0, Math.min(from.length, length)));
  return out;
}
