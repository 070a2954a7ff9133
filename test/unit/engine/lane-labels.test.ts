/** Lanes called by what they were asked (the raw name kept in the tooltip); a compaction is a compaction, not a spawned sub-agent. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { buildGraph } from '../../../src/engine/graph-model';
import { LANE_LABEL_CHARS } from '../../../src/engine/lane-labels';
import { loadTrace } from '../../../src/trace/formats';
import { nodeFileAccess } from '../../../src/trace/node-files';
import { readTraceJsonl } from '../../../src/trace/read';
import '../../../src/trace/importers';
import { fixturePath } from '../helpers';

function graphOf(file: string) {
  return buildGraph(loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess), 'g');
}

test('the Claude Code session: Explore lanes by their Task description, the compaction as a compaction of main (no spawn), raw names in the tooltips', () => {
  const g = graphOf(fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'));
  assert.deepEqual(
    g.lanes.map((l) => [l.name, l.label ?? null, l.parent ?? null, l.depth]),
    [
      ['main', null, null, 0],
      ['Explore:a93ccab', 'Explore existing codebase', 'main', 1],
      ['Explore:aa84377', 'Explore sync and transcript code', 'main', 1],
      ['compact:acompact-70d8e7', 'context compaction', null, 0],
    ],
  );
  const tip = (name: string) => g.lanes.find((l) => l.name === name)!.tip!;
  assert.match(tip('Explore:a93ccab'), /^Explore:a93ccab: 63 events, spawned by main · asked: Explore the codebase to understand the current structure/);
  assert.match(tip('main'), /^main: 515 events · asked: Work on bead spotter-a0y/);
  assert.equal(tip('compact:acompact-70d8e7'), "compact:acompact-70d8e7: 3 events, compaction of main's context: the conversation so far summarised; the summary continues main");
  // no spawn arrow into the compaction's lane, no "spawned by"
  const compaction = g.lanes.findIndex((l) => l.name === 'compact:acompact-70d8e7');
  const laneOf = new Map(g.nodes.map((n) => [n.id, n.lane]));
  assert.deepEqual(g.edges.filter((e) => e.type === 'spawn' && laneOf.get(e.target) === compaction), []);
  assert.ok(g.edges.some((e) => e.type === 'message' && laneOf.get(e.target) === compaction), 'main hands it the conversation');
  assert.doesNotMatch(tip('compact:acompact-70d8e7'), /spawn/);
});

test('a Codex rollout: a worker lane by its nickname, role and what it was asked', () => {
  const g = graphOf(fixturePath('cases', '16-codex-spawn-agent', 'rollout-2026-01-01T10-00-00-019f7000-0000-7000-8000-00000000a016.jsonl'));
  const lanes = Object.fromEntries(g.lanes.map((l) => [l.name, l]));
  assert.equal(lanes.codex.label, undefined);
  assert.equal(lanes['worker:Franklin'].label, 'Franklin (worker): Review src/payment for…');
  assert.equal(lanes['worker:Ohm'].label, 'Ohm (worker): Review src/cart for concurrency…');
  for (const l of g.lanes) assert.ok((l.label ?? '').length <= LANE_LABEL_CHARS, l.label);
  assert.match(lanes['worker:Franklin'].tip!, /^worker:Franklin: 5 events, spawned by codex · asked: Review src\/payment for error handling and retry risks\. Report findings as a bullet list\.$/);
});

test('lanes named after their agent keep their name (span formats, otrace traces); the tooltip says what each was asked', () => {
  for (const file of [fixturePath('openai-agents', 'trace.openai-agents.jsonl'), fixturePath('otel', 'multi-agent.otlp.jsonl'), path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl')]) {
    const g = graphOf(file);
    assert.deepEqual(g.lanes.filter((l) => l.label !== undefined), [], file);
    for (const l of g.lanes) assert.ok(l.tip!.startsWith(`${l.name}: ${l.count} event`), l.tip);
  }
  const g = buildGraph(readTraceJsonl(['{"id":"s","t":0,"type":"spawn","agent":"lead","to":"w"}', '{"id":"d","t":1,"type":"delegate","agent":"lead","to":"w","content":"count the rows"}', '{"id":"w1","t":2,"type":"message","agent":"w","content":"42"}'].join('\n')), 'g');
  assert.equal(g.lanes[1].tip, 'w: 1 event, spawned by lead · asked: count the rows');
});

test('lane words are trace text: controls shown, never acting', () => {
  const h = '\u202Eexe.txt\u001b[2J';
  const g = buildGraph(
    readTraceJsonl(
      [
        { id: 's', t: 0, type: 'spawn', agent: 'main', to: `Explore:${'a1b2c3d'}`, role: 'Explore', content: `find ${h}` },
        { id: 'w', t: 1, type: 'message', agent: 'Explore:a1b2c3d', from: 'main', to: 'Explore:a1b2c3d', content: `look for ${h}` },
      ].map((l) => JSON.stringify(l)).join('\n'),
    ),
    'g',
  );
  assert.equal(g.lanes[1].label, 'Explore: find ⟨U+202E⟩exe.txt⟨U+001B⟩[2J');
  assert.match(g.lanes[1].tip!, /asked: look for ⟨U\+202E⟩exe\.txt⟨U\+001B⟩\[2J$/);
});
