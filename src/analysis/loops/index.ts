/**
 * Loops: repeated work across agents and turns, in four kinds, one detector each (run in this order):
 *
 * - repeated_tool_call (tool-calls.ts): the same agent calls the same tool with the same arguments
 *   again, with no state change in between, and gets the same result.
 * - ping_pong, and cycles of 3 or 4 agents (handoff-cycles.ts): consecutive hand-offs going round
 *   the same agents where each hand-off of a later round adds almost no new content.
 * - repeated_sequence (sequences.ts): per lane, a tandem repeat of the sequence of event
 *   fingerprints (agent, type, target, normalized content).
 * - repeated_sequence with `match: 'similar'` (similar-steps.ts): an agent restating the same step
 *   in the same context (near-duplicate dialogue, or the same code artifact produced again).
 *
 * A repeated sequence whose members all belong to repeated tool calls or ping-pongs, or are tool
 * results, is not reported again; nor are near-duplicate steps all in loops of the three other
 * kinds. Costs of a loop are the tokens and seconds of the repetitions after the first (for a
 * ping-pong, the tokens of every event in that span, since each round trip carries the work in
 * between). A loop is `unresolved` when no event with new content (a fingerprint never seen before;
 * stops, rewards and despawns ignored) comes after its last member: the trace ended inside it
 * (raw-loop.ts).
 */
import type { Loop } from '../types';
import type { TraceIndex } from '../trace-index';
import { finishLoop, lastNewContent, type RawLoop } from './raw-loop';
import { FinishedLoops } from './finished-loops';
import { repeatedToolCalls } from './tool-calls';
import { pingPongs } from './handoff-cycles';
import { repeatedSequences } from './sequences';
import { repeatedSteps } from './similar-steps';
import { PauseClock, withoutPauses, type Pause } from '../pauses';

export { opensDelegation } from './agent-output';

/** Thresholds of the loop detectors; every field has a default. */
export interface LoopOptions {
  /** Longest repeated block looked for, in events (default 16). */
  maxPeriod?: number;
  /** A hand-off adds "no new content" below this share of new words (default 0.1). */
  noveltyThreshold?: number;
  /** Two dialogue steps are "roughly the same" at or above this resemblance of their content words (default 0.5). */
  stepResemblance?: number;
}

/** Bits of {@link loopSteps}'s column of the loops a position is in already: a member of a repeated tool call (or its result), of a ping-pong, of a repeated sequence. */
const IN_TOOL_LOOP = 1;
const IN_PING_PONG = 2;
const IN_SEQUENCE = 4;

/** Finds the loops of a trace; loops are returned in order of their first member. */
export function findLoops(index: TraceIndex, options: LoopOptions = {}): Loop[] {
  return withoutPauses(loopSteps(index, options, new PauseClock(Infinity)));
}

/** {@link findLoops} with a pause between two detectors when `clock` says so (src/analysis/pauses.ts). */
export function* loopSteps(index: TraceIndex, options: LoopOptions, clock: PauseClock): Generator<Pause, Loop[], void> {
  const maxPeriod = options.maxPeriod ?? 16;
  const noveltyThreshold = options.noveltyThreshold ?? 0.1;
  const lastNew = lastNewContent(index);
  if (clock.due()) yield* clock.pause();
  // a followed trace's loops found again finish from the last analysis's (finished-loops.ts); what this one finishes is kept for the next
  const carry = index.carry;
  const kept = carry?.loops;
  const next = carry ? new FinishedLoops() : undefined;
  if (carry) carry.loops = undefined; // kept again once every loop is finished
  const from = kept ?? new FinishedLoops();
  const finish = (raw: RawLoop): Loop => (next ? from.finish(index, raw, lastNew, next) : finishLoop(index, raw, lastNew));
  const loops: Loop[] = [];
  const toolLoops = yield* repeatedToolCalls(index, clock);
  if (clock.due()) yield* clock.pause();
  // per position, the kinds of loop it is in already (bits below) and its repeated-call loop: columns in the
  // index's arena, given back at the end (sets of the members were 10-15 ms per append of a followed trace at 1M)
  const marks = index.arena.mark();
  try {
    const n = index.size;
    const inLoop = index.arena.uint8(n);
    const toolLoopOf = index.arena.int32(n, -1);
    toolLoops.forEach((l, k) => {
      for (const i of l.members) {
        inLoop[i] |= IN_TOOL_LOOP;
        toolLoopOf[i] = k;
      }
    });
    for (const l of toolLoops) {
      for (const i of l.members) {
        const result = index.resultOf(i);
        if (result !== -1) inLoop[result] |= IN_TOOL_LOOP;
      }
    }
    // each loop finished is a seam: a loop's members may be a hundred thousand events (near-duplicate steps at 1M)
    for (const l of toolLoops) {
      if (clock.due()) yield* clock.pause();
      loops.push(finish(l));
    }
    // a ping-pong or a repeated tool call is reported once, not again as each lane's repeated sequence
    for (const l of pingPongs(index, noveltyThreshold, options.stepResemblance ?? 0.5)) {
      if (clock.due()) yield* clock.pause();
      for (const i of l.members) inLoop[i] |= IN_PING_PONG;
      loops.push(finish(l));
    }
    if (clock.due()) yield* clock.pause();
    for (const l of repeatedSequences(index, maxPeriod)) {
      if (clock.due()) yield* clock.pause();
      if (l.members.every((i) => inLoop[i] & (IN_TOOL_LOOP | IN_PING_PONG) || index.types[i] === 'tool_result')) continue;
      if (wrapsToolLoop(index, l, toolLoopOf)) continue;
      for (const i of l.members) inLoop[i] |= IN_SEQUENCE;
      loops.push(finish(l));
    }
    if (clock.due()) yield* clock.pause();
    // near-duplicate steps not already reported as another kind of loop (their word ids are scratch in the arena, given back once found)
    const scratch = index.arena.mark();
    let steps: RawLoop[];
    try {
      steps = repeatedSteps(index, options.stepResemblance ?? 0.5);
    } finally {
      index.arena.release(scratch);
    }
    for (const l of steps) {
      if (clock.due()) yield* clock.pause();
      if (l.members.every((i) => inLoop[i] !== 0)) continue;
      loops.push(finish(l));
    }
  } finally {
    index.arena.release(marks);
  }
  if (clock.due()) yield* clock.pause();
  loops.sort((a, b) => (index.pos.get(a.events[0]) ?? 0) - (index.pos.get(b.events[0]) ?? 0));
  if (carry) carry.loops = next;
  return loops;
}

/**
 * True when a repeated sequence is a repeated tool call with what the agent said around each call
 * ("Let me try again."): its tool calls all belong to one repeated-call loop, one call or more per
 * repetition. One loop, one finding: the call's, whose evidence (same arguments, same result) is the stronger.
 * @param toolLoopOf position -> the repeated-call loop it is a member of, -1 for none.
 */
function wrapsToolLoop(index: TraceIndex, seq: RawLoop, toolLoopOf: Int32Array): boolean {
  let loop = -1;
  let calls = 0;
  for (const i of seq.members) {
    if (index.types[i] !== 'tool_call') continue;
    const k = toolLoopOf[i];
    if (k === -1 || (loop !== -1 && k !== loop)) return false;
    loop = k;
    calls++;
  }
  return loop !== -1 && calls >= seq.repetitions;
}
