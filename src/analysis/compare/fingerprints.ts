/**
 * The events of a run as the comparison reads them (issue 28): in time order, by lane, each with
 * a shape (what kind of step it is) and a fingerprint (the shape and its normalized content), both
 * small numbers from one {@link Interner} shared by the runs compared, so equal numbers mean equal
 * steps across the runs.
 *
 * - shape: canonical type, tool family (normalize.ts `toolFamily`), subtype (`kind`), and whether a
 *   user (not an agent) said it; a failed tool result is a shape of its own;
 * - fingerprint: the shape and the content normalized (normalize.ts `comparableContent`), hashed
 *   ({@link contentHash}); a stop's reason and a reward's channel and value are part of it.
 *
 * Agent names are in neither: lanes are paired by pairing.ts and a renamed agent's steps stay equal.
 * Pure; O(events log events) for the time order, then linear in the content read.
 */
import type { LoadedTrace } from '../../trace/model';
import { canonicalType, type TraceEvent } from '../../trace/schema';
import { comparableContent, toolFamily } from './normalize';

/**
 * Keys to small numbers (0, 1, 2, ... in order of first use), shared by the runs compared: string
 * keys, and number keys in spaces of their own (a 53-bit content hash, a fingerprint and a target).
 */
export class Interner {
  private readonly ids = new Map<string, number>();
  private readonly spaces = [new Map<number, number>(), new Map<number, number>()];
  private count = 0;

  /** The number of `key`, given when first asked. */
  id(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = this.count++));
    return id;
  }

  /** The number of the number `key` of space 0 or 1 (spaces never share numbers with each other or with strings). */
  numberId(space: 0 | 1, key: number): number {
    const ids = this.spaces[space];
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = this.count++));
    return id;
  }

  /** How many keys have a number: every number is below it. */
  get size(): number {
    return this.count;
  }
}

/**
 * A 53-bit hash of `text` after the number `seed` (a shape): FNV-1a with two offset bases in one pass
 * (Fowler, Noll, Vo), 32 bits of one and 21 of the other: two different contents of a 1M-event run
 * meet by chance with a probability of about 10^-4.
 */
export function contentHash(seed: number, text: string): number {
  let h1 = (0x811c9dc5 ^ seed) >>> 0;
  let h2 = (0x9747b28c ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x01000193);
  }
  return (h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff);
}

/** A run's events read for the comparison. Positions are time-order ranks (0 = the run's first event). */
export interface RunEvents {
  loaded: LoadedTrace;
  /** Rank -> index of the event in `loaded.trace.events`. */
  order: Int32Array;
  /** Index in `loaded.trace.events` -> rank. */
  rank: Int32Array;
  /** Agent -> ranks of its events, ascending; agents in order of their first event. */
  lanes: Map<string, Int32Array>;
  /** Shape number per rank (see the module comment). */
  shapes: Int32Array;
  /** Fingerprint number per rank, without the agent an event goes to (see {@link withTargets}). */
  fingerprints: Int32Array;
}

/** Senders that are a person, not an agent. */
const PEOPLE = new Set(['user', 'human']);

/** True when a tool result failed as the trace records it: `is_error`, or an `exit_code` other than 0. */
export function failedResult(e: TraceEvent): boolean {
  const x = e as { is_error?: unknown; exit_code?: unknown };
  return x.is_error === true || (typeof x.exit_code === 'number' && x.exit_code !== 0);
}

/** The shape key of an event (see the module comment). */
export function shapeKey(e: TraceEvent): string {
  const type = canonicalType(e.type);
  const person = PEOPLE.has(String(e.from ?? '').toLowerCase()) || PEOPLE.has(String(e.role ?? '').toLowerCase()) || PEOPLE.has(e.agent.toLowerCase());
  const failed = type === 'tool_result' && failedResult(e) ? '!' : '';
  return `${type}${failed}|${toolFamily(e.tool)}|${e.kind ?? ''}|${person ? 'user' : ''}`;
}

/** What of an event beyond its shape is compared: its normalized content, a stop's reason, a reward's channel and value (exact). */
function contentKey(e: TraceEvent): string {
  const text = typeof e.content === 'string' ? e.content : typeof e.content_ref === 'string' ? e.content_ref : '';
  const type = canonicalType(e.type);
  const head = type === 'stop' ? `${e.reason ?? ''}:` : type === 'reward' ? `${e.channel ?? ''}=${e.value ?? ''}:` : '';
  return head + comparableContent(text);
}

/**
 * Reads a run's events for the comparison (see {@link RunEvents}).
 * @param interner numbers for shapes and fingerprints, shared with the other runs compared.
 */
export function runEvents(loaded: LoadedTrace, interner: Interner): RunEvents {
  const events = loaded.trace.events;
  const n = events.length;
  const order = timeOrder(events);
  const rank = new Int32Array(n);
  for (let r = 0; r < n; r++) rank[order[r]] = r;
  const shapes = new Int32Array(n);
  const fingerprints = new Int32Array(n);
  const shapeOf = new Map<string, number>();
  const laneRanks = new Map<string, number[]>();
  for (let r = 0; r < n; r++) {
    const e = events[order[r]];
    const key = shapeKey(e);
    let shape = shapeOf.get(key);
    if (shape === undefined) shapeOf.set(key, (shape = interner.id(`s\u0000${key}`)));
    shapes[r] = shape;
    fingerprints[r] = interner.numberId(0, contentHash(shape, contentKey(e)));
    let lane = laneRanks.get(e.agent);
    if (!lane) laneRanks.set(e.agent, (lane = []));
    lane.push(r);
  }
  const lanes = new Map<string, Int32Array>();
  for (const [agent, ranks] of laneRanks) lanes.set(agent, Int32Array.from(ranks));
  return { loaded, order, rank, lanes, shapes, fingerprints };
}

/**
 * The fingerprints of a run with the agent each event goes to (`to`) made part of them, as the
 * number of its lane pair (`pairOf`; an agent of no pair by its own name): a delegation of the same
 * words to another worker is another step, a renamed worker is the same.
 */
export function withTargets(run: RunEvents, pairOf: (agent: string) => number | undefined, interner: Interner): Int32Array {
  const events = run.loaded.trace.events;
  const out = run.fingerprints.slice();
  for (let r = 0; r < out.length; r++) {
    const to = events[run.order[r]].to;
    if (typeof to !== 'string' || to === '') continue;
    const pair = pairOf(to);
    // a fingerprint and a pair fit in 53 bits (fingerprints below 2^32, pairs below 2^21)
    out[r] = pair !== undefined && pair < 0x200000 ? interner.numberId(1, out[r] * 0x200000 + pair) : interner.id(`t\u0000${out[r]}\u0000${to}`);
  }
  return out;
}

/** Event indices sorted by `t` (non-finite times last), ties in file order. */
function timeOrder(events: readonly TraceEvent[]): Int32Array {
  const n = events.length;
  const order = new Int32Array(n);
  let sorted = true;
  for (let i = 0; i < n; i++) {
    order[i] = i;
    if (i > 0 && !(timeOf(events[i]) >= timeOf(events[i - 1]))) sorted = false;
  }
  if (sorted) return order;
  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) times[i] = timeOf(events[i]);
  return Int32Array.from(Array.from(order).sort((a, b) => times[a] - times[b] || a - b));
}

function timeOf(e: TraceEvent): number {
  return typeof e.t === 'number' && Number.isFinite(e.t) ? e.t : Number.MAX_VALUE;
}
