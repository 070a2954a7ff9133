/** The hover's credit line says in plain words what the number is, with no method name or parameter (those stay in the CLI's JSON). */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { graphEvent } from '../../../src/engine/graph-window';
import { buildGraph } from '../../../src/engine/graph-model';
import { creditWorthShowing, formatCredit } from '../../../src/shared/credit-words';
import { eventInfo } from '../../../src/engine/queries';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { readTraceJsonl } from '../../../src/trace/read';

test('credit in a hover: plain words for a run with an outcome and for one without', () => {
  const demo = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8');
  const withOutcome = makeSnapshot('demo', 1, 'demo.otrace.jsonl', readTraceJsonl(demo));
  const noOutcome = makeSnapshot('plain', 1, 'plain.otrace.jsonl', readTraceJsonl(['{"id":"a","t":0,"type":"message","agent":"x","to":"y","content":"find the figure"}', '{"id":"b","t":1,"type":"return","agent":"y","to":"x","content":"it is 42","causes":["a"]}'].join('\n')));
  const signed = eventInfo(withOutcome, 2)!.credit!;
  assert.match(signed.text, /^credit [+−]?\d/);
  assert.match(signed.basis, /share of the run's outcome/);
  const unsigned = eventInfo(noOutcome, 0)!.credit!;
  assert.match(unsigned.text, /^(\d+%|<1%) of the result$/);
  assert.match(unsigned.basis, /records no outcome/);
  for (const c of [signed, unsigned]) assert.doesNotMatch(`${c.text} ${c.basis}`, /lambda|backward propagation|R = |unsigned/);
});

test('credit in one vocabulary: the inline mark, the hover and the details pane say "N% of the result" without an outcome, a signed value with one', () => {
  const lines = ['{"id":"a","t":0,"type":"message","agent":"x","to":"y","content":"find the figure"}', '{"id":"b","t":1,"type":"return","agent":"y","to":"x","content":"it is 42","causes":["a"]}'];
  const noOutcome = makeSnapshot('plain', 1, 'plain.otrace.jsonl', readTraceJsonl(lines.join('\n')));
  const field = (s: ReturnType<typeof makeSnapshot>, i: number) => graphEvent(s, i)!.fields.find(([k]) => /credit|share of the result/.test(k));
  assert.deepEqual(field(noOutcome, 0), ['share of the result (estimate)', eventInfo(noOutcome, 0)!.credit!.text.replace(' of the result', '')]);
  assert.equal(formatCredit(0.5, false), '50% of the result');
  assert.equal(formatCredit(0.004, false), '<1% of the result', 'a share never reads 0%');
  const demo = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8');
  const withOutcome = makeSnapshot('demo', 1, 'demo.otrace.jsonl', readTraceJsonl(demo));
  assert.deepEqual(field(withOutcome, 2), ['credit (estimate)', eventInfo(withOutcome, 2)!.credit!.text.replace('credit ', '')]);
});

test('credit only where it says something: none that prints as 0.00 (the hover, the details pane, the graph tooltip), none without an analysis', () => {
  const demo = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), 'utf8');
  const s = makeSnapshot('demo', 1, 'demo.otrace.jsonl', readTraceJsonl(demo));
  const values = s.analysis!.credit.by_index;
  const faint = values.findIndex((v) => Math.abs(v) < 0.005);
  const strong = values.findIndex((v) => Math.abs(v) >= 0.05);
  assert.ok(faint >= 0 && strong >= 0, 'the demo has both');
  assert.equal(eventInfo(s, faint)!.credit, undefined, 'no "credit +0.00" in the hover');
  assert.equal(graphEvent(s, faint)!.fields.find(([k]) => /credit|share of the result/.test(k)), undefined, 'none in the details pane');
  assert.ok(eventInfo(s, strong)!.credit, 'a credit that says something is shown');
  assert.ok(graphEvent(s, strong)!.fields.some(([k]) => k === 'credit (estimate)'));
  // the graph tooltip's rule: 0.004 prints as 0.00, 0.005 as 0.01
  assert.deepEqual([undefined, 0, 0.004, -0.004, 0.005, -0.005, 0.42, Number.NaN].map(creditWorthShowing), [false, false, false, false, true, true, true, false]);
  const unanalysed = buildGraph(readTraceJsonl(demo), 'demo');
  assert.ok(unanalysed.nodes.every((n) => n.credit === undefined && !n.fields.some(([k]) => /credit|share of the result/.test(k))), 'no analysis, no credit');
});
