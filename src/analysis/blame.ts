/**
 * Blame: the decisive error step of a failed trace and the agent responsible (no model calls).
 *
 * Tried in order (docs/analysis.md §4):
 * 1. a run whose failure signal is an error stop failed where the error happened: the first agent
 *    output whose own tool call failed;
 * 2. contrary input: the earliest output on the final answer's derivation (the values it carries and
 *    those it was computed from, derivation.ts) that passed on a value contrary to what its own
 *    inputs gave (support.ts);
 * 3. evidence: the step the fitted model (blame-evidence.ts, blame-model.ts) finds most likely,
 *    and its agent (each agent's share, the sum over its steps, is in the message);
 * 4. no agent step after the task statement to weigh: the first agent output whose tool call failed.
 * Tool output is never blamed: a fact it brought is charged to the call that asked for it.
 */
import { finalAnswer } from './answer';
import { EVIDENCE_FEATURES, stepEvidence, taskStatement, type EvidenceContext, type EvidenceFeature, type StepEvidence } from './blame-evidence';
import { BLAME_WEIGHTS, scoreSteps } from './blame-model';
import { ValueReader, type SupportOptions } from './support';
import { MAX_LEVELS, answerDerivation, entered } from './derivation';
import { ERROR_TEXT, canonicalValue, salientTokens } from './text';
import type { TraceIndex } from './trace-index';
import { countsSteps } from '../trace/model';
import type { Blame, Outcome } from './types';

/**
 * How often the contrary-input rule (2. in the module's comment) named the labelled decisive step and
 * agent of the Who&When runs it decided when it was the only rule (`npm run eval`, "Ablation", the
 * row `contrary_input`, columns "fires alone on", "step acc alone", "agent acc alone": 3 and 8 of 10
 * on 2026-12-05, after dates and times stopped being values; 4 and 9 of 11 before). A value that differs from an input is often another fact (a year the task named
 * beside the year an agent looked up), not a misreading: the message says how often the rule was right.
 */
export const CONTRARY_INPUT_RECORD = { runs: 10, step: 3, agent: 8 } as const;

/** Types through which an agent passes a value on to others (not its code: a tool call is an action). */
const PASSES_ON = new Set(['message', 'delegate', 'aggregate', 'return', 'orchestrator_decision', 'stop']);
const AGENT_TYPES = new Set(['message', 'delegate', 'aggregate', 'return', 'orchestrator_decision', 'tool_call', 'spawn', 'stop']);

/**
 * True for positions an agent can be blamed for (its own output, not tool output, not the task
 * statement). `needsContent` false: a tool call counts without recorded arguments (it was an action
 * and it failed).
 */
export function blameable(index: TraceIndex, i: number, tools: ReadonlySet<string>, task: number, needsContent = true): boolean {
  if (i === task) return false;
  const type = index.types[i];
  if (!AGENT_TYPES.has(type)) return false;
  if (tools.has(index.agentOf(i))) return false;
  if (index.notAgentOutput(i)) return false; // a user, harness or placeholder row
  const kind = index.kindOf(i);
  if (kind === 'interruption' || kind === 'api_error' || index.callStatusOf(i) === 'denied') return false; // the user's or the API's doing
  if (!needsContent && type === 'tool_call') return true;
  return index.content(i).replace(/\bTERMINATE\b/g, '').trim().length > 0;
}

/** The agent output responsible for position i: itself, or for tool output the call/message that asked for it. */
export function responsible(index: TraceIndex, i: number, tools: ReadonlySet<string>, task: number, needsContent = true): number {
  if (blameable(index, i, tools, task, needsContent)) return i;
  const call = index.callOf(i);
  if (call >= 0 && blameable(index, call, tools, task, needsContent)) return call;
  const agent = index.agentOf(i);
  for (let k = i - 1; k >= 0; k--) if (index.agentOf(k) !== agent && blameable(index, k, tools, task, needsContent)) return k;
  return -1;
}

/** True when a tool result reports a failure: it records one (recorded-failure.ts: an error status, `is_error`, a non-zero `exit_code`) or its content reads as an error ({@link ERROR_TEXT}). */
export function reportsError(index: TraceIndex, r: number): boolean {
  return index.failureRecorded(r) || ERROR_TEXT.test(index.content(r).slice(0, 2000));
}

/** The first agent output whose direct consequence is an error (its tool result reports one), with that result; undefined when none. */
function firstFailedCall(index: TraceIndex, tools: ReadonlySet<string>, task: number): { pos: number; result: number } | undefined {
  for (let i = 0; i < index.size; i++) {
    if (!blameable(index, i, tools, task, false)) continue;
    const r = index.resultOf(i);
    if (r !== -1 && reportsError(index, r)) return { pos: i, result: r };
  }
  return undefined;
}

/** What blame reads of a run before any rule: its task statement, the facts the task gave, its final answer, and which positions are agent steps. */
function blameContext(index: TraceIndex): EvidenceContext {
  const { task, given } = taskStatement(index);
  const tools = index.toolLanes;
  return {
    task,
    given,
    final: finalAnswer(index, 0, index.size - 1),
    // a tool call is a step even without recorded arguments: the agent chose to run it, and the facts its result brought are charged to it
    blameable: (i) => blameable(index, i, tools, task, false),
    responsible: (i) => responsible(index, i, tools, task, false),
  };
}

/** The agent steps of a run with their evidence (blame-evidence.ts), as the evidence rule reads them. */
export function blameSteps(index: TraceIndex, ctx: EvidenceContext = blameContext(index)): StepEvidence[] {
  return stepEvidence(index, ctx);
}

/** The blame rules, in the order they are tried (each is a `Blame['basis']`). */
export type BlameRule = Blame['basis'];
export const BLAME_RULES: readonly BlameRule[] = ['contrary_input', 'evidence', 'error'];

/** Options of {@link findBlame}: what `npm run eval` varies. */
export interface BlameOptions {
  /** The rules to try, in {@link BLAME_RULES} order (all by default; the evaluation ablates them). */
  rules?: readonly BlameRule[];
  /** The value slot of the contrary-input rule (support.ts defaults; the evaluation cross-validates them). */
  support?: SupportOptions;
  /** The evidence model's weights (blame-model.ts `BLAME_WEIGHTS` by default; the evaluation refits them per fold). */
  weights?: readonly number[];
  /** False: the contrary-input rule looks only where the answer's own values entered, not the values it was computed from (derivation.ts; the evaluation's ablation). Default true. */
  derivation?: boolean;
}

/**
 * The decisive error of a failed trace, or null when the trace did not fail (by its own signal) or
 * no agent output can be blamed (a run of tool output only, or without content).
 */
export function findBlame(index: TraceIndex, outcome: Outcome, options: BlameOptions = {}): Blame | null {
  const { rules = BLAME_RULES, support, weights = BLAME_WEIGHTS, derivation = true } = options;
  const on = new Set(rules);
  const failed = outcome.status === 'failure' || (outcome.status === 'partial' && (outcome.value ?? 0) < 0);
  if (!failed || index.size === 0) return null;
  // A run that failed because the API failed (a synthetic API-error stop) failed through no agent's output.
  if (outcome.notAgentFailure) return null;
  const tools = index.toolLanes;
  const ctx = blameContext(index);
  const { task, given, final } = ctx;
  // a trace without a clock counts steps in t (Who&When, MAST AG2): "step 12", not "t=12"
  const stepTime = countsSteps(index.loaded);
  const make = (pos: number, basis: Blame['basis'], why: string): Blame => {
    const e = index.event(pos);
    // named by what it was (`tool_call send_email`), its time and its id: an id alone (a span's hex) says nothing
    const what = `${e.type}${e.tool ? ` ${e.tool}` : ''}`;
    // the finding's label ("decisive error") heads every view of it, so the message does not repeat it
    return { agent: e.agent, event: e.id, index: index.at(pos), record: index.record(pos), basis, message: `${e.agent}'s ${what} at ${stepTime ? `step ${e.t}` : `t=${e.t}`}: ${why}` };
  };

  // A run whose failure signal is an error stop failed where the error happened, not in an answer:
  // the output whose own call failed first is tried before the answer's origin.
  // looked for at most once, and only when a rule needs it (a scan of every tool result)
  let failedCall: { pos: number; result: number } | undefined | null = null;
  const firstFailed = () => (failedCall === null ? (failedCall = on.has('error') ? firstFailedCall(index, tools, task) : undefined) : failedCall);
  if (/^stop \S+ \(error/.test(outcome.source)) {
    const first = firstFailed();
    if (first) return make(first.pos, 'error', `its tool call failed at ${index.id(first.result)}; the run stopped on an error`);
  }
  const informative = (t: string) => t.length > 1 && !given.has(t);
  // 1. the earliest step on the answer's derivation that passed on a value contrary to its own inputs
  if (final && on.has('contrary_input')) {
    const wanted = new Set([...(final.explicit ? salientTokens(final.answer) : index.salient(final.pos))].filter(informative));
    // where each value the answer was derived from entered the run (derivation.ts): only there can a
    // step state it without any input stating it, so only there are inputs compared
    const givenValues = new Set([...given].map(canonicalValue));
    const origins = answerDerivation(index, final.pos, wanted, (v) => givenValues.has(v), ctx.responsible, derivation ? MAX_LEVELS : 1);
    const reader = new ValueReader(index, support);
    for (const i of [...origins.keys()].sort((a, b) => a - b)) {
      if (i <= task || !blameable(index, i, tools, task) || !PASSES_ON.has(index.types[i])) continue;
      const origin = origins.get(i)!;
      const c = reader.contrary(i, (v) => entered(origin, v));
      if (c) {
        const { runs, step, agent } = CONTRARY_INPUT_RECORD;
        const record = `a value that differs from an input named the labelled step in ${step} of ${runs} Who&When runs, the agent in ${agent} of ${runs}`;
        return make(i, 'contrary_input', `passed on ${c.value} where its input ${index.id(c.input)} gave ${c.was}; ${carried(index, i, final.pos, origin.answer.has(c.value) ? [] : origin.via)} (${record})`);
      }
    }
  }
  // 2. the step the evidence model finds most likely, and its agent
  if (on.has('evidence')) {
    const steps = blameSteps(index, ctx);
    if (steps.length) {
      const scores = scoreSteps(steps, weights);
      const step = steps[scores.best];
      const blame = make(step.pos, 'evidence', steps.length === 1 ? 'the only agent step of the run' : `the most likely of ${steps.length} agent steps (${formatP(scores.p[scores.best])}): ${explain(steps, scores.best, weights)}`);
      // the blamed agent is the step's: cross-validated it is right more often than the agent with the
      // largest summed share (nested: 65.6% against 59.0%, docs/analysis.md), which many small steps of a busy agent can win
      blame.agentShare = Number((scores.agents.find((a) => a.agent === step.agent)?.share ?? 0).toPrecision(3));
      blame.p = Number(scores.p[scores.best].toPrecision(3)); // 3 significant digits: toFixed(3) gave 0 for the most likely of 5,000 steps
      if (steps.length > 1) {
        const top = scores.agents[0];
        // a larger share of another agent reads as a contradiction unless said: it is spread over its many steps
        const spread = top && top.agent !== step.agent ? ` (${top.agent}'s is spread over its steps; the single most likely step names the decisive agent more often, cross-validated on Who&When: docs/analysis.md)` : '';
        blame.message += `. Share of the blame by agent: ${agentShares(scores.agents)}${spread}`;
      }
      return blame;
    }
  }
  // 3. no agent step after the task statement to weigh (or the evidence rule ablated): the first agent output followed by an error
  const first = firstFailed();
  if (first) return make(first.pos, 'error', `its tool call failed at ${index.id(first.result)}`);
  return null;
}

/** How the final answer carries a value passed on at position i: itself, verbatim, or computed from it through the steps `via` (nearest first). */
function carried(index: TraceIndex, i: number, answer: number, via: readonly number[]): string {
  if (via.length === 0) return i === answer ? 'it is the final answer' : `the final answer (${index.id(answer)}) carries it`;
  const steps = via.filter((v) => v !== i).map((v) => index.id(v));
  const through = steps.length === 0 ? '' : steps.length === 1 ? `, in ${steps[0]}` : `, through ${steps.join(', ')}`;
  return `the final answer (${index.id(answer)}) was ${via.length === 1 ? 'computed' : 'derived'} from it${through}`;
}

/**
 * What each evidence feature says of a step, in words: `[above, below]` the run's average step.
 * A feature with a negative weight lifts a step when the step has less of it than the average
 * (a step that does not verify), so the words must follow the side the step is on.
 */
const FEATURE_WORDS: Record<EvidenceFeature, readonly [string, string]> = {
  first_step: ['the first step of the run', 'not the first step of the run'],
  log_rank: ['late in the run', 'early in the run'],
  agent_first_step: ["its agent's first step", "not its agent's first step"],
  answer_facts_introduced: ['introduced facts of the final answer', 'introduced few of the final answer\'s facts'],
  answer_facts_stated: ['states facts of the final answer', 'states few of the final answer\'s facts'],
  new_facts: ['brought facts new to the run', 'brought few facts new to the run'],
  reports_error: ['reports an error', 'reports no error'],
  verifies: ['verifies', 'does not verify'],
  agent_step_count: ['by a busy agent', 'by an agent with few steps'],
  agent_gave_answer: ['by the agent that gave the final answer', 'not by the agent that gave the final answer'],
  assumes: ['assumes or simulates what it lacks', 'assumes nothing'],
  code: ['runs code', 'runs no code'],
  agent_runs_tools: ['by an agent that runs tools', 'by an agent that runs no tools'],
};

/** The two features that raise a step most above the run's average step, in words (each on the side the step is on). */
function explain(steps: readonly StepEvidence[], best: number, weights: readonly number[]): string {
  const lift = EVIDENCE_FEATURES.map((name, k) => {
    const mean = steps.reduce((a, s) => a + s.features[k], 0) / steps.length;
    return { name, above: steps[best].features[k] > mean, value: weights[k] * (steps[best].features[k] - mean) };
  })
    .filter((l) => l.value > 0)
    .sort((a, b) => b.value - a.value)
    .slice(0, 2);
  const { introduced, of } = steps[best].answerFacts;
  const words = lift.map((l) => (l.name === 'answer_facts_introduced' && l.above ? `introduced ${introduced} of the final answer's ${of} facts` : FEATURE_WORDS[l.name][l.above ? 0 : 1]));
  return words.length ? words.join(', ') : 'no step stands out';
}

/** Blame by agent, largest share first: `WebSurfer 55%, Orchestrator 30%, Assistant 15%` (at most three named). */
function agentShares(agents: readonly { agent: string; share: number }[]): string {
  const shown = agents.slice(0, 3).map((a) => `${a.agent} ${Math.round(100 * a.share)}%`);
  const rest = agents.length - shown.length;
  return shown.join(', ') + (rest > 0 ? `, ${rest} other agent${rest > 1 ? 's' : ''} ${Math.round(100 * agents.slice(3).reduce((a, b) => a + b.share, 0))}%` : '');
}

/**
 * A probability for a message, in words: `an estimated 54% chance`, never a bare "0%" or "100%" for
 * a value that is not 0 or 1 (`under 1%`, `over 99%`); the value itself is the blame's `p`.
 */
function formatP(p: number): string {
  if (p > 0 && p < 0.005) return 'an estimated chance under 1%';
  if (p < 1 && p >= 0.995) return 'an estimated chance over 99%';
  return `an estimated ${Math.round(p * 100)}% chance`;
}

/**
 * Why a run has no blame (no decisive error), in the terms of the outcome used, as the CLI and the
 * chat tools say it.
 * @param outcome the outcome the analysis used (the trace's own, or given by the caller)
 * @param giveOutcome how the reader can state a failure the trace does not record (a CLI flag, a tool argument)
 * @returns one clause, without a leading "none"
 */
export function whyNoBlame(outcome: Pick<Outcome, 'status' | 'source'>, giveOutcome: string): string {
  if (outcome.status === 'failure' || outcome.status === 'partial') return `the run failed (${outcome.source}), but no agent output is to blame`;
  if (outcome.source === 'given by the caller') return `the outcome given is ${outcome.status}`;
  return `the trace did not fail by its own signal: ${giveOutcome} if you know it failed`;
}
