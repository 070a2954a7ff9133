/**
 * Stop findings: the survey's decision O5 at every stop, what each stop ends, its failure modes, the
 * hindsight best stop, the verification failures and an estimate of V_stop along the timeline.
 *
 * Stops are the trace's `stop` events (not those an agent made for itself only, `scope: "agent"`);
 * when it has none, or work with new content goes on after the last one, the trace's last event
 * stands for the run's stop (synthetic) and its reason is inferred from the last events' text.
 * Each stop ends a run, a turn or a phase (stop-scope.ts); only run stops are judged
 * (stop-verdicts.ts). A run stop is judged on its run since the last turn end: for a spawned
 * sub-agent, its own lane and its descendants'; for any other stop, every lane.
 * Verification failures: verification.ts; best stop: best-stop.ts.
 * V_stop(s_t) = E[R | continue, s_t] - E[R | stop, s_t] (the survey's gap), estimated from the one
 * recorded trajectory at each reward observation: E[R | stop] = the reward observed so far,
 * E[R | continue] = the reward the run finally reached (a single-sample Monte-Carlo estimate).
 */
import { carriedSweep, type Sweep } from './carried-sweep';
import { PauseClock, withoutPauses, type Pause } from './pauses';
import type { StopReason } from '../trace/schema';
import { AnswerStatements } from './answer-statement';
import { bestStopPoint } from './best-stop';
import { mainRewardSeries, traceOutcome, type RewardPoint } from './outcome';
import { COMPLETION_CLAIM } from './text';
import type { TraceIndex } from './trace-index';
import { StopContext } from './stop-context';
import { stopScopes } from './stop-scope';
import { judgeStop } from './stop-verdicts';
import type { BestStop, Loop, Outcome, Spent, StopFinding, VerificationFinding, VStop } from './types';
import { findVerification } from './verification';

export interface StopOptions {
  /** Fewest events after the done point for a delayed stop (default 3). */
  minWastedEvents?: number;
  /**
   * True when the trace's files are still being written (the engine says so of a file read as it
   * grew): its last event is not the run's end, so the end of the trace without a stop gets no
   * verdict ("no stop yet"), where a finished trace's is "no stop at end of trace". Default false.
   */
  inProgress?: boolean;
}

export interface StopAnalysis {
  stops: StopFinding[];
  verification: VerificationFinding[];
  bestStop: BestStop | null;
  vStop: VStop;
}

const NOT_WORK = new Set(['stop', 'reward', 'despawn']);

/**
 * True for an event that is work of the run: not a stop, reward or despawn, and not a row the
 * user or the harness wrote (local commands, meta rows, placeholders: the run does not go on
 * because of them).
 */
function isWork(index: TraceIndex, i: number): boolean {
  if (NOT_WORK.has(index.types[i])) return false;
  const kind = index.kindOf(i);
  return !(kind !== undefined && (kind === 'local_command' || kind === 'meta' || kind === 'placeholder' || kind === 'missing_parent'));
}

const REASON_PATTERNS: [StopReason, RegExp][] = [
  ['user_abort', /\b(?:interrupted|aborted|cancell?ed) by (?:the )?user\b|\[request interrupted/i],
  ['max_turns', /\bmax(?:imum)?[ _-]?(?:turns?|rounds?|steps?|iterations?)\b|\b(?:turn|round|step) limit\b|chat_turn_limit|\breached the (?:maximum|limit)\b/i],
  ['budget_exhausted', /\b(?:budget|token limit|context (?:window|length)|max(?:imum)? tokens|rate limit|quota)\b/i],
  ['timeout', /\btime ?out\b|\btimed out\b|\btime limit\b/i],
  ['loop_breaker', /\bloop detected\b|\bbreaking (?:the )?loop\b/i],
  ['task_complete', COMPLETION_CLAIM],
  ['error', /\btraceback \(most recent call last\)|\bexit ?code:? *[1-9]\d*|\b[A-Z]\w*Error:|\bfatal\b|\bcrash(?:ed)?\b/i],
];

/**
 * The stop reason the last events suggest: `task_complete` when the run ends with an aggregate (the
 * survey's implicit termination), else the first of user_abort, max_turns, budget_exhausted, timeout,
 * loop_breaker, task_complete, error whose words appear in `pos` or the 3 events before it.
 */
export function inferStopReason(index: TraceIndex, pos: number): StopReason {
  // the survey's schema has no stop event: a run ends with its aggregate
  if (index.types[pos] === 'aggregate') return 'task_complete';
  const from = Math.max(0, pos - 3);
  for (const [reason, re] of REASON_PATTERNS) {
    for (let i = pos; i >= from; i--) {
      const e = index.event(i);
      const text = `${index.content(i).slice(-2000)}\n${typeof e.detail === 'string' ? e.detail : ''}`;
      if (re.test(text)) return reason;
    }
  }
  return 'unknown';
}

/** Runs the stop analysis. `loops` come from {@link findLoops}; `outcome` from {@link traceOutcome}. */
export function analyzeStops(index: TraceIndex, loops: Loop[], outcome: Outcome = traceOutcome(index), options: StopOptions = {}): StopAnalysis {
  return withoutPauses(stopSteps(index, loops, outcome, options, new PauseClock(Infinity)));
}

/** {@link analyzeStops} with a pause between two stops' verdicts when `clock` says so (src/analysis/pauses.ts). */
export function* stopSteps(index: TraceIndex, loops: Loop[], outcome: Outcome, options: StopOptions, clock: PauseClock): Generator<Pause, StopAnalysis, void> {
  const minWasted = options.minWastedEvents ?? 3;
  const n = index.size;
  if (n === 0) return { stops: [], verification: [], bestStop: null, vStop: { available: false, points: [], note: 'empty trace' } };
  const { stops: stopPositions, spawnedBy } = runStops(index);
  const lastStop = stopPositions.length ? stopPositions[stopPositions.length - 1] : -1;
  // work after the last stop: an event with new content (a fingerprint not seen before); or work of the trace's own
  // run after its last stop, when a sub-agent's stop comes last: that stop ends the sub-agent's run, not the trace's
  // (a session whose main agent still waits on its Task call was shown as ended by its sub-agent's "task complete")
  let lastOwnStop = -1;
  for (let k = stopPositions.length - 1; k >= 0 && lastOwnStop === -1; k--) if (!spawnedBy.has(index.agentOf(stopPositions[k]))) lastOwnStop = stopPositions[k];
  let workAfter = false;
  for (let i = lastOwnStop + 1; i < n && !workAfter; i++) if ((i > lastStop || !spawnedBy.has(index.agentOf(i))) && index.firstSeen(i) === i && isWork(index, i)) workAfter = true;
  // the trace's end: its last event, or the last that is no stop (a sub-agent's stop at the end is judged as its own)
  let synthetic = -1;
  if (workAfter) for (let i = n - 1; i >= 0 && synthetic === -1; i--) if (index.types[i] !== 'stop' || isAgentScoped(index, i)) synthetic = i;
  const points = synthetic >= 0 ? [...stopPositions, synthetic].sort((a, b) => a - b) : stopPositions;
  // each pass over the events below is a seam (together one block of 60-100 ms at 1M events)
  if (clock.due()) yield* clock.pause();
  const series = mainRewardSeries(index);
  if (clock.due()) yield* clock.pause();
  const ctx = new StopContext(index, loops, series?.points ?? []);
  if (clock.due()) yield* clock.pause();
  const answers = new AnswerStatements(index);
  const spentIn = (from: number, to: number, startTime: number, keep?: (i: number) => boolean) => spent(index, from, to, startTime, keep);
  const judge = { ctx, answers, outcome, minWasted, spent: spentIn, inProgress: options.inProgress === true, cutOff: cutOffFiles(index) };
  // the run each stop belongs to: a spawned sub-agent's own, else the trace's ('')
  const keys = points.map((pos) => (pos !== synthetic && spawnedBy.has(index.agentOf(pos)) ? index.agentOf(pos) : ''));
  const scopes = stopScopes(index, points, keys, synthetic);
  const stops: StopFinding[] = [];
  const previous = new Map<string, number>();
  const turnEnd = new Map<string, number>();
  const signals = new Map<string, number[]>();
  const lanesOf = new Map<string, { lanes: Set<string>; first: number }>();
  for (let k = 0; k < points.length; k++) {
    if (clock.due()) yield* clock.pause();
    const pos = points[k];
    // A spawned sub-agent's run covers its own lane and its descendants' (at the earliest from their
    // first event: the segments of one sub-agent span its lifetime, so parallel sub-agents cost
    // O(n · w) for w at work at once); the trace's run covers every lane. A run stop is judged since
    // the last turn end of its run (a user's prompt starts new work); phases do not split it.
    const key = keys[k];
    let scope = key ? lanesOf.get(key) : undefined;
    if (key && !scope) {
      const lanes = descendants(spawnedBy, key);
      let first = index.size;
      for (const a of lanes) first = Math.min(first, index.lanes.get(a)?.[0] ?? index.size);
      lanesOf.set(key, (scope = { lanes, first }));
    }
    const start = scope ? Math.min(scope.first, pos) : 0;
    const since = scopes[k] === 'run' ? turnEnd.get(key) : previous.get(key);
    const from = Math.max((since ?? -1) + 1, start);
    previous.set(key, pos);
    if (scopes[k] === 'turn') turnEnd.set(key, pos);
    const lanes = scope?.lanes;
    // one closure shape for every segment (a second shape for whole-run stops makes each caller's compiled loops deopt)
    const keep = (i: number) => lanes === undefined || lanes.has(index.agentOf(i));
    let reason: StopReason = pos === synthetic ? 'unknown' : (index.reasonOf(pos) ?? 'unknown');
    let reasonSource: StopFinding['reason_source'] = 'recorded';
    if (reason === 'unknown') {
      reason = inferStopReason(index, pos);
      reasonSource = 'inferred';
    }
    const earlier = signals.get(key) ?? [];
    const judged = judgeStop(judge, { segment: { from, pos, keep, all: lanes === undefined }, scope: scopes[k], synthetic: pos === synthetic, reason, reasonSource, mainRun: key === '', earlierSignals: earlier });
    stops.push(key ? { ...judged, sub_agent: key } : judged);
    // a stop recorded as the run's end that the run went on after: a termination signal the run ignored
    if (scopes[k] === 'phase' && index.extraOf(pos, 'scope') === 'run') signals.set(key, [...earlier, pos]);
    if (scopes[k] === 'turn') signals.set(key, []);
  }
  if (clock.due()) yield* clock.pause();
  // the run's end: the last stop of the trace's own run (or its last event)
  let runK = -1;
  for (let k = points.length - 1; k >= 0 && runK === -1; k--) if (keys[k] === '') runK = k;
  const runEnd = runK >= 0 ? points[runK] : n - 1;
  const runStop = runK >= 0 ? stops[runK] : undefined;
  const concluded = runStop !== undefined && (runStop.reason === 'task_complete' || runStop.reason === 'quality_met') && !runStop.synthetic;
  const verification = findVerification(index, outcome, runEnd, runStop?.scope === 'run' && !runStop.synthetic ? runStop.reason : 'unknown');
  if (clock.due()) yield* clock.pause();
  // a file cut off, or still being written, with no stop of the run holds no end to find the answer it ended with
  const endKnown = !(runStop === undefined || runStop.synthetic) || !(judge.inProgress || judge.cutOff?.(runEnd) === true);
  const bestStop = bestStopPoint(index, series?.points ?? [], answers, runEnd, concluded, endKnown, (i) => isWork(index, i), spentIn);
  return { stops, verification, bestStop, vStop: estimateVStop(index, series) };
}

/** The stops of runs and who spawned whom, read so far (a sweep: carried-sweep.ts). */
interface RunStopSweep extends Sweep {
  /** Positions of the stops of runs (not those an agent made for itself only), ascending. */
  stops: number[];
  /** Spawned agent -> the agent that spawned it (`to` of its first spawn event). */
  spawnedBy: Map<string, string>;
}

/** The stops of runs and who spawned whom: one sweep per analysis, which a followed trace's carry keeps (each depends on one event). */
function runStops(index: TraceIndex): { stops: readonly number[]; spawnedBy: ReadonlyMap<string, string> } {
  const sweep = carriedSweep<RunStopSweep>(index, 'runStops', '', () => ({ swept: 0, key: '', carryable: true, stops: [], spawnedBy: new Map() }));
  const { stops, spawnedBy } = sweep;
  for (let i = sweep.swept, n = index.size; i < n; i++) {
    const type = index.types[i];
    if (type === 'stop' && !isAgentScoped(index, i)) stops.push(i);
    else if (type === 'spawn') {
      const agent = index.agentOf(i);
      const to = index.toOf(i);
      if (to !== undefined && to !== agent && !spawnedBy.has(to)) spawnedBy.set(to, agent);
    }
  }
  sweep.swept = Math.max(sweep.swept, index.size);
  return sweep;
}

/** An agent and every agent it spawned, transitively. */
function descendants(parents: ReadonlyMap<string, string>, agent: string): Set<string> {
  const out = new Set([agent]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, parent] of parents) if (out.has(parent) && !out.has(child)) {
      out.add(child);
      grew = true;
    }
  }
  return out;
}

/** A stop an agent made for itself only (`scope: "agent"`), not a stop of the run. */
function isAgentScoped(index: TraceIndex, i: number): boolean {
  return index.extraOf(i, 'scope') === 'agent';
}

/**
 * The events, tokens and seconds of the work in positions [from, to] (rewards and events `keep`
 * refuses are no work): the seconds run from `startTime` to the end of the last event counted, so a
 * trailing reward (a judge's score) adds no time the events do not (the delayed stop and the best
 * stop say the same span alike).
 */
function spent(index: TraceIndex, from: number, to: number, startTime: number, keep: (i: number) => boolean = () => true): Spent {
  let events = 0;
  let tokens = 0;
  let last = -1;
  for (let i = from; i <= to; i++) {
    if (index.types[i] === 'reward' || !keep(i)) continue;
    events++;
    tokens += index.tokens(i);
    last = i;
  }
  const endTime = last !== -1 ? index.end(last) : startTime;
  return { events, tokens, seconds: round(Math.max(0, endTime - startTime)) };
}

function estimateVStop(index: TraceIndex, series: { channel: string; points: RewardPoint[] } | null): VStop {
  if (!series) {
    const trace = index.loaded.trace;
    const hasFinal = Object.keys(trace.rewards ?? {}).length > 0 || typeof trace.metrics?.task_success === 'number';
    return {
      available: false,
      points: [],
      note: hasFinal
        ? 'only a final, trace-level reward: V_stop needs rewards observed over time, so it is not estimated'
        : 'no reward signal in the trace: V_stop is not estimated',
    };
  }
  const final = series.points[series.points.length - 1].value;
  const points = series.points.map((p) => ({
    event: index.id(p.pos),
    t: index.tOf(p.pos),
    continue: final,
    stop: p.value,
    value: round(final - p.value),
  }));
  return {
    available: true,
    channel: series.channel,
    points,
    note: `from ${points.length} reward observation${points.length > 1 ? 's' : ''} on channel "${series.channel}": E[R|stop] = reward so far, E[R|continue] = the final reward of this run (one-sample estimate)`,
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Whether the end of the run at a position is cut off: the opened file ends in a cut-off line (the
 * reader's `unterminated` problem: the run's own record stops mid-record), or the file of the
 * position's event does (a sub-agent's file the problem names). Undefined when no file is cut off.
 */
function cutOffFiles(index: TraceIndex): ((pos: number) => boolean) | undefined {
  const files = new Set(index.loaded.problems.filter((p) => p.unterminated).map((p) => p.file ?? ''));
  if (files.size === 0) return undefined;
  if (files.has('')) return () => true;
  return (pos) => files.has(index.loaded.eventOrigins.get(index.at(pos))?.file ?? '');
}
