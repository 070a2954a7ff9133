/**
 * The hand-offs of a trace in time order, as the loop detectors (loops/handoff-cycles.ts) and the
 * topology guess (topology.ts) read them: when some hand-off names its receiver (TraceIndex
 * `handoffsName`), each hand-off event (message, delegate, return, spawn) with a receiver, from its
 * `from` (else its agent) to that receiver; otherwise a group chat's turns: each event of the chat's
 * types by another agent than the one before it answers that one.
 *
 * Columns, not an object per hand-off, with names numbered in order of first appearance (the sender
 * before the receiver); made once per index and kind of stream, and shared (the ping-pongs and the
 * topology each made the same stream of a million events' hand-offs again, with two map look-ups
 * and three array pushes per hand-off).
 */
import type { EventType } from '../trace/schema';
import type { TraceIndex } from './trace-index';

/** Hand-offs in time order: hand-off k at position `at[k]`, from name `from[k]` to name `to[k]` (numbers into `names`). */
export interface Handoffs {
  /** The builder that made the stream: append-only, so a later stream of the same builder holds this one's hand-offs first. */
  source: StreamBuilder;
  count: number;
  at: Int32Array;
  from: Int32Array;
  to: Int32Array;
  /** Names by number, in order of first appearance (a hand-off's sender before its receiver). */
  names: readonly string[];
}

/** The streams made for each index (dropped with it), by kind. */
const made = new WeakMap<TraceIndex, Map<string, Handoffs>>();

/**
 * A stream's scan kept between analyses of a growing trace (prefix-carry.ts): it goes on from the
 * first new position while the positions it scanned are the carry's and the lanes are the same
 * (a new lane can be the receiver an old event's `to` names).
 */
export interface HandoffScan {
  stream: StreamBuilder;
  /** Positions scanned: [0, scanned). */
  scanned: number;
  /** Lanes of the index it scanned. */
  lanes: number;
  /** A chat's last turn before `scanned` (-1: none), which the next turn answers. */
  prev: number;
}

/**
 * The trace's hand-offs (see the module's comment).
 * @param chatTypes the types whose events make a group chat's turns, read only when no hand-off names its receiver.
 * @returns the stream (shared: the caller must not change it). O(n) the first time per index and
 *   kind; O(new events) for a growing trace's index whose carry holds the scan of the positions before.
 */
export function handoffsOf(index: TraceIndex, chatTypes: ReadonlySet<EventType>): Handoffs {
  const key = index.handoffsName ? 'named' : [...chatTypes].sort().join(',');
  let byKind = made.get(index);
  if (!byKind) made.set(index, (byKind = new Map()));
  let stream = byKind.get(key);
  if (!stream) byKind.set(key, (stream = scanOf(index, key, chatTypes).stream.done()));
  return stream;
}

/** The scan of every position for a stream of kind `key`: the carry's, gone on from where it stopped, when it holds one for these positions; else a new one. */
function scanOf(index: TraceIndex, key: string, chatTypes: ReadonlySet<EventType>): HandoffScan {
  const carry = index.carry;
  const kept = carry?.handoffs?.get(key);
  const scan: HandoffScan = kept && carry!.count > 0 && kept.scanned === carry!.count && kept.scanned <= index.size && kept.lanes === index.lanes.size ? kept : { stream: new StreamBuilder(), scanned: 0, lanes: 0, prev: -1 };
  if (index.handoffsName) namedHandoffs(index, scan);
  else chatTurns(index, chatTypes, scan);
  scan.scanned = index.size;
  scan.lanes = index.lanes.size;
  // kept for the next analysis; it counts once that one commits the carry to these positions
  if (carry) (carry.handoffs ??= new Map()).set(key, scan);
  return scan;
}

/** Growing columns of a stream being made. */
export class StreamBuilder {
  count = 0;
  at = new Int32Array(1024);
  from = new Int32Array(1024);
  to = new Int32Array(1024);
  readonly names: string[] = [];
  private readonly numbers = new Map<string, number>();

  push(i: number, from: string, to: string): void {
    if (this.count === this.at.length) this.grow();
    this.at[this.count] = i;
    this.from[this.count] = this.number(from);
    this.to[this.count] = this.number(to);
    this.count++;
  }

  done(): Handoffs {
    return { source: this, count: this.count, at: this.at.subarray(0, this.count), from: this.from.subarray(0, this.count), to: this.to.subarray(0, this.count), names: this.names };
  }

  private number(name: string): number {
    let k = this.numbers.get(name);
    if (k === undefined) {
      this.numbers.set(name, (k = this.names.length));
      this.names.push(name);
    }
    return k;
  }

  private grow(): void {
    const more = (a: Int32Array) => {
      const b = new Int32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.at = more(this.at);
    this.from = more(this.from);
    this.to = more(this.to);
  }
}

/** Hand-off events with a receiver, from their `from` (else agent) to it: those from `scan.scanned` on. */
function namedHandoffs(index: TraceIndex, scan: HandoffScan): void {
  const out = scan.stream;
  for (let i = scan.scanned, n = index.size; i < n; i++) {
    if (!index.isHandoff(i)) continue;
    const to = index.receiver(i);
    if (to) out.push(i, index.fromOf(i) ?? index.agentOf(i), to);
  }
}

/** A group chat's turns: an event of `types` by another agent than the previous such event answers it (the hand-off is placed at the previous one); those from `scan.scanned` on. */
function chatTurns(index: TraceIndex, types: ReadonlySet<EventType>, scan: HandoffScan): void {
  const out = scan.stream;
  let prev = scan.prev;
  for (let i = scan.scanned, n = index.size; i < n; i++) {
    if (!types.has(index.types[i])) continue;
    if (prev !== -1) {
      const from = index.agentOf(prev);
      const to = index.agentOf(i);
      if (from !== to) out.push(prev, from, to);
    }
    prev = i;
  }
  scan.prev = prev;
}
