/**
 * What the analysis keeps on the heap between its phases (a progressive open runs them with the
 * graph of the trace as read in memory beside them: docs/large-traces.md, Memory). Measured with
 * V8's sampling heap profiler: the objects made since the analysis started and still alive after a
 * full collection, at the end of the stop verdicts' phase. Neither the list of every event's index
 * (one trace: nothing to split) nor a normalized copy of every agent output's text (read once per
 * event by the answer statements) may stay: with them it kept 73 bytes per event here, without
 * them 33 (the index's columns of types and the loops found); 44.5-44.7 on 2026-12-07. Sampled
 * every 32 bytes: at V8's default of 1,024 the estimate moved from 43 to 50 between runs (one sample
 * stands for a kilobyte of small objects), at 32 it stays within 44.5-44.7 (six runs).
 */
import assert from 'node:assert/strict';
import { Session } from 'node:inspector/promises';
import { test } from 'node:test';
import { analysisSteps } from '../../../src/analysis';
import { generateTrace } from '../../../bench/_generate';

test('after the stop verdicts the analysis keeps under 50 bytes per event on the heap (no list of every index, no cache of every text)', async () => {
  const n = 50_000;
  const generated = generateTrace(n);
  // the texts as a reader makes them (flat strings from JSON.parse; the generator's are joined pieces that hashing would flatten now)
  const loaded = { ...generated, trace: JSON.parse(JSON.stringify(generated.trace)) as typeof generated.trace };
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.collectGarbage');
    await session.post('HeapProfiler.startSampling', { samplingInterval: 32 });
    const steps = analysisSteps(loaded);
    let phase = steps.next();
    while (!phase.done && phase.value !== 'stops') phase = steps.next();
    assert.equal(phase.value, 'stops');
    await session.post('HeapProfiler.collectGarbage');
    const { profile } = await session.post('HeapProfiler.stopSampling');
    steps.return(undefined as never);
    type Node = { selfSize: number; children: Node[] };
    const live = (node: Node): number => node.selfSize + node.children.reduce((sum, c) => sum + live(c), 0);
    const bytes = live(profile.head as Node);
    assert.ok(bytes < 50 * n, `the analysis keeps ${bytes} bytes after its stops phase for ${n} events (${(bytes / n).toFixed(1)} per event)`);
  } finally {
    session.disconnect();
  }
});
