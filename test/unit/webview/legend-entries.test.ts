/** The legend lists only what the graph shows, in plain words: no "stop ✓" without a sound stop, no credit without a visible halo. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { graphOverview } from '../../../src/engine/graph-window';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { loadTrace } from '../../../src/trace/formats';
import { nodeFileAccess } from '../../../src/trace/node-files';
import { readTraceJsonl } from '../../../src/trace/read';
import '../../../src/trace/importers';
import { legendEntries } from '../../../webview/legend-entries';
import { fixturePath } from '../helpers';

function entriesOf(file: string) {
  const snapshot = makeSnapshot('k', 1, file, loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess));
  return legendEntries(graphOverview(snapshot, path.basename(file)));
}

test('the Claude Code session: its kinds (each with its arrow), its cues and the influence halo; no loop, blame or stop marks it does not have', () => {
  const entries = entriesOf(fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'));
  assert.deepEqual(
    entries.map((e) => e.name),
    ['decision', 'spawn', 'delegate', 'message', 'tool call', 'return', 'stop', 'meta row', 'compaction', 'failed', 'share of the result'],
  );
  assert.deepEqual(entries.find((e) => e.name === 'spawn')!.swatch, { category: 'spawn', kinds: ['spawn'], arrow: 'spawn' }, 'the spawn arrow shares the spawn entry');
  for (const e of entries) assert.doesNotMatch(`${e.name} ${e.title}`, /✓|⚠|stop \/ safety|loop member/, e.name);
  for (const e of entries) assert.ok(!e.title.startsWith(`${e.name}: ${e.name}`), `the tooltip says more than the name: ${e.title}`);
});

test('the demo: its loop and its sound stop are listed in plain words, credit with an outcome', () => {
  const names = entriesOf(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl')).map((e) => e.name);
  assert.deepEqual(names.slice(-3), ['repeated', 'succeeded ✓', 'credit']);
  assert.ok(names.includes('reward / aggregate'));
});

test("the demo's grey lines between lanes (causal links, an aggregate) are named, with their types; a link within a lane (drawn as no line) is not", () => {
  const entries = entriesOf(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'));
  const link = entries.find((e) => e.name === 'link →');
  assert.ok(link, entries.map((e) => e.name).join(', '));
  assert.deepEqual(link.swatch, { link: true });
  assert.match(link.title, /^a grey line: .*\(causal[^)]*\); not a hand-off$/);
  const within = readTraceJsonl(['{"id":"a","t":0,"type":"message","agent":"x","content":"plan"}', '{"id":"b","t":1,"type":"tool_call","agent":"x","tool":"bash","content":"ls"}', '{"edge":{"src":"a","dst":"b","type":"causal"}}'].join('\n'));
  const overview = graphOverview(makeSnapshot('k', 1, 'within.otrace.jsonl', within), 'within');
  assert.deepEqual(overview.legend.edgeTypes, []);
  assert.ok(!legendEntries(overview).some((e) => e.name === 'link →'));
});

test('an arrow type met only within a lane (drawn as no line) gets no arrow entry', () => {
  const within = readTraceJsonl(['{"id":"a","t":0,"type":"message","agent":"x","content":"plan"}', '{"id":"b","t":1,"type":"tool_call","agent":"x","tool":"bash","content":"ls"}', '{"edge":{"src":"a","dst":"b","type":"spawn"}}'].join('\n'));
  const entries = legendEntries(graphOverview(makeSnapshot('k', 1, 'within.otrace.jsonl', within), 'within'));
  assert.ok(!entries.some((e) => e.name === 'spawn →'), entries.map((e) => e.name).join(', '));
  assert.ok(entries.every((e) => !('arrow' in e.swatch)), JSON.stringify(entries.map((e) => e.swatch)));
});

test('a trace without loops, a recorded success or a problem lists none of their marks', () => {
  const loaded = readTraceJsonl(['{"id":"a","t":0,"type":"message","agent":"x","from":"user","content":"list the files"}', '{"id":"b","t":1,"type":"tool_call","agent":"x","tool":"bash","content":"ls"}', '{"id":"c","t":2,"type":"stop","agent":"x","reason":"task_complete"}'].join('\n'));
  const overview = graphOverview(makeSnapshot('k', 1, 'plain.otrace.jsonl', loaded), 'plain');
  assert.deepEqual(overview.legend.marks, []);
  assert.deepEqual(legendEntries(overview).map((e) => e.name), ['message', 'tool call', 'stop', 'share of the result']);
  // the halo is listed only when a node shows it (credit >= 0.05)
  assert.deepEqual(legendEntries({ ...overview, legend: { ...overview.legend, credit: false } }).map((e) => e.name), ['message', 'tool call', 'stop']);
});
