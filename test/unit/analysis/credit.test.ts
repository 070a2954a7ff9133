import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeTrace } from '../../../src/analysis';
import { traceOf } from './build';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { contentLinks } from '../../../src/analysis/credit';

/** user -> orch delegates -> worker searches -> result -> worker returns -> orch aggregates; a critic muses aside. */
function chain(extra: { metrics?: Record<string, number>; credit?: number; capital?: boolean } = {}) {
  const answer = extra.capital ? 'Paris' : 'paris';
  return traceOf(
    [
      { id: 'e0', type: 'message', agent: 'user', t: 0, content: 'find the capital' },
      { id: 'e1', type: 'delegate', agent: 'orch', to: 'worker', t: 1, content: 'look it up' },
      { id: 'e2', type: 'tool_call', agent: 'worker', tool: 'search', t: 2, content: 'capital query' },
      { id: 'x', type: 'message', agent: 'critic', t: 2.5, content: 'unrelated musing' },
      { id: 'e3', type: 'tool_result', agent: 'worker', tool: 'search', t: 3, content: `the capital is ${answer}` },
      { id: 'e4', type: 'return', agent: 'worker', to: 'orch', t: 4, content: `it is ${answer}`, ...(extra.credit !== undefined ? { credit: extra.credit } : {}) },
      { id: 'e5', type: 'aggregate', agent: 'orch', t: 5, content: `final answer: ${answer}` },
    ],
    [
      ['e0', 'e1'],
      ['e1', 'e2', 'tool_dependency'],
      ['e2', 'e3', 'return'],
      ['e3', 'e4'],
      ['e4', 'e5', 'aggregate'],
    ],
    extra.metrics ? { metrics: extra.metrics } : {},
  );
}

test('credit on a chain: the final answer keeps half, each cause half of what reaches it, a side message nothing', () => {
  const a = analyzeTrace(chain({ metrics: { task_success: 1 } }));
  assert.deepEqual(a.outcome, { status: 'success', value: 1, source: 'metrics.task_success' });
  assert.equal(a.credit.signed, true);
  // e5 keeps 1/2 and passes 1/2 to e4 (edge, weight 1) and e1 (lane, weight 0.5): 1/3 and 1/6
  assert.deepEqual(a.credit.events, {
    e0: 0.104167, // 5/48
    e1: 0.104167, // (1/6 + 1/24) / 2
    e2: 0.041667, // 1/24
    x: 0,
    e3: 0.083333, // 1/12
    e4: 0.166667, // 1/6
    e5: 0.5,
  });
  const total = Object.values(a.credit.events).reduce((s, v) => s + v, 0);
  assert.ok(Math.abs(total - 1) < 1e-5, `credit sums to R: ${total}`);
  assert.deepEqual(a.credit.agents, { user: 0.104167, orch: 0.604167, worker: 0.291667, critic: 0 });
  assert.deepEqual(a.credit.steps, { '0': 0.104167, '1': 0.104167, '2': 0.041667, '3': 0, '4': 0.083333, '5': 0.166667, '6': 0.5 });
  assert.equal(a.blame, null);
});

test('on a failed run the same chain carries blame (negative credit)', () => {
  const a = analyzeTrace(chain({ metrics: { task_success: 0 } }));
  assert.equal(a.outcome.status, 'failure');
  assert.equal(a.credit.events.e5, -0.5);
  assert.equal(a.credit.events.e4, -0.166667);
  assert.equal(a.credit.events.x, 0);
});

test('blame: the wrong fact entered with the search result, so the worker call that fetched it is decisive', () => {
  const a = analyzeTrace(chain({ metrics: { task_success: 0 }, capital: true }));
  assert.deepEqual(
    { agent: a.blame?.agent, event: a.blame?.event, record: a.blame?.record, basis: a.blame?.basis },
    { agent: 'worker', event: 'e2', record: 2, basis: 'evidence' },
  );
  assert.ok(a.findings.some((f) => f.kind === 'blame' && f.ids[0] === 'e2'));
});

test("a producer's credit is shown as given, never overwritten", () => {
  const a = analyzeTrace(chain({ metrics: { task_success: 1 }, credit: 0.9 }));
  assert.equal(a.credit.events.e4, 0.9);
  assert.deepEqual(a.credit.given, ['e4']);
  // agent sums use the shown values: e2 0.041667 + e3 0.083333 + e4 0.9 (given)
  assert.equal(a.credit.agents.worker, 1.025);
  assert.equal(a.credit.events.e5, 0.5);
});

test('no outcome signal: values are unsigned influence shares and there is no blame', () => {
  const a = analyzeTrace(chain());
  assert.deepEqual(a.outcome, { status: 'unknown', value: null, source: 'no outcome signal in the trace' });
  assert.equal(a.credit.signed, false);
  assert.equal(a.credit.events.e5, 0.5);
  assert.equal(a.blame, null);
});

test('process rewards on a target add their advantage to it', () => {
  const loaded = traceOf(
    [
      { id: 'a', type: 'message', agent: 'w', t: 0, content: 'first try' },
      { id: 'b', type: 'message', agent: 'w', t: 1, content: 'second try' },
      { id: 'ra', type: 'reward', agent: 'judge', t: 2, value: 0, channel: 'process', target: 'a' },
      { id: 'rb', type: 'reward', agent: 'judge', t: 3, value: 1, channel: 'process', target: 'b' },
    ],
    [],
    { metrics: { task_success: 1 } },
  );
  const a = analyzeTrace(loaded);
  // outcome R=1 on the final answer b; process advantages -0.5 on a and +0.5 on b
  // b: mass 1.5, keeps 0.75, passes 0.75 to a (lane); a: 0.75 - 0.5 = 0.25, no parents, keeps it
  assert.equal(a.credit.events.b, 0.75);
  assert.equal(a.credit.events.a, 0.25);
  assert.equal(a.credit.events.ra, 0);
});

for (const [name, writer, researcher] of [['plain', 'Writer', 'Researcher'], ['renamed', 'mailer_2', 'scout_9']] as const) {
  test(`blame (${name}): a run that stopped on an error is blamed on the call that failed, not on the origin of a correct answer`, () => {
    const loaded = traceOf([
      { id: 'd1', type: 'delegate', agent: 'planner', to: researcher, content: 'find the cheapest flight Paris to Rome' },
      { id: 'm1', type: 'message', agent: researcher, to: 'planner', content: 'Cheapest: AZ 331 at 8:05.' },
      { id: 'd2', type: 'delegate', agent: 'planner', to: writer, content: 'email the itinerary' },
      { id: 'c1', type: 'tool_call', agent: writer, tool: 'send_email' },
      { id: 'c1r', type: 'tool_result', agent: writer, tool: 'send_email', error: '535 authentication failed' } as never,
      { id: 's', type: 'stop', agent: writer, reason: 'error', decided_by: writer },
    ].map((e, t) => ({ ...e, t })) as never);
    const a = analyzeTrace(loaded);
    assert.equal(a.outcome.status, 'failure');
    assert.equal(a.blame?.event, 'c1', a.blame?.message);
    assert.equal(a.blame?.agent, writer);
    assert.match(a.blame!.message, /tool_call send_email/);
    // the trace records the failed call and the error stop: an error, not a guess
    assert.deepEqual(a.findings.filter((f) => f.kind === 'blame').map((f) => [f.severity, f.inline]), [['error', '✖ decisive error']]);
  });
}

test('credit far back on a long chain: every value given to 1e-6 is there (the mass too small to pass on is below it)', () => {
  // one agent, 30 steps: the answer keeps half, each step back half of what reaches it
  const steps = Array.from({ length: 30 }, (_, k) => ({ id: `s${k}`, type: 'message' as const, agent: 'solver', t: k, content: `step ${k}` }));
  const a = analyzeTrace(traceOf(steps, [], { metrics: { task_success: 1 } }));
  const at = (k: number) => a.credit.events[`s${k}`];
  // s29 keeps 1/2, s28 1/4, ... s(29 - j) 2^-(j + 1); s0 keeps what reaches it: 2^-29
  assert.deepEqual([29, 28, 20, 11, 10, 9, 0].map(at), [0.5, 0.25, 0.000977, 0.000002, 0.000001, 0, 0]);
  const total = Object.values(a.credit.events).reduce((s, v) => s + v, 0);
  assert.ok(Math.abs(total - 1) < 1e-5, `credit sums to R: ${total}`);
});

test("content links read the salient ids the index read with the contents' hashes, and find what a scan of the texts finds", () => {
  const texts = [
    'Find the population of Paris and Lyon in 2024',
    'Paris: 2,102,650 inhabitants; Lyon 522,250',
    'Traceback (most recent call last): Error in Lyon lookup', // a noise word: read apart
    'Zürich has 421,878 (not ASCII: read apart)',
    'report from 2024-01-05 on Paris', // a date: read apart
    'Paris 2,102,650 and Lyon 522,250 and Zürich 421,878',
    'The answer: Paris',
    '', // no content: no tokens
  ];
  const loaded = traceOf(texts.map((content, k) => ({ id: `e${k}`, type: 'message' as const, agent: k % 2 ? 'worker' : 'lead', content })));
  const links = (ignoreIds: boolean, emptyE1 = false) => {
    const index = new TraceIndex(loaded);
    // a scan that finds the interner taken makes its own: it reads every text again, and no id the index read
    if (ignoreIds) index.salientScan.taken = true;
    // e1 read with no token: its figures are no longer its own (the scan reads the ids, not the text)
    if (emptyE1) index.salientScan.count[1] = 1;
    const read = Array.from(index.salientScan.count, (c) => c !== 0);
    const found = contentLinks(index);
    const out = Array.from({ length: index.size }, (_, v) => Array.from({ length: found.start[v + 1] - found.start[v] }, (_, q) => `${found.from[found.start[v] + q]}x${found.count[found.start[v] + q]}`).join(' '));
    index.free();
    return { read, out };
  };
  const fused = links(false);
  assert.deepEqual(fused.read, [true, true, false, false, false, false, true, true], 'plain texts read at the build; a noise word, a character past ASCII or a date leave a text to the scan');
  assert.deepEqual(fused.out, links(true).out);
  assert.ok(fused.out[5].includes('1x'), `the figures of e1 reach e5: ${fused.out[5]}`);
  assert.ok(!links(false, true).out[5].includes('1x'), 'the links follow the ids the index read');
});
