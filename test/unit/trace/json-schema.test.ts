/** The generated JSON Schema (media/otrace.schema.json) against the survey's own schema, with ajv. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import { traceJsonSchema } from '../../../src/trace/json-schema';
import { fixture } from '../helpers';

const ROOT = path.join(__dirname, '..', '..', '..');
const ours = JSON.parse(fs.readFileSync(path.join(ROOT, 'media', 'otrace.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validOurs = ajv.compile(ours);
const validSurvey = ajv.compile(JSON.parse(fixture('survey', 'trace_schema.json')));
const example = JSON.parse(fixture('survey', 'example_trace.json'));

test('media/otrace.schema.json is the schema generated from the zod model (npm run schema)', () => {
  assert.deepEqual(ours, traceJsonSchema());
});

test('our JSON Schema accepts the survey example', () => {
  assert.equal(validSurvey(example), true);
  assert.equal(validOurs(example), true, JSON.stringify(validOurs.errors));
});

/** Variants of the example that the survey's own schema accepts. */
const variants: [string, (t: any) => void][] = [
  ['no optional trace fields', (t) => { delete t.system; delete t.topology; delete t.metrics; }],
  ['every topology', (t) => { t.topology = 'swarm'; }],
  ['every event type', (t) => {
    const types = ['orchestrator_decision', 'spawn', 'despawn', 'message', 'tool_call', 'tool_result', 'return', 'aggregate', 'human_intervention', 'safety_event'];
    t.events = types.map((type, i) => ({ id: `x${i}`, t: i, type, agent: 'a' }));
    t.edges = [];
  }],
  ['every edge type', (t) => {
    t.edges = ['temporal', 'causal', 'spawn', 'message', 'tool_dependency', 'return', 'aggregate', 'safety_flow'].map((type) => ({ src: 'e1', dst: 'e2', type }));
  }],
  ['extra event properties and fractional times', (t) => { t.events[0].model = 'gpt-x'; t.events[0].t = 0.25; t.events[0].trusted = false; }],
  ['extra cost and reward channels', (t) => { t.costs.usd = 1.5; t.rewards.process = -0.5; t.metrics.parallelism_efficiency = 0.4; }],
  ['empty edges and rewards', (t) => { t.edges = []; t.rewards = {}; }],
];

for (const [name, change] of variants) {
  test(`a survey-valid variant (${name}) is valid under our schema`, () => {
    const t = structuredClone(example);
    change(t);
    assert.equal(validSurvey(t), true, `variant must be survey-valid: ${JSON.stringify(validSurvey.errors)}`);
    assert.equal(validOurs(t), true, JSON.stringify(validOurs.errors));
  });
}

test('our schema rejects what the model rejects: a stop without reason, an unknown type, negative t', () => {
  const stop = structuredClone(example);
  stop.events.push({ id: 's', t: 8, type: 'stop', agent: 'orchestrator' });
  assert.equal(validOurs(stop), false);
  stop.events[8].reason = 'task_complete';
  assert.equal(validOurs(stop), true, JSON.stringify(validOurs.errors));
  const unknown = structuredClone(example);
  unknown.events[0].type = 'handoff';
  assert.equal(validOurs(unknown), false);
  const negative = structuredClone(example);
  negative.events[0].t = -1;
  assert.equal(validOurs(negative), false);
});
