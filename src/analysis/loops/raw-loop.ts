/**
 * What a loop detector finds (a {@link RawLoop}: member positions, where the repetitions start) and
 * how it becomes a reported {@link Loop}: its costs in tokens and seconds, and whether the trace
 * ended inside it.
 */
import type { Loop } from '../types';
import type { TraceIndex } from '../trace-index';

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
 * The loop `raw` as reported: its members in trace order (ids and indices), agents, message and
 * costs: tokens and seconds (3 decimals) of the repetitions after the first (a ping-pong: the tokens
 * of every event in its span). `lastNew` is {@link lastNewContent}: the loop is `unresolved` when
 * that comes at or before the loop's last member.
 */
export function finishLoop(index: TraceIndex, raw: RawLoop, lastNew: number): Loop {
  let tokens = 0;
  let seconds = 0;
  if (raw.span) {
    // a ping-pong costs everything done during its repetitions; a lane's sequence, its own events
    const [from, to] = raw.span;
    if (raw.kind === 'ping_pong') for (let i = from; i <= to; i++) tokens += index.tokens(i);
    else for (const i of raw.repeated) tokens += index.tokens(i);
    seconds = Math.max(0, index.end(to) - index.events[from].t);
  } else {
    for (const i of raw.repeated) {
      tokens += index.tokens(i);
      const r = index.resultOf(i);
      if (r !== -1) {
        tokens += index.tokens(r);
        seconds += Math.max(0, index.end(r) - index.events[i].t);
      } else seconds += index.end(i) - index.events[i].t;
    }
  }
  const members = [...raw.members].sort((a, b) => a - b);
  const last = members[members.length - 1];
  const agents = [...new Set(members.map((i) => index.events[i].agent))];
  const unresolved = lastNew <= last;
  const cost = tokens > 0 ? `, ${tokens} tokens` : '';
  return {
    kind: raw.kind,
    ...(raw.match ? { match: raw.match } : {}),
    ...(raw.resemblance === undefined ? {} : { resemblance: raw.resemblance }),
    events: members.map((i) => index.id(i)),
    indices: members.map((i) => index.at(i)),
    period: raw.period,
    repetitions: raw.repetitions,
    tokens,
    seconds: round(seconds),
    unresolved,
    agents,
    message: `${raw.label}${cost}${unresolved ? '; the trace ended inside it' : ''}`,
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
