/**
 * Evidence about each agent step of a failed run, for blame (blame-model.ts scores it).
 *
 * A *step* is one agent output: the blameable events (blame.ts `blameable`) of one source record
 * (one message of an agent, with the code it ran). Tool output is never a step: the facts it brought
 * are charged to the step that asked for it (blame.ts `responsible`). Each step gets
 * {@link EVIDENCE_FEATURES}, read from the trace alone (no labels, no agent names):
 * - where it is: the first step of the run, log(1 + rank among steps), the agent's first step;
 * - what it brought: the share of the final answer's facts (salient tokens the task did not give)
 *   it first introduced, the share it states, log(1 + facts new to the run in its own text);
 * - what it says: error text (it reports a failure), verification words (it checks others), assumption
 *   words (it goes on without the facts: "let's assume", "hypothetical"), code;
 * - who wrote it: log(1 + its agent's step count), whether its agent gave the final answer, whether its
 *   agent runs tools.
 * Cost: one pass over the events, O(n + salient tokens), plus a bounded regular-expression scan of each
 * step's text (at most {@link TEXT_SCAN} characters).
 */
import type { FinalAnswer } from './answer';
import { salientTokens, withoutFencedCode, ERROR_TEXT, VERIFICATION_TEXT } from './text';
import type { TraceIndex } from './trace-index';

/** Names of the evidence features, in the order of {@link StepEvidence.features} and of the model's weights. */
export const EVIDENCE_FEATURES = [
  'first_step',
  'log_rank',
  'agent_first_step',
  'answer_facts_introduced',
  'answer_facts_stated',
  'new_facts',
  'reports_error',
  'verifies',
  'agent_step_count',
  'agent_gave_answer',
  'assumes',
  'code',
  'agent_runs_tools',
] as const;

export type EvidenceFeature = (typeof EVIDENCE_FEATURES)[number];

/** Characters of a step's text scanned for error, verification and assumption words. */
export const TEXT_SCAN = 3000;

/** Words of an agent that goes on without the facts: it assumes, simulates or makes up data. */
export const ASSUMPTION_TEXT =
  /\b(?:assum(?:e|ed|es|ing|ption)|hypothetical(?:ly)?|simulat(?:e|ed|ing)|placeholder|mock(?:ed)?|dummy|sample data|example data|for (?:the sake of|illustration|demonstration)|let'?s say|suppose|estimated?|approximate(?:ly)?)\b/i;

/** One agent step and its evidence. */
export interface StepEvidence {
  /** Position (TraceIndex order) of the step's first blameable event. */
  pos: number;
  agent: string;
  /** The source record the step was read from (its 0-based index in its source's own list). */
  record: number;
  /** Feature values in {@link EVIDENCE_FEATURES} order. */
  features: readonly number[];
  /** Counts behind the answer features, for the explanation: facts first introduced / of the answer. */
  answerFacts: { introduced: number; of: number };
}

/** What blame.ts decides about the run before the evidence is read. */
export interface EvidenceContext {
  /** Position of the task statement (never a step), or -1 when the task is not an event of the run. */
  task: number;
  /** Salient tokens the task gave (not facts an agent introduced). */
  given: ReadonlySet<string>;
  /** The run's final answer (answer.ts `finalAnswer`), undefined when no agent output carries one. */
  final: FinalAnswer | undefined;
  /** True for positions an agent can be blamed for (blame.ts `blameable`). */
  blameable: (i: number) => boolean;
  /** The step responsible for position i (itself, or the call that asked for a tool's output), or -1. */
  responsible: (i: number) => number;
}

/**
 * The task statement of a run: the first event with content, unless an agent wrote it while the
 * trace records the user's question apart (AG2 CaptainAgent logs open on an expert's message that
 * restates the question with the manager's plan: that plan is an agent's output and can be wrong).
 * The question is `metadata.task.question`, or `metadata.task` when it is text.
 * @returns `task`: its position or -1; `given`: the salient tokens of the task (of the recorded question when the first message is an agent's).
 */
export function taskStatement(index: TraceIndex): { task: number; given: Set<string> } {
  let task = -1;
  for (let i = 0; i < index.size; i++)
    if (index.content(i).trim()) {
      task = i;
      break;
    }
  const recorded = index.loaded.trace.metadata?.task;
  // `task: {question: ...}` (Who&When) or the task's text itself
  const question = typeof recorded === 'string' ? recorded : (recorded as { question?: unknown } | undefined)?.question;
  if (task >= 0 && typeof question === 'string' && question.trim() && index.types[task] !== 'stop' && !index.notAgentOutput(task) && index.agentOf(task) !== 'user') {
    return { task: -1, given: salientTokens(question) };
  }
  return { task, given: task >= 0 ? index.salient(task) : new Set<string>() };
}

/**
 * The evidence of every agent step of a run, in run order.
 * @returns one {@link StepEvidence} per step (empty when no agent output is blameable).
 */
export function stepEvidence(index: TraceIndex, ctx: EvidenceContext): StepEvidence[] {
  const { final } = ctx;
  const informative = (t: string) => t.length > 1 && !ctx.given.has(t);
  const wanted = new Set<string>();
  if (final) {
    if (final.explicit) for (const t of salientTokens(final.answer.replace(/\b[a-z]/g, (c) => c.toUpperCase()))) if (informative(t)) wanted.add(t);
    if (wanted.size === 0) for (const t of index.salient(final.pos)) if (informative(t)) wanted.add(t);
  }
  const finalAgent = final ? index.agentOf(final.pos) : undefined;

  interface Step { pos: number; agent: string; record: number; introduced: number; stated: number; newFacts: number; error: boolean; verifies: boolean; assumes: boolean; code: boolean }
  const byRecord = new Map<number, Step>();
  const steps: Step[] = [];
  const seen = new Set<string>(ctx.given);
  const seenAnswer = new Set<string>();
  const toolUsers = new Set<string>();
  for (let i = ctx.task + 1; i < index.size; i++) {
    if (index.types[i] === 'tool_call') toolUsers.add(index.agentOf(i));
    const own = ctx.blameable(i);
    const at = own ? i : ctx.responsible(i);
    let fresh = 0;
    let introduced = 0;
    let stated = 0;
    for (const t of index.salientOnce(i)) {
      if (!seen.has(t)) {
        seen.add(t);
        fresh++;
      }
      if (wanted.has(t)) {
        stated++;
        if (!seenAnswer.has(t)) {
          seenAnswer.add(t);
          introduced++;
        }
      }
    }
    if (at < 0) continue;
    const record = index.record(at);
    let step = byRecord.get(record);
    if (!step) {
      if (!own) continue; // tool output whose step is not an agent output of its own record: nothing to charge
      step = { pos: at, agent: index.agentOf(at), record, introduced: 0, stated: 0, newFacts: 0, error: false, verifies: false, assumes: false, code: false };
      byRecord.set(record, step);
      steps.push(step);
    }
    step.introduced += introduced;
    step.stated = Math.max(step.stated, stated);
    if (!own) continue;
    step.newFacts += fresh;
    const content = index.content(i);
    const prose = withoutFencedCode(content).slice(0, TEXT_SCAN);
    if (ERROR_TEXT.test(prose)) step.error = true;
    if (VERIFICATION_TEXT.test(prose)) step.verifies = true;
    if (ASSUMPTION_TEXT.test(prose)) step.assumes = true;
    if (index.types[i] === 'tool_call' || content.includes('```')) step.code = true;
  }
  // steps are made at their own position, met in position order: already in run order
  const stepsOf = new Map<string, number>();
  for (const s of steps) stepsOf.set(s.agent, (stepsOf.get(s.agent) ?? 0) + 1);
  const met = new Set<string>();
  const of = Math.max(wanted.size, 1);
  return steps.map((s, rank) => {
    const agentFirst = !met.has(s.agent);
    met.add(s.agent);
    const values: Record<EvidenceFeature, number> = {
      first_step: rank === 0 ? 1 : 0,
      log_rank: Math.log1p(rank),
      agent_first_step: agentFirst ? 1 : 0,
      answer_facts_introduced: s.introduced / of,
      answer_facts_stated: s.stated / of,
      new_facts: Math.log1p(s.newFacts),
      reports_error: s.error ? 1 : 0,
      verifies: s.verifies ? 1 : 0,
      agent_step_count: Math.log1p(stepsOf.get(s.agent) ?? 0),
      agent_gave_answer: s.agent === finalAgent ? 1 : 0,
      assumes: s.assumes ? 1 : 0,
      code: s.code ? 1 : 0,
      agent_runs_tools: toolUsers.has(s.agent) ? 1 : 0,
    };
    return { pos: s.pos, agent: s.agent, record: s.record, features: EVIDENCE_FEATURES.map((f) => values[f]), answerFacts: { introduced: s.introduced, of: wanted.size } };
  });
}
