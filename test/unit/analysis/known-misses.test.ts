/**
 * Known-answer traces for four kinds of miss found on runs the analysis had never seen (issue
 * "analysis that holds on runs it has never seen"). Each comes in variants (renamed agents,
 * interleaved noise events, reworded text) so that no string match can pass them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import type { TraceEvent } from '../../../src/trace/schema';
import { traceOf } from './build';

type Ev = Partial<TraceEvent> & Pick<TraceEvent, 'id' | 'type' | 'agent'>;

interface Variant {
  name: string;
  lead: string;
  worker: string;
  reviewer: string;
  /** Events of an unrelated agent slipped in between (a monitor's heartbeats). */
  noise: boolean;
  words: { failed: string; done: string; fix: string };
  /** A question, the tool's true figure and the figure passed on instead, in this variant's words. */
  fact: { ask: string; lookup: string; query: string; result: string; passed: string; checked: string; final: string };
}

const VARIANTS: Variant[] = [
  { name: 'plain', lead: 'lead', worker: 'coder', reviewer: 'tester', noise: false, words: { failed: 'FAILED tests/test_parse.py::test_parse - AssertionError; 1 failed, 12 passed', done: 'Done: the parser is fixed.', fix: 'Fix parser.py so that test_parse passes' },
    fact: {
      ask: 'What was the 2023 revenue of Acme Corp, in billions of dollars?',
      lookup: 'Look up the 2023 revenue of Acme Corp.',
      query: 'Acme Corp 2023 annual revenue',
      result: 'Acme Corp annual report: revenue in 2023 was $4.2 billion, up from $3.9 billion.',
      passed: 'Acme Corp revenue in 2023: $2.4 billion.',
      checked: 'Checked: revenue 2023 $2.4 billion, per the Form 10-K filed by CFO Dana Whitfield on February 28, fiscal year ending December 31.',
      final: 'The 2023 revenue of Acme Corp was 2.4 billion dollars, per the Form 10-K filed by CFO Dana Whitfield on February 28 (fiscal year ending December 31).',
    } },
  { name: 'renamed', lead: 'Orchestrator_7', worker: 'engineer-β', reviewer: 'QA Bot', noise: false, words: { failed: 'Error: exit code 1 (2 of 40 checks did not pass)', done: 'All set, the change is complete.', fix: 'Please repair the date parsing bug' },
    fact: {
      ask: 'How many employees did Borealis Labs have at the end of 2021?',
      lookup: 'Find the Borealis Labs employee count for end of 2021.',
      query: 'Borealis Labs employees 2021',
      result: 'Company profile. Employees (December 2021): 1,250. Offices: 7. Founded 2009.',
      passed: 'They had 1,520 employees at the end of 2021.',
      checked: 'Confirmed 1,520 staff per the Orion Registry filing by Mara Quist, dated March 3 2022.',
      final: 'Borealis Labs employed 1,520 people at the end of 2021, as filed with the Orion Registry by Mara Quist on March 3 2022.',
    } },
  { name: 'noisy, reworded', lead: 'planner', worker: 'dev', reviewer: 'critic', noise: true, words: { failed: 'Traceback (most recent call last): ValueError: bad month', done: 'The task has been completed successfully.', fix: 'Make the importer accept ISO dates' },
    fact: {
      ask: 'Find the mean distance from the Earth to the Moon in km.',
      lookup: 'Get me the mean Earth-Moon distance.',
      query: 'mean distance earth moon km',
      result: 'The Moon orbits at a mean distance of 384,400 km from Earth (about 1.28 light-seconds).',
      passed: 'Mean distance of the Moon from Earth is 348,400 km.',
      checked: 'Verified: 348,400 km, matching the NASA Lunar Fact Sheet by Dr. Ilse Varga, revision 7.',
      final: 'The Moon is 348,400 km from Earth on average (NASA Lunar Fact Sheet, Dr. Ilse Varga, revision 7).',
    } },
];

/** Inserts a monitor heartbeat after every second event (noise the analysis must see through). */
function withNoise(events: Ev[], on: boolean): Ev[] {
  if (!on) return events;
  const out: Ev[] = [];
  events.forEach((e, i) => {
    out.push(e);
    if (i % 2 === 1) out.push({ id: `hb${i}`, type: 'message', agent: 'monitor', content: `heartbeat ${i}: cpu ${20 + i}%` });
  });
  return out;
}

/** Kinds whose fix has not landed: reported as `todo` (not counted) until it does. */
const PENDING = new Set<string>([]);
const todo = (kind: string) => (PENDING.has(kind) ? { todo: 'known miss, fix pending' } : {});

for (const v of VARIANTS) {
  test(`premature: the run stops while a delegated sub-agent is still out and its last check failed (${v.name})`, todo('premature'), () => {
    const events = withNoise(
      [
        { id: 'u', type: 'message', agent: 'user', to: v.lead, content: v.words.fix },
        { id: 's1', type: 'spawn', agent: v.lead, to: v.worker },
        { id: 'd1', type: 'delegate', agent: v.lead, to: v.worker, content: v.words.fix },
        { id: 'c1', type: 'tool_call', agent: v.worker, tool: 'Edit', content: 'parser.py: handle the month field' },
        { id: 'r1', type: 'tool_result', agent: v.worker, tool: 'Edit', content: 'ok' },
        { id: 'c2', type: 'tool_call', agent: v.worker, tool: 'Bash', content: 'run the test suite' },
        { id: 'r2', type: 'tool_result', agent: v.worker, tool: 'Bash', content: v.words.failed },
        { id: 'm', type: 'message', agent: v.lead, to: 'user', content: v.words.done },
        { id: 'st', type: 'stop', agent: v.lead, reason: 'task_complete' },
      ],
      v.noise,
    );
    const a = analyzeTrace(traceOf(events, [['c2', 'r2', 'tool_dependency']]));
    const stop = a.stops.find((s) => s.event === 'st')!;
    assert.equal(stop.finding, 'premature', stop.message);
    assert.ok(stop.open_spawns?.includes(v.worker), `names the open delegation: ${stop.message}`);
  });

  test(`loop: a cycle through three agents is one repeated sequence with its period and repetitions (${v.name})`, todo('loop'), () => {
    const base: Ev[] = [{ id: 'u', type: 'message', agent: 'user', to: v.lead, content: v.words.fix }];
    const phrasing = [
      ['please write the patch for the date parser', 'patch written for the date parser', 'the date parser patch is not right yet, try again'],
      ['please write a patch for the date parser again', 'I wrote the patch for the date parser', 'the patch for the date parser is still not right, try again'],
      ['write the patch for the date parser once more please', 'the patch for the date parser is written', 'still not right: the date parser patch, try again'],
    ];
    phrasing.forEach(([ask, answer, verdict], k) => {
      base.push({ id: `a${k}`, type: 'delegate', agent: v.lead, to: v.worker, content: ask });
      base.push({ id: `b${k}`, type: 'message', agent: v.worker, to: v.reviewer, content: answer });
      base.push({ id: `c${k}`, type: 'message', agent: v.reviewer, to: v.lead, content: verdict });
    });
    base.push({ id: 'st', type: 'stop', agent: v.lead, reason: 'max_turns' });
    const a = analyzeTrace(traceOf(withNoise(base, v.noise)));
    const cycles = a.loops.filter((l) => l.agents.length === 3 && [v.lead, v.worker, v.reviewer].every((x) => l.agents.includes(x)));
    assert.equal(cycles.length, 1, `one loop across the three agents: ${a.loops.map((l) => `${l.kind} ${l.agents} ${l.period}x${l.repetitions}`).join('; ')}`);
    assert.equal(cycles[0].period, 3);
    assert.equal(cycles[0].repetitions, 3);
  });

  test(`blame: the step that first passed on a value contrary to its own input (${v.name})`, todo('blame'), () => {
    const f = v.fact;
    const base: Ev[] = [
      { id: 'u', type: 'message', agent: 'user', to: v.lead, content: f.ask },
      { id: 'd', type: 'delegate', agent: v.lead, to: v.worker, content: f.lookup },
      { id: 'q', type: 'tool_call', agent: v.worker, tool: 'search', content: f.query },
      { id: 'r', type: 'tool_result', agent: v.worker, tool: 'search', content: f.result },
      { id: 'w', type: 'return', agent: v.worker, to: v.lead, content: f.passed },
      { id: 'x', type: 'message', agent: v.reviewer, to: v.lead, content: f.checked },
      { id: 'f', type: 'message', agent: v.lead, to: 'user', content: f.final },
    ];
    const a = analyzeTrace(traceOf(withNoise(base, v.noise), [['q', 'r', 'tool_dependency'], ['r', 'w', 'causal']]), { outcome: 'failure' });
    assert.equal(a.blame?.event, 'w', a.blame?.message);
    assert.equal(a.blame?.agent, v.worker);
  });

  test(`metrics: the critical path runs to the end of the run, through the wait for the last return (${v.name})`, todo('metrics'), () => {
    const w2 = `${v.worker}-2`;
    const base: Ev[] = [
      { id: 'u', type: 'message', agent: 'user', to: v.lead, content: v.words.fix, t: 0 },
      { id: 's1', type: 'spawn', agent: v.lead, to: v.worker, t: 1 },
      { id: 's2', type: 'spawn', agent: v.lead, to: w2, t: 1 },
      { id: 'c1', type: 'tool_call', agent: v.worker, tool: 'Bash', content: 'part one', t: 2, duration_s: 10 },
      { id: 'c2', type: 'tool_call', agent: w2, tool: 'Bash', content: 'part two', t: 2, duration_s: 20 },
      { id: 'r1', type: 'return', agent: v.worker, to: v.lead, content: 'one done', t: 12 },
      { id: 'r2', type: 'return', agent: w2, to: v.lead, content: 'two done', t: 22 },
      { id: 'g', type: 'aggregate', agent: v.lead, content: 'both parts merged', t: 30, duration_s: 2 },
      { id: 'st', type: 'stop', agent: v.lead, reason: 'task_complete', t: 32 },
    ];
    const loaded = traceOf(withNoise(base, false), [['s1', 'c1'], ['s2', 'c2'], ['c1', 'r1'], ['c2', 'r2'], ['r1', 'g'], ['r2', 'g']]);
    const m = analyzeTrace(loaded).metrics;
    assert.equal(m.critical_path_events[m.critical_path_events.length - 1], 'st', `ends at the stop: ${m.critical_path_events}`);
    assert.ok(m.critical_path_events.includes('r2') && m.critical_path_events.includes('g'), `${m.critical_path_events}`);
    assert.ok(m.critical_path >= 30, `critical path ${m.critical_path} s covers the run from the first call to the stop`);
    assert.ok(m.parallelism <= m.total_work / 30 + 1e-9 && m.parallelism >= 1, `parallelism ${m.parallelism}`);
  });
}
