/**
 * The events of a trace read into columns, field by field ({@link ColumnEventFields}): what the
 * analysis's index reads (src/trace/event-fields.ts), with no object per event. Contents are read
 * from the file a window at a time (`TraceColumns.contentsInRange`); the fields no column keeps
 * from the record itself, and only for the events that have one (`EventColumns.beyond`).
 * Pure: no `vscode`.
 */
import type { EventFields } from '../event-fields';
import type { CallStatus, EventKind, StopReason, TraceEvent } from '../schema';
import type { EventColumns } from './event-columns';
import type { TraceColumns } from './trace-columns';

/** Events per window of records read at once (aligned in file order). */
const CONTENT_WINDOW = 1024;

/**
 * {@link EventFields} of a trace's columns, by position: the file order, or another order given as
 * each position's event index (`order`). It keeps every window of records it read (contents, and
 * the events with fields no column keeps) until {@link forget}: the analyses read contents in
 * several passes, in time order and back to earlier events, and a cache of 64 windows of 1,024 read
 * them again and again (an analysis of 1M events took 17-20 s, against 4.9-5.1 s with every window
 * kept and 4.1-4.5 s from the object reader's events). So make one per analysis, and let it go (or
 * {@link forget}) after.
 */
export class ColumnEventFields implements EventFields {
  private readonly events: EventColumns;
  /**
   * What events [windowFrom, windowFrom + window.length) need of their records, in file order (the
   * window read last): the content, or the whole event when the record has fields no column keeps
   * (`TraceColumns.recordsInRange`).
   */
  private window: readonly Held[] = [];
  private windowFrom = 0;
  /** The windows read, by first event (see the class comment). */
  private readonly windows = new Map<number, readonly Held[]>();

  /**
   * @param columns the trace's columns (their file is read for contents and rare fields);
   * @param order each position's event index (a permutation of 0..n-1), or undefined for the file order.
   */
  constructor(
    readonly columns: TraceColumns,
    private readonly order?: Int32Array,
  ) {
    this.events = columns.events;
  }

  get length(): number {
    return this.events.length;
  }

  /** The event index (file order) of position i. */
  private at(i: number): number {
    return this.order === undefined ? i : this.order[i];
  }

  id(i: number): string {
    return this.events.ids[this.at(i)];
  }
  t(i: number): number {
    return this.events.t[this.at(i)];
  }
  type(i: number): TraceEvent['type'] {
    return this.events.typeOf(this.at(i));
  }
  agent(i: number): string {
    return this.events.agentOf(this.at(i));
  }
  tool(i: number): string | undefined {
    return this.events.nameAt(this.events.tool, this.at(i));
  }
  from(i: number): string | undefined {
    return this.events.nameAt(this.events.from, this.at(i));
  }
  to(i: number): string | undefined {
    return this.events.nameAt(this.events.to, this.at(i));
  }
  role(i: number): string | undefined {
    return this.events.nameAt(this.events.role, this.at(i));
  }
  kind(i: number): EventKind | undefined {
    return this.events.kindOf(this.at(i));
  }
  reason(i: number): StopReason | undefined {
    return this.events.reasonOf(this.at(i));
  }
  callStatus(i: number): CallStatus | undefined {
    return this.events.callStatusOf(this.at(i));
  }
  tokens(i: number): number | undefined {
    return this.events.measureAt(this.events.tokens, this.at(i));
  }
  cost(i: number): number | undefined {
    return this.events.measureAt(this.events.cost, this.at(i));
  }
  duration(i: number): number | undefined {
    return this.events.measureAt(this.events.duration, this.at(i));
  }
  credit(i: number): number | undefined {
    return this.events.measureAt(this.events.credit, this.at(i));
  }
  parent(i: number): string | undefined {
    return this.events.parentName(this.at(i));
  }
  /** The ids `causes` names; undefined for an empty list too (the columns keep none). */
  causes(i: number): readonly string[] | undefined {
    return this.events.causesOf(this.at(i));
  }

  /** The content, from the window that holds it. */
  content(i: number): string | undefined {
    const f = this.at(i);
    if (!this.events.hasContent(f)) return undefined;
    const held = this.held(f);
    return typeof held === 'object' ? held.content : held;
  }

  /**
   * What event f (file order) needs of its record, from the window of records that holds it (read
   * when it was not yet: {@link CONTENT_WINDOW}).
   */
  private held(f: number): Held {
    const k = f - this.windowFrom;
    if (k >= 0 && k < this.window.length) return this.window[k];
    const from = f - (f % CONTENT_WINDOW);
    let window = this.windows.get(from);
    if (window === undefined) this.windows.set(from, (window = this.columns.recordsInRange(from, from + CONTENT_WINDOW)));
    this.window = window;
    this.windowFrom = from;
    return window[f - from];
  }

  contentRef(i: number): string | undefined {
    return this.hasMore(i) ? this.event(i).content_ref : undefined;
  }

  /** False when the record holds no field beyond the columns' (`EventColumns.beyond`): {@link event} reads no record then. */
  hasMore(i: number): boolean {
    const beyond = this.events.beyond;
    return beyond !== undefined && beyond[this.at(i)] === 1;
  }

  /**
   * The whole event: made from the columns and its content when its record holds no other field,
   * else read from the record (in its window); when the record is no longer there (the file
   * changed since the read), the event as the columns keep it.
   */
  event(i: number): TraceEvent {
    const f = this.at(i);
    const events = this.events;
    if (!this.hasMore(i)) {
      const event = events.kept(f);
      const content = this.content(i);
      if (content !== undefined) (event as { content?: string }).content = content;
      return event;
    }
    const held = this.held(f);
    return typeof held === 'object' ? held : events.kept(f);
  }

  idReader(): (i: number) => string {
    const ids = this.events.ids;
    const order = this.order;
    return order === undefined ? (i) => ids[i] : (i) => ids[order[i]];
  }

  /** Lets go of the windows of records read so far (they are read again when asked). */
  forget(): void {
    this.windows.clear();
    this.window = [];
  }

  reordered(order: readonly number[]): ColumnEventFields {
    const composed = new Int32Array(order.length);
    for (let k = 0; k < order.length; k++) composed[k] = this.at(order[k]);
    return new ColumnEventFields(this.columns, composed);
  }
}

/** What a window holds of an event's record: its content, or the whole event when it has fields no column keeps. */
type Held = string | TraceEvent | undefined;
