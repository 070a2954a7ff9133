/**
 * Message-level credit: how much each message, tool call and tool result contributed to the outcome.
 *
 * Method (outcome-anchored backward propagation on the causal graph, no model calls):
 * 1. Seeds. The outcome R (+1 success, -1 failure, 2v-1 for a reward v in [0,1]; see outcome.ts)
 *    is placed on the final answer (the last substantive output, see answer.ts), else on the last
 *    event. Every reward event adds (value - mean of its channel) on its `target` event, or on the
 *    reward event itself (which passes it on to its causes) when it has no target.
 * 2. Influence graph = the TraceIndex's causal links (explicit edges but `temporal` ones, parent, causes: weight 1;
 *    tool call -> result, spawn, return, delivery: 1; temporal edges, lane succession and implicit chat turns: 0.5)
 *    plus content links: an event that repeats salient tokens (names, figures) first introduced by
 *    an earlier event is linked to that event, weighted by the share of its tokens it took from it.
 * 3. Propagation in reverse time order (a DAG, so one pass, O(n + links)): an event keeps a share
 *    (1 - lambda) of the mass that reaches it as its credit and passes lambda to its parents in
 *    proportion to link weights; an event without parents keeps everything; stop and reward events
 *    keep nothing. Total |credit| = |R| + sum of |reward seeds|; what reaches an event that led to
 *    nothing of the outcome is zero.
 * This is a discounted, path-weighted version of the "which messages led to the answer" idea behind
 * message-level credit (the survey's 2 of 84 papers; cf. counterfactual credit in COMA, Foerster et
 * al. 2018, here replaced by the graph since a trace has one trajectory only).
 * Unknown outcome: R = +1 and the values are unsigned influence shares (`signed: false`).
 * A producer's `credit` on an event is shown as given and never overwritten.
 */
import { finalAnswer, isNotAgentOutput } from './answer';
import { OUTCOME_CHANNELS, rewardPoints } from './outcome';
import type { LinkKind, TraceIndex } from './trace-index';
import type { Credit, Outcome } from './types';

export interface CreditOptions {
  /** Share of the mass reaching an event that it passes on to its causes (default 0.5). */
  lambda?: number;
  /** Add content links (default true). */
  contentLinks?: boolean;
}

const LINK_WEIGHT: Record<LinkKind, number> = {
  edge: 1,
  parent: 1,
  causes: 1,
  tool_result: 1,
  spawn: 1,
  return: 1,
  delivery: 1,
  lane: 0.5,
  implicit: 0.5,
};

/** The raw result: per-position values, before ids and aggregates. */
export interface CreditValues {
  values: Float64Array;
  /** Position holding the outcome seed, or -1. */
  terminal: number;
}

/**
 * Content links: for each event, the earlier events that first introduced the salient tokens it
 * uses, with the share of its tokens taken from each. O(total tokens).
 */
export function contentLinks(index: TraceIndex): Map<number, Map<number, number>> {
  const introducer = new Map<string, number>();
  const out = new Map<number, Map<number, number>>();
  for (let i = 0; i < index.size; i++) {
    if (!index.content(i)) continue;
    const tokens = index.salient(i);
    const from = new Map<number, number>();
    let total = 0;
    for (const tok of tokens) {
      const u = introducer.get(tok);
      if (u === undefined) introducer.set(tok, i);
      else if (u !== i) {
        from.set(u, (from.get(u) ?? 0) + 1);
        total++;
      }
    }
    if (total > 0) {
      for (const [u, c] of from) from.set(u, c / total);
      out.set(i, from);
    }
  }
  return out;
}

/** Propagates outcome and reward seeds backwards; returns the value per position. */
export function propagateCredit(index: TraceIndex, outcome: Outcome, options: CreditOptions = {}): CreditValues {
  const n = index.size;
  const lambda = options.lambda ?? 0.5;
  const mass = new Float64Array(n);
  const values = new Float64Array(n);
  let terminal = -1;
  if (n === 0) return { values, terminal };
  const R = outcome.value ?? 1;
  const final = finalAnswer(index, 0, n - 1);
  terminal = final ? final.pos : n - 1;
  while (terminal > 0 && (index.types[terminal] === 'stop' || index.types[terminal] === 'reward') && !final) terminal--;
  mass[terminal] += R;

  const rewards = rewardPoints(index);
  const byChannel = new Map<string, number[]>();
  for (const r of rewards) {
    let list = byChannel.get(r.channel);
    if (!list) byChannel.set(r.channel, (list = []));
    list.push(r.value);
  }
  for (const r of rewards) {
    const list = byChannel.get(r.channel) ?? [];
    // An outcome-channel reward that is the trace's only one is the outcome itself, already seeded.
    if (OUTCOME_CHANNELS.has(r.channel) && list.length < 2) continue;
    const baseline = list.reduce((a, b) => a + b, 0) / list.length;
    const target = index.events[r.pos].target;
    const at = typeof target === 'string' && index.pos.has(target) ? (index.pos.get(target) as number) : r.pos;
    mass[at] += r.value - baseline;
  }

  const content = options.contentLinks === false ? new Map<number, Map<number, number>>() : contentLinks(index);
  for (let v = n - 1; v >= 0; v--) {
    const m = mass[v];
    if (m === 0) continue;
    const type = index.types[v];
    // parents with weights
    const parents = new Map<number, number>();
    for (const k of index.incoming[v]) {
      const link = index.links[k];
      const w = link.edgeType === 'temporal' ? 0.5 : LINK_WEIGHT[link.kind];
      parents.set(link.u, (parents.get(link.u) ?? 0) + w);
    }
    const fromContent = content.get(v);
    if (fromContent) for (const [u, share] of fromContent) if (u < v) parents.set(u, (parents.get(u) ?? 0) + share);
    let total = 0;
    for (const w of parents.values()) total += w;
    const passOn = type === 'stop' || type === 'reward' ? 1 : lambda;
    if (total === 0) {
      values[v] += m;
      continue;
    }
    values[v] += m * (1 - passOn);
    const pass = m * passOn;
    for (const [u, w] of parents) mass[u] += (pass * w) / total;
  }
  return { values, terminal };
}

/** Credit per event, agent and step, with producer values shown as given. */
export function computeCredit(index: TraceIndex, outcome: Outcome, options: CreditOptions = {}): { credit: Credit; values: CreditValues } {
  const values = propagateCredit(index, outcome, options);
  const events: Record<string, number> = {};
  const agents: Record<string, number> = {};
  const steps: Record<string, number> = {};
  const given: string[] = [];
  const byIndex = new Array<number>(index.size).fill(0);
  for (let i = 0; i < index.size; i++) {
    const e = index.events[i];
    let v = round(values.values[i]);
    // Rows the user or the harness wrote (local commands, meta rows, placeholders) take no credit.
    if (isNotAgentOutput(e) && e.type === 'message' && e.from !== 'user') v = 0;
    else if (e.kind === 'local_command' || e.kind === 'placeholder' || e.kind === 'missing_parent') v = 0;
    if (typeof e.credit === 'number' && Number.isFinite(e.credit)) v = e.credit;
    byIndex[index.at(i)] = v;
    if (Object.prototype.hasOwnProperty.call(events, e.id)) continue;
    if (typeof e.credit === 'number' && Number.isFinite(e.credit)) given.push(e.id);
    events[e.id] = v;
    agents[e.agent] = round((agents[e.agent] ?? 0) + v);
    const record = index.records[i];
    if (record >= 0) steps[String(record)] = round((steps[String(record)] ?? 0) + v);
  }
  const signed = outcome.value !== null;
  return {
    credit: {
      events,
      by_index: byIndex,
      agents,
      steps,
      given,
      signed,
      method: `outcome-anchored backward propagation (lambda ${options.lambda ?? 0.5}) over causal and content links; R = ${outcome.value ?? '+1 (unsigned, no outcome signal)'} from ${outcome.source}`,
    },
    values,
  };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
