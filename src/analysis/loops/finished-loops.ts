/**
 * The loops a followed trace's last analysis finished (raw-loop.ts `finishLoop`), kept for its next
 * one (prefix-carry.ts): a loop its detectors find again finishes from what was kept, and a loop
 * found again with more members (a loop the trace is still in) adds only theirs. At 1M events the
 * bench trace has 148 loops of 163k members in all, 40 of them of 1,000-6,900 members running to
 * the trace's end, and finishing them again (ids, file indices, agents, tokens, seconds) was 50-60
 * ms of each append.
 *
 * Why what was kept stands: its members are positions the carry holds (the same events), so their
 * ids, indices, agents, tokens and times are the same. What else a loop reads can change and is
 * compared: the result of each repeated tool call (a new event can answer an old call: the result's
 * tokens and time count), and where the last new content is (`unresolved` and the message are made
 * again each time). A grown loop's new members all come after its old ones (else it is finished
 * anew), and its costs go on from the old sums in the order a whole finish adds them: the same
 * figures to the last bit.
 */
import type { Loop } from '../types';
import type { TraceIndex } from '../trace-index';
import { addLoopCosts, loopParts, reportedLoop, type LoopCosts, type LoopMembers, type RawLoop } from './raw-loop';

/** A loop finished, with what it was finished from. */
interface Finished {
  raw: RawLoop;
  /** The result position of each of `raw.repeated` when it was finished (-1: none); empty when none of them is a tool call. */
  results: Int32Array;
  costs: LoopCosts;
  members: LoopMembers;
  loop: Loop;
}

/** The loops one analysis finished, by kind and first member; the next analysis of the same trace grown finishes from them. */
export class FinishedLoops {
  private readonly kept = new Map<string, Finished[]>();
  /** Loops this memo's analysis finished from the one before's: the same, or grown (the rest were finished anew). */
  reused = 0;
  grown = 0;

  /**
   * `raw` finished as raw-loop.ts `finishLoop` does: from a loop this memo's analysis finished with the
   * same members, or with the first of them (see the module's comment), else anew. Each loop
   * finished is kept in `next` for the analysis after this one.
   * @param lastNew raw-loop.ts `lastNewContent` of this analysis's index.
   */
  finish(index: TraceIndex, raw: RawLoop, lastNew: number, next: FinishedLoops): Loop {
    const key = keyOf(raw);
    // the results are compared where they are (an array of them is made only for a loop kept anew: 10-15 ms of each analysis at 1M)
    const results = (): Int32Array => (raw.span ? NO_RESULTS : resultsOf(index, raw.repeated));
    let entry: Finished | undefined;
    for (const f of this.kept.get(key) ?? []) {
      // (the key holds the kind, match, period and span's start: entries under it agree on them)
      if (!raw.span && !resultsGoOn(index, raw.repeated, f.results)) continue;
      if (sameInts(f.raw.members, raw.members) && sameInts(f.raw.repeated, raw.repeated) && f.raw.span?.[1] === raw.span?.[1]) {
        next.reused++;
        const unresolved = lastNew <= f.members.last;
        const loop = f.raw.label === raw.label && f.raw.resemblance === raw.resemblance && unresolved === f.loop.unresolved ? f.loop : reportedLoop(index, raw, f.costs, f.members, lastNew);
        entry = { ...f, raw, loop };
        break;
      }
      const members = grownMembers(index, f, raw);
      if (members) {
        next.grown++;
        const costs = { ...f.costs };
        addLoopCosts(index, raw, costs);
        entry = { raw, results: raw.span ? NO_RESULTS : resultsGrown(index, raw.repeated, f.raw.repeated.length, f.results), costs, members, loop: reportedLoop(index, raw, costs, members, lastNew) };
        break;
      }
    }
    if (!entry) {
      const { costs, members } = loopParts(index, raw);
      entry = { raw, results: results(), costs, members, loop: reportedLoop(index, raw, costs, members, lastNew) };
    }
    const list = next.kept.get(key);
    if (list) list.push(entry);
    else next.kept.set(key, [entry]);
    return entry.loop;
  }
}

const NO_RESULTS = new Int32Array(0);

/** What a loop keeps as it grows: its kind, its block's length, its first member (a ping-pong: its span's start). */
function keyOf(raw: RawLoop): string {
  return `${raw.kind}|${raw.match ?? ''}|${raw.period}|${raw.members[0]}|${raw.span?.[0] ?? ''}`;
}

/**
 * The members of `raw` when they are `f`'s and more, all after `f`'s last, its repeated ones `f`'s
 * and more, and a ping-pong's span no shorter: `f`'s members with the new ones after them. Else undefined.
 */
function grownMembers(index: TraceIndex, f: Finished, raw: RawLoop): LoopMembers | undefined {
  const old = f.raw;
  if (raw.members.length <= old.members.length || raw.repeated.length < old.repeated.length) return undefined;
  if (raw.span && old.span && raw.span[1] < old.span[1]) return undefined;
  if (!startsWith(raw.members, old.members) || !startsWith(raw.repeated, old.repeated)) return undefined;
  const added = raw.members.slice(old.members.length).sort((a, b) => a - b);
  if (added[0] <= f.members.last) return undefined;
  const agents = [...f.members.agents];
  const seen = new Set(agents);
  for (const i of added) {
    const agent = index.agentOf(i);
    if (!seen.has(agent)) {
      seen.add(agent);
      agents.push(agent);
    }
  }
  return {
    events: f.members.events.concat(added.map((i) => index.id(i))),
    indices: f.members.indices.concat(added.map((i) => index.at(i))),
    agents,
    last: added[added.length - 1],
  };
}

function sameInts(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  return a === b || (a.length === b.length && startsWith(a, b));
}

/** True when the tool calls among `positions` begin with the results `before` (resultsOf's, read in place). */
function resultsGoOn(index: TraceIndex, positions: readonly number[], before: Int32Array): boolean {
  if (positions.length < before.length) return false;
  for (let k = 0; k < before.length; k++) if (index.resultOf(positions[k]) !== before[k]) return false;
  return true;
}

/** True when `a` begins with the entries of `b`. */
function startsWith(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length < b.length) return false;
  for (let k = 0; k < b.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * {@link resultsOf} of `positions` whose first `old` entries gave `before` and still do (resultsGoOn
 * said so): only the new positions are read (a loop still running grows at each append; reading all
 * its members' results again was O(members) per loop and append).
 */
function resultsGrown(index: TraceIndex, positions: readonly number[], old: number, before: Int32Array): Int32Array {
  const added = resultsOf(index, positions.slice(old));
  // none of the old positions was a tool call (before is empty): the new ones decide
  if (before.length === 0 && added.length === 0) return NO_RESULTS;
  const out = new Int32Array(positions.length).fill(-1);
  out.set(before.length === 0 ? new Int32Array(0) : before.subarray(0, old));
  out.set(added.length === 0 ? new Int32Array(0) : added, old);
  return out;
}

/**
 * The result position of each tool call among `positions` (-1 for another event or a call with
 * none); none at all when no position is a tool call (the steps a loop of similar messages repeats
 * never have a result: comparing their -1s again was 3-5 ms of each append at 1M).
 */
function resultsOf(index: TraceIndex, positions: readonly number[]): Int32Array {
  let calls = false;
  for (let k = 0; k < positions.length && !calls; k++) calls = index.types[positions[k]] === 'tool_call';
  if (!calls) return NO_RESULTS;
  const out = new Int32Array(positions.length);
  for (let k = 0; k < positions.length; k++) out[k] = index.resultOf(positions[k]);
  return out;
}
