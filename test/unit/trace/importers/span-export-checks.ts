/**
 * Checks shared by the span-export importer tests (Jaeger, Zipkin, Langfuse, Phoenix, LangSmith,
 * OpenAI Agents, agent-observability documents): every event's range re-parses to the record it came
 * from, and every span record of the file is an event or a counted skip.
 */
import assert from 'node:assert/strict';
import { LineIndex, type LoadedTrace, type Range } from '../../../../src/trace/model';

/** The text of `range` in `text`. */
export function slice(text: string, range: Range): string {
  const lines = new LineIndex(text);
  return text.slice(lines.lineStart(range.start.line) + range.start.character, lines.lineStart(range.end.line) + range.end.character);
}

/**
 * Asserts that eventOrigins is index for index with events, and that each event's range re-parses
 * (JSON.parse) to an object whose id (read by `idOf` from the raw record) is the event id's span part,
 * with the same record index for every event of one span.
 */
export function assertRangesReparse(text: string, loaded: LoadedTrace, idOf: (record: Record<string, unknown>) => unknown): void {
  assert.equal(loaded.eventOrigins.length, loaded.trace.events.length);
  const records = new Map<string, number>();
  loaded.trace.events.forEach((e, i) => {
    const origin = loaded.eventOrigins.get(i);
    assert.ok(origin, `event ${e.id} has an origin`);
    const record = JSON.parse(slice(text, origin.range)) as Record<string, unknown>;
    if (e.kind === 'missing_parent') return; // the placeholder points at its first orphan
    const spanId = e.id.replace(/\.(return|result|stop)$/, '').replace(/~\d+$/, '');
    assert.equal(String(idOf(record)), spanId, `event ${e.id}: range holds its record`);
    const seen = records.get(e.id.replace(/\.(return|result|stop)$/, ''));
    if (seen !== undefined) assert.equal(origin.record, seen, `event ${e.id}: same record index as its span`);
    records.set(e.id.replace(/\.(return|result|stop)$/, ''), origin.record);
  });
}

/** Asserts spans in the file = spans that gave a start event + spans counted as skipped. */
export function assertSpansAccounted(loaded: LoadedTrace, metaKey: string, spansInFile: number): void {
  const meta = (loaded.trace.metadata as Record<string, Record<string, unknown>>)[metaKey];
  const skipped = Object.values((meta.skipped_spans as Record<string, number> | undefined) ?? {}).reduce((a, b) => a + b, 0);
  const starts = loaded.trace.events.filter((e) => !/\.(return|result|stop)$/.test(e.id) && e.kind !== 'missing_parent').length;
  assert.equal(meta.spans, spansInFile, 'spans read');
  assert.equal(starts + skipped, spansInFile, 'spans = events + skips');
}

/** Events by type, as a plain object with sorted keys. */
export function byType(loaded: LoadedTrace): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of loaded.trace.events) out[e.type] = (out[e.type] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort());
}

/** Sorts the keys of a counts object. */
export const sorted = (o: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(o).filter(([, v]) => v > 0).sort());
