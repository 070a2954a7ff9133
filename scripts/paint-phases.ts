/**
 * Where the time goes between a large trace's read and its first paint (issue #30): runs, in this
 * thread, the steps the engine's worker runs for a progressive open (src/engine/session-store.ts:
 * the read, the snapshot as read, its summary, the graph index, then the overview and the first
 * window the host asks for) and prints each step's wall and CPU milliseconds.
 *
 * The read is timed once; the steps after it `runs` times, each on a fresh copy of the events
 * array (nothing cached per array is reused).
 *
 *   npx tsx scripts/paint-phases.ts FILE [runs]
 */
import { SessionFiles } from '../src/engine/session-input';
import { readSnapshot } from '../src/engine/snapshot';
import { summarize } from '../src/engine/summary';
import { graphOverview, graphWindow, snapshotStamp } from '../src/engine/graph-window';
import { layoutStructure } from '../src/engine/graph-structure';
import { graphLayout } from '../src/engine/graph-model';
import { prepareGraph } from '../src/engine/graph-index';
import { packOverview } from '../src/shared/overview-columns';
import { fitWindowRequest } from '../src/shared/fit';
import type { LoadedTrace } from '../src/trace/model';

/** One step's wall and CPU milliseconds. */
export type PhaseTimes = [name: string, wallMs: number, cpuMs: number][];

/** Reads a trace file as the worker does (no analysis). */
export function readTrace(file: string): LoadedTrace {
  const read = new SessionFiles().read({ key: 'k', version: -1, path: file, local: true }, [], false);
  if (read === 'unchanged') throw new Error('unchanged');
  return read.loaded;
}

/**
 * The steps from the read's end to the first window, timed, on a copy of `loaded` whose events
 * array is new (so nothing kept per events array or per loaded trace is reused).
 */
export function paintPhases(loadedIn: LoadedTrace): PhaseTimes {
  const loaded: LoadedTrace = { ...loadedIn, trace: { ...loadedIn.trace, events: loadedIn.trace.events.slice() } };
  const rows: PhaseTimes = [];
  let w = performance.now();
  let c = process.cpuUsage();
  const lap = (name: string) => {
    const w1 = performance.now();
    const c1 = process.cpuUsage(c);
    rows.push([name, w1 - w, (c1.user + c1.system) / 1000]);
    w = performance.now();
    c = process.cpuUsage();
  };
  const first = readSnapshot('k', -1, 'x', loaded);
  lap('snapshot as read');
  summarize(first, snapshotStamp(first), 0, false);
  lap('summary');
  layoutStructure(first.loaded);
  lap('layout structure');
  graphLayout(first.loaded);
  lap('layout (lane words)');
  prepareGraph(first);
  lap('graph index');
  const overview = graphOverview(first, 'x');
  lap('overview');
  const packed = packOverview(overview);
  lap(`pack (${Math.round((packed.json.length + packed.columns.length) / 1024)} KB)`);
  graphWindow(first, fitWindowRequest(overview, 1200));
  lap('first window');
  return rows;
}

/** One line of a run's phases. */
export function phasesLine(rows: PhaseTimes): string {
  const wall = rows.reduce((s, r) => s + r[1], 0);
  const cpu = rows.reduce((s, r) => s + r[2], 0);
  return `${rows.map(([n, wl, cp]) => `${n} ${Math.round(wl)} ms (cpu ${Math.round(cp)})`).join('; ')}; after the read ${Math.round(wall)} ms (cpu ${Math.round(cpu)})`;
}

if (require.main === module) {
  const [file, runsArg] = process.argv.slice(2);
  const runs = Number(runsArg ?? 1);
  const r0 = performance.now();
  const loaded = readTrace(file);
  process.stdout.write(`${file}: read ${Math.round(performance.now() - r0)} ms\n`);
  for (let r = 0; r < runs; r++) process.stdout.write(`run ${r + 1}: ${phasesLine(paintPhases(loaded))}\n`);
}
