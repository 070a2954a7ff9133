/**
 * A trace read into columns as the analysis takes a loaded trace ({@link analysedFromColumns}):
 * its events field by field (`eventFields`), no object per event. Pure: no `vscode`.
 */
import type { LoadedTrace } from '../model';
import type { TraceEdge } from '../schema';
import { ColumnEventFields } from './column-fields';
import type { LoadedColumns } from './read-columns';

/**
 * `loaded` as a {@link LoadedTrace} for `analyzeTrace` (src/analysis): its `eventFields` the columns
 * (a fresh {@link ColumnEventFields}, which keeps the records it reads: let the trace go after the
 * analysis), `trace.events` empty, its edges as objects of their ends and type (what the analysis
 * reads of an edge; the few fields beyond are left out), its origins and problems the columns'.
 * Undefined when the file holds several traces (the analysis splits them by their events' trace
 * ids: read it with the object reader).
 */
export function analysedFromColumns(loaded: LoadedColumns): LoadedTrace | undefined {
  const { columns, header, problems } = loaded;
  if (loaded.traceHeaders !== undefined || columns.events.trace !== undefined) return undefined;
  const edges: TraceEdge[] = [];
  for (let i = 0; i < columns.edgeCount; i++) edges.push({ src: columns.edges.end(i, 'src'), dst: columns.edges.end(i, 'dst'), type: columns.edges.typeOf(i) });
  return {
    format: loaded.format,
    trace: { ...header, events: [], edges },
    eventOrigins: columns.eventOrigins,
    edgeOrigins: columns.edgeOrigins,
    problems,
    eventFields: new ColumnEventFields(columns),
  };
}
