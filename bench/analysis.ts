/**
 * Benchmark of the analysis (src/analysis) on a generated 100k-event orchestration trace:
 * an orchestrator delegating to 20 workers that call tools (some calls repeated, some stuck in a
 * retry loop), return results, with process rewards and turn-level stops. Prints the time of each
 * phase and of the whole `analyzeTrace`, in ms and events/s.
 *
 *   npx tsx -e "require('./bench/analysis.ts').bench()"
 */
import { analyzeIndex, analyzeTrace } from '../src/analysis';
import { computeCredit } from '../src/analysis/credit';
import { findBlame } from '../src/analysis/blame';
import { findLoops } from '../src/analysis/loops';
import { computeMetrics } from '../src/analysis/metrics';
import { traceOutcome } from '../src/analysis/outcome';
import { stopRows } from '../src/analysis/stop-dataset';
import { analyzeStops } from '../src/analysis/stops';
import { guessTopology } from '../src/analysis/topology';
import { TraceIndex } from '../src/analysis/trace-index';
import { generateTrace } from './_generate';

export { generateTrace };

function time<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const r = f();
  return [r, performance.now() - t0];
}

export async function bench(): Promise<void> {
  const n = 100_000;
  const [loaded, genMs] = time(() => generateTrace(n));
  const events = loaded.trace.events.length;
  process.stdout.write(`analysis bench: generated ${events} events, ${loaded.trace.edges.length} edges in ${genMs.toFixed(0)} ms\n`);
  analyzeTrace(generateTrace(5_000, 2)); // warm-up
  const [index, indexMs] = time(() => new TraceIndex(loaded));
  const outcome = traceOutcome(index);
  const [loops, loopsMs] = time(() => findLoops(index));
  const [, stopsMs] = time(() => analyzeStops(index, loops, outcome));
  const [, creditMs] = time(() => computeCredit(index, outcome));
  const [, blameMs] = time(() => findBlame(index, { status: 'failure', value: -1, source: 'bench' }));
  const [metrics, metricsMs] = time(() => computeMetrics(index));
  const [, topoMs] = time(() => guessTopology(index, metrics));
  const phases: [string, number][] = [
    ['index (sort, lanes, links, fingerprints)', indexMs],
    ['loops', loopsMs],
    ['stops + best stop + V_stop', stopsMs],
    ['credit (incl. content links)', creditMs],
    ['blame', blameMs],
    ['metrics', metricsMs],
    ['topology', topoMs],
  ];
  for (const [name, ms] of phases) process.stdout.write(`  ${name.padEnd(42)} ${ms.toFixed(1).padStart(8)} ms\n`);
  // stops scale with the trace, not with trace x stops: the same trace with a stop after every round
  const manyStops = new TraceIndex(generateTrace(n, 1, 1));
  const manyLoops = findLoops(manyStops);
  const [many, manyMs] = time(() => analyzeStops(manyStops, manyLoops, traceOutcome(manyStops)));
  process.stdout.write(`  stops with a stop every round (${many.stops.length} stops)    ${manyMs.toFixed(1).padStart(8)} ms  = ${(manyMs / stopsMs).toFixed(1)}x the ${n.toLocaleString('en-US')}-event trace's\n`);
  const [rows, rowsMs] = time(() => stopRows(index, analyzeIndex(index), 'bench'));
  process.stdout.write(`  stop dataset rows (${rows.length} decision points)       ${rowsMs.toFixed(1).padStart(8)} ms (incl. the analysis)\n`);
  const runs: number[] = [];
  let analysis = analyzeIndex(index);
  for (let k = 0; k < 3; k++) {
    const [a, ms] = time(() => analyzeTrace(loaded));
    analysis = a;
    runs.push(ms);
  }
  const best = Math.min(...runs);
  process.stdout.write(
    `  analyzeTrace total (best of 3)              ${best.toFixed(1).padStart(8)} ms  = ${Math.round(events / (best / 1000)).toLocaleString('en-US')} events/s\n` +
      `  found: ${analysis.loops.length} loops (${analysis.loops.filter((l) => l.kind === 'repeated_tool_call').length} repeated tool calls), ${analysis.stops.length} stops, topology ${analysis.topology.guess}, parallelism ${analysis.metrics.parallelism}\n`,
  );
}

if (require.main === module) void bench();
