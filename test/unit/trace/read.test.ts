/** The native readers keep every loadable record, with its origin, next to the problems. */
import { originOfId } from '../../../src/trace/model';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../src/trace/formats';
import { readTraceJson, readTraceJsonl } from '../../../src/trace/read';
import { fixture } from '../helpers';

test('a JSONL file with a cut-off last line loads every complete line', () => {
  const loaded = readTraceJsonl(fixture('broken', 'cut-off.otrace.jsonl'));
  assert.deepEqual(loaded.trace.events.map((e) => e.id), ['a', 'b']);
  assert.equal(loaded.problems.length, 1);
  assert.equal(loaded.problems[0].range.start.line, 2);
});

test('a JSONL syntax error skips only that line', () => {
  const loaded = readTraceJsonl(fixture('broken', 'syntax-error.otrace.jsonl'));
  assert.deepEqual(loaded.trace.events.map((e) => e.id), ['a', 'c']);
  assert.equal(loaded.trace.trace_id, 't1');
});

test('a cut-off JSON document keeps its complete events and trace fields', () => {
  const loaded = readTraceJson(fixture('broken', 'truncated.otrace.json'));
  assert.deepEqual(loaded.trace.events.map((e) => e.id), ['a']);
  assert.equal(loaded.trace.trace_id, 't3');
});

test('origins: JSONL records are their lines; JSON events are their objects', () => {
  const jsonl = readTraceJsonl(fixture('broken', 'syntax-error.otrace.jsonl'));
  assert.deepEqual(originOfId(jsonl, 'c'), { range: { start: { line: 3, character: 0 }, end: { line: 3, character: 56 } }, record: 3 });
  const json = readTraceJson(fixture('survey', 'example_trace.json'));
  assert.deepEqual(originOfId(json, 'e2'), { range: { start: { line: 14, character: 4 }, end: { line: 21, character: 5 } }, record: 1 });
  assert.deepEqual(json.edgeOrigins.get(0), { range: { start: { line: 80, character: 4 }, end: { line: 80, character: 47 } }, record: 0 });
});

test('unknown properties are kept on traces, events and edges', () => {
  const text = '{"trace_id":"x","lab":"mine","events":[{"id":"a","t":0,"type":"message","agent":"p","x_note":{"k":1}}],"edges":[{"src":"a","dst":"a","type":"causal","w":2}]}';
  const { trace, problems } = readTraceJson(text);
  assert.deepEqual(problems, []);
  assert.deepEqual(trace, JSON.parse(text));
});

test('aliases keep the written word and count as their canonical type', () => {
  const loaded = readTraceJsonl('{"id":"a","t":0,"type":"communicate","agent":"p"}\n{"id":"b","t":1,"type":"tool_use","agent":"p"}\n');
  assert.deepEqual(loaded.trace.events.map((e) => e.type), ['communicate', 'tool_use']);
});

test('format detection is by content, with a message naming the formats tried', () => {
  assert.equal(loadTrace(fixture('survey', 'example_trace.json'), 'anything.json').format, 'survey-json');
  assert.equal(loadTrace('{"id":"a","t":0,"type":"spawn","agent":"p"}\n', 'log.jsonl').format, 'otrace-jsonl');
  const unknown = loadTrace('hello world\n', 'notes.txt');
  assert.equal(unknown.format, 'unknown');
  assert.match(unknown.problems[0].message, /^not a recognized trace format; tried: otrace JSONL, otrace \/ survey trace JSON/);
});

test('a file that starts as JSON and is none says where its JSON breaks (a document cut off), not that its format is unknown', () => {
  const cut = loadTrace('{"history": [{"role": "human", "content": "hi"}', 'log.json');
  assert.equal(cut.format, 'unknown');
  assert.equal(cut.problems[0].message, 'not a trace: the file is not valid JSON (close bracket expected at its end: is it cut off?), neither one document nor one record a line (JSONL)');
  assert.deepEqual(cut.problems[0].range.start, { line: 0, character: 47 });
  assert.match(loadTrace('[1, 2,, 3]', 'a.json').problems[0].message, /^not a trace: the file is not valid JSON \(value expected\), /);
  // valid JSON of no format, and a JSONL file whose first line parses, keep their own messages
  assert.match(loadTrace('{"a": 1}', 'a.json').problems[0].message, /^not a recognized trace format/);
  assert.match(loadTrace('{"a": 1}\n{"b": ', 'a.jsonl').problems[0].message, /^not a recognized trace format/);
});

test('one bad optional field does not cost the event: it loads without the field', () => {
  const loaded = readTraceJsonl('{"id":"a","t":0,"type":"message","agent":"p","content":[{"type":"text","text":"hi"}]}\n{"id":"s","t":1,"type":"stop","agent":"p","reason":"bored"}\n');
  assert.deepEqual(loaded.trace.events, [
    { id: 'a', t: 0, type: 'message', agent: 'p' },
    { id: 's', t: 1, type: 'stop', agent: 'p', reason: 'unknown' },
  ]);
  assert.deepEqual(loaded.problems.map((p) => [p.severity, p.range.start.line]), [['error', 0], ['error', 1]]);
});

test('a problem found at the end of a text read is placed at its field, whatever lines came between (blank ones, others)', () => {
  const lines = ['{"id":"a","t":0,"type":"message","agent":"p","parent":"nowhere"}', ...Array.from({ length: 50_000 }, () => ''), '{"id":"b","t":1,"type":"message","agent":"p","causes":["x","gone"]}'];
  for (let k = 0; k < 1000; k++) lines.push(`{"id":"c${k}","t":${k + 2},"type":"message","agent":"q"}`);
  const loaded = readTraceJsonl(`${lines.join('\n')}\n`);
  // unknown ids are found once every line is read: each problem at the id it names, on its own line
  const at = (word: string) => loaded.problems.find((p) => p.message.includes(word))?.range;
  const place = (line: number, word: string) => ({ start: { line, character: lines[line].indexOf(`"${word}"`) }, end: { line, character: lines[line].indexOf(`"${word}"`) + word.length + 2 } });
  assert.deepEqual(at('nowhere'), place(0, 'nowhere'));
  assert.deepEqual(at('gone'), place(50_001, 'gone'));
  assert.deepEqual(loaded.eventOrigins.get(1), { range: { start: { line: 50_001, character: 0 }, end: { line: 50_001, character: lines[50_001].length } }, record: 50_001 });
});

test('hostile input: a line nested 100,000 levels deep, a BOM, huge values in messages', () => {
  const deep = `{"id":"d","t":0,"type":"message","agent":"p","content":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
  const loaded = loadTrace(`${deep}\n{"id":"ok","t":1,"type":"message","agent":"p"}\n`, 'x.otrace.jsonl');
  // its content is of the wrong type: dropped, the rest of the record kept, the problem put at the line's start (the
  // parser that finds a field's place recurses once per level and cannot reach it)
  assert.deepEqual(loaded.trace.events.map((e) => [e.id, e.content]), [['d', undefined], ['ok', undefined]]);
  assert.deepEqual(loaded.problems.map((p) => [p.message, p.range.start]), [['event "d": "content" must be a string, not an array of 1; the field is ignored, the rest of the record loads', { line: 0, character: 0 }]]);
  const bom = loadTrace(`\ufeff${fixture('survey', 'example_trace.json')}`, 'survey.json');
  assert.deepEqual([bom.format, bom.trace.events.length, bom.problems.length], ['survey-json', 8, 0]);
  const long = readTraceJsonl(`{"id":"a","t":0,"type":"message","agent":"p","content":{"x":"${'y'.repeat(100_000)}"}}\n`);
  assert.ok(long.problems[0].message.length < 200, 'a message never echoes a huge value');
});

test('repeated ids: every event kept; "causes" naming a repeated id resolves to the nearest earlier event, with warnings', async () => {
  const { TraceIndex } = await import('../../../src/analysis/trace-index');
  const text = [
    '{"id":"a","t":0,"type":"message","agent":"x","content":"one"}',
    '{"id":"b","t":1,"type":"message","agent":"y","causes":["a"]}',
    '{"id":"a","t":2,"type":"message","agent":"x","content":"two"}',
    '{"id":"c","t":3,"type":"message","agent":"y","causes":["a"]}',
  ].join('\n');
  const l = readTraceJsonl(text);
  assert.equal(l.trace.events.length, 4);
  assert.deepEqual(l.problems.map((p) => [p.severity, p.range.start.line, p.message]), [
    ['warning', 1, '"causes" names "a", which 2 events carry; it resolves to the nearest earlier one'],
    ['warning', 2, 'duplicate event id "a": both events are kept; a "causes" or "parent" naming it means the nearest earlier one'],
    ['warning', 3, '"causes" names "a", which 2 events carry; it resolves to the nearest earlier one'],
  ]);
  const index = new TraceIndex(l);
  assert.deepEqual(index.parents(1).filter((p) => index.links[index.incoming[1].find((k) => index.links[k].u === p)!].kind === 'causes'), [0]);
  assert.deepEqual(index.parents(3).filter((p) => index.links[index.incoming[3].find((k) => index.links[k].u === p)!].kind === 'causes'), [2]);
});
