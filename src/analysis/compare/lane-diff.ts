/**
 * The steps of two paired lanes told apart (issue 28): the same step (equal fingerprints, aligned in
 * order: align.ts), moved (an equal step left out of the order: one taken out in one place and put
 * back in another), changed (a step of the same shape, other content, between the same two aligned
 * steps), and the rest only in one lane.
 *
 * Moved steps are found before changed ones: an exact match elsewhere in the lane says more than a
 * step of the same shape nearby. Pure; linear in the lanes beside the alignment's own cost.
 */
import type { Aligner } from './align';
import { gather } from './fingerprints';

/** How a step of one lane relates to the other lane. */
export const STEP = { only: 0, same: 1, changed: 2, moved: 3 } as const;

/** Two lanes' steps told apart; positions are places in the lanes (0 = a lane's first event). */
export interface LaneDiff {
  /** Position in lane B of the step paired with A's step at each position, else -1. */
  matchA: Int32Array;
  matchB: Int32Array;
  /** {@link STEP} per position of lane A. */
  kindA: Uint8Array;
  kindB: Uint8Array;
}

/**
 * Tells two lanes' steps apart.
 * @param fpA fingerprints of lane A's steps in lane order; `fpB` lane B's.
 * @param shapeA their shapes (fingerprints.ts), for changed steps; `shapeB` lane B's.
 */
export function diffLanes(aligner: Aligner, fpA: Int32Array, fpB: Int32Array, shapeA: Int32Array, shapeB: Int32Array): LaneDiff {
  const { matchA, matchB } = aligner.align(fpA, fpB);
  const kindA = new Uint8Array(fpA.length);
  const kindB = new Uint8Array(fpB.length);
  for (let i = 0; i < matchA.length; i++) if (matchA[i] !== -1) kindA[i] = STEP.same;
  for (let j = 0; j < matchB.length; j++) if (matchB[j] !== -1) kindB[j] = STEP.same;

  // moved: an unpaired step of B equal to an unpaired step of A, the earliest first
  const waiting = new Map<number, number[]>();
  for (let i = 0; i < fpA.length; i++) {
    if (kindA[i] !== STEP.only) continue;
    const list = waiting.get(fpA[i]);
    if (list) list.push(i);
    else waiting.set(fpA[i], [i]);
  }
  if (waiting.size > 0) {
    const next = new Map<number, number>();
    for (let j = 0; j < fpB.length; j++) {
      if (kindB[j] !== STEP.only) continue;
      const list = waiting.get(fpB[j]);
      const k = next.get(fpB[j]) ?? 0;
      if (!list || k >= list.length) continue;
      next.set(fpB[j], k + 1);
      link(list[k], j, STEP.moved);
    }
  }

  // changed: between two consecutive same steps, the unpaired steps aligned by shape
  let i0 = -1;
  let j0 = -1;
  for (let i = 0; i <= fpA.length; i++) {
    if (i < fpA.length && kindA[i] !== STEP.same) continue;
    const j = i < fpA.length ? matchA[i] : fpB.length;
    changedBetween(i0 + 1, i, j0 + 1, j);
    i0 = i;
    j0 = j;
  }
  return { matchA, matchB, kindA, kindB };

  function link(i: number, j: number, kind: number): void {
    matchA[i] = j;
    matchB[j] = i;
    kindA[i] = kind;
    kindB[j] = kind;
  }

  function changedBetween(a0: number, a1: number, b0: number, b1: number): void {
    const as: number[] = [];
    const bs: number[] = [];
    for (let i = a0; i < a1; i++) if (kindA[i] === STEP.only) as.push(i);
    for (let j = b0; j < b1; j++) if (kindB[j] === STEP.only) bs.push(j);
    if (as.length === 0 || bs.length === 0) return;
    const shapes = aligner.align(gather(shapeA, as), gather(shapeB, bs));
    for (let k = 0; k < as.length; k++) if (shapes.matchA[k] !== -1) link(as[k], bs[shapes.matchA[k]], STEP.changed);
  }
}
