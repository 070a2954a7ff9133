/**
 * Stop data for training a stop policy (the survey's decision O5): one row per decision point of a
 * trace, with the state a stop policy could see there (features) and what hindsight says (labels).
 * Schema and formulas: docs/analysis.md, "Stop data for training". `otrace dataset stops` writes it.
 *
 * Decision points are the events of the lane that owns the stop decision ({@link stopOwner}). Features
 * at a point use only what happened up to and including it; labels use the whole run.
 * Cost: one pass over the trace plus a sweep over the loops' members, O(n + m log m) for m members.
 */
import { mainRewardSeries } from './outcome';
import { APPROVAL_TEXT, CRITIQUE_TEXT, ERROR_TEXT, REVIEWER_ROLE, VERIFY_TOOL } from './text';
import type { TraceIndex } from './trace-index';
import type { Analysis } from './types';
import { countsSteps } from '../trace/model';

/** Features of one decision point: what the stop policy sees at that event. */
export interface StopFeatures {
  /** Position of the event in time order over the whole trace (0-based). */
  event_index: number;
  /** Position among the owner lane's events (0-based). */
  lane_index: number;
  /** Time since the trace's first event, in `elapsed_unit`. */
  elapsed: number;
  /**
   * `seconds` when the trace has clock times; `steps` when its times count steps (Who&When's history
   * index: `metadata.time` 'step-index'); else `events` (events of the trace before this one).
   */
  elapsed_unit: 'seconds' | 'steps' | 'events';
  /** Tokens of every event up to and including this one (0 when the trace records none). */
  tokens_so_far: number;
  /** Agents delegated to or spawned that have not answered yet (return, despawn, or a message back). */
  open_delegations: number;
  /** Result of the last verification so far: a check tool call's result, or a reviewer's verdict; null when none. */
  last_check: 'pass' | 'fail' | null;
  /** Id of the event that gave `last_check`. */
  last_check_event: string | null;
  /**
   * As far as the past shows (a loop findLoops found is known once its second repetition has begun):
   * `in_loop` when a known loop had a member since the owner's previous decision point, `after_loop`
   * when loops are known but none was active since then, else `none`.
   */
  loop_state: 'none' | 'in_loop' | 'after_loop';
  /** Loops known so far (their second repetition has begun). */
  loops_so_far: number;
}

/** Labels of one decision point: what the run did and what hindsight says. */
export interface StopLabels {
  /** True at the point where the run stopped (the owner's last event at or before the run's final stop). */
  stop: boolean;
  /** True at the hindsight best stop (the owner's first event at or after analysis.best_stop). */
  best_stop: boolean;
  /** The run's outcome (`analysis.outcome.status`) and R in [-1, 1] (null when unknown). */
  outcome: Analysis['outcome']['status'];
  outcome_value: number | null;
  /** The finding at the run's final stop (ok, premature, delayed, no_stop). */
  stop_finding: string | null;
  /**
   * V_stop(s_t) = E[R | continue, s_t] − E[R | stop, s_t], by the hindsight formula of stops.ts: the
   * run's final reward minus the reward observed so far on the main reward channel. Null when the
   * trace records no rewards over time, or none has been observed yet at this point.
   */
  v_stop: number | null;
}

/** One row of the stop dataset. */
export interface StopRow {
  /** The trace file (as given to the command, relative to the directory searched when there was one). */
  trace: string;
  /** The lane whose events are the decision points. */
  owner: string;
  /** Id of the event. */
  event: string;
  type: string;
  features: StopFeatures;
  labels: StopLabels;
}

const DELEGATING = new Set(['spawn', 'delegate']);

/**
 * The lane that owns the stop decision: the agent that delegated or spawned most (the orchestrator or
 * main agent); else the agent of the run's last stop event (not an agent-scoped stop); else the agent
 * with most events that is not a tool lane. Undefined for an empty trace.
 */
export function stopOwner(index: TraceIndex): string | undefined {
  const delegations = new Map<string, number>();
  let lastStop: string | undefined;
  for (let i = 0; i < index.size; i++) {
    const agent = index.agentOf(i);
    if (DELEGATING.has(index.types[i]) && index.receiver(i)) delegations.set(agent, (delegations.get(agent) ?? 0) + 1);
    if (index.types[i] === 'stop' && index.extraOf(i, 'scope') !== 'agent') lastStop = agent;
  }
  let best: string | undefined;
  for (const [agent, n] of delegations) if (!best || n > delegations.get(best)!) best = agent;
  if (best) return best;
  if (lastStop && index.lanes.has(lastStop)) return lastStop;
  for (const [agent, lane] of index.lanes) if (!index.toolLanes.has(agent) && (!best || lane.length > index.lanes.get(best)!.length)) best = agent;
  return best;
}

/** What the trace's `t` count: a step index (an importer says so in `metadata.time`), clock seconds, or nothing (all equal). */
function timeUnit(index: TraceIndex): StopFeatures['elapsed_unit'] {
  if (countsSteps(index.loaded)) return 'steps';
  return index.size > 1 && index.tOf(index.size - 1) !== index.tOf(0) ? 'seconds' : 'events';
}

/** The verification an event reports: a check call's result, or a reviewer's verdict; undefined when it is none. */
function checkResult(index: TraceIndex, i: number): 'pass' | 'fail' | undefined {
  const type = index.types[i];
  if (type === 'tool_result') {
    const call = index.callOf(i);
    const tool = `${index.toolOf(i) ?? ''} ${call >= 0 ? `${index.toolOf(call) ?? ''} ${index.content(call).slice(0, 300)}` : ''}`;
    if (!VERIFY_TOOL.test(tool)) return undefined;
    const exitCode = index.extraOf(i, 'exit_code');
    const failed = (typeof exitCode === 'number' && exitCode !== 0) || ERROR_TEXT.test(index.content(i).slice(0, 2000)) || /\bfail(?:ed|s|ing|ure)?\b/i.test(index.content(i).slice(0, 2000));
    return failed ? 'fail' : 'pass';
  }
  if ((type === 'message' || type === 'return' || type === 'aggregate') && REVIEWER_ROLE.test(`${index.agentOf(i)} ${index.roleOf(i) ?? ''}`)) {
    const text = index.content(i).slice(0, 4000);
    if (CRITIQUE_TEXT.test(text)) return 'fail';
    if (APPROVAL_TEXT.test(text)) return 'pass';
  }
  return undefined;
}

/** The owner's event at or before `pos` (the last such), or with `after` at or after it (the first such); -1 when none. */
function ownerPoint(index: TraceIndex, owner: string, pos: number, after: boolean): number {
  if (pos < 0) return -1;
  if (pos < index.size && index.agentOf(pos) === owner) return pos;
  if (after) return index.nextInLane(owner, pos);
  const k = index.laneCountTo(owner, pos) - 1;
  return k >= 0 ? index.lanes.get(owner)![k] : -1;
}

/**
 * The rows of one analysed trace.
 * @param trace the name written in each row's `trace` field
 * @returns rows in time order; none for an empty trace
 */
export function stopRows(index: TraceIndex, analysis: Analysis, trace: string): StopRow[] {
  const owner = stopOwner(index);
  if (owner === undefined) return [];
  const unit = timeUnit(index);
  const t0 = index.size ? index.tOf(0) : 0;

  // labels: the run's final stop and the hindsight best stop, as owner points
  const finalStop = analysis.stops.length ? analysis.stops[analysis.stops.length - 1] : undefined;
  const posOfRaw = new Map<number, number>();
  for (let i = 0; i < index.size; i++) posOfRaw.set(index.at(i), i);
  const stopAt = finalStop ? ownerPoint(index, owner, posOfRaw.get(finalStop.index) ?? index.size - 1, false) : -1;
  const bestAt = analysis.best_stop ? ownerPoint(index, owner, posOfRaw.get(analysis.best_stop.index) ?? -1, true) : -1;
  const series = analysis.v_stop.available ? mainRewardSeries(index) : null;
  const finalReward = series ? series.points[series.points.length - 1].value : null;

  // loops as the past sees them: a loop is known once its second repetition begins (`seen`), and is
  // active at each of its members from then on; sorted by position for one sweep
  const seen: number[] = [];
  const active: number[] = [];
  for (const l of analysis.loops) {
    const ps = l.indices.map((k) => posOfRaw.get(k) ?? -1).filter((p) => p >= 0).sort((a, b) => a - b);
    if (ps.length < 2) continue;
    const known = ps[Math.min(Math.max(1, l.period), ps.length - 1)];
    seen.push(known);
    for (const p of ps) if (p >= known) active.push(p);
  }
  seen.sort((a, b) => a - b);
  active.sort((a, b) => a - b);

  const rows: StopRow[] = [];
  const open = new Set<string>();
  let tokens = 0;
  let check: { result: 'pass' | 'fail'; event: string } | null = null;
  let reward: number | null = null;
  let rewardK = 0;
  let loopK = 0;
  let activeK = 0;
  let lastActive = -1; // latest loop member known as one so far
  let previousPoint = -1; // the owner's previous decision point
  let lanePos = 0;
  for (let i = 0; i < index.size; i++) {
    const agent = index.agentOf(i);
    const type = index.types[i];
    tokens += index.tokens(i);
    const to = index.receiver(i);
    if (DELEGATING.has(type) && to) open.add(to);
    else if (type === 'despawn') open.delete(index.toOf(i) ?? agent);
    else if (open.has(agent) && (type === 'return' || (type === 'message' && (to === undefined || !open.has(to))))) open.delete(agent);
    const result = checkResult(index, i);
    if (result) check = { result, event: index.id(i) };
    while (series && rewardK < series.points.length && series.points[rewardK].pos <= i) reward = series.points[rewardK++].value;
    while (loopK < seen.length && seen[loopK] <= i) loopK++;
    while (activeK < active.length && active[activeK] <= i) lastActive = active[activeK++];
    if (agent !== owner) continue;
    const loopState: StopFeatures['loop_state'] = loopK === 0 ? 'none' : lastActive > previousPoint ? 'in_loop' : 'after_loop';
    previousPoint = i;
    rows.push({
      trace,
      owner,
      event: index.id(i),
      type,
      features: {
        event_index: i,
        lane_index: lanePos++,
        elapsed: unit === 'events' ? i : Math.round((index.tOf(i) - t0) * 1000) / 1000,
        elapsed_unit: unit,
        tokens_so_far: tokens,
        open_delegations: open.size,
        last_check: check?.result ?? null,
        last_check_event: check?.event ?? null,
        loop_state: loopState,
        loops_so_far: loopK,
      },
      labels: {
        stop: i === stopAt,
        best_stop: i === bestAt,
        outcome: analysis.outcome.status,
        outcome_value: analysis.outcome.value,
        stop_finding: finalStop?.finding ?? null,
        v_stop: finalReward !== null && reward !== null ? Math.round((finalReward - reward) * 1000) / 1000 : null,
      },
    });
  }
  return rows;
}
