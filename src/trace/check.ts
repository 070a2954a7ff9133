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
  const lastTime = new Map<string, number>(); // agent -> index of its latest event so far
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
    const at = lastTime.get(lane);
    const last = at === undefined ? undefined : events[at];
    if (last && event.t < last.t) {
      problems.push({
        severity: 'warning',
        message: `time runs backwards in lane ${preview(event.agent)}: t=${event.t} s after t=${last.t} s (event ${preview(last.id)})`,
        range: locate('event', i, ['t']),
      });
    }
    if (!last || event.t >= last.t) lastTime.set(lane, i);
  });
  // references: checked without allocating (a path is made only for a problem)
  const checkRef = (ref: string, i: number, field: 'parent' | 'causes', k: number) => {
    const key = scope(events[i], ref);
    const carriers = repeated.size > 0 ? repeated.get(key) : undefined;
    const path = () => (field === 'parent' ? [field] : [field, k]);
    if (carriers !== undefined) {
      problems.push({
        severity: 'warning',
        message: `"${field}" names ${preview(ref)}, which ${carriers} events carry; it resolves to the nearest earlier one`,
        range: locate('event', i, path()),
      });
    }
    if (!scoped.has(key)) {
      problems.push({
        severity: 'warning',
        message: `"${field}" names a missing event ${preview(ref)}`,
        range: locate('event', i, path()),
      });
    }
  };
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    if (event.parent !== undefined) checkRef(event.parent, i, 'parent', 0);
    const causes = event.causes;
    if (causes !== undefined) for (let k = 0; k < causes.length; k++) checkRef(causes[k], i, 'causes', k);
  }
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
