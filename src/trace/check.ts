/**
 * Checks across records, shared by every reader and importer: duplicate ids, edges and references
 * to missing events, and time running backwards within one agent's lane.
 */
import type { Problem, Range } from './model';
import { preview } from './preview';
import type { TraceEdge, TraceEvent } from './schema';

/** Finds the range of a field of the i-th event or edge (falls back to the record's range). */
export type FieldLocator = (kind: 'event' | 'edge', index: number, path: (string | number)[]) => Range;

/**
 * Appends cross-record problems to `problems`.
 * @param events events in file order; @param edges edges in file order.
 * Errors: edge to a missing event. Warnings: a repeated event id (every event is kept, keyed by its
 * index; docs/model.md), `t` lower than the previous event of the same agent, `parent`/`causes`
 * naming a missing event or a repeated id (which resolves to the nearest earlier event carrying it).
 * @returns the set of event ids (first occurrence wins).
 */
export function checkTrace(
  events: readonly TraceEvent[],
  edges: readonly TraceEdge[],
  locate: FieldLocator,
  problems: Problem[],
): Set<string> {
  const ids = new Set<string>();
  // Ids, repeats and lanes are per trace when the file holds several (events name theirs in `trace_id`).
  const scoped = new Set<string>();
  const scope = (e: TraceEvent, id: string) => (e.trace_id === undefined ? id : `${e.trace_id}\u0000${id}`);
  const repeated = new Map<string, number>();
  const lastTime = new Map<string, { t: number; id: string }>();
  events.forEach((event, i) => {
    ids.add(event.id);
    const key = scope(event, event.id);
    if (scoped.has(key)) {
      repeated.set(key, (repeated.get(key) ?? 1) + 1);
      problems.push({
        severity: 'warning',
        message: `duplicate event id ${preview(event.id)}: both events are kept; a "causes" or "parent" naming it means the nearest earlier one`,
        range: locate('event', i, ['id']),
      });
    } else {
      scoped.add(key);
    }
    const lane = scope(event, event.agent);
    const last = lastTime.get(lane);
    if (last && event.t < last.t) {
      problems.push({
        severity: 'warning',
        message: `time runs backwards in lane ${preview(event.agent)}: t=${event.t} s after t=${last.t} s (event ${preview(last.id)})`,
        range: locate('event', i, ['t']),
      });
    }
    if (!last || event.t >= last.t) lastTime.set(lane, { t: event.t, id: event.id });
  });
  events.forEach((event, i) => {
    const refs: [string, (string | number)[]][] = [];
    if (event.parent !== undefined) refs.push([event.parent, ['parent']]);
    event.causes?.forEach((c, k) => refs.push([c, ['causes', k]]));
    for (const [ref, path] of refs) {
      const carriers = repeated.get(scope(event, ref));
      if (carriers !== undefined) {
        problems.push({
          severity: 'warning',
          message: `"${path[0]}" names ${preview(ref)}, which ${carriers} events carry; it resolves to the nearest earlier one`,
          range: locate('event', i, path),
        });
      }
      if (!scoped.has(scope(event, ref))) {
        problems.push({
          severity: 'warning',
          message: `"${path[0]}" names a missing event ${preview(ref)}`,
          range: locate('event', i, path),
        });
      }
    }
  });
  edges.forEach((edge, i) => {
    for (const end of ['src', 'dst'] as const) {
      if (!ids.has(edge[end])) {
        problems.push({
          severity: 'error',
          message: `edge ${end} ${preview(edge[end])} is not an event of this trace`,
          range: locate('edge', i, [end]),
        });
      }
    }
  });
  return ids;
}
