/**
 * People's labels into the data (issue 29 item 2), on the hand-made sidecars of test/fixtures/labels:
 * the stop dataset's rows carry them beside otrace's (`labels.source`), the export writes
 * OpenInference span annotations and OTel gen_ai.evaluation.result log records, and agreement sets
 * them against otrace's verdicts per kind.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeIndex, TraceIndex } from '../../../../src/analysis';
import { judgeLabels, tallyAgreement, formatAgreement } from '../../../../src/analysis/labels/agreement';
import { openInferenceAnnotations, otelEvaluationLogs, spanIdOf } from '../../../../src/analysis/labels/annotations';
import { attachLabels } from '../../../../src/analysis/labels/attach';
import { readSidecar } from '../../../../src/analysis/labels/sidecar';
import { withHumanLabels } from '../../../../src/analysis/labels/stop-labels';
import { traceTargets } from '../../../../src/analysis/labels/targets';
import { stopRows } from '../../../../src/analysis/stop-dataset';
import { load } from '../../../../src/cli/common';
import { fixture, fixturePath } from '../../helpers';

function labelled(name: string) {
  const loaded = load(fixturePath('labels', name));
  const read = readSidecar(fixture('labels', `${name}.labels.jsonl`));
  const { attached, problems } = attachLabels(read.labels, traceTargets(loaded));
  assert.deepEqual([...read.problems, ...problems], [], 'the hand-made sidecar attaches whole');
  const index = new TraceIndex(loaded);
  return { loaded, index, attached, analysis: analyzeIndex(index) };
}

test('dataset rows: otrace labels say source "otrace"; human_labels land on the owner point at or after the labelled event', () => {
  const { index, attached, analysis } = labelled('who-and-when/Hand-Crafted/12.json');
  const rows = withHumanLabels(stopRows(index, analysis, '12.json'), index, attached);
  assert.ok(rows.every((r) => r.labels.source === 'otrace' && r.human_labels?.source === 'human'));
  // the Assistant's wrong count (h16) lands on the Orchestrator's next point (h17)
  const at = rows.find((r) => r.human_labels!.decisive_error === true)!;
  assert.equal(at.event, 'h17');
  assert.deepEqual(at.human_labels!.labels.map((l) => [l.event, l.label]), [['h16', 'decisive_error']]);
  assert.equal(rows.filter((r) => r.human_labels!.decisive_error === true).length, 1);
  assert.ok(rows.every((r) => r.human_labels!.stop_finding === 'premature'), 'stopped_too_early: the run stop is premature to people');
  assert.ok(rows.every((r) => r.human_labels!.best_stop === null), 'nobody said where it should have stopped: unknown, not false');
  assert.equal(rows.find((r) => r.event === 'h19')!.human_labels!.labels[0].label, 'stopped_too_early');
});

test('dataset rows without a sidecar keep otrace labels only', () => {
  const { index, analysis } = labelled('demo.otrace.jsonl');
  const rows = withHumanLabels(stopRows(index, analysis, 'demo'), index, undefined);
  assert.ok(rows.length > 0 && rows.every((r) => r.labels.source === 'otrace' && r.human_labels === undefined));
});

test('OpenInference span annotations: HUMAN, named by kind, label and explanation; a span id only when the event is a span', () => {
  const { attached } = labelled('who-and-when/Algorithm-Generated/96.json');
  const body = openInferenceAnnotations([{ trace: '96.json', labels: attached }]);
  assert.equal(body.data.length, 5);
  const first = body.data[0] as Record<string, any>;
  assert.equal(first.annotator_kind, 'HUMAN');
  assert.equal(first.name, 'otrace.decisive_error');
  assert.equal(first.result.label, 'decisive_error');
  assert.match(first.result.explanation, /without importing/);
  assert.equal(first.span_id, undefined, 'Who&When steps are no spans');
  assert.equal(first.metadata.otrace.event, 'h1');
  const accepted = body.data.find((d) => (d as any).name === 'otrace.finding.blame') as any;
  assert.equal(accepted.result.label, 'accepted');
  assert.equal(spanIdOf('4bf92f3577b34da6.return'), '4bf92f3577b34da6');
  assert.equal(spanIdOf('e12'), undefined);
});

test('OTel gen_ai.evaluation.result log records: event name, the required and recommended attributes, the label time', () => {
  const { attached } = labelled('mast/trace_0_ChatDev.json');
  const logs = otelEvaluationLogs([{ trace: 'chatdev', traceId: '4bf92f3577b34da6a3ce929d0e0e4736', labels: attached }]) as any;
  const records = logs.resourceLogs[0].scopeLogs[0].logRecords;
  assert.equal(records.length, 4);
  const r = records[0];
  assert.equal(r.eventName, 'gen_ai.evaluation.result');
  const attrs = Object.fromEntries(r.attributes.map((a: any) => [a.key, a.value.stringValue]));
  assert.equal(attrs['gen_ai.evaluation.name'], 'otrace.should_have_stopped');
  assert.equal(attrs['gen_ai.evaluation.score.label'], 'should_have_stopped');
  assert.match(attrs['gen_ai.evaluation.explanation'], /Finished/);
  assert.equal(r.timeUnixNano, String(BigInt(Date.parse(attached[0].record.time)) * 1_000_000n));
  assert.equal(r.spanId, undefined, 'no span to parent it to');
});

test('agreement per kind with counts: one blame agrees and one does not (a Who&When run, failed by its wrong answer: otrace blames the step a person labelled good), a premature stop otrace calls a no_stop does not, unsigned credit is unknown', () => {
  const judgements = ['demo.otrace.jsonl', 'who-and-when/Algorithm-Generated/96.json', 'who-and-when/Hand-Crafted/12.json', 'mast/trace_0_ChatDev.json'].flatMap((n) => {
    const { attached, analysis } = labelled(n);
    return judgeLabels(analysis, attached);
  });
  const table = Object.fromEntries(tallyAgreement(judgements).map((c) => [c.kind, [c.labels, c.agree, c.disagree, c.unknown]]));
  assert.deepEqual(table, {
    should_have_stopped: [2, 1, 1, 0],
    stopped_too_early: [2, 0, 2, 0],
    decisive_error: [2, 1, 1, 0],
    good_step: [5, 2, 2, 1],
    'finding:blame': [1, 1, 0, 0],
    'finding:loop': [2, 2, 0, 0],
  });
  const h1 = judgements.find((j) => j.event === 'h1' && j.kind === 'decisive_error')!;
  assert.equal(h1.otrace, 'blamed here');
  const text = formatAgreement(tallyAgreement(judgements));
  assert.match(text, /^kind +labels +agree +disagree +unknown +agreement$/m);
  assert.match(text, /^decisive_error +2 +1 +1 +0 +50%$/m);
  assert.match(text, /^stopped_too_early +2 +0 +2 +0 +0%$/m);
});
