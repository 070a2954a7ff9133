/**
 * Two runs aligned (issue 28): their agents paired (pairing.ts), each pair of lanes' steps told
 * apart (lane-diff.ts), and every difference placed in run order. Run order is A's time order; an
 * event only in B is placed right after the last A event aligned with a B event before it, so
 * "the first divergence" is the first place where the runs stop doing the same steps.
 *
 * Cost: O(n log n) for the time orders, then the fingerprints (linear in the content read) and the
 * lanes' alignment (align.ts: near-linear in practice, O(n × 32) at worst past its budget).
 */
import type { LoadedTrace } from '../../trace/model';
import { canonicalType, NOT_AGENT_OUTPUT_KINDS } from '../../trace/schema';
import { runAgents } from '../run-summary';
import { Aligner } from './align';
import { gather, Interner, runEvents, withTargets, type RunEvents } from './fingerprints';
import { diffLanes, STEP, type LaneDiff } from './lane-diff';
import { pairAgents, type AgentPairing, type LaneInfo } from './pairing';
import type { Difference, DifferenceKind } from './types';

/** Two runs aligned: both runs' events, the agent pairs, and per pair its lanes told apart. */
export interface RunAlignment {
  a: RunEvents;
  b: RunEvents;
  pairs: AgentPairing[];
  /** Per pair: the lanes' ranks (null for an agent of one run only) and their steps told apart (null unless both lanes are there). */
  lanes: { a: Int32Array | null; b: Int32Array | null; diff: LaneDiff | null }[];
  /** Every difference in run order (see the module comment). */
  differences: Difference[];
  /** Events that are the same step in both runs. */
  same: number;
  /** Per A event index: the index of the B event it is paired with (the same step, changed or moved), else -1. */
  partnerOfA: Int32Array;
  /** Per B event index: the index of its A partner, else -1. */
  partnerOfB: Int32Array;
}

/** Sub-agent type or role of an agent, as the trace's metadata records it (Claude Code, Codex, Kimi). */
function agentKind(loaded: LoadedTrace, name: string): string | null {
  const agents = (loaded.trace.metadata as { agents?: unknown } | undefined)?.agents;
  if (!agents || typeof agents !== 'object' || !Object.prototype.hasOwnProperty.call(agents, name)) return null;
  const meta = (agents as Record<string, unknown>)[name];
  if (!meta || typeof meta !== 'object') return null;
  for (const k of ['subagent_type', 'agent_nickname', 'role']) {
    const v = (meta as Record<string, unknown>)[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return null;
}

/** Senders that are a person, not an agent. */
const PEOPLE = new Set(['user', 'human']);

/** The agent whose lane holds the run's first message from a user (not a person's own lane), if any. */
function promptedAgent(run: RunEvents): string | undefined {
  const events = run.loaded.trace.events;
  for (let r = 0; r < run.order.length; r++) {
    const e = events[run.order[r]];
    if (canonicalType(e.type) !== 'message' || PEOPLE.has(e.agent.toLowerCase()) || (e.kind !== undefined && NOT_AGENT_OUTPUT_KINDS.has(e.kind))) continue;
    if (PEOPLE.has(String(e.from ?? '').toLowerCase()) || PEOPLE.has(String(e.role ?? '').toLowerCase())) return e.agent;
  }
  return undefined;
}

/**
 * The lanes of a run as the pairing reads them. What they were asked (run-summary.ts `runAgents`, a
 * pass over the run) and their steps are read only when the pairing asks: agents that pair by name
 * need neither.
 */
function laneInfos(run: RunEvents): LaneInfo[] {
  let tasks: Map<string, string | null> | undefined;
  const taskOf = (name: string) => (tasks ??= new Map(runAgents(run.loaded).map((a) => [a.name, a.task]))).get(name) ?? null;
  const prompted = promptedAgent(run);
  return [...run.lanes].map(([name, ranks]) => ({
    prompted: name === prompted,
    name,
    kind: agentKind(run.loaded, name),
    get task() {
      return taskOf(name);
    },
    get steps() {
      return gather(run.fingerprints, ranks);
    },
  }));
}

/**
 * Aligns two runs (see the module comment). Never throws on odd content; an empty run gives every
 * event of the other as a difference.
 * @param interner numbers shared with other runs compared with these (a group of runs); a new one by default.
 */
export function alignRuns(loadedA: LoadedTrace, loadedB: LoadedTrace, interner = new Interner()): RunAlignment {
  const a = runEvents(loadedA, interner);
  const b = runEvents(loadedB, interner);
  const pairs = pairAgents(laneInfos(a), laneInfos(b));
  const pairOfA = new Map<string, number>();
  const pairOfB = new Map<string, number>();
  pairs.forEach((p, k) => {
    if (p.a !== null) pairOfA.set(p.a, k);
    if (p.b !== null) pairOfB.set(p.b, k);
  });
  const fpA = withTargets(a, (agent) => pairOfA.get(agent), interner);
  const fpB = withTargets(b, (agent) => pairOfB.get(agent), interner);
  const aligner = new Aligner(interner.size, a.order.length + b.order.length);

  const nA = a.order.length;
  const nB = b.order.length;
  // per rank: how the event relates to the other run, its partner's rank, its pair
  const kindA = new Uint8Array(nA);
  const kindB = new Uint8Array(nB);
  const partnerA = new Int32Array(nA).fill(-1);
  const partnerB = new Int32Array(nB).fill(-1);
  const pairA = new Int32Array(nA);
  const pairB = new Int32Array(nB);
  let same = 0;
  const SAME = STEP.same;
  const lanes = pairs.map((p, k) => {
    const la = p.a === null ? null : a.lanes.get(p.a)!;
    const lb = p.b === null ? null : b.lanes.get(p.b)!;
    if (la) for (let i = 0; i < la.length; i++) pairA[la[i]] = k;
    if (lb) for (let j = 0; j < lb.length; j++) pairB[lb[j]] = k;
    if (!la || !lb) return { a: la, b: lb, diff: null };
    const diff = diffLanes(aligner, gather(fpA, la), gather(fpB, lb), gather(a.shapes, la), gather(b.shapes, lb));
    for (let i = 0; i < la.length; i++) {
      kindA[la[i]] = diff.kindA[i];
      if (diff.matchA[i] !== -1) partnerA[la[i]] = lb[diff.matchA[i]];
      if (diff.kindA[i] === SAME) same++;
    }
    for (let j = 0; j < lb.length; j++) {
      kindB[lb[j]] = diff.kindB[j];
      if (diff.matchB[j] !== -1) partnerB[lb[j]] = la[diff.matchB[j]];
    }
    return { a: la, b: lb, diff };
  });

  const differences = ordered(a, b, { kindA, kindB, partnerA, partnerB, pairA, pairB });
  const partnerOfA = new Int32Array(nA).fill(-1);
  const partnerOfB = new Int32Array(nB).fill(-1);
  for (let r = 0; r < nA; r++) if (partnerA[r] !== -1) partnerOfA[a.order[r]] = b.order[partnerA[r]];
  for (let s = 0; s < nB; s++) if (partnerB[s] !== -1) partnerOfB[b.order[s]] = a.order[partnerB[s]];
  return { a, b, pairs, lanes, differences, same, partnerOfA, partnerOfB };
}

/** The differences in run order (see the module comment). */
function ordered(a: RunEvents, b: RunEvents, x: { kindA: Uint8Array; kindB: Uint8Array; partnerA: Int32Array; partnerB: Int32Array; pairA: Int32Array; pairB: Int32Array }): Difference[] {
  const nA = a.order.length;
  const nB = b.order.length;
  // the rank of the last A event aligned (the same step) with a B event before each B rank
  const { only, same, changed, moved } = STEP;
  const before = new Float64Array(nB);
  let last = -1;
  for (let s = 0; s < nB; s++) {
    before[s] = last;
    if (x.kindB[s] === same) last = x.partnerB[s];
  }
  const found: { kind: DifferenceKind; r: number; s: number; key: number }[] = [];
  for (let r = 0; r < nA; r++) {
    const kind = x.kindA[r];
    if (kind === only) found.push({ kind: 'only_in_a', r, s: -1, key: r });
    else if (kind === changed) found.push({ kind: 'changed', r, s: x.partnerA[r], key: r });
    else if (kind === moved) found.push({ kind: 'moved', r, s: x.partnerA[r], key: Math.min(r, before[x.partnerA[r]] + 0.5) });
  }
  for (let s = 0; s < nB; s++) if (x.kindB[s] === only) found.push({ kind: 'only_in_b', r: -1, s, key: before[s] + 0.5 });
  found.sort((p, q) => p.key - q.key || p.s - q.s || p.r - q.r);
  const eventsA = a.loaded.trace.events;
  const eventsB = b.loaded.trace.events;
  return found.map(({ kind, r, s, key }) => {
    const ia = r === -1 ? null : a.order[r];
    const ib = s === -1 ? null : b.order[s];
    return { kind, a: ia === null ? null : eventsA[ia].id, b: ib === null ? null : eventsB[ib].id, a_index: ia, b_index: ib, agents: r !== -1 ? x.pairA[r] : x.pairB[s], at: key };
  });
}
