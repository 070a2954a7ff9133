/**
 * What a lane is called on screen and what its tooltip says: a sub-agent lane by what it was
 * asked (Claude Code's `Explore:a93ccab` spawned by an Agent/Task call with `subagent_type` Explore
 * and description "find the config loader" is `Explore: find the config loader`; Codex's
 * `worker:Franklin` is `Franklin (worker): Review src/payment…`), a compaction by what it is
 * (`context compaction`, never a sub-agent "spawned by" the lane it compacts). Lanes whose name
 * already says who they are (span formats name them after their agent span; otrace traces after
 * their agent) keep it. The raw name (the lane's key) stays in the tooltip and the details.
 *
 * Every string is trace text made one line with controls shown (plainLabel). Pure: no vscode, no DOM.
 */
import { canonicalType, type Trace, type TraceEdge, type TraceEvent } from '../trace/schema';
import type { IdTable } from '../trace/id-table';
import { plainLabel } from '../shared/untrusted-text';
import { firstIndexOfIds, laneGroups, type GroupedLane } from './lanes';
import { clipWords } from './event-labels';
import { COMPACTION_LABEL, kindAndTask } from '../shared/agent-words';
import type { RunSummary } from '../analysis/run-summary';

/** Longest lane label in characters (the lane column is at most 240 px wide: the rest shows in the tooltip). */
export const LANE_LABEL_CHARS = 48;
/** Longest task quoted in a lane's tooltip, in characters. */
const TASK_CHARS = 160;
/** A lane's words: `label` when it is shown by another name than its own, and its tooltip. */
export interface LaneWords {
  label?: string;
  /** `<name>: <n> events, spawned by <parent> · asked: <task>`, or `<name>: <n> events, compaction of <lane>'s context: …`. */
  tip: string;
}

/** What {@link laneWords} reads of the trace beyond its lanes. */
export interface LaneWordsInput {
  events: readonly TraceEvent[];
  edges: readonly TraceEdge[];
  /** The lane key of an event (its agent's lane). */
  keyOf: (e: TraceEvent) => string;
  /** Each id's first event index, made when asked (only for a trace with a compaction event: the table holds every id). */
  firstIndex: () => IdTable;
  /** Events per lane key. */
  count: (key: string) => number;
  /** `trace.metadata.agents`: per agent, e.g. `subagent_type`, `agent_id`, `role`, `agent_nickname` (Claude Code, Codex). */
  agents?: Record<string, unknown>;
  /** The content let go after the analysis (src/engine/long-content.ts): whether event `index`'s is on disk only, and a reader of those (one read for all the lanes' tasks). */
  contentOnDisk?: ContentOnDisk;
}

/** Events whose content is read from disk on demand: `has(index)` true when its content was let go; `read` gives the contents of such events. */
export interface ContentOnDisk {
  has: (index: number) => boolean;
  read: (indices: readonly number[]) => (string | undefined)[];
}

/**
 * The words of each lane (same order as `lanes`).
 * - A compaction lane: one whose event is a cause of (or has a `return` edge into) an event of kind
 *   `compaction` in another lane: `context compaction`, tooltip "compaction of <lane>'s context".
 * - A sub-agent lane named `<kind>:<id>` (an importer's name: kind its spawn's `role` or the agent's
 *   `subagent_type` / `role`, or id its `agent_id`): `<kind>: <task>` when the id is opaque (hex, or
 *   the agent id), `<id> (<kind>): <task>` when it is a nickname; the task is the spawn's content
 *   (Claude Code: the call's `description`), else the first delegation or message to it.
 * - Any other lane keeps its name; its tooltip quotes what it was asked.
 * O(events + edges); with the events' {@link laneScan} given, O(lanes), plus O(events + edges) when some event is a compaction.
 */
export function laneWords(lanes: readonly GroupedLane[], input: LaneWordsInput, scan: LaneScan = laneScan(input)): LaneWords[] {
  const { events } = input;
  const onDisk = input.contentOnDisk;
  const { spawnOf, askedOf } = scan;
  const contentAt = lanesContent(lanes, [spawnOf, askedOf], events, onDisk);
  const compacts = scan.compactions ? compactionLanes(input) : new Map<string, string>();
  const byKey = new Map(lanes.map((l) => [l.key, l]));
  return lanes.map((l) => {
    const count = input.count(l.key);
    const head = `${plainLabel(l.name)}: ${count} event${count === 1 ? '' : 's'}`;
    const of = compacts.get(l.key);
    if (of !== undefined) {
      const target = plainLabel(byKey.get(of)?.name ?? of);
      return { label: COMPACTION_LABEL, tip: `${head}, compaction of ${target}'s context: the conversation so far summarised; the summary continues ${target}` };
    }
    const spawnAt = spawnOf.get(l.key);
    const spawn = spawnAt === undefined ? undefined : events[spawnAt];
    const task = text(contentAt(askedOf.get(l.key))) ?? text(contentAt(spawnAt));
    const tip = `${head}${l.parent ? `, spawned by ${plainLabel(l.parent)}` : ''}${task ? ` · asked: ${clipWords(task, TASK_CHARS)}` : ''}`;
    const label = composedLabel(l.agent, metaOf(input.agents, l.agent), spawn, text(contentAt(spawnAt)) ?? task);
    return label === undefined ? { tip } : { label, tip };
  });
}

/**
 * What {@link laneWords} reads of every event: per lane key, the first event that spawns it and the
 * first that asks it something in words; whether any event is a compaction. Made from `prev` (the
 * scan of the same events' first `from`, the same objects at the same places) and the events after
 * them, when given: O(events scanned). `prev` is not changed.
 */
export interface LaneScan {
  spawnOf: Map<string, number>;
  askedOf: Map<string, number>;
  compactions: boolean;
}

/** The {@link LaneScan} of `input`'s events, or of those from `from` on added to `prev`'s. */
export function laneScan(input: Pick<LaneWordsInput, 'events' | 'keyOf' | 'contentOnDisk'>, from = 0, prev?: LaneScan): LaneScan {
  const { events, keyOf } = input;
  const toKey = (e: TraceEvent) => keyOf({ ...e, agent: e.to! });
  const onDisk = input.contentOnDisk;
  const spawnOf = new Map(prev?.spawnOf);
  const askedOf = new Map(prev?.askedOf);
  let compactions = prev?.compactions ?? false;
  for (let i = prev ? from : 0; i < events.length; i++) {
    const e = events[i];
    if (e.kind === 'compaction') compactions = true;
    const kind = canonicalType(e.type);
    if (!e.to || (e.to === e.agent && kind !== 'message')) continue;
    const key = toKey(e);
    if (kind === 'spawn' && !spawnOf.has(key)) spawnOf.set(key, i);
    const spoken = kind === 'delegate' || (kind === 'message' && e.from !== undefined && e.from !== e.to && e.kind !== 'meta');
    if (spoken && !askedOf.has(key) && (text(e.content) || onDisk?.has(i))) askedOf.set(key, i);
  }
  return { spawnOf, askedOf, compactions };
}

/**
 * The label each agent's lane is shown by, for the lanes shown by another name than their agent's
 * (agent name -> label, e.g. `compact:acompact-70d8e7` -> `context compaction`): what the graph's
 * lanes say, for the words that name agents elsewhere (`otrace summary`). A file of several traces
 * has a lane per trace and agent: those agents keep their names (one label would not fit them all).
 * `only`: the agents whose labels are wanted (default all). O(events + edges), the lanes' own cost.
 */
export function agentLaneLabels(trace: Pick<Trace, 'events' | 'edges' | 'metadata'>, only?: ReadonlySet<string>): Map<string, string> {
  const events = trace.events;
  const edges = trace.edges ?? [];
  const all = laneGroups(events, edges);
  const keyOf = all.keyOf;
  // only the agents asked for (a run summary lists 50 of a million): no words made for the others
  const lanes = only ? all.lanes.filter((l) => only.has(l.agent)) : all.lanes;
  const counts = new Map<string, number>();
  for (const e of events) counts.set(keyOf(e), (counts.get(keyOf(e)) ?? 0) + 1);
  const meta = trace.metadata as Record<string, unknown> | undefined;
  const agents = meta?.agents && typeof meta.agents === 'object' ? (meta.agents as Record<string, unknown>) : undefined;
  const words = laneWords(lanes, { events, edges, keyOf, firstIndex: () => firstIndexOfIds(events), count: (k) => counts.get(k) ?? 0, agents });
  const out = new Map<string, string>();
  lanes.forEach((l, i) => {
    const label = words[i].label;
    if (label !== undefined && l.key === l.agent) out.set(l.agent, label);
  });
  return out;
}

/** `<kind>: <what>` / `<nickname> (<kind>): <what>` for a lane named `<kind>:<id>` by its importer; undefined for any other name. */
function composedLabel(agent: string, meta: Record<string, unknown>, spawn: TraceEvent | undefined, what: string | undefined): string | undefined {
  const colon = agent.indexOf(':');
  if (colon <= 0 || colon === agent.length - 1) return undefined;
  const prefix = agent.slice(0, colon);
  const rest = agent.slice(colon + 1);
  const kind = str((spawn as Record<string, unknown> | undefined)?.role) ?? str(meta.subagent_type) ?? str(meta.role);
  const agentId = str(meta.agent_id);
  if (prefix !== kind && rest !== agentId) return undefined;
  const opaque = rest === agentId || /^(?=[^0-9]*[0-9])[0-9a-f-]{6,}$/i.test(rest);
  const who = opaque ? prefix : `${rest} (${prefix})`;
  if (!what) return opaque ? undefined : plainLabel(who, LANE_LABEL_CHARS);
  const shown = plainLabel(who);
  const label = opaque ? kindAndTask(shown, what) : `${shown}: ${what}`;
  return clipWords(label, LANE_LABEL_CHARS);
}

/**
 * The agents whose lane compacts another's context (as {@link laneWords} labels them
 * {@link COMPACTION_LABEL}): no agents of the run. O(events) reads of `kind`; with a compaction in
 * the trace, O(events + edges) more to resolve its causes.
 */
export function compactionAgents(events: readonly TraceEvent[], edges: readonly TraceEdge[]): Set<string> {
  return new Set(compactionLanes({ events, edges, keyOf: (e) => e.agent, firstIndex: () => firstIndexOfIds(events) }).keys());
}

/**
 * Lane key -> the lane key whose context it compacts: the lane of an event that is a cause of (or
 * has a `return` edge into) an event of kind `compaction` in another lane.
 */
function compactionLanes(input: Pick<LaneWordsInput, 'events' | 'edges' | 'keyOf' | 'firstIndex'>): Map<string, string> {
  const { events, keyOf, firstIndex } = input;
  const out = new Map<string, string>();
  const note = (cause: number | undefined, compaction: TraceEvent) => {
    if (cause === undefined) return;
    const from = keyOf(events[cause]);
    const to = keyOf(compaction);
    if (from !== to && !out.has(from)) out.set(from, to);
  };
  let byId: IdTable | undefined;
  for (const e of events) {
    if (e.kind !== 'compaction') continue;
    byId ??= firstIndex();
    for (const c of e.causes ?? []) if (typeof c === 'string') note(byId.get(c), e);
  }
  if (!byId) return out;
  for (const edge of input.edges) {
    if (edge.type !== 'return') continue;
    const dst = byId.get(edge.dst);
    if (dst !== undefined && events[dst].kind === 'compaction') note(byId.get(edge.src), events[dst]);
  }
  return out;
}

function metaOf(agents: Record<string, unknown> | undefined, agent: string): Record<string, unknown> {
  const m = agents && Object.prototype.hasOwnProperty.call(agents, agent) ? agents[agent] : undefined;
  return m && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : {};
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/**
 * The content of the events that name the lanes' tasks (`indexOf`: lane key -> event index), those
 * let go read back from disk in one read; other events' content as they hold it.
 */
function lanesContent(lanes: readonly GroupedLane[], indexOf: readonly Map<string, number>[], events: readonly TraceEvent[], onDisk: ContentOnDisk | undefined): (index: number | undefined) => unknown {
  const read = new Map<number, string | undefined>();
  if (onDisk) {
    const wanted: number[] = [];
    for (const l of lanes) for (const m of indexOf) {
      const i = m.get(l.key);
      if (i !== undefined && onDisk.has(i)) wanted.push(i);
    }
    const got = wanted.length ? onDisk.read(wanted) : [];
    wanted.forEach((i, k) => read.set(i, got[k]));
  }
  return (i) => (i === undefined ? undefined : read.has(i) ? read.get(i) : events[i]?.content);
}

/** A content's text on one line when it has any. */
function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.replace(/\s+/g, ' ').trim() : undefined;
}

/**
 * A run summary with each agent named as the graph names its lane ({@link agentLaneLabels}:
 * `context compaction`, `Explore: <what it was asked>`), else by the summary's own label: what
 * `otrace summary` and the language model tools say of agents.
 */
export function withLaneLabels(summary: RunSummary, trace: Pick<Trace, 'events' | 'edges' | 'metadata'>): RunSummary {
  const lanes = agentLaneLabels(trace, new Set(summary.agents.map((a) => a.name)));
  return { ...summary, agents: summary.agents.map((a) => ({ ...a, label: lanes.get(a.name) ?? a.label })) };
}
