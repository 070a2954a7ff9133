/**
 * Topology guess among the survey's six forms: centralized orchestrator + sub-agents,
 * planner-executor-critic, debate/committee, parallel swarm, hierarchical, harness.
 *
 * Each form gets a score in [0, 1] from structural evidence; the best score wins, `unknown` below 0.3.
 * - harness: one acting agent (tool lanes aside) that calls tools (a coding-agent harness); lower
 *   when it also spawns sub-agents. A lone agent without tool calls fits no form (unknown).
 * - hierarchical: spawn depth >= 2, or delegation chains three agents deep.
 * - centralized (spawn depth <= 1): one hub agent takes part in nearly all hand-offs (share >= 0.85)
 *   with >= 2 other agents, or spawns every sub-agent.
 * - planner_executor_critic: agent names/roles cover planner, executor and critic/verifier families.
 * - debate: names/roles of debaters, judges, juries or voters; or >= 2 peers exchanging
 *   several rounds with no hub.
 * - swarm: >= 3 peers with no hub working in parallel (parallelism >= 1.5), or many peer pairs.
 */
import type { EventType, Topology } from '../trace/schema';
import { handoffsOf } from './handoffs';
import { grownTo } from './prefix-carry';
import type { TraceIndex } from './trace-index';
import type { Metrics, TopologyGuess } from './types';

const PLAN = /plan|architect|manager|lead|ceo|cpo|product/i;
const EXEC = /exec|act|cod(?:e|er|ing)|program|implement|engineer|worker|developer|surfer|solver|expert|assistant|writer/i;
const CRITIC = /critic|review|verif|evaluat|check|judge|valid|test|qa\b|inspect/i;
const DEBATE = /debat|propon|oppon|affirm|negat|jury|juror|committee|vote|panel|moderator/i;

/** How many distinct agents `agent` exchanged hand-offs with. O(pairs). */
function partners(pairs: ReadonlySet<string>, agent: string): number {
  let n = 0;
  for (const p of pairs) {
    const cut = p.indexOf('\u0000');
    if (p.slice(0, cut) === agent || p.slice(cut + 1) === agent) n++;
  }
  return n;
}

/**
 * Whether some delegation chain runs three agents deep (a -> b -> c, c neither a nor b): b passes work
 * on and was given work by someone other than its only target. O(pairs), not O(agents^3).
 */
function chainsThreeDeep(chains: ReadonlyMap<string, ReadonlySet<string>>, givers: ReadonlyMap<string, ReadonlySet<string>>): boolean {
  for (const [b, targets] of chains) {
    const from = givers.get(b);
    if (!from || from.size === 0) continue;
    if (targets.size >= 2) return true;
    const [only] = targets;
    for (const a of from) if (a !== only) return true;
  }
  return false;
}

/** A chat's turns, when no hand-off names its receiver: its messages, decisions and delegations (handoffs.ts). */
const CHAT_TYPES: ReadonlySet<EventType> = new Set(['message', 'orchestrator_decision', 'delegate']);

/**
 * The hand-offs between agents (those of a human left out): how many, the agent in most of them
 * (`hub`, the first to reach that count when several do) and in how many, the pairs of agents
 * (sorted, joined by U+0000), who hands to whom (`chains`) and who is handed to by whom (`givers`).
 * Counted by name number (handoffs.ts): the maps and sets are per pair, not per hand-off.
 */
function handoffSummary(index: TraceIndex, humans: readonly string[]): { handoffs: number; hub: string; hubCount: number; pairs: ReadonlySet<string>; chains: ReadonlyMap<string, ReadonlySet<string>>; givers: ReadonlyMap<string, ReadonlySet<string>> } {
  const { source, count, from, to, names } = handoffsOf(index, CHAT_TYPES);
  // a followed trace's stream grows from one analysis to the next (handoffs.ts): its tallies go on from the hand-offs counted
  const key = humans.join('\u0000');
  let tally = tallies.get(source);
  if (!tally || tally.humans !== key || tally.counted > count) tallies.set(source, (tally = new HandoffTally(key)));
  tally.count(names, humans, from, to, count);
  const { involvement, firstCounted } = tally;
  let hub = -1;
  for (let k = 0; k < tally.named; k++) {
    if (involvement[k] === 0) continue;
    if (hub === -1 || involvement[k] > involvement[hub] || (involvement[k] === involvement[hub] && firstCounted[k] < firstCounted[hub])) hub = k;
  }
  return { handoffs: tally.handoffs, hub: hub === -1 ? '' : names[hub], hubCount: hub === -1 ? 0 : involvement[hub], pairs: tally.pairs, chains: tally.chains, givers: tally.givers };
}

/** The tallies of each stream of hand-offs (by its builder, append-only), kept while it grows: counting a million hand-offs again was 5 ms of each append of a followed trace. */
const tallies = new WeakMap<object, HandoffTally>();

/** {@link handoffSummary}'s tallies of the first {@link counted} hand-offs of a stream, for one list of humans. */
class HandoffTally {
  /** Hand-offs counted (the first of the stream). */
  counted = 0;
  /** Names whose numbers the tables hold. */
  named = 0;
  handoffs = 0;
  /** Names counted so far (the order of first count: the hub is the first to reach the most). */
  private order = 0;
  human = new Uint8Array(16);
  involvement = new Int32Array(16);
  firstCounted = new Int32Array(16).fill(-1);
  private readonly seenPair = new Set<number>();
  readonly pairs = new Set<string>();
  readonly chains = new Map<string, Set<string>>();
  readonly givers = new Map<string, Set<string>>();

  constructor(readonly humans: string) {}

  /** Counts the hand-offs from {@link counted} to `count` of a stream whose names are `names`. */
  count(names: readonly string[], humans: readonly string[], from: Int32Array, to: Int32Array, count: number): void {
    this.human = grownTo(this.human, names.length, this.named, (size) => new Uint8Array(size));
    this.involvement = grownTo(this.involvement, names.length, this.named, (size) => new Int32Array(size));
    this.firstCounted = grownTo(this.firstCounted, names.length, this.named, (size) => new Int32Array(size).fill(-1));
    for (let k = this.named; k < names.length; k++) this.human[k] = humans.includes(names[k]) ? 1 : 0;
    this.named = names.length;
    const { human, involvement, firstCounted, seenPair, pairs, chains, givers } = this;
    for (let k = this.counted; k < count; k++) {
      const a = from[k];
      const b = to[k];
      if (human[a] || human[b]) continue;
      this.handoffs++;
      if (involvement[a]++ === 0) firstCounted[a] = this.order++;
      if (involvement[b]++ === 0) firstCounted[b] = this.order++;
      // (a pair's number: names stay under 2^26, their numbers never change as the stream grows)
      const pair = a * 0x4000000 + b;
      if (seenPair.has(pair)) continue;
      seenPair.add(pair);
      const [fromName, toName] = [names[a], names[b]];
      pairs.add(fromName < toName ? `${fromName}\u0000${toName}` : `${toName}\u0000${fromName}`);
      let s = chains.get(fromName);
      if (!s) chains.set(fromName, (s = new Set()));
      s.add(toName);
      let g = givers.get(toName);
      if (!g) givers.set(toName, (g = new Set()));
      g.add(fromName);
    }
    this.counted = count;
  }
}

/** Guesses the topology; `metrics` from computeMetrics. */
export function guessTopology(index: TraceIndex, metrics: Metrics): TopologyGuess {
  const scores: Record<string, number> = { centralized: 0, planner_executor_critic: 0, debate: 0, swarm: 0, hierarchical: 0, harness: 0 };
  const evidence: string[] = [];
  const acting = [...index.lanes.entries()].filter(([, lane]) => !lane.every((i) => index.types[i] === 'tool_result')).map(([a]) => a);
  const humans = acting.filter((a) => /^(human|user)$/i.test(a));
  const agents = acting.filter((a) => !humans.includes(a));

  // hand-off pairs: explicit `to`, else consecutive messages of different agents (a group chat)
  const { handoffs, hub, hubCount, pairs, chains, givers } = handoffSummary(index, humans);
  const hubShare = handoffs ? hubCount / handoffs : 0;

  if (agents.length <= 1 && metrics.tool_calls > 0) {
    scores.harness = metrics.spawns > 0 ? 0.5 : 1;
    evidence.push(`one acting agent with ${metrics.tool_calls} tool calls`);
  }


  let chainDepth = 0;
  if (index.handoffsName) {
    if (chainsThreeDeep(chains, givers)) chainDepth = 2;
  }
  if (metrics.spawn_depth >= 2) {
    scores.hierarchical = 0.9;
    evidence.push(`spawn depth ${metrics.spawn_depth}`);
  } else if (chainDepth >= 2 && hubShare < 0.8) {
    scores.hierarchical = 0.5;
    evidence.push('delegation chains three agents deep');
  }

  if (metrics.spawn_depth >= 2) {
    // a hub that spawns spawners is the top of a hierarchy, not a flat centre
  } else if (agents.length >= 3 && hubShare >= 0.85 && partners(pairs, hub) >= 2) {
    scores.centralized = Math.min(1, 0.4 + hubShare * 0.6);
    evidence.push(`hub ${hub} in ${Math.round(hubShare * 100)}% of hand-offs`);
  } else if (metrics.spawns >= 2 && metrics.spawn_depth === 1 && metrics.max_fan_out === metrics.spawns) {
    scores.centralized = 0.8;
    evidence.push(`one agent spawned all ${metrics.spawns} sub-agents`);
  } else if (agents.length >= 2 && metrics.spawns >= 1 && metrics.spawn_depth === 1) scores.centralized = 0.6;

  const names = agents.slice();
  for (let i = 0; i < Math.min(index.size, 5000); i++) {
    const role = index.roleOf(i);
    if (typeof role === 'string' && role) names.push(role);
  }
  const families = [PLAN, EXEC, CRITIC].filter((re) => names.some((x) => re.test(x))).length;
  if (agents.length >= 2 && families >= 2) {
    scores.planner_executor_critic = families === 3 ? 0.85 : 0.45;
    evidence.push(`roles cover ${families} of planner / executor / critic`);
  }

  if (names.some((x) => DEBATE.test(x))) {
    scores.debate = 0.9;
    evidence.push('debater / judge / committee roles');
  } else if (agents.length >= 2 && hubShare < 0.5 && handoffs >= 4 && pairs.size <= 3) scores.debate = 0.35;

  if (agents.length >= 3 && hubShare < 0.5 && metrics.parallelism >= 1.5) {
    scores.swarm = 0.75;
    evidence.push(`${agents.length} peers, parallelism ${metrics.parallelism}`);
  } else if (agents.length >= 4 && hubShare < 0.4 && pairs.size >= agents.length) scores.swarm = 0.5;

  let guess: Topology = 'unknown';
  let best = 0.3;
  for (const [form, s] of Object.entries(scores)) if (s > best) {
    best = s;
    guess = form as Topology;
  }
  for (const k of Object.keys(scores)) scores[k] = Math.round(scores[k] * 100) / 100;
  const result: TopologyGuess = { guess, scores, evidence };
  const declared = index.loaded.trace.topology;
  if (declared) result.declared = declared;
  return result;
}
