/**
 * The CodeLens items of a trace file: all of them for a small file, those of the lines asked for in a
 * large one (the host asks for its visible lines, so it makes no CodeLens object per spawn of the file).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { InProcessEngine } from '../../../src/engine/in-process-engine';

/** A trace of `n` spawns by `main`, each followed by one message of its agent: spawn k on line 1 + 2k (0-based). */
function spawnsFile(n: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-lenses-'));
  const file = path.join(dir, 'spawns.otrace.jsonl');
  const lines = [JSON.stringify({ trace_id: 'lenses' })];
  for (let k = 0; k < n; k++) {
    lines.push(JSON.stringify({ id: `s${k}`, t: 2 * k, type: 'spawn', agent: 'main', to: `helper_${k}` }));
    lines.push(JSON.stringify({ id: `m${k}`, t: 2 * k + 1, type: 'message', agent: `helper_${k}`, content: 'done' }));
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const agentsOf = (items: ({ lane: { agent: string } } | object)[] | undefined) => (items ?? []).filter((item) => 'lane' in item).map((item) => (item as { lane: { agent: string } }).lane.agent);

test('lenses of the lines asked for: only the spawns on them, in line order, each once when the spans overlap', async () => {
  const engine = new InProcessEngine();
  const s = (await engine.load({ key: 'k', version: -1, path: spawnsFile(3_000), local: true }))!;
  const all = await engine.codeLenses(s.key, s.stamp, '');
  const spawns = all!.filter((item) => 'lane' in item);
  assert.equal(spawns.length, 3_000);
  assert.deepEqual(
    spawns.map((item) => item.at.line),
    spawns.map((_, k) => 1 + 2 * k),
  );
  assert.deepEqual(
    all!.map((item) => item.at.line),
    all!.map((item) => item.at.line).sort((a, b) => a - b),
    'in line order',
  );
  const some = await engine.codeLenses(s.key, s.stamp, '', [{ start: 1_001, end: 1_010 }]);
  assert.deepEqual(agentsOf(some), ['helper_500', 'helper_501', 'helper_502', 'helper_503', 'helper_504']);
  const overlapping = await engine.codeLenses(s.key, s.stamp, '', [
    { start: 5_000, end: 5_004 },
    { start: 1_001, end: 1_004 },
    { start: 1_003, end: 1_006 },
  ]);
  assert.deepEqual(agentsOf(overlapping), ['helper_500', 'helper_501', 'helper_502', 'helper_2500', 'helper_2501']);
  assert.deepEqual(await engine.codeLenses(s.key, s.stamp, '', [{ start: 7_000, end: 8_000 }]), []);
  const lens = some![0] as { lane: { agent: string; events: number } };
  assert.equal(lens.lane.events, 1);
});

test("a spawn's lens names the agent as its lane is labelled in the graph (its task), not by its id", async () => {
  const { fixturePath } = await import('../helpers');
  const engine = new InProcessEngine();
  const s = (await engine.load({ key: 'cc', version: -1, path: fixturePath('claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'), local: true }))!;
  const lanes = ((await engine.codeLenses(s.key, s.stamp, '')) ?? []).filter((item) => 'lane' in item).map((item) => (item as { lane: { agent: string; label?: string } }).lane);
  const explore = lanes.find((l) => l.agent.startsWith('Explore:'));
  assert.ok(explore, JSON.stringify(lanes));
  assert.match(explore.label ?? '', /^Explore existing/);
});
