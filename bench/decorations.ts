/**
 * Benchmark of the decoration model (src/engine/marks.ts): the marks of a generated
 * 20,000-event trace, and the visible-lines lookup an editor does on every scroll. Target: the
 * model under 50 ms (issue "analysis in the trace text"); the record labels of the lines an editor
 * shows (the view and 100 lines around it), asked on every scroll. The analysis itself is not timed here
 * (see bench/analysis.ts): the snapshot is built first.
 *
 *   npm run bench -- decorations
 */
import { marksInLines } from '../src/engine/event-marks';
import { eventMarks } from '../src/engine/marks';
import { recordLabels } from '../src/engine/record-labels';
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
  // record labels: what the editor asks per scroll (260 lines), whatever the trace's size
  const t2 = performance.now();
  let labels = 0;
  for (let line = 0; line < 20_000; line += 400) labels += recordLabels(snapshot, '', [{ start: Math.max(0, line - 100), end: line + 160 }], false).length;
  const labelScroll = (performance.now() - t2) / 50;
  console.log(`decoration model, ${loaded.trace.events.length} events, ${marks} marks, ${snapshot.findings.length} findings`);
  console.log(`  eventMarks          median ${runs[5].toFixed(1)} ms, max ${runs[9].toFixed(1)} ms  (target < 50 ms: ${runs[5] < 50 ? 'met' : 'NOT met'})`);
  console.log(`  visible-lines lookup ${(scroll * 1000).toFixed(1)} µs per scroll (60 lines)`);
  console.log(`  record labels        ${labelScroll.toFixed(2)} ms per scroll (${Math.round(labels / 50)} labels of 260 lines)`);
}
