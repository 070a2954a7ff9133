/**
 * What the analysis keeps on the heap between its phases (a progressive open runs them with the
 * graph of the trace as read in memory beside them: docs/large-traces.md, Memory). Measured with
 * V8's sampling heap profiler: the objects made since the analysis started and still alive after a
 * full collection, at the end of the stop verdicts' phase. Neither the list of every event's index
 * (one trace: nothing to split) nor a normalized copy of every agent output's text (read once per
 * event by the answer statements) may stay: with them it kept 73 bytes per event here, without
 * them 33 (the index's columns of types and the loops found); 44.5-44.7 on 2026-12-07. Sampled
 * every 32 bytes: at V8's default of 1,024 the estimate moved from 43 to 50 between runs (one sample
 * stands for a kilobyte of small objects). Measured in a process's first analysis it counted the
 * code compiled and its feedback too (12-13 bytes per event at 50k, not kept per event): 44.5-46.3
 * alone, and once 50.1 in a full run, against a bound of 50. Now after an analysis of another trace
 * of the same size, the median of three: 28.0-34.8 per run (eight runs, some on a loaded machine),
 * under a bound of 40 (a list of a number per event, kept by the index, gives a median of 42.1).
 */
import assert from 'node:assert/strict';
import { Session } from 'node:inspector/promises';
import { test } from 'node:test';
import { analysisSteps } from '../../../src/analysis';
import { generateTrace } from '../../../bench/_generate';

test('after the stop verdicts the analysis keeps under 40 bytes per event on the heap (no list of every index, no cache of every text)', async () => {
  const n = 50_000;
  const generated = generateTrace(n);
  // the texts as a reader makes them (flat strings from JSON.parse; the generator's are joined pieces that hashing would flatten now),
  // a trace of its own for each analysis (nothing one analysis keeps with its trace is found by the next)
  const read = () => ({ ...generated, trace: JSON.parse(JSON.stringify(generated.trace)) as typeof generated.trace });
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.enable');
    // first an analysis of another trace of the same size, not measured: what the first analysis of a
    // process makes once (compiled code and its feedback, which vary with the machine's load) is not
    // kept per event; then the median of three analyses
    await keptAfterStops(session, { ...generateTrace(n, 2), trace: JSON.parse(JSON.stringify(generateTrace(n, 2).trace)) });
    const measures: number[] = [];
    for (let run = 0; run < 3; run++) measures.push(await keptAfterStops(session, read()));
    const bytes = measures.sort((a, b) => a - b)[1];
    assert.ok(bytes < 40 * n, `the analysis keeps ${bytes} bytes after its stops phase for ${n} events (${(bytes / n).toFixed(1)} per event, the median of runs ${measures.map((b) => (b / n).toFixed(1)).join(', ')})`);
  } finally {
    session.disconnect();
  }
});

/** Bytes of the objects an analysis of `loaded` made and still holds at the end of its stops phase (after a full collection). */
async function keptAfterStops(session: Session, loaded: Parameters<typeof analysisSteps>[0]): Promise<number> {
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
  return live(profile.head as Node);
}
