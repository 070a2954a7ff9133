/**
 * ping_pong, and cycles: consecutive hand-offs (message, delegate, return, spawn) going round the
 * same agents, A -> B -> A -> B ... (period 2, `ping_pong`) or A -> B -> C -> A ... (period 3 or 4,
 * a `repeated_sequence` over the interleaved stream of all lanes, reported once with its agents),
 * where each hand-off of a later round adds almost no new content (same fingerprint as the one a
 * round before, content words resembling it >= 0.5, or < 10 % new words). Events of other agents
 * between the hand-offs do not break the cycle.
 */
import type { EventType } from '../../trace/schema';
import { handoffsOf, type Handoffs, type StreamBuilder } from '../handoffs';
import { carriedSweep, type Sweep } from '../carried-sweep';
import type { TraceIndex } from '../trace-index';
import { contentWords, resemblance, wordTokens } from '../text';
import type { RawLoop } from './raw-loop';
import { countWords } from '../../shared/count-words';

/** Longest hand-off cycle looked for, in agents. */
const MAX_CYCLE = 4;

/** A chat's turns, when no hand-off names its receiver: its messages (handoffs.ts). */
const CHAT_TYPES: ReadonlySet<EventType> = new Set(['message']);

/**
 * The scan of the hand-off stream for each period, kept between analyses of a growing trace (a
 * sweep: carried-sweep.ts): the cyclic runs it closed and where its open run starts. A run closed
 * before the stream's end is final: its end and the next run's start read only the hand-offs before
 * them, and the stream only grows (handoffs.ts: the same builder); the run that reaches the end is
 * scanned again from its start. A closed run's stale stretches are kept once made (they read only
 * its hand-offs). Which runs are reported is decided again each time, in the same order as a whole
 * scan: a scan of every hand-off was 12-27 ms per append of a followed trace at 1M events.
 */
interface CycleScan extends Sweep {
  /** The stream scanned (undefined: none yet). */
  source: StreamBuilder | undefined;
  /** Per period (from 2): the closed cyclic runs, and the start of the run the scan goes on from. */
  periods: { closed: CyclicRun[]; open: number }[];
}

/** A maximal run of hand-offs [start, end) going round `period` distinct agents at least twice; its stale stretches once made. */
interface CyclicRun {
  start: number;
  end: number;
  stretches?: RawLoop[];
}

/**
 * The ping-pongs (2 agents) and cycles (3 or 4) of the trace's hand-offs (see the module comment;
 * {@link staleStretches} says when a hand-off adds no new content, with `noveltyThreshold` as the
 * share of new words and `resemblanceThreshold` as the content-word resemblance). Shorter periods
 * are looked for first; a run with a hand-off already in a loop is skipped. A followed trace's scan
 * goes on from where the last analysis's stopped ({@link CycleScan}).
 */
export function pingPongs(index: TraceIndex, noveltyThreshold: number, resemblanceThreshold: number): RawLoop[] {
  const h = handoffsOf(index, CHAT_TYPES);
  const key = `${noveltyThreshold}\u0001${resemblanceThreshold}`;
  const scan = carriedSweep<CycleScan>(index, 'handoffCycles', key, () => ({ swept: 0, key, carryable: true, source: undefined, periods: [] }));
  if (scan.source !== h.source || scan.periods.length === 0 || scan.swept > h.count) {
    // another stream (made again: a new lane), or none scanned yet: from the first hand-off
    scan.source = h.source;
    scan.periods = [];
    for (let period = 2; period <= MAX_CYCLE; period++) scan.periods.push({ closed: [], open: 0 });
  }
  // (swept counts hand-offs here, not positions: it is never more than the positions read)
  scan.swept = h.count;
  // each period's runs, closed and open, in the order a whole scan meets them; then which are reported, in that order
  const out: RawLoop[] = [];
  const taken = new Set<number>();
  for (let period = 2; period <= MAX_CYCLE; period++) {
    const state = scan.periods[period - 2];
    const open = scanRuns(h, period, state);
    for (const run of state.closed) report(index, h, run, period, noveltyThreshold, resemblanceThreshold, taken, out);
    if (open) report(index, h, open, period, noveltyThreshold, resemblanceThreshold, taken, out);
  }
  return out;
}

/**
 * Goes on scanning `period`'s maximal runs from `state.open`: runs whose hand-offs repeat the sender
 * and receiver of the one `period` before and join up (each sender received the previous hand-off):
 * A -> B -> A (period 2, a ping-pong), A -> B -> C -> A (3), ... Cyclic runs closed before the
 * stream's end go into `state.closed`. @returns the run that reaches the end when it is cyclic.
 */
function scanRuns(h: Handoffs, period: number, state: CycleScan['periods'][number]): CyclicRun | undefined {
  const { count, from, to } = h;
  let start = state.open;
  while (start < count) {
    let end = start + 1;
    while (end < count && from[end] === to[end - 1] && (end - start < period || (from[end] === from[end - period] && to[end] === to[end - period]))) end++;
    if (end === count) {
      // open: a later hand-off may go on with it
      state.open = start;
      return isCycle(h, period, start, end) ? { start, end } : undefined;
    }
    if (isCycle(h, period, start, end)) state.closed.push({ start, end });
    // broken chain: the next cycle starts at `end`; a round that did not repeat: it may start one round back
    const chained = from[end] === to[end - 1];
    start = chained && end - period + 1 > start ? end - period + 1 : end;
  }
  state.open = start;
  return undefined;
}

/** A cycle through `period` distinct agents, closed (the last sender of the first round hands back to the first), at least two rounds. */
function isCycle(h: Handoffs, period: number, start: number, end: number): boolean {
  if (end - start < 2 * period) return false;
  const agents = new Set(h.from.slice(start, start + period));
  return agents.size === period && h.to[start + period - 1] === h.from[start];
}

/** A cyclic run's stale stretches into `out` (made once per closed run), unless a hand-off of it is `taken` by a loop already; theirs are taken then. */
function report(index: TraceIndex, h: Handoffs, run: CyclicRun, period: number, threshold: number, resemblanceThreshold: number, taken: Set<number>, out: RawLoop[]): void {
  for (let k = run.start; k < run.end; k++) if (taken.has(h.at[k])) return;
  run.stretches ??= staleStretches(index, runOf(h, run.start, run.end), period, threshold, resemblanceThreshold);
  for (const l of run.stretches) {
    for (const i of l.members) taken.add(i);
    out.push(l);
  }
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
            : `cycle ${[...names, names[0]].join(' → ')} repeated ${countWords(reps, 'time')} with no new content (${countWords(part.length, 'hand-off')})`,
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
