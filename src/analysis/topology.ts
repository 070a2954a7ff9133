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
import type { Topology } from '../trace/schema';
import type { TraceIndex } from './trace-index';
import type { Metrics, TopologyGuess } from './types';

const PLAN = /plan|architect|manager|lead|ceo|cpo|product/i;
const EXEC = /exec|act|cod(?:e|er|ing)|program|implement|engineer|worker|developer|surfer|solver|expert|assistant|writer/i;
const CRITIC = /critic|review|verif|evaluat|check|judge|valid|test|qa\b|inspect/i;
const DEBATE = /debat|propon|oppon|affirm|negat|jury|juror|committee|vote|panel|moderator/i;

/** How many distinct agents `agent` exchanged hand-offs with. O(pairs). */
function partners(pairs: Set<string>, agent: string): number {
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
function chainsThreeDeep(chains: Map<string, Set<string>>, givers: Map<string, Set<string>>): boolean {
  for (const [b, targets] of chains) {
    const from = givers.get(b);
    if (!from || from.size === 0) continue;
    if (targets.size >= 2) return true;
    const [only] = targets;
    for (const a of from) if (a !== only) return true;
  }
  return false;
}

/** Guesses the topology; `metrics` from computeMetrics. */
export function guessTopology(index: TraceIndex, metrics: Metrics): TopologyGuess {
  const scores: Record<string, number> = { centralized: 0, planner_executor_critic: 0, debate: 0, swarm: 0, hierarchical: 0, harness: 0 };
  const evidence: string[] = [];
  const acting = [...index.lanes.entries()].filter(([, lane]) => !lane.every((i) => index.types[i] === 'tool_result')).map(([a]) => a);
  const humans = acting.filter((a) => /^(human|user)$/i.test(a));
  const agents = acting.filter((a) => !humans.includes(a));

  // hand-off pairs: explicit `to`, else consecutive messages of different agents (a group chat)
  const involvement = new Map<string, number>();
  const pairs = new Set<string>();
  const chains = new Map<string, Set<string>>();
  const givers = new Map<string, Set<string>>();
  let handoffs = 0;
  const anyTo = index.handoffsName;
  const note = (from: string, to: string) => {
    if (humans.includes(from) || humans.includes(to)) return;
    handoffs++;
    involvement.set(from, (involvement.get(from) ?? 0) + 1);
    involvement.set(to, (involvement.get(to) ?? 0) + 1);
    let s = chains.get(from);
    if (!s) chains.set(from, (s = new Set()));
    if (s.has(to)) return; // a pair seen before: its key is made once
    pairs.add(from < to ? `${from}\u0000${to}` : `${to}\u0000${from}`); // the pair in sorted order
    s.add(to);
    let g = givers.get(to);
    if (!g) givers.set(to, (g = new Set()));
    g.add(from);
  };
  if (anyTo) {
    for (let i = 0; i < index.size; i++) {
      const to = index.receiver(i);
      if (index.isHandoff(i) && to) note(index.events[i].from ?? index.events[i].agent, to);
    }
  } else {
    let prev = -1;
    for (let i = 0; i < index.size; i++) {
      if (index.types[i] !== 'message' && index.types[i] !== 'orchestrator_decision' && index.types[i] !== 'delegate') continue;
      if (prev !== -1 && index.events[prev].agent !== index.events[i].agent) note(index.events[prev].agent, index.events[i].agent);
      prev = i;
    }
  }
  let hub = '';
  let hubCount = 0;
  for (const [a, c] of involvement) if (c > hubCount) {
    hub = a;
    hubCount = c;
  }
  const hubShare = handoffs ? hubCount / handoffs : 0;

  if (agents.length <= 1 && metrics.tool_calls > 0) {
    scores.harness = metrics.spawns > 0 ? 0.5 : 1;
    evidence.push(`one acting agent with ${metrics.tool_calls} tool calls`);
  }


  let chainDepth = 0;
  if (anyTo) {
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

  const names = agents.map((a) => a).concat(index.events.slice(0, 5000).map((e) => (typeof e.role === 'string' ? e.role : '')).filter(Boolean));
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
