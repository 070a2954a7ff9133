import assert from 'node:assert/strict';
import { test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import { toChromeTrace, toChromeTraceJson } from '../../../src/trace/export-chrome';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { toSurvey, writeTrace } from '../../../src/trace/write';
import { fixture } from '../helpers';

/** Imported fixtures of every importer (format, path under test/fixtures). */
const IMPORTED: [string, string[]][] = [
  ['who-and-when', ['who-and-when', 'Hand-Crafted', '9.json']],
  ['who-and-when', ['who-and-when', 'Hand-Crafted', '48.json']],
  ['who-and-when', ['who-and-when', 'Algorithm-Generated', '12.json']],
  ['mast', ['mast', 'ChatDev_MAD_records', 'trace_0_ChatDev.json']],
  ['mast', ['mast', 'AG2_early_human_annotated', 'AG2_trace2.json']],
  ['otel-genai', ['otel', 'multi-agent.otlp.jsonl']],
  ['otel-genai', ['otel', 'openinference.otlp.json']],
  ['otel-genai', ['otel', 'cut-off.otlp.jsonl']],
];

function imported(parts: string[]) {
  return loadTrace(fixture(...parts), parts[parts.length - 1]);
}

test("exports of imported traces are valid under the survey's trace_schema.json (draft 2020-12)", () => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(fixture('survey', 'trace_schema.json')));
  for (const [format, parts] of IMPORTED) {
    const loaded = imported(parts);
    assert.equal(loaded.format, format);
    const survey = toSurvey(loaded.trace);
    const ok = validate(survey);
    assert.ok(ok, `${parts.join('/')}: ${ajv.errorsText(validate.errors)}`);
    assert.equal((survey.events as unknown[]).length, loaded.trace.events.length);
  }
  // The schema is not a rubber stamp: a trace with an unknown event type fails it.
  const loaded = imported(['otel', 'multi-agent.otlp.jsonl']);
  const bad = toSurvey(loaded.trace) as { events: Record<string, unknown>[] };
  bad.events[0].type = 'stop';
  assert.equal(validate(bad), false);
});

test('Chrome Trace Event export: one thread per agent lane, X for spans with a duration, i otherwise, ts in µs', () => {
  for (const [, parts] of IMPORTED) {
    const { trace } = imported(parts);
    const chrome = toChromeTrace(trace);
    const lanes = [...new Set(trace.events.map((e) => e.agent))];
    const threads = chrome.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name');
    assert.deepEqual(threads.map((e) => [e.tid, e.args!.name]), lanes.map((agent, i) => [i + 1, agent]));
    const events = chrome.traceEvents.filter((e) => e.ph !== 'M');
    assert.equal(events.length, trace.events.length);
    events.forEach((c, i) => {
      const e = trace.events[i];
      assert.equal(c.pid, 1);
      assert.equal(c.tid, lanes.indexOf(e.agent) + 1);
      assert.equal(c.ts, Math.round(e.t * 1e9) / 1e3);
      assert.equal(c.args!.id, e.id);
      if (e.duration_s !== undefined && e.duration_s > 0) {
        assert.equal(c.ph, 'X');
        assert.equal(c.dur, Math.round(e.duration_s * 1e9) / 1e3);
      } else {
        assert.equal(c.ph, 'i');
        assert.equal(c.s, 't');
      }
    });
    // The text form is the same object, and `otrace convert --to chrome-trace` writes it.
    assert.deepEqual(JSON.parse(toChromeTraceJson(trace)), JSON.parse(JSON.stringify(chrome)));
    assert.equal(writeTrace(trace, 'chrome-trace'), toChromeTraceJson(trace));
  }
});

test('Chrome Trace Event export of the OTel fixture: figures', () => {
  const { trace } = imported(['otel', 'multi-agent.otlp.jsonl']);
  const chrome = toChromeTrace(trace, { maxContent: 10 });
  const slices = chrome.traceEvents.filter((e) => e.ph === 'X');
  assert.equal(slices.length, 10); // 3 delegates, 1 spawn, 4 chats, 2 tool calls: the spans with a duration
  const researcher = chrome.traceEvents.find((e) => e.args?.id === 'c3c3c3c3c3c3c3c3')!;
  assert.deepEqual([researcher.name, researcher.ts, researcher.dur], ['delegate → Researcher', 800000, 5000000]);
  const stop = chrome.traceEvents.find((e) => e.args?.id === '0707070707070707.stop')!;
  assert.deepEqual([stop.name, stop.ph, stop.ts], ['stop (error)', 'i', 8500000]);
  const tool = chrome.traceEvents.find((e) => e.args?.id === 'e5e5e5e5e5e5e5e5')!;
  assert.equal(tool.name, 'tool_call web_search');
  assert.equal(tool.args!.content, '{"query": … (37 characters)');
  assert.deepEqual(chrome.traceEvents[0], { name: 'process_name', ph: 'M', pid: 1, tid: 0, args: { name: '5b8efff798038103d269b633813fc60c' } });
});

test('Chrome Trace Event export: slices that overlap without nesting go to an overflow thread of their lane', () => {
  const trace = {
    trace_id: 'parallel',
    events: [
      { id: 'd', t: 0, type: 'delegate' as const, agent: 'lead', to: 'worker', duration_s: 10 },
      { id: 'a', t: 1, type: 'tool_call' as const, agent: 'worker', tool: 'search', duration_s: 4 },
      { id: 'b', t: 2, type: 'tool_call' as const, agent: 'worker', tool: 'fetch', duration_s: 4 }, // overlaps a
      { id: 'c', t: 2.5, type: 'tool_call' as const, agent: 'worker', tool: 'read', duration_s: 1 }, // inside a
      { id: 's', t: 9, type: 'stop' as const, agent: 'worker', reason: 'task_complete' as const },
    ],
  };
  const chrome = toChromeTrace(trace);
  const tid = (id: string) => chrome.traceEvents.find((e) => e.args?.id === id)!.tid;
  assert.deepEqual(['d', 'a', 'b', 'c', 's'].map(tid), [1, 2, 3, 2, 2]);
  const names = chrome.traceEvents.filter((e) => e.name === 'thread_name').map((e) => [e.tid, e.args!.name]);
  assert.deepEqual(names, [[1, 'lead'], [2, 'worker'], [3, 'worker (2)']]);
  const sort = chrome.traceEvents.filter((e) => e.name === 'thread_sort_index').map((e) => [e.tid, e.args!.sort_index]);
  assert.deepEqual(sort, [[1, 100], [2, 200], [3, 202]]);
});
