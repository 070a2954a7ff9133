/**
 * The record scanner (src/trace/columns/record-scanner.ts) against JSON.parse and the fast check it
 * stands for: over generated lines (known fields valid and not, unknown fields nested, keys in any
 * order and repeated, escapes, numbers in every JSON form and some that are not JSON, multi-byte
 * text, raw control bytes, spaces and tabs between tokens, cut-off and corrupted lines, at every
 * alignment in a buffer), a line it takes is one JSON.parse reads, whose value `fastEventFields` (or
 * `fastEdge`) accepts with the same fields; and it takes the lines writers write (so that the
 * read is not only correct by declining everything).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { EVENT_FIELD_NAMES, fastEdge, fastEventFields } from '../../../../src/trace/fast-check';
import { RecordScanner } from '../../../../src/trace/columns/record-scanner';
import { DECLINED, SCANNED_EDGE } from '../../../../src/trace/read';
import { CALL_STATUSES, EDGE_TYPES, EVENT_KINDS, EVENT_TYPES, STOP_REASONS } from '../../../../src/trace/schema';
import { generateRecords } from '../../../../bench/_generate';

const SEED = 31;
const CONTENT = EVENT_FIELD_NAMES.indexOf('content');

/** What the scanner made of `line`, put after `pad` bytes of filler lines in a buffer (so every alignment is tried). */
function scanLine(line: string, pad: number): { verdict: number; scanner: RecordScanner } {
  const body = Buffer.from(line, 'utf8');
  const filler = Buffer.alloc(pad, 0x20);
  if (pad > 0) filler[pad - 1] = 10;
  const buf = Buffer.concat([filler, body, Buffer.from('\n')]);
  const scanner = new RecordScanner();
  scanner.startRun(buf);
  return { verdict: scanner.scan(pad, pad + body.length, body.toString('utf8').length), scanner };
}

/** Asserts the scanner's verdict on `line` is sound: a line it takes is read by JSON.parse and the fast check as it read it. @returns whether it took it. */
function sound(line: string, pad: number): boolean {
  const { verdict, scanner } = scanLine(line, pad);
  if (verdict === DECLINED) return false;
  let value: unknown;
  // as a file holds it: a lone surrogate of the generated string is written as U+FFFD
  const written = Buffer.from(line, 'utf8').toString('utf8');
  assert.doesNotThrow(() => (value = JSON.parse(written)), `JSON.parse reads what the scanner took: ${line.slice(0, 300)}`);
  const record = value as Record<string, unknown>;
  if (verdict === SCANNED_EDGE) {
    assert.deepEqual(Object.keys(record), ['edge'], `an edge line holds only its edge: ${line.slice(0, 300)}`);
    const edge = fastEdge(record.edge);
    assert.ok(edge, `fastEdge takes the edge: ${line.slice(0, 300)}`);
    assert.deepEqual({ src: scanner.edge.src, dst: scanner.edge.dst, type: scanner.edge.type }, { src: edge.src, dst: edge.dst, type: edge.type });
    return true;
  }
  assert.ok(verdict >= 0, `a mask or a verdict: ${verdict}`);
  const fields: unknown[] = EVENT_FIELD_NAMES.map(() => undefined);
  const mask = fastEventFields(value, fields);
  assert.equal(verdict, mask, `the fast check's mask on the parsed line: ${line.slice(0, 300)}`);
  for (let k = 0; k < EVENT_FIELD_NAMES.length; k++) {
    if ((mask & (1 << k)) === 0) continue;
    if (k === CONTENT) assert.equal(scanner.contentChars, (fields[k] as string).length, `content length: ${line.slice(0, 300)}`);
    else if (['content_ref', 'detail', 'decided_by', 'channel', 'target', 'source', 'usage'].includes(EVENT_FIELD_NAMES[k])) continue; // checked, not made
    else assert.deepStrictEqual(scanner.fields[k], fields[k], `field ${EVENT_FIELD_NAMES[k]}: ${line.slice(0, 300)}`);
  }
  return true;
}

// ---- generated lines --------------------------------------------------------------------------

/** Text with the characters that need care: quotes, backslashes, control characters, multi-byte and astral ones, lone surrogates. */
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom('e1', 'orchestrator', 'worker_3', 'search', 'Paris é', '北京', '🙂 ok', 'tab\there', 'a"b', 'back\\slash', 'line\nbreak', '\u2028', '\ud800', 'ÿ', '', '\tx', '\u0001', 'a\u001f', 'ab\rc', '\u007f') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 30 }) },
);

/** A string as JSON text: as JSON.stringify writes it, or with characters escaped as \uXXXX, or `\/`, or raw control bytes (not JSON). */
const jsonString = (s: string) =>
  fc.constantFrom('plain', 'plain', 'plain', 'plain', 'plain', 'escaped', 'slash', 'raw').map((how) => {
    const plain = JSON.stringify(s);
    if (how === 'plain') return plain;
    if (how === 'escaped') return `"${[...s].map((c) => (c.length === 1 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('')}"`;
    if (how === 'slash') return plain.replaceAll('/', '\\/');
    return `"${s}"`; // raw: quotes and control bytes as they are (mostly not JSON)
  });

/** Numbers as JSON writes them and as hand-written files do, and some JSON has not. */
const numberText = fc.oneof(
  fc.double({ noNaN: true }).map((x) => JSON.stringify(x)),
  fc.integer().map(String),
  fc.constantFrom('0', '-0', '0.5', '1.50', '1e3', '1E+2', '2.5e-3', '-1', '12345678901234567890', '0.1000000000000000055511151231257827', '1.0000000000000002', '1e400', '-1e400', '5e-324', '123456789012345.6', '01', '1.', '.5', '+1', '1e', '--1', '0x10', 'NaN', 'Infinity', '-', '1.e5', '1e+', '-.5', '-01', '00'),
);

const literalText = fc.constantFrom('true', 'false', 'null', 'tru', 'nul');

/** Any JSON value, nested a little (an unknown field's), sometimes not JSON. */
const anyValue: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text.chain(jsonString),
    numberText,
    literalText,
    fc.array(tie('value'), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
    fc.array(fc.tuple(text.chain(jsonString), tie('value')), { maxLength: 3 }).map((kv) => `{${kv.map(([k, v]) => `${k}:${v}`).join(',')}}`),
  ),
})).value;

const enumText = (values: readonly string[]) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: text }).chain(jsonString);

/** An object of some of `keys` (any order, sometimes one twice, sometimes an unknown key, an escaped key or `__proto__`) with values of `value`. */
function objectText(keys: string[], value: (key: string) => fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(fc.shuffledSubarray([...keys, 'input_tokens', 'x'], { maxLength: 4 }), fc.constantFrom('plain', 'plain', 'plain', 'repeated', 'escaped', 'proto'))
    .chain(([chosen, how]) => {
      const names = how === 'repeated' && chosen.length > 0 ? [...chosen, chosen[0]] : how === 'proto' ? [...chosen, '__proto__'] : chosen;
      return fc.tuple(...names.map((k) => (keys.includes(k) ? value(k) : anyValue))).map((values) =>
        `{${names.map((k, i) => `${how === 'escaped' && i === 0 ? `"\\u${k.charCodeAt(0).toString(16).padStart(4, '0')}${k.slice(1)}"` : JSON.stringify(k)}:${values[i]}`).join(',')}}`,
      );
    });
}

/** A value for known field `name`: mostly of its type, sometimes any value. */
function fieldValue(name: string): fc.Arbitrary<string> {
  const typed = (() => {
    switch (name) {
      case 'type':
        return enumText(EVENT_TYPES);
      case 'reason':
        return enumText(STOP_REASONS);
      case 'kind':
        return enumText(EVENT_KINDS);
      case 'call_status':
        return enumText(CALL_STATUSES);
      case 't':
      case 'tokens':
      case 'cost':
      case 'duration_s':
        return fc.oneof({ weight: 3, arbitrary: fc.double({ min: 0, max: 1e6, noNaN: true }).map((x) => JSON.stringify(x)) }, { weight: 1, arbitrary: fc.nat().map(String) }, { weight: 1, arbitrary: numberText });
      case 'credit':
      case 'value':
      case 'clock_skew_s':
        return numberText;
      case 'trusted':
      case 'open':
        return literalText;
      case 'causes':
        return fc.array(text.chain(jsonString), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`);
      case 'source':
        return objectText(['path', 'line', 'column'], (k) => (k === 'path' ? text.chain(jsonString) : fc.constantFrom('0', '1', '2', '-1', '1.5', '2e0', '9007199254740991', '9007199254740992', '1e999', '"1"', 'null')));
      case 'usage':
        return objectText(['input', 'output', 'cache_read', 'cache_write', 'cache_write_1h', 'reasoning'], () => fc.constantFrom('0', '-0', '3', '1.5', '-1', '1e999', '"3"', 'null', '[]'));
      default:
        return text.chain(jsonString);
    }
  })();
  return fc.oneof({ weight: 12, arbitrary: typed }, { weight: 1, arbitrary: anyValue });
}

const KEYS = [...EVENT_FIELD_NAMES, 'source', 'usage', 'source', 'usage', '__proto__', 'edge', 'extra', 'meta', 'é'];

/** Space between tokens: none, spaces, or a tab (JSON white space the scanner declines). */
const gap = fc.constantFrom('', '', '', '', '', '', '', ' ', '  ', '\t');

/** An event-like line: required fields most of the time, other fields at random, keys in any order, some repeated or escaped. */
const eventLine = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: fc.constant(['id', 't', 'type', 'agent']) }, { weight: 1, arbitrary: fc.subarray(['id', 't', 'type', 'agent'], { minLength: 2 }) }),
    fc.subarray(KEYS, { maxLength: 6 }),
    fc.boolean(),
    gap,
    fc.constantFrom('plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'escaped key', 'repeated'),
  )
  .chain(([required, others, shuffle, g, keyHow]) => {
    const keys = [...new Set([...required, ...others])];
    if (keyHow === 'repeated' && keys.length > 0) keys.push(keys[0]);
    return fc.tuple(...keys.map((k) => fieldValue(k))).chain((values) =>
      (shuffle ? fc.shuffledSubarray(keys.map((k, i) => [k, values[i]] as const), { minLength: keys.length, maxLength: keys.length }) : fc.constant(keys.map((k, i) => [k, values[i]] as const))).map((pairs) => {
        const key = (k: string, i: number) => (keyHow === 'escaped key' && i === 0 ? `"\\u${k.charCodeAt(0).toString(16).padStart(4, '0')}${k.slice(1)}"` : JSON.stringify(k));
        return `${g}{${g}${pairs.map(([k, v], i) => `${key(k, i)}${g}:${g}${v}`).join(`${g},${g}`)}${g}}${g}`;
      }),
    );
  });

/** An edge-like line. */
const edgeLine = fc
  .tuple(fc.oneof({ weight: 3, arbitrary: fc.shuffledSubarray(['src', 'dst', 'type'], { minLength: 3 }) }, { weight: 1, arbitrary: fc.shuffledSubarray(['src', 'dst', 'type', 'weight', '__proto__'], { minLength: 2 }) }), gap, fc.boolean())
  .chain(([keys, g, extraTop]) =>
    fc.tuple(...keys.map((k) => (k === 'type' ? enumText(EDGE_TYPES) : k === 'weight' ? anyValue : fc.oneof({ weight: 4, arbitrary: text.chain(jsonString) }, { weight: 1, arbitrary: anyValue })))).map((values) => {
      const inner = `{${keys.map((k, i) => `${JSON.stringify(k)}${g}:${g}${values[i]}`).join(`,${g}`)}}`;
      return extraTop ? `{"edge":${inner},"x":1}` : `{${g}"edge"${g}:${g}${inner}${g}}`;
    }),
  );

/** A line cut off, or with a byte changed, inserted or removed. */
function corrupted(line: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(line, fc.nat(), fc.constantFrom('cut', 'insert', 'delete', 'replace'), fc.constantFrom('"', '\\', '{', '}', ',', ':', '1', 'e', ' ', '\u0001', 'é', '[', ']')).map(([l, n, how, c]) => {
    const at = l.length === 0 ? 0 : n % l.length;
    if (how === 'cut') return l.slice(0, at);
    if (how === 'insert') return l.slice(0, at) + c + l.slice(at);
    if (how === 'delete') return l.slice(0, at) + l.slice(at + 1);
    return l.slice(0, at) + c + l.slice(at + 1);
  });
}

const anyLine = fc.oneof({ weight: 5, arbitrary: eventLine }, { weight: 2, arbitrary: edgeLine }, { weight: 3, arbitrary: corrupted(fc.oneof(eventLine, edgeLine)) }, { weight: 1, arbitrary: anyValue });

test('a line the record scanner takes is one JSON.parse reads and the fast check accepts with the same fields, for generated lines at every alignment (fast-check, seeded)', () => {
  let taken = 0;
  let edges = 0;
  let lines = 0;
  fc.assert(
    fc.property(anyLine, fc.nat(7), (line, pad) => {
      lines++;
      if (sound(line, pad)) {
        taken++;
        if (scanLine(line, pad).verdict === SCANNED_EDGE) edges++;
      }
    }),
    { seed: SEED, numRuns: 20_000 },
  );
  // the property covers lines taken, as events and as edges, not only lines declined
  assert.ok(taken > 500, `${taken} of ${lines} lines taken`);
  assert.ok(edges > 100, `${edges} edges taken`);
  console.log(`${taken} of ${lines} lines taken, ${edges} edges`);
});

test('the record scanner checks an event\'s source and usage objects as the fast check does (fast-check, seeded)', () => {
  let taken = 0;
  fc.assert(
    fc.property(fc.constantFrom('source', 'usage').chain((field) => fc.tuple(fc.constant(field), fieldValue(field))), fc.nat(3), ([field, value], pad) => {
      if (sound(`{"id":"e1","t":0.5,"type":"message","agent":"a","${field}":${value}}`, pad)) taken++;
    }),
    { seed: SEED, numRuns: 5_000 },
  );
  assert.ok(taken > 500, `${taken} taken`);
});

test('the record scanner takes the lines writers write: every record of a generated trace, in JSON.stringify form', () => {
  let events = 0;
  let edges = 0;
  for (const record of generateRecords(3000, { longContent: true })) {
    const line = 'event' in record ? JSON.stringify(record.event) : JSON.stringify({ edge: record.edge });
    assert.ok(sound(line, line.length % 4), `taken: ${line.slice(0, 200)}`);
    if ('event' in record) events++;
    else edges++;
  }
  assert.ok(events >= 3000 && edges > 0);
});

test('the record scanner reads escapes, multi-byte text and numbers as JSON.parse does', () => {
  const cases = [
    '{"id":"e\\u0031","t":1.5,"type":"message","agent":"a\\/b","content":"tab\\tnew\\nline \\"quoted\\" \\\\ é 北京 🙂 \\ud83d\\ude42"}',
    '{"id":"北京","t":0,"type":"tool_call","agent":"🙂","tool":"é","causes":["e\\"1", "北"],"tokens":1e3,"cost":0.1000000000000000055511151231257827}',
    '{"id":"x","t":-0,"type":"stop","agent":"a","reason":"task_complete","detail":"\\u0000","duration_s":12345678901234567890}',
    '{ "id" : "x" , "t" : 2.5e-3 , "type" : "reward" , "agent" : "a" , "value" : -1.0000000000000002 , "extra" : {"a":[1,{"b":null}],"c":"\\u00e9"} }',
  ];
  for (const line of cases) for (let pad = 0; pad < 4; pad++) assert.ok(sound(line, pad), `taken: ${line}`);
  for (const line of ['{"id":"x","t":1,"type":"message","agent":"a","content":"raw\ttab"}', '{"id":"x","t":01,"type":"message","agent":"a"}', '{"id":"x","t":1,"type":"message","agent":"a","id":"y"}', '{"\\u0069d":"x","t":1,"type":"message","agent":"a"}'])
    assert.equal(scanLine(line, 0).verdict, DECLINED, `declined: ${line}`);
});
