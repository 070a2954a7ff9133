/**
 * The labels sidecar (`<trace>.labels.jsonl`, issue 29 item 1): its records are read with zod, a bad
 * line is a positioned problem and the other lines still count; labels re-attach to the trace as it
 * is now (by id, by fingerprint when ids shift, never guessed); media/otrace-labels.schema.json is
 * the schema generated from the zod model.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import { attachLabels } from '../../../../src/analysis/labels/attach';
import { eventFingerprint } from '../../../../src/analysis/labels/fingerprint';
import { isSidecar, labelLine, labelsJsonSchema, readSidecar, sidecarPath, type LabelRecord } from '../../../../src/analysis/labels/sidecar';
import { labelTargetOf, traceTargets } from '../../../../src/analysis/labels/targets';
import { readTraceJsonl } from '../../../../src/trace/read';
import { fixture } from '../../helpers';

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const DEMO = fixture('labels', 'demo.otrace.jsonl');

function labelOn(text: string, index: number, label: LabelRecord['label'] = 'good_step'): LabelRecord {
  const loaded = readTraceJsonl(text);
  const e = loaded.trace.events[index];
  return { ...labelTargetOf(loaded, index, e.content)!, label, author: 'tester', time: '2026-12-02T12:00:00.000Z' };
}

function attachTo(text: string, lines: string[]) {
  const loaded = readTraceJsonl(text);
  const read = readSidecar(lines.join('\n') + '\n');
  return { loaded, read, ...attachLabels(read.labels, traceTargets(loaded)) };
}

test('the sidecar of a trace is its name with .labels.jsonl appended, and is known as one', () => {
  assert.equal(sidecarPath('/w/run.jsonl'), '/w/run.jsonl.labels.jsonl');
  assert.ok(isSidecar('/w/run.jsonl.labels.jsonl'));
  assert.ok(!isSidecar('/w/run.jsonl'));
});

test('a label written as a line is read back the same, at its line', () => {
  const record = { ...labelOn(DEMO, 24, 'note'), note: 'proceeds without the 2024 figure' };
  const read = readSidecar(`\n${labelLine(record)}\n`);
  assert.deepEqual(read.problems, []);
  assert.deepEqual(read.labels, [{ record, line: 1 }]);
});

test('bad lines are positioned problems, the good lines still count', () => {
  const good = labelLine(labelOn(DEMO, 3));
  const noLabel = JSON.stringify({ ...JSON.parse(good), label: 'great' });
  const noFinding = JSON.stringify({ ...JSON.parse(good), label: 'reject_finding' });
  const read = readSidecar([good, '{not json', noLabel, noFinding, good].join('\n'));
  assert.equal(read.labels.length, 2);
  assert.deepEqual(read.labels.map((l) => l.line), [0, 4]);
  assert.deepEqual(read.problems.map((p) => [p.severity, p.range.start.line]), [['error', 1], ['error', 2], ['error', 3]]);
  assert.match(read.problems[0].message, /not a JSON label record/);
  assert.match(read.problems[1].message, /"label"/);
  assert.equal(read.problems[1].range.start.character, noLabel.indexOf('"label"'), 'at the field at fault');
  assert.match(read.problems[2].message, /names the finding/);
});

test('labels re-attach by event id after the trace grows (100 lines appended)', () => {
  const record = labelOn(DEMO, 24);
  const extra = Array.from({ length: 100 }, (_, k) => JSON.stringify({ id: `x${k}`, t: 100 + k, type: 'message', agent: 'late', content: `line ${k}` })).join('\n');
  const { attached, problems } = attachTo(`${DEMO.trimEnd()}\n${extra}\n`, [labelLine(record)]);
  assert.deepEqual(problems, []);
  assert.deepEqual(attached.map((a) => [a.index, a.by]), [[24, 'id']]);
});

test('labels re-attach by fingerprint when a re-export shifts the ids', () => {
  const record = labelOn(DEMO, 24);
  const shifted = DEMO.replace(/"id":\s*"e(\d+)"/g, (_, n: string) => `"id": "e${Number(n) + 1000}"`);
  assert.notEqual(shifted, DEMO);
  const { attached, problems } = attachTo(shifted, [labelLine(record)]);
  assert.deepEqual(problems, []);
  assert.deepEqual(attached.map((a) => [a.index, a.by]), [[24, 'fingerprint']]);
});

test('a label whose event is gone is a warning at its sidecar line, kept, never guessed', () => {
  const record = labelOn(DEMO, 24);
  const edited = readTraceJsonl(DEMO).trace.events[24];
  const changed = DEMO.replace(edited.content!, 'Something else entirely.');
  assert.notEqual(changed, DEMO);
  const { attached, unattached, problems } = attachTo(changed, ['', labelLine(record)]);
  assert.deepEqual(attached, []);
  assert.equal(unattached.length, 1);
  assert.equal(problems.length, 1);
  assert.equal(problems[0].severity, 'warning');
  assert.equal(problems[0].range.start.line, 1);
  assert.match(problems[0].message, /not attached: event e25 now holds a different record.*kept here/);
});

test('the fingerprint ignores the JSON layout and white space of the content, and sees its words', () => {
  const e = { type: 'message' as const, agent: 'a', t: 1 };
  assert.equal(eventFingerprint(e, 'a  b\nc'), eventFingerprint(e, 'a b c'));
  assert.notEqual(eventFingerprint(e, 'a b c'), eventFingerprint(e, 'a b d'));
  assert.notEqual(eventFingerprint(e, 'x'), eventFingerprint({ ...e, t: 2 }, 'x'));
});

test('media/otrace-labels.schema.json is generated from the zod model and accepts the hand-made sidecars', () => {
  const shipped = JSON.parse(fs.readFileSync(path.join(ROOT, 'media', 'otrace-labels.schema.json'), 'utf8'));
  assert.deepEqual(shipped, labelsJsonSchema());
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false }); // zod checks the time's format
  const valid = ajv.compile(shipped);
  for (const name of ['demo.otrace.jsonl', 'who-and-when/Hand-Crafted/12.json', 'mast/trace_0_ChatDev.json']) {
    for (const line of fixture('labels', `${name}.labels.jsonl`).split('\n').filter(Boolean)) assert.ok(valid(JSON.parse(line)), JSON.stringify(valid.errors));
  }
  assert.equal(valid({ event: 'e1', label: 'good_step' }), false);
});
