/** Builds small LoadedTraces by hand for the analysis tests (record = index in the list). */
import { OriginArray, type LoadedTrace } from '../../../src/trace/model';
import type { Trace, TraceEdge, TraceEvent } from '../../../src/trace/schema';

/** An event as a test writes it: id, type and agent, any other field. */
export type EventInput = Partial<TraceEvent> & Pick<TraceEvent, 'id' | 'type' | 'agent'>;

/**
 * A loaded trace from events (t defaults to the event's index) and optional edges / trace fields.
 * Every event's origin is a one-line range at its index, `record` = its index.
 */
export function traceOf(events: EventInput[], edges: [string, string, TraceEdge['type']?][] = [], fields: Partial<Trace> = {}): LoadedTrace {
  const evs = events.map((e, i) => ({ t: i, ...e }) as TraceEvent);
  const eventOrigins = evs.map((_, i) => ({ range: { start: { line: i, character: 0 }, end: { line: i, character: 1 } }, record: i }));
  return {
    format: 'test',
    trace: { ...fields, events: evs, edges: edges.map(([src, dst, type]) => ({ src, dst, type: type ?? 'causal' })) },
    eventOrigins: new OriginArray(eventOrigins),
    edgeOrigins: new OriginArray(edges.map(() => undefined)),
    problems: [],
  };
}

/** The indices in the trace's event list of events by id (each id once in these traces). */
export function indicesOf(loaded: LoadedTrace, ids: string[]): number[] {
  return ids.map((id) => loaded.trace.events.findIndex((e) => e.id === id));
}
