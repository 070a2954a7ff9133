/**
 * Many runs of one task (an RL batch, a retry series: issue 28) grouped by where they leave a
 * reference run and with what step: runs that leave it at the same place with the same step are one
 * cluster, and runs that do its steps throughout are its own cluster. Each cluster says how its
 * runs ended and with what outcome, so that a user sees which choice led where.
 *
 * The reference is the run most like the others (the largest sum of steps done alike before the
 * first divergence, over every pair) when there are at most {@link MEDOID_RUNS} runs of at most
 * {@link MEDOID_EVENTS} events in all; else the first run. Pure; each comparison is align-runs.ts.
 */
import { runEnd } from '../run-summary';
import { alignRuns } from './align-runs';
import { Interner } from './fingerprints';
import type { ComparedRun } from './compare-runs';
import type { Difference } from './types';
import { endedWords as stopEndedWords } from '../../shared/stop-words';

/** Most runs for which the reference is chosen by comparing every pair. */
export const MEDOID_RUNS = 16;
/** Most events (all runs together) for which the reference is chosen by comparing every pair. */
export const MEDOID_EVENTS = 200_000;

/** A run of the group: a name for people (its path) and the run. */
export interface GroupRun extends ComparedRun {
  name: string;
}

/** Runs that leave the reference at the same place with the same step. */
export interface RunCluster {
  /** Names of its runs, in the order given. */
  runs: string[];
  /** Where they leave the reference: its first difference with the cluster's first run; null when they do the reference's steps throughout. */
  divergence: Difference | null;
  /** How its runs ended (`turn ended (handed back)`, `stopped (max turns)`, `no stop at its end`) -> how many. */
  ended: Record<string, number>;
  /** Their recorded outcomes (`success`, `failure`, `partial`, `not recorded`) -> how many. */
  outcomes: Record<string, number>;
}

/** A group of runs clustered (see the module comment). */
export interface RunGroups {
  /** Name of the reference run. */
  reference: string;
  /** How it was chosen. */
  reference_basis: 'most like the others' | 'first run';
  runs: number;
  /** The reference's cluster first, then by where they leave it (earliest first), then by size. */
  clusters: RunCluster[];
}


/** How a run ended, in words (see {@link RunCluster.ended}). */
function endedWords(run: ComparedRun): { ended: string; outcome: string } {
  const s = runEnd(run.loaded, run.analysis);
  const e = s.ended;
  const ended = !e ? 'no events' : !e.recorded ? 'no stop at its end' : stopEndedWords(e.scope, e.reason);
  return { ended, outcome: s.outcome?.status ?? 'not recorded' };
}

/** Groups runs of one task (see the module comment). Never throws on odd content; no runs give no clusters. */
export function groupRuns(runs: readonly GroupRun[]): RunGroups {
  if (runs.length === 0) return { reference: '', reference_basis: 'first run', runs: 0, clusters: [] };
  const interner = new Interner();
  let ref = 0;
  let basis: RunGroups['reference_basis'] = 'first run';
  const total = runs.reduce((n, r) => n + r.loaded.trace.events.length, 0);
  if (runs.length > 2 && runs.length <= MEDOID_RUNS && total <= MEDOID_EVENTS) {
    const alike = new Float64Array(runs.length);
    for (let i = 0; i < runs.length; i++) {
      for (let j = i + 1; j < runs.length; j++) {
        const first = alignRuns(runs[i].loaded, runs[j].loaded, interner).differences[0];
        const k = first ? Math.max(0, first.at) : runs[i].loaded.trace.events.length;
        alike[i] += k;
        alike[j] += k;
      }
    }
    ref = alike.indexOf(Math.max(...alike));
    basis = 'most like the others';
  }
  const clusters = new Map<string, RunCluster>();
  const add = (key: string, run: GroupRun, divergence: Difference | null) => {
    let c = clusters.get(key);
    if (!c) clusters.set(key, (c = { runs: [], divergence, ended: {}, outcomes: {} }));
    c.runs.push(run.name);
    const { ended, outcome } = endedWords(run);
    c.ended[ended] = (c.ended[ended] ?? 0) + 1;
    c.outcomes[outcome] = (c.outcomes[outcome] ?? 0) + 1;
  };
  add('same', runs[ref], null);
  runs.forEach((run, k) => {
    if (k === ref) return;
    const al = alignRuns(runs[ref].loaded, run.loaded, interner);
    const d = al.differences[0];
    if (!d) return add('same', run, null);
    // the same place in the reference, and the same step of this run there (its fingerprint), or none
    const step = d.b_index === null ? 'none' : String(al.b.fingerprints[al.b.rank[d.b_index]]);
    add(`${d.kind}|${d.at}|${step}`, run, d);
  });
  const ordered = [...clusters.values()].sort((x, y) => (x.divergence === null ? -1 : y.divergence === null ? 1 : x.divergence.at - y.divergence.at || y.runs.length - x.runs.length));
  return { reference: runs[ref].name, reference_basis: basis, runs: runs.length, clusters: ordered };
}


