/**
 * Which agent of one run is which agent of the other (issue 28), in rounds, each pairing only the
 * agents the rounds before left alone:
 * 1. `name`: the same name;
 * 2. `kind`: the same name once ids and numbers are taken out (`Explore:a93ccab` and
 *    `Explore:b1c2d3e` are both `explore:#`), or the same sub-agent type or role
 *    (`metadata.agents[name].subagent_type`, `agent_nickname`, `role`); among several, by what they
 *    were asked, then in order of their first event;
 * 3. `task`: what they were asked (the prompt they were spawned with, or the first message to
 *    them: run-summary.ts `runAgents`) in mostly the same words (content-word resemblance
 *    |A ∩ B| / |A ∪ B| >= {@link TASK_RESEMBLANCE}, Broder 1997);
 * 4. `content`: the same steps (resemblance of their sets of step fingerprints >= {@link STEP_RESEMBLANCE});
 * 5. `root`: the agents that were given the user's first prompt in each run (the main agent of a
 *    Claude Code session and of a Codex rollout); never a person's lane (`user`, `human`).
 * An agent left over is in one run only. Pure; rounds 3 and 4 compare every pair of the agents left
 * (skipped past {@link MAX_PAIRS} pairs).
 */
import { contentWords, resemblance } from '../text';

/** How two agents were paired (see the module comment). */
export type PairedBy = 'name' | 'kind' | 'task' | 'content' | 'root';

/** An agent (lane) of a run as the pairing reads it. */
export interface LaneInfo {
  name: string;
  /** Its sub-agent type or role, when the trace records one. */
  kind: string | null;
  /** What it was asked, when found. */
  task: string | null;
  /** Its steps' fingerprints (fingerprints.ts), for round 4. */
  steps: ArrayLike<number>;
  /** True for the agent whose lane holds the run's first prompt of a user (round 5). */
  prompted: boolean;
}

/** Two agents paired, or one agent of one run only (the other side null). */
export interface AgentPairing {
  a: string | null;
  b: string | null;
  /** How they were paired; null for an agent of one run only. */
  by: PairedBy | null;
}

/** Least task resemblance for round 3. */
export const TASK_RESEMBLANCE = 0.5;
/** Least step resemblance for round 4. */
export const STEP_RESEMBLANCE = 0.3;
/** Most agent pairs compared in rounds 3 and 4. */
const MAX_PAIRS = 250_000;

/**
 * Pairs the agents of two runs (see the module comment).
 * @param a the first run's agents, in order of their first event; `b` the second's.
 * @returns every agent once: the pairs in the order of the first run's agents, then the second run's agents of no pair.
 */
export function pairAgents(a: readonly LaneInfo[], b: readonly LaneInfo[]): AgentPairing[] {
  const partnerA = new Map<number, { b: number; by: PairedBy }>();
  const takenB = new Set<number>();
  const join = (i: number, j: number, by: PairedBy) => {
    partnerA.set(i, { b: j, by });
    takenB.add(j);
  };
  const freeA = () => a.map((_, i) => i).filter((i) => !partnerA.has(i));
  const freeB = () => b.map((_, j) => j).filter((j) => !takenB.has(j));

  const byName = new Map<string, number>();
  b.forEach((l, j) => byName.has(l.name) || byName.set(l.name, j));
  a.forEach((l, i) => {
    const j = byName.get(l.name);
    if (j !== undefined && !takenB.has(j)) join(i, j, 'name');
  });

  const words = new Map<LaneInfo, Set<string>>();
  const taskWords = (l: LaneInfo) => {
    let w = words.get(l);
    if (!w) words.set(l, (w = l.task ? contentWords(l.task) : new Set()));
    return w;
  };
  const taskScore = (i: number, j: number) => resemblance(taskWords(a[i]), taskWords(b[j]));

  for (const key of [(l: LaneInfo) => nameKind(l.name), (l: LaneInfo) => (l.kind ? `kind:${l.kind.toLowerCase()}` : undefined)]) {
    const groups = new Map<string, { as: number[]; bs: number[] }>();
    for (const i of freeA()) {
      const k = key(a[i]);
      if (k === undefined) continue;
      if (!groups.has(k)) groups.set(k, { as: [], bs: [] });
      groups.get(k)!.as.push(i);
    }
    for (const j of freeB()) {
      const g = groups.get(key(b[j]) ?? '\u0000');
      if (g) g.bs.push(j);
    }
    for (const g of groups.values()) {
      // by what they were asked, then in order: the k-th with the k-th
      greedy(g.as, g.bs, (i, j) => taskScore(i, j) - 1e-9 * Math.abs(g.as.indexOf(i) - g.bs.indexOf(j)), -Infinity, (i, j) => join(i, j, 'kind'));
    }
  }

  let as = freeA();
  let bs = freeB();
  if (as.length * bs.length <= MAX_PAIRS) {
    greedy(as, bs, taskScore, TASK_RESEMBLANCE, (i, j) => join(i, j, 'task'));
    as = freeA();
    bs = freeB();
    const sets = new Map<LaneInfo, Set<number>>();
    const stepSet = (l: LaneInfo) => {
      let s = sets.get(l);
      if (!s) sets.set(l, (s = new Set(Array.from(l.steps))));
      return s;
    };
    greedy(as, bs, (i, j) => setResemblance(stepSet(a[i]), stepSet(b[j])), STEP_RESEMBLANCE, (i, j) => join(i, j, 'content'));
  }

  const rootA = a.findIndex((l) => l.prompted);
  const rootB = b.findIndex((l) => l.prompted);
  if (rootA !== -1 && rootB !== -1 && !partnerA.has(rootA) && !takenB.has(rootB)) join(rootA, rootB, 'root');

  const out: AgentPairing[] = a.map((l, i) => {
    const p = partnerA.get(i);
    return p ? { a: l.name, b: b[p.b].name, by: p.by } : { a: l.name, b: null, by: null };
  });
  b.forEach((l, j) => takenB.has(j) || out.push({ a: null, b: l.name, by: null }));
  return out;
}

/** An agent's name with ids and numbers taken out (`Explore:a93ccab` -> `explore:#`); undefined when it has none. */
export function nameKind(name: string): string | undefined {
  const lower = name.toLowerCase();
  const kind = lower.replace(/[0-9a-f]*\d[0-9a-f]*/g, '#');
  return kind === lower ? undefined : `name:${kind}`;
}

/** Pairs the best-scoring first (score >= `least`), each index once; ties in the order given. */
function greedy(as: number[], bs: number[], score: (i: number, j: number) => number, least: number, join: (i: number, j: number) => void): void {
  if (as.length === 0 || bs.length === 0) return;
  const cands: { i: number; j: number; s: number; k: number }[] = [];
  for (const i of as) for (const j of bs) {
    const s = score(i, j);
    if (s >= least) cands.push({ i, j, s, k: cands.length });
  }
  cands.sort((x, y) => y.s - x.s || x.k - y.k);
  const usedA = new Set<number>();
  const usedB = new Set<number>();
  for (const c of cands) {
    if (usedA.has(c.i) || usedB.has(c.j)) continue;
    usedA.add(c.i);
    usedB.add(c.j);
    join(c.i, c.j);
  }
}

function setResemblance(x: Set<number>, y: Set<number>): number {
  if (x.size === 0 && y.size === 0) return 0;
  const [small, large] = x.size <= y.size ? [x, y] : [y, x];
  let inter = 0;
  for (const v of small) if (large.has(v)) inter++;
  return inter / (x.size + y.size - inter);
}
