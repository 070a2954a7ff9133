/** The header's agents: a count of lanes, or what the engine folded when the agents are more than the graph shows as lanes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { laneAgentWords } from '../../../webview/header';
import type { GraphLane } from '../../../src/shared/protocol';

const lane = (name: string): GraphLane => ({ name, depth: 0, count: 1, rows: 1 });

test('the header counts agents by their lanes, and says what was folded when lanes are group lanes', () => {
  assert.equal(laneAgentWords({ lanes: [lane('main')] }), '1 agent');
  assert.equal(laneAgentWords({ lanes: [lane('main'), lane('w')] }), '2 agents');
  const text = '999,990 of 1,000,001 agents folded into 22 group lanes by name prefix; the 11 busiest agents keep their own lanes';
  assert.equal(laneAgentWords({ lanes: [lane('main'), lane('w* (folded)')], folded: { agents: 1_000_001, folded: 999_990, groups: 22, by: ['prefix'], text } }), text);
});

test('a lane that compacts another\'s context is counted as a compaction, not as an agent of the run', () => {
  const compaction: GraphLane = { ...lane('compact:acompact-70d8e7'), label: 'context compaction' };
  assert.equal(laneAgentWords({ lanes: [lane('main'), { ...lane('Explore:a93ccab'), label: 'Explore existing codebase' }, compaction] }), '2 agents · 1 context compaction');
  assert.equal(laneAgentWords({ lanes: [lane('main'), compaction, { ...compaction, name: 'compact:b' }] }), '1 agent · 2 context compactions');
});
