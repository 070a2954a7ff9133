/**
 * The rewards' seeds of credit's backward pass (credit.ts `propagate`), passed back in blocks whose
 * values a followed trace keeps between its analyses.
 *
 * Each reward seeds (its value less the mean of its channel's values) at the event its `target`
 * names, else at itself. The pass is linear in its seeds, so a seed of v - mean is passed back as
 * two: v - ref (ref: the channel's first value) and -(mean - ref) times a seed of 1, and the
 * rewards' value of an event is, over the blocks of rewards, sum(a - (mean - ref) * b), where a is
 * what the block's seeds of v - ref left at the event and b what seeds of 1 left there (ref keeps
 * a and b on the scale of the values' spread, not of their size: rewards of 1e9 +- 1 lose no
 * digit). A reward that comes moves its channel's mean, so every event's value changes, but only
 * its block is passed back again: the other blocks' a and b stand while their seeds and the
 * parents of the events they reach do, and the values are summed again from them (at 1M events the
 * bench trace's 1,636 rewards reach 569,326 events: passed back whole, a reward's append took
 * 40 ms more than another; by blocks, the last block and the sum take about 10).
 *
 * A whole analysis passes back every block the same way, so that a followed trace's figures are
 * its figures to the last bit.
 */
import { rewardPoints } from './outcome';
import type { PrefixCarry } from './prefix-carry';
import type { TraceIndex } from './trace-index';

/**
 * A followed trace's seed position of each reward its carry holds, by the reward's place among the
 * trace's rewards (-1: its target names an id no event carried yet). Looking each target up again
 * at each append was 3-7 ms of it at 1M events (1,636 rewards in an id table of a million).
 */
const seedsOf = new WeakMap<PrefixCarry, number[]>();

/** Some of a channel's rewards, in the order they come: seeds at `at` of `value` (the reward's value less its channel's first). */
export interface RewardBlock {
  channel: string;
  at: Int32Array;
  value: Float64Array;
  /** The highest seed position. */
  top: number;
}

/** The rewards' seeds in blocks (in order of channel, then of the rewards), and each channel's mean less its first value. */
export interface RewardPlan {
  blocks: RewardBlock[];
  baseline: Map<string, number>;
  /** The highest seed position (-1: none). */
  top: number;
  /** The sum of the seeds' sizes, |value - mean| (credit.ts EXACT_SUMS). */
  mass: number;
}

/** What a block's backward pass left: the positions it reached, in the order taken, with what the seeds of `value` (a) and of 1 (b) left at each. */
export interface BlockPass {
  reached: Int32Array;
  a: Float64Array;
  b: Float64Array;
}

/** The rewards' values of the pass, with the blocks' passes and lambda that gave them (a followed trace's carry keeps it: prefix-carry.ts). */
export interface RewardCredit {
  plan: RewardPlan;
  /** Each block's pass, in the plan's order. */
  passes: BlockPass[];
  lambda: number;
  /** Per position, the credit the rewards gave it (zeros past the positions analysed; room to grow). */
  values: Float64Array;
  /** The positions of the analysis that summed them (kept since by the later ones). */
  madeAt: number;
  /** The blocks' backward pass's scratch (two masses per position, side by side), zeros between passes (empty until a block was passed back). */
  mass: Float64Array;
}

/**
 * Rewards per block of a channel of `count` rewards: the least power of two at or above its square
 * root (a reward's append passes back one block of about sqrt(count) rewards, and sums as many blocks).
 */
export function rewardsPerBlock(count: number): number {
  let size = 1;
  while (size * size < count) size *= 2;
  return size;
}

/**
 * The rewards' seeds: every reward with a finite value of a channel of two rewards or more (a
 * channel's only reward is its own mean: it seeds nothing), in blocks of {@link rewardsPerBlock}.
 */
export function rewardPlan(index: TraceIndex): RewardPlan {
  const byChannel = new Map<string, { at: number[]; value: number[] }>();
  const carry = index.carry;
  let seeds = carry && seedsOf.get(carry);
  if (carry && !seeds) seedsOf.set(carry, (seeds = []));
  rewardPoints(index).forEach((r, k) => {
    let list = byChannel.get(r.channel);
    if (!list) byChannel.set(r.channel, (list = { at: [], value: [] }));
    // a seed found for a reward the carry holds stands (an id's position is its first event's); one whose target no event carried yet is looked for again
    let at = seeds && r.pos < carry!.count && k < seeds.length ? seeds[k] : -1;
    if (at === -1) {
      const target = index.event(r.pos).target;
      const found = typeof target === 'string' ? index.pos.get(target) : r.pos;
      at = found ?? r.pos;
      if (seeds && r.pos < carry!.count) seeds[k] = found ?? -1;
    }
    list.at.push(at);
    list.value.push(r.value);
  });
  const plan: RewardPlan = { blocks: [], baseline: new Map(), top: -1, mass: 0 };
  for (const [channel, { at, value }] of byChannel) {
    if (at.length < 2) continue;
    const ref = value[0];
    // the mean less the first value, summed once per channel (not once per reward: that is quadratic in the rewards)
    let sum = 0;
    for (const v of value) sum += v - ref;
    const baseline = sum / value.length;
    plan.baseline.set(channel, baseline);
    const size = rewardsPerBlock(at.length);
    for (let from = 0; from < at.length; from += size) {
      const block = { channel, at: Int32Array.from(at.slice(from, from + size)), value: Float64Array.from(value.slice(from, from + size), (v) => v - ref), top: -1 };
      for (const p of block.at) block.top = Math.max(block.top, p);
      plan.top = Math.max(plan.top, block.top);
      plan.blocks.push(block);
    }
    for (const v of value) plan.mass += Math.abs(v - ref - baseline);
  }
  return plan;
}

/**
 * The passes of `kept` (an earlier analysis of the same trace) that stand for the blocks of `plan`
 * (when all stand and the plans have as many blocks, the values stand too: a channel's baseline is
 * the mean of its blocks' values):
 * a block with the same channel and seeds (positions and values, in order), the same lambda, and
 * its seeds below `carriedBelow` (every position it reaches had its parents carried, not gathered
 * again: mass only moves to earlier positions). @returns per block of `plan`, the kept pass or undefined.
 */
export function keptPasses(kept: RewardCredit | undefined, plan: RewardPlan, lambda: number, carriedBelow: number): (BlockPass | undefined)[] {
  return plan.blocks.map((block, k) => {
    const was = kept?.plan.blocks[k];
    return kept && was && kept.lambda === lambda && block.top < carriedBelow && sameBlock(was, block) ? kept.passes[k] : undefined;
  });
}

function sameBlock(a: RewardBlock, b: RewardBlock): boolean {
  if (a.channel !== b.channel || a.at.length !== b.at.length) return false;
  for (let k = 0; k < a.at.length; k++) if (a.at[k] !== b.at[k] || !Object.is(a.value[k], b.value[k])) return false;
  return true;
}

/** Adds the rewards' value of every position the blocks reached to `values`: block by block, a - baseline * b. */
export function addRewardValues(plan: RewardPlan, passes: readonly BlockPass[], values: Float64Array): void {
  for (let k = 0; k < plan.blocks.length; k++) addBlockValues(values, passes[k], plan.baseline.get(plan.blocks[k].channel)!);
}

/**
 * One block's share of {@link addRewardValues}: a plain function's loop (it runs at a reward's append
 * only: in a closure called per block, V8 left it unoptimized and boxed each double read, 17 MB of
 * garbage per such append at 1M events).
 */
function addBlockValues(values: Float64Array, pass: BlockPass, baseline: number): void {
  const { reached, a, b } = pass;
  for (let j = 0; j < reached.length; j++) values[reached[j]] += a[j] - baseline * b[j];
}
