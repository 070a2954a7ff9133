/**
 * ping_pong, and cycles: consecutive hand-offs (message, delegate, return, spawn) going round the
 * same agents, A -> B -> A -> B ... (period 2, `ping_pong`) or A -> B -> C -> A ... (period 3 or 4,
 * a `repeated_sequence` over the interleaved stream of all lanes, reported once with its agents),
 * where each hand-off of a later round adds almost no new content (same fingerprint as the one a
 * round before, content words resembling it >= 0.5, or < 10 % new words). Events of other agents
 * between the hand-offs do not break the cycle.
 */
import type { EventType } from '../../trace/schema';
import { handoffsOf, type Handoffs } from '../handoffs';
import type { TraceIndex } from '../trace-index';
import { contentWords, resemblance, wordTokens } from '../text';
import type { RawLoop } from './raw-loop';

/** Longest hand-off cycle looked for, in agents. */
const MAX_CYCLE = 4;

/** A chat's turns, when no hand-off names its receiver: its messages (handoffs.ts). */
const CHAT_TYPES: ReadonlySet<EventType> = new Set(['message']);

/**
 * The ping-pongs (2 agents) and cycles (3 or 4) of the trace's hand-offs (see the module comment;
 * {@link staleStretches} says when a hand-off adds no new content, with `noveltyThreshold` as the
 * share of new words and `resemblanceThreshold` as the content-word resemblance). Shorter periods
 * are looked for first; a run with a hand-off already in a loop is skipped.
 */
export function pingPongs(index: TraceIndex, noveltyThreshold: number, resemblanceThreshold: number): RawLoop[] {
  const h = handoffsOf(index, CHAT_TYPES);
  const { count, from, to } = h;
  // maximal runs whose hand-offs repeat the sender and receiver of the one `period` before and join
  // up (each sender received the previous hand-off): A -> B -> A (period 2, a ping-pong), A -> B -> C -> A (3), ...
  const out: RawLoop[] = [];
  const taken = new Set<number>();
  for (let period = 2; period <= MAX_CYCLE; period++) {
    let start = 0;
    while (start < count) {
      let end = start + 1;
      while (end < count && from[end] === to[end - 1] && (end - start < period || (from[end] === from[end - period] && to[end] === to[end - period]))) end++;
      // a cycle through `period` distinct agents, closed (the last sender of the first round hands back to the first), at least two rounds
      if (end - start >= 2 * period) {
        const agents = new Set(from.slice(start, start + period));
        if (agents.size === period && to[start + period - 1] === from[start]) {
          const run = runOf(h, start, end);
          if (!run.some((x) => taken.has(x.i))) {
            for (const l of staleStretches(index, run, period, noveltyThreshold, resemblanceThreshold)) {
              for (const i of l.members) taken.add(i);
              out.push(l);
            }
          }
        }
      }
      // broken chain: the next cycle starts at `end`; a round that did not repeat: it may start one round back
      const chained = end < count && from[end] === to[end - 1];
      start = chained && end - period + 1 > start ? end - period + 1 : end;
    }
  }
  return out;
}

/** Hand-offs [start, end) as objects with their names. */
function runOf(h: Handoffs, start: number, end: number): { i: number; from: string; to: string }[] {
  const run: { i: number; from: string; to: string }[] = [];
  for (let k = start; k < end; k++) run.push({ i: h.at[k], from: h.names[h.from[k]], to: h.names[h.to[k]] });
  return run;
}

/**
 * Within one cyclic run of hand-offs, the stretches where each hand-off repeats the one a round
 * (`period` hand-offs) before: the same fingerprint, content words resembling it (>= the step
 * resemblance), or almost no new words (< the novelty threshold).
 */
function staleStretches(index: TraceIndex, run: { i: number; from: string; to: string }[], period: number, threshold: number, resemblanceThreshold: number): RawLoop[] {
  const before = new Set<string>();
  const stale = run.map((h, k) => {
    const words = wordTokens(index.content(h.i));
    let result = false;
    if (k >= period) {
      const prev = run[k - period].i;
      if (index.fingerprints[h.i] === index.fingerprints[prev] && index.fingerprints[h.i] >= 0) result = true;
      // cycles of 3+ agents: reworded prose is no new content either; changed code is (content words leave
      // code out). Two-agent exchanges leave rewording to the near-duplicate-step detector, which names the agent.
      else if (period > 2 && !hasCode(index.content(h.i)) && !hasCode(index.content(prev)) && resemblance(contentWords(index.content(h.i)), contentWords(index.content(prev))) >= resemblanceThreshold) result = true;
      else if (words.size > 0) {
        let fresh = 0;
        for (const w of words) if (!before.has(w)) fresh++;
        result = fresh / words.size < threshold;
      }
    }
    for (const w of words) before.add(w);
    return result;
  });
  const out: RawLoop[] = [];
  let k = period;
  while (k < run.length) {
    if (!stale[k]) {
      k++;
      continue;
    }
    let j = k;
    while (j < run.length && stale[j]) j++;
    // hand-offs k-period .. j-1: the first round and its stale repetitions (at least one whole round)
    if (j - k >= period) {
      const part = run.slice(k - period, j);
      const members = part.map((h) => h.i);
      const reps = Math.floor(part.length / period);
      const names = part.slice(0, period).map((h) => h.from);
      out.push({
        kind: period === 2 ? 'ping_pong' : 'repeated_sequence',
        members,
        repeated: members.slice(period),
        span: [members[period], members[members.length - 1]],
        period,
        repetitions: reps,
        label:
          period === 2
            ? `ping-pong between ${names[0]} and ${names[1]}: ${part.length} hand-offs, ${reps} round trips with no new content`
            : `cycle ${[...names, names[0]].join(' → ')} repeated ${reps} times with no new content (${part.length} hand-offs)`,
      });
    }
    k = j;
  }
  return out;
}

/** True when the text carries a fenced code block. */
function hasCode(text: string): boolean {
  return text.includes('```');
}
