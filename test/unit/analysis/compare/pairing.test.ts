/**
 * Agent pairing (src/analysis/compare/pairing.ts): by name, by kind (ids taken out, sub-agent
 * type), by what they were asked, by their steps, and the agents given the user's prompt across
 * formats; never a guess: agents with nothing in common stay on one side.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pairAgents, type LaneInfo } from '../../../../src/analysis/compare/pairing';

const lane = (name: string, more: Partial<LaneInfo> = {}): LaneInfo => ({ name, kind: null, task: null, steps: [], prompted: false, ...more });

test('same names pair first; sub-agents with other ids pair by kind and then by what they were asked', () => {
  const a = [lane('main', { prompted: true }), lane('Explore:a93ccab', { task: 'find the session hook controller and its tests' }), lane('Explore:aa84377', { task: 'list the database migrations for lifecycle events' })];
  const b = [lane('main', { prompted: true }), lane('Explore:f00d123', { task: 'list the database migrations for lifecycle events and schemas' }), lane('Explore:beef456', { task: 'find the session hook controller' })];
  assert.deepEqual(pairAgents(a, b), [
    { a: 'main', b: 'main', by: 'name' },
    { a: 'Explore:a93ccab', b: 'Explore:beef456', by: 'kind' },
    { a: 'Explore:aa84377', b: 'Explore:f00d123', by: 'kind' },
  ]);
});

test('a renamed agent pairs by its task, else by its steps; the prompted agents of two formats pair as the root; the rest stay on one side', () => {
  const a = [lane('main', { prompted: true }), lane('coder', { task: 'implement the parser for the config file format' }), lane('tester', { steps: [1, 2, 3, 4] }), lane('human')];
  const b = [lane('codex', { prompted: true }), lane('developer', { task: 'Implement the parser for the config-file format.' }), lane('qa', { steps: [1, 2, 3, 9] }), lane('WebSurfer', { steps: [7] })];
  assert.deepEqual(pairAgents(a, b), [
    { a: 'main', b: 'codex', by: 'root' },
    { a: 'coder', b: 'developer', by: 'task' },
    { a: 'tester', b: 'qa', by: 'content' },
    { a: 'human', b: null, by: null },
    { a: null, b: 'WebSurfer', by: null },
  ]);
});

test('the same sub-agent type in metadata pairs agents whose names share nothing', () => {
  const a = [lane('alpha', { kind: 'reviewer' }), lane('beta', { kind: 'planner' })];
  const b = [lane('gamma', { kind: 'Planner' }), lane('delta', { kind: 'reviewer' })];
  assert.deepEqual(pairAgents(a, b), [
    { a: 'alpha', b: 'delta', by: 'kind' },
    { a: 'beta', b: 'gamma', by: 'kind' },
  ]);
});
