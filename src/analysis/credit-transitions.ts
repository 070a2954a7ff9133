/**
 * The parents of each position in credit's backward pass (credit.ts `propagate`) and their
 * weights, kept between the analyses of a followed trace. They depend on the index's links into
 * the position and on its content links, never on the seeds: an append, whose links into the old
 * positions are carried as they were (index-links.ts `appended`), gathers the new positions'
 * parents alone, and the pass reads flat arrays instead of gathering every position again (the
 * gathering was nine tenths of the pass: 100-115 ms of each append at 1M events).
 *
 * Each position's parents are kept in the order the gathering sees them and each weight as summed
 * there; the pass sums them in that order, as the gathering does, and divides and adds in the same
 * order: its figures are the same, to the last bit, as the pass that gathers as it goes.
 */
import type { ContentLinks } from './credit';
import type { Parents } from './credit-parents';
import { EDGE_TYPE_CODE, LINK_KINDS, type LinkKind } from './link-table';
import { PauseClock, type Pause } from './pauses';
import { grownTo } from './prefix-carry';
import type { TraceIndex } from './trace-index';

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

/** Link weights by kind code (link-table.ts), and the code of `temporal` edges (weight 0.5). */
export const WEIGHT_BY_CODE = Float64Array.from(LINK_KINDS, (kind) => LINK_WEIGHT[kind]);
export const TEMPORAL = EDGE_TYPE_CODE.get('temporal');

/** Positions gathered between two looks at the pause clock. */
const GATHER_PART = 1 << 16;

/**
 * Gathers position v's parents into `parents` (cleared first): its links from the index, weighted
 * by kind, then its content links, each weighted by the share of v's tokens taken from that parent.
 */
export function gatherParents(index: TraceIndex, content: ContentLinks | undefined, v: number, parents: Parents): void {
  parents.clear();
  for (let q = index.inStart[v]; q < index.inStart[v + 1]; q++) {
    const k = index.inLinks[q];
    parents.add(index.linkU[k], index.linkEdgeType[k] === TEMPORAL ? 0.5 : WEIGHT_BY_CODE[index.linkKind[k]]);
  }
  if (content) addContentWeights(content, v, parents);
}

/**
 * Adds v's content links to its parents' weights: each earlier introducer u gets the share of v's
 * tokens taken from it, count / total (the same division, so the same figure, as a share computed
 * when the links were found).
 */
function addContentWeights(content: ContentLinks, v: number, parents: Parents): void {
  const { start, from, count } = content;
  let total = 0;
  for (let k = start[v]; k < start[v + 1]; k++) total += count[k];
  for (let k = start[v]; k < start[v + 1]; k++) {
    const u = from[k];
    if (u >= v) continue;
    parents.add(u, count[k] / total);
  }
}

/**
 * Per position v of [0, {@link count}): its parents `parent[start[v] .. start[v + 1])` with their
 * `weight` (their sum, in that order, is the total the gathering made). Typed arrays of its own,
 * with room to grow: they outlive the index (a followed trace's carry keeps them, prefix-carry.ts):
 * 12 bytes a parent, 4 a position: 53 MB at 1M events of the bench (4.1 parents each), 70 MB with the room grown.
 */
export class CreditTransitions {
  /** Positions gathered. */
  count = 0;
  /** Where the last {@link extend} began: the positions before it were carried. */
  from = 0;
  start: Int32Array = new Int32Array(1);
  parent: Int32Array = new Int32Array(0);
  weight: Float64Array = new Float64Array(0);
  /** The index's links into the positions gathered (its `inStart[count]`) and their content links (`start[count]`): the same once carried. */
  links = 0;
  contentLinks = 0;

  /**
   * Keeps the first `count` positions only (fewer than gathered): the links into the later ones changed.
   * @param index, content the index and content links of the analysis to come (the same rows and content links for those positions).
   */
  truncate(count: number, index: TraceIndex, content: ContentLinks | undefined): void {
    this.count = count;
    this.links = index.inStart[count];
    this.contentLinks = content ? content.start[count] : 0;
  }

  /**
   * Gathers the positions from {@link count} to the index's end (pausing when `clock` says so).
   * @param parents the gathering's scratch (credit-parents.ts).
   */
  *extend(index: TraceIndex, content: ContentLinks | undefined, parents: Parents, clock: PauseClock): Generator<Pause, void, void> {
    const n = index.size;
    this.from = this.count;
    this.start = grownTo(this.start, n + 1, this.count + 1, (size) => new Int32Array(size));
    let at = this.start[this.count];
    // room for the most parents the positions can have (one per link into them and per content link) at once:
    // grown by half as they came, the lists were copied 15 times at 1M events (150 MB of typed arrays, whose
    // external memory starts the collector's full collections)
    const most = at + index.inStart[n] - index.inStart[this.count] + (content ? content.start[n] - content.start[this.count] : 0);
    this.parent = grownTo(this.parent, most, at, (size) => new Int32Array(size));
    this.weight = grownTo(this.weight, most, at, (size) => new Float64Array(size));
    for (let v = this.count, since = 0; v < n; v++) {
      if (++since === GATHER_PART) {
        since = 0;
        if (clock.due()) yield* clock.pause();
      }
      gatherParents(index, content, v, parents);
      this.parent = grownTo(this.parent, at + parents.size, at, (size) => new Int32Array(size));
      this.weight = grownTo(this.weight, at + parents.size, at, (size) => new Float64Array(size));
      at += parents.drain(this.parent, this.weight, at);
      this.start[v + 1] = at;
    }
    this.count = n;
    this.links = index.inStart[n];
    this.contentLinks = content ? content.start[n] : 0;
  }
}

/**
 * The transitions of every position of a followed trace's index: the carry's, gathered on from
 * where they stand: the positions whose links into them are the ones they were gathered from (the
 * index says how many: `linksMade.stand`, index-links.ts) and whose content links are; else
 * gathered anew. Kept on the carry. @returns the transitions of [0, index.size).
 */
export function* carriedTransitions(index: TraceIndex, content: ContentLinks | undefined, parents: Parents, clock: PauseClock): Generator<Pause, CreditTransitions, void> {
  const carry = index.carry!;
  let t = carry.transitions;
  const stand = index.linksMade.stand;
  // (an index that kept every carried row has the same number of links into them; the content links of the old positions are carried as they were)
  const stands = t !== undefined && t.count <= index.size && stand > 0 && (stand < t.count || index.inStart[t.count] === t.links) && (content ? content.start[t.count] : 0) === t.contentLinks;
  if (!stands || !t) t = new CreditTransitions();
  else if (stand < t.count) t.truncate(stand, index, content);
  // kept again once gathered to the end (a pause that ends the analysis leaves none)
  carry.transitions = undefined;
  yield* t.extend(index, content, parents, clock);
  carry.transitions = t;
  return t;
}
