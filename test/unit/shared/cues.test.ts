/** Cues for the new kinds (src/shared/cues.ts): every kind and state of docs/model.md has one, nodes carry theirs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildGraph } from '../../../src/engine/graph-model';
import { EVENT_CUES, eventCues } from '../../../src/shared/cues';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { CALL_STATUSES, EVENT_KINDS, type TraceEvent } from '../../../src/trace/schema';
import { fixture } from '../helpers';

test('every event kind and call status of the model has a cue with a plain name', () => {
  for (const k of [...EVENT_KINDS, ...CALL_STATUSES, 'open', 'clock_skew']) {
    const cue = EVENT_CUES[k];
    assert.ok(cue, `cue for ${k}`);
    assert.ok(cue.label.length > 2 && cue.description.length > 10 && [...cue.glyph].length === 1, k);
  }
  const e = { id: 'x', t: 0, type: 'tool_call', agent: 'a', call_status: 'denied', open: true, clock_skew_s: -0.002 } as TraceEvent;
  assert.deepEqual(eventCues(e), ['denied', 'open', 'clock_skew']);
  assert.deepEqual(eventCues({ id: 'y', t: 0, type: 'message', agent: 'a' } as TraceEvent), []);
});

test('graph nodes carry their cues, and the details name them in plain words', () => {
  const cases: [string, string][] = [
    ['14-interrupt-marker-variants.jsonl', 'denied'],
    ['14-interrupt-marker-variants.jsonl', 'interruption'],
    ['20-cc-synthetic-api-error-rows.jsonl', 'placeholder'],
    ['20-cc-synthetic-api-error-rows.jsonl', 'meta'],
    ['20-cc-synthetic-api-error-rows.jsonl', 'api_error'],
    ['10-compact-boundary-detached.jsonl', 'compaction'],
    ['10-compact-boundary-detached.jsonl', 'local_command'],
    ['02-orphan-parent-span.json', 'missing_parent'],
    ['03-unclosed-root-span.json', 'open'],
    ['01-clock-skew-child-before-parent.json', 'clock_skew'],
    ['13-dangling-tool-use-at-eof.jsonl', 'no_result'],
  ];
  for (const [file, cue] of cases) {
    const g = buildGraph(loadTrace(fixture('cases', file), file), file);
    const node = g.nodes.find((n) => n.cues?.includes(cue));
    assert.ok(node, `${file}: a node with the ${cue} cue`);
    assert.ok(node.fields.some(([k, v]) => k === 'kind' && v.startsWith(`${EVENT_CUES[cue].label}: `)), `${file}: details name ${cue}`);
  }
  const plain = buildGraph(loadTrace(fixture('several-traces', 'two-runs.otrace.jsonl'), 'two-runs.otrace.jsonl'), 'x');
  assert.ok(plain.nodes.every((n) => n.cues === undefined), 'ordinary events carry no cue');
});

test('a step the trace records as failed carries the failed cue, on its tool bar too; a refused call does not', () => {
  assert.deepEqual(eventCues({ id: 'r', t: 0, type: 'tool_result', agent: 'a', exit_code: 2 } as TraceEvent), ['failed']);
  assert.deepEqual(eventCues({ id: 'r', t: 0, type: 'tool_result', agent: 'a', exit_code: 0 } as TraceEvent), []);
  // Codex exec: two commands exit non-zero (exit code in the header and in the raw output)
  const codex = '33-codex-exec-exit-codes-header-vs-raw.jsonl';
  const g = buildGraph(loadTrace(fixture('cases', codex), codex), codex);
  const bars = g.nodes.filter((n) => n.kind === 'tool_call' && n.cues?.includes('failed'));
  assert.deepEqual(bars.map((n) => n.label), ['exec_command: npm test -- cart', 'exec_command: npm run lint']);
  assert.ok(bars.every((n) => n.endIndex !== undefined), 'drawn as bars with their results');
  assert.ok(g.nodes.every((n) => n.kind !== 'tool_call' || (n.cues?.includes('failed') ?? false) === bars.includes(n)));
  // Claude Code writes a refused call's result with is_error: the user decided, the step did not fail
  const loaded = loadTrace(fixture('claude-code', 'short.jsonl'), 'short.jsonl');
  const refused = loaded.trace.events.filter((e) => e.denied === true && e.is_error === true);
  assert.equal(refused.length, 2);
  assert.ok(refused.every((e) => !eventCues(e).includes('failed')));
  assert.ok(buildGraph(loaded, 'short.jsonl').nodes.every((n) => !n.cues?.includes('failed')));
});
