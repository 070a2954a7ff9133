/**
 * Loops: repeated work across agents and turns, in three kinds.
 *
 * - repeated_tool_call: the same tool with the same arguments (the call's content, exactly, keyed by
 *   length and two 32-bit FNV-1a hashes) again, anywhere in the trace. One hash-map pass: O(n).
 * - repeated_sequence: per lane, a tandem repeat of the sequence of event fingerprints (agent, type,
 *   target, normalized content): a block of p events occurring >= 2 times back to back. For each
 *   period p = 1..maxPeriod, one scan compares f[i] with f[i+p]; a maximal run of L matches is a
 *   segment of L + p events with period p (Main & Lorentz's tandem-repeat definition, found here by
 *   the direct O(n * maxPeriod) scan, near-linear for a fixed maxPeriod). Smaller periods win; a
 *   block that is itself periodic is skipped (it is found with its primitive period). A single
 *   event must occur 3 times in a row (twice is an echo, e.g. a proxy's fixed auto-reply).
 * - ping_pong: consecutive hand-offs (message, delegate, return, spawn) alternating between the same
 *   two agents, A -> B -> A -> B ..., where each hand-off from the third on adds almost no new
 *   content (same fingerprint as the one two before, or < 10 % new words).
 *
 * Costs of a loop are the tokens and seconds of the repetitions after the first (for a ping-pong,
 * the tokens of every event in that span, since each round trip carries the work in between). A loop is
 * `unresolved` when no event with new content (a fingerprint never seen before; stops, rewards and
 * despawns ignored) comes after its last member: the trace ended inside it.
 */
import type { Loop } from './types';
import type { TraceIndex } from './trace-index';
import { fnv1a, wordTokens } from './text';

export interface LoopOptions {
  /** Longest repeated block looked for, in events (default 16). */
  maxPeriod?: number;
  /** A hand-off adds "no new content" below this share of new words (default 0.1). */
  noveltyThreshold?: number;
}

/** Finds the loops of a trace; loops are returned in order of their first member. */
export function findLoops(index: TraceIndex, options: LoopOptions = {}): Loop[] {
  const maxPeriod = options.maxPeriod ?? 16;
  const noveltyThreshold = options.noveltyThreshold ?? 0.1;
  const lastNew = lastNewContent(index);
  const loops: Loop[] = [];
  const toolLoops = repeatedToolCalls(index);
  const inToolLoop = new Set<number>();
  for (const l of toolLoops) for (const i of l.members) inToolLoop.add(i);
  for (const i of [...inToolLoop]) if (index.resultOf[i] !== -1) inToolLoop.add(index.resultOf[i]);
  for (const l of toolLoops) loops.push(finish(index, l, lastNew));
  // a ping-pong or a repeated tool call is reported once, not again as each lane's repeated sequence
  const inPingPong = new Set<number>();
  for (const l of pingPongs(index, noveltyThreshold)) {
    for (const i of l.members) inPingPong.add(i);
    loops.push(finish(index, l, lastNew));
  }
  for (const l of repeatedSequences(index, maxPeriod)) {
    if (l.members.every((i) => inToolLoop.has(i) || inPingPong.has(i) || index.types[i] === 'tool_result')) continue;
    loops.push(finish(index, l, lastNew));
  }
  loops.sort((a, b) => (index.pos.get(a.events[0]) ?? 0) - (index.pos.get(b.events[0]) ?? 0));
  return loops;
}

/** A loop before its costs are added: member positions, and where the repetitions start. */
interface RawLoop {
  kind: Loop['kind'];
  members: number[];
  /** Positions whose cost counts as the repetition's (the members after the first unit). */
  repeated: number[];
  /** For sequences and ping-pongs: the span [from, to] of positions whose tokens count. */
  span?: [number, number];
  period: number;
  repetitions: number;
  label: string;
}

/** Last position holding an event with a never-seen fingerprint (stop, reward, despawn ignored). */
function lastNewContent(index: TraceIndex): number {
  const seen = new Set<number>();
  let last = -1;
  for (let i = 0; i < index.size; i++) {
    const fp = index.fingerprints[i];
    const isNew = !seen.has(fp);
    seen.add(fp);
    const type = index.types[i];
    if (isNew && type !== 'stop' && type !== 'reward' && type !== 'despawn') last = i;
  }
  return last;
}

function finish(index: TraceIndex, raw: RawLoop, lastNew: number): Loop {
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
      const r = index.resultOf[i];
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
    events: members.map((i) => index.id(i)),
    period: raw.period,
    repetitions: raw.repetitions,
    tokens,
    seconds: round(seconds),
    unresolved,
    agents,
    message: `${raw.label}${cost}${unresolved ? '; the trace ended inside it' : ''}`,
  };
}

function repeatedToolCalls(index: TraceIndex): RawLoop[] {
  const groups = new Map<string, number[]>();
  for (let i = 0; i < index.size; i++) {
    if (index.types[i] !== 'tool_call') continue;
    const e = index.events[i];
    if (typeof e.content !== 'string' && typeof e.content_ref !== 'string') continue;
    const text = typeof e.content === 'string' ? e.content : (e.content_ref as string);
    const key = `${e.tool ?? ''}\u0000${text.length}\u0000${fnv1a(text.trim())}\u0000${fnv1a(text.trim(), 0x2545f491)}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(i);
  }
  const out: RawLoop[] = [];
  for (const calls of groups.values()) {
    if (calls.length < 2) continue;
    const members = calls.flatMap((c) => (index.resultOf[c] !== -1 ? [c, index.resultOf[c]] : [c]));
    const tool = index.events[calls[0]].tool ?? 'a tool';
    out.push({
      kind: 'repeated_tool_call',
      members,
      repeated: calls.slice(1),
      period: members.length / calls.length,
      repetitions: calls.length,
      label: `${tool} called ${calls.length} times with the same arguments by ${[...new Set(calls.map((c) => index.events[c].agent))].join(', ')}`,
    });
  }
  return out;
}

function repeatedSequences(index: TraceIndex, maxPeriod: number): RawLoop[] {
  const out: RawLoop[] = [];
  for (const [agent, lane] of index.lanes) {
    const m = lane.length;
    const f = new Int32Array(m);
    for (let k = 0; k < m; k++) f[k] = index.fingerprints[lane[k]];
    const covered = new Uint8Array(m);
    for (let p = 1; p <= Math.min(maxPeriod, m >> 1); p++) {
      let i = 0;
      while (i + p < m) {
        if (f[i] < 0 || f[i] !== f[i + p]) {
          i++;
          continue;
        }
        let j = i;
        while (j + p < m && f[j] >= 0 && f[j] === f[j + p]) j++;
        const reps = Math.floor((j - i + p) / p);
        if (reps >= (p === 1 ? 3 : 2) && isPrimitive(f, i, p)) {
          const end = i + reps * p; // exclusive
          let already = 0;
          for (let k = i; k < end; k++) already += covered[k];
          if (already * 2 < end - i) {
            for (let k = i; k < end; k++) covered[k] = 1;
            const members = lane.slice(i, end);
            out.push({
              kind: 'repeated_sequence',
              members,
              repeated: members.slice(p),
              span: [lane[i + p], lane[end - 1]],
              period: p,
              repetitions: reps,
              label: `${agent} repeated the same ${p === 1 ? 'event' : `${p}-event sequence`} ${reps} times`,
            });
          }
        }
        i = Math.max(j, i + 1);
      }
    }
  }
  return out;
}

/** True when f[i..i+p) is not itself a repetition of a shorter block. */
function isPrimitive(f: Int32Array, i: number, p: number): boolean {
  for (let q = 1; q < p; q++) {
    if (p % q !== 0) continue;
    let periodic = true;
    for (let k = i + q; k < i + p && periodic; k++) if (f[k] !== f[k - q]) periodic = false;
    if (periodic) return false;
  }
  return true;
}

function pingPongs(index: TraceIndex, noveltyThreshold: number): RawLoop[] {
  // Hand-offs in time order, with sender and receiver. Without any `to` in the trace, a message's
  // receiver is the agent of the next message (a group chat answers the previous turn).
  const handoffs: { i: number; from: string; to: string }[] = [];
  let anyTo = false;
  for (let i = 0; i < index.size; i++) if (index.isHandoff(i) && index.receiver(i)) anyTo = true;
  if (anyTo) {
    for (let i = 0; i < index.size; i++) {
      if (!index.isHandoff(i)) continue;
      const to = index.receiver(i);
      if (to) handoffs.push({ i, from: index.events[i].from ?? index.events[i].agent, to });
    }
  } else {
    const msgs: number[] = [];
    for (let i = 0; i < index.size; i++) if (index.types[i] === 'message') msgs.push(i);
    for (let k = 0; k + 1 < msgs.length; k++) {
      const from = index.events[msgs[k]].agent;
      const to = index.events[msgs[k + 1]].agent;
      if (from !== to) handoffs.push({ i: msgs[k], from, to });
    }
  }
  const out: RawLoop[] = [];
  let start = 0;
  while (start < handoffs.length) {
    // maximal run alternating between the same two agents
    let end = start + 1;
    while (end < handoffs.length && handoffs[end].from === handoffs[end - 1].to && handoffs[end].to === handoffs[end - 1].from) end++;
    if (end - start >= 4) out.push(...staleStretches(index, handoffs.slice(start, end), noveltyThreshold));
    start = end;
  }
  return out;
}

/** Within one alternating run, the stretches where hand-offs repeat what was said two turns before. */
function staleStretches(index: TraceIndex, run: { i: number; from: string; to: string }[], threshold: number): RawLoop[] {
  const before = new Set<string>();
  const stale = run.map((h, k) => {
    const words = wordTokens(index.content(h.i));
    let result = false;
    if (k >= 2) {
      const prev = run[k - 2].i;
      if (index.fingerprints[h.i] === index.fingerprints[prev] && index.fingerprints[h.i] >= 0) result = true;
      else if (words.size > 0) {
        let fresh = 0;
        for (const w of words) if (!before.has(w)) fresh++;
        result = fresh / words.size < threshold;
      }
    }
    for (const w of words) before.add(w);
    return result;
  });
  const out: RawLoop[] = [];
  let k = 2;
  while (k < run.length) {
    if (!stale[k]) {
      k++;
      continue;
    }
    let j = k;
    while (j < run.length && stale[j]) j++;
    // hand-offs k-2 .. j-1: the first round trip and its stale repetitions
    if (j - k >= 2) {
      const part = run.slice(k - 2, j);
      const members = part.map((h) => h.i);
      const a = part[0].from;
      const b = part[0].to;
      const reps = Math.floor(part.length / 2);
      out.push({
        kind: 'ping_pong',
        members,
        repeated: members.slice(2),
        span: [members[2], members[members.length - 1]],
        period: 2,
        repetitions: reps,
        label: `ping-pong between ${a} and ${b}: ${part.length} hand-offs, ${reps} round trips with no new content`,
      });
    }
    k = j;
  }
  return out;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
