/**
 * A trace's events read field by field ({@link EventFields}): what the analysis's index reads of
 * its events, whoever keeps them. The object reader's events are one implementation
 * ({@link ObjectEventFields}); the column reader's columns are the other (src/trace/columns).
 * Pure: no `vscode`.
 */
import type { CallStatus, EventKind, StopReason, TraceEvent } from './schema';
import { recordsTokens, usageOf } from './tokens';

/**
 * The events of a trace by position (0 to {@link length} - 1, in the order of whoever made it: the
 * file's, or an index's time order), one field at a time. Each field is what the schema gives (the
 * event's own value, undefined when absent); no accessor throws for a position in range.
 */
export interface EventFields {
  /** Number of events. */
  readonly length: number;
  id(i: number): string;
  /** `t` as recorded (seconds or the trace's unit). */
  t(i: number): number;
  /** The type as recorded (an alias kept: `communicate`). */
  type(i: number): TraceEvent['type'];
  agent(i: number): string;
  tool(i: number): string | undefined;
  from(i: number): string | undefined;
  to(i: number): string | undefined;
  role(i: number): string | undefined;
  kind(i: number): EventKind | undefined;
  reason(i: number): StopReason | undefined;
  callStatus(i: number): CallStatus | undefined;
  /** Tokens, cost (the trace's currency) and duration (seconds), as recorded. */
  tokens(i: number): number | undefined;
  cost(i: number): number | undefined;
  duration(i: number): number | undefined;
  /** The credit a producer gave the event. */
  credit(i: number): number | undefined;
  /** The id `parent` names, and the ids `causes` names. */
  parent(i: number): string | undefined;
  causes(i: number): readonly string[] | undefined;
  content(i: number): string | undefined;
  contentRef(i: number): string | undefined;
  /**
   * False when the event surely has no field beyond the accessors' (then {@link event} need not be
   * read for one: the columns read it from the file); true when it may have.
   */
  hasMore(i: number): boolean;
  /** The whole event, with its fields beyond the schema (for the few fields no accessor gives). */
  event(i: number): TraceEvent;
  /** The same events in another order: position k of the result is position `order[k]` here (a permutation). */
  reordered(order: readonly number[]): EventFields;
  /**
   * Reads ids by position holding nothing but what holds the ids (not the windows of contents a
   * column reader keeps): for what results make when first read, long after the analysis.
   */
  idReader(): (i: number) => string;
}

/** The events of a loaded trace field by field, in file order: its `eventFields` when something other than `trace.events` keeps them, else its objects. */
export function eventFieldsOf(loaded: { trace: { events: readonly TraceEvent[] }; eventFields?: EventFields }): EventFields {
  return loaded.eventFields ?? new ObjectEventFields(loaded.trace.events);
}

const recorded = new WeakMap<EventFields, boolean>();

/** True when some event carries tokens (`tokens` > 0 or a `usage`: tokens.ts `recordsTokens`); kept per fields. */
export function fieldsRecordTokens(fields: EventFields): boolean {
  if (fields instanceof ObjectEventFields) return recordsTokens(fields.events);
  let r = recorded.get(fields);
  if (r === undefined) {
    r = false;
    for (let i = 0; i < fields.length && !r; i++) {
      const tokens = fields.tokens(i);
      r = (typeof tokens === 'number' && tokens > 0) || (fields.hasMore(i) && usageOf(fields.event(i)) !== undefined);
    }
    recorded.set(fields, r);
  }
  return r;
}

/** {@link EventFields} of a list of events (the object reader's, or a list of them in another order). */
export class ObjectEventFields implements EventFields {
  constructor(readonly events: readonly TraceEvent[]) {}

  get length(): number {
    return this.events.length;
  }
  id(i: number): string {
    return this.events[i].id;
  }
  t(i: number): number {
    return this.events[i].t;
  }
  type(i: number): TraceEvent['type'] {
    return this.events[i].type;
  }
  agent(i: number): string {
    return this.events[i].agent;
  }
  tool(i: number): string | undefined {
    return this.events[i].tool;
  }
  from(i: number): string | undefined {
    return this.events[i].from;
  }
  to(i: number): string | undefined {
    return this.events[i].to;
  }
  role(i: number): string | undefined {
    return this.events[i].role;
  }
  kind(i: number): EventKind | undefined {
    return this.events[i].kind;
  }
  reason(i: number): StopReason | undefined {
    return this.events[i].reason;
  }
  callStatus(i: number): CallStatus | undefined {
    return this.events[i].call_status;
  }
  tokens(i: number): number | undefined {
    return this.events[i].tokens;
  }
  cost(i: number): number | undefined {
    return this.events[i].cost;
  }
  duration(i: number): number | undefined {
    return this.events[i].duration_s;
  }
  credit(i: number): number | undefined {
    return this.events[i].credit;
  }
  parent(i: number): string | undefined {
    return this.events[i].parent;
  }
  causes(i: number): readonly string[] | undefined {
    return this.events[i].causes;
  }
  content(i: number): string | undefined {
    return this.events[i].content;
  }
  contentRef(i: number): string | undefined {
    return this.events[i].content_ref;
  }
  /** True: the object is at hand, its other fields are read from it. */
  hasMore(): boolean {
    return true;
  }
  event(i: number): TraceEvent {
    return this.events[i];
  }
  idReader(): (i: number) => string {
    const events = this.events;
    return (i) => events[i].id;
  }
  /** A list in that order (a list read in order is faster to read than a list read through a permutation). */
  reordered(order: readonly number[]): ObjectEventFields {
    return new ObjectEventFields(order.map((i) => this.events[i]));
  }
}
