/**
 * What the stop judgements of one trace share, built once (stops.ts): reward positions and their
 * suffix maximum, loops by last member, a prefix count of completion claims, and one forward sweep
 * of open spawns (stops are judged in time order).
 */
import { isAgentOutput } from './answer';
import { carriedSweep, type Sweep } from './carried-sweep';
import type { RewardPoint } from './outcome';
import { grownTo, toolLanesKey, withRoom } from './prefix-carry';
import { upperBound } from './sorted';
import { COMPLETION_CLAIM, IMPASSE_TEXT } from './text';
import type { TraceIndex } from './trace-index';
import type { Loop } from './types';

/** True when the event's content claims the task is done ({@link COMPLETION_CLAIM}); memoized per position. */
export function claimsCompletion(index: TraceIndex, i: number): boolean {
  const memo = index.memo.completionClaim;
  if (memo[i] === 0) memo[i] = COMPLETION_CLAIM.test(index.content(i)) ? 1 : 2;
  return memo[i] === 1;
}

/** True when the event's content states an impasse ({@link IMPASSE_TEXT}); memoized per position. */
export function statesImpasse(index: TraceIndex, i: number): boolean {
  const memo = index.memo.impasse;
  if (memo[i] === 0) memo[i] = IMPASSE_TEXT.test(index.content(i)) ? 1 : 2;
  return memo[i] === 1;
}

/** Last acts of an agent that mean it is still at work (it has not handed its output to anyone). */
const STILL_WORKING = new Set(['tool_call', 'tool_result', 'spawn', 'delegate']);

/** The completion claims' prefix count (a sweep: carried-sweep.ts): `counts[i]` = agent outputs claiming completion in [0, i). */
interface ClaimSweep extends Sweep {
  counts: Int32Array;
}

/** The spawned agents not returned yet after the positions swept, each with its spawn's position (a sweep: carried-sweep.ts). */
interface SpawnSweep extends Sweep {
  open: Map<string, number>;
}

/**
 * What the stop judgements share, built once so that each stop costs O(log n) lookups plus its own
 * segment: reward positions and their suffix maximum, loops by last member, a prefix count of
 * completion claims, and one forward sweep of open spawns (stops are judged in time order).
 */
export class StopContext {
  readonly rewards: RewardPoint[];
  private readonly rewardPos: Int32Array;
  /** Best reward value at or after reward k. */
  private readonly suffixBest: Float64Array;
  /** Loops by the position of their last member: [loop index in `loops`, first, last]. */
  private readonly loopsByLast: [number, number, number][];
  private readonly loopLast: Int32Array;
  /** claims[i] = agent outputs claiming completion in [0, i) (its first index.size + 1 entries). */
  private readonly claims: Int32Array;
  /** The open spawns' sweep, from the first stop asked about on ({@link openSpawns}). */
  private spawns: SpawnSweep | undefined;

  constructor(
    readonly index: TraceIndex,
    private readonly loops: Loop[],
    rewards: RewardPoint[],
  ) {
    this.rewards = rewards;
    this.rewardPos = Int32Array.from(rewards.map((r) => r.pos));
    this.suffixBest = new Float64Array(rewards.length + 1).fill(-Infinity);
    for (let k = rewards.length - 1; k >= 0; k--) this.suffixBest[k] = Math.max(rewards[k].value, this.suffixBest[k + 1]);
    this.loopsByLast = loops
      .map((l, k): [number, number, number] => [k, index.pos.get(l.events[0]) ?? -1, index.pos.get(l.events[l.events.length - 1]) ?? -1])
      .filter(([, first, last]) => first >= 0 && last >= 0)
      .sort((a, b) => a[2] - b[2]);
    this.loopLast = Int32Array.from(this.loopsByLast.map((x) => x[2]));
    // (whether a position is an agent's output depends on which lanes are tool lanes: the sweep's key)
    const n = index.size;
    const key = toolLanesKey(index.toolLanes);
    const claims = carriedSweep<ClaimSweep>(index, 'completionClaims', key, () => ({ swept: 0, key, carryable: true, counts: new Int32Array((index.carry ? withRoom(n) : n) + 1) }));
    // a sweep of its own, with room for the appends to come
    claims.counts = grownTo(claims.counts, n + 1, claims.swept + 1, (size) => new Int32Array(size));
    const counts = claims.counts;
    for (let i = claims.swept; i < n; i++) counts[i + 1] = counts[i] + (isAgentOutput(index, i) && claimsCompletion(index, i) ? 1 : 0);
    claims.swept = Math.max(claims.swept, n);
    this.claims = counts;
  }

  /** Agent outputs claiming completion in [from, to]. */
  claimsIn(from: number, to: number): number {
    return this.claims[to + 1] - this.claims[from];
  }

  /** The last reward at or before pos. */
  lastRewardBefore(pos: number): RewardPoint | undefined {
    const k = upperBound(this.rewardPos, pos);
    return k > 0 ? this.rewards[k - 1] : undefined;
  }

  /** The best reward value after pos (-Infinity when none). */
  bestRewardAfter(pos: number): number {
    return this.suffixBest[upperBound(this.rewardPos, pos)];
  }

  /** Rewards at positions in [from, to). */
  rewardsIn(from: number, to: number): RewardPoint[] {
    return this.rewards.slice(upperBound(this.rewardPos, from - 1), upperBound(this.rewardPos, to - 1));
  }

  /** The first loop (in the loops' own order) whose last member lies in [from, pos] and that `test` accepts. */
  loopEndingIn(from: number, pos: number, test: (l: Loop, first: number, last: number) => boolean): Loop | undefined {
    let best = -1;
    for (let k = upperBound(this.loopLast, from - 1); k < this.loopsByLast.length && this.loopsByLast[k][2] <= pos; k++) {
      const [li, first, last] = this.loopsByLast[k];
      if ((best === -1 || li < best) && test(this.loops[li], first, last)) best = li;
    }
    return best === -1 ? undefined : this.loops[best];
  }

  /**
   * Agents spawned before `pos` (by a spawn `keep` accepts) that had not returned (no return or
   * despawn) and were still at work: they act after the stop, never acted, or their last act before
   * it is not a hand-off of their output (a tool call or its result, a spawn or delegation of their
   * own). An agent whose last act was a message or return to another agent and went quiet is done.
   * Stops must be asked in time order (one sweep over the trace for all of them).
   */
  openSpawns(pos: number, keep: (i: number) => boolean): string[] {
    const { index } = this;
    // a sweep over spawns, returns and despawns, whose state after a position depends on the events up to it alone
    const sweep = (this.spawns ??= carriedSweep<SpawnSweep>(index, 'openSpawns', '', () => ({ swept: 0, key: '', carryable: true, open: new Map() }), pos + 1));
    const open = sweep.open;
    for (let i = sweep.swept; i <= pos; i++) {
      const type = index.types[i];
      // the event is read only for the three types the sweep changes with (a million reads of the others cost 15-20 ms)
      if (type !== 'spawn' && type !== 'return' && type !== 'despawn') continue;
      const agent = index.agentOf(i);
      const to = index.toOf(i);
      if (type === 'spawn' && to !== undefined && to !== agent) open.set(to, i);
      else if (type === 'return') {
        open.delete(index.fromOf(i) ?? agent);
        open.delete(agent);
      } else if (type === 'despawn') {
        open.delete(to ?? agent);
      }
    }
    sweep.swept = Math.max(sweep.swept, pos + 1);
    const still: string[] = [];
    for (const [agent, spawn] of open) {
      // only spawns made inside the stop's own scope (a sub-agent's stop does not answer for its siblings)
      if (!keep(spawn)) continue;
      const lane = index.lanes.get(agent) ?? [];
      const k = index.laneCountTo(agent, pos) - 1;
      const acting = k + 1 < lane.length; // it has an event after pos
      const last = k >= 0 && lane[k] > spawn ? lane[k] : -1;
      // still working: its last act is not a hand-off of its output (a tool call or result, a spawn or delegation of its own)
      const waiting = last !== -1 && STILL_WORKING.has(index.types[last]);
      if (acting || last === -1 || waiting) still.push(agent);
    }
    return still;
  }
}
