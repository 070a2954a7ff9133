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
import type { LoadedTrace, Origin } from '../src/trace/model';
import type { TraceEdge, TraceEvent } from '../src/trace/schema';

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'search', 'result', 'table', 'value', 'check', 'plan', 'fix', 'build', 'report', 'Paris', 'Lyon', 'Berlin', '2023', '42', '3.14'];

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Generates a trace of about `n` events, with a turn-level stop every `stopEvery` rounds. */
export function generateTrace(n: number, seed = 1, stopEvery = 1000): LoadedTrace {
  const rand = rng(seed);
  const text = (k: number) => Array.from({ length: k }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  const events: TraceEvent[] = [];
  const edges: TraceEdge[] = [];
  let t = 0;
  let id = 0;
  const add = (e: Omit<TraceEvent, 'id' | 't'>, dt = 0.5): string => {
    const ev = { id: `e${id++}`, t, ...e } as TraceEvent;
    events.push(ev);
    t += dt;
    return ev.id;
  };
  const workers = Array.from({ length: 20 }, (_, i) => `worker_${i}`);
  for (const w of workers) add({ type: 'spawn', agent: 'orchestrator', to: w, tokens: 10 });
  let round = 0;
  while (events.length < n) {
    round++;
    const w = workers[round % workers.length];
    const d = add({ type: 'delegate', agent: 'orchestrator', to: w, content: `task ${round}: ${text(12)}`, tokens: 80 });
    const stuck = round % 97 === 0;
    const calls = stuck ? 6 : 1 + Math.floor(rand() * 3);
    let last = d;
    for (let k = 0; k < calls; k++) {
      const args = stuck ? 'retry the same failing build' : rand() < 0.05 ? 'git status' : `query ${round}.${k} ${text(6)}`;
      const c = add({ type: 'tool_call', agent: w, tool: stuck ? 'bash' : 'search', content: args, tokens: 40, causes: [last] }, 0.1);
      const r = add({ type: 'tool_result', agent: w, tool: stuck ? 'bash' : 'search', content: stuck ? 'error: build failed' : `found ${text(20)}`, tokens: 200, duration_s: 0.3 }, 0.4);
      edges.push({ src: c, dst: r, type: 'return' });
      last = r;
    }
    const ret = add({ type: 'return', agent: w, to: 'orchestrator', content: `done ${round}: ${text(15)}`, tokens: 120, causes: [last] });
    if (round % 50 === 0) add({ type: 'aggregate', agent: 'orchestrator', content: `summary ${round}: ${text(25)}`, tokens: 300, causes: [ret] });
    if (round % 100 === 0) add({ type: 'reward', agent: 'judge', value: Math.min(1, round / (n / 6)), channel: 'team', target: ret });
    if (round % stopEvery === 0) add({ type: 'stop', agent: 'orchestrator', reason: 'task_complete' });
  }
  const eventOrigins: Origin[] = events.map((_, i) => ({ range: { start: { line: i, character: 0 }, end: { line: i, character: 1 } }, record: i }));
  return { format: 'generated', trace: { trace_id: 'bench', events, edges }, eventOrigins, edgeOrigins: edges.map(() => undefined), problems: [] };
}

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
  const [credit, creditMs] = time(() => computeCredit(index, outcome));
  const [, blameMs] = time(() => findBlame(index, { status: 'failure', value: -1, source: 'bench' }, credit.values.values));
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
