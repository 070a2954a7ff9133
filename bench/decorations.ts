/**
 * Benchmark of the decoration model (src/engine/marks.ts): the marks of a generated
 * 20,000-event trace, and the visible-lines lookup an editor does on every scroll. Target: the
 * model under 50 ms (issue "analysis in the trace text"). The analysis itself is not timed here
 * (see bench/analysis.ts): the snapshot is built first.
 *
 *   npm run bench -- decorations
 */
import { marksInLines } from '../src/engine/event-marks';
import { eventMarks } from '../src/engine/marks';
import { makeSnapshot } from '../src/engine/snapshot';
import { generateTrace } from './analysis';

export async function bench(): Promise<void> {
  const loaded = generateTrace(20_000, 7);
  const snapshot = makeSnapshot('bench', 1, '/bench/trace.otrace.jsonl', loaded);
  const options = { stops: true, credit: true, loops: true };
  eventMarks(snapshot, options); // warm-up
  const runs: number[] = [];
  let marks = 0;
  for (let k = 0; k < 10; k++) {
    const t0 = performance.now();
    const files = eventMarks(snapshot, options);
    runs.push(performance.now() - t0);
    marks = files.get('')?.marks.length ?? 0;
  }
  runs.sort((a, b) => a - b);
  const all = eventMarks(snapshot, options).get('')!.marks;
  const t1 = performance.now();
  for (let line = 0; line < 20_000; line += 40) marksInLines(all, [{ start: line, end: line + 60 }]);
  const scroll = (performance.now() - t1) / 500;
  console.log(`decoration model, ${loaded.trace.events.length} events, ${marks} marks, ${snapshot.findings.length} findings`);
  console.log(`  eventMarks          median ${runs[5].toFixed(1)} ms, max ${runs[9].toFixed(1)} ms  (target < 50 ms: ${runs[5] < 50 ? 'met' : 'NOT met'})`);
  console.log(`  visible-lines lookup ${(scroll * 1000).toFixed(1)} µs per scroll (60 lines)`);
}
