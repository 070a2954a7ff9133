/**
 * Lanes folded into named groups when a trace has more agents than a graph can show as lanes
 * (issue #30 "Any shape, bounded": 1M events, each its own agent, are 1M lanes). Above
 * {@link FOLD_ABOVE} lanes, the busiest agents (at most {@link OWN_LANES}, each with more than one
 * event) keep their own lanes; every other lane folds into a group lane:
 * - by parent: a lane with a kept ancestor (its spawner, or its spawner's spawner…) folds into
 *   "sub-agents of <that ancestor>", placed under it;
 * - by name prefix: any other lane folds by its name without its trailing id (`worker_3#e123` and
 *   `worker_3#e124` into `worker_3#*`; ids are tokens holding a digit, or opaque hex); when that
 *   makes more than {@link MAX_GROUPS} groups, every trailing id is dropped (`worker_*`), then the
 *   smallest groups fold into one "other agents" lane.
 * So the lanes shown are at most OWN_LANES + 2·MAX_GROUPS + 1 per trace of the file, whatever the
 * number of agents, and the graph says what it folded ({@link FoldedLanes.text}).
 * O(lanes + the names' lengths); pure (no `vscode`, no DOM).
 */
import { lanesOfList, type GroupedLane, type LaneList } from './lanes';

/** Folding starts above this many lanes (a trace of up to this many agents shows each in its own lane). */
export const FOLD_ABOVE = 1_000;
/** Lanes kept as their own when folding: the busiest agents. */
export const OWN_LANES = 40;
/** Group lanes made at most per way of grouping (by parent, by name prefix) and trace; the rest fold into "other agents". */
export const MAX_GROUPS = 40;
/** Names of folded agents quoted per group lane's tooltip. */
const EXAMPLES = 3;

/** How a group lane was formed. */
export type FoldKind = 'parent' | 'prefix' | 'other';

/** A lane of the folded graph: a lane of its own (`of` the original lane's index) or a group lane. */
export interface FoldedLane {
  /** Unique among the folded lanes (a group's name ends in ` (folded)`, which no agent lane is called by the fold). */
  name: string;
  /** The lane's key (its agent's lane key; a group's: `trace NUL name`, or its name). */
  key: string;
  /** The original lane shown, for a lane of its own. */
  of?: number;
  /** A group lane: how it was formed, how many agents it holds and the first few of their names. */
  group?: { by: FoldKind; agents: number; examples: string[]; prefix?: string };
  /** The kept lane it sits under (a spawner), by name. */
  parent?: string;
  depth: number;
  trace?: string;
}

/** What the graph folded: shown in the header so a user knows the lanes are not one per agent. */
export interface FoldedLanes {
  /** Agents (lanes before folding). */
  agents: number;
  /** Agents folded into group lanes. */
  folded: number;
  /** Group lanes made. */
  groups: number;
  /** Ways of grouping used, in this order: `parent`, `prefix`, `other`. */
  by: FoldKind[];
  /** One line, e.g. `999,990 of 1,000,001 agents folded into 22 group lanes by name prefix; the 11 busiest agents keep their own lanes`. */
  text: string;
}

/**
 * The lanes after folding, and per original lane its folded lane; undefined when there are at most
 * {@link FOLD_ABOVE} lanes (nothing folds).
 * Reads each lane's agent, trace and spawner, and makes an object only of the lanes it keeps.
 * @param list the lanes in spawn-tree order (a lane's spawner before it), groups of a trace together.
 * @param counts events per lane (same order).
 */
export function foldLanes(list: LaneList | readonly GroupedLane[], counts: ArrayLike<number>): { lanes: FoldedLane[]; laneOf: Int32Array; folded: FoldedLanes } | undefined {
  const n = list.length;
  if (n <= FOLD_ABOVE) return undefined;
  const lanes: LaneList = isLaneList(list) ? list : lanesOfList(list);
  const kept = keptLanes(n, counts);
  const parentOf = (i: number): number => lanes.parentLane(i);
  // Nearest kept ancestor of every lane (spawners come first in tree order; -1 when none).
  const keptAbove = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const p = parentOf(i);
    if (p >= 0 && p < i) keptAbove[i] = kept[p] ? p : keptAbove[p];
  }
  // Group of every folded lane (typed, no string per lane): by its kept ancestor, else by name prefix per trace, else "other".
  const groupOf = new Int32Array(n).fill(-1);
  const groups: Group[] = [];
  const byAncestor = new Map<number, number>();
  const unplaced = new Map<string, number[]>(); // folded lanes without a kept ancestor, per trace
  for (let i = 0; i < n; i++) {
    if (kept[i]) continue;
    const above = keptAbove[i];
    if (above >= 0) {
      let g = byAncestor.get(above);
      if (g === undefined) byAncestor.set(above, (g = groups.push({ by: 'parent', parent: above, trace: lanes.trace(i), members: 0, examples: [] }) - 1));
      groupOf[i] = g;
    } else {
      const t = lanes.trace(i) ?? '';
      const own = unplaced.get(t);
      if (own) own.push(i);
      else unplaced.set(t, [i]);
    }
  }
  for (const own of unplaced.values()) {
    const { of, prefixes } = prefixGroups(own.length, (k) => lanes.agent(own[k]));
    const byPrefix = new Int32Array(prefixes.length + 1).fill(-1); // per prefix number (the last: "other"), its group
    for (let k = 0; k < own.length; k++) {
      const p = of[k] < 0 ? prefixes.length : of[k];
      let g = byPrefix[p];
      const prefix = p < prefixes.length ? prefixes[p] : undefined;
      if (g < 0) byPrefix[p] = g = groups.push({ by: prefix === undefined ? 'other' : 'prefix', prefix, trace: lanes.trace(own[k]), members: 0, examples: [] }) - 1;
      groupOf[own[k]] = g;
    }
  }
  for (let i = 0; i < n; i++) {
    const g = groupOf[i];
    if (g < 0) continue;
    groups[g].members++;
    if (groups[g].examples.length < EXAMPLES) groups[g].examples.push(lanes.agent(i));
  }
  const groupLane = (g: Group, depth: number): FoldedLane => {
    const parent = g.parent === undefined ? undefined : lanes.at(g.parent);
    const title = g.by === 'parent' ? `sub-agents of ${parent!.name}` : g.by === 'prefix' ? `${g.prefix === '' ? '(ids)' : g.prefix}*` : 'other agents';
    const name = `${title} (folded)${g.trace === undefined ? '' : ` · ${g.trace.slice(0, 8)}`}`;
    return {
      name,
      key: g.trace === undefined ? name : `${g.trace}\u0000${name}`,
      group: { by: g.by, agents: g.members, examples: g.examples, ...(g.prefix === undefined ? {} : { prefix: g.prefix }) },
      depth,
      ...(parent ? { parent: parent.name } : {}),
      ...(g.trace === undefined ? {} : { trace: g.trace }),
    };
  };
  // The folded lanes in tree order: kept lanes as they come, each parent group at the end of its
  // spawner's subtree, prefix groups (largest first) and "other agents" at the end of their trace.
  const out: FoldedLane[] = [];
  const shownIndex = new Int32Array(n).fill(-1);
  const groupIndex = new Int32Array(groups.length).fill(-1);
  const place = (g: number, depth: number) => {
    groupIndex[g] = out.length;
    out.push(groupLane(groups[g], depth));
  };
  /** Closes a kept lane's subtree: its group of sub-agents follows it. */
  const close = (k: number) => {
    const g = byAncestor.get(k);
    if (g !== undefined) place(g, out[shownIndex[k]].depth + 1);
  };
  const closeTrace = (trace: string) => {
    const rest = groups.map((_, g) => g).filter((g) => groups[g].by !== 'parent' && (groups[g].trace ?? '') === trace);
    rest.sort((x, y) => (groups[x].by === 'other' ? 1 : 0) - (groups[y].by === 'other' ? 1 : 0) || groups[y].members - groups[x].members);
    for (const g of rest) place(g, 0);
  };
  const open: number[] = [];
  let trace = n ? (lanes.trace(0) ?? '') : '';
  for (let i = 0; i < n; i++) {
    const t = lanes.trace(i) ?? '';
    if (t !== trace) {
      while (open.length) close(open.pop()!);
      closeTrace(trace);
      trace = t;
    }
    if (!kept[i]) continue;
    const above = keptAbove[i];
    while (open.length && open[open.length - 1] !== above) close(open.pop()!);
    const l = lanes.at(i);
    shownIndex[i] = out.length;
    out.push({ name: l.name, key: l.key, of: i, depth: above >= 0 ? out[shownIndex[above]].depth + 1 : 0, ...(above >= 0 ? { parent: lanes.at(above).name } : {}), ...(l.trace === undefined ? {} : { trace: l.trace }) });
    open.push(i);
  }
  while (open.length) close(open.pop()!);
  closeTrace(trace);
  const laneOf = new Int32Array(n);
  for (let i = 0; i < n; i++) laneOf[i] = kept[i] ? shownIndex[i] : groupIndex[groupOf[i]];
  return { lanes: out, laneOf, folded: foldedWords(n, out, kept) };
}

/** A group of folded lanes being made: how it groups, the kept lane it is under (by parent), its prefix, trace, size and first names. */
interface Group {
  by: FoldKind;
  parent?: number;
  prefix?: string;
  trace?: string;
  members: number;
  examples: string[];
}

/** True for a {@link LaneList} (not a list of lane objects). */
function isLaneList(list: LaneList | readonly GroupedLane[]): list is LaneList {
  return !Array.isArray(list);
}

/** Per lane of `n`: 1 when it keeps its own lane (the {@link OWN_LANES} busiest with more than one event; ties in lane order). */
function keptLanes(n: number, counts: ArrayLike<number>): Uint8Array {
  const kept = new Uint8Array(n);
  // the OWN_LANES largest counts by one pass keeping a small sorted list (no sort of every lane)
  const top: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = counts[i];
    if (c < 2 || (top.length === OWN_LANES && c <= counts[top[top.length - 1]])) continue;
    let at = top.length;
    while (at > 0 && counts[top[at - 1]] < c) at--;
    top.splice(at, 0, i);
    if (top.length > OWN_LANES) top.pop();
  }
  for (const i of top) kept[i] = 1;
  return kept;
}

/** Characters that separate a name's words (`worker_3#e123`, `Explore:a93ccab`, `team/agent-7`): # : / . _ - @ space |. */
function isSeparator(code: number): boolean {
  return code === 35 || code === 58 || code === 47 || code === 46 || code === 95 || code === 45 || code === 64 || code === 32 || code === 124;
}

/** True when `name[start, end)` is an id: it holds a digit, or is opaque hex of 6 or more characters. */
function isId(name: string, start: number, end: number): boolean {
  let hex = true;
  for (let k = start; k < end; k++) {
    const c = name.charCodeAt(k);
    if (c >= 48 && c <= 57) return true;
    if (!((c >= 97 && c <= 102) || (c >= 65 && c <= 70))) hex = false;
  }
  return hex && end - start >= 6;
}

/**
 * The length of a name without its last id token, separator kept (`worker_3#e123` -> 9, the
 * length of `worker_3#`; `Explore:a93ccab` -> 8; `a93ccab` -> 0); the name's length when it ends
 * in no id. `all`: without every trailing id (`worker_3#e123` -> 7, `worker_`).
 */
export function namePrefixLength(name: string, all = false): number {
  let cut = name.length;
  for (;;) {
    let end = cut;
    while (end > 0 && isSeparator(name.charCodeAt(end - 1))) end--;
    let start = end;
    while (start > 0 && !isSeparator(name.charCodeAt(start - 1))) start--;
    if (start === end || !isId(name, start, end)) return cut;
    cut = start;
    if (!all || cut === 0) return cut;
  }
}

/** The name cut to its {@link namePrefixLength} (`worker_3#e123` -> `worker_3#`; `all`: -> `worker_`). */
export function namePrefix(name: string, all = false): string {
  return name.slice(0, namePrefixLength(name, all));
}

/** Prefixes {@link prefixGroups} remembers (a power of two): the last seen per slot of their length and first and last characters. */
const RECENT_PREFIXES = 16;

/**
 * Folded lanes grouped by name prefix: one trailing id dropped, else (more than {@link MAX_GROUPS}
 * groups) every trailing id dropped; beyond MAX_GROUPS - 1 groups then, the smallest go to "other".
 * A group of a single agent is "other" too (a prefix that groups nothing says nothing).
 * @param count the names; @param nameOf the k-th name.
 * @returns `prefixes`: the prefixes that name a group; `of`: per name (same order), the number of
 *   its prefix in `prefixes`, or -1 for "other" (numbers, not a string per name, to be kept).
 */
function prefixGroups(count: number, nameOf: (k: number) => string): { of: Int32Array; prefixes: string[] } {
  const tally = (all: boolean) => {
    const number = new Map<string, number>();
    const sizes: number[] = [];
    const of = new Int32Array(count);
    // the prefixes met last, by a slot of their shape: names of one prefix come in runs (1M agents made 1M prefix
    // strings to look up, twice), and a name that starts with a remembered prefix of its cut's length has that prefix
    const recent: (string | undefined)[] = new Array(RECENT_PREFIXES).fill(undefined);
    const recentNumber = new Int32Array(RECENT_PREFIXES);
    for (let k = 0; k < count; k++) {
      const name = nameOf(k);
      const cut = namePrefixLength(name, all);
      const slot = (cut + (cut ? name.charCodeAt(0) + 31 * name.charCodeAt(cut - 1) : 0)) & (RECENT_PREFIXES - 1);
      const known = recent[slot];
      let x: number | undefined;
      if (known !== undefined && known.length === cut && name.startsWith(known)) x = recentNumber[slot];
      else {
        const p = name.slice(0, cut);
        x = number.get(p);
        if (x === undefined) {
          number.set(p, (x = sizes.length));
          sizes.push(0);
        }
        recent[slot] = p;
        recentNumber[slot] = x;
      }
      sizes[x]++;
      of[k] = x;
    }
    return { names: [...number.keys()], sizes, of };
  };
  let t = tally(false);
  let groups = 0;
  for (const c of t.sizes) if (c > 1) groups++;
  if (groups > MAX_GROUPS) t = tally(true);
  // as a stable sort of [prefix, size] in first-seen order by size, largest first
  const sized = t.sizes.map((_, x) => x).filter((x) => t.sizes[x] > 1).sort((a, b) => t.sizes[b] - t.sizes[a] || a - b);
  const room = sized.length > MAX_GROUPS ? MAX_GROUPS - 1 : MAX_GROUPS;
  const named = sized.slice(0, room);
  const renumber = new Int32Array(t.sizes.length).fill(-1);
  named.forEach((x, k) => (renumber[x] = k));
  const of = t.of;
  for (let k = 0; k < count; k++) of[k] = renumber[of[k]];
  return { of, prefixes: named.map((x) => t.names[x]) };
}

/** What was folded, in numbers and one line. */
function foldedWords(agents: number, lanes: readonly FoldedLane[], kept: Uint8Array): FoldedLanes {
  const groups = lanes.filter((l) => l.group);
  const folded = groups.reduce((sum, l) => sum + l.group!.agents, 0);
  const by = (['parent', 'prefix', 'other'] as const).filter((k) => groups.some((l) => l.group!.by === k));
  const own = kept.reduce((sum, k) => sum + k, 0);
  const how = by.filter((k) => k !== 'other').map((k) => (k === 'parent' ? 'by the agent that spawned them' : 'by name prefix'));
  const n = (x: number) => x.toLocaleString('en-US');
  const text =
    `${n(folded)} of ${n(agents)} agents folded into ${n(groups.length)} group lane${groups.length === 1 ? '' : 's'}` +
    (how.length ? ` ${how.join(', else ')}` : '') +
    (by.includes('other') ? `${how.length ? ' (the rest as "other agents")' : ' ("other agents")'}` : '') +
    (own === 1 ? '; the busiest agent keeps its own lane' : own > 1 ? `; the ${n(own)} busiest agents keep their own lanes` : '');
  return { agents, folded, groups: groups.length, by, text };
}
