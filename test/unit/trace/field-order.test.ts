/**
 * `otrace convert` writes an otrace file's events and edges with the schema's fields first, in schema
 * order, then the others in the record's order (src/trace/field-order.ts), whatever order the file
 * had: the reader keeps records as JSON.parse made them, so this keeps the output as it was.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventInSchemaOrder, traceToWrite } from '../../../src/trace/field-order';
import { readTraceJsonl } from '../../../src/trace/read';
import type { TraceEvent } from '../../../src/trace/schema';
import { writeTrace } from '../../../src/trace/write';

const FILE = [
  '{"trace_id":"t1"}',
  '{"tokens":5,"id":"a","x":1,"t":0,"type":"message","agent":"A","to":"B"}',
  '{"id":"b","t":1,"type":"message","agent":"B","y":[1]}',
  '{"edge":{"type":"causal","note":"n","dst":"b","src":"a"}}',
].join('\n');

test('otrace-jsonl output of an otrace file lists schema fields first, in schema order, then the others', () => {
  const loaded = readTraceJsonl(FILE);
  assert.deepEqual(loaded.problems.filter((p) => p.severity === 'error'), []);
  assert.equal(
    writeTrace(traceToWrite(loaded), 'otrace-jsonl'),
    [
      '{"trace_id":"t1"}',
      '{"id":"a","t":0,"type":"message","agent":"A","to":"B","tokens":5,"x":1}',
      '{"id":"b","t":1,"type":"message","agent":"B","y":[1]}',
      '{"edge":{"src":"a","dst":"b","type":"causal","note":"n"}}',
      '',
    ].join('\n'),
  );
});

test('an event already in order is returned as it is; one out of order is a copy with the same value', () => {
  const ordered = { id: 'a', t: 0, type: 'message', agent: 'A', tokens: 1, extra: 2 } as TraceEvent;
  assert.equal(eventInSchemaOrder(ordered), ordered);
  const mixed = { extra: 2, agent: 'A', id: 'a', t: 0, type: 'message' } as TraceEvent;
  const out = eventInSchemaOrder(mixed);
  assert.deepEqual(out, mixed);
  assert.deepEqual(Object.keys(out), ['id', 't', 'type', 'agent', 'extra']);
});

test('an unknown field named "__proto__" is kept as a field when the event is put in order', () => {
  const mixed = JSON.parse('{"__proto__":{"a":1},"agent":"A","id":"a","t":0,"type":"message"}') as TraceEvent;
  const out = eventInSchemaOrder(mixed);
  assert.equal(JSON.stringify(out), '{"id":"a","t":0,"type":"message","agent":"A","__proto__":{"a":1}}');
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
});
