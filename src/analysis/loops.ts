/**
 * Loops: repeated work across agents and turns, in four kinds.
 *
 * - repeated_tool_call: the same agent calls the same tool with the same arguments (the call's
 *   content, exactly, keyed by length and two 32-bit FNV-1a hashes) again, with no state change in
 *   between, and gets the same result: nothing new was learned. One hash-map pass, then each repeated group split by agent and result:
 *   O(n).
 * - repeated_sequence: per lane, a tandem repeat of the sequence of event fingerprints (agent, type,
 *   target, normalized content): a block of p events occurring >= 2 times back to back. For each
 *   period p = 1..maxPeriod, one scan compares f[i] with f[i+p] (only where f[i+p] is a repeated
 *   fingerprint); a maximal run of L matches is a segment of L + p events with period p (Main &
 *   Lorentz's tandem-repeat definition, found here by the direct O(n * maxPeriod) scan, near-linear
 *   for a fixed maxPeriod). Smaller periods win; a
 *   block that is itself periodic is skipped (it is found with its primitive period). A single
 *   event must occur 3 times in a row (twice is an echo, e.g. a proxy's fixed auto-reply).
 * - ping_pong, and cycles: consecutive hand-offs (message, delegate, return, spawn) going round the
 *   same agents, A -> B -> A -> B ... (period 2, `ping_pong`) or A -> B -> C -> A ... (period 3 or 4,
 *   a `repeated_sequence` over the interleaved stream of all lanes, reported once with its agents),
 *   where each hand-off of a later round adds almost no new content (same fingerprint as the one a
 *   round before, content words resembling it >= 0.5, or < 10 % new words). Events of other agents
 *   between the hand-offs do not break the cycle.
 * - repeated_sequence with `match: 'similar'` (near-duplicate steps): an agent restating the same step in the same context (its `phase`, else its
 *   receiver): near-duplicate dialogue (content-word resemblance >= 0.5, Broder 1997) three times, or
 *   twice near-identically; or the same code artifact produced again unchanged (MAST 1.3).
 *
 * Costs of a loop are the tokens and seconds of the repetitions after the first (for a ping-pong,
 * the tokens of every event in that span, since each round trip carries the work in between). A loop is
 * `unresolved` when no event with new content (a fingerprint never seen before; stops, rewards and
 * despawns ignored) comes after its last member: the trace ended inside it.
 */
import { preview, shortPath } from '../trace/preview';
import { NOT_AGENT_OUTPUT_KINDS } from '../trace/schema';
import type { Loop } from './types';
import type { TraceIndex } from './trace-index';
import type { Arena } from './arena';
import { TokenInterner } from './interner';
import { PairNumbering } from './pair-table';
import { isStateChange } from './state-change';
import { contentWords, fencedCode, fnv1a, forEachContentWordId, FUNCTION_WORDS, resemblance, wordTokens } from './text';

export interface LoopOptions {
  /** Longest repeated block looked for, in events (default 16). */
  maxPeriod?: number;
  /** A hand-off adds "no new content" below this share of new words (default 0.1). */
  noveltyThreshold?: number;
  /** Two dialogue steps are "roughly the same" at or above this resemblance of their content words (default 0.5). */
  stepResemblance?: number;
}

/** Finds the loops of a trace; loops are returned in order of their first member. */
export function findLoops(index: TraceIndex, options: LoopOptions = {}): Loop[] {
  const maxPeriod = options.maxPeriod ?? 16;
  const noveltyThreshold = options.noveltyThreshold ?? 0.1;
  const lastNew = lastNewContent(index);
  const loops: Loop[] = [];
  const toolLoops = repeatedToolCalls(index);
  const inToolLoop = new Set<number>();
  for (const l of toolLoops) for (const i of l.members) inToolLoop.add(i);
  for (const i of [...inToolLoop]) if (index.resultOf(i) !== -1) inToolLoop.add(index.resultOf(i));
  for (const l of toolLoops) loops.push(finish(index, l, lastNew));
  // a ping-pong or a repeated tool call is reported once, not again as each lane's repeated sequence
  const inPingPong = new Set<number>();
  for (const l of pingPongs(index, noveltyThreshold, options.stepResemblance ?? 0.5)) {
    for (const i of l.members) inPingPong.add(i);
    loops.push(finish(index, l, lastNew));
  }
  const inSequence = new Set<number>();
  for (const l of repeatedSequences(index, maxPeriod)) {
    if (l.members.every((i) => inToolLoop.has(i) || inPingPong.has(i) || index.types[i] === 'tool_result')) continue;
    for (const i of l.members) inSequence.add(i);
    loops.push(finish(index, l, lastNew));
  }
  // near-duplicate steps not already reported as another kind of loop (their word ids are scratch in the arena, given back once found)
  const scratch = index.arena.mark();
  let steps: RawLoop[];
  try {
    steps = repeatedSteps(index, options.stepResemblance ?? 0.5);
  } finally {
    index.arena.release(scratch);
  }
  for (const l of steps) {
    if (l.members.every((i) => inToolLoop.has(i) || inPingPong.has(i) || inSequence.has(i))) continue;
    loops.push(finish(index, l, lastNew));
  }
  loops.sort((a, b) => (index.pos.get(a.events[0]) ?? 0) - (index.pos.get(b.events[0]) ?? 0));
  return loops;
}

/** A loop before its costs are added: member positions, and where the repetitions start. */
interface RawLoop {
  kind: Loop['kind'];
  members: number[];
  /** Positions whose cost counts as the repetition's (the members after the first unit). */
  repeated: number[];
  /** For sequences and ping-pongs: the span [from, to] of positions whose tokens count. */
  span?: [number, number];
  period: number;
  repetitions: number;
  label: string;
  /** `similar` for near-duplicate steps (content-word resemblance), not identical fingerprints. */
  match?: 'similar';
  /** Near-duplicate steps: the lowest content-word resemblance that joined a step to the others (0..1, two decimals, rounded down). */
  resemblance?: number;
}

/** Last position holding an event with a never-seen fingerprint (stop, reward, despawn ignored). */
function lastNewContent(index: TraceIndex): number {
  for (let i = index.size - 1; i >= 0; i--) {
    const type = index.types[i];
    if (index.firstSeen(i) === i && type !== 'stop' && type !== 'reward' && type !== 'despawn') return i;
  }
  return -1;
}

function finish(index: TraceIndex, raw: RawLoop, lastNew: number): Loop {
  let tokens = 0;
  let seconds = 0;
  if (raw.span) {
    // a ping-pong costs everything done during its repetitions; a lane's sequence, its own events
    const [from, to] = raw.span;
    if (raw.kind === 'ping_pong') for (let i = from; i <= to; i++) tokens += index.tokens(i);
    else for (const i of raw.repeated) tokens += index.tokens(i);
    seconds = Math.max(0, index.end(to) - index.events[from].t);
  } else {
    for (const i of raw.repeated) {
      tokens += index.tokens(i);
      const r = index.resultOf(i);
      if (r !== -1) {
        tokens += index.tokens(r);
        seconds += Math.max(0, index.end(r) - index.events[i].t);
      } else seconds += index.end(i) - index.events[i].t;
    }
  }
  const members = [...raw.members].sort((a, b) => a - b);
  const last = members[members.length - 1];
  const agents = [...new Set(members.map((i) => index.events[i].agent))];
  const unresolved = lastNew <= last;
  const cost = tokens > 0 ? `, ${tokens} tokens` : '';
  return {
    kind: raw.kind,
    ...(raw.match ? { match: raw.match } : {}),
    ...(raw.resemblance === undefined ? {} : { resemblance: raw.resemblance }),
    events: members.map((i) => index.id(i)),
    indices: members.map((i) => index.at(i)),
    period: raw.period,
    repetitions: raw.repetitions,
    tokens,
    seconds: round(seconds),
    unresolved,
    agents,
    message: `${raw.label}${cost}${unresolved ? '; the trace ended inside it' : ''}`,
  };
}

/**
 * Tool calls with the same tool, argument length and two hashes of the trimmed arguments, grouped
 * without an object, list or map per call: the groups of a (tool, first hash) key are chained
 * through `sameKey`, and each group's calls through `next`. Typed arrays, scratch in the index's
 * arena (given back here): no per-call object for the collector.
 */
function repeatedToolCalls(index: TraceIndex): RawLoop[] {
  const scratch = index.arena.mark();
  try {
    return toolCallLoops(index, groupToolCalls(index));
  } finally {
    index.arena.release(scratch);
  }
}

/** Tool calls grouped by arguments: per group (numbered in order of first call) its first call, its number of calls; per call the next one of its group (-1: none). */
interface ToolCallGroups {
  groups: number;
  first: Int32Array;
  count: Int32Array;
  next: Int32Array;
}

/** The groups of {@link repeatedToolCalls}, in the index's arena. */
function groupToolCalls(index: TraceIndex): ToolCallGroups {
  const n = index.size;
  const arena = index.arena;
  let calls = 0;
  for (let i = 0; i < n; i++) if (index.types[i] === 'tool_call') calls++;
  const tools = new Map<string, number>();
  const keys = new PairNumbering(calls, arena); // (tool number, first hash) -> key number
  const byKey = arena.int32(calls + 1).fill(-1); // key -> its first group
  const sameKey = arena.int32(calls + 1); // group -> the next group of the same key (-1: none)
  const lengths = arena.int32(calls + 1); // group -> argument length
  const seconds = arena.int32(calls + 1); // group -> second hash
  const first = arena.int32(calls + 1); // group -> its first call
  const last = arena.int32(calls + 1); // group -> its latest call
  const count = arena.int32(calls + 1); // group -> its number of calls
  const next = arena.int32(n); // call -> the next call of its group (-1: none)
  let groups = 0;
  for (let i = 0; i < n; i++) {
    if (index.types[i] !== 'tool_call') continue;
    const text = index.rawContent(i);
    if (text === undefined) continue;
    const trimmed = text.trim();
    const tool = index.events[i].tool ?? '';
    let toolNo = tools.get(tool);
    if (toolNo === undefined) tools.set(tool, (toolNo = tools.size));
    const key = keys.number(toolNo, fnv1a(trimmed) | 0);
    const second = fnv1a(trimmed, 0x2545f491) | 0;
    let g = byKey[key];
    let previous = -1;
    while (g !== -1 && (lengths[g] !== text.length || seconds[g] !== second)) {
      previous = g;
      g = sameKey[g];
    }
    next[i] = -1;
    if (g === -1) {
      g = groups++; // a new group, numbered in the order groups are first seen
      if (previous === -1) byKey[key] = g;
      else sameKey[previous] = g;
      sameKey[g] = -1;
      lengths[g] = text.length;
      seconds[g] = second;
      first[g] = i;
      last[g] = i;
      count[g] = 1;
      continue;
    }
    next[last[g]] = i;
    last[g] = i;
    count[g]++;
  }
  return { groups, first, count, next };
}

/**
 * The loops of the groups called twice or more. A repeat is wasted work only when it could teach the
 * agent nothing new: the same agent made the call again, nothing changed the state in between (no
 * edit, write or install by any agent: {@link isStateChange}), and it got the same result
 * (whitespace aside; calls without a recorded result count as alike). A call another agent made (it
 * never saw that result), a re-run after a change (a compile after edits), or one whose result
 * changed (a push after a new commit, a poll that moved on) starts a new run. Each run of two or
 * more calls is one loop.
 */
function toolCallLoops(index: TraceIndex, { groups, first, count, next }: ToolCallGroups): RawLoop[] {
  const out: RawLoop[] = [];
  let changes: Int32Array | undefined; // position -> state changes before it, made when first needed
  const changed = (a: number, b: number) => {
    changes ??= changesBefore(index);
    return changes[b] - changes[a + 1] > 0;
  };
  for (let g = 0; g < groups; g++) {
    if (count[g] < 2) continue;
    const runs = new Map<string, number[][]>(); // agent -> its runs of calls with the same result, in call order
    for (let c = first[g]; c !== -1; c = next[c]) {
      const agent = index.events[c].agent;
      const ofAgent = runs.get(agent) ?? [];
      if (!ofAgent.length) runs.set(agent, ofAgent);
      const run = ofAgent[ofAgent.length - 1];
      const previous = run?.[run.length - 1];
      if (previous !== undefined && !changed(previous, c) && sameResult(index, previous, c)) run.push(c);
      else ofAgent.push([c]);
    }
    const repeats = [...runs.values()].flat().filter((run) => run.length >= 2);
    for (const calls of repeats.sort((a, b) => a[0] - b[0])) out.push(toolCallLoop(index, calls));
  }
  return out;
}

/** Per position, how many state changes ({@link isStateChange}) come before it; n + 1 entries, scratch in the index's arena. */
function changesBefore(index: TraceIndex): Int32Array {
  const out = index.arena.int32(index.size + 1);
  out[0] = 0;
  for (let i = 0; i < index.size; i++) out[i + 1] = out[i] + (isStateChange(index, i) ? 1 : 0);
  return out;
}

/** True when two calls' results are the same text, whitespace aside, or neither has a result. */
function sameResult(index: TraceIndex, a: number, b: number): boolean {
  const ra = index.resultOf(a);
  const rb = index.resultOf(b);
  if (ra === -1 || rb === -1) return ra === rb;
  const x = index.content(ra);
  const y = index.content(rb);
  return x === y || x.replace(/\s+/g, ' ').trim() === y.replace(/\s+/g, ' ').trim();
}

/** One repeated call: the calls (same agent, arguments and result) and their results. */
function toolCallLoop(index: TraceIndex, calls: number[]): RawLoop {
  const members = calls.flatMap((c) => (index.resultOf(c) !== -1 ? [c, index.resultOf(c)] : [c]));
  const tool = index.events[calls[0]].tool ?? 'a tool';
  return {
    kind: 'repeated_tool_call',
    members,
    repeated: calls.slice(1),
    period: members.length / calls.length,
    repetitions: calls.length,
    label: `${tool} ${argumentsPreview(index, calls[0])}called ${calls.length} times by ${index.events[calls[0]].agent} with the same arguments and the same result`,
  };
}

/** Argument names whose value says what a call did (a shell command, a file, a search). */
const SAYING_ARGUMENTS = ['command', 'cmd', 'file_path', 'path', 'pattern', 'query', 'url', 'prompt'];

/**
 * The repeated call's arguments, short and quoted with a trailing space (`"npm test" `), or '' when
 * it has none. Arguments written as a JSON object are named by their telling value (`command`,
 * `file_path`, ...; else the first string), not shown as escaped JSON.
 */
function argumentsPreview(index: TraceIndex, call: number): string {
  let text = index.content(call).trim();
  if (text.startsWith('{')) {
    try {
      const args = JSON.parse(text) as Record<string, unknown>;
      const values = [...SAYING_ARGUMENTS.map((k) => (Object.prototype.hasOwnProperty.call(args, k) ? args[k] : undefined)), ...Object.values(args)];
      const telling = values.find((v): v is string => typeof v === 'string' && v.trim() !== '');
      if (telling !== undefined) text = telling;
    } catch {
      /* not JSON: shown as written */
    }
  }
  text = shortPath(text.replace(/\s+/g, ' ').trim());
  return text ? `${preview(text)} ` : '';
}

/**
 * The events of a lane that are the agent's own actions: rows the harness injected, synthetic rows
 * and placeholders (NOT_AGENT_OUTPUT_KINDS) left out, so a hook's reminder after each edit neither
 * makes a loop of its own nor breaks the agent's. The lane itself when nothing is left out.
 */
function agentActions(index: TraceIndex, lane: Int32Array): Int32Array {
  if (index.injected === 0) return lane;
  let injected = 0;
  for (let k = 0; k < lane.length; k++) if (isInjected(index, lane[k])) injected++;
  return injected === 0 ? lane : lane.filter((i) => !isInjected(index, i));
}

/** True for a row that is no output of its lane's agent (a harness reminder, a placeholder). */
function isInjected(index: TraceIndex, i: number): boolean {
  const kind = index.events[i].kind;
  return kind !== undefined && NOT_AGENT_OUTPUT_KINDS.has(kind);
}

function repeatedSequences(index: TraceIndex, maxPeriod: number): RawLoop[] {
  const out: RawLoop[] = [];
  const scratch = index.arena.mark();
  // a lane with harness rows left out has places of its own: its repeated events are found in it
  const byAgent = index.injected === 0 ? repeatsByAgent(index) : undefined;
  for (const [agent, all] of index.lanes) {
    const lane0 = index.arena.mark(); // each lane's arrays are scratch, given back after it
    const lane = agentActions(index, all);
    const repeats = byAgent ? byAgent.get(agent) : repeatedPlaces(index, lane);
    if (repeats !== undefined && repeats.length > 0) laneRepeats(index, agent, lane, repeats, maxPeriod, out);
    index.arena.release(lane0);
  }
  index.arena.release(scratch);
  return out;
}

/**
 * Per agent, the places in its lane of its events whose fingerprint occurred before, ascending:
 * views of one array in the arena, found in two passes in time order over the fingerprints that
 * read an event only when it is such a repeat (not a pass over each lane's events), then turned
 * into places by one walk along the lane.
 */
function repeatsByAgent(index: TraceIndex): Map<string, Int32Array> {
  const n = index.size;
  const next = new Map<string, number>(); // agent -> its repeats, then where its next one goes
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (!repeatsBefore(index, i)) continue;
    const agent = index.events[i].agent;
    next.set(agent, (next.get(agent) ?? 0) + 1);
    total++;
  }
  const all = index.arena.int32(total);
  const out = new Map<string, Int32Array>();
  let offset = 0;
  for (const [agent, count] of next) {
    out.set(agent, all.subarray(offset, offset + count));
    next.set(agent, offset);
    offset += count;
  }
  for (let i = 0; i < n; i++) {
    if (!repeatsBefore(index, i)) continue;
    const agent = index.events[i].agent;
    const at = next.get(agent)!;
    all[at] = i;
    next.set(agent, at + 1);
  }
  for (const [agent, repeats] of out) placesIn(index.lanes.get(agent)!, repeats);
  return out;
}

/** True when the event at position `i` has a fingerprint an earlier event has. */
function repeatsBefore(index: TraceIndex, i: number): boolean {
  return index.firstSeen(i) !== i;
}

/** Replaces each of `positions` (ascending, all in `lane`) by its place in `lane`: one walk along it. */
function placesIn(lane: Int32Array, positions: Int32Array): void {
  let k = 0;
  for (let q = 0; q < positions.length; q++) {
    while (lane[k] !== positions[q]) k++;
    positions[q] = k;
  }
}

/** The places in `lane` of its events whose fingerprint occurred before, ascending. */
function repeatedPlaces(index: TraceIndex, lane: Int32Array): Int32Array {
  let count = 0;
  for (let k = 0; k < lane.length; k++) if (repeatsBefore(index, lane[k])) count++;
  const out = index.arena.int32(count);
  for (let k = 0, q = 0; q < count; k++) if (repeatsBefore(index, lane[k])) out[q++] = k;
  return out;
}

/**
 * The tandem repeats of one lane (see the module comment), added to `out`. With f[k] the
 * fingerprint of the lane's k-th event, f[k] = f[k + p] needs f[k + p] to be a fingerprint met
 * before, so for each period only the lane's `repeats` (places of such events, ascending) are looked
 * at, k = r - p for each repeat r, in order: the same maximal runs of matches, in the same order, as
 * the scan of every k; O(repeats * maxPeriod) besides the lane's `covered` flags.
 */
function laneRepeats(index: TraceIndex, agent: string, lane: Int32Array, repeats: Int32Array, maxPeriod: number, out: RawLoop[]): void {
  const m = lane.length;
  const f = index.fingerprints;
  const covered = index.arena.uint8(m);
  for (let p = 1; p <= Math.min(maxPeriod, m >> 1); p++) {
    let from = -1; // the run of matches [from, to) being extended
    let to = -1;
    for (let q = 0; q < repeats.length; q++) {
      const r = repeats[q];
      const k = r - p;
      if (k < 0) continue;
      const fk = f[lane[k]];
      if (fk < 0 || fk !== f[lane[r]]) continue;
      if (k === to) {
        to++;
        continue;
      }
      if (from !== -1) tandemRun(f, agent, lane, covered, from, to, p, out);
      from = k;
      to = k + 1;
    }
    if (from !== -1) tandemRun(f, agent, lane, covered, from, to, p, out);
  }
}

/** A maximal run [i, j) of places where f[k] = f[k + p] (`f`: fingerprints of the lane's events): a loop when it repeats a primitive block often enough and is not mostly covered by a loop of a smaller period. */
function tandemRun(f: Int32Array, agent: string, lane: Int32Array, covered: Uint8Array, i: number, j: number, p: number, out: RawLoop[]): void {
  const reps = Math.floor((j - i + p) / p);
  if (reps < (p === 1 ? 3 : 2) || !isPrimitive(f, lane, i, p)) return;
  const end = i + reps * p; // exclusive
  let already = 0;
  for (let k = i; k < end; k++) already += covered[k];
  if (already * 2 >= end - i) return;
  for (let k = i; k < end; k++) covered[k] = 1;
  const members = Array.from(lane.subarray(i, end));
  out.push({
    kind: 'repeated_sequence',
    members,
    repeated: members.slice(p),
    span: [lane[i + p], lane[end - 1]],
    period: p,
    repetitions: reps,
    label: `${agent} repeated the same ${p === 1 ? 'event' : `${p}-event sequence`} ${reps} times`,
  });
}

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
function repeatedSteps(index: TraceIndex, threshold: number): RawLoop[] {
  const contexts = new Map<string, AgentContexts>();
  const lastStep = new Map<string, { from: number; to: number; code: string }>();
  const n = index.size;
  const vocabulary = new WordIds(index.arena, n);
  const artifacts = new Map<string, number[]>();
  const parent = index.arena.int32(n).fill(-1); // union-find over the steps compared (-1: not a step)
  const best = index.arena.float64(n); // member -> highest resemblance that linked it
  const sets = new StepSets(index.arena, n);
  for (let i = 0; i < n; i++) {
    if (!STEP_TYPES.has(index.types[i]) || (index.injected > 0 && isInjected(index, i))) continue;
    const e = index.events[i];
    if (index.toolLanes.has(e.agent)) continue;
    if (opensDelegation(index, i)) continue;
    const text = index.content(i);
    const from = vocabulary.add(text); // the content words as ids, in text order: vocabulary.ids[from, to)
    const to = vocabulary.length;
    const ids = vocabulary.ids;
    const code = fencedCode(text);
    const previous = lastStep.get(e.agent);
    const echo = index.types[i] === 'return' && previous !== undefined && previous.code === code && sameIds(ids, previous.from, previous.to, from, to);
    if (previous) {
      previous.from = from;
      previous.to = to;
      previous.code = code;
    } else lastStep.set(e.agent, { from, to, code });
    if (echo) continue;
    const phase = (e as { phase?: unknown }).phase;
    if (code && wordTokens(code).size >= MIN_ECHO_WORDS) {
      const key = `${e.agent}\u0000${typeof phase === 'string' ? `phase:${phase}` : `to:${index.receiver(i) ?? ''}`}`;
      const artifact = `${key}\u0000${code.length}\u0000${fnv1a(code)}\u0000${fnv1a(code, 0x2545f491)}`;
      let same = artifacts.get(artifact);
      if (!same) artifacts.set(artifact, (same = []));
      same.push(i);
    }
    const size = to - from;
    if (size < MIN_STEP_WORDS) continue;
    const context = stepContextOf(contexts, e.agent, typeof phase === 'string' ? phase : undefined, index.receiver(i) ?? '');
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
      parent[rootOf(parent, i)] = rootOf(parent, match);
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
  const groups = linkedGroups(parent, index.arena);
  const out: RawLoop[] = [];
  const inArtifact = new Set<number>();
  for (const members of artifacts.values()) {
    if (members.length < 2) continue;
    for (const i of members) inArtifact.add(i);
    out.push(similarSteps(members, `${index.events[members[0]].agent} produced the same code unchanged${stepContext(index, members[0])} ${members.length} times`));
  }
  for (const members of groups.values()) {
    if (members.length < 2 || members.every((i) => inArtifact.has(i))) continue;
    members.sort((a, b) => a - b);
    const echo = members.length === 2 && members.every((i) => best[i] >= NEAR_IDENTICAL && contentWords(index.content(i)).size >= MIN_ECHO_WORDS);
    if (members.length < 3 && !echo) continue;
    const low = Math.min(...members.map((i) => best[i]));
    // plain words in the message; the resemblance that joined them is the loop's evidence (`resemblance`)
    const label = `${index.events[members[0]].agent} repeated nearly the same step${stepContext(index, members[0])} ${members.length} times, in mostly the same words`;
    out.push(similarSteps(members, label, Math.floor(low * 100) / 100));
  }
  return out;
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
 * The word sets of the steps, for counting the words two steps share: word ids below 64 (the
 * first words met, the most common ones) as two 32-bit masks, counted by a population count of
 * their intersection; the others as a list (one after the other in {@link high}), counted one look
 * each against the marks of the step being compared ({@link add}). Scratch in the index's arena.
 */
class StepSets {
  /** Word ids of 64 and more of each step added, one step after the other. */
  private high: Int32Array;
  private length = 0;
  /** Word id -> stamp of the last step added whose words it is among. */
  private mark: Int32Array;
  private stamp = 0;
  /** The last step added: masks of its word ids 0-31 and 32-63, and where its other ids start in {@link high}. */
  lo = 0;
  hi = 0;
  highFrom = 0;

  constructor(
    private readonly arena: Arena,
    events: number,
  ) {
    this.high = arena.int32(Math.max(1024, events));
    this.mark = arena.int32(1024);
  }

  /** Adds the step whose distinct word ids are ids[from, to) (all below `vocabulary`) and marks its words. */
  add(ids: Int32Array, from: number, to: number, vocabulary: number): void {
    if (this.mark.length < vocabulary) this.mark = this.arena.grownInt32(this.mark, Math.max(vocabulary, this.mark.length * 2));
    if (this.length + (to - from) > this.high.length) this.high = this.arena.grownInt32(this.high, Math.max(this.length + (to - from), this.high.length * 2));
    this.stamp++;
    let lo = 0;
    let hi = 0;
    this.highFrom = this.length;
    for (let w = from; w < to; w++) {
      const id = ids[w];
      if (id < 32) lo |= 1 << id;
      else if (id < 64) hi |= 1 << (id - 32);
      else {
        this.mark[id] = this.stamp;
        this.high[this.length++] = id;
      }
    }
    this.lo = lo;
    this.hi = hi;
  }

  /**
   * The number of words the last step added shares with an earlier one (its number of words, its
   * masks and where its other ids start), or -1 when it is below `need` (the count stops once too
   * many are missing).
   */
  sharedWith(size: number, lo: number, hi: number, highFrom: number, need: number): number {
    const masked = bitCount(lo & this.lo) + bitCount(hi & this.hi);
    const highTo = highFrom + size - bitCount(lo) - bitCount(hi);
    let slack = highTo - highFrom - (need - masked); // other words of the earlier step that may be missing
    if (slack < 0) return -1;
    for (let w = highFrom; w < highTo; w++) if (this.mark[this.high[w]] !== this.stamp && --slack < 0) return -1;
    return need + slack;
  }
}

/** Number of bits set in a 32-bit integer (population count; Warren, Hacker's Delight, 5-2). */
function bitCount(x: number): number {
  x = (x - ((x >>> 1) & 0x55555555)) | 0;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
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

/**
 * The groups of the union-find `parent` (-1: not a member) that have two members or more, each
 * ascending, in the order of their first member. Most steps resemble no other: counting each
 * root's members first (scratch in `arena`) makes no list for them.
 */
function linkedGroups(parent: Int32Array, arena: Arena): Map<number, number[]> {
  const n = parent.length;
  const size = arena.int32(n); // root -> members
  for (let i = 0; i < n; i++) if (parent[i] !== -1) size[rootOf(parent, i)]++;
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    if (parent[i] === -1) continue;
    const r = rootOf(parent, i);
    if (size[r] < 2) continue;
    let g = groups.get(r);
    if (!g) groups.set(r, (g = []));
    g.push(i);
  }
  return groups;
}

/** The root of `x` in the union-find `parent` (a module function: a closure made per call would make compiled callers deopt on the next call). */
function rootOf(parent: Int32Array, x: number): number {
  let r = x;
  while (parent[r] !== r) r = parent[r];
  return r;
}

/**
 * Content words as small integers (one id per distinct word), for fast set comparisons. Its
 * tables are scratch in the index's arena (arena.ts), given back by the caller of the detector.
 */
class WordIds {
  private readonly words: TokenInterner;
  /** Per id, the number of the last text it was seen in (to drop repeats within a text). */
  private seenIn: Int32Array;
  private texts = 0;
  /** The word ids of every text added, one after the other ({@link add}); the first {@link length} entries are set. */
  ids: Int32Array;
  /** Number of ids in {@link ids}. */
  length = 0;
  /** Made once (not a closure per text): keeps each word id once per text. */
  private readonly onWord = (id: number): void => {
    if (id >= this.seenIn.length) this.seenIn = this.arena.grownInt32(this.seenIn, Math.max(id + 1, this.seenIn.length * 2));
    if (this.seenIn[id] === this.texts) return;
    this.seenIn[id] = this.texts;
    if (this.length === this.ids.length) this.ids = this.arena.grownInt32(this.ids, this.ids.length * 2);
    this.ids[this.length++] = id;
  };

  /** @param events events to come (sizes the list of ids; the vocabulary's tables grow as words come). */
  constructor(
    private readonly arena: Arena,
    events: number,
  ) {
    this.words = new TokenInterner(FUNCTION_WORDS, arena);
    this.seenIn = arena.int32(1024);
    // pages never written are never resident: room for 8 words per event costs nothing unused
    this.ids = arena.int32(Math.max(1024, 8 * events));
  }

  /** Ids are below this number. */
  get size(): number {
    return this.words.size;
  }

  /**
   * Adds the distinct content words of a text ({@link contentWords}), as ids in the order they first
   * occur, at the end of {@link ids}. @returns where they start (they end at {@link length}).
   */
  add(text: string): number {
    const from = this.length;
    this.texts++;
    forEachContentWordId(text, this.words, this.onWord);
    return from;
  }
}

/** True when ids[aFrom, aTo) and ids[bFrom, bTo) hold the same ids in the same order. */
function sameIds(ids: Int32Array, aFrom: number, aTo: number, bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let k = 0; k < aTo - aFrom; k++) if (ids[aFrom + k] !== ids[bFrom + k]) return false;
  return true;
}

/** A loop of near-duplicate steps: each member is one repetition. */
function similarSteps(members: number[], label: string, resemblance?: number): RawLoop {
  return { kind: 'repeated_sequence', match: 'similar', members, repeated: members.slice(1), period: 1, repetitions: members.length, label, ...(resemblance === undefined ? {} : { resemblance }) };
}

/** Where a step was said, for messages: ` in <phase>` or ` to <receiver>`. */
function stepContext(index: TraceIndex, i: number): string {
  const phase = (index.events[i] as { phase?: unknown }).phase;
  if (typeof phase === 'string') return ` in ${phase}`;
  const receiver = index.receiver(i);
  return receiver ? ` to ${receiver}` : '';
}

/** True for the opening message of a delegated conversation: the event right after a delegate addressed to its agent. */
export function opensDelegation(index: TraceIndex, i: number): boolean {
  if (index.types[i] !== 'message') return false;
  const e = index.events[i];
  const opens = (p: number | undefined) => p !== undefined && p >= 0 && index.types[p] === 'delegate' && index.events[p].to === e.agent;
  if (opens(i - 1)) return true;
  return (e.causes ?? []).some((id) => opens(index.pos.get(id)));
}

/** True when the fingerprints `f` of lane[i..i+p) are not themselves a repetition of a shorter block. */
function isPrimitive(f: Int32Array, lane: Int32Array, i: number, p: number): boolean {
  for (let q = 1; q < p; q++) {
    if (p % q !== 0) continue;
    let periodic = true;
    for (let k = i + q; k < i + p && periodic; k++) if (f[lane[k]] !== f[lane[k - q]]) periodic = false;
    if (periodic) return false;
  }
  return true;
}

/** Longest hand-off cycle looked for, in agents. */
const MAX_CYCLE = 4;

/** Hand-offs in time order as parallel arrays of small integers: event position, sender and receiver as name numbers (`names`). */
interface Handoffs {
  count: number;
  at: number[];
  from: number[];
  to: number[];
  names: string[];
}

/**
 * Hand-offs in time order, with sender and receiver. Without any `to` in the trace, a message's
 * receiver is the agent of the next message (a group chat answers the previous turn).
 */
function handoffsOf(index: TraceIndex): Handoffs {
  const n = index.size;
  const out: Handoffs = { count: 0, at: [], from: [], to: [], names: [] };
  const numbers = new Map<string, number>();
  if (index.handoffsName) {
    for (let i = 0; i < n; i++) {
      if (!index.isHandoff(i)) continue;
      const to = index.receiver(i);
      if (to) pushHandoff(out, numbers, i, index.events[i].from ?? index.events[i].agent, to);
    }
  } else {
    let prev = -1;
    for (let i = 0; i < n; i++) {
      if (index.types[i] !== 'message') continue;
      if (prev !== -1) {
        const from = index.events[prev].agent;
        const to = index.events[i].agent;
        if (from !== to) pushHandoff(out, numbers, prev, from, to);
      }
      prev = i;
    }
  }
  return out;
}

/** Adds the hand-off at position `i` from `from` to `to` (names numbered in `numbers` as they come). */
function pushHandoff(out: Handoffs, numbers: Map<string, number>, i: number, from: string, to: string): void {
  out.at.push(i);
  out.from.push(nameNumber(out, numbers, from));
  out.to.push(nameNumber(out, numbers, to));
  out.count++;
}

function nameNumber(out: Handoffs, numbers: Map<string, number>, name: string): number {
  let k = numbers.get(name);
  if (k === undefined) {
    numbers.set(name, (k = out.names.length));
    out.names.push(name);
  }
  return k;
}

function pingPongs(index: TraceIndex, noveltyThreshold: number, resemblanceThreshold: number): RawLoop[] {
  const h = handoffsOf(index);
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

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
