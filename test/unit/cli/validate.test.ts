/** `otrace validate` on good and broken traces: exit codes and the exact LINE:COLUMN of each problem. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fixturePath } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

/** Runs the built CLI (the test command builds first) from the project root. */
function otrace(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const broken = (name: string) => path.relative(ROOT, fixturePath('broken', name));

test('validate accepts the samples and the survey example', () => {
  const r = otrace('validate', 'samples/demo.otrace.jsonl', 'samples/survey-example.json', path.relative(ROOT, fixturePath('survey', 'example_trace.json')));
  assert.equal(r.stdout, '');
  assert.equal(r.status, 0);
  assert.match(r.stderr, /demo\.otrace\.jsonl: ok \(otrace-jsonl, 35 events\)/);
  assert.match(r.stderr, /survey-example\.json: ok \(survey-json, 8 events\)/);
});

const cases: [string, string[]][] = [
  ['syntax-error.otrace.jsonl', ['3:34: error: JSON syntax error: comma expected; line skipped']],
  ['cut-off.otrace.jsonl', ['3:24: error: last line is cut off (incomplete JSON: unexpected end of string); the lines before it loaded']],
  ['unknown-type.otrace.jsonl', ['2:24: error: event "b": unknown type "handoff" (expected one of: orchestrator_decision, spawn, despawn, message, tool_call, tool_result, return, aggregate, human_intervention, safety_event, delegate, reward, stop, communicate, tool_use); the event is skipped']],
  [
    'missing-field.otrace.json',
    [
      '5:5: error: event "b": missing required field "t"; the event is skipped',
      '6:23: error: event "c": "t" must be >= 0, not -1; the event is skipped',
      '6:70: error: event "c": "reason" is "done"; expected one of: task_complete, quality_met, budget_exhausted, max_turns, timeout, error, user_abort, loop_breaker, unknown; the event is skipped',
    ],
  ],
  ['duplicate-id.otrace.json', ['4:12: warning: duplicate event id "a": both events are kept; a "causes" or "parent" naming it means the nearest earlier one', '7:25: error: edge dst "zz" is not an event of this trace']],
  [
    'edge-missing.otrace.jsonl',
    [
      '3:26: error: edge dst "nope" is not an event of this trace',
      '4:37: error: edge: unknown type "wire" (expected one of: temporal, causal, spawn, message, tool_dependency, return, aggregate, safety_flow, link); the edge is skipped',
    ],
  ],
  ['truncated.otrace.json', ['1:93: error: the document is cut off (unexpected end of file); the complete records before it loaded']],
  ['stop-reward-fields.otrace.jsonl', ['1:1: error: event "a": missing required field "reason"; the stop loads with reason "unknown"', '2:56: error: event "r": "value" must be a number, not "high"; the event is skipped']],
];

for (const [name, expected] of cases) {
  test(`validate rejects ${name} with positioned errors`, () => {
    const file = broken(name);
    const r = otrace('validate', file);
    assert.equal(r.status, 1);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), expected.map((line) => `${file}:${line}`));
  });
}

test('validate accepts time running backwards with a positioned warning (exit 0)', () => {
  const file = broken('time-backwards.otrace.jsonl');
  const r = otrace('validate', file);
  assert.equal(r.status, 0);
  assert.equal(r.stdout, `${file}:3:15: warning: time runs backwards in lane "lead": t=3 s after t=5 s (event "a")\n`);
});

test('validate exits 1 when any of several files has errors, 2 on a missing file', () => {
  assert.equal(otrace('validate', 'samples/demo.otrace.jsonl', broken('cut-off.otrace.jsonl')).status, 1);
  assert.equal(otrace('validate', 'no/such/file.jsonl').status, 2);
});

test('stats --json gives the documented keys with the demo trace figures', () => {
  const r = otrace('stats', 'samples/demo.otrace.jsonl', '--json');
  assert.equal(r.status, 0);
  const s = JSON.parse(r.stdout);
  assert.equal(s.format, 'otrace-jsonl');
  assert.equal(s.events, 35);
  assert.deepEqual(s.agents, ['orchestrator', 'planner', 'researcher', 'web_searcher', 'writer', 'critic']);
  assert.deepEqual(s.by_type, { orchestrator_decision: 2, spawn: 5, delegate: 8, communicate: 1, tool_use: 1, tool_result: 4, return: 7, tool_call: 3, reward: 2, aggregate: 1, stop: 1 });
  assert.deepEqual(s.stops.map((x: { id: string; reason: string }) => [x.id, x.reason]), [['e35', 'quality_met']]);
  assert.equal(s.tool_calls, 4, 'tool_use counts as a tool call');
  assert.equal(s.messages, 1, 'communicate counts as a message');
});

test('convert writes every output format, and survey JSON -> JSONL -> survey JSON on disk is deep-equal', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-convert-'));
  const survey = path.relative(ROOT, fixturePath('survey', 'example_trace.json'));
  const jsonl = path.join(dir, 'x.otrace.jsonl');
  const back = path.join(dir, 'back.json');
  assert.equal(otrace('convert', survey, '--to', 'otrace-jsonl', '-o', jsonl).status, 0);
  assert.equal(otrace('convert', jsonl, '--to', 'survey-json', '-o', back).status, 0);
  assert.deepEqual(JSON.parse(fs.readFileSync(back, 'utf8')), JSON.parse(fs.readFileSync(path.join(ROOT, survey), 'utf8')));
  const json = otrace('convert', 'samples/demo.otrace.jsonl', '--to', 'otrace-json');
  assert.equal(JSON.parse(json.stdout).events.length, 35);
  assert.equal(otrace('convert', 'samples/demo.otrace.jsonl', '--to', 'yaml').status, 2);
});

test('stats prints times near the largest double as they are, not Infinity', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-big-t-')), 'big.otrace.jsonl');
  fs.writeFileSync(file, '{"id":"a","t":0,"type":"message","agent":"x"}\n{"id":"b","t":1e308,"type":"stop","agent":"x","reason":"quality_met"}\n');
  const r = otrace('stats', file);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /time {7}0 s \.\. 1e\+308 s \(1e\+308 s\)/);
});
