/**
 * Bad input is normal input: every span-export fixture cut at 60 points, and with its time, parent and
 * attribute fields nulled, still loads through its own reader — no reader failure, origins index for
 * index with events, every range inside the file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTrace } from '../../../../src/trace/formats';
import '../../../../src/trace/importers';
import { LineIndex, originsOf, type LoadedTrace } from '../../../../src/trace/model';
import { fixture } from '../../helpers';

const FILES: [string, string, string][] = [
  ['jaeger', 'jaeger', 'agents.jaeger.json'],
  ['zipkin', 'zipkin', 'agents.zipkin.json'],
  ['langfuse', 'langfuse', 'trace.langfuse.json'],
  ['phoenix', 'phoenix', 'spans.phoenix.jsonl'],
  ['phoenix', 'phoenix', 'spans-dataframe.phoenix.json'],
  ['langsmith', 'langsmith', 'run-tree.langsmith.json'],
  ['langsmith', 'langsmith', 'runs.langsmith.jsonl'],
  ['openai-agents', 'openai-agents', 'trace.openai-agents.jsonl'],
  ['agentops', 'agentops', 'trace.agentops.json'],
];

function check(text: string, loaded: LoadedTrace, what: string): void {
  assert.ok(!loaded.problems.some((p) => /reader failed/.test(p.message)), `${what}: ${loaded.problems.map((p) => p.message).join('; ')}`);
  assert.equal(loaded.eventOrigins.length, loaded.trace.events.length, what);
  const lines = new LineIndex(text);
  for (const o of originsOf(loaded.eventOrigins)) {
    const end = lines.lineStart(o!.range.end.line) + o!.range.end.character;
    assert.ok(end <= text.length, `${what}: range inside the file`);
  }
}

test('span exports: cut-off and nulled files load through their own reader, origins inside the file', () => {
  for (const [format, dir, name] of FILES) {
    const text = fixture(dir, name);
    const step = Math.max(1, Math.floor(text.length / 60));
    for (let cut = 40; cut < text.length; cut += step) {
      const part = text.slice(0, cut);
      const loaded = loadTrace(part, name);
      if (loaded.format === format) check(part, loaded, `${name} cut at ${cut}`);
    }
    const nulled = text.replace(/"(startTime|endTime|start_time|end_time|started_at|ended_at|timestamp|parentObservationId|parent_id|parent_run_id|parent_span_id|span_data|references|tags|attributes|span_attributes|usage)": [^,\n]+/g, '"$1": null');
    const loaded = loadTrace(nulled, name);
    assert.equal(loaded.format, format, `${name} nulled: still detected`);
    check(nulled, loaded, `${name} nulled`);
  }
});
