/**
 * What a loop detector finds (a {@link RawLoop}: member positions, where the repetitions start) and
 * how it becomes a reported {@link Loop}: its costs in tokens and seconds, and whether the trace
 * ended inside it.
 */
import type { Loop } from '../types';
import type { TraceIndex } from '../trace-index';
import { countWords } from '../../shared/count-words';

/** A loop before its costs are added: member positions, and where the repetitions start. */
export interface RawLoop {
  kind: Loop['kind'];
  members: number[];
  /** Positions whose cost counts as the repetition's (the members after the first unit). */
  repeated: number[];
  /** For sequences and ping-pongs: the span [from, to] of positions whose tokens count. */
  span?: [number, number];
  period: number;
  repetitions: number;
  label: string;
  /** `similar` for near-duplicate steps (content-word resemblance), not identical fingerprints. */
  match?: 'similar';
  /** Near-duplicate steps: the lowest content-word resemblance that joined a step to the others (0..1, two decimals, rounded down). */
  resemblance?: number;
}

/** Last position holding an event with a never-seen fingerprint (stop, reward, despawn ignored). */
export function lastNewContent(index: TraceIndex): number {
  for (let i = index.size - 1; i >= 0; i--) {
    const type = index.types[i];
    if (index.firstSeen(i) === i && type !== 'stop' && type !== 'reward' && type !== 'despawn') return i;
  }
  return -1;
}

/**
 * The running sums of a loop's costs (see {@link finishLoop}), kept so that a loop found again with
 * more members adds only theirs (loops/finished-loops.ts): the same additions in the same order, so
 * the same figures to the last bit.
 */
export interface LoopCosts {
  tokens: number;
  /** Seconds of the repeated tool calls and steps, not rounded (a loop with a span takes its seconds from the span). */
  seconds: number;
  /** Entries of `raw.repeated` counted (a ping-pong counts its span instead). */
  repeated: number;
  /** A ping-pong: the last position of its span counted. */
  spanTo: number;
}

/** Costs with nothing counted yet. */
function noCosts(raw: RawLoop): LoopCosts {
  return { tokens: 0, seconds: 0, repeated: 0, spanTo: raw.span ? raw.span[0] - 1 : -1 };
}

/**
 * Adds to `costs` what `raw` holds past what they counted: the tokens of its repetitions after the
 * first, their results' and their seconds (a tool call until its result); a ping-pong's tokens of
 * every event in its span (each round trip carries the work in between).
 */
export function addLoopCosts(index: TraceIndex, raw: RawLoop, costs: LoopCosts): void {
  const { repeated } = raw;
  if (raw.kind === 'ping_pong' && raw.span) {
    for (let i = costs.spanTo + 1; i <= raw.span[1]; i++) costs.tokens += index.tokens(i);
    costs.spanTo = raw.span[1];
  } else if (raw.span) {
    // a lane's sequence costs its own events
    for (let k = costs.repeated; k < repeated.length; k++) costs.tokens += index.tokens(repeated[k]);
  } else {
    for (let k = costs.repeated; k < repeated.length; k++) {
      const i = repeated[k];
      costs.tokens += index.tokens(i);
      const r = index.resultOf(i);
      if (r !== -1) {
        costs.tokens += index.tokens(r);
        costs.seconds += Math.max(0, index.end(r) - index.time[i]);
      } else costs.seconds += index.end(i) - index.time[i];
    }
  }
  costs.repeated = repeated.length;
}

/**
 * The loop `raw` as reported: its members in trace order (ids and indices), agents, message and
 * costs: tokens and seconds (3 decimals) of the repetitions after the first (a ping-pong: the tokens
 * of every event in its span; {@link addLoopCosts}). `lastNew` is {@link lastNewContent}: the loop
 * is `unresolved` when that comes at or before the loop's last member.
 */
export function finishLoop(index: TraceIndex, raw: RawLoop, lastNew: number): Loop {
  const { costs, members } = loopParts(index, raw);
  return reportedLoop(index, raw, costs, members, lastNew);
}

/** What {@link finishLoop} reports `raw` from: its costs and its members (kept by loops/finished-loops.ts to go on from). */
export function loopParts(index: TraceIndex, raw: RawLoop): { costs: LoopCosts; members: LoopMembers } {
  const costs = noCosts(raw);
  addLoopCosts(index, raw, costs);
  return { costs, members: loopMembers(index, raw) };
}

/** The members of `raw` as reported (see {@link LoopMembers}). */
function loopMembers(index: TraceIndex, raw: RawLoop): LoopMembers {
  const members = [...raw.members].sort((a, b) => a - b);
  const agents = [...new Set(members.map((i) => index.agentOf(i)))];
  return { events: members.map((i) => index.id(i)), indices: members.map((i) => index.at(i)), agents, last: members[members.length - 1] };
}

/** The members of a reported loop: ids and file indices in trace order, agents in order of first appearance, the last position. */
export interface LoopMembers {
  events: string[];
  indices: number[];
  agents: string[];
  last: number;
}

/** The loop as reported from its costs and members (see {@link finishLoop}). */
export function reportedLoop(index: TraceIndex, raw: RawLoop, costs: LoopCosts, members: LoopMembers, lastNew: number): Loop {
  // a loop with a span lasts from its first repetition's start to the end of its last event
  const seconds = raw.span ? Math.max(0, index.end(raw.span[1]) - index.time[raw.span[0]]) : costs.seconds;
  const unresolved = lastNew <= members.last;
  return {
    kind: raw.kind,
    ...(raw.match ? { match: raw.match } : {}),
    ...(raw.resemblance === undefined ? {} : { resemblance: raw.resemblance }),
    events: members.events,
    indices: members.indices,
    period: raw.period,
    repetitions: raw.repetitions,
    tokens: costs.tokens,
    seconds: round(seconds),
    unresolved,
    agents: members.agents,
    message: loopMessage(raw.label, costs.tokens, unresolved),
  };
}

/** A loop's message: its detector's label, its cost in tokens when it has one, and whether the trace ended inside it. */
export function loopMessage(label: string, tokens: number, unresolved: boolean): string {
  return `${label}${tokens > 0 ? `, ${countWords(tokens, 'token')}` : ''}${unresolved ? '; the trace ended inside it' : ''}`;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
