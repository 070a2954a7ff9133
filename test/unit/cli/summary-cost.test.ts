/**
 * The run's cost as the trace records it (Langfuse, LangSmith, OpenInference), said as recorded and
 * preferred to our estimate from list prices; an estimate only where nothing is recorded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { runSummary } from '../../../src/analysis/run-summary';
import { priceCall } from '../../../src/cli/prices';
import { summaryLines } from '../../../src/cli/summary';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import { fixture } from '../helpers';

function summaryOf(text: string, name: string) {
  const loaded = loadTrace(text, name);
  return { loaded, summary: runSummary(loaded, analyzeTrace(loaded), { price: priceCall }) };
}

const costLine = (s: ReturnType<typeof summaryOf>['summary']) => summaryLines('f', s).find((l) => l.startsWith('cost'));

/** A Langfuse trace with two generations (tokens of a priced model) and the given cost fields. */
function langfuse(trace: Record<string, unknown>, generation: (i: number) => Record<string, unknown>) {
  const observation = (i: number) => ({
    id: `g${i}`,
    traceId: 't1',
    type: 'GENERATION',
    name: 'LLM',
    startTime: `2026-01-01T00:00:0${i}.000Z`,
    endTime: `2026-01-01T00:00:0${i}.500Z`,
    model: 'gpt-4o',
    usageDetails: { input: 1000, output: 100, total: 1100 },
    output: `answer ${i}`,
    ...generation(i),
  });
  return JSON.stringify({ id: 't1', name: 'run', timestamp: '2026-01-01T00:00:00.000Z', observations: [observation(1), observation(2)], ...trace });
}

test("Langfuse: the trace's totalCost is the run's cost, recorded, never estimated", () => {
  const { loaded, summary } = summaryOf(fixture('langfuse', 'trace.langfuse.json'), 'trace.langfuse.json');
  assert.equal(loaded.trace.costs?.usd, 0.0004);
  assert.deepEqual(summary.cost, { usd: 0.0004, estimate: false, basis: 'trace total', models: [], unpriced_calls: 0 });
  assert.equal(costLine(summary), "cost       $0.00040 (recorded: the trace's total)");
});

test("Langfuse: each generation's costDetails, totalCost or calculatedTotalCost is its event's cost; their sum is the run's when no total is recorded", () => {
  const recorded = [{ costDetails: { input: 0.001, output: 0.002 } }, { calculatedTotalCost: 0.004 }];
  const { loaded, summary } = summaryOf(langfuse({}, (i) => recorded[i - 1]), 'a.json');
  assert.deepEqual(
    loaded.trace.events.filter((e) => e.type === 'message').map((e) => [e.id, e.cost]),
    [
      ['g1', 0.003],
      ['g2', 0.004],
    ],
  );
  assert.deepEqual(summary.cost, { usd: 0.007, estimate: false, basis: 'recorded calls', models: ['gpt-4o'], unpriced_calls: 0 });
  assert.equal(costLine(summary), 'cost       $0.0070 (recorded on the calls of gpt-4o)');
});

test('Langfuse: a call with no recorded cost is counted apart, not priced into the recorded sum', () => {
  const { summary } = summaryOf(langfuse({}, (i) => (i === 1 ? { costDetails: { total: 0.01 } } : {})), 'a.json');
  assert.deepEqual(summary.cost, { usd: 0.01, estimate: false, basis: 'recorded calls', models: ['gpt-4o'], unpriced_calls: 1 });
  assert.match(costLine(summary)!, /\$0\.01 \(recorded on the calls of gpt-4o; 1 model call with no recorded cost left out\)/);
});

test('Langfuse: a totalCost of 0 on a run that spent tokens is no record (an unpriced model): the cost is estimated', () => {
  const { loaded, summary } = summaryOf(langfuse({ totalCost: 0 }, () => ({ calculatedTotalCost: 0 })), 'a.json');
  assert.equal(loaded.trace.costs?.usd, 0);
  assert.equal(summary.cost?.basis, 'list prices');
  assert.equal(summary.cost?.estimate, true);
  assert.ok(summary.cost!.usd > 0, JSON.stringify(summary.cost));
  assert.match(costLine(summary)!, /^cost {7}~\$.* \(estimate from list prices of gpt-4o\)$/);
});

test("Langfuse: a trace's totalCost is not the file's when observations were exported twice (the total counts the copies)", () => {
  const { loaded } = summaryOf(fixture('cases', '35-langfuse-turn-exported-twice.json'), '35.json');
  assert.ok(loaded.problems.some((p) => /exported twice/.test(p.message)));
  assert.equal(loaded.trace.costs?.usd, undefined);
});

test("LangSmith: a model run's total_cost is its event's cost; a chain's total (the sum of its children's) is not counted again", () => {
  const llm = (id: string, cost: Record<string, unknown>, start: string) => ({
    id,
    name: 'ChatOpenAI',
    run_type: 'llm',
    parent_run_id: 'root',
    trace_id: 'root',
    start_time: `2026-01-01T00:00:0${start}`,
    end_time: `2026-01-01T00:00:0${start}.5`,
    prompt_tokens: 100,
    completion_tokens: 10,
    outputs: { text: 'ok' },
    ...cost,
  });
  const runs = [
    { id: 'root', name: 'agent', run_type: 'chain', trace_id: 'root', start_time: '2026-01-01T00:00:00', end_time: '2026-01-01T00:00:09', total_cost: 0.5, inputs: { question: 'q' }, outputs: { answer: 'a' } },
    llm('l1', { total_cost: 0.2 }, '1'),
    llm('l2', { prompt_cost: '0.25', completion_cost: 0.05 }, '2'),
  ];
  const { loaded, summary } = summaryOf(JSON.stringify(runs), 'runs.json');
  assert.deepEqual(
    loaded.trace.events.filter((e) => e.cost !== undefined).map((e) => [e.id, e.cost]),
    [
      ['l1', 0.2],
      ['l2', 0.3],
    ],
  );
  assert.equal(summary.cost?.usd, 0.5);
  assert.equal(summary.cost?.basis, 'recorded calls');
});

test("OpenInference: an LLM span's llm.cost.total is its event's cost", () => {
  const attr = (key: string, value: unknown) => ({ key, value: typeof value === 'number' ? { doubleValue: value } : { stringValue: value } });
  const span = (id: string, parent: string | undefined, kind: string, extra: ReturnType<typeof attr>[], start: number) => ({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: id,
    parentSpanId: parent,
    name: kind.toLowerCase(),
    startTimeUnixNano: String(1735725600000000000 + start * 1e9),
    endTimeUnixNano: String(1735725600000000000 + (start + 1) * 1e9),
    attributes: [attr('openinference.span.kind', kind), ...extra],
  });
  const doc = {
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              span('a000000000000001', undefined, 'AGENT', [attr('agent.name', 'planner'), attr('llm.cost.total', 9)], 0),
              span('b000000000000002', 'a000000000000001', 'LLM', [attr('llm.model_name', 'gpt-4o'), attr('llm.token_count.prompt', 50), attr('llm.token_count.completion', 5), attr('llm.cost.total', 0.0125)], 1),
              span('c000000000000003', 'a000000000000001', 'LLM', [attr('llm.model_name', 'gpt-4o'), attr('llm.token_count.prompt', 50), attr('llm.cost.prompt', 0.001), attr('llm.cost.completion', 0.002)], 2),
            ],
          },
        ],
      },
    ],
  };
  const { loaded, summary } = summaryOf(JSON.stringify(doc), 'otlp.json');
  assert.deepEqual(
    loaded.trace.events.filter((e) => e.cost !== undefined).map((e) => [e.id, e.cost]),
    [
      ['b000000000000002', 0.0125],
      ['c000000000000003', 0.003],
    ],
  );
  assert.equal(summary.cost?.usd, 0.0155);
});

test("Claude Code: a one-hour cache write is priced at its own rate (twice the input's, the five-minute one 1.25 times)", () => {
  const usage = { input: 2, cache_read: 0, cache_write: 13835, output: 100 };
  const fiveMinutes = priceCall('claude-opus-4-6', usage)!;
  const oneHour = priceCall('claude-opus-4-6', { ...usage, cache_write_1h: 13835 })!;
  const inputPerToken = (priceCall('claude-opus-4-6', { input: 1_000_000 })!) / 1_000_000;
  assert.ok(Math.abs(oneHour - fiveMinutes - 13835 * inputPerToken * (2 - 1.25)) < 1e-9, `${fiveMinutes} -> ${oneHour}`);
  const { loaded } = summaryOf(fixture('claude-code', 'short.jsonl'), 'short.jsonl');
  assert.ok(loaded.trace.events.some((e) => (e.usage?.cache_write_1h ?? 0) > 0), 'the session\'s writes to the one-hour cache are read (cache_creation.ephemeral_1h_input_tokens)');
});
