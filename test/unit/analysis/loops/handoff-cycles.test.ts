// Ping-pongs and hand-off cycles (src/analysis/loops/handoff-cycles.ts), through findLoops.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findLoops } from '../../../../src/analysis/loops';
import { TraceIndex } from '../../../../src/analysis/trace-index';
import { traceOf } from '../build';

test('ping_pong: delegation back and forth with no new content', () => {
  const events = [{ id: 'u', type: 'message' as const, agent: 'user', content: 'review my patch' }];
  for (let k = 0; k < 3; k++) {
    events.push({ id: `d${k}`, type: 'delegate' as const, agent: 'lead', to: 'reviewer', content: 'please review the patch in pr 12' } as never);
    events.push({ id: `r${k}`, type: 'return' as const, agent: 'reviewer', to: 'lead', content: 'send it to the lead for review' } as never);
  }
  events.push({ id: 'n', type: 'message' as const, agent: 'lead', content: 'new direction: merge after running the full suite' });
  const loops = findLoops(new TraceIndex(traceOf(events)));
  assert.deepEqual(
    loops.map((l) => l.kind),
    ['ping_pong'],
  );
  const pp = loops;
  assert.deepEqual(pp[0].events, ['d0', 'r0', 'd1', 'r1', 'd2', 'r2']);
  assert.equal(pp[0].period, 2);
  assert.equal(pp[0].repetitions, 3);
  assert.equal(pp[0].unresolved, false);
  assert.deepEqual(pp[0].agents, ['lead', 'reviewer']);
  assert.equal(pp[0].message, 'ping-pong between lead and reviewer: 6 hand-offs, 3 round trips with no new content');
});

test('hand-offs that bring new content each time are not a ping-pong', () => {
  const events = [];
  for (let k = 0; k < 4; k++) {
    events.push({ id: `d${k}`, type: 'delegate' as const, agent: 'lead', to: 'w', content: `step ${k}: ${['parse the input', 'compute totals', 'write report', 'upload results'][k]}` });
    events.push({ id: `r${k}`, type: 'return' as const, agent: 'w', to: 'lead', content: `${['parsed 10 rows', 'totals are 5 and 9', 'report written to out.md', 'uploaded to the bucket'][k]}` });
  }
  assert.deepEqual(
    findLoops(new TraceIndex(traceOf(events))).filter((l) => l.kind === 'ping_pong'),
    [],
  );
});
