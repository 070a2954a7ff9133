/**
 * The fingerprints of a trace's events (trace-index.ts): per distinct (agent's lane, canonical type,
 * target, hash of the normalized content), the position of its first event, found through small
 * numbers in order of first appearance (a target per distinct `to ?? tool`, a prefix per distinct
 * (target, lane, type), a fingerprint per distinct (prefix, content hash)), each in a table of
 * typed arrays but the targets' (pair-table.ts).
 *
 * A table scans positions in time order and can go on later from where it stopped: a growing trace
 * (prefix-carry.ts) keeps it with the fingerprints of the positions it scanned, so an append
 * numbers its new events only. Lanes are numbered in order of first appearance in time order, so a
 * lane's number, and every number here, stays what it was while the old events keep their places.
 */
import type { Arena } from './arena';
import { PairNumbering } from './pair-table';
import { withRoom } from './prefix-carry';
import { EVENT_TYPES, type EventType } from '../trace/schema';

/** A small number per type of the vocabulary (its place in it). */
const TYPE_CODES = new Map<string, number>(EVENT_TYPES.map((t, k) => [t, k]));

/** The numbering of fingerprints (see the module's comment), with what it scanned. */
export class FingerprintTable {
  /** Positions scanned: [0, scanned). */
  scanned = 0;
  /** Per position scanned, its fingerprint: the position of the first event with the same one, or `-1 - position` for an event without content (never repeated). */
  column: Int32Array;
  /** Events scanned that no agent wrote (NOT_AGENT_OUTPUT_KINDS), counted with the fingerprints. */
  injected = 0;
  private readonly targets = new Map<string, number>();
  /** (target, lane and type as one number) -> prefix, numbered in order of first appearance. */
  private readonly prefixes: PairNumbering;
  /** Prefixes of traces too wide for a pair of 32-bit numbers (2^24 lanes or more, an importer's 33rd type of its own): -1, -2, ... */
  private readonly widePrefixes = new Map<string, number>();
  /** Codes of types outside the vocabulary (an importer's own), from 32 on. */
  private readonly otherTypes = new Map<string, number>();
  /** (prefix, content hash) -> fingerprint number. */
  private readonly numbers: PairNumbering;
  /** Fingerprint number -> position of its first event. */
  private firstOf: Int32Array;

  /**
   * @param expected positions to come (an upper bound is fine: tables grow).
   * @param arena where the tables are made (given back with the index's scratch), else typed arrays of their own (a table kept between analyses).
   */
  constructor(
    expected: number,
    private readonly arena?: Arena,
  ) {
    this.numbers = new PairNumbering(expected, arena);
    this.prefixes = new PairNumbering(0, arena);
    this.firstOf = arena ? arena.int32(Math.max(16, expected)) : new Int32Array(Math.max(16, expected));
    this.column = arena ? new Int32Array(0) : new Int32Array(withRoom(expected));
  }

  /**
   * The number of an event's lane, type and target (its fingerprint's prefix): a few distinct ones, so a small table.
   * @param lane the event's lane number; @param type its canonical type; @param target `to ?? tool ?? ''`.
   */
  prefix(lane: number, type: EventType, target: string): number {
    let targetNo = this.targets.get(target);
    if (targetNo === undefined) this.targets.set(target, (targetNo = this.targets.size));
    const code = this.typeCode(type);
    // a pair of 32-bit numbers (typed-array hashing: a map of number keys took a boxed double per event) while lanes < 2^24 and types < 64, else a string key
    return lane < 1 << 24 && code < 64 ? this.prefixes.number(targetNo, lane * 64 + code) : this.widePrefix(lane, type, targetNo);
  }

  /**
   * The fingerprint of the event at `pos` (the position of its first event with the same lane,
   * type, target and content hash), numbering it when new. Positions come in time order.
   * @param prefix the event's {@link prefix}; @param hash its content's `normalizedHash` (32-bit).
   * The table of (prefix, hash) pairs is as large as the trace, and each look into it a miss of the
   * processor's caches: a caller that asks for many in a loop of their own (trace-index.ts) lets the
   * processor wait for several at once.
   */
  first(pos: number, prefix: number, hash: number): number {
    const before = this.numbers.size;
    const no = this.numbers.number(prefix, hash);
    if (no < before) return this.firstOf[no];
    if (no >= this.firstOf.length) {
      const grown = this.arena ? this.arena.int32(this.firstOf.length * 2) : new Int32Array(this.firstOf.length * 2);
      grown.set(this.firstOf);
      this.firstOf = grown;
    }
    this.firstOf[no] = pos;
    return pos;
  }

  /**
   * Keeps the fingerprints of positions [scanned, n) from `fingerprints` (a table kept between
   * analyses: its column grows), and marks them scanned.
   */
  keep(fingerprints: Int32Array, n: number): void {
    if (this.column.length < n) {
      const grown = new Int32Array(Math.max(withRoom(n), Math.ceil(this.column.length * 1.5)));
      grown.set(this.column.subarray(0, this.scanned));
      this.column = grown;
    }
    this.column.set(fingerprints.subarray(this.scanned, n), this.scanned);
    this.scanned = n;
  }

  /** A small number per type: its place in the vocabulary, else one given in order of appearance. */
  private typeCode(type: string): number {
    const code = TYPE_CODES.get(type);
    if (code !== undefined) return code;
    let other = this.otherTypes.get(type);
    if (other === undefined) this.otherTypes.set(type, (other = 32 + this.otherTypes.size));
    return other;
  }

  private widePrefix(lane: number, type: EventType, target: number): number {
    const key = `${lane}\u0000${type}\u0000${target}`;
    let prefix = this.widePrefixes.get(key);
    if (prefix === undefined) this.widePrefixes.set(key, (prefix = -1 - this.widePrefixes.size));
    return prefix;
  }
}
