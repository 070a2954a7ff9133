/**
 * The column reader (src/trace/columns) against the object reader (`readTraceJsonlBytes`) on the
 * same bytes: the same problems (deep-equal, in order), counts, trace fields and origins; each
 * `columns.event(i)` / `edge(i)` (and `eventsInRange`) deep-equal to the object reader's event /
 * edge i; and each column holding what the event holds (links resolved as the analysis resolves
 * ids). Over every otrace JSONL fixture, the readers' fuzz mutations, 20,000 generated records
 * (valid, near-valid and broken; several traces; repeated and forward ids), for chunks of 1 byte
 * to 8 MB. And the heap the columns keep per event, after a full GC, in a child process.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { NO_LINK, UNRESOLVED } from '../../../../src/trace/columns/event-columns';
import { readTraceColumns, type LoadedColumns } from '../../../../src/trace/columns/read-columns';
import { RecordScanner } from '../../../../src/trace/columns/record-scanner';
import { originsOf, type LoadedTrace } from '../../../../src/trace/model';
import { readTraceJsonlBytes } from '../../../../src/trace/read';
import { CALL_STATUSES, EDGE_TYPES, EVENT_KINDS, EVENT_TYPES, STOP_REASONS, type TraceEvent } from '../../../../src/trace/schema';
import { apply, FUZZ_CASES, mutation } from '../../fuzz/mutations';

const SEED = 30;
const FIXTURES = path.join(__dirname, '..', '..', '..', 'fixtures');

/** Every otrace JSONL fixture. */
function jsonlFixtures(dir = FIXTURES): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...jsonlFixtures(p));
    else if (entry.name.endsWith('.otrace.jsonl')) out.push(p);
  }
  return out.sort();
}

/** Reads `buf` with both readers, `chunk` bytes at a time. */
function readBoth(buf: Buffer, chunk: number): { objects: LoadedTrace & { bytes: number }; columns: LoadedColumns } {
  const read = (b: Buffer, offset: number, length: number, position: number) => buf.copy(b, offset, position, Math.min(buf.length, position + length));
  const readLine = (offset: number, bytes: number) => buf.toString('utf8', offset, offset + bytes);
  return { objects: readTraceJsonlBytes(read, readLine, chunk, buf.length), columns: readTraceColumns(read, readLine, chunk, buf.length) };
}

/**
 * The event an id names from event `v`, as the analysis's index resolves it (src/analysis/trace-index.ts
 * `resolve`): among the events of v's trace carrying it, the nearest before v, else the first; -1 for none.
 */
function resolveLike(events: readonly TraceEvent[], id: string, v: number): number {
  const trace = events[v].trace_id;
  let best = -1;
  for (let k = 0; k < events.length; k++) {
    if (events[k].id !== id || events[k].trace_id !== trace) continue;
    if (k < v) best = k;
    else if (best === -1) return k;
    else break;
  }
  return best;
}

/** What the generated inputs covered (so that the property test is known to reach each case). */
const seen = { severalTraces: 0, forwardLinks: 0, missingLinks: 0, repeatedIds: 0, salvaged: 0, edges: 0, contents: 0, placed: 0, placedEscaped: 0 };

/** Calls of the record scanner's `scan` while `run` runs. */
function scansIn<T>(run: () => T): { value: T; scans: number } {
  const scan = RecordScanner.prototype.scan;
  let scans = 0;
  RecordScanner.prototype.scan = function (this: RecordScanner, ...args: Parameters<typeof scan>) {
    scans++;
    return scan.apply(this, args);
  };
  try {
    return { value: run(), scans };
  } finally {
    RecordScanner.prototype.scan = scan;
  }
}

/**
 * Asserts the contents `c` decodes from their places in the records once it is told the bytes are
 * unchanged: each where the reader scanned it (`contentFrom`: the content's own bytes, between its
 * quotes), the object reader's, and given without scanning its record again.
 */
function samePlacedContents(c: LoadedColumns['columns'], buf: Buffer, events: readonly TraceEvent[]): void {
  const cols = c.events;
  let unplaced = 0;
  for (let i = 0; i < events.length; i++) {
    const from = cols.contentFrom === undefined ? -1 : cols.contentFrom[i];
    if (events[i].content === undefined) continue;
    if (from === -1) {
      unplaced++;
      continue;
    }
    const to = cols.contentTo![i];
    const start = c.eventOrigins.offsetOf(i) + from;
    const end = c.eventOrigins.offsetOf(i) + (to < 0 ? ~to : to);
    assert.equal(JSON.parse(buf.toString('utf8', start - 1, end + 1)), events[i].content, `the place of event ${i}'s content`);
    assert.equal(to < 0, buf.subarray(start, end).includes(92), `event ${i}'s content holds an escape`);
    seen.placed++;
    if (to < 0) seen.placedEscaped++;
  }
  c.unchanged = () => true;
  try {
    const whole = scansIn(() => c.contentsInRange(0, events.length));
    assert.deepStrictEqual(whole.value, events.map((e) => e.content));
    assert.ok(whole.scans <= unplaced, `${whole.scans} records scanned again, ${unplaced} contents without a place`);
    const one = scansIn(() => events.map((_, i) => c.content(i)));
    assert.deepStrictEqual(one.value, events.map((e) => e.content));
    assert.ok(one.scans <= unplaced);
  } finally {
    c.unchanged = undefined;
  }
}

/** Asserts the column reader gives what the object reader gives on `written` (as a file holds it). */
function same(written: Buffer | string, chunk: number): void {
  const buf = typeof written === 'string' ? Buffer.from(written, 'utf8') : written;
  const { objects, columns: loaded } = readBoth(buf, chunk);
  assert.deepStrictEqual(loaded.problems, objects.problems);
  assert.equal(loaded.bytes, objects.bytes);
  const { events, edges, ...header } = objects.trace;
  // a trace-fields line may hold "events" or "edges": the object reader's trace puts its lists there
  const { events: _events, edges: _edges, ...fields } = loaded.header as Record<string, unknown>;
  assert.deepStrictEqual(fields, header);
  assert.deepStrictEqual(loaded.traceHeaders, objects.traceHeaders);
  const c = loaded.columns;
  assert.equal(c.eventCount, events.length);
  assert.equal(c.edgeCount, edges.length);
  assert.deepStrictEqual(originsOf(c.eventOrigins), originsOf(objects.eventOrigins));
  assert.deepStrictEqual(originsOf(c.edgeOrigins), originsOf(objects.edgeOrigins));
  const cols = c.events;
  if (loaded.traceHeaders) seen.severalTraces++;
  if (new Set(events.map((e) => `${e.trace_id}\u0000${e.id}`)).size < events.length) seen.repeatedIds++;
  if (objects.problems.some((p) => /the field is ignored|loads with reason/.test(p.message))) seen.salvaged++;
  seen.edges += edges.length;
  for (let i = 0; i < events.length; i++) {
    if (cols.parent[i] > i) seen.forwardLinks++;
    if (cols.parent[i] === UNRESOLVED) seen.missingLinks++;
    const e = events[i];
    assert.deepStrictEqual(c.event(i), e, `event ${i}`);
    assert.equal(c.content(i), e.content, `content of event ${i}`);
    assert.equal(cols.ids[i], e.id);
    assert.equal(cols.t[i], e.t);
    assert.equal(cols.typeOf(i), e.type);
    assert.equal(cols.agentOf(i), e.agent);
    assert.equal(cols.traceId(i), e.trace_id);
    assert.equal(cols.nameAt(cols.tool, i), e.tool);
    assert.equal(cols.nameAt(cols.from, i), e.from);
    assert.equal(cols.nameAt(cols.to, i), e.to);
    assert.equal(cols.nameAt(cols.role, i), e.role);
    for (const [column, value] of [[cols.tokens, e.tokens], [cols.cost, e.cost], [cols.duration, e.duration_s]] as const) {
      assert.equal(column === undefined || Number.isNaN(column[i]) ? undefined : column[i], value);
    }
    assert.equal(cols.reasonOf(i), e.reason);
    assert.equal(cols.kindOf(i), e.kind);
    assert.equal(cols.callStatusOf(i), e.call_status);
    assert.equal(cols.contentChars === undefined || cols.contentChars[i] === -1 ? undefined : cols.contentChars[i], e.content?.length);
    // links: the event the analysis would link, or unresolved with the name kept
    const p = cols.parent[i];
    if (e.parent === undefined) assert.equal(p, NO_LINK);
    else {
      assert.equal(p, resolveLike(events, e.parent, i) === -1 ? UNRESOLVED : resolveLike(events, e.parent, i), `parent of event ${i}`);
      assert.equal(cols.parentName(i), e.parent);
    }
    const from = cols.causesAt[i];
    assert.equal(cols.causesAt[i + 1] - from, e.causes?.length ?? 0);
    (e.causes ?? []).forEach((cause, k) => {
      const want = resolveLike(events, cause, i);
      assert.equal(cols.causes[from + k], want === -1 ? UNRESOLVED : want, `cause ${k} of event ${i}`);
      assert.equal(cols.causeName(from + k), cause);
    });
  }
  assert.deepStrictEqual(c.eventsInRange(0, events.length), events);
  assert.deepStrictEqual(c.contentsInRange(0, events.length), events.map((e) => e.content));
  if (events.some((e) => e.content !== undefined)) seen.contents++;
  samePlacedContents(c, buf, events);
  if (events.length > 2) assert.deepStrictEqual(c.eventsInRange(1, events.length - 1), events.slice(1, -1));
  for (let i = 0; i < edges.length; i++) {
    assert.deepStrictEqual(c.edge(i), edges[i], `edge ${i}`);
    assert.equal(c.edges.typeOf(i), edges[i].type);
    for (const end of ['src', 'dst'] as const) {
      const k = (end === 'src' ? c.edges.src : c.edges.dst)[i];
      assert.equal(k, events.findIndex((e) => e.id === edges[i][end]) === -1 ? UNRESOLVED : events.findIndex((e) => e.id === edges[i][end]));
      assert.equal(c.edges.end(i, end), edges[i][end]);
    }
  }
  for (const i of [-1, events.length, 0.5, Number.NaN]) {
    assert.equal(c.event(i), undefined);
    assert.equal(c.content(i), undefined);
    assert.equal(c.edge(i), undefined);
  }
  assert.deepStrictEqual(c.eventsInRange(Number.NaN, events.length), []);
  assert.deepStrictEqual(c.eventsInRange(-5, 0.5), events.slice(0, 1));
}

test('the column reader reads every otrace JSONL fixture as the object reader does, for chunks of 1 byte to 8 MB', () => {
  const files = jsonlFixtures();
  assert.ok(files.length >= 14, `${files.length} fixtures`);
  for (const file of files) {
    const buf = fs.readFileSync(file);
    for (const chunk of [1, 7, 64, 4096, 8 << 20]) same(buf, chunk);
  }
});

test('the column reader agrees on CRLF, a byte-order mark, multi-byte text, blank lines, a cut-off last line and bytes that are not UTF-8', () => {
  const ev = (id: string, extra = '') => `{"id":"${id}","t":0,"type":"message","agent":"a"${extra}}`;
  const lines = ['{"trace_id":"t"}', ev('a', ',"agent":"ü😀","content":"日本語 ✓"'), '', '   ', '{"edge":{"src":"a","dst":"zz","type":"causal"}}', ev('b', ',"t":-1,"parent":"a"'), '{"id":"c","t":1,"type":"mess'];
  // multi-byte text the record scanner reads (no field given twice), plain and escaped
  lines.splice(2, 0, '{"id":"m","t":2,"type":"message","agent":"ü😀","content":"日本語 ✓ é"}', '{"id":"n","t":3,"type":"message","agent":"ü","content":"日本 \\"q\\" \\u00e9 😀","tool":"é"}');
  const variants = [false, true].flatMap((bom) => ['\n', '\r\n'].flatMap((eol) => [lines, lines.slice(0, 8)].map((some) => `${bom ? '\ufeff' : ''}${some.join(eol)}${some.length < lines.length ? eol : ''}`)));
  for (const variant of variants) for (const chunk of [1, 3, 16, 1 << 20]) same(variant, chunk);
  same(Buffer.concat([Buffer.from(`${ev('a')}\n{"id":"b`), Buffer.from([0xe6, 0x97]), Buffer.from(`","t":0,"type":"message","agent":"a","parent":"a"}\n${ev('c')}\n`)]), 64);
});

test('the column reader keeps each (trace, id) pair apart, whatever NULs they hold, and a line nested too deeply to position its problems is read', () => {
  // trace "" with id "" is not the id "\u0000" of an event naming no trace; trace "t" with id "x" not the id "t\u0000x"
  const ev = (fields: string) => `{"t":1,"type":"message","agent":"a",${fields}}`;
  const files = [
    [ev('"id":"a","trace_id":"","parent":""'), ev('"id":"\\u0000"')],
    ['{"trace_id":"h"}', ev('"id":"b","trace_id":"t","causes":["x"]'), ev('"id":"t\\u0000x"'), ev('"id":"z"')],
    ['{"trace_id":"h"}', ev('"id":"b","trace_id":"t","parent":"x"'), ev('"id":"t\\u0000x"'), ev('"id":"x","trace_id":"t"'), '{"edge":{"src":"t\\u0000x","dst":"b","type":"causal"}}'],
  ];
  for (const lines of files) for (const chunk of [1, 7, 1 << 20]) same(`${lines.join('\n')}\n`, chunk);
  // and the checks of both readers see that the parent "" of trace "" is missing (they took the id "\u0000" for it)
  assert.deepStrictEqual(readBoth(Buffer.from(`${files[0].join('\n')}\n`), 1 << 20).objects.problems.map((p) => p.message), ['"parent" names a missing event ""']);
  // a missing parent on a line of 100,000 nested brackets: its warning is put at the line's start (the positioning parser recurses per level)
  const deep = `${ev('"id":"a"')}\n${ev(`"id":"b","parent":"zz","x":${'['.repeat(100_000)}${']'.repeat(100_000)}`)}\n`;
  // (compared by hand: a deep-equal of the events would itself recurse 100,000 levels)
  const { objects, columns } = readBoth(Buffer.from(deep), 1 << 20);
  assert.deepStrictEqual(columns.problems, objects.problems);
  assert.ok(objects.problems.some((p) => p.range.start.line === 1 && p.range.start.character === 0 && /zz/.test(p.message)), JSON.stringify(objects.problems));
  assert.deepStrictEqual([columns.columns.event(0)?.id, columns.columns.event(1)?.id], objects.trace.events.map((e) => e.id));
});

test('the column reader agrees with the object reader on the readers fuzz mutations (fast-check, seeded)', () => {
  const texts = FUZZ_CASES.map(([, rel]) => fs.readFileSync(path.join(FIXTURES, rel), 'utf8'));
  fc.assert(
    fc.property(
      fc.nat({ max: texts.length - 1 }).chain((k) => fc.tuple(fc.constant(texts[k]), mutation(texts[k].length, texts[k].split('\n').length), fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constant(8 << 20)))),
      ([text, m, chunk]) => same(apply(text, m), chunk),
    ),
    { seed: SEED, numRuns: 200 },
  );
});

/** Ids and names from small pools: repeated ids, references to earlier, later and missing events. */
const ID = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'a\u00e9', '', '\u0000', 't1\u0000a');
const NAME = fc.constantFrom('orchestrator', 'worker', 'w\u00fc', '', 'x');
const NUMBER = fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom(-1, 0, 1.5, 1e300));
const TRACE = fc.constantFrom('t1', 't2', 't3', '', 't1\u0000');
/** A value of the wrong type for any field, sometimes. */
const BAD = fc.constantFrom<unknown>(null, 'x', 3, true, [], {}, ['a', 1]);

/** One generated event record: valid fields mostly, any of them wrong sometimes, rare fields and unknown keys. */
const EVENT = fc.record(
  {
    id: fc.oneof({ weight: 9, arbitrary: ID }, { weight: 1, arbitrary: BAD }),
    t: fc.oneof({ weight: 9, arbitrary: NUMBER }, { weight: 1, arbitrary: BAD }),
    type: fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...EVENT_TYPES) }, { weight: 1, arbitrary: fc.constantFrom<unknown>('bogus', 3) }),
    agent: fc.oneof({ weight: 9, arbitrary: NAME }, { weight: 1, arbitrary: BAD }),
    parent: fc.oneof({ weight: 9, arbitrary: ID }, { weight: 1, arbitrary: BAD }),
    causes: fc.oneof({ weight: 9, arbitrary: fc.array(ID, { maxLength: 3 }) }, { weight: 1, arbitrary: BAD }),
    tool: fc.oneof(NAME, BAD),
    from: NAME,
    to: NAME,
    role: fc.constantFrom('user', 'assistant'),
    tokens: fc.oneof(NUMBER, BAD),
    cost: NUMBER,
    duration_s: NUMBER,
    content: fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.constant('x'.repeat(300))),
    reason: fc.oneof(fc.constantFrom(...STOP_REASONS), fc.constant('bogus')),
    kind: fc.oneof(fc.constantFrom(...EVENT_KINDS), fc.constant('bogus')),
    call_status: fc.oneof(fc.constantFrom(...CALL_STATUSES), fc.constant('bogus')),
    trace_id: TRACE,
    value: fc.oneof(NUMBER, BAD),
    usage: fc.oneof(fc.record({ input: NUMBER, output: NUMBER }, { requiredKeys: [] }), BAD),
    source: fc.oneof(fc.record({ path: fc.constantFrom('p.md', ''), line: fc.integer({ min: -1, max: 9 }) }, { requiredKeys: ['path'] }), BAD),
    detail: fc.string({ maxLength: 5 }),
    channel: fc.string({ maxLength: 5 }),
    extra: fc.jsonValue({ maxDepth: 2 }),
    __proto__: fc.constant({ polluted: 1 }),
  },
  { requiredKeys: [] },
).map((fields) => {
  // required fields present most of the time, optional ones rarely
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = v;
  return out;
});

/** A line of a generated file: an event (most), an edge, trace fields (several traces), or junk. */
const LINE = fc.oneof(
  { weight: 20, arbitrary: fc.tuple(EVENT, fc.constantFrom('id', 't', 'type', 'agent', '')).map(([e, drop]) => JSON.stringify(e).replace(drop ? `"${drop}":` : '\u0000', '"_":')) },
  { weight: 12, arbitrary: fc.record({ id: ID.filter((s) => s !== ''), t: fc.nat(20), type: fc.constantFrom('message', 'tool_call'), agent: NAME.filter((s) => s !== '') }).map((e) => JSON.stringify(e)) },
  { weight: 2, arbitrary: fc.record({ src: fc.oneof(ID, BAD), dst: ID, type: fc.oneof(fc.constantFrom(...EDGE_TYPES), fc.constant('bogus')) }, { requiredKeys: ['dst'] }).map((edge) => JSON.stringify({ edge })) },
  { weight: 1, arbitrary: fc.record({ trace_id: fc.oneof(TRACE, BAD), task_id: fc.constant('task'), topology: fc.constantFrom('swarm', 'bogus') }, { requiredKeys: [] }).map((h) => JSON.stringify(h)) },
  { weight: 1, arbitrary: fc.constantFrom('', '   ', '42', 'null', '[1]', '{"id":"x","t":', 'not json', '{"a":[1', '2]}') },
);

test('the column reader agrees with the object reader on 20,000 generated records: bad fields, rare fields, repeated and forward ids, several traces, any chunk size (fast-check, seeded)', () => {
  let records = 0;
  fc.assert(
    fc.property(fc.array(LINE, { minLength: 45, maxLength: 60 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constant(8 << 20)), (lines, eol, end, chunk) => {
      records += lines.length;
      same(lines.join(eol) + (end ? eol : ''), chunk);
    }),
    { seed: SEED, numRuns: 400 },
  );
  assert.ok(records >= 20_000, `${records} records`);
  for (const [what, count] of Object.entries(seen)) assert.ok(count > 0, `the generated files reach ${what}`);
});
