/** The run outcomes a user states are kept in the workspace's storage and read back after a reload. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatedOutcomes } from '../../../../src/host/editor/stated-outcomes';

/** A Memento in memory: what VS Code's workspace state does across a window reload. */
function memory(initial: Record<string, unknown> = {}) {
  const data = new Map(Object.entries(initial));
  return { get: <T>(key: string) => data.get(key) as T | undefined, update: async (key: string, value: unknown) => void data.set(key, value), data };
}

test('a stated outcome survives a reload; "as the trace says" forgets it', () => {
  const store = memory();
  const first = new StatedOutcomes(store);
  first.set('file:///runs/a.json', 'failure');
  first.set('file:///runs/b.json', 'success');
  const reloaded = new StatedOutcomes(store);
  assert.equal(reloaded.get('file:///runs/a.json'), 'failure');
  assert.equal(reloaded.get('file:///runs/b.json'), 'success');
  reloaded.set('file:///runs/a.json', undefined);
  assert.equal(new StatedOutcomes(store).get('file:///runs/a.json'), undefined);
  assert.equal(new StatedOutcomes(store).get('file:///runs/b.json'), 'success');
});

test('storage holding anything else is read as nothing stated', () => {
  for (const kept of [null, 'failure', 42, ['failure'], { 'file:///x': 'maybe', 'file:///y': 1, 'file:///z': 'failure' }]) {
    const outcomes = new StatedOutcomes(memory({ 'otrace.statedOutcomes': kept }));
    assert.equal(outcomes.get('file:///x'), undefined);
    assert.equal(outcomes.get('file:///z'), kept && typeof kept === 'object' && !Array.isArray(kept) ? 'failure' : undefined);
  }
  assert.equal(new StatedOutcomes().get('file:///x'), undefined, 'without storage: nothing stated');
});
