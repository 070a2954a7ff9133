/**
 * The rewards' seeds of credit's backward pass (credit.ts `propagate`), and the values they give,
 * kept between the analyses of a followed trace.
 *
 * The pass is linear in its seeds, so the outcome's seed (R at the final answer) and the rewards'
 * (each reward's value less its channel's mean, at its target) are passed back apart, each with
 * its own floor (credit.ts MASS_FLOOR), and an event's credit is the sum of the two. An append to a
 * followed trace moves the outcome's seed to the new final answer, whose mass reaches a few
 * thousand events (2,464 of the 1M bench trace's); the rewards' seeds stay as they were unless a
 * reward came, and theirs reach most events (569,326 of 1M): their values, kept, are read again
 * while the seeds are the same and the parents of every event they reach were carried.
 */
import { OUTCOME_CHANNELS, rewardPoints } from './outcome';
import { grownTo } from './prefix-carry';
import type { TraceIndex } from './trace-index';

/** The rewards' seeds, in the order they are added: `delta[k]` at position `at[k]`; `top` the highest position (-1 for none); `mass` the sum of the deltas' sizes. */
export interface RewardSeeds {
  at: Int32Array;
  delta: Float64Array;
  top: number;
  mass: number;
}

/** The rewards' values of the pass, per position, with the seeds and lambda that gave them (a followed trace's carry keeps it: prefix-carry.ts). */
export interface RewardCredit {
  seeds: RewardSeeds;
  lambda: number;
  /** Per position, the credit the rewards' seeds gave it (zeros past the positions analysed; room to grow). */
  values: Float64Array;
  /** The positions of the analysis that passed them back (kept since by the later ones). */
  madeAt: number;
}

/**
 * The rewards' seeds: every reward with a finite value gives (value - mean of its channel's values)
 * at the event its `target` names, else at itself; an outcome-channel reward that is the trace's
 * only one in its channel gives none (it is the outcome, seeded at the final answer).
 */
export function rewardSeeds(index: TraceIndex): RewardSeeds {
  const rewards = rewardPoints(index);
  const byChannel = new Map<string, number[]>();
  for (const r of rewards) {
    let list = byChannel.get(r.channel);
    if (!list) byChannel.set(r.channel, (list = []));
    list.push(r.value);
  }
  // each channel's mean, summed once per channel (not once per reward: that is quadratic in the rewards)
  const baselines = new Map<string, number>();
  for (const [channel, list] of byChannel) baselines.set(channel, list.reduce((a, b) => a + b, 0) / list.length);
  const at: number[] = [];
  const delta: number[] = [];
  let top = -1;
  for (const r of rewards) {
    if (OUTCOME_CHANNELS.has(r.channel) && byChannel.get(r.channel)!.length < 2) continue;
    const target = index.events[r.pos].target;
    const pos = typeof target === 'string' && index.pos.has(target) ? (index.pos.get(target) as number) : r.pos;
    at.push(pos);
    delta.push(r.value - baselines.get(r.channel)!);
    top = Math.max(top, pos);
  }
  return { at: Int32Array.from(at), delta: Float64Array.from(delta), top, mass: delta.reduce((sum, d) => sum + Math.abs(d), 0) };
}

/**
 * The rewards' values `kept` from an earlier analysis of the same trace when they stand for this
 * one: the same seeds (positions and values, in order) and lambda, and every position up to the
 * highest seed below `carriedBelow` (its parents were carried, not gathered again: mass only moves
 * to earlier positions, so nothing else reaches them). @returns the values, grown to `n` positions
 * (zeros past those analysed then), or undefined when they must be made again.
 */
export function keptRewardValues(kept: RewardCredit | undefined, seeds: RewardSeeds, lambda: number, carriedBelow: number, n: number): Float64Array | undefined {
  if (!kept || kept.lambda !== lambda || seeds.top >= carriedBelow || !sameSeeds(kept.seeds, seeds)) return undefined;
  return grownTo(kept.values, n, kept.values.length, (size) => new Float64Array(size));
}

function sameSeeds(a: RewardSeeds, b: RewardSeeds): boolean {
  if (a.at.length !== b.at.length) return false;
  for (let k = 0; k < a.at.length; k++) if (a.at[k] !== b.at[k] || !Object.is(a.delta[k], b.delta[k])) return false;
  return true;
}
