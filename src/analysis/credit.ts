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
 *    nothing of the outcome is zero. The pass is linear in its seeds: the outcome's and the rewards'
 *    are passed back apart, each leaving mass below 1e-18 behind, and an event's credit is their sum;
 *    the rewards' are passed back in blocks of rewards (credit-seeds.ts: a followed trace keeps the
 *    rewards' values between appends, and passes back again only the block a new reward joins).
 * This is a discounted, path-weighted version of the "which messages led to the answer" idea behind
 * message-level credit (the survey's 2 of 84 papers; cf. counterfactual credit in COMA, Foerster et
 * al. 2018, here replaced by the graph since a trace has one trajectory only).
 * Unknown outcome: R = +1 and the values are unsigned influence shares (`signed: false`).
 * A producer's `credit` on an event is shown as given and never overwritten.
 */
import { PauseClock, withoutPauses, type Pause } from './pauses';
import { finalAnswer } from './answer';
import { TokenInterner } from './interner';
import { grownTo, withRoom, type LinkScan, type PrefixCarry } from './prefix-carry';
import { COMMON, salientTokenIds, stripLogNoise, type TokenIds } from './text';
import { addRewardValues, keptPasses, rewardPlan, type BlockPass, type RewardBlock } from './credit-seeds';
import type { TraceIndex } from './trace-index';
import type { Credit, Outcome } from './types';
import { madeWhenRead } from './made-when-read';
import { creditPerEventSteps, round } from './credit-per-event';
import { keepCreditColumn, type CreditColumn } from './credit-column';
import { Parents } from './credit-parents';
import { carriedTransitions, gatherParents, type CreditTransitions } from './credit-transitions';
import { NumberHeap } from '../shared/number-heap';
import { eventFieldsOf } from '../trace/event-fields';

export interface CreditOptions {
  /** Share of the mass reaching an event that it passes on to its causes (default 0.5). */
  lambda?: number;
  /** Add content links (default true). */
  contentLinks?: boolean;
}

/** The raw result: per-position values, before ids and aggregates. */
export interface CreditValues {
  values: Float64Array;
  /** Position holding the outcome seed, or -1. */
  terminal: number;
  /**
   * For a followed trace, lists of the positions (of those the last analysis had) whose values may
   * differ from its (a position may be in several); the others' are the same to the last bit: the
   * rewards' reached neither then nor now, or were kept, and the outcome's reached neither then nor
   * now. Undefined when any may.
   */
  changed?: readonly Int32Array[];
}

/**
 * Content links, per event position v: the earlier events u that first introduced the salient
 * tokens v uses, with how many of v's tokens came from each (u in the order v first uses them),
 * as flat arrays: the links of v are `from[start[v] .. start[v + 1])` with their `count` (the
 * arrays may run longer than `start[n]`). The share of v's tokens taken from u is its count over
 * the sum of v's counts (kept as counts: 2 bytes a link, not 8; an event has fewer than 65,536
 * tokens, since at most its first MAX_TEXT = 4,000 characters are read).
 */
export interface ContentLinks {
  start: Int32Array;
  from: Int32Array;
  count: Uint16Array;
}

/**
 * Content links: for each event, the earlier events that first introduced the salient tokens it
 * uses, with how many of its tokens came from each. O(total tokens): tokens are interned to small
 * integers straight from the text (interner.ts), so each occurrence costs one hash of its
 * characters and no string, set or map per event. The links are made in the index's arena (the
 * caller gives them back with its own scratch); the tables that find them are given back here.
 */
export function contentLinks(index: TraceIndex): ContentLinks {
  return withoutPauses(contentLinkSteps(index, new PauseClock(Infinity)));
}

/** Events whose content links are found between two looks at the pause clock (about 50 ms at 1M events). */
const LINK_SCAN_EVENTS = 1 << 16;

/**
 * {@link contentLinks} with a pause between two stretches of the scan when `clock` says so (src/analysis/pauses.ts).
 * @param stretchEvents events scanned between two looks at the clock (tests set it low).
 */
export function* contentLinkSteps(index: TraceIndex, clock: PauseClock, stretchEvents = LINK_SCAN_EVENTS): Generator<Pause, ContentLinks, void> {
  const n = index.size;
  if (index.carry) return carriedContentLinks(index, index.carry);
  const arena = index.arena;
  // room for 3 links per event (about 2.7 in the 1M bench trace): pages never written are never resident
  const out: ContentLinks = { start: arena.int32(n + 1), from: arena.int32(Math.max(16, 3 * n)), count: arena.uint16(Math.max(16, 3 * n)) };
  const tables = arena.mark();
  try {
    const introducer = arena.int32(Math.max(1024, n), -1);
    // the interner the index read the contents' salient tokens with (its ids are read, not the texts again), once: it grows here, in this scratch
    const tokens = index.salientScan.taken ? new TokenInterner(COMMON, arena, n) : index.salientScan.tokens;
    index.salientScan.taken = true;
    const scan: LinkScan = { tokens, introducer, lastUse: arena.int32(introducer.length), ...out };
    // one scratch column for every stretch: what the scan grows in the arena (its tables) comes after it, and nothing is given back before the end
    const counts = arena.int32(n);
    let links = 0;
    for (let from = 0; from < n || from === 0; from += stretchEvents) {
      links = findContentLinks(index, scan, from, links, (old, size) => arena.grownInt32(old, size), { end: Math.min(n, from + stretchEvents), counts });
      if (from + stretchEvents < n && clock.due()) yield* clock.pause();
    }
    Object.assign(out, { from: scan.from, count: scan.count });
  } finally {
    arena.release(tables);
  }
  return out;
}

/**
 * {@link contentLinks} of a growing trace: the links of the positions the carry holds are kept,
 * the scan goes on from the first new position with the carried tables (prefix-carry.ts), and the
 * carry keeps the result (its arrays are the links returned: not in the arena, they outlive the index).
 */
function carriedContentLinks(index: TraceIndex, carry: PrefixCarry): ContentLinks {
  const n = index.size;
  let scan = carry.count > 0 ? carry.links : undefined;
  const first = scan ? carry.count : 0;
  if (!scan) {
    const introducer = new Int32Array(Math.max(1024, n)).fill(-1);
    // the interner the index read the new positions' salient tokens with (its own for a new scan: salientScanOf)
    const tokens = index.salientScan.taken ? new TokenInterner(COMMON, undefined, n) : index.salientScan.tokens;
    index.salientScan.taken = true;
    scan = { tokens, introducer, lastUse: new Int32Array(introducer.length), start: new Int32Array(withRoom(n) + 1), from: new Int32Array(Math.max(16, 3 * n)), count: new Uint16Array(Math.max(16, 3 * n)) };
  }
  const links = scan.start[first];
  scan.start = grownTo(scan.start, n + 1, first + 1, (size) => new Int32Array(size));
  carry.links = undefined; // the scan below changes the tables: kept again only when it finished
  findContentLinks(index, scan, first, links, (from, size) => {
    const to = new Int32Array(size);
    to.set(from);
    return to;
  });
  carry.links = scan;
  return { start: scan.start, from: scan.from, count: scan.count };
}

/**
 * The scan of {@link contentLinks} from position `first` on (`links` links made before it), in
 * `scan`'s tables and output (its `from` and `count` replaced when they must grow), up to position `end`.
 * @param grow a table of `size` entries holding `from` then zeros.
 * @param stretch.end the scan stops before this position (default: the trace's end).
 * @param stretch.counts a scratch column of at least `end` zeros, left zeroed (default: one made here, in the arena, given back).
 * @returns the number of links; `scan.start[end]` is set to it.
 */
function findContentLinks(index: TraceIndex, scan: LinkScan, first: number, links: number, grow: (from: Int32Array, size: number) => Int32Array, stretch: { end?: number; counts?: Int32Array } = {}): number {
  const n = stretch.end ?? index.size;
  const arena = index.arena;
  const tokens = scan.tokens;
  const scanned: TokenIds = { ids: new Int32Array(256) };
  // the ids the index read with the same interner (trace-index.ts SalientScan), by position from its `from`
  const read = index.salientScan.tokens === tokens ? index.salientScan : undefined;
  let introducer = scan.introducer; // token id -> position that introduced it (-1: not yet)
  let lastUse = scan.lastUse; // token id -> last position that used it (a token counts once per event)
  // (a stretch of a longer scan gives nothing back: the tables it grows in the arena are the next stretch's)
  const mark = stretch.counts ? undefined : arena.mark();
  // introducer position -> tokens the current event took from it (each entry back to 0 once the event is done)
  const count = stretch.counts ?? arena.int32(n);
  // the current event's introducers are touched[0, found): the list is reused, never emptied (emptying it drops its storage, remade for each event)
  const touched: number[] = [];
  const start = scan.start;
  try {
    for (let i = first; i < n; i++) {
      start[i] = links;
      const at = read ? i - read.from : -1;
      let ids: Int32Array;
      let from = 0;
      let found: number;
      if (at >= 0 && at < read!.count.length && read!.count[at] !== 0) {
        ids = read!.ids;
        from = read!.start[at];
        found = read!.count[at] - 1;
      } else {
        const content = index.content(i);
        if (!content) continue;
        found = salientTokenIds(stripLogNoise(content), tokens, scanned);
        ids = scanned.ids;
      }
      if (tokens.size > introducer.length) {
        const size = Math.max(tokens.size, introducer.length * 2);
        const old = introducer.length;
        introducer = scan.introducer = grow(introducer, size).fill(-1, old);
        lastUse = scan.lastUse = grow(lastUse, size);
      }
      let introducers = 0;
      for (let k = from, end = from + found; k < end; k++) {
        const id = ids[k];
        if (introducer[id] === -1) {
          introducer[id] = i;
          lastUse[id] = i;
          continue;
        }
        if (lastUse[id] === i) continue;
        lastUse[id] = i;
        const u = introducer[id];
        if (u === i) continue;
        if (count[u] === 0) touched[introducers++] = u;
        count[u]++;
      }
      if (links + introducers > scan.from.length) {
        const size = Math.max(links + introducers, scan.from.length * 2);
        scan.from = grown(scan.from, new Int32Array(size));
        scan.count = grown(scan.count, new Uint16Array(size));
      }
      for (let q = 0; q < introducers; q++) {
        const u = touched[q];
        scan.from[links] = u;
        scan.count[links++] = count[u];
        count[u] = 0;
      }
    }
  } finally {
    if (mark) arena.release(mark);
  }
  start[n] = links;
  return links;
}

/** `to` (a typed array of its own, longer than `from`) holding `from` then zeros. */
function grown<T extends Int32Array | Uint16Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/**
 * Propagates outcome and reward seeds backwards; returns the value per position. The values are
 * in the index's arena (they live as long as the index); the rest is scratch given back.
 */
export function propagateCredit(index: TraceIndex, outcome: Outcome, options: CreditOptions = {}): CreditValues {
  return withoutPauses(propagateSteps(index, outcome, options, new PauseClock(Infinity)));
}

/** {@link propagateCredit} with a pause between the content links and the propagation when `clock` says so. */
function* propagateSteps(index: TraceIndex, outcome: Outcome, options: CreditOptions, clock: PauseClock): Generator<Pause, CreditValues, void> {
  const n = index.size;
  // The content links first, the values above them: the values take no room while the tables that
  // find the links are out, the analysis's heaviest moment (8 MB less at 1M events). Then the
  // values move down over the links (arena.ts `compact`), and the rest is given back.
  const start = index.arena.mark();
  const content = n === 0 || options.contentLinks === false ? undefined : yield* contentLinkSteps(index, clock);
  if (clock.due()) yield* clock.pause();
  const values = index.arena.float64(n);
  const scratch = index.arena.mark();
  let passed: { terminal: number; changed?: readonly Int32Array[] };
  try {
    passed = yield* propagate(index, outcome, options, values, content, clock);
  } finally {
    index.arena.release(scratch);
  }
  return { values: index.arena.compact(start, [values] as const)[0], ...passed };
}

/**
 * Mass below this (in either sign) is not passed on: an event's credit is given to 1e-6
 * (credit-per-event.ts `round`), and all the mass left behind in a trace of a million events is
 * below 1e-12. Mass halves at each step back (lambda 0.5), so past about 60 steps from every seed
 * nothing is left to pass on: at 1M events the backward pass reads about a fifth of the positions
 * (30-40 ms less at each append of a followed trace, 50 ms less for a whole analysis).
 */
const MASS_FLOOR = 1e-18;

/**
 * Total seed mass (|R| + the sum of the rewards' |seeds|) under which a followed trace's credit per
 * event mends its last sums (credit-per-event.ts `CreditSumsCarry`): the pass keeps mass, so no sum
 * of values reaches it, and sums of whole millionths under a billion add exactly as doubles.
 */
const EXACT_SUMS = 1e9;

/** Positions of the outcome's backward pass between two looks at the pause clock. */
const PASS_PART = 1 << 16;

/**
 * {@link propagateCredit} into `values`, over `content` links (none when undefined), with a pause
 * between two blocks of rewards and two parts of the outcome's pass when `clock` says so (one pass
 * was a block of 120 ms at 1M events: a graph request waited for it). The outcome's seed and the
 * rewards' are passed back apart and added (credit-seeds.ts); a followed trace reads the rewards'
 * values its carry kept while they stand, and the passes of the blocks of rewards that stand.
 * @returns the position of the outcome seed (-1 for none), and for a followed trace the positions
 * whose values may have changed since its last analysis ({@link CreditValues}).
 */
function* propagate(index: TraceIndex, outcome: Outcome, options: CreditOptions, values: Float64Array, content: ContentLinks | undefined, clock: PauseClock): Generator<Pause, { terminal: number; changed?: readonly Int32Array[] }, void> {
  const n = index.size;
  const lambda = options.lambda ?? 0.5;
  if (n === 0) return { terminal: -1 };
  const arena = index.arena;
  const final = finalAnswer(index, 0, n - 1);
  let terminal = final ? final.pos : n - 1;
  while (terminal > 0 && (index.types[terminal] === 'stop' || index.types[terminal] === 'reward') && !final) terminal--;
  const plan = rewardPlan(index);

  // a followed trace's parents are kept from one append to the next (credit-transitions.ts): the same figures
  const carry = index.carry;
  const parents = new Parents(n, arena);
  const transitions = carry ? yield* carriedTransitions(index, content, parents, clock) : undefined;
  const rows = new ParentRows(index, content, parents, transitions);
  const passOn = (v: number) => (index.types[v] === 'stop' || index.types[v] === 'reward' ? 1 : lambda);

  // the rewards' values, by blocks of rewards (credit-seeds.ts): a followed trace keeps them while its plan
  // stands, and the blocks' passes while their seeds and the parents they reach do
  const last = carry?.rewardCredit;
  if (carry) carry.rewardCredit = undefined; // kept again once this pass is done
  let rewardValues: Float64Array | undefined;
  let kept = false;
  let madeAt = n;
  if (plan.top >= 0) {
    const stand = transitions ? keptPasses(last, plan, lambda, transitions.from) : plan.blocks.map(() => undefined);
    kept = last !== undefined && last.plan.blocks.length === plan.blocks.length && stand.every((pass) => pass !== undefined);
    if (kept) {
      rewardValues = grownTo(last!.values, n, last!.values.length, (size) => new Float64Array(size));
      madeAt = last!.madeAt;
    } else {
      // the blocks' scratch, zeros again after each block: a followed trace keeps it (16 MB made zero at each of its
      // rewards' appends at 1M), else made when a block is passed back
      let mass = last && last.mass.length >= 2 * n ? last.mass : undefined;
      const passes: BlockPass[] = [];
      let lists: BlockLists | undefined;
      for (let k = 0; k < plan.blocks.length; k++) {
        if (k > 0 && clock.due()) yield* clock.pause();
        if (!stand[k]) mass ??= carry ? new Float64Array(2 * Math.ceil(n * 1.25)) : arena.float64(2 * n);
        passes.push(stand[k] ?? passBlock(plan.blocks[k], rows, passOn, mass!, (lists ??= blockListsOf(carry))));
      }
      // a followed trace keeps them (in the last ones' memory when it has room): not in the arena, they outlive the index
      rewardValues = !carry ? arena.float64(n) : last && last.values.length >= n ? last.values.fill(0) : new Float64Array(Math.ceil(n * 1.25));
      addRewardValues(plan, passes, rewardValues);
      if (carry) carry.rewardCredit = { plan, passes, lambda, values: rewardValues, madeAt, mass: mass ?? last?.mass ?? new Float64Array(0) };
    }
    if (kept && carry) carry.rewardCredit = { ...last!, values: rewardValues };
    values.set(rewardValues.subarray(0, n));
  }

  // the outcome's: over the positions its mass reaches alone (a few thousand), taken latest first, so that
  // each is taken once every later one passed it its share, as in the pass over every position
  // (a followed trace keeps its zeros, made zero again where the pass went: 8 MB made zero at each append at 1M)
  let mass = carry?.outcomeMass;
  if (carry) carry.outcomeMass = undefined; // kept again once the pass is done
  if (!mass || mass.length < n) mass = carry ? new Float64Array(Math.ceil(n * 1.25)) : arena.float64(n);
  mass[terminal] = outcome.value ?? 1;
  const reached = new NumberHeap(new Float64Array(1024), 0, 1);
  reached.push(terminal);
  let taken = -1;
  // (a followed trace's: the positions it kept some of, to tell the next analysis which values may change; the positions taken)
  const left: number[] | undefined = carry ? [] : undefined;
  const popped: number[] | undefined = carry ? [] : undefined;
  for (let k = 1; reached.size > 0; k++) {
    if ((k & (PASS_PART - 1)) === 0 && clock.due()) yield* clock.pause();
    const v = reached.pop();
    popped?.push(v);
    // (a position reached again after its mass came back to zero is in the heap twice: taken once)
    if (v === taken) continue;
    taken = v;
    const m = mass[v];
    if (m < MASS_FLOOR && m > -MASS_FLOOR) continue;
    rows.of(v);
    passBack(v, m, passOn(v), rows, mass, values, reached);
    left?.push(v);
  }
  if (!carry) return { terminal };
  // every position mass came to was taken (mass moves to earlier positions, taken latest first): zeros again
  for (const v of popped!) mass[v] = 0;
  carry.outcomeMass = mass;
  // the values that may differ from the last analysis's: where the outcome's reached, then or now, while the
  // rewards' are the same (kept, or none now: none then either, as an append never takes a reward's seed away)
  const then = carry.outcomeReach;
  const reach = Int32Array.from(left!);
  carry.outcomeReach = reach;
  const exact = (mass: number) => mass + Math.abs(outcome.value ?? 1) < EXACT_SUMS;
  // the rewards passed back again (a reward came): theirs may differ where a block reached, now or then (a
  // block that stood is one pass, listed once; elsewhere the rewards' values were and are zero)
  const rewardsAgain = !kept && plan.top >= 0;
  if (!then || !exact(plan.mass) || (rewardsAgain && !(last && exact(last.plan.mass)))) return { terminal };
  const changed = [then, reach];
  if (rewardsAgain) {
    const now = carry.rewardCredit!.passes;
    for (const pass of now) changed.push(pass.reached);
    for (const pass of last!.passes) if (!now.includes(pass)) changed.push(pass.reached);
  }
  return { terminal, changed };
}

/**
 * Each position's parents in the backward pass and their weights, one position at a time: a
 * followed trace's transitions (credit-transitions.ts), or gathered when asked (a trace analysed
 * once), each parent's weight summed in first-seen order: the same figures either way.
 */
class ParentRows {
  /** The asked position's parents are `parent[from..to)` with their `weight`, summing to `sum`. */
  parent: Int32Array;
  weight: Float64Array;
  from = 0;
  to = 0;
  sum = 0;

  constructor(
    private readonly index: TraceIndex,
    private readonly content: ContentLinks | undefined,
    /** The gathering's scratch (credit-parents.ts): an event has a few parents, listed in place, its memory reused. */
    private readonly parents: Parents,
    private readonly transitions: CreditTransitions | undefined,
  ) {
    this.parent = transitions?.parent ?? new Int32Array(64);
    this.weight = transitions?.weight ?? new Float64Array(64);
  }

  /** Makes position v's parents the ones read. */
  of(v: number): void {
    const t = this.transitions;
    if (t) {
      this.from = t.start[v];
      this.to = t.start[v + 1];
    } else {
      const parents = this.parents;
      gatherParents(this.index, this.content, v, parents);
      if (parents.size > this.parent.length) {
        this.parent = new Int32Array(2 * parents.size);
        this.weight = new Float64Array(2 * parents.size);
      }
      this.to = parents.drain(this.parent, this.weight, 0);
    }
    // summed in first-seen order, as the gathering listed them (credit-parents.ts)
    let sum = 0;
    for (let q = this.from; q < this.to; q++) sum += this.weight[q];
    this.sum = sum;
  }
}

/**
 * One event's step of the backward pass for one seed's mass: the event at `v` keeps its share
 * (1 - passOn) of the mass `m` that reached it, in `values`, and passes the rest to its parents
 * (`rows`, made v's) in proportion to their weights, in `mass`; an event without parents keeps all
 * of it. @param reached when given, each parent the mass reaches while it holds none is pushed on it.
 */
function passBack(v: number, m: number, passOn: number, rows: ParentRows, mass: Float64Array, values: Float64Array, reached?: NumberHeap): void {
  const { parent, weight, from, to, sum } = rows;
  if (sum === 0) {
    values[v] += m;
    return;
  }
  values[v] += m * (1 - passOn);
  const pass = m * passOn;
  for (let q = from; q < to; q++) {
    const u = parent[q];
    if (reached && mass[u] === 0) reached.push(u);
    mass[u] += (pass * weight[q]) / sum;
  }
}

/**
 * One block of rewards passed back (credit-seeds.ts): the seeds of the rewards' values (a) and seeds
 * of 1 (b) at the same positions, passed back together over the positions their mass reaches, taken
 * latest first (each once every later one passed it its share), as the outcome's seed is: a block's
 * mass reaches a few thousand positions, but as far back as the first (a pass down to there read a
 * million positions at each reward's append).
 * @param mass scratch of twice the index's size, all zeros (zeros again on return): the masses of a
 * and b of position v at 2v and 2v + 1 (side by side: one read from memory, not two, as mass is passed).
 * @param out the lists the pass is written into (their entries are scratch: the pass returned is a copy).
 */
function passBlock(block: RewardBlock, rows: ParentRows, passOn: (v: number) => number, mass: Float64Array, out: BlockLists): BlockPass {
  const reached = new NumberHeap(new Float64Array(Math.max(64, 4 * block.at.length)), 0, 1);
  // (b is above zero exactly where mass came: seeds of 1 and positive weights; a may come back to zero)
  for (let k = 0; k < block.at.length; k++) {
    const v = block.at[k];
    if (mass[2 * v + 1] === 0) reached.push(v);
    mass[2 * v] += block.value[k];
    mass[2 * v + 1] += 1;
  }
  // what each position taken keeps, in the order taken: written into scratch lists reused from block to block, copied out at the end
  let count = 0;
  while (reached.size > 0) {
    const v = reached.pop();
    const mA = mass[2 * v];
    const mB = mass[2 * v + 1];
    mass[2 * v] = 0;
    mass[2 * v + 1] = 0;
    if (mA < MASS_FLOOR && mA > -MASS_FLOOR && mB < MASS_FLOOR) continue;
    rows.of(v);
    const { parent, weight, from, to, sum } = rows;
    if (count === out.at.length) out.grow();
    out.at[count] = v;
    if (sum === 0) {
      out.a[count] = mA;
      out.b[count++] = mB;
      continue;
    }
    const on = passOn(v);
    out.a[count] = mA * (1 - on);
    out.b[count++] = mB * (1 - on);
    const passA = mA * on;
    const passB = mB * on;
    for (let q = from; q < to; q++) {
      const u = parent[q];
      // (mass passed to a position not before this one is dropped, as by a pass over every position)
      if (u >= v) continue;
      if (mass[2 * u + 1] === 0) reached.push(u);
      mass[2 * u] += (passA * weight[q]) / sum;
      mass[2 * u + 1] += (passB * weight[q]) / sum;
    }
  }
  return { reached: out.at.slice(0, count), a: out.a.slice(0, count), b: out.b.slice(0, count) };
}

/**
 * The lists {@link passBlock} writes a block's pass into before copying them out, reused from block
 * to block (a block reaches up to hundreds of thousands of positions: lists of numbers grown by
 * push, then copied into typed arrays, were most of a reward's append's 20 MB of garbage at 1M
 * events). A followed trace keeps them from one analysis to the next ({@link blockListsOf}).
 */
class BlockLists {
  at = new Int32Array(1024);
  a = new Float64Array(1024);
  b = new Float64Array(1024);

  /** Twice the room, the entries kept. */
  grow(): void {
    const size = 2 * this.at.length;
    const at = new Int32Array(size);
    const a = new Float64Array(size);
    const b = new Float64Array(size);
    at.set(this.at);
    a.set(this.a);
    b.set(this.b);
    Object.assign(this, { at, a, b });
  }
}

/** A followed trace's {@link BlockLists}, per carry. */
const keptBlockLists = new WeakMap<object, BlockLists>();

/** The block lists of an analysis: its carry's (made once), else new. */
function blockListsOf(carry: object | undefined): BlockLists {
  if (!carry) return new BlockLists();
  let lists = keptBlockLists.get(carry);
  if (!lists) keptBlockLists.set(carry, (lists = new BlockLists()));
  return lists;
}

/**
 * Credit per event, agent and step, with producer values shown as given. `credit.events` (id ->
 * value, the first event of each id) and `credit.steps` (source record -> sum of its events'
 * values) are the same figures as `by_index`; each is built when first read (the editor and the
 * graph read the values' column, credit-column.ts `creditColumn`; at 1M events a record of a million
 * steps is 40 MB of allocations), and reads, spreads, JSON and structured clones see it as a plain
 * property. So is `by_index` of a followed trace's analysis made from the last one's (its column
 * shares the last one's chunks: a list of a million values per append is not made unless read).
 */
export function computeCredit(index: TraceIndex, outcome: Outcome, options: CreditOptions = {}): { credit: Credit; values: CreditValues } {
  return withoutPauses(creditSteps(index, outcome, options, new PauseClock(Infinity)));
}

/** {@link computeCredit} with a pause between its stages (content links, propagation, per event) when `clock` says so (src/analysis/pauses.ts). */
export function* creditSteps(index: TraceIndex, outcome: Outcome, options: CreditOptions, clock: PauseClock): Generator<Pause, { credit: Credit; values: CreditValues }, void> {
  const values = yield* propagateSteps(index, outcome, options, clock);
  if (clock.due()) yield* clock.pause();
  const { byIndex, column, stepOf, agents, given } = yield* creditPerEventSteps(index, values.values, clock, values.changed);
  const signed = outcome.value !== null;
  const credit: Credit = {
    events: {},
    by_index: byIndex ?? [],
    agents: Object.fromEntries(agents),
    steps: {},
    given,
    signed,
    method: `outcome-anchored backward propagation (lambda ${options.lambda ?? 0.5}) over causal and content links; R = ${outcome.value ?? '+1 (unsigned, no outcome signal)'} from ${outcome.source}`,
  };
  keepCreditColumn(credit, column);
  if (!byIndex) madeWhenRead(credit, 'by_index', () => column.toArray());
  // what the getters read must not hold the index: its arrays live in its arena (arena.ts), which the results never keep
  const idOf = eventFieldsOf(index.loaded).idReader();
  const at = index.inFileOrder ? undefined : Int32Array.from(index.rawIndex);
  madeWhenRead(credit, 'events', () => valuesById(idOf, at, column));
  // each position's record: kept when ids repeat (only an id's first event counts), else read from the origins (no column of them)
  const n = index.size;
  const origins = index.loaded.eventOrigins;
  const recordAt = stepOf ? (i: number) => stepOf[i] : (i: number) => origins.record(at ? at[i] : i) ?? -1;
  madeWhenRead(credit, 'steps', () => stepSums(n, recordAt, at, column));
  return { credit, values };
}

/**
 * Source record -> sum of the values of its events, added in time order and rounded after each
 * addition (keyed by String(record), as every number key is). @param n positions; @param recordAt
 * a position's record or -1; @param at position -> file index (undefined: the same).
 */
function stepSums(n: number, recordAt: (i: number) => number, at: Int32Array | undefined, values: CreditColumn): Record<string, number> {
  const steps: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const record = recordAt(i);
    if (record >= 0) steps[record] = round((steps[record] ?? 0) + values.at(at ? at[i] : i)!);
  }
  return steps;
}

/** Event id -> value of the first event (in time order) carrying it. @param at position -> file index (undefined: the same). */
function valuesById(idOf: (k: number) => string, at: Int32Array | undefined, values: CreditColumn): Record<string, number> {
  const out: Record<string, number> = {};
  // the column has one entry per event analysed (the file's list may have grown since)
  for (let i = 0; i < values.length; i++) {
    const k = at ? at[i] : i;
    const id = idOf(k);
    if (Object.prototype.hasOwnProperty.call(out, id)) continue;
    out[id] = values.at(k)!;
  }
  return out;
}

