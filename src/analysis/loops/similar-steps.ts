/**
 * repeated_sequence with `match: 'similar'` (near-duplicate steps): an agent restating the same
 * step in the same context (its `phase`, else its receiver): near-duplicate dialogue (content-word
 * resemblance >= 0.5, Broder 1997) three times, or twice near-identically; or the same code
 * artifact produced again unchanged (MAST 1.3).
 */
import type { TraceIndex } from '../trace-index';
import type { Arena } from '../arena';
import { contentWords, fencedCode, fnv1a, wordTokens } from '../text';
import { causesBefore, isInjected, opensDelegation } from './agent-output';
import type { RawLoop } from './raw-loop';
import { sameIds, StepSets, WordIds } from './word-sets';
import { toolLanesKey, withRoom } from '../prefix-carry';
import { upperBound } from '../sorted';
import { countWords } from '../../shared/count-words';

/** Fewest content words of a dialogue step; shorter outputs are signals (acks, `TERMINATE`, `<INFO> Finished`). */
const MIN_STEP_WORDS = 8;
/** A step said twice counts only when near-identical (Broder's near-duplicate level) and this long. */
const MIN_ECHO_WORDS = 20;
const NEAR_IDENTICAL = 0.9;
const STEP_TYPES = new Set(['message', 'return', 'aggregate']);

/**
 * Near-duplicate steps (a repeated_sequence with `match: 'similar'`): an agent restating the same step in the same context. Steps are agent outputs
 * (message, return, aggregate; not tool lanes) with >= {@link MIN_STEP_WORDS} content words (fenced code
 * removed: artifacts repeat only when unchanged, which the fingerprints find). Context = the agent and
 * the event's `phase` when the trace names phases, else its receiver. A delegated conversation's
 * opening message (the event right after a `delegate` addressed to its agent) restates the assignment
 * and is skipped, as is a `return` that echoes the agent's previous step. Each step is linked to the
 * most resembling earlier step of its context when their resemblance is >= `threshold` (Broder 1997:
 * 0.5 = "roughly the same"); a linked group is a loop when it has >= 3 steps, or 2 near-identical
 * (>= 0.9) steps of >= {@link MIN_ECHO_WORDS} words. Separately, a step whose fenced code (>= 20 word
 * tokens) is identical, white space aside, to an earlier step of the same context is an artifact
 * produced again unchanged (a revision that revised nothing): a loop from 2 occurrences. Cost: O(n * k) word-set comparisons, k = steps of
 * the same context (at most the last 32 are compared).
 */
export function repeatedSteps(index: TraceIndex, threshold: number): RawLoop[] {
  const scan = carriedScan(index, threshold) ?? new StepScan(index.size, threshold, index.arena);
  scan.scan(index);
  return scan.loops(index);
}

/**
 * The scan a growing trace's carry (prefix-carry.ts) keeps, when it can go on from the carry's
 * positions: it scanned exactly them, with the same threshold, and what it read of them is still
 * so (the same tool lanes, the same lanes so that no old event's `to` names a new one, and no
 * step named as its cause an id no earlier event carried, which a new event may carry:
 * `opensDelegation`). Else a new scan kept on the carry (typed arrays of its own); undefined without a carry.
 */
function carriedScan(index: TraceIndex, threshold: number): StepScan | undefined {
  const carry = index.carry;
  if (!carry) return undefined;
  const kept = carry.steps;
  const lanes = toolLanesKey(index.toolLanes);
  if (kept && kept.scan.scanned === carry.count && carry.count <= index.size && kept.scan.threshold === threshold && kept.toolLanes === lanes && kept.lanes === index.lanes.size && !kept.scan.forwardCauses) return kept.scan;
  const scan = new StepScan(index.size, threshold, undefined);
  carry.steps = { scan, toolLanes: lanes, lanes: index.lanes.size };
  return scan;
}

/**
 * The state of {@link repeatedSteps}'s scan in time order, which can go on over positions appended
 * later (a growing trace) and give the loops of what it scanned at any point.
 */
export class StepScan {
  /** Positions scanned: [0, scanned). */
  scanned = 0;
  /** True when a step's test read a cause id that no earlier event carried (a later one may: the scan cannot go on then). */
  forwardCauses = false;
  private readonly contexts = new Map<string, AgentContexts>();
  private readonly lastStep = new Map<string, { from: number; to: number; code: string }>();
  private readonly vocabulary: WordIds;
  private readonly artifacts = new Map<string, number[]>();
  /** Union-find over the steps compared (-1: not a step). */
  private parent: Int32Array;
  /** Member -> highest resemblance that linked it. */
  private best: Float64Array;
  /** The groups of two steps or more: root (the group's first step) -> its steps, ascending (a new step only ever joins a group). */
  private readonly groups = new Map<number, number[]>();
  /** The groups' roots, ascending (the order their loops are given in). */
  private readonly roots: number[] = [];
  /** The steps of an artifact produced twice or more (a group all of whose steps are is not given again as similar steps). */
  private readonly inArtifact = new Set<number>();
  /**
   * The loop {@link loops} made of each group (by root; undefined: none) and of each artifact (by
   * key), with the number of steps it had then: a scan kept between the analyses of a followed trace
   * gives the same loop again while its group is the same (at 1M events the bench trace has a few
   * hundred groups, of 163k steps; making every loop again was 5 ms of each append, 20 of the
   * first ones, and 3 MB of copies). A group's resemblances change only as it takes a step, and a
   * group whose step joins an artifact is made again.
   */
  private readonly madeGroups = new Map<number, { size: number; loop: RawLoop | undefined }>();
  private readonly madeArtifacts = new Map<string, { size: number; loop: RawLoop }>();
  private readonly sets: StepSets;

  /**
   * @param expected positions to come (tables grow past it); @param threshold the resemblance that links two steps.
   * @param arena where the tables are made (scratch of one analysis), else typed arrays of their own (a scan kept between analyses).
   */
  constructor(
    expected: number,
    readonly threshold: number,
    private readonly arena: Arena | undefined,
  ) {
    this.vocabulary = new WordIds(arena, expected);
    // a kept scan (a followed trace's) with room for the appends to come
    this.parent = arena ? arena.int32(expected, -1) : new Int32Array(withRoom(expected)).fill(-1);
    this.best = arena ? arena.float64(expected) : new Float64Array(this.parent.length);
    this.sets = new StepSets(arena, expected);
  }

  /** Scans the positions of `index` from {@link scanned} to its end. */
  scan(index: TraceIndex): void {
    const n = index.size;
    this.reserve(n);
    const { contexts, lastStep, vocabulary, artifacts, parent, best, sets, threshold, groups } = this;
    for (let i = this.scanned; i < n; i++) {
      if (!STEP_TYPES.has(index.types[i]) || (index.injected > 0 && isInjected(index, i))) continue;
      const agent = index.agentOf(i);
      if (index.toolLanes.has(agent)) continue;
      if (index.types[i] === 'message' && !causesBefore(index, i)) this.forwardCauses = true;
      if (opensDelegation(index, i)) continue;
      const text = index.content(i);
      const from = vocabulary.add(text); // the content words as ids, in text order: vocabulary.ids[from, to)
      const to = vocabulary.length;
      const ids = vocabulary.ids;
      const code = fencedCode(text);
      const previous = lastStep.get(agent);
      const echo = index.types[i] === 'return' && previous !== undefined && previous.code === code && sameIds(ids, previous.from, previous.to, from, to);
      if (previous) {
        previous.from = from;
        previous.to = to;
        previous.code = code;
      } else lastStep.set(agent, { from, to, code });
      if (echo) continue;
      const phase = index.extraOf(i, 'phase');
      if (code && wordTokens(code).size >= MIN_ECHO_WORDS) {
        const key = `${agent}\u0000${typeof phase === 'string' ? `phase:${phase}` : `to:${index.receiver(i) ?? ''}`}`;
        const artifact = `${key}\u0000${code.length}\u0000${fnv1a(code)}\u0000${fnv1a(code, 0x2545f491)}`;
        let same = artifacts.get(artifact);
        if (!same) artifacts.set(artifact, (same = []));
        same.push(i);
        if (same.length === 2) this.joinsArtifact(same[0]);
        if (same.length >= 2) this.joinsArtifact(i);
      }
      const size = to - from;
      if (size < MIN_STEP_WORDS) continue;
      const context = stepContextOf(contexts, agent, typeof phase === 'string' ? phase : undefined, index.receiver(i) ?? '');
      parent[i] = i;
      let top = 0;
      let match = -1;
      // resemblance |A ∩ B| / |A ∪ B| (Broder 1997) against each of the last 32 steps (StepSets says how the shared words are counted)
      sets.add(ids, from, to, vocabulary.size);
      const { lo, hi, highFrom } = sets;
      for (let back = 0; back < Math.min(context.count, RECENT_STEPS); back++) {
        const k = (context.count - 1 - back) % RECENT_STEPS; // the latest step first
        const otherSize = context.size[k];
        // the resemblance is at most min/max of the sizes: a step that cannot beat the best so far,
        // or reach the threshold, is not counted (the best and whether it links are the same)
        const bound = Math.min(size, otherSize) / Math.max(size, otherSize);
        if (bound <= top || bound < threshold) continue;
        // nor is one that shares fewer words than it needs to count
        const need = neededShared(size + otherSize, Math.min(size, otherSize), top, threshold);
        const shared = sets.sharedWith(otherSize, context.lo[k], context.hi[k], context.highFrom[k], need);
        if (shared === -1) continue;
        const r = shared / (size + otherSize - shared);
        if (r > top) {
          top = r;
          match = context.pos[k];
        }
      }
      if (match !== -1 && top >= threshold) {
        // i is a new step, its own root: it joins its match's group (a root is its group's first step, every member's parent)
        const root = rootOf(parent, match);
        parent[i] = root;
        const group = groups.get(root);
        if (group) group.push(i);
        else {
          groups.set(root, [root, i]);
          this.roots.splice(upperBound(this.roots, root), 0, root);
        }
        best[i] = top;
        best[match] = Math.max(best[match], top);
      }
      const k = context.count++ % RECENT_STEPS;
      context.pos[k] = i;
      context.size[k] = size;
      context.lo[k] = lo;
      context.hi[k] = hi;
      context.highFrom[k] = highFrom;
    }
    this.scanned = n;
  }

  /** Notes that step `i` is in an artifact produced again: the loop of its group, if it has one, is made again. */
  private joinsArtifact(i: number): void {
    this.inArtifact.add(i);
    if (this.parent[i] !== -1) this.madeGroups.delete(rootOf(this.parent, i));
  }

  /** The loops of the positions scanned (see {@link repeatedSteps}), each made when its group or artifact changed (else the one made before); scratch in `index`'s arena. */
  loops(index: TraceIndex): RawLoop[] {
    const out: RawLoop[] = [];
    for (const [key, members] of this.artifacts) {
      if (members.length < 2) continue;
      let made = this.madeArtifacts.get(key);
      if (made?.size !== members.length) {
        made = { size: members.length, loop: similarSteps(members.slice(), `${index.agentOf(members[0])} produced the same code unchanged${stepContext(index, members[0])} ${countWords(members.length, 'time')}`) };
        this.madeArtifacts.set(key, made);
      }
      out.push(made.loop);
    }
    // in the order of their first steps
    for (const root of this.roots) {
      const members = this.groups.get(root)!;
      let made = this.madeGroups.get(root);
      if (made?.size !== members.length) {
        made = { size: members.length, loop: this.groupLoop(index, members) };
        this.madeGroups.set(root, made);
      }
      if (made.loop) out.push(made.loop);
    }
    return out;
  }

  /** The loop of a group of steps (a copy of its list: the list goes on with the scan), or undefined when it is not one. */
  private groupLoop(index: TraceIndex, group: readonly number[]): RawLoop | undefined {
    const { best, inArtifact } = this;
    if (group.every((i) => inArtifact.has(i))) return undefined;
    const echo = group.length === 2 && group.every((i) => best[i] >= NEAR_IDENTICAL && contentWords(index.content(i)).size >= MIN_ECHO_WORDS);
    if (group.length < 3 && !echo) return undefined;
    // (a loop, not Math.min(...): a group of a few hundred thousand steps is past the arguments a call takes)
    let low = Infinity;
    for (const i of group) low = Math.min(low, best[i]);
    // plain words in the message; the resemblance that joined them is the loop's evidence (`resemblance`)
    const label = `${index.agentOf(group[0])} repeated nearly the same step${stepContext(index, group[0])} ${countWords(group.length, 'time')}, in mostly the same words`;
    return similarSteps(group.slice(), label, Math.floor(low * 100) / 100);
  }

  /** Room for `n` positions in the per-position tables (kept). */
  private reserve(n: number): void {
    if (this.parent.length >= n) return;
    const size = Math.max(withRoom(n), Math.ceil(this.parent.length * 1.5));
    const parent = this.arena ? this.arena.int32(size, -1) : new Int32Array(size).fill(-1);
    parent.set(this.parent);
    const best = this.arena ? this.arena.float64(size) : new Float64Array(size);
    best.set(this.best);
    this.parent = parent;
    this.best = best;
  }
}


/** Steps of a context each step is compared with: the latest ones. */
const RECENT_STEPS = 32;

/**
 * The latest {@link RECENT_STEPS} steps of one context: their positions, numbers of words and word
 * sets ({@link StepSets}), as parallel lists of numbers used as rings (step number `count - 1` is
 * the latest, at `(count - 1) % RECENT_STEPS`).
 */
interface StepContext {
  count: number;
  pos: number[];
  size: number[];
  lo: number[];
  hi: number[];
  highFrom: number[];
}

/** An agent's step contexts: by phase, and by receiver ('' for none) for steps without a phase. */
interface AgentContexts {
  phases: Map<string, StepContext>;
  receivers: Map<string, StepContext>;
}

/** The context of a step of `agent`: its phase when it has one, else its receiver (found without making a key string per step). */
function stepContextOf(contexts: Map<string, AgentContexts>, agent: string, phase: string | undefined, receiver: string): StepContext {
  let mine = contexts.get(agent);
  if (!mine) contexts.set(agent, (mine = { phases: new Map(), receivers: new Map() }));
  const byName = phase === undefined ? mine.receivers : mine.phases;
  const name = phase ?? receiver;
  let context = byName.get(name);
  if (!context) byName.set(name, (context = { count: 0, pos: [], size: [], lo: [], hi: [], highFrom: [] }));
  return context;
}

/**
 * The fewest shared words s (at most `most`) for which two steps of `total` words between them
 * resemble each other more than `top` and at least `threshold`, s / (total - s) computed as
 * {@link repeatedSteps} does; `most + 1` when no s does. That figure grows with s, so the first s
 * that passes is found from an estimate by a step or two.
 */
function neededShared(total: number, most: number, top: number, threshold: number): number {
  const t = Math.max(top, threshold);
  let s = Math.max(0, Math.min(most + 1, Math.floor((t * total) / (1 + t))));
  while (s > 0 && resemblesEnough(s - 1, total, top, threshold)) s--;
  while (s <= most && !resemblesEnough(s, total, top, threshold)) s++;
  return s;
}

function resemblesEnough(shared: number, total: number, top: number, threshold: number): boolean {
  const r = shared / (total - shared);
  return r > top && r >= threshold;
}

/** The root of `x` in the union-find `parent` (a module function: a closure made per call would make compiled callers deopt on the next call). */
function rootOf(parent: Int32Array, x: number): number {
  let r = x;
  while (parent[r] !== r) r = parent[r];
  return r;
}

/** A loop of near-duplicate steps: each member is one repetition. */
function similarSteps(members: number[], label: string, resemblance?: number): RawLoop {
  return { kind: 'repeated_sequence', match: 'similar', members, repeated: members.slice(1), period: 1, repetitions: members.length, label, ...(resemblance === undefined ? {} : { resemblance }) };
}

/** Where a step was said, for messages: ` in <phase>` or ` to <receiver>`. */
function stepContext(index: TraceIndex, i: number): string {
  const phase = index.extraOf(i, 'phase');
  if (typeof phase === 'string') return ` in ${phase}`;
  const receiver = index.receiver(i);
  return receiver ? ` to ${receiver}` : '';
}
