/**
 * The events of a run as the comparison reads them (issue 28): in time order, by lane, each with
 * a shape (what kind of step it is) and a fingerprint (the shape and its normalized content), both
 * small numbers from one {@link Interner} shared by the runs compared, so equal numbers mean equal
 * steps across the runs.
 *
 * - shape: canonical type, tool family (normalize.ts `toolFamily`), subtype (`kind`), and whether a
 *   user (not an agent) said it; a failed tool result is a shape of its own;
 * - fingerprint: the shape and the content normalized (content-scan.ts), hashed to 64 bits
 *   (`ContentNormalizer.hash`); a stop's reason and a reward's channel and value are part of it.
 *
 * Agent names are in neither: lanes are paired by pairing.ts and a renamed agent's steps stay equal.
 * Pure; O(events log events) for the time order, then linear in the content read.
 */
import type { LoadedTrace } from '../../trace/model';
import { canonicalType, type TraceEvent } from '../../trace/schema';
import { ContentNormalizer, fmix32 } from './content-scan';
import { toolFamily } from './normalize';
import { recordsFailure } from '../../shared/recorded-failure';

/**
 * Keys to small numbers (0, 1, 2, ... in order of first use), shared by the runs compared: string
 * keys, and 64-bit keys (two 32-bit halves: a content hash; a fingerprint and a lane pair) in two
 * spaces of their own. Strings go through a `Map`; 64-bit keys through open-addressing tables of
 * typed arrays (no boxed number per key).
 */
export class Interner {
  private readonly ids = new Map<string, number>();
  private readonly spaces = [new PairTable(), new PairTable()];
  private count = 0;
  private readonly normalizer = new ContentNormalizer();

  /** The number of `key`, given when first asked. */
  id(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = this.count++));
    return id;
  }

  /** The number of the number `key` (an integer of at most 53 bits) of space 0 or 1 (spaces never share numbers with each other or with strings). */
  numberId(space: 0 | 1, key: number): number {
    return this.pairId(space, Math.floor(key / 0x100000000) | 0, key | 0);
  }

  /** The number of the 64-bit key (`hi`, `lo`: 32-bit integers) of space 0 or 1. */
  pairId(space: 0 | 1, hi: number, lo: number): number {
    const table = this.spaces[space];
    const id = table.get(hi, lo);
    if (id !== -1) return id;
    table.set(hi, lo, this.count);
    return this.count++;
  }

  /**
   * The 64-bit hash of `text` normalized (content-scan.ts), after `head` as it is (a stop's reason,
   * compared exactly), into `out[0]` and `out[1]` (32-bit halves). The interner's one normalizer
   * is reused: no string is made.
   */
  contentHash(text: string, out: Int32Array, head = ''): void {
    this.normalizer.reset().raw(head).content(text).hash(0, out);
  }

  /** How many keys have a number: every number is below it. */
  get size(): number {
    return this.count;
  }
}

/** 64-bit keys (two int32 halves) to numbers: open addressing, linear probing, at most 70% full (12 bytes a slot). */
class PairTable {
  private hi = new Int32Array(1024);
  private lo = new Int32Array(1024);
  /** The number of each slot, -1 for an empty one. */
  private val = new Int32Array(1024).fill(-1);
  private used = 0;

  /** The number of the key, or -1. */
  get(hi: number, lo: number): number {
    const mask = this.val.length - 1;
    for (let k = slot(hi, lo, mask); ; k = (k + 1) & mask) {
      const v = this.val[k];
      if (v === -1 || (this.hi[k] === hi && this.lo[k] === lo)) return v;
    }
  }

  /** Gives a key that has none its number. */
  set(hi: number, lo: number, value: number): void {
    if (10 * (this.used + 1) > 7 * this.val.length) this.grow();
    this.put(hi, lo, value);
    this.used++;
  }

  private put(hi: number, lo: number, value: number): void {
    const mask = this.val.length - 1;
    let k = slot(hi, lo, mask);
    while (this.val[k] !== -1) k = (k + 1) & mask;
    this.hi[k] = hi;
    this.lo[k] = lo;
    this.val[k] = value;
  }

  private grow(): void {
    const { hi, lo, val } = this;
    this.hi = new Int32Array(2 * val.length);
    this.lo = new Int32Array(2 * val.length);
    this.val = new Int32Array(2 * val.length).fill(-1);
    for (let k = 0; k < val.length; k++) if (val[k] !== -1) this.put(hi[k], lo[k], val[k]);
  }
}

/** A key's first slot: its halves mixed (the keys are hashes or small numbers, so mix both). */
function slot(hi: number, lo: number, mask: number): number {
  let h = Math.imul(hi ^ Math.imul(lo, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  return h & mask;
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

/** The shape key of an event (see the module comment). */
export function shapeKey(e: TraceEvent): string {
  const type = canonicalType(e.type);
  const person = PEOPLE.has(String(e.from ?? '').toLowerCase()) || PEOPLE.has(String(e.role ?? '').toLowerCase()) || PEOPLE.has(e.agent.toLowerCase());
  const failed = type === 'tool_result' && recordsFailure(e) ? '!' : '';
  return `${type}${failed}|${toolFamily(e.tool)}|${e.kind ?? ''}|${person ? 'user' : ''}`;
}

const halves = new Int32Array(2);

/**
 * The fingerprint of an event: what of it beyond its shape is compared (its normalized content,
 * content-scan.ts; a stop's reason and a reward's channel and value, exact), hashed to 64 bits and
 * mixed with its shape number (a bijection of the hash for each shape: two events of one shape have
 * one fingerprint exactly when their hashes are equal), numbered by `interner`.
 */
function fingerprintOf(e: TraceEvent, type: string, shape: number, interner: Interner): number {
  const text = typeof e.content === 'string' ? e.content : typeof e.content_ref === 'string' ? e.content_ref : '';
  if (type === 'stop') interner.contentHash(text, halves, `${e.reason ?? ''}:`);
  else if (type === 'reward') interner.contentHash(text, halves, `${e.channel ?? ''}=${e.value ?? ''}:`);
  else interner.contentHash(text, halves);
  const salt = Math.imul(shape + 1, 0x9e3779b1);
  return interner.pairId(0, fmix32(halves[0] ^ salt), halves[1] ^ Math.imul(salt, 0x85ebca6b));
}

/**
 * Shape numbers of events, without a string built per event: by raw type, tool and subtype (nested
 * maps of the trace's own strings), then whether a user said it and whether a tool result failed.
 */
class Shapes {
  private readonly byType = new Map<string, { type: string; byTool: Map<string, Map<string, Int32Array>> }>();
  private readonly person = new Map<string, boolean>();
  /** The canonical type of the event last given to {@link of}. */
  type = '';

  constructor(private readonly interner: Interner) {}

  /** The shape number of `e` (see the module comment); its canonical type is left in {@link type}. */
  of(e: TraceEvent): number {
    let t = this.byType.get(e.type);
    if (!t) this.byType.set(e.type, (t = { type: canonicalType(e.type), byTool: new Map() }));
    this.type = t.type;
    const tool = e.tool ?? '';
    let byKind = t.byTool.get(tool);
    if (!byKind) t.byTool.set(tool, (byKind = new Map()));
    const kind = e.kind ?? '';
    let ids = byKind.get(kind);
    if (!ids) byKind.set(kind, (ids = new Int32Array(4).fill(-1)));
    const slot = (this.isPerson(e.from) || this.isPerson(e.role) || this.isPerson(e.agent) ? 1 : 0) + (t.type === 'tool_result' && recordsFailure(e) ? 2 : 0);
    let id = ids[slot];
    if (id === -1) ids[slot] = id = this.interner.id(`s\u0000${shapeKey(e)}`);
    return id;
  }

  private isPerson(x: unknown): boolean {
    if (x === undefined || x === null || x === '') return false;
    const key = typeof x === 'string' ? x : String(x);
    let p = this.person.get(key);
    if (p === undefined) this.person.set(key, (p = PEOPLE.has(key.toLowerCase())));
    return p;
  }
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
  const shapeOf = new Shapes(interner);
  // lanes: each event's lane number, then the ranks of each lane gathered in one pass
  const laneOf = new Int32Array(n);
  const laneNumber = new Map<string, number>();
  const laneSizes: number[] = [];
  for (let r = 0; r < n; r++) {
    const e = events[order[r]];
    const shape = shapeOf.of(e);
    shapes[r] = shape;
    fingerprints[r] = fingerprintOf(e, shapeOf.type, shape, interner);
    let lane = laneNumber.get(e.agent);
    if (lane === undefined) {
      laneNumber.set(e.agent, (lane = laneSizes.length));
      laneSizes.push(0);
    }
    laneOf[r] = lane;
    laneSizes[lane]++;
  }
  const laneRanks = laneSizes.map((size) => new Int32Array(size));
  const filled = new Int32Array(laneSizes.length);
  for (let r = 0; r < n; r++) laneRanks[laneOf[r]][filled[laneOf[r]]++] = r;
  const lanes = new Map<string, Int32Array>();
  for (const [agent, lane] of laneNumber) lanes.set(agent, laneRanks[lane]);
  return { loaded, order, rank, lanes, shapes, fingerprints };
}

/** `values[k]` for each k of `keys`, as a typed array (a loop: `Int32Array.from` with a mapping function is slow). */
export function gather(values: ArrayLike<number>, keys: ArrayLike<number>): Int32Array {
  const out = new Int32Array(keys.length);
  for (let k = 0; k < keys.length; k++) out[k] = values[keys[k]];
  return out;
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
    out[r] = pair !== undefined ? interner.pairId(1, out[r], pair) : interner.id(`t\u0000${out[r]}\u0000${to}`);
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
