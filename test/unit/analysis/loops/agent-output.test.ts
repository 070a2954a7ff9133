// Rows that are no agent's output (src/analysis/loops/agent-output.ts) in every loop detector.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findLoops } from '../../../../src/analysis/loops';
import { TraceIndex } from '../../../../src/analysis/trace-index';
import { traceOf } from '../build';

test('rows the harness injected (kind meta, placeholder) are not the agent repeating itself, and do not hide it when it does', () => {
  const reminder = 'PostToolUse hook additional context: COMPILE ERROR undefined function session_status_badge in module Spotter web live';
  const own = ['read the sync job and list its callers', 'rename the helper and update both callers', 'run the compiler on the two changed files', 'write the migration for the new status column', 'add a test for the badge component rendering', 'update the changelog with the renamed helper'];
  // a reminder after each of six different steps: the same injected text six times
  const noisy = traceOf(own.flatMap((text, k) => [
    { id: `s${k}`, type: 'message' as const, agent: 'dev', to: 'lead', content: `${text} before moving on to the next part` },
    { id: `h${k}`, type: 'message' as const, agent: 'dev', kind: 'meta' as const, content: reminder },
  ]));
  const quiet = findLoops(new TraceIndex(noisy));
  assert.deepEqual(quiet.map((l) => `${l.kind}: ${l.message}`), [], 'no loop made of reminders');
  // the agent saying the same thing three times, a reminder after each: still a loop, of its own steps only
  const retry = 'I will retry the deployment now with exactly the same settings as the previous attempt';
  const stuck = traceOf([0, 1, 2].flatMap((k) => [
    { id: `r${k}`, type: 'message' as const, agent: 'dev', to: 'lead', content: retry },
    { id: `m${k}`, type: 'message' as const, agent: 'dev', kind: 'meta' as const, content: reminder },
  ]));
  const loops = findLoops(new TraceIndex(stuck));
  assert.ok(loops.length > 0, 'the repeated step is found');
  for (const l of loops) assert.deepEqual(l.events.filter((id) => id.startsWith('m')), [], `${l.kind}: no injected row among its events`);
  assert.ok(loops.some((l) => ['r0', 'r1', 'r2'].every((id) => l.events.includes(id))));
});
