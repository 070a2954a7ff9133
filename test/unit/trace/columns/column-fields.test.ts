/**
 * The columns read field by field (src/trace/columns/column-fields.ts) against the object reader's
 * events (src/trace/event-fields.ts `ObjectEventFields`) on the same bytes: every field of every
 * event, in file order and in another order; and the analysis of a trace whose index reads the
 * columns (`loaded.eventFields`) equal to the analysis of its objects. Over every fixture any
 * importer reads, written as otrace JSONL (the importers' fields beyond the schema kept: phase,
 * exit_code, ...), and a generated trace with long content.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyzeTrace } from '../../../../src/analysis';
import { ColumnEventFields } from '../../../../src/trace/columns/column-fields';
import { readTraceColumns } from '../../../../src/trace/columns/read-columns';
import { ObjectEventFields, type EventFields } from '../../../../src/trace/event-fields';
import '../../../../src/trace/importers';
import { loadTraceFile } from '../../../../src/trace/load-file';
import type { LoadedTrace } from '../../../../src/trace/model';
import { readTraceJsonlBytes } from '../../../../src/trace/read';
import { severalTraces } from '../../../../src/trace/trace-groups';
import { toOtraceJsonl } from '../../../../src/trace/write';
import { generateRecords } from '../../../../bench/_generate';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'fixtures');

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesUnder(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

/** The otrace JSONL of every fixture an importer reads into events (each once: the first file of a trace's folder that reads). */
function fixtureTraces(): { name: string; bytes: Buffer }[] {
  const out: { name: string; bytes: Buffer }[] = [];
  for (const file of filesUnder(FIXTURES)) {
    let loaded: LoadedTrace;
    try {
      loaded = loadTraceFile(file);
    } catch {
      continue;
    }
    if (loaded.trace.events.length === 0) continue;
    out.push({ name: path.relative(FIXTURES, file), bytes: Buffer.from(toOtraceJsonl(loaded.trace), 'utf8') });
  }
  return out;
}

/** The generated trace of the benches (bench/_generate.ts), long content in one tool result in 8. */
function generated(n: number): Buffer {
  return Buffer.from([...generateRecords(n, { longContent: true, seed: 7 })].map((r) => JSON.stringify(r)).join('\n') + '\n', 'utf8');
}

/** Both readers on `bytes`: the object reader's trace, and the columns (re-reading from the same bytes). */
function readBoth(bytes: Buffer): { objects: LoadedTrace; columns: ColumnEventFields } {
  const read = (b: Buffer, offset: number, length: number, position: number) => bytes.copy(b, offset, position, Math.min(bytes.length, position + length));
  const readLine = (offset: number, length: number) => bytes.toString('utf8', offset, offset + length);
  const objects = readTraceJsonlBytes(read, readLine, undefined, bytes.length);
  const { columns } = readTraceColumns(read, readLine, undefined, bytes.length);
  return { objects, columns: new ColumnEventFields(columns) };
}

const ACCESSORS = ['id', 't', 'type', 'agent', 'tool', 'from', 'to', 'role', 'kind', 'reason', 'callStatus', 'tokens', 'cost', 'duration', 'credit', 'parent', 'content', 'contentRef'] as const;

/** Asserts `columns` gives what `objects` gives, field by field, at every position. */
function sameFields(name: string, columns: EventFields, objects: EventFields): number {
  assert.equal(columns.length, objects.length, name);
  let more = 0;
  for (let i = 0; i < objects.length; i++) {
    for (const field of ACCESSORS) assert.deepStrictEqual(columns[field](i), objects[field](i), `${name}: ${field} of position ${i}`);
    const causes = objects.causes(i);
    assert.deepStrictEqual(columns.causes(i), causes?.length ? causes : undefined, `${name}: causes of position ${i}`);
    const event = objects.event(i);
    if (columns.hasMore(i)) more++;
    else {
      // no field beyond the columns': none of the event's fields is one no accessor gives
      const beyond = Object.keys(event).filter((key) => !['id', 't', 'type', 'agent', 'trace_id', 'tool', 'from', 'to', 'role', 'kind', 'reason', 'call_status', 'tokens', 'cost', 'duration_s', 'credit', 'parent', 'causes', 'content'].includes(key));
      assert.deepStrictEqual(beyond, [], `${name}: position ${i} says it has no more fields`);
    }
    assert.deepStrictEqual(columns.event(i), event, `${name}: event at position ${i}`);
  }
  return more;
}

test('the columns give every field of every event as the object reader does, in file order and another, over every fixture written as otrace JSONL and a generated trace', () => {
  const traces = [...fixtureTraces(), { name: 'generated 3k', bytes: generated(3000) }];
  assert.ok(traces.length >= 60, `${traces.length} traces`);
  let more = 0;
  for (const { name, bytes } of traces) {
    const { objects, columns } = readBoth(bytes);
    const fields = new ObjectEventFields(objects.trace.events);
    more += sameFields(name, columns, fields);
    columns.forget();
    for (let i = 0; i < fields.length; i++) assert.equal(columns.content(i), fields.content(i), `${name}: content of position ${i} read again after forget()`);
    // reversed, then reordered again: positions through two permutations
    const order = Array.from({ length: fields.length }, (_, i) => fields.length - 1 - i);
    const shuffled = order.map((_, k) => (k * 7919) % Math.max(1, fields.length)).filter((v, k, all) => all.indexOf(v) === k);
    if (shuffled.length === fields.length) sameFields(`${name} (shuffled, reversed)`, columns.reordered(shuffled).reordered(order), fields.reordered(shuffled).reordered(order));
    else sameFields(`${name} (reversed)`, columns.reordered(order), fields.reordered(order));
  }
  assert.ok(more > 0, 'some events have fields beyond the columns (read from their records)');
});

test('the analysis of a trace whose index reads the columns equals the analysis of its objects, and with no objects at all for a file of one trace', () => {
  const traces = [...fixtureTraces(), { name: 'generated 3k', bytes: generated(3000) }];
  let alone = 0;
  for (const { name, bytes } of traces) {
    const { objects, columns } = readBoth(bytes);
    const fromObjects = JSON.parse(JSON.stringify(analyzeTrace(objects)));
    assert.deepStrictEqual(JSON.parse(JSON.stringify(analyzeTrace({ ...objects, eventFields: columns }))), fromObjects, name);
    // (a file of several traces is split by its events' trace ids: read from the objects yet)
    if (severalTraces(objects)) continue;
    const columnsOnly = analyzeTrace({ ...objects, trace: { ...objects.trace, events: [] }, eventFields: new ColumnEventFields(columns.columns) });
    assert.deepStrictEqual(JSON.parse(JSON.stringify(columnsOnly)), fromObjects, `${name}, no objects`);
    alone++;
  }
  assert.ok(alone >= 110, `${alone} traces analysed from their columns alone`);
});
