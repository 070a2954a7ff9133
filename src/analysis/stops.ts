/**
 * Stop findings: the survey's decision O5 at every stop, its three failure modes, the hindsight best
 * stop point and an estimate of V_stop along the timeline.
 *
 * Stops are the trace's `stop` events; when it has none (or work goes on after the last one), the
 * trace's last event stands for the stop and its reason is inferred from the last events' text.
 * Each stop is judged on its segment: for a spawned sub-agent, its own lane and its descendants'
 * since its previous stop; for any other stop, every lane since the previous such stop:
 * - no_stop: no stop event and no completion claim at the end, or the segment ends inside an
 *   unresolved loop of >= 3 repetitions or >= 4 events (unless a loop breaker stopped it).
 *   Wasted = the loop's repetitions. Stops with `scope: "agent"` (an agent ending its own part)
 *   are not stops of the run; new content after the last stop makes the end of the trace a stop too.
 * - premature: spawned agents had not returned (no return/despawn) and were still at work at the
 *   stop; or the last state change (an edit/write/patch tool call) was followed by no verification
 *   (a test/check/build call, a call whose arguments are redacted, an aggregate, a reward, or another
 *   agent's verifying message); or the reward at the stop is below
 *   the trace's own success signal (a later reward was higher, or the outcome is a failure while the
 *   stop claims completion).
 *   Also no_stop: a hand-set limit (max_turns, budget_exhausted, timeout) ended a segment of >= 4
 *   agent outputs none of which concluded (no completion claim): the agents never stopped themselves;
 *   or a limit ended the segment holding a loop's last member and nothing in the loop's span claims
 *   completion (a repeated cycle cut by a limit; MAST 1.5).
 *   Also premature at the run's last stop (MAST 3.1): a reviewer's last verdict is an uncleared
 *   critique, or the last agent output states an impasse (lacks information, cannot proceed).
 * - delayed: work went on after the task was done: the earliest of the first completion claim (an
 *   agent's own output, not a sub-agent's return), the
 *   last reward improvement and the final answer's first appearance; delayed when at least
 *   `minWastedEvents` events (and 10 % of the segment) follow it before the stop; or a termination
 *   signal (completion claim, or impasse) was repeated in the segment with another agent's output in
 *   between (the first was ignored; MAST 1.5).
 * V_stop(s_t) = E[R | continue, s_t] - E[R | stop, s_t] (the survey's gap), estimated from the one
 * recorded trajectory at each reward observation: E[R | stop] = the reward observed so far,
 * E[R | continue] = the reward the run finally reached (a single-sample Monte-Carlo estimate).
 */
import type { StopReason } from '../trace/schema';
import { finalAnswer, firstAppearance, isAgentOutput, isNotAgentOutput } from './answer';
import { mainRewardSeries, traceOutcome, type RewardPoint } from './outcome';
import { opensDelegation } from './loops';
import { APPROVAL_TEXT, ERROR_TEXT, COMPLETION_CLAIM, CRITIQUE_TEXT, IMPASSE_TEXT, REVIEWER_ROLE, VERIFICATION_TEXT, VERIFY_TOOL } from './text';
import type { TraceIndex } from './trace-index';
import { isStateChange } from './state-change';
import type { BestStop, Loop, Outcome, Spent, StopFinding, VStop } from './types';
import { formatAt, formatSpent, timeUnitOf } from '../trace/units';
import { recordsTokens } from '../trace/tokens';
import { upperBound } from './sorted';

export interface StopOptions {
  /** Fewest events after the done point for a delayed stop (default 3). */
  minWastedEvents?: number;
}

export interface StopAnalysis {
  stops: StopFinding[];
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
  const e = index.events[i];
  return !(e.kind !== undefined && (e.kind === 'local_command' || e.kind === 'meta' || e.kind === 'placeholder' || e.kind === 'missing_parent'));
}
/** True when the event's content claims the task is done ({@link COMPLETION_CLAIM}); memoized per position. */
function claimsCompletion(index: TraceIndex, i: number): boolean {
  const memo = index.memo.completionClaim;
  if (memo[i] === 0) memo[i] = COMPLETION_CLAIM.test(index.content(i)) ? 1 : 2;
  return memo[i] === 1;
}

/** True when the event's content states an impasse ({@link IMPASSE_TEXT}); memoized per position. */
function statesImpasse(index: TraceIndex, i: number): boolean {
  const memo = index.memo.impasse;
  if (memo[i] === 0) memo[i] = IMPASSE_TEXT.test(index.content(i)) ? 1 : 2;
  return memo[i] === 1;
}

/** Content that was redacted or left out, so it cannot show what a call did. */
const OPAQUE = /^\s*(?:\[REDACTED[^\]]*\]\s*)?$/;
const LIMIT_REASONS = new Set<StopReason>(['max_turns', 'budget_exhausted', 'timeout']);

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
      const e = index.events[i];
      const text = `${index.content(i).slice(-2000)}\n${typeof e.detail === 'string' ? e.detail : ''}`;
      if (re.test(text)) return reason;
    }
  }
  return 'unknown';
}

/** Runs the stop analysis. `loops` come from {@link findLoops}; `outcome` from {@link traceOutcome}. */
export function analyzeStops(index: TraceIndex, loops: Loop[], outcome: Outcome = traceOutcome(index), options: StopOptions = {}): StopAnalysis {
  const minWasted = options.minWastedEvents ?? 3;
  const n = index.size;
  if (n === 0) return { stops: [], bestStop: null, vStop: { available: false, points: [], note: 'empty trace' } };
  const stopPositions: number[] = [];
  for (let i = 0; i < n; i++) if (index.types[i] === 'stop' && !isAgentScoped(index, i)) stopPositions.push(i);
  const lastStop = stopPositions.length ? stopPositions[stopPositions.length - 1] : -1;
  // work after the last stop: an event with new content (a fingerprint not seen before)
  let workAfter = false;
  for (let i = lastStop + 1; i < n; i++) if (isWork(index, i) && index.firstSeen(i) === i) workAfter = true;
  const synthetic = workAfter ? n - 1 : -1;
  const points = synthetic >= 0 ? [...stopPositions, synthetic] : stopPositions;
  const series = mainRewardSeries(index);
  const spawnedBy = spawnParents(index);
  const ctx = new StopContext(index, loops, series?.points ?? []);
  const stops: StopFinding[] = [];
  const previous = new Map<string, number>();
  const scopes = new Map<string, { lanes: Set<string>; first: number }>();
  for (const pos of points) {
    // A spawned sub-agent's stop covers its own lane and its descendants' since its previous stop
    // (at the earliest from their first event: the segments of one sub-agent span its lifetime, so
    // parallel sub-agents cost O(n · w) for w at work at once); any other stop covers every lane
    // since the previous such stop.
    const owner = index.events[pos].agent;
    const sub = pos !== synthetic && spawnedBy.has(owner);
    const key = sub ? owner : '';
    let scope = sub ? scopes.get(owner) : undefined;
    if (sub && !scope) {
      const lanes = descendants(spawnedBy, owner);
      let first = index.size;
      for (const a of lanes) first = Math.min(first, index.lanes.get(a)?.[0] ?? index.size);
      scopes.set(owner, (scope = { lanes, first }));
    }
    const from = Math.max((previous.get(key) ?? -1) + 1, scope ? Math.min(scope.first, pos) : 0);
    previous.set(key, pos);
    const lanes = scope?.lanes;
    // one closure shape for every segment (a second shape for whole-run stops makes each caller's compiled loops deopt)
    const keep = (i: number) => lanes === undefined || lanes.has(index.events[i].agent);
    stops.push(judgeStop(ctx, outcome, { from, pos, keep }, pos === synthetic, pos === points[points.length - 1], minWasted));
  }
  return { stops, bestStop: bestStopPoint(index, series?.points ?? []), vStop: estimateVStop(index, series) };
}

/**
 * How a run without a stop ended, from what the file records: a root span still open (`open` on an
 * event without a parent) and a last action that is a tool call with no result (`call_status`
 * `in_progress` when the file is still being written). Undefined when neither holds.
 */
function howItEnded(index: TraceIndex, segment: Segment): string | undefined {
  const { from, pos, keep } = segment;
  let rootOpen = false;
  for (let i = from; i <= pos; i++) if (keep(i) && index.events[i].open === true && index.events[i].parent === undefined) rootOpen = true;
  let last = -1;
  for (let i = pos; i >= from && last === -1; i--) if (keep(i) && index.types[i] !== 'stop') last = i;
  const call = last !== -1 && index.types[last] === 'tool_call' && index.resultOf(last) === -1 ? index.events[last] : undefined;
  if (call?.call_status === 'in_progress') return `the file is still being written: the run is in progress${rootOpen ? ' with the root open' : ''}, its last action a tool call awaiting its result`;
  if (rootOpen && call) return 'run ended with the root still open, last action a tool call with no result (it ended during a tool call)';
  if (rootOpen) return 'run ended with the root still open';
  if (call) return 'run ended during a tool call: last action a tool call with no result';
  return undefined;
}

/** Spawned agent -> the agent that spawned it (`to` of spawn events). */
function spawnParents(index: TraceIndex): Map<string, string> {
  const parents = new Map<string, string>();
  for (let i = 0; i < index.size; i++) {
    const e = index.events[i];
    if (index.types[i] === 'spawn' && typeof e.to === 'string' && e.to !== e.agent && !parents.has(e.to)) parents.set(e.to, e.agent);
  }
  return parents;
}

/** An agent and every agent it spawned, transitively. */
function descendants(parents: Map<string, string>, agent: string): Set<string> {
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

/** How many positions in [from, to] `keep` accepts. */
function countKept(keep: (i: number) => boolean, from: number, to: number): number {
  let count = 0;
  for (let i = from; i <= to; i++) if (keep(i)) count++;
  return count;
}

/** A stop segment: positions [from, pos] that `keep` accepts. */
interface Segment {
  from: number;
  pos: number;
  keep: (i: number) => boolean;
}

/** A stop an agent made for itself only (`scope: "agent"`), not a stop of the run. */
function isAgentScoped(index: TraceIndex, i: number): boolean {
  const scope = (index.events[i] as { scope?: unknown }).scope;
  return scope === 'agent';
}

function spent(index: TraceIndex, from: number, to: number, startTime: number, keep: (i: number) => boolean = () => true): Spent {
  let events = 0;
  let tokens = 0;
  for (let i = from; i <= to; i++) {
    if (index.types[i] === 'reward' || !keep(i)) continue;
    events++;
    tokens += index.tokens(i);
  }
  const endTime = to >= from ? index.end(to) : startTime;
  return { events, tokens, seconds: round(Math.max(0, endTime - startTime)) };
}

const ZERO: Spent = { events: 0, tokens: 0, seconds: 0 };

function judgeStop(ctx: StopContext, outcome: Outcome, segment: Segment, synthetic: boolean, isLast: boolean, minWasted: number): StopFinding {
  const { index } = ctx;
  const { from, pos, keep } = segment;
  const e = index.events[pos];
  let reason: StopReason = synthetic ? 'unknown' : (e.reason ?? 'unknown');
  let reasonSource: StopFinding['reason_source'] = 'recorded';
  if (reason === 'unknown') {
    const inferred = inferStopReason(index, pos);
    reasonSource = 'inferred';
    reason = inferred;
  }
  const evidence: string[] = [];
  const modes: StopFinding['modes'] = [];
  let wasted: Spent = ZERO;

  // no stop
  const claimsDone = reason === 'task_complete' || reason === 'quality_met';
  if (synthetic && !claimsDone) {
    modes.push('no_stop');
    evidence.push(`the trace ends without a stop event${reason !== 'unknown' ? ` (last events suggest ${reason})` : ''}`);
    const end = howItEnded(index, segment);
    if (end) evidence.push(end);
  }
  // a loop the run ended in: unresolved and more than a single echo (>= 3 repetitions or >= 4 events)
  const endLoop = ctx.loopEndingIn(from, pos, (l) => l.unresolved && (l.repetitions >= 3 || l.events.length >= 4));
  if (endLoop && reason !== 'loop_breaker') {
    if (!modes.includes('no_stop')) modes.push('no_stop');
    evidence.push(`the trace ended inside a loop (${endLoop.kind}, ${endLoop.repetitions} repetitions)`);
    const repeated = Math.round((endLoop.events.length * (endLoop.repetitions - 1)) / endLoop.repetitions);
    wasted = { events: repeated, tokens: endLoop.tokens, seconds: endLoop.seconds };
  }

  // a hand-set limit ended a conversation in which the agents never concluded
  if (!modes.includes('no_stop') && LIMIT_REASONS.has(reason)) {
    const turns = unconcludedExchange(index, segment);
    if (turns >= 4) {
      modes.push('no_stop');
      evidence.push(`a ${reason} limit ended an exchange of ${turns} turns in which the agents never concluded`);
    }
  }

  // a hand-set limit cut a repeated cycle (a loop ending in this segment) that the agents never concluded
  if (!modes.includes('no_stop') && LIMIT_REASONS.has(reason)) {
    const cut = limitEndedLoop(ctx, segment);
    if (cut) {
      modes.push('no_stop');
      evidence.push(`a ${reason} limit ended a repeated cycle (${cut.kind}, ${cut.repetitions} repetitions) in which the agents never concluded`);
      const repeated = Math.round((cut.events.length * (cut.repetitions - 1)) / cut.repetitions);
      wasted = { events: repeated, tokens: cut.tokens, seconds: cut.seconds };
    }
  }

  // A stop the user decided (an interruption) is the user's choice, not an agent failure.
  if (!synthetic && (e.kind === 'interruption' || (reason === 'user_abort' && e.decided_by === 'user'))) {
    const denied = deniedCalls(index, segment);
    const message = `stop (${reason}): the user stopped the run${denied.length ? ` and refused ${denied.map((d) => index.id(d)).join(', ')}` : ''}; not an agent failure`;
    return { event: index.id(pos), index: index.at(pos), synthetic, reason, reason_source: reasonSource, finding: 'ok', modes: [], evidence: [message], wasted: ZERO, message };
  }

  // premature
  const open = ctx.openSpawns(pos, keep);
  if (open.length) {
    modes.push('premature');
    evidence.push(`${open.length} spawned agent${open.length > 1 ? 's' : ''} had not returned: ${open.join(', ')}`);
    for (const agent of open) {
      const failed = lastFailedCheck(index, agent, pos);
      if (failed !== -1) evidence.push(`${agent}'s last check failed (${index.id(failed)})`);
    }
  }
  const unverified = unverifiedChange(index, segment);
  const unverifiedIndex = unverified === -1 ? undefined : index.at(unverified);
  if (unverified !== -1) {
    if (!modes.includes('premature')) modes.push('premature');
    const change = index.events[unverified];
    // named by what it was and when (ids are uuids a reader cannot place)
    evidence.push(`no test or check ran after the last change (${change.tool ?? change.type} by ${change.agent} at ${formatAt(change.t, timeUnitOf(index.loaded))})`);
  }
  const atStop = ctx.lastRewardBefore(pos);
  const laterBest = ctx.bestRewardAfter(pos);
  if (atStop !== undefined && laterBest > atStop.value) {
    if (!modes.includes('premature')) modes.push('premature');
    evidence.push(`reward at the stop ${atStop.value} is below the ${laterBest} reached later`);
  } else if (isLast && claimsDone && (outcome.status === 'failure' || outcome.status === 'partial')) {
    if (!modes.includes('premature')) modes.push('premature');
    evidence.push(`the stop claims ${reason} but the outcome is a ${outcome.status} (${outcome.source})`);
  }

  if (isLast) {
    const critique = unresolvedCritique(index, pos);
    if (critique !== -1) {
      if (!modes.includes('premature')) modes.push('premature');
      evidence.push(`the run ended while ${index.events[critique].agent}'s last review (${index.id(critique)}) raised issues that no later review of theirs cleared`);
    }
    const impasse = endsAtImpasse(index, segment);
    if (impasse !== -1) {
      if (!modes.includes('premature')) modes.push('premature');
      evidence.push(`the run ended right after ${index.events[impasse].agent} said it could not go on without more information (${index.id(impasse)})`);
    }
  }

  // delayed
  let done = donePoint(ctx, segment);
  let doneAt: string | undefined;
  let donePos = -1;
  let doneBasis: StopFinding['done_basis'];
  const ignored = ignoredSignal(index, segment);
  if (ignored) {
    modes.push('delayed');
    doneAt = index.id(ignored.first);
    donePos = ignored.first;
    doneBasis = ignored.basis;
    evidence.push(`a termination signal (${ignored.basis.replace('_', ' ')}) at ${doneAt} was repeated ${ignored.count} times while the exchange went on`);
    if (!modes.includes('no_stop')) wasted = spent(index, ignored.first + 1, pos - (synthetic ? 0 : 1), index.end(ignored.first), keep);
    done = undefined;
  }
  if (done) {
    const after = spent(index, done.pos + 1, pos - (synthetic ? 0 : 1), index.end(done.pos), keep);
    const segmentEvents = countKept(keep, from, done.pos);
    if (after.events >= minWasted && after.events >= 0.1 * segmentEvents) {
      modes.push('delayed');
      doneAt = index.id(done.pos);
      donePos = done.pos;
      doneBasis = done.basis;
      evidence.push(`work went on after the task was done at ${doneAt} (${done.basis.replace('_', ' ')}): ${formatSpent(after, timeUnitOf(index.loaded), recordsTokens(index.loaded.trace.events))}`);
      if (!modes.includes('no_stop')) wasted = after;
    }
  }

  const finding = modes.includes('no_stop') ? 'no_stop' : modes.includes('premature') ? 'premature' : modes.includes('delayed') ? 'delayed' : 'ok';
  if (finding === 'premature') wasted = ZERO;
  const label = synthetic ? 'end of trace' : `stop (${reason}${reasonSource === 'inferred' ? ', inferred' : ''})`;
  const message =
    finding === 'ok'
      ? `${label}: no stop failure found`
      : `${finding.replace('_', ' ')}${finding === 'no_stop' ? '' : ' stop'} at ${label}: ${evidence.join('; ')}`;
  const result: StopFinding = { event: index.id(pos), index: index.at(pos), synthetic, reason, reason_source: reasonSource, finding, modes, evidence, wasted, message };
  if (doneAt) {
    result.done_at = doneAt;
    result.done_index = index.at(donePos);
    result.done_basis = doneBasis;
  }
  if (open.length) result.open_spawns = open;
  if (finding === 'premature' && unverifiedIndex !== undefined) result.unverified_index = unverifiedIndex;
  return result;
}

/** The agent's last tool result before `pos` when it reports an error or a failure, else -1. */
function lastFailedCheck(index: TraceIndex, agent: string, pos: number): number {
  const lane = index.lanes.get(agent) ?? [];
  for (let k = index.laneCountTo(agent, pos) - 1; k >= 0; k--) {
    const i = lane[k];
    if (index.types[i] !== 'tool_result') continue;
    return ERROR_TEXT.test(index.content(i).slice(0, 2000)) ? i : -1;
  }
  return -1;
}


/**
 * Longest run of agent outputs in the segment alternating between the same two agents
 * (A, B, A, B, ...), or 0 when any output of the segment claims completion.
 */
function unconcludedExchange(index: TraceIndex, { from, pos, keep }: Segment): number {
  let best = 0;
  let run = 0;
  let prev = '';
  let prevPrev = '';
  for (let i = from; i < pos; i++) {
    if (!keep(i) || !isAgentOutput(index, i)) continue;
    const type = index.types[i];
    if (type !== 'message' && type !== 'orchestrator_decision' && type !== 'aggregate') continue;
    if (claimsCompletion(index, i)) return 0;
    const agent = index.events[i].agent;
    if (agent === prev) continue; // the same speaker again is not a new turn
    run = run >= 1 && agent === prevPrev ? run + 1 : prev ? 2 : 1;
    prevPrev = prev;
    prev = agent;
    best = Math.max(best, run);
  }
  return best;
}

/**
 * A loop whose last member lies in the segment and in whose span (its first member to the stop) no
 * agent output claims completion: the cycle went on until a limit cut it. Loops of a single echo
 * (< 3 repetitions and < 4 events) do not count.
 */
function limitEndedLoop(ctx: StopContext, { from, pos, keep }: Segment): Loop | undefined {
  return ctx.loopEndingIn(from, pos, (l, first, last) => (l.repetitions >= 3 || l.events.length >= 4) && keep(last) && ctx.claimsIn(first, pos) === 0);
}

/**
 * A termination signal said again and again: >= 2 agent outputs in [from, pos) claiming completion, or
 * >= 2 stating an impasse, with another agent's output between the first and the last (so the
 * exchange went on past the first). Returns the first signal, its kind and how many there were.
 */
function ignoredSignal(index: TraceIndex, { from, pos, keep }: Segment): { first: number; basis: 'completion_claim' | 'impasse'; count: number } | undefined {
  for (const [basis, says] of [['completion_claim', claimsCompletion], ['impasse', statesImpasse]] as const) {
    const signals: number[] = [];
    for (let i = from; i < pos; i++) {
      if (!keep(i) || !isAgentOutput(index, i) || index.types[i] === 'return') continue;
      if (says(index, i)) signals.push(i);
    }
    if (signals.length < 2) continue;
    const first = signals[0];
    const last = signals[signals.length - 1];
    const signalers = new Set(signals.map((i) => index.events[i].agent));
    let between = false;
    for (let i = first + 1; i < last && !between; i++) if (keep(i) && isAgentOutput(index, i) && !signalers.has(index.events[i].agent)) between = true;
    if (between) return { first, basis, count: signals.length };
  }
  return undefined;
}

/**
 * The last verdict of a reviewer (an agent whose name or role is a reviewer's, e.g. Code Reviewer,
 * critic, verifier, QA, test engineer) when it is a critique (raises issues, approves nothing) and
 * nothing later of that reviewer approved: the position of that critique, or -1. A delegated
 * conversation's opening message is the assignment, not a verdict.
 */
function unresolvedCritique(index: TraceIndex, pos: number): number {
  const last = new Map<string, { i: number; critique: boolean }>();
  for (let i = 0; i <= pos; i++) {
    const type = index.types[i];
    if (type !== 'message' && type !== 'return' && type !== 'aggregate') continue;
    const e = index.events[i];
    const role = typeof (e as { role?: unknown }).role === 'string' ? (e as { role: string }).role : '';
    if (!REVIEWER_ROLE.test(`${e.agent} ${role}`) || !isAgentOutput(index, i) || opensDelegation(index, i)) continue;
    const text = index.content(i);
    if (APPROVAL_TEXT.test(text) || claimsCompletion(index, i)) last.set(e.agent, { i, critique: false });
    else if (CRITIQUE_TEXT.test(text)) last.set(e.agent, { i, critique: true });
  }
  let found = -1;
  for (const v of last.values()) if (v.critique && (found === -1 || v.i < found)) found = v.i;
  return found;
}

/** The last agent output of the segment when it states an impasse (needs information, cannot go on), else -1. */
function endsAtImpasse(index: TraceIndex, { from, pos, keep }: Segment): number {
  for (let i = pos; i >= from; i--) {
    if (!keep(i) || !isAgentOutput(index, i) || index.types[i] === 'stop') continue;
    return statesImpasse(index, i) && !claimsCompletion(index, i) ? i : -1;
  }
  return -1;
}

/** Positions of the calls the user refused (`call_status: denied`) in a segment. */
function deniedCalls(index: TraceIndex, { from, pos, keep }: Segment): number[] {
  const out: number[] = [];
  for (let i = from; i <= pos; i++) if (keep(i) && index.types[i] === 'tool_call' && index.events[i].call_status === 'denied') out.push(i);
  return out;
}

/** Position of the last state change in [from, pos] with no verification after it, or -1. */
function unverifiedChange(index: TraceIndex, { from, pos, keep }: Segment): number {
  let change = -1;
  for (let i = pos; i >= from; i--) {
    if (keep(i) && isStateChange(index, i)) {
      change = i;
      break;
    }
  }
  if (change === -1) return -1;
  const changer = index.events[change].agent;
  for (let i = change + 1; i <= pos; i++) {
    if (!keep(i)) continue;
    const type = index.types[i];
    if (type === 'aggregate' || type === 'reward') return -1;
    const e = index.events[i];
    // a check, or a call whose arguments cannot be read (redacted): it may have verified
    if (type === 'tool_call' && (VERIFY_TOOL.test(`${e.tool ?? ''} ${index.content(i).slice(0, 200)}`) || OPAQUE.test(index.content(i)))) return -1;
    if ((type === 'message' || type === 'return') && e.agent !== changer && VERIFICATION_TEXT.test(index.content(i))) return -1;
  }
  return change;
}

/** The earliest point in [from, pos) after which the task was done, and what marked it. */
function donePoint(ctx: StopContext, { from, pos, keep }: Segment): { pos: number; basis: NonNullable<StopFinding['done_basis']> } | undefined {
  const { index } = ctx;
  const candidates: { pos: number; basis: NonNullable<StopFinding['done_basis']> }[] = [];
  for (let i = from; i < pos; i++) {
    // a claim is the agent's own output; a sub-agent's return reports its part, not the task
    if (!keep(i) || !isAgentOutput(index, i) || index.types[i] === 'return' || index.types[i] === 'stop') continue;
    if (claimsCompletion(index, i)) {
      candidates.push({ pos: i, basis: 'completion_claim' });
      break;
    }
  }
  const inSegment = ctx.rewardsIn(from, pos).filter((r) => keep(r.pos));
  if (inSegment.length >= 2) {
    let best = -Infinity;
    let at = -1;
    for (const r of inSegment) if (r.value > best) {
      best = r.value;
      at = r.pos;
    }
    if (at !== -1) candidates.push({ pos: at, basis: 'reward' });
  }
  const final = finalAnswer(index, from, pos, keep);
  if (final) {
    const first = firstAppearance(index, final, from, keep);
    if (first !== -1) candidates.push({ pos: first, basis: 'final_answer' });
  }
  if (!candidates.length) return undefined;
  return candidates.reduce((a, b) => (b.pos < a.pos ? b : a));
}

/** Last acts of an agent that mean it is still at work (it has not handed its output to anyone). */
const STILL_WORKING = new Set(['tool_call', 'tool_result', 'spawn', 'delegate']);


/**
 * What the stop judgements share, built once so that each stop costs O(log n) lookups plus its own
 * segment: reward positions and their suffix maximum, loops by last member, a prefix count of
 * completion claims, and one forward sweep of open spawns (stops are judged in time order).
 */
class StopContext {
  readonly rewards: RewardPoint[];
  private readonly rewardPos: Int32Array;
  /** Best reward value at or after reward k. */
  private readonly suffixBest: Float64Array;
  /** Loops by the position of their last member: [loop index in `loops`, first, last]. */
  private readonly loopsByLast: [number, number, number][];
  private readonly loopLast: Int32Array;
  /** claims[i] = agent outputs claiming completion in [0, i). */
  private readonly claims: Int32Array;
  private readonly open = new Map<string, number>();
  private swept = -1;

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
    this.claims = new Int32Array(index.size + 1);
    for (let i = 0; i < index.size; i++) this.claims[i + 1] = this.claims[i] + (isAgentOutput(index, i) && claimsCompletion(index, i) ? 1 : 0);
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
    const { index, open } = this;
    for (let i = this.swept + 1; i <= pos; i++) {
      const e = index.events[i];
      const type = index.types[i];
      if (type === 'spawn' && typeof e.to === 'string' && e.to !== e.agent) open.set(e.to, i);
      else if (type === 'return') {
        open.delete(e.from ?? e.agent);
        open.delete(e.agent);
      } else if (type === 'despawn') {
        open.delete(typeof e.to === 'string' ? e.to : e.agent);
      }
    }
    this.swept = Math.max(this.swept, pos);
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

/** Hindsight best stop: last reward improvement, else the final answer's first appearance, else the last new content. */
function bestStopPoint(index: TraceIndex, rewards: RewardPoint[]): BestStop | null {
  const n = index.size;
  if (n === 0) return null;
  let pos = -1;
  let basis: BestStop['basis'] = 'new_content';
  if (rewards.length) {
    let best = -Infinity;
    for (const r of rewards) if (r.value > best) {
      best = r.value;
      pos = r.pos;
    }
    basis = 'reward';
  } else {
    const final = finalAnswer(index, 0, n - 1);
    if (final) {
      const first = firstAppearance(index, final, 0);
      pos = first !== -1 ? first : final.pos;
      basis = 'final_answer';
    }
  }
  if (pos === -1) {
    const seen = new Set<number>();
    for (let i = 0; i < n; i++) {
      const fp = index.fingerprints[i];
      if (!seen.has(fp) && isWork(index, i) && !isNotAgentOutput(index.events[i]) && index.types[i] !== 'tool_result') pos = i;
      seen.add(fp);
    }
    basis = 'new_content';
  }
  if (pos === -1) return null;
  let last = n - 1;
  while (last > pos && !isWork(index, last)) last--;
  return { event: index.id(pos), index: index.at(pos), basis, after: spent(index, pos + 1, last, index.end(pos)) };
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
    t: index.events[p.pos].t,
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
