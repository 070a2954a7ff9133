/**
 * Blame: the decisive error step of a failed trace and the agent responsible (no model calls).
 *
 * A failed run ends on a wrong answer; the answer's facts (names, figures: salient tokens) entered
 * the run somewhere. The decisive step is the agent output that introduced most of the final
 * answer's salient tokens that the task statement did not already give (ties: the earliest), i.e.
 * the origin of the wrong answer in the content-influence graph. Tool output that introduced them
 * is charged to the call (or message) that asked for it, since the agent chose what to run.
 * When the final answer carries nothing traceable, the first agent output whose direct consequence
 * is an error (a failed tool result / error text) is taken; else the agent output with the most
 * negative credit (credit.ts); else the first agent output after the task statement.
 */
import { finalAnswer, firstAppearance, isNotAgentOutput } from './answer';
import { ValueReader, type SupportOptions } from './support';
import { ERROR_TEXT, salientTokens } from './text';
import type { TraceIndex } from './trace-index';
import type { Blame, Outcome } from './types';

/** Types through which an agent passes a value on to others (not its code: a tool call is an action). */
const PASSES_ON = new Set(['message', 'delegate', 'aggregate', 'return', 'orchestrator_decision', 'stop']);
const AGENT_TYPES = new Set(['message', 'delegate', 'aggregate', 'return', 'orchestrator_decision', 'tool_call', 'spawn', 'stop']);

/** True for positions an agent can be blamed for (its own output, not tool output, not the task statement). */
function blameable(index: TraceIndex, i: number, tools: ReadonlySet<string>, task: number): boolean {
  if (i === task) return false;
  const type = index.types[i];
  if (!AGENT_TYPES.has(type)) return false;
  if (tools.has(index.events[i].agent)) return false;
  if (isNotAgentOutput(index.events[i])) return false; // a user, harness or placeholder row
  const e = index.events[i];
  if (e.kind === 'interruption' || e.kind === 'api_error' || e.call_status === 'denied') return false; // the user's or the API's doing
  return index.content(i).replace(/\bTERMINATE\b/g, '').trim().length > 0;
}

/** The agent output responsible for position i: itself, or for tool output the call/message that asked for it. */
function responsible(index: TraceIndex, i: number, tools: ReadonlySet<string>, task: number): number {
  if (blameable(index, i, tools, task)) return i;
  const call = index.callOf(i);
  if (call >= 0 && blameable(index, call, tools, task)) return call;
  const agent = index.events[i].agent;
  for (let k = i - 1; k >= 0; k--) if (index.events[k].agent !== agent && blameable(index, k, tools, task)) return k;
  return -1;
}

/** The blame rules, in the order they are tried (each is a `Blame['basis']`). */
export type BlameRule = Blame['basis'];
export const BLAME_RULES: readonly BlameRule[] = ['contrary_input', 'final_answer_origin', 'error', 'credit', 'first_output'];

/**
 * The decisive error of a failed trace, or null when the trace did not fail (by its own signal).
 * @param rules the rules to try, in {@link BLAME_RULES} order (all by default; `npm run eval` ablates them)
 * @param creditValues per-position credit from credit.ts (used as a fallback).
 * @param support the value slot of the contrary-input rule (support.ts defaults; the evaluation cross-validates them)
 */
export function findBlame(index: TraceIndex, outcome: Outcome, creditValues?: Float64Array, rules: readonly BlameRule[] = BLAME_RULES, support?: SupportOptions): Blame | null {
  const on = new Set(rules);
  const failed = outcome.status === 'failure' || (outcome.status === 'partial' && (outcome.value ?? 0) < 0);
  if (!failed || index.size === 0) return null;
  // A run that failed because the API failed (a synthetic API-error stop) failed through no agent's output.
  if (/an API error: not an agent failure/.test(outcome.source)) return null;
  const tools = index.toolLanes;
  let task = -1;
  for (let i = 0; i < index.size; i++) if (index.content(i).trim()) {
    task = i;
    break;
  }
  const make = (pos: number, basis: Blame['basis'], why: string): Blame => {
    const e = index.events[pos];
    return { agent: e.agent, event: e.id, index: index.at(pos), record: index.record(pos), basis, message: `decisive error: ${e.agent} at ${e.id} (${why})` };
  };

  const final = on.has('final_answer_origin') || on.has('contrary_input') ? finalAnswer(index, 0, index.size - 1) : undefined;
  const given = task >= 0 ? index.salient(task) : new Set<string>();
  const informative = (t: string) => t.length > 1 && !given.has(t);
  // 1. the earliest step that passed on a value of the final answer contrary to its own inputs
  if (final && on.has('contrary_input')) {
    const wanted = new Set([...(final.explicit ? salientTokens(final.answer) : index.salient(final.pos))].filter(informative));
    // where each of the answer's values entered the run (one pass over cached salient tokens): only
    // there can a step state it without any input stating it, so only there are inputs compared
    const firstAt = new Map<string, number>();
    for (let i = 0; i <= final.pos && firstAt.size < wanted.size; i++) for (const tok of index.salient(i)) if (wanted.has(tok) && !firstAt.has(tok)) firstAt.set(tok, i);
    const reader = new ValueReader(index, support);
    for (const i of [...new Set(firstAt.values())].sort((a, b) => a - b)) {
      if (i <= task || !blameable(index, i, tools, task) || !PASSES_ON.has(index.types[i])) continue;
      const c = reader.contrary(i, new Set([...firstAt].filter(([, at]) => at === i).map(([tok]) => tok)));
      if (c) return make(i, 'contrary_input', `passed on ${c.value} where its input ${index.id(c.input)} gave ${c.was}; the final answer at ${index.id(final.pos)} carries it`);
    }
  }
  // 2. origin of the final answer's salient content
  if (final && on.has('final_answer_origin')) {
    let wanted = new Set<string>();
    if (final.explicit) wanted = new Set([...salientTokens(final.answer.replace(/\b[a-z]/g, (c) => c.toUpperCase()))].filter(informative));
    if (wanted.size === 0 && final.explicit) {
      const first = firstAppearance(index, final, task + 1);
      if (first !== -1) {
        const pos = responsible(index, first, tools, task);
        if (pos !== -1) return make(pos, 'final_answer_origin', `first stated the final answer "${final.answer.slice(0, 60)}"`);
      }
    }
    if (wanted.size === 0) wanted = new Set([...index.salient(final.pos)].filter(informative));
    if (wanted.size) {
      const seen = new Set<string>();
      let best = -1;
      let bestCount = 0;
      for (let i = task + 1; i <= final.pos; i++) {
        if (!index.content(i)) continue;
        let count = 0;
        for (const tok of index.salient(i)) if (wanted.has(tok) && !seen.has(tok)) {
          seen.add(tok);
          count++;
        }
        if (count > bestCount) {
          bestCount = count;
          best = i;
        }
      }
      if (best !== -1) {
        const pos = responsible(index, best, tools, task);
        if (pos !== -1) return make(pos, 'final_answer_origin', `introduced ${bestCount} of the ${wanted.size} salient tokens of the final answer at ${index.id(final.pos)}`);
      }
    }
  }
  // 3. first agent output followed by an error
  for (let i = 0; on.has('error') && i < index.size; i++) {
    if (!blameable(index, i, tools, task)) continue;
    const r = index.resultOf(i);
    if (r !== -1 && ERROR_TEXT.test(index.content(r).slice(0, 2000))) return make(i, 'error', `its tool call failed at ${index.id(r)}`);
  }
  // 4. most negative credit
  if (creditValues && on.has('credit')) {
    let best = -1;
    for (let i = 0; i < index.size; i++) if (blameable(index, i, tools, task) && (best === -1 || creditValues[i] < creditValues[best])) best = i;
    if (best !== -1 && creditValues[best] < 0) return make(best, 'credit', `most negative credit ${creditValues[best].toFixed(3)}`);
  }
  // 5. first agent output
  for (let i = 0; on.has('first_output') && i < index.size; i++) if (blameable(index, i, tools, task)) return make(i, 'first_output', 'first agent output after the task statement');
  return null;
}
