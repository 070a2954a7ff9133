/**
 * Checks across records, shared by every reader and importer: duplicate ids, edges and references
 * to missing events, and time running backwards within one agent's lane.
 *
 * {@link CrossRecordChecks} takes the records one at a time, as a reader makes them: each id, lane
 * and reference is looked at while the record is fresh in the cache, and only what cannot be
 * decided yet (a reference to a later line) waits for the end. {@link checkTrace} runs it over
 * finished lists. Both give the same problems in the same order.
 */
import { IdTable } from './id-table';
import { KeyTable } from './key-table';
import type { Problem, Range } from './model';
import { preview } from './preview';
import type { TraceEdge, TraceEvent } from './schema';

/** Finds the range of a field of the i-th event or edge (falls back to the record's range). */
export type FieldLocator = (kind: 'event' | 'edge', index: number, path: (string | number)[]) => Range;

/** A problem found, positioned only when it is written out (a field's range can cost a parse). */
interface Found {
  kind: 'event' | 'edge';
  index: number;
  path: (string | number)[];
  severity: Problem['severity'];
  message: string;
}

/** How many of the latest events are compared with a reference before the set is asked. */
const NEAR = 8;
/** Size of the ring of the latest events' ids (more than the NEAR + 1 an edge looks at). */
const RECENT = 16;

/**
 * The key of an id or agent in trace `trace` (undefined: the event names none): ids, repeats and
 * lanes are per trace when events name theirs. One key per (trace, id) pair, whatever the strings
 * hold: a NUL in either is written NUL U+0001, and the two are joined by two NULs, which neither
 * then holds (so trace "" and id "" is not the id "\u0000" of an event naming no trace). The
 * column reader shares the table of these keys (src/trace/columns/links.ts).
 */
export function scopedId(trace: string | undefined, id: string): string {
  if (trace === undefined) return id.indexOf('\u0000') === -1 ? id : escapedNul(id);
  return `${escapedNul(trace)}\u0000\u0000${escapedNul(id)}`;
}

/** `s` with each NUL followed by U+0001 (never ends in a NUL, never holds two in a row). */
function escapedNul(s: string): string {
  return s.indexOf('\u0000') === -1 ? s : s.replaceAll('\u0000', '\u0000\u0001');
}

/**
 * The fields of the events checked so far that the checks read again, by event index: a list of
 * event objects ({@link EventArray}) or a trace kept in columns (src/trace/columns).
 */
export interface CheckedEvents {
  /** Number of events. */
  readonly length: number;
  idOf(i: number): string;
  /** The event's `trace_id` (the one the reader tagged it with, once it did), or undefined. */
  traceOf(i: number): string | undefined;
  /** Seconds since the trace start. */
  timeOf(i: number): number;
  agentOf(i: number): string;
  /** The id its `parent` names, or undefined. */
  parentOf(i: number): string | undefined;
  /** The ids its `causes` names, or undefined. */
  causesOf(i: number): readonly string[] | undefined;
}

/**
 * {@link CheckedEvents} over a list of event objects (read as they are when asked), held by `source`
 * (a holder whose list may be replaced by a copy of it: the reader's store, src/trace/read.ts).
 */
export class EventArray implements CheckedEvents {
  constructor(private readonly source: { readonly list: readonly TraceEvent[] }) {}
  get length(): number {
    return this.source.list.length;
  }
  idOf(i: number): string {
    return this.source.list[i].id;
  }
  traceOf(i: number): string | undefined {
    return this.source.list[i].trace_id;
  }
  timeOf(i: number): number {
    return this.source.list[i].t;
  }
  agentOf(i: number): string {
    return this.source.list[i].agent;
  }
  parentOf(i: number): string | undefined {
    return this.source.list[i].parent;
  }
  causesOf(i: number): readonly string[] | undefined {
    return this.source.list[i].causes;
  }
}

/** The fields of one event the checks take as it comes ({@link CrossRecordChecks.event}). */
export type CheckedEvent = Pick<TraceEvent, 'id' | 't' | 'agent' | 'trace_id' | 'parent' | 'causes'>;

/**
 * The cross-record checks, fed event by event and edge by edge in file order (events and edges may
 * interleave), then {@link finish}ed. Errors: edge to a missing event. Warnings: a repeated event
 * id (every event is kept, keyed by its index; docs/model.md), `t` lower than the previous event of
 * the same lane, `parent`/`causes` naming a missing event or a repeated id (which resolves to the
 * nearest earlier event carrying it). Cost: one set lookup per event, reference and edge end.
 */
export class CrossRecordChecks {
  /** Scoped ids (`trace_id` NUL `id` for events that name a trace; the id itself otherwise) -> first event index (the ids are read from the events). */
  private readonly scoped: IdTable;
  /** Plain ids, for the edges; the same table as {@link scoped} until an event names a trace. */
  private ids: IdTable;
  /** Scoped id -> how many events carry it, for the ids carried more than once. */
  private readonly repeated = new Map<string, number>();
  /** Lane -> index of its latest event so far (its time read from the event: no object per lane, a trace can have 1M agents; past a few thousand lanes, no Map entry either). */
  private readonly lanes = new KeyTable((i) => scopedId(this.events.traceOf(i), this.events.agentOf(i)));
  /** Ids and trace ids of the latest {@link RECENT} events checked (event i at i % RECENT): compared without reading the events, which come in many shapes. */
  private readonly recentIds: string[] = new Array<string>(RECENT).fill('');
  private readonly recentTraces: (string | undefined)[] = new Array<string | undefined>(RECENT).fill(undefined);
  /** Number of events checked. */
  private seen = 0;
  private readonly eventProblems: Found[] = [];
  /** References not found when their event came (a later line, or missing): event index, field, position. */
  private readonly laterRefs: { i: number; field: 'parent' | 'causes'; k: number }[] = [];
  /** Edge ends not found when their edge came. */
  private readonly laterEnds: { i: number; end: 'src' | 'dst' }[] = [];

  /**
   * @param events the checked events (index for index), read again at {@link finish}.
   * @param shared the store's own table of scoped ids (same keys) -> first event index, which it
   *   fills as it adds each event, before the checks see it (src/trace/columns): used instead of a
   *   table of the checks' own (one insert per event, not two); {@link event}'s `repeat` (or,
   *   without it, the table's value for the event's id) says whether an earlier event carries its id.
   */
  constructor(
    private readonly events: CheckedEvents,
    private readonly shared?: IdTable,
  ) {
    this.scoped = shared ?? new IdTable(0, (i) => scopedId(this.events.traceOf(i), this.events.idOf(i)));
    this.ids = this.scoped;
  }

  /** Makes room for `events` events in all (an estimate), so that the id table is built once. */
  reserve(events: number): void {
    this.scoped.reserve(events);
  }

  /**
   * A table of the plain ids: the scoped one, read by plain id. (Made here, not in {@link event}: a
   * function making a closure that captures `this` allocates a context at every call, even when
   * the closure is not made; at 1M events that was 40 MB.)
   */
  private plainIds(): IdTable {
    return this.scoped.copy((k) => this.events.idOf(k));
  }

  /**
   * Checks `events[i]`, the next event in file order. @param repeat with a shared id table (see the
   * constructor): true when an earlier event carries its id in its trace, as the store found when
   * it added the event; undefined: the table is asked.
   */
  event(event: CheckedEvent, i: number, repeat?: boolean): void {
    // each field read once (events come in many shapes: every read is a lookup)
    const id = event.id;
    const trace = event.trace_id;
    const scoped = this.scoped;
    if (trace !== undefined && this.ids === scoped) this.ids = this.plainIds(); // until now the keys were the ids
    if (this.ids !== scoped) this.ids.add(id, i);
    const key = scopedId(trace, id);
    const shared = this.shared;
    if (shared === undefined ? !scoped.add(key, i) : (repeat ?? shared.get(key) !== i)) {
      this.repeated.set(key, (this.repeated.get(key) ?? 1) + 1);
      this.eventProblems.push({
        kind: 'event',
        index: i,
        path: ['id'],
        severity: 'warning',
        message: `duplicate event id ${preview(id)}: both events are kept; a "causes" or "parent" naming it means the nearest earlier one`,
      });
    }
    const agent = event.agent;
    const t = event.t;
    const lane = scopedId(trace, agent);
    const latest = this.lanes.get(lane);
    if (latest === undefined || t >= this.events.timeOf(latest)) this.lanes.set(lane, i);
    else {
      const events = this.events;
      this.eventProblems.push({
        kind: 'event',
        index: i,
        path: ['t'],
        severity: 'warning',
        message: `time runs backwards in lane ${preview(agent)}: t=${t} s after t=${events.timeOf(latest)} s (event ${preview(events.idOf(latest))})`,
      });
    }
    // a reference found now is found at the end too (ids are only added); the rest waits
    const parent = event.parent;
    if (parent !== undefined && !this.named(trace, parent, i)) this.laterRefs.push({ i, field: 'parent', k: 0 });
    const causes = event.causes;
    if (causes !== undefined) for (let k = 0; k < causes.length; k++) if (!this.named(trace, causes[k], i)) this.laterRefs.push({ i, field: 'causes', k });
    if (i === this.seen) {
      this.recentIds[i % RECENT] = id;
      this.recentTraces[i % RECENT] = trace;
    }
    this.seen++;
  }

  /** Checks `edge`, the i-th edge in file order. */
  edge(edge: TraceEdge, i: number): void {
    if (!this.isId(edge.src)) this.laterEnds.push({ i, end: 'src' });
    if (!this.isId(edge.dst)) this.laterEnds.push({ i, end: 'dst' });
  }

  /**
   * True when an event before `i` in trace `trace` (undefined: none named) carries `ref`: the few
   * events just before it are looked at first (a reference most often names one of them), then the set.
   */
  private named(trace: string | undefined, ref: string, i: number): boolean {
    if (i === this.seen) {
      // the events before i are the latest ones checked
      for (let j = i - 1; j >= 0 && j >= i - NEAR; j--) if (this.recentIds[j % RECENT] === ref && this.recentTraces[j % RECENT] === trace) return true;
    } else {
      const events = this.events;
      for (let j = i - 1; j >= 0 && j >= i - NEAR; j--) if (events.idOf(j) === ref && events.traceOf(j) === trace) return true;
    }
    return this.scoped.has(scopedId(trace, ref));
  }

  /** True when an event checked so far carries `id` (the latest few looked at first: an edge follows its events). */
  private isId(id: string): boolean {
    const last = this.events.length - 1;
    if (last === this.seen - 1) {
      for (let j = last; j >= 0 && j >= last - NEAR; j--) if (this.recentIds[j % RECENT] === id) return true;
    } else for (let j = last; j >= 0 && j >= last - NEAR; j--) if (this.events.idOf(j) === id) return true;
    return this.hasId(id);
  }

  /** True when an event checked so far carries `id`, in any trace. */
  private hasId(id: string): boolean {
    // while no event named a trace, the scoped table is the table of ids, with their keys
    return this.ids.has(this.ids === this.scoped ? scopedId(undefined, id) : id);
  }

  /**
   * Appends the problems to `problems`, in this order: per event (repeated id, time), references
   * (in event order), edges (in edge order).
   * @param edgeEnd the id at end `end` of the i-th edge checked.
   */
  finish(edgeEnd: (i: number, end: 'src' | 'dst') => string, locate: FieldLocator, problems: Problem[]): void {
    const found = [...this.eventProblems];
    const refProblem = (i: number, field: 'parent' | 'causes', k: number, message: string) =>
      found.push({ kind: 'event', index: i, path: field === 'parent' ? [field] : [field, k], severity: 'warning', message });
    const checkRef = (i: number, field: 'parent' | 'causes', k: number) => {
      const events = this.events;
      const ref = field === 'parent' ? events.parentOf(i)! : events.causesOf(i)![k];
      const key = scopedId(events.traceOf(i), ref);
      const carriers = this.repeated.get(key);
      if (carriers !== undefined) refProblem(i, field, k, `"${field}" names ${preview(ref)}, which ${carriers} events carry; it resolves to the nearest earlier one`);
      if (!this.scoped.has(key)) refProblem(i, field, k, `"${field}" names a missing event ${preview(ref)}`);
    };
    if (this.repeated.size === 0) {
      for (const r of this.laterRefs) checkRef(r.i, r.field, r.k);
    } else {
      // a repeated id: any reference may name it, so all are looked at again
      const events = this.events;
      for (let i = 0; i < events.length; i++) {
        if (events.parentOf(i) !== undefined) checkRef(i, 'parent', 0);
        const causes = events.causesOf(i);
        if (causes !== undefined) for (let k = 0; k < causes.length; k++) checkRef(i, 'causes', k);
      }
    }
    for (const { i, end } of this.laterEnds) {
      const id = edgeEnd(i, end);
      if (!this.hasId(id)) found.push({ kind: 'edge', index: i, path: [end], severity: 'error', message: `edge ${end} ${preview(id)} is not an event of this trace` });
    }
    // each range is asked for just before its problem is added (some callers note the file then)
    for (const f of found) problems.push({ severity: f.severity, message: f.message, range: locate(f.kind, f.index, f.path) });
  }
}

/**
 * Appends cross-record problems to `problems` ({@link CrossRecordChecks} over finished lists).
 * @param events events in file order; @param edges edges in file order.
 */
export function checkTrace(
  events: readonly TraceEvent[],
  edges: readonly TraceEdge[],
  locate: FieldLocator,
  problems: Problem[],
): void {
  const checks = new CrossRecordChecks(new EventArray({ list: events }));
  for (let i = 0; i < events.length; i++) checks.event(events[i], i);
  for (let i = 0; i < edges.length; i++) checks.edge(edges[i], i);
  checks.finish((i, end) => edges[i][end], locate, problems);
}

/**
 * {@link checkTrace} over events read through {@link CheckedEvents} (a trace in columns): each
 * event's fields are read from `events` in turn.
 * @param edgeCount number of edges; @param edgeEnd the id at an end of the i-th edge.
 */
export function checkEvents(events: CheckedEvents, edgeCount: number, edgeEnd: (i: number, end: 'src' | 'dst') => string, locate: FieldLocator, problems: Problem[]): void {
  const checks = new CrossRecordChecks(events);
  for (let i = 0; i < events.length; i++) {
    checks.event({ id: events.idOf(i), t: events.timeOf(i), agent: events.agentOf(i), trace_id: events.traceOf(i), parent: events.parentOf(i), causes: events.causesOf(i) as string[] | undefined }, i);
  }
  for (let i = 0; i < edgeCount; i++) checks.edge({ src: edgeEnd(i, 'src'), dst: edgeEnd(i, 'dst') } as TraceEdge, i);
  checks.finish(edgeEnd, locate, problems);
}

