/**
 * The events of a trace as typed columns, no object per event ({@link EventColumns}): what the
 * views and the analysis read of every event (id, time, type, agent, links, tool, sender and
 * receiver, role, measures, stop fields, trace), filled as the reader accepts each event. Content
 * and the rare fields are not kept: `TraceColumns.event(i)` reads them back from the record's bytes.
 */
import { EVENT_TYPES, STOP_REASONS, EVENT_KINDS, CALL_STATUSES, type TraceEvent, type EventType, type StopReason, type EventKind, type CallStatus } from '../schema';
import { EVENT_FIELD_NAMES, fastEventFields } from '../fast-check';
import type { EventStore, RecordScan, StoredEvent } from '../read';
import { IdTable } from '../id-table';
import { IdPlaces, scopedId } from './links';
import { NameTable } from './names';
import { resized } from './typed';

/** How many of the latest events are compared with a reference before the id table is asked. */
const NEAR = 8;

/** A link column's value for an event that names no parent. */
export const NO_LINK = -2;
/** A link column's value for an id no event carries (its name is kept: {@link EventColumns.parentName}). */
export const UNRESOLVED = -1;

const TYPE_CODE = new Map<string, number>(EVENT_TYPES.map((t, k) => [t, k]));
/** Positions of the event fields in EVENT_FIELD_NAMES (and their bits in a mask of `fastEventFields`). */
const at = (name: string): number => {
  const k = EVENT_FIELD_NAMES.indexOf(name);
  if (k === -1) throw new Error(`no event field ${name}`);
  return k;
};
const ID = at('id');
const T = at('t');
const TYPE = at('type');
const AGENT = at('agent');
const TRACE = at('trace_id');
const PARENT = at('parent');
const CAUSES = at('causes');
const TOOL = at('tool');
const FROM = at('from');
const TO = at('to');
const ROLE = at('role');
const TOKENS = at('tokens');
const COST = at('cost');
const DURATION = at('duration_s');
const REASON = at('reason');
const KIND = at('kind');
const CALL_STATUS = at('call_status');
const CONTENT = at('content');
const CREDIT = at('credit');
const HAS_TRACE = 1 << TRACE;
const HAS_PARENT = 1 << PARENT;
const HAS_CAUSES = 1 << CAUSES;
const HAS_CONTENT = 1 << CONTENT;
/** The bits of the fields {@link EventColumns} keeps in columns made when some event has them. */
const KEPT_FIELDS = [TOOL, FROM, TO, ROLE, TOKENS, COST, DURATION, CREDIT, REASON, KIND, CALL_STATUS, CONTENT].reduce((m, k) => m | (1 << k), 0);
/** The known fields no column keeps (content_ref, detail, value, source, usage, ...): an event with one is read again for them. */
const NOT_KEPT_FIELDS = EVENT_FIELD_NAMES.reduce((m, _, k) => m | (1 << k), 0) & ~KEPT_FIELDS & ~[ID, T, TYPE, AGENT, TRACE, PARENT, CAUSES].reduce((m, k) => m | (1 << k), 0);

/** Small enums: 0 when absent, else the value's position + 1. */
const REASON_CODE = new Map<string, number>(STOP_REASONS.map((r, k) => [r, k + 1]));
const KIND_CODE = new Map<string, number>(EVENT_KINDS.map((r, k) => [r, k + 1]));
const CALL_STATUS_CODE = new Map<string, number>(CALL_STATUSES.map((r, k) => [r, k + 1]));

/**
 * A trace's events in columns, index for index in file order (the object reader's `trace.events`
 * order). Per event: its id (a string: the id table of the checks and of the links reads it),
 * `t` (seconds), type (index into EVENT_TYPES), agent (into {@link agents}), parent (event index,
 * {@link NO_LINK} or {@link UNRESOLVED}) and causes (event indices from `causesAt[i]` to
 * `causesAt[i + 1]` in `causes`). Columns made only once some event has the field: tool, from,
 * to, role, trace (into {@link names}, -1 absent); tokens, cost, duration_s (NaN absent); stop
 * reason, kind, call_status (position in their list + 1, 0 absent); content length in UTF-16
 * code units (-1 absent).
 *
 * While reading, a reference resolves to the nearest earlier event carrying its id (in the event's
 * own trace); at {@link resolve}, the rest to the first event carrying it, the rest stays
 * {@link UNRESOLVED} with its name kept.
 */
export class EventColumns implements EventStore {
  private count = 0;
  private room = 0;
  readonly ids: string[] = [];
  t = new Float64Array(0);
  type = new Uint8Array(0);
  agent = new Int32Array(0);
  parent = new Int32Array(0);
  /** Event i's causes are `causes[causesAt[i] .. causesAt[i + 1])` (room + 1 entries). */
  causesAt = new Int32Array(1);
  causes = new Int32Array(0);
  private causeCount = 0;
  tool?: Int32Array;
  from?: Int32Array;
  to?: Int32Array;
  role?: Int32Array;
  trace?: Int32Array;
  tokens?: Float64Array;
  cost?: Float64Array;
  duration?: Float64Array;
  reason?: Uint8Array;
  kind?: Uint8Array;
  callStatus?: Uint8Array;
  contentChars?: Int32Array;
  /** The credit a producer gave (NaN absent). */
  credit?: Float64Array;
  /**
   * 1 when the record holds a field no column keeps (a known one such as content_ref, value or
   * source, or one beyond the schema that an importer wrote): read the record for it (`TraceColumns.event`).
   */
  beyond?: Uint8Array;
  /**
   * Where a scanned record's content is in its record's bytes (record-scanner.ts): from the record's
   * start to the content's first byte, -1 when not known (a record JSON.parse read); and to its
   * closing quote, as `~to` when the content holds an escape. {@link TraceColumns} decodes the
   * content from there when the file is unchanged since the read.
   */
  contentFrom?: Int32Array;
  contentTo?: Int32Array;
  /** Agent names (lanes), in order of first appearance. */
  readonly agents = new NameTable();
  /** Tools, senders, receivers, roles and trace ids. */
  readonly names = new NameTable();
  /** Event index -> the id its parent names, for parents no event carries. */
  private readonly parentNames = new Map<number, string>();
  /** Position in {@link causes} -> the id it names, for causes no event carries. */
  private readonly causeNames = new Map<number, string>();
  /** Where each id is, while links are being resolved (dropped by {@link done}). */
  private places?: IdPlaces = this.newPlaces();

  /**
   * The table of scoped ids -> first event carrying each, filled as events are added (the
   * cross-record checks share it: see `EventStore.idTable`); undefined once the read is done.
   */
  get idTable(): IdTable | undefined {
    return this.places?.table;
  }

  get length(): number {
    return this.count;
  }

  /** Makes room for `events` events in all, and for causes at the rate of the events so far. */
  reserve(events: number): void {
    if (events > this.room) this.grow(events);
    const causes = Math.ceil((this.causeCount / Math.max(1, this.count)) * events);
    if (causes > this.causes.length) this.causes = resized(this.causes, causes, this.causeCount, 0);
    this.places?.reserve(events);
  }

  /**
   * Appends the event a record holds when the fast check is sure of it (`fastEventFields`: no
   * object made, the record's values written into the columns and dropped); @returns the fields
   * the cross-record checks take (one object reused from event to event: read it before the next
   * add), or undefined when the record was not added (it needs zod: validate it, then {@link add}).
   */
  addValue(value: unknown): StoredEvent | undefined {
    const fields = this.fields;
    const mask = fastEventFields(value, fields);
    if (mask === -1) return undefined;
    this.write(mask, fields, (mask & HAS_CONTENT) !== 0 ? (fields[CONTENT] as string).length : -1, hasOthers(value as Record<string, unknown>, mask));
    return this.checked;
  }

  /**
   * Appends the event a line's bytes hold, read by the record scanner (src/trace/columns/record-scanner.ts):
   * `scan.fields` and `mask` as `fastEventFields` gives them, but for the content, of which the
   * scan gives the UTF-16 length and its place in the record ({@link contentFrom}).
   * @returns the fields the cross-record checks take (as {@link addValue}).
   */
  addScanned(mask: number, scan: RecordScan): StoredEvent {
    const i = this.count;
    const hasContent = (mask & HAS_CONTENT) !== 0;
    this.write(mask, scan.fields, hasContent ? scan.contentChars : -1, scan.others);
    if (hasContent) {
      (this.contentFrom ??= this.column(Int32Array, -1))[i] = scan.contentFrom;
      (this.contentTo ??= this.column(Int32Array, -1))[i] = scan.contentTo;
    }
    return this.checked;
  }

  /** Appends an accepted event's columns (the event is not kept). */
  add(event: TraceEvent): void {
    const fields = this.fields;
    const record = event as unknown as Record<string, unknown>;
    let mask = 0;
    for (let k = 0; k < EVENT_FIELD_NAMES.length; k++) {
      const v = record[EVENT_FIELD_NAMES[k]];
      if (v !== undefined) {
        fields[k] = v;
        mask |= 1 << k;
      }
    }
    this.write(mask, fields, event.content !== undefined ? event.content.length : -1, hasOthers(record, mask));
  }

  /** The fields of the record being added, by position in EVENT_FIELD_NAMES (reused from record to record). */
  private readonly fields: unknown[] = EVENT_FIELD_NAMES.map(() => undefined);
  /** What {@link addValue} gives the checks (reused: one shape, no object per event). */
  private readonly checked: StoredEvent = { id: '', t: 0, agent: '', trace_id: undefined, parent: undefined, causes: undefined, repeat: false };

  /** Appends the event whose fields are `fields` where `mask` has their bit (see `fastEventFields`), its content `contentChars` long. */
  private write(mask: number, fields: readonly unknown[], contentChars: number, others: boolean): void {
    const i = this.count;
    if (i === this.room) this.grow(Math.max(16, 2 * i));
    const id = fields[ID] as string;
    const t = fields[T] as number;
    const agent = fields[AGENT] as string;
    this.ids.push(id);
    this.t[i] = t;
    this.type[i] = TYPE_CODE.get(fields[TYPE] as string)!;
    this.agent[i] = this.agents.intern(agent);
    const trace = (mask & HAS_TRACE) !== 0 ? (fields[TRACE] as string) : undefined;
    if (trace !== undefined) (this.trace ??= this.column(Int32Array, -1))[i] = this.names.intern(trace);
    let parent: string | undefined;
    if ((mask & HAS_PARENT) === 0) this.parent[i] = NO_LINK;
    else {
      parent = fields[PARENT] as string;
      const p = this.earlier(trace, parent, i);
      this.parent[i] = p;
      if (p === UNRESOLVED) this.parentNames.set(i, parent);
    }
    let causes: string[] | undefined;
    if ((mask & HAS_CAUSES) !== 0) {
      causes = fields[CAUSES] as string[];
      for (let k = 0; k < causes.length; k++) this.addCause(this.earlier(trace, causes[k], i), causes[k]);
    }
    this.causesAt[i + 1] = this.causeCount;
    const repeat = !this.places!.add(scopedId(trace, id), i);
    this.count = i + 1;
    if ((mask & KEPT_FIELDS) !== 0) this.keep(mask, fields, i, contentChars);
    // (an empty list of causes is kept as none: the record is read for it)
    if (others || (mask & NOT_KEPT_FIELDS) !== 0 || causes?.length === 0) (this.beyond ??= this.column(Uint8Array, 0))[i] = 1;
    const checked = this.checked;
    checked.id = id;
    checked.t = t;
    checked.agent = agent;
    checked.trace_id = trace;
    checked.parent = parent;
    checked.causes = causes;
    checked.repeat = repeat;
  }

  /** The columns of the fields kept when some event has them (`mask`: those event i has). */
  private keep(mask: number, fields: readonly unknown[], i: number, contentChars: number): void {
    if ((mask & (1 << TOOL)) !== 0) (this.tool ??= this.column(Int32Array, -1))[i] = this.names.intern(fields[TOOL] as string);
    if ((mask & (1 << FROM)) !== 0) (this.from ??= this.column(Int32Array, -1))[i] = this.names.intern(fields[FROM] as string);
    if ((mask & (1 << TO)) !== 0) (this.to ??= this.column(Int32Array, -1))[i] = this.names.intern(fields[TO] as string);
    if ((mask & (1 << ROLE)) !== 0) (this.role ??= this.column(Int32Array, -1))[i] = this.names.intern(fields[ROLE] as string);
    if ((mask & (1 << TOKENS)) !== 0) (this.tokens ??= this.column(Float64Array, NaN))[i] = fields[TOKENS] as number;
    if ((mask & (1 << COST)) !== 0) (this.cost ??= this.column(Float64Array, NaN))[i] = fields[COST] as number;
    if ((mask & (1 << DURATION)) !== 0) (this.duration ??= this.column(Float64Array, NaN))[i] = fields[DURATION] as number;
    if ((mask & (1 << CREDIT)) !== 0) (this.credit ??= this.column(Float64Array, NaN))[i] = fields[CREDIT] as number;
    if ((mask & (1 << REASON)) !== 0) (this.reason ??= this.column(Uint8Array, 0))[i] = REASON_CODE.get(fields[REASON] as string)!;
    if ((mask & (1 << KIND)) !== 0) (this.kind ??= this.column(Uint8Array, 0))[i] = KIND_CODE.get(fields[KIND] as string)!;
    if ((mask & (1 << CALL_STATUS)) !== 0) (this.callStatus ??= this.column(Uint8Array, 0))[i] = CALL_STATUS_CODE.get(fields[CALL_STATUS] as string)!;
    if ((mask & (1 << CONTENT)) !== 0) (this.contentChars ??= this.column(Int32Array, -1))[i] = contentChars;
  }

  /**
   * The nearest event before `i` carrying `id` in trace `trace`, or {@link UNRESOLVED}: the few
   * events just before i are looked at first (a reference most often names one of them).
   */
  private earlier(trace: string | undefined, id: string, i: number): number {
    const ids = this.ids;
    for (let j = i - 1; j >= 0 && j >= i - NEAR; j--) if (ids[j] === id && this.traceId(j) === trace) return j;
    return this.places!.latest(scopedId(trace, id));
  }

  private addCause(target: number, name: string): void {
    const k = this.causeCount;
    if (k === this.causes.length) this.causes = resized(this.causes, Math.max(16, 2 * k), k, 0);
    this.causes[k] = target;
    if (target === UNRESOLVED) this.causeNames.set(k, name);
    this.causeCount = k + 1;
  }

  /** A new column of the room's size, every entry `absent`. */
  private column<T extends Int32Array | Float64Array | Uint8Array>(kind: new (n: number) => T, absent: number): T {
    const out = new kind(this.room);
    if (absent !== 0) out.fill(absent);
    return out;
  }

  /** Gives every column room for `size` events. */
  private grow(size: number): void {
    const n = this.count;
    this.room = size;
    this.t = resized(this.t, size, n, 0);
    this.type = resized(this.type, size, n, 0);
    this.agent = resized(this.agent, size, n, 0);
    this.parent = resized(this.parent, size, n, 0);
    this.causesAt = resized(this.causesAt, size + 1, n + 1, 0);
    if (this.tool) this.tool = resized(this.tool, size, n, -1);
    if (this.from) this.from = resized(this.from, size, n, -1);
    if (this.to) this.to = resized(this.to, size, n, -1);
    if (this.role) this.role = resized(this.role, size, n, -1);
    if (this.trace) this.trace = resized(this.trace, size, n, -1);
    if (this.tokens) this.tokens = resized(this.tokens, size, n, NaN);
    if (this.cost) this.cost = resized(this.cost, size, n, NaN);
    if (this.duration) this.duration = resized(this.duration, size, n, NaN);
    if (this.credit) this.credit = resized(this.credit, size, n, NaN);
    if (this.beyond) this.beyond = resized(this.beyond, size, n, 0);
    if (this.reason) this.reason = resized(this.reason, size, n, 0);
    if (this.kind) this.kind = resized(this.kind, size, n, 0);
    if (this.callStatus) this.callStatus = resized(this.callStatus, size, n, 0);
    if (this.contentChars) this.contentChars = resized(this.contentChars, size, n, -1);
    if (this.contentFrom) this.contentFrom = resized(this.contentFrom, size, n, -1);
    if (this.contentTo) this.contentTo = resized(this.contentTo, size, n, -1);
  }

  /**
   * Lets go of the room kept for more events (the read is done), unless it is at most an eighth of
   * the events (room reserved from an estimate: copying the columns would cost more time than the
   * room holds memory).
   */
  trim(): void {
    if (this.room - this.count > this.count / 8) this.grow(this.count);
    if (this.causes.length - this.causeCount > this.causeCount / 8) this.causes = this.causes.slice(0, this.causeCount);
  }

  private newPlaces(): IdPlaces {
    return new IdPlaces((i) => scopedId(this.traceId(i), this.ids[i]));
  }

  /**
   * Names trace `id` on the events from `from` on that name none (a file holding several traces).
   * Their links are resolved again at {@link resolve}, in the traces they are then in.
   */
  tag(from: number, id: string): void {
    const n = this.count;
    if (from >= n) return;
    const trace = (this.trace ??= this.column(Int32Array, -1));
    const k = this.names.intern(id);
    for (let i = from; i < n; i++) if (trace[i] === -1) trace[i] = k;
    this.retagged = true;
  }

  /** True once {@link tag} named a trace on events: the links found while reading are found again. */
  private retagged = false;

  /** Not offered: a trace read into columns is read whole (a growing read keeps objects). */
  copy(): EventStore {
    throw new Error('EventColumns are read whole; a growing read keeps its events as objects');
  }

  /**
   * Ends the read: links resolved in the traces the events are in at the end (the nearest earlier
   * event carrying the id, else the first), the room left over let go.
   */
  resolve(): void {
    let places = this.places!;
    if (this.retagged) {
      places = this.newPlaces();
      for (let i = 0; i < this.count; i++) {
        const trace = this.traceId(i);
        if (this.parent[i] !== NO_LINK) this.setParent(i, places.latest(scopedId(trace, this.parentName(i)!)));
        for (let k = this.causesAt[i]; k < this.causesAt[i + 1]; k++) this.setCause(k, places.latest(scopedId(trace, this.causeName(k))));
        places.add(scopedId(trace, this.ids[i]), i);
      }
    }
    for (const [i, name] of [...this.parentNames]) this.setParent(i, places.firstOf(scopedId(this.traceId(i), name)), name);
    if (this.causeNames.size > 0) {
      for (let i = 0, k = 0; i < this.count; i++) {
        for (; k < this.causesAt[i + 1]; k++) {
          const name = this.causeNames.get(k);
          if (name !== undefined) this.setCause(k, places.firstOf(scopedId(this.traceId(i), name)), name);
        }
      }
    }
    this.places = places;
    this.trim();
  }

  /**
   * The first event carrying `id` (in any trace of the file), or {@link UNRESOLVED}: for the ends
   * of edges, after {@link resolve}; {@link done} lets go of the table it reads.
   */
  firstOf(id: string): number {
    if (this.trace !== undefined) {
      if (!this.plain) {
        const ids = this.ids;
        this.plain = new IdTable(this.count, (k) => ids[k]);
        for (let k = 0; k < this.count; k++) this.plain.add(ids[k], k);
      }
      return this.plain.get(id) ?? UNRESOLVED;
    }
    return this.places!.firstOf(scopedId(undefined, id));
  }

  /**
   * While reading, before any event names a trace: the first event read so far carrying `id`
   * (final: every later event comes after it), else {@link UNRESOLVED} (a later event may carry it;
   * and once events name traces, {@link firstOf} answers at the end). The few latest events are
   * looked at first while no id is carried twice (an edge most often names events just read).
   */
  firstSoFar(id: string): number {
    const places = this.places;
    if (this.trace !== undefined || places === undefined) return UNRESOLVED;
    if (!places.repeated) {
      const ids = this.ids;
      const n = this.count;
      for (let j = n - 1; j >= 0 && j >= n - NEAR; j--) if (ids[j] === id) return j;
    }
    return places.firstOf(scopedId(undefined, id));
  }

  /** A table of plain ids, made by {@link firstOf} when events name traces. */
  private plain?: IdTable;

  /** Ends the read: the tables that find ids are let go. */
  done(): void {
    this.places = undefined;
    this.plain = undefined;
    this.lastCauses = undefined;
  }

  /** Sets event i's parent to `target` (a name kept when it is {@link UNRESOLVED}). */
  private setParent(i: number, target: number, name = target === UNRESOLVED ? this.parentName(i) : undefined): void {
    if (target === UNRESOLVED) this.parentNames.set(i, name!);
    else this.parentNames.delete(i);
    this.parent[i] = target;
  }

  private setCause(k: number, target: number, name = target === UNRESOLVED ? this.causeName(k) : undefined): void {
    this.lastCauses = undefined;
    if (target === UNRESOLVED) this.causeNames.set(k, name!);
    else this.causeNames.delete(k);
    this.causes[k] = target;
  }

  /** The id event i's `parent` names, or undefined. */
  parentName(i: number): string | undefined {
    const p = this.parent[i];
    return p >= 0 ? this.ids[p] : p === UNRESOLVED ? this.parentNames.get(i) : undefined;
  }

  /** The id the cause at position `k` of {@link causes} names. */
  causeName(k: number): string {
    const c = this.causes[k];
    return c >= 0 ? this.ids[c] : this.causeNames.get(k)!;
  }

  // CheckedEvents: what the cross-record checks read again

  idOf(i: number): string {
    return this.ids[i];
  }
  timeOf(i: number): number {
    return this.t[i];
  }
  traceId(i: number): string | undefined {
    const trace = this.trace;
    if (trace === undefined) return undefined;
    const k = trace[i];
    return k === -1 ? undefined : this.names.names[k];
  }
  traceOf(i: number): string | undefined {
    return this.traceId(i);
  }
  agentOf(i: number): string {
    return this.agents.names[this.agent[i]];
  }
  parentOf(i: number): string | undefined {
    return this.parentName(i);
  }
  /**
   * The ids event i's causes name, or undefined for none. The last list made is given again while
   * the same event is asked (the checks ask once per cause of a list: a list of 100k causes made
   * 100k times was minutes).
   */
  causesOf(i: number): readonly string[] | undefined {
    const last = this.lastCauses;
    if (last !== undefined && last.i === i) return last.list;
    const from = this.causesAt[i];
    const to = this.causesAt[i + 1];
    if (from === to) return undefined;
    const out: string[] = [];
    for (let k = from; k < to; k++) out.push(this.causeName(k));
    this.lastCauses = { i, list: out };
    return out;
  }

  /** The list {@link causesOf} made last (let go when a cause changes, and at {@link done}). */
  private lastCauses?: { i: number; list: readonly string[] };

  /**
   * True when `event` (a record read again from disk) holds what the columns keep of event i: its
   * id, time, type, agent, trace (when it names one), parent and causes (the ids they name), tool,
   * sender, receiver, role, measures, stop fields and content length. A record rewritten in place
   * with another value of any of these is not event i (fields not kept, such as content of the same
   * length, cannot be told apart: as for long content, src/engine/long-content.ts).
   */
  holds(i: number, event: TraceEvent): boolean {
    if (event.id !== this.ids[i] || !Object.is(event.t, this.t[i]) || event.type !== this.typeOf(i) || event.agent !== this.agentOf(i)) return false;
    if (event.trace_id !== undefined && event.trace_id !== this.traceId(i)) return false;
    if (event.parent !== this.parentName(i)) return false;
    const from = this.causesAt[i];
    const causes = event.causes ?? [];
    if (causes.length !== this.causesAt[i + 1] - from) return false;
    for (let k = 0; k < causes.length; k++) if (causes[k] !== this.causeName(from + k)) return false;
    if (event.tool !== this.nameAt(this.tool, i) || event.from !== this.nameAt(this.from, i) || event.to !== this.nameAt(this.to, i) || event.role !== this.nameAt(this.role, i)) return false;
    if (!sameMeasure(event.tokens, this.tokens, i) || !sameMeasure(event.cost, this.cost, i) || !sameMeasure(event.duration_s, this.duration, i) || !sameMeasure(event.credit, this.credit, i)) return false;
    if (event.reason !== this.reasonOf(i) || event.kind !== this.kindOf(i) || event.call_status !== this.callStatusOf(i)) return false;
    const chars = this.contentChars === undefined ? -1 : this.contentChars[i];
    return (event.content === undefined ? -1 : event.content.length) === chars;
  }

  /** True when event i has content (a string, maybe empty). */
  hasContent(i: number): boolean {
    return this.contentChars !== undefined && this.contentChars[i] !== -1;
  }

  /** The event type of event i. */
  typeOf(i: number): EventType {
    return EVENT_TYPES[this.type[i]];
  }
  /** A measure column's value at i (tokens, cost, duration, credit), or undefined (NaN or no column: absent). */
  measureAt(column: Float64Array | undefined, i: number): number | undefined {
    if (column === undefined) return undefined;
    const v = column[i];
    return Number.isNaN(v) ? undefined : v;
  }

  /** Event i as the columns keep it: the fields {@link holds} compares, but content (each field only when the event has it). */
  kept(i: number): TraceEvent {
    const event: Record<string, unknown> = { id: this.ids[i], t: this.t[i], type: this.typeOf(i), agent: this.agentOf(i) };
    const fields: [string, unknown][] = [
      ['trace_id', this.traceId(i)],
      ['parent', this.parentName(i)],
      ['causes', this.causesOf(i)],
      ['tool', this.nameAt(this.tool, i)],
      ['from', this.nameAt(this.from, i)],
      ['to', this.nameAt(this.to, i)],
      ['role', this.nameAt(this.role, i)],
      ['tokens', this.measureAt(this.tokens, i)],
      ['cost', this.measureAt(this.cost, i)],
      ['duration_s', this.measureAt(this.duration, i)],
      ['credit', this.measureAt(this.credit, i)],
      ['reason', this.reasonOf(i)],
      ['kind', this.kindOf(i)],
      ['call_status', this.callStatusOf(i)],
    ];
    for (const [name, value] of fields) if (value !== undefined) event[name] = value;
    return event as unknown as TraceEvent;
  }

  /** A name column's value at i (tool, from, to, role), or undefined. */
  nameAt(column: Int32Array | undefined, i: number): string | undefined {
    const k = column === undefined ? -1 : column[i];
    return k === -1 ? undefined : this.names.names[k];
  }
  /** Event i's stop reason, kind and call status, or undefined. */
  reasonOf(i: number): StopReason | undefined {
    const k = this.reason?.[i] ?? 0;
    return k === 0 ? undefined : STOP_REASONS[k - 1];
  }
  kindOf(i: number): EventKind | undefined {
    const k = this.kind?.[i] ?? 0;
    return k === 0 ? undefined : EVENT_KINDS[k - 1];
  }
  callStatusOf(i: number): CallStatus | undefined {
    const k = this.callStatus?.[i] ?? 0;
    return k === 0 ? undefined : CALL_STATUSES[k - 1];
  }
}

/** True when `record` has more fields than the known ones of `mask` (fields beyond the schema): counted, no list made. */
function hasOthers(record: Record<string, unknown>, mask: number): boolean {
  let keys = 0;
  for (const _ in record) keys++;
  let known = 0;
  for (let m = mask; m !== 0; m &= m - 1) known++;
  return keys > known;
}

/** True when a measure `value` (undefined: absent) is what `column` keeps at i (NaN or no column: absent). */
function sameMeasure(value: number | undefined, column: Float64Array | undefined, i: number): boolean {
  const kept = column === undefined ? NaN : column[i];
  return value === undefined ? Number.isNaN(kept) : Object.is(value, kept);
}
