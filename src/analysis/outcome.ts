/**
 * The outcome signal a trace carries about itself, and its reward series.
 *
 * Read, in this order: `metrics.task_success`; the trace-level rewards `team`, `task`, `outcome`,
 * `success`; the last reward event on an outcome channel (`team`, `task`, `outcome`, `success`,
 * `final` or none); a final stop with reason `error`. Never `metadata` (it holds ground-truth labels).
 * R for credit: +1 success, -1 failure; a value v in [0, 1] gives 2v - 1 (so 0.5 is neutral).
 */
import type { Outcome } from './types';
import type { TraceIndex } from './trace-index';
import { carriedList } from './carried-sweep';

/** Reward channels that score the whole task (as opposed to process, tool or orchestration). */
export const OUTCOME_CHANNELS = new Set(['team', 'task', 'outcome', 'success', 'final', '']);

/** One reward observation on the timeline. */
export interface RewardPoint {
  pos: number;
  value: number;
  channel: string;
}

/** The reward points of each index, read once (the outcome, the stops' reward series and credit each ask). */
const pointsOf = new WeakMap<TraceIndex, readonly RewardPoint[]>();

/**
 * Reward events in time order (those with a finite numeric `value`): the same list for each call on
 * one index, not to be changed. Found by a sweep that a followed trace keeps (a point is its own
 * event's), so that an append reads its new positions only (a pass over the events was 5-7 ms per
 * append at 1M).
 */
export function rewardPoints(index: TraceIndex): readonly RewardPoint[] {
  let out = pointsOf.get(index);
  if (out) return out;
  // this index's own copy: the sweep's list grows with the next append
  pointsOf.set(index, (out = carriedList(index, 'rewardPoints', '', rewardPointAt).slice()));
  return out;
}

/** The reward point of position `i`, if its event is a reward with a finite numeric value. */
function rewardPointAt(index: TraceIndex, i: number): RewardPoint | undefined {
  if (index.types[i] !== 'reward') return undefined;
  const e = index.event(i);
  return typeof e.value === 'number' && Number.isFinite(e.value) ? { pos: i, value: e.value, channel: e.channel ?? '' } : undefined;
}

/** The reward series used for stop decisions: the outcome channels, else the busiest channel. */
export function mainRewardSeries(index: TraceIndex): { channel: string; points: RewardPoint[] } | null {
  const all = rewardPoints(index);
  if (all.length === 0) return null;
  const outcome = all.filter((p) => OUTCOME_CHANNELS.has(p.channel));
  if (outcome.length) return { channel: outcome[outcome.length - 1].channel || 'outcome', points: outcome };
  const byChannel = new Map<string, RewardPoint[]>();
  for (const p of all) {
    let list = byChannel.get(p.channel);
    if (!list) byChannel.set(p.channel, (list = []));
    list.push(p);
  }
  let best: [string, RewardPoint[]] | undefined;
  for (const entry of byChannel) if (!best || entry[1].length > best[1].length) best = entry;
  return best ? { channel: best[0], points: best[1] } : null;
}

function fromValue(v: number, source: string): Outcome {
  if (v >= 1) return { status: 'success', value: 1, source };
  if (v <= 0) return { status: 'failure', value: -1, source };
  return { status: 'partial', value: 2 * v - 1, source };
}

/** The trace's own outcome signal; `unknown` (value null) when it has none. */
export function traceOutcome(index: TraceIndex): Outcome {
  const trace = index.loaded.trace;
  const metrics = trace.metrics ?? {};
  // an importer names where it read the outcome (`is_correct: false`): a field the user can find in the file
  if (typeof metrics.task_success === 'number' && Number.isFinite(metrics.task_success)) return fromValue(metrics.task_success, trace.outcome_source ?? 'metrics.task_success');
  const rewards = trace.rewards ?? {};
  for (const key of ['team', 'task', 'outcome', 'success']) {
    const v = rewards[key];
    if (typeof v === 'number' && Number.isFinite(v)) return fromValue(v, `rewards.${key}`);
  }
  const points = rewardPoints(index).filter((p) => OUTCOME_CHANNELS.has(p.channel));
  if (points.length) {
    const last = points[points.length - 1];
    return fromValue(last.value, `reward event ${index.id(last.pos)}`);
  }
  for (let i = index.size - 1; i >= 0; i--) {
    if (index.types[i] !== 'stop') continue;
    if (index.reasonOf(i) === 'error') {
      const api = index.kindOf(i) === 'api_error';
      return { status: 'failure', value: -1, source: `stop ${index.id(i)} (error${api ? ', an API error: not an agent failure' : ''})`, fromStop: true, ...(api ? { notAgentFailure: true as const } : {}) };
    }
    break;
  }
  return { status: 'unknown', value: null, source: 'no outcome signal in the trace' };
}
