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

/** The key of an id or agent in its trace: ids, repeats and lanes are per trace when events name theirs. */
function scope(e: TraceEvent, id: string): string {
  return e.trace_id === undefined ? id : `${e.trace_id}\u0000${id}`;
}

/**
 * The cross-record checks, fed event by event and edge by edge in file order (events and edges may
 * interleave), then {@link finish}ed. Errors: edge to a missing event. Warnings: a repeated event
 * id (every event is kept, keyed by its index; docs/model.md), `t` lower than the previous event of
 * the same lane, `parent`/`causes` naming a missing event or a repeated id (which resolves to the
 * nearest earlier event carrying it). Cost: one set lookup per event, reference and edge end.
 */
export class CrossRecordChecks {
  /** Scoped ids (`trace_id` NUL `id` for events that name a trace; the id itself otherwise) -> first event index (the ids are read from the events). */
  private readonly scoped = new IdTable(0, (i) => scope(this.events[i], this.events[i].id));
  /** Plain ids, for the edges; the same table as {@link scoped} until an event names a trace. */
  private ids: IdTable = this.scoped;
  /** Scoped id -> how many events carry it, for the ids carried more than once. */
  private readonly repeated = new Map<string, number>();
  /** Lane -> index of its latest event so far (its time read from the event: no object per lane, a trace can have 1M agents; past a few thousand lanes, no Map entry either). */
  private readonly lanes = new KeyTable((i) => this.laneOf(this.events[i]));
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

  /** @param events the list the checked events are in (index for index), read again at {@link finish}. */
  constructor(private readonly events: readonly TraceEvent[]) {}

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
    return this.scoped.copy((k) => this.events[k].id);
  }

  /** Checks `events[i]`, the next event in file order. */
  event(event: TraceEvent, i: number): void {
    // each field read once (events come in many shapes: every read is a lookup)
    const id = event.id;
    const trace = event.trace_id;
    const scoped = this.scoped;
    if (trace !== undefined && this.ids === scoped) this.ids = this.plainIds(); // until now the keys were the ids
    if (this.ids !== scoped) this.ids.add(id, i);
    const key = trace === undefined ? id : `${trace}\u0000${id}`;
    if (!scoped.add(key, i)) {
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
    const lane = trace === undefined ? agent : `${trace}\u0000${agent}`;
    const latest = this.lanes.get(lane);
    if (latest === undefined || t >= this.events[latest].t) this.lanes.set(lane, i);
    else {
      const last = this.events[latest];
      this.eventProblems.push({
        kind: 'event',
        index: i,
        path: ['t'],
        severity: 'warning',
        message: `time runs backwards in lane ${preview(agent)}: t=${t} s after t=${last.t} s (event ${preview(last.id)})`,
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

  /** The key of an event's lane: its agent, in its trace when it names one. */
  private laneOf(event: TraceEvent): string {
    const trace = event.trace_id;
    return trace === undefined ? event.agent : `${trace}\u0000${event.agent}`;
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
      for (let j = i - 1; j >= 0 && j >= i - NEAR; j--) {
        const other = this.events[j];
        if (other.id === ref && other.trace_id === trace) return true;
      }
    }
    return this.scoped.has(trace === undefined ? ref : `${trace}\u0000${ref}`);
  }

  /** True when an event checked so far carries `id` (the latest few looked at first: an edge follows its events). */
  private isId(id: string): boolean {
    const last = this.events.length - 1;
    if (last === this.seen - 1) {
      for (let j = last; j >= 0 && j >= last - NEAR; j--) if (this.recentIds[j % RECENT] === id) return true;
    } else for (let j = last; j >= 0 && j >= last - NEAR; j--) if (this.events[j].id === id) return true;
    return this.ids.has(id);
  }

  /**
   * Appends the problems to `problems`, in this order: per event (repeated id, time), references
   * (in event order), edges (in edge order).
   * @param edges the edges checked, index for index.
   */
  finish(edges: readonly TraceEdge[], locate: FieldLocator, problems: Problem[]): void {
    const found = [...this.eventProblems];
    const refProblem = (i: number, field: 'parent' | 'causes', k: number, message: string) =>
      found.push({ kind: 'event', index: i, path: field === 'parent' ? [field] : [field, k], severity: 'warning', message });
    const checkRef = (i: number, field: 'parent' | 'causes', k: number) => {
      const event = this.events[i];
      const ref = field === 'parent' ? event.parent! : event.causes![k];
      const key = scope(event, ref);
      const carriers = this.repeated.get(key);
      if (carriers !== undefined) refProblem(i, field, k, `"${field}" names ${preview(ref)}, which ${carriers} events carry; it resolves to the nearest earlier one`);
      if (!this.scoped.has(key)) refProblem(i, field, k, `"${field}" names a missing event ${preview(ref)}`);
    };
    if (this.repeated.size === 0) {
      for (const r of this.laterRefs) checkRef(r.i, r.field, r.k);
    } else {
      // a repeated id: any reference may name it, so all are looked at again
      for (let i = 0; i < this.events.length; i++) {
        const event = this.events[i];
        if (event.parent !== undefined) checkRef(i, 'parent', 0);
        const causes = event.causes;
        if (causes !== undefined) for (let k = 0; k < causes.length; k++) checkRef(i, 'causes', k);
      }
    }
    for (const { i, end } of this.laterEnds) {
      if (!this.ids.has(edges[i][end])) found.push({ kind: 'edge', index: i, path: [end], severity: 'error', message: `edge ${end} ${preview(edges[i][end])} is not an event of this trace` });
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
  const checks = new CrossRecordChecks(events);
  for (let i = 0; i < events.length; i++) checks.event(events[i], i);
  for (let i = 0; i < edges.length; i++) checks.edge(edges[i], i);
  checks.finish(edges, locate, problems);
}
