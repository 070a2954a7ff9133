/**
 * The comparison of two runs (issue 28) as `otrace diff` and the paired graph show it: where they
 * diverge first, how each ended and with what outcome, per agent pair what changed (events, tool
 * calls, failed calls, tokens by kind, time) and which findings one run has alone. The alignment is
 * align-runs.ts; the stops, outcomes and findings are each run's own analysis (src/analysis), read
 * as they are.
 */
import type { LoadedTrace } from '../../trace/model';
import { timeUnitOf } from '../../trace/units';
import { runEnd } from '../run-summary';
import type { Analysis } from '../types';
import { alignRuns, type RunAlignment } from './align-runs';
import { findingsOnOneSide } from './finding-diff';
import { gather, type Interner } from './fingerprints';
import { STEP } from './lane-diff';
import { laneDeltas, laneStats } from './lane-stats';
import type { AgentComparison, RunComparison, RunSide } from './types';

/** A run to compare: the trace and its analysis (`analyzeTrace`). */
export interface ComparedRun {
  loaded: LoadedTrace;
  analysis: Analysis;
}

/**
 * Compares run A with run B (see {@link RunComparison}). Never throws on odd content.
 * @param interner shared with other comparisons of the same runs (a group), if any.
 */
export function compareRuns(a: ComparedRun, b: ComparedRun, interner?: Interner): RunComparison {
  return comparison(a, b, alignRuns(a.loaded, b.loaded, interner));
}

/** The comparison from an alignment already made (`alignRuns` on the same traces). */
export function comparison(a: ComparedRun, b: ComparedRun, al: RunAlignment): RunComparison {
  const units = { a: timeUnitOf(a.loaded), b: timeUnitOf(b.loaded) };
  const eventsA = a.loaded.trace.events;
  const eventsB = b.loaded.trace.events;
  const agents: AgentComparison[] = al.pairs.map((p, k) => {
    const lane = al.lanes[k];
    const aStats = lane.a ? laneStats(eventsA, gather(al.a.order, lane.a)) : null;
    const bStats = lane.b ? laneStats(eventsB, gather(al.b.order, lane.b)) : null;
    const counts = { only_in_a: 0, only_in_b: 0, changed: 0, moved: 0 };
    let aligned: () => [number, number][] = () => [];
    if (lane.diff && lane.a && lane.b) {
      const { kindA, kindB, matchA } = lane.diff;
      const { only, changed, moved } = STEP;
      for (let i = 0; i < kindA.length; i++) {
        if (kindA[i] === only) counts.only_in_a++;
        else if (kindA[i] === changed) counts.changed++;
        else if (kindA[i] === moved) counts.moved++;
      }
      for (let j = 0; j < kindB.length; j++) if (kindB[j] === only) counts.only_in_b++;
      aligned = alignedPairs(lane.a, lane.b, kindA, matchA, al.a.order, al.b.order);
    } else {
      counts.only_in_a = lane.a?.length ?? 0;
      counts.only_in_b = lane.b?.length ?? 0;
    }
    const out = { a: p.a, b: p.b, paired_by: p.by, a_stats: aStats, b_stats: bStats, deltas: laneDeltas(aStats, bStats, units) } as AgentComparison;
    lazy(out, 'aligned', aligned);
    return Object.assign(out, counts);
  });
  const d = al.differences;
  return {
    a: side(a, units.a),
    b: side(b, units.b),
    first_divergence: d[0] ?? null,
    agents,
    only_in_a: d.filter((x) => x.kind === 'only_in_a').map((x) => x.a!),
    only_in_b: d.filter((x) => x.kind === 'only_in_b').map((x) => x.b!),
    changed: d.filter((x) => x.kind === 'changed').map((x) => [x.a!, x.b!]),
    moved: d.filter((x) => x.kind === 'moved').map((x) => [x.a!, x.b!]),
    differences: d,
    same: al.same,
    findings: findingsOnOneSide(a.analysis.findings, b.analysis.findings, (i) => al.partnerOfA[i] ?? -1),
  };
}

/**
 * The same steps of a lane pair as pairs of event indexes [A, B], in lane order: made from the
 * alignment's typed arrays when first read: a caller that reads only the counts or one pair's
 * pairs never makes the others (a million small arrays for two 1M-event runs).
 */
function alignedPairs(laneA: Int32Array, laneB: Int32Array, kindA: Uint8Array, matchA: Int32Array, orderA: Int32Array, orderB: Int32Array): () => [number, number][] {
  return () => {
    const SAME = STEP.same;
    let same = 0;
    for (let i = 0; i < kindA.length; i++) if (kindA[i] === SAME) same++;
    const pairs = new Array<[number, number]>(same);
    for (let i = 0, k = 0; i < kindA.length; i++) if (kindA[i] === SAME) pairs[k++] = [orderA[laneA[i]], orderB[laneB[matchA[i]]]];
    return pairs;
  };
}

/**
 * Defines `key` of `target` as an enumerable property computed by `make` when first read (then a
 * plain value): JSON, spreading and structured cloning see it as any other property.
 */
function lazy<T extends object, K extends keyof T>(target: T, key: K, make: () => T[K]): void {
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value = make();
      Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
      return value;
    },
    set(value: T[K]) {
      Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
    },
  });
}

function side(run: ComparedRun, unit: RunSide['time_unit']): RunSide {
  const s = runEnd(run.loaded, run.analysis);
  return { format: run.loaded.format, events: run.loaded.trace.events.length, time_unit: unit, task: s.task, ended: s.ended, outcome: s.outcome };
}
