/**
 * `otrace labels agreement|export` and `otrace dataset stops` with labels sidecars (issue 29 item 2),
 * through the built CLI (dist/cli.js) on the hand-made sidecars of test/fixtures/labels.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fixturePath } from '../helpers';

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'cli.js');
const DIR = fixturePath('labels');

function cli(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}

test('otrace labels agreement DIR prints per kind how often otrace agrees, with counts', () => {
  const r = cli('labels', 'agreement', DIR);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /against 24 labels on 4 traces: 16 people gave \(\.labels\.jsonl\), 8 recorded in the traces/);
  const [people, inTraces] = r.stdout.split('recorded in the traces:\n');
  assert.match(people, /^decisive_error +2 +1 +1 +0 +50%$/m);
  assert.match(people, /^should_have_stopped +2 +1 +1 +0 +50%$/m);
  assert.doesNotMatch(people, /^mast|^decisive_agent/m, "the benchmarks' labels are not counted as people's");
  assert.match(inTraces, /^decisive_agent +2 +1 +1 +0 +50%$/m);
  assert.match(inTraces, /^mast 1\.3 step repetition +1 +0 +1 +0 +0%$/m);
  const json = JSON.parse(cli('labels', 'agreement', DIR, '--json').stdout);
  assert.equal(json.labels, 24);
  assert.equal(json.sidecar_labels, 16);
  assert.equal(json.recorded_labels, 8);
  assert.ok(json.judgements.every((j: { otrace: string; agree: unknown }) => typeof j.otrace === 'string' && (j.agree === null || typeof j.agree === 'boolean')), 'each judgement shows what otrace said');
});

test("otrace labels agreement reads the labels a benchmark's trace records (Who&When mistake step and agent, MAST failure modes) with no sidecar", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-labels-'));
  fs.copyFileSync(fixturePath('labels', 'who-and-when', 'Hand-Crafted', '12.json'), path.join(tmp, '12.json'));
  fs.copyFileSync(fixturePath('labels', 'mast', 'trace_0_ChatDev.json'), path.join(tmp, 'trace_0_ChatDev.json'));
  fs.writeFileSync(path.join(tmp, 'plain.otrace.jsonl'), fs.readFileSync(fixturePath('labels', 'demo.otrace.jsonl')));
  const r = cli('labels', 'agreement', tmp, '--outcome', 'failure', '--json');
  assert.equal(r.status, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  assert.equal(json.traces, 2, 'a trace with no labels is not counted');
  assert.equal(json.sidecar_labels, 0);
  const who = json.judgements.filter((j: { trace: string }) => j.trace.endsWith('12.json'));
  assert.deepEqual(who.map((j: { kind: string; event: string; source: string }) => [j.kind, j.event, j.source]), [
    ['decisive_error', 'h16', 'recorded'],
    ['decisive_agent', 'h16', 'recorded'],
  ]);
  assert.ok(who.every((j: { agree: unknown; otrace: string }) => typeof j.agree === 'boolean' && /^blame/.test(j.otrace)), JSON.stringify(who));
  const mast = json.recorded_kinds.map((k: { kind: string; labels: number }) => k.kind).filter((k: string) => k.startsWith('mast '));
  assert.deepEqual(mast, ['mast 1.3 step repetition', 'mast 1.5 unaware of termination', 'mast 3.1 premature termination', 'mast 3.2/3.3 verification']);
  const none = cli('labels', 'agreement', path.join(tmp, 'plain.otrace.jsonl'));
  assert.equal(none.status, 1);
  assert.match(none.stderr, /no labels found: .* or labels recorded in it/);
});

test('otrace labels export writes OpenInference annotations or OTel log records; the sidecars are no traces', () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-labels-')), 'a.json');
  const r = cli('labels', 'export', DIR, '--format', 'openinference', '-o', out);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /16 labels from 4 traces as OpenInference span annotations/);
  const body = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.equal(body.data.length, 16);
  assert.ok(body.data.every((d: { annotator_kind: string }) => d.annotator_kind === 'HUMAN'));
  const otel = JSON.parse(cli('labels', 'export', DIR, '--format', 'otel').stdout);
  assert.equal(otel.resourceLogs[0].scopeLogs[0].logRecords.length, 16);
  assert.equal(cli('labels', 'export', DIR, '--format', 'csv').status, 2);
});

test('otrace dataset stops carries human labels beside otrace labels; sidecar problems are positioned on stderr', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-labels-'));
  const trace = path.join(tmp, '12.json');
  fs.copyFileSync(fixturePath('labels', 'who-and-when', 'Hand-Crafted', '12.json'), trace);
  const sidecar = fs.readFileSync(fixturePath('labels', 'who-and-when', 'Hand-Crafted', '12.json.labels.jsonl'), 'utf8');
  const gone = JSON.stringify({ ...JSON.parse(sidecar.split('\n')[0]), event: 'h99', fingerprint: '00000000-00000000' });
  fs.writeFileSync(trace + '.labels.jsonl', `${sidecar}{oops\n${gone}\n`);
  const r = cli('dataset', 'stops', tmp);
  assert.equal(r.status, 0, r.stderr);
  const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(rows.every((row) => row.labels.source === 'otrace' && row.human_labels.source === 'human'));
  assert.equal(rows.filter((row) => row.human_labels.decisive_error === true).length, 1);
  assert.match(r.stderr, /12\.json\.labels\.jsonl:4:1: error: not a JSON label record/);
  assert.match(r.stderr, /12\.json\.labels\.jsonl:5:1: warning: label "decisive_error" .* not attached: no event has id h99/);
  assert.match(r.stderr, /human labels from 1 sidecar/);
  assert.doesNotMatch(r.stderr, /not traces/, 'the labels file is no trace of the folder');
});
