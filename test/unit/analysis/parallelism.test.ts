/**
 * Parallelism is the busy time of each lane (the union of its intervals: nested or overlapping spans
 * of one lane count once; a span waiting on the spans under it is not busy) over the wall time
 * something ran. A sequential run exported as nested spans (a crew's workflow span, its agents'
 * spans, their model and tool calls) is 1.0, whatever the agents are called, with noise spans
 * nested in it, and with other words in it. Runs that do overlap stay above 1.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import type { LoadedTrace } from '../../../src/trace/model';
import { OriginArray } from '../../../src/trace/model';
import type { TraceEvent } from '../../../src/trace/schema';
import { fixture } from '../helpers';
import { traceOf } from './build';

/** A copy of a loaded trace with its events changed (origins of added events: none). */
function withEvents(loaded: LoadedTrace, events: TraceEvent[], origins: (number | undefined)[]): LoadedTrace {
  return { ...loaded, trace: { ...loaded.trace, events }, eventOrigins: new OriginArray(origins.map((i) => (i === undefined ? undefined : loaded.eventOrigins.get(i)))) };
}

const VARIANTS: Record<string, (l: LoadedTrace) => LoadedTrace> = {
  original: (l) => l,
  // every agent (lane) gets another name, in every field that names one
  renamed: (l) => {
    const names = new Map([...new Set(l.trace.events.map((e) => e.agent))].map((a, k) => [a, `crew member ${k + 1}`]));
    const re = (s: string | undefined) => (s === undefined ? s : names.get(s) ?? s);
    return withEvents(
      l,
      l.trace.events.map((e) => ({ ...e, agent: re(e.agent)!, ...(e.from ? { from: re(e.from) } : {}), ...(e.to ? { to: re(e.to) } : {}) })),
      l.trace.events.map((_, i) => i),
    );
  },
  // each innermost span (a model or tool call) gets a nested span of its own lane (the HTTP request under it) and an instant log line inside it
  noise: (l) => {
    const events: TraceEvent[] = [];
    const origins: (number | undefined)[] = [];
    const parents = new Set(l.trace.events.map((e) => e.parent));
    l.trace.events.forEach((e, i) => {
      events.push(e);
      origins.push(i);
      if (typeof e.duration_s === 'number' && e.duration_s > 0 && !parents.has(e.id)) {
        events.push({ id: `${e.id}.noise`, t: e.t + e.duration_s / 4, duration_s: e.duration_s / 2, type: 'tool_call', tool: 'http', agent: e.agent, parent: e.id });
        events.push({ id: `${e.id}.log`, t: e.t + e.duration_s / 3, type: 'message', agent: e.agent, parent: e.id, content: 'log line' });
        origins.push(undefined, undefined);
      }
    });
    return withEvents(l, events, origins);
  },
  reworded: (l) =>
    withEvents(
      l,
      l.trace.events.map((e) => (typeof e.content === 'string' ? { ...e, content: `In other words: ${e.content.replace(/\bthe\b/g, 'that')}` } : e)),
      l.trace.events.map((_, i) => i),
    ),
};

const SEQUENTIAL = [
  // a CrewAI-like run exported by AgentOps: workflow span > agent spans > LLM and tool spans, one after another
  ['agentops', 'trace.agentops.json'],
  // an OpenInference export of a two-agent crew (planner, then solver), nested the same way
  ['otel', 'openinference.otlp.json'],
];

for (const file of SEQUENTIAL) {
  for (const [variant, change] of Object.entries(VARIANTS)) {
    test(`a sequential run with nested spans has parallelism 1.0: ${file.join('/')} (${variant})`, () => {
      const loaded = change(loadTrace(fixture(...file), file[1]));
      const m = analyzeTrace(loaded).metrics;
      assert.equal(m.work_basis, 'seconds');
      assert.equal(m.parallelism, 1, `lane time ${m.lane_time} / wall time ${m.wall_time}`);
      assert.equal(m.lane_time, m.wall_time);
    });
  }
}

test('spans of one lane that nest or overlap count once; a lane waiting on its child is not busy', () => {
  const m = analyzeTrace(
    traceOf([
      { id: 'root', type: 'orchestrator_decision', agent: 'crew', t: 0, duration_s: 10 },
      { id: 'a', type: 'delegate', agent: 'crew', to: 'w', t: 0, duration_s: 10, parent: 'root' },
      { id: 'c1', type: 'tool_call', agent: 'w', tool: 'x', t: 1, duration_s: 4, parent: 'a' },
      { id: 'c2', type: 'tool_call', agent: 'w', tool: 'y', t: 2, duration_s: 4, parent: 'a' },
    ]),
  ).metrics;
  // w busy 1..6 (two overlapping calls: 5 s, not 8), crew busy 0..1 and 6..10 (5 s): 10 s of lane time in 10 s
  assert.equal(m.lane_time, 10);
  assert.equal(m.wall_time, 10);
  assert.equal(m.parallelism, 1);
});

test('two lanes working at the same time: parallelism 2 (the check can tell)', () => {
  const m = analyzeTrace(
    traceOf([
      { id: 'root', type: 'orchestrator_decision', agent: 'crew', t: 0, duration_s: 4 },
      { id: 'c1', type: 'tool_call', agent: 'w1', tool: 'x', t: 0, duration_s: 4, parent: 'root' },
      { id: 'c2', type: 'tool_call', agent: 'w2', tool: 'x', t: 0, duration_s: 4, parent: 'root' },
    ]),
  ).metrics;
  assert.equal(m.lane_time, 8);
  assert.equal(m.wall_time, 4);
  assert.equal(m.parallelism, 2);
});
