/**
 * Reading an otrace JSONL file from bytes into columns ({@link readTraceColumns}): the object
 * reader's loop, checks and problems (src/trace/read.ts), its events and edges written into
 * columns as they are accepted and their values dropped.
 */
import type { ReadBytes } from '../jsonl';
import type { LineOrigins, Problem } from '../model';
import { feedJsonlBytes, JsonlTraceReader } from '../read';
import type { TraceHeader } from '../schema';
import { EdgeColumns } from './edge-columns';
import { EventColumns } from './event-columns';
import { RecordScanner } from './record-scanner';
import { TraceColumns } from './trace-columns';

/** An otrace JSONL trace read into columns. */
export interface LoadedColumns {
  format: 'otrace-jsonl';
  /** The trace fields (of the file's first trace when it holds several). */
  header: TraceHeader;
  /** Trace fields per trace id, when the file holds several traces. */
  traceHeaders?: Record<string, TraceHeader>;
  columns: TraceColumns;
  /** The problems the object reader gives on the same bytes, in its order. */
  problems: Problem[];
  /** Bytes read. */
  bytes: number;
}

/**
 * Reads an otrace JSONL trace from bytes into columns: the same chunks, run parse, validation
 * (the fast check, else zod) and cross-record checks as `readTraceJsonlBytes`, so the same
 * problems at the same positions, and `columns.event(i)` deep-equal to its event i.
 * @param read reads bytes at a file position; @param readLine the text at a byte offset and length
 *   (to position a problem at a field); @param chunkBytes bytes read at a time (default 8 MB);
 * @param fileBytes the file's size, when known (columns sized once from an estimate);
 * @param records how the columns read a record again later (default `read`: give one that stays
 *   valid after the read, e.g. one that opens the file).
 * Never throws for bad content; I/O errors from `read` pass.
 */
export function readTraceColumns(read: ReadBytes, readLine: (offset: number, bytes: number) => string, chunkBytes?: number, fileBytes?: number, records: ReadBytes = read): LoadedColumns {
  const events = new EventColumns();
  const edges = new EdgeColumns(events);
  const reader = new JsonlTraceReader(readLine, false, true, { events, edges, scanner: new RecordScanner() });
  const { problems: lineProblems, bytes } = feedJsonlBytes(reader, read, chunkBytes, fileBytes);
  const { problems, header, traceHeaders, eventOrigins, edgeOrigins } = reader.check(lineProblems);
  events.resolve();
  edges.resolve();
  events.done();
  const columns = new TraceColumns(events, edges, eventOrigins as LineOrigins, edgeOrigins as LineOrigins, records);
  return { format: 'otrace-jsonl', header, ...(traceHeaders ? { traceHeaders } : {}), columns, problems, bytes };
}
