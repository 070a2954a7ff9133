/**
 * Several traces in one file (docs/model.md "Several traces in one file"): events carry the trace
 * they belong to in `trace_id` when a file holds more than one (OTLP/span exports with several
 * traceIds, JSONL with several trace-fields lines). These helpers split a loaded file into its
 * traces so the analysis and the graph treat each on its own. Pure: imports nothing from `vscode`.
 */
import { OriginArray, type LoadedTrace } from './model';
import type { TraceEdge, TraceEvent, TraceHeader } from './schema';

/** One trace of a file: its id and the indices (file order) of its events in `loaded.trace.events`. */
export interface TraceGroup {
  id: string;
  indices: number[];
}

/**
 * The traces of a file, in order of first appearance: events grouped by their `trace_id`.
 * Events without one join the first trace. A file with at most one distinct `trace_id` is one
 * group holding every event (id: the file's `trace_id`, or `trace`). Cost O(n).
 */
export function traceGroups(loaded: Pick<LoadedTrace, 'trace'>): TraceGroup[] {
  const events = loaded.trace.events;
  const only = onlyTraceId(events);
  if (only === SEVERAL) return severalTraces(loaded)!;
  return [{ id: only ?? loaded.trace.trace_id ?? 'trace', indices: events.map((_, i) => i) }];
}

/**
 * The traces of a file when it holds several (as {@link traceGroups} gives them), else undefined.
 * One trace (the common case, and a 1M-event file's) makes no list of its events' indices (8 MB at
 * 1M, made on each update of a followed trace before). Cost O(n) for one trace.
 */
export function severalTraces(loaded: Pick<LoadedTrace, 'trace'>): TraceGroup[] | undefined {
  const events = loaded.trace.events;
  if (onlyTraceId(events) !== SEVERAL) return undefined;
  const byId = new Map<string, number[]>();
  const loose: number[] = [];
  events.forEach((e, i) => {
    const id = traceIdOf(e);
    if (id === undefined) loose.push(i);
    else (byId.get(id) ?? byId.set(id, []).get(id)!).push(i);
  });
  const groups = [...byId].map(([id, indices]) => ({ id, indices }));
  if (loose.length) groups[0].indices = [...loose, ...groups[0].indices].sort((a, b) => a - b);
  return groups;
}

/** What {@link onlyTraceId} gives for events of two or more distinct `trace_id`s. */
const SEVERAL = Symbol('several traces');

/** The one `trace_id` the events carry, undefined when none carries one, {@link SEVERAL} when they carry two or more. */
function onlyTraceId(events: readonly TraceEvent[]): string | undefined | typeof SEVERAL {
  const only = soleTraceId(events);
  return only === null ? SEVERAL : only;
}

/**
 * The one `trace_id` the events from `from` on carry together with `before` (the one the events
 * before `from` carry, or undefined for none): that id, undefined when none carries one, null
 * when two or more are carried (several traces: {@link severalTraces}). A followed file's append
 * reads only its new events. Cost O(n - from).
 */
export function soleTraceId(events: readonly TraceEvent[], from = 0, before?: string): string | undefined | null {
  let only = before;
  for (let i = from; i < events.length; i++) {
    const id = traceIdOf(events[i]);
    if (id === undefined || id === only) continue;
    if (only !== undefined) return null;
    only = id;
  }
  return only;
}

/** An event's `trace_id` when it is a non-empty string. */
function traceIdOf(e: TraceEvent): string | undefined {
  return typeof e.trace_id === 'string' && e.trace_id !== '' ? e.trace_id : undefined;
}

/**
 * The part of a loaded file that is one trace: its events (in file order), the edges between
 * them (an edge whose ends are both events of the group; its ends resolved by id within the
 * group), their origins, and the trace fields (the group's own header when the file gave one per
 * trace, in `loaded.traceHeaders`, else the file's with the group's `trace_id`). Problems are not
 * split (they stay with the file).
 */
export function subTrace(loaded: LoadedTrace, group: TraceGroup): LoadedTrace {
  const events: TraceEvent[] = group.indices.map((i) => loaded.trace.events[i]);
  const ids = new Set(events.map((e) => e.id));
  const edges: TraceEdge[] = [];
  const edgeOrigins = new OriginArray();
  loaded.trace.edges.forEach((edge, i) => {
    if (!ids.has(edge.src) || !ids.has(edge.dst)) return;
    edges.push(edge);
    edgeOrigins.add(loaded.edgeOrigins.get(i));
  });
  const { events: _e, edges: _d, ...fileHeader } = loaded.trace;
  const header: TraceHeader = loaded.traceHeaders?.[group.id] ?? { ...fileHeader, trace_id: group.id };
  return {
    format: loaded.format,
    trace: { ...header, events, edges },
    eventOrigins: new OriginArray(group.indices.map((i) => loaded.eventOrigins.get(i))),
    edgeOrigins,
    problems: [],
  };
}
