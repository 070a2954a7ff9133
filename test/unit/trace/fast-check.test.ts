/**
 * The reader's hand-written fast path (src/trace/fast-check.ts) against zod, the schema it stands
 * in front of: over the readers' fuzz inputs (the fixtures of test/unit/fuzz, mutated by the same
 * seeded fast-check mutations) and over generated records (valid, near-valid and invalid fields, in
 * any order, unknown fields, `__proto__`, numbers out of range), it accepts nothing zod rejects and
 * returns zod's value (deep-equal); and the writers' field order (src/trace/field-order.ts) of what
 * it returns is zod's order.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { EVENT_FIELD_NAMES, fastEdge, fastEvent, fastEventFields } from '../../../src/trace/fast-check';
import { edgeInSchemaOrder, eventInSchemaOrder } from '../../../src/trace/field-order';
import { CALL_STATUSES, EDGE_TYPES, EVENT_KINDS, EVENT_TYPES, EdgeSchema, EventSchema, STOP_REASONS } from '../../../src/trace/schema';
import { apply, FUZZ_CASES, mutation } from '../fuzz/mutations';

const SEED = 14;
const FIXTURES = path.join(__dirname, '..', '..', 'fixtures');

/** Tallies of one comparison run: how many records each side accepted. */
interface Tally {
  fast: number;
  zod: number;
  records: number;
}

/** The list {@link fastEventFields} writes into, reused from record to record as the column reader does (holding the last record's values). */
const scratch: unknown[] = EVENT_FIELD_NAMES.map(() => 'stale');

/**
 * Asserts {@link fastEventFields} gives the verdict of {@link fastEvent} on `value`, and for a record
 * it is sure of, exactly the record's known event fields (bit k set and `scratch[k]` its value for
 * each field it has).
 */
function fieldsAgree(value: unknown): void {
  const event = fastEvent(value) as Record<string, unknown> | undefined;
  const mask = fastEventFields(value, scratch);
  assert.equal(mask === -1, event === undefined, `the same verdict as fastEvent: ${JSON.stringify(value)?.slice(0, 300)}`);
  if (event === undefined) return;
  EVENT_FIELD_NAMES.forEach((name, k) => {
    const has = (mask & (1 << k)) !== 0;
    assert.equal(has, event[name] !== undefined, `field ${name} marked as the record has it`);
    if (has) assert.equal(scratch[k], event[name], `field ${name}`);
  });
}

/** Asserts the fast path agrees with zod on `value` (as an event and as an edge). */
function agree(value: unknown, tally: Tally): void {
  tally.records++;
  fieldsAgree(value);
  for (const [fast, schema, order] of [
    [fastEvent, EventSchema, eventInSchemaOrder],
    [fastEdge, EdgeSchema, edgeInSchemaOrder],
  ] as const) {
    const got = fast(value);
    const want = schema.safeParse(value);
    if (want.success) tally.zod++;
    if (got === undefined) continue;
    tally.fast++;
    assert.ok(want.success, `the fast path accepted what zod rejects: ${JSON.stringify(value)?.slice(0, 300)}`);
    assert.deepStrictEqual(got, want.data);
    assert.equal(JSON.stringify(order(got as never)), JSON.stringify(want.data), 'written with the fields in the same order as zod');
  }
}

/** The records a text holds: each JSON line, or a document's events and edges, and any `edge` inside. */
function recordsOf(text: string): unknown[] {
  const out: unknown[] = [];
  const push = (v: unknown) => {
    out.push(v);
    if (typeof v === 'object' && v !== null && 'edge' in v) out.push((v as { edge: unknown }).edge);
  };
  try {
    const doc = JSON.parse(text) as { events?: unknown; edges?: unknown };
    for (const key of ['events', 'edges'] as const) if (Array.isArray(doc?.[key])) (doc[key] as unknown[]).forEach(push);
  } catch {
    for (const line of text.split('\n')) {
      try {
        push(JSON.parse(line));
      } catch {
        // a line that is not JSON never reaches the checks
      }
    }
  }
  return out;
}

test('the fast path agrees with zod on the fuzz inputs of every reader (fast-check, seeded)', () => {
  const tally: Tally = { fast: 0, zod: 0, records: 0 };
  const texts = [...FUZZ_CASES.map(([, rel]) => rel), 'survey/example_trace.json', 'hostile/control-names.otrace.jsonl'];
  for (const rel of texts) {
    const text = fs.readFileSync(path.join(FIXTURES, rel), 'utf8');
    for (const r of recordsOf(text)) agree(r, tally);
    fc.assert(
      fc.property(mutation(text.length, text.split('\n').length), (m) => {
        for (const r of recordsOf(apply(text, m))) agree(r, tally);
      }),
      { seed: SEED, numRuns: 40 },
    );
  }
  // not vacuous: the fast path decided most of what zod accepted
  assert.ok(tally.zod > 100, `zod accepted ${tally.zod} records`);
  assert.ok(tally.fast > tally.zod / 2, `fast path took ${tally.fast} of ${tally.zod}`);
});

/** A `source` or `usage` object as JSON text (the fast path checks them as their schemas do): keys valid or not, repeated, unknown, `__proto__`. */
const nestedObject = fc
  .tuple(
    fc.shuffledSubarray(['path', 'line', 'column', 'input', 'output', 'cache_read', 'cache_write', 'cache_write_1h', 'reasoning', 'x', '__proto__'], { maxLength: 4 }),
    fc.array(fc.constantFrom('"p"', '""', '"a/b.md"', '1', '0', '-0', '-1', '2.5', '2e0', '1e999', '9007199254740992', '9007199254740991', 'null', '"3"', '{}', '[1]', 'true'), { minLength: 4, maxLength: 4 }),
    fc.boolean(),
  )
  .map(([keys, values, repeat]) => {
    const named = repeat && keys.length > 0 ? [...keys, keys[0]] : keys;
    return `{${named.map((k, i) => `${JSON.stringify(k)}:${values[i % values.length]}`).join(',')}}`;
  });

/** A JSON text for a field's value: valid and invalid kinds, near-miss enum words, out-of-range numbers. */
const fieldValue = fc.oneof(
  fc.constantFrom(...EVENT_TYPES, ...STOP_REASONS, ...EVENT_KINDS, ...CALL_STATUSES, ...EDGE_TYPES).map((s) => JSON.stringify(s)),
  fc.constantFrom('"Message"', '"stop "', '""', '"x"', '"constructor"', '"__proto__"', '"toString"'),
  fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
  fc.constantFrom('0', '-0', '-1', '1.5', '1e999', '-1e999', '1e308', '5e-324', 'true', 'false', 'null', '[]', '{}', '["a"]', '["a",1]', '[null]', '{"path":"p"}', '{"path":""}', '{"path":"p","line":0}', '{"path":"p","line":2.5}', '{"input":5,"output":1}', '{"output":-1}', '{"cache_read":"3"}', '{"input":1e999}', '{"path":"p","line":9007199254740992}', '{"path":"p","column":9007199254740991}'),
  nestedObject,
);

const FIELDS = ['id', 't', 'type', 'agent', 'role', 'from', 'to', 'tool', 'content_ref', 'trusted', 'content', 'parent', 'causes', 'tokens', 'cost', 'duration_s', 'credit', 'source', 'reason', 'detail', 'decided_by', 'value', 'channel', 'target', 'kind', 'call_status', 'open', 'trace_id', 'clock_skew_s', 'usage', 'src', 'dst', 'phase', 'x', '__proto__', 'edge'];

/** A record as JSON text: a valid core (often), then fields in any order with any values. */
const recordText = fc
  .record({
    core: fc.oneof(
      fc.constant(''),
      fc.constantFrom('"id":"e1","t":0.5,"type":"message","agent":"a"', '"id":"e2","t":3,"type":"stop","agent":"o","reason":"task_complete"', '"id":"r","t":1,"type":"reward","agent":"j","value":0.5', '"src":"a","dst":"b","type":"causal"'),
    ),
    fields: fc.array(fc.tuple(fc.constantFrom(...FIELDS), fieldValue), { maxLength: 8 }),
    first: fc.boolean(),
  })
  .map(({ core, fields, first }) => {
    const parts = fields.map(([k, v]) => `${JSON.stringify(k)}:${v}`);
    if (core) parts.splice(first ? 0 : parts.length, 0, core);
    return `{${parts.join(',')}}`;
  });

test('the fast path checks an event\'s source and usage objects as zod does (keys valid or not, repeated, unknown, __proto__)', () => {
  const tally: Tally = { fast: 0, zod: 0, records: 0 };
  fc.assert(
    fc.property(nestedObject, fc.constantFrom('source', 'usage'), (text, field) => {
      agree(JSON.parse(`{"id":"e1","t":0.5,"type":"message","agent":"a","${field}":${text}}`), tally);
    }),
    { seed: SEED, numRuns: 5_000 },
  );
  // not vacuous: the fast path took many, and left some zod takes (a __proto__ key) to it
  assert.ok(tally.fast > 500 && tally.zod > tally.fast, `fast ${tally.fast}, zod ${tally.zod} of ${tally.records}`);
});

test('the fast path agrees with zod on generated records (any field order, bad values, unknown fields, __proto__)', () => {
  const tally: Tally = { fast: 0, zod: 0, records: 0 };
  fc.assert(
    fc.property(recordText, (text) => {
      agree(JSON.parse(text), tally);
    }),
    { seed: SEED, numRuns: 20_000 },
  );
  assert.ok(tally.fast > 1000 && tally.zod > tally.fast, `fast ${tally.fast}, zod ${tally.zod} of ${tally.records}`);
});
