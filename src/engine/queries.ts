/**
 * The editor's questions about one snapshot, answered where the snapshot lives (the engine's
 * worker), with small answers: one event's place or hover facts, its whole content, the CodeLens
 * items and Outline symbols of one file, the source prompt of an event, the events naming a prompt
 * file. The host formats them (escaping, Markdown, VS Code types). Pure: no `vscode`.
 */
import { foldLanes } from './lane-folds';
import { usageOf } from '../trace/tokens';
import { formatAt, timeUnitOf } from '../trace/units';
import * as path from 'node:path';
import { canonicalType } from '../trace/event-types';
import type { Position } from '../trace/model';
import type { TraceEvent } from '../trace/schema';
import { contentOf } from './long-content';
import { graphIndex } from './graph-index';
import { creditLabel, creditWorthShowing } from '../shared/credit-words';
import { creditColumn } from '../analysis/credit-column';
import { PREVIEW_CHARS, type EventInfo, type EventPlace, type LensItem, type LineSpan, type OutlineLane, type PromptAt, type PromptUser } from './query-types';
import { compare, countsSteps, eventAt, findingsOfEvent, shownAnalysis, type TraceSnapshot } from './snapshot';
import { isSoundStop } from '../analysis/types';
import { recordsFailure } from '../shared/recorded-failure';
import { sourcePromptOf } from './source-prompt';
import { contentInMemory, eventLabel } from './record-labels';
import { stopReasonWords } from '../shared/stop-words';

export * from './query-types';

/** The place of an event, or undefined when it has no origin. */
export function eventPlace(s: TraceSnapshot, index: number): EventPlace | undefined {
  const e = s.loaded.trace.events[index];
  const o = s.loaded.eventOrigins.get(index);
  if (!e || !o) return undefined;
  return { index, id: e.id, type: e.type, agent: e.agent, file: o.file ?? '', range: o.range };
}

/**
 * The event at `at` in `file` (see {@link eventAt}); when `keep` is given and its record holds
 * `at`, that event (records holding several events: the selected one stays selected).
 */
export function eventAtPosition(s: TraceSnapshot, file: string, at: Position, keep?: number): number | undefined {
  const o = keep === undefined ? undefined : s.loaded.eventOrigins.get(keep);
  if (o && (o.file ?? '') === file && compare(o.range.start, at) <= 0 && compare(at, o.range.end) <= 0) return keep;
  return eventAt(s, file, at);
}

/** The hover facts of an event. */
export function eventInfo(s: TraceSnapshot, index: number): EventInfo | undefined {
  const place = eventPlace(s, index);
  if (!place) return undefined;
  const e = s.loaded.trace.events[index];
  const text = contentOf(s, index);
  const credit = shownAnalysis(s)?.credit; // while an append is analysed, the last analysis's (for the events it read)
  let creditInfo: EventInfo['credit'];
  // only where it says something: no "0% of the result" on every event
  const v = credit && creditColumn(credit).at(index);
  if (credit && v !== undefined && creditWorthShowing(v)) {
    // In plain words: the method's name and parameters (credit.method) stay in the CLI's JSON and docs/analysis.md.
    const value = creditLabel(v, credit.signed);
    const basis =
      typeof e.credit === 'number' ? 'the value the trace gives'
      : credit.signed ? "its share of the run's outcome (+ success, − failure), traced back along the events that led to it; an estimate"
      : 'how much of what the run ended with built on it, traced back from the end of the run; the trace records no outcome, so this is neither credit nor blame';
    creditInfo = { text: value, basis };
  }
  const findings = findingsOfEvent(s, index).map((k) => {
    const f = s.findings[k];
    const label = f.kind === 'loop' ? `loop ×${f.loop?.repetitions ?? '?'} (event ${f.events.indexOf(index) + 1} of ${f.events.length})` : f.kind === 'best_stop' ? 'best stop' : f.kind === 'blame' ? 'decisive error' : f.kind === 'verification' ? 'verification failure' : stopLabel(s, f);
    return { index: k, label, message: f.message };
  });
  return {
    ...place,
    tool: e.tool,
    to: e.to,
    ...toLabelOf(s, e.to),
    t: e.t,
    ...(countsSteps(s) ? { countsSteps: true } : {}),
    tokens: typeof e.tokens === 'number' ? e.tokens : undefined,
    usage: usageOf(e),
    cost: typeof e.cost === 'number' ? e.cost : undefined,
    duration_s: typeof e.duration_s === 'number' ? e.duration_s : undefined,
    reason: canonicalType(e.type) === 'stop' ? String(e.reason ?? 'unknown') : undefined,
    scope: canonicalType(e.type) === 'stop' ? stopScope(s, index, e) : undefined,
    failed: recordsFailure(e) ? failureWords(e) : undefined,
    contentHead: typeof text === 'string' ? text.slice(0, PREVIEW_CHARS) : undefined,
    contentLength: typeof text === 'string' ? text.length : 0,
    credit: creditInfo,
    findings,
    hasSourcePrompt: sourcePromptOf(s, index) !== undefined,
  };
}

/** The whole content of an event (or its content_ref), or undefined when it has none. */
export function eventContent(s: TraceSnapshot, index: number): string | undefined {
  const text = contentOf(s, index);
  return typeof text === 'string' ? text : undefined;
}

/** One file's CodeLens items of a snapshot, in line order (made once per snapshot and file: see {@link codeLenses}). */
const lensesOf = new WeakMap<TraceSnapshot, Map<string, LensItem[]>>();

/**
 * The CodeLens items of one file (`''`: the trace file): Explain on stop and loop findings, the
 * spawned agent's lane on spawns. With `lines`, only the items on those lines (a large file's
 * lenses follow the visible lines, as its decorations do, so the host makes CodeLens objects for
 * what is on screen, not one per spawn of the file). The whole list is made once per snapshot and
 * file, O(events); a call with `lines` is then O(log items + items returned).
 */
export function codeLenses(s: TraceSnapshot, file: string, lines?: readonly LineSpan[]): LensItem[] {
  let byFile = lensesOf.get(s);
  if (!byFile) lensesOf.set(s, (byFile = new Map()));
  let all = byFile.get(file);
  if (!all) byFile.set(file, (all = fileLenses(s, file)));
  if (!lines) return all;
  const out: LensItem[] = [];
  let next = 0; // spans in line order, overlaps joined: an item is taken once
  for (const span of [...lines].sort((a, b) => a.start - b.start)) {
    for (let k = Math.max(next, firstOnOrAfter(all, span.start)); k < all.length && all[k].at.line <= span.end; k++, next = k) out.push(all[k]);
  }
  return out;
}

/** Index of the first item at or after `line` (items in line order). */
function firstOnOrAfter(items: readonly LensItem[], line: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid].at.line < line) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Every CodeLens item of one file, in line order (of equal lines, findings before spawns, each in its own order). */
function fileLenses(s: TraceSnapshot, file: string): LensItem[] {
  const origins = s.loaded.eventOrigins;
  const inFile = (i: number) => origins.get(i) !== undefined && (origins.get(i)!.file ?? '') === file;
  const out: LensItem[] = [];
  s.findings.forEach((f, k) => {
    if ((f.kind !== 'stop' && f.kind !== 'loop') || !inFile(f.events[0])) return;
    out.push({ at: origins.get(f.events[0])!.range.start, finding: { index: k, kind: f.kind, mode: f.mode, inline: f.inline, message: f.message } });
  });
  const events = s.loaded.trace.events;
  let spans: Map<string, AgentSpan> | undefined;
  let labels: Map<string, string> | undefined;
  events.forEach((e, i) => {
    if (canonicalType(e.type) !== 'spawn' || !e.to || !inFile(i)) return;
    spans ??= agentSpans(events);
    labels ??= laneLabels(s);
    const span = spans.get(e.to);
    const label = labels.get(e.to);
    out.push({ at: origins.get(i)!.range.start, lane: { agent: e.to, ...(label === undefined ? {} : { label }), ...(span ? { events: span.events, first: span.first, last: span.last } : { events: 0 }) } });
  });
  return out.map((item, k) => ({ item, k })).sort((a, b) => a.item.at.line - b.item.at.line || a.k - b.k).map((x) => x.item);
}

/** `toLabel` of an event whose `to` names an agent with a lane label ({@link laneLabels}), else nothing. */
function toLabelOf(s: TraceSnapshot, to: string | undefined): { toLabel?: string } {
  const label = to === undefined ? undefined : laneLabels(s).get(to);
  return label === undefined ? {} : { toLabel: label };
}

/** Each agent's lane label in the graph (its task in a few words, e.g. `Explore existing codebase`), for the lanes shown as their agent's and labelled. */
function laneLabels(s: TraceSnapshot): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of graphIndex(s).layout.lanes) {
    const agent = l.agent ?? l.name;
    if (l.label !== undefined && l.folded === undefined && !out.has(agent)) out.set(agent, l.label);
  }
  return out;
}

/** An agent's event count and its earliest and latest events by time (indices; of equal times, the first and the last in file order). */
interface AgentSpan {
  events: number;
  first: number;
  last: number;
}

/** Each agent's {@link AgentSpan}: O(events). */
function agentSpans(events: readonly TraceEvent[]): Map<string, AgentSpan> {
  const spans = new Map<string, AgentSpan>();
  events.forEach((e, i) => {
    const span = spans.get(e.agent);
    if (!span) return void spans.set(e.agent, { events: 1, first: i, last: i });
    span.events++;
    if (e.t < events[span.first].t) span.first = i;
    if (e.t >= events[span.last].t) span.last = i;
  });
  return spans;
}

/**
 * The Outline of one file of a session (`''`: the trace file): one lane per agent, its events in
 * file order, each named by its readable label (src/engine/record-labels.ts). A lane's range spans
 * its records from the first to the last when no other lane's record is between them; a lane
 * interleaved with others spans its first record only: the editor's breadcrumbs and sticky scroll
 * name the symbol whose range holds a line, and must never name an agent on another agent's lines.
 * @param maxEvents most events listed, the first in file order (every lane keeps its range and `count`):
 *   the editor asks again on each change of a growing file, and tens of thousands of symbols stall it.
 */
export function outline(s: TraceSnapshot, file: string, maxEvents = Infinity): OutlineLane[] {
  const { lanes, laneOf } = outlineLanes(s, file, maxEvents);
  for (const k of interleavedLanes(s, file, laneOf)) lanes[k].range = lanes[k].first;
  return lanes;
}

/**
 * The lanes of {@link outline} (folded), each spanning its records from the first to the last, and
 * each agent's lane (its index in the list).
 */
function outlineLanes(s: TraceSnapshot, file: string, maxEvents: number): { lanes: OutlineLane[]; laneOf: Map<string, number> } {
  const lanes = new Map<string, OutlineLane>();
  const unit = timeUnitOf(s.loaded);
  let listed = 0;
  s.loaded.trace.events.forEach((e, i) => {
    const o = s.loaded.eventOrigins.get(i);
    if (!o || (o.file ?? '') !== file) return;
    let lane = lanes.get(e.agent);
    if (!lane) lanes.set(e.agent, (lane = { agent: e.agent, range: o.range, first: o.range, count: 0, events: [] }));
    lane.count++;
    if (listed < maxEvents) {
      listed++;
      const detail = eventLabel(s, i, contentInMemory); // the editor's record labels (content on disk is not read for every event)
      lane.events.push({ id: e.id, detail, kind: canonicalType(e.type), t: e.t, when: formatAt(e.t, unit), range: o.range });
    }
    if (compare(o.range.start, lane.first.start) < 0) lane.first = o.range;
    if (compare(o.range.start, lane.range.start) < 0) lane.range = { start: o.range.start, end: lane.range.end };
    if (compare(o.range.end, lane.range.end) > 0) lane.range = { start: lane.range.start, end: o.range.end };
  });
  return foldOutline([...lanes.values()]);
}

/**
 * The lanes (indices into the Outline's list) whose records in `file` have a record of another lane
 * between two of theirs, in range order (the snapshot's `byFile`). O(records of the file).
 */
function interleavedLanes(s: TraceSnapshot, file: string, laneOf: Map<string, number>): Set<number> {
  const interleaved = new Set<number>();
  const left = new Set<number>(); // lanes that had records, then another lane's
  const events = s.loaded.trace.events;
  let last = -1;
  for (const i of s.byFile.get(file) ?? []) {
    const k = laneOf.get(events[i].agent);
    if (k === undefined || k === last) continue;
    if (left.has(k)) interleaved.add(k);
    if (last !== -1) left.add(last);
    last = k;
  }
  return interleaved;
}

/**
 * The Outline's lanes folded as the graph folds them (src/engine/lane-folds.ts) when a file has
 * more agents than it shows as lanes: the busiest keep their symbol, the others' events go under
 * one symbol per name prefix (or "other agents"), in file order. A file of 1M agents then lists
 * a few dozen symbols, not a million.
 */
function foldOutline(lanes: OutlineLane[]): { lanes: OutlineLane[]; laneOf: Map<string, number> } {
  const fold = foldLanes(
    lanes.map((l) => ({ name: l.agent, key: l.agent, agent: l.agent, depth: 0 })),
    lanes.map((l) => l.count),
  );
  if (!fold) return { lanes, laneOf: new Map(lanes.map((l, i) => [l.agent, i])) };
  const out: OutlineLane[] = fold.lanes.map((f) => (f.of !== undefined ? lanes[f.of] : { agent: f.name, agents: f.group!.agents, range: lanes[0].range, first: lanes[0].first, count: 0, events: [] }));
  const grouped = new Set<number>();
  lanes.forEach((l, i) => {
    const k = fold.laneOf[i];
    if (fold.lanes[k].of !== undefined) return;
    const group = out[k];
    if (!grouped.has(k)) {
      grouped.add(k);
      group.range = l.range;
      group.first = l.first;
    }
    group.count += l.count;
    if (compare(l.first.start, group.first.start) < 0) group.first = l.first;
    for (const e of l.events) group.events.push(e);
    if (compare(l.range.start, group.range.start) < 0) group.range = { start: l.range.start, end: group.range.end };
    if (compare(l.range.end, group.range.end) > 0) group.range = { start: group.range.start, end: l.range.end };
  });
  for (const k of grouped) out[k].events.sort((a, b) => compare(a.range.start, b.range.start));
  return { lanes: out, laneOf: new Map(lanes.map((l, i) => [l.agent, fold.laneOf[i]])) };
}

/** Go to Source Prompt for an event (src/engine/source-prompt.ts), with the target event's place. */
export function sourcePrompt(s: TraceSnapshot, index: number): PromptAt {
  const target = sourcePromptOf(s, index);
  const line = (s.loaded.eventOrigins.get(index)?.range.start.line ?? 0) + 1;
  return { target, place: target?.kind === 'event' ? eventPlace(s, target.index) : undefined, line };
}

/** The events whose `source.path` names the prompt file at `absPath`, with the line they point at. */
export function promptUsers(s: TraceSnapshot, absPath: string): PromptUser[] {
  const dir = path.dirname(s.path);
  const out: PromptUser[] = [];
  s.loaded.trace.events.forEach((e, index) => {
    if (!e.source?.path || /^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(e.source.path)) return;
    if (path.resolve(dir, e.source.path) === absPath) out.push({ index, line: e.source.line ?? 1 });
  });
  return out;
}

/** The first `max` events (id, type, agent, to) and edges of a session: for tests and diagnostics, never the whole of a large trace. */
export function inspect(s: TraceSnapshot, max: number): { events: { id: string; type: string; agent: string; to?: string }[]; edges: { src: string; dst: string; type: string }[]; problems: string[] } {
  return {
    events: s.loaded.trace.events.slice(0, max).map((e) => ({ id: e.id, type: e.type, agent: e.agent, ...(e.to ? { to: e.to } : {}) })),
    edges: s.loaded.trace.edges.slice(0, max).map((e) => ({ src: e.src, dst: e.dst, type: e.type })),
    problems: s.loaded.problems.slice(0, max).map((p) => p.message),
  };
}

/** What a stop event ended, as the analysis judged it (a sub-agent's compaction is a phase), else as the event says. */
function stopScope(s: TraceSnapshot, index: number, e: TraceEvent): string | undefined {
  const judged = shownAnalysis(s)?.stops.find((x) => x.index === index && !x.synthetic);
  return judged?.scope ?? (typeof e.scope === 'string' ? e.scope : undefined);
}

/**
 * A stop finding's hover label: `turn ended (handed back)` / `phase ended (max turns)` (no verdict),
 * `stop, sound` (a recorded success, no failure found), `stop, premature` (a failure), or
 * `stop (task complete), verdict unknown` (no failure found, no success recorded).
 */
function stopLabel(s: TraceSnapshot, f: { mode?: string; events: number[]; scope?: string }): string {
  const stop = s.analysis?.stops.find((x) => x.index === f.events[0]);
  // no stop event: the end of the trace read as the run's end, not a stop whose reason is unknown
  if (stop?.synthetic) return f.mode === 'ok' ? 'end of the trace, no stop' : `end of the trace, ${f.mode?.replace('_', ' ')}`;
  const reason = stop ? ` (${stopReasonWords(f.scope, stop.reason)})` : '';
  if (f.scope === 'turn' || f.scope === 'phase') return `${f.scope} ended${reason}`;
  if (f.mode !== 'ok') return `stop, ${f.mode?.replace('_', ' ')}`;
  return stop && isSoundStop(stop) ? 'stop, sound' : `stop${reason}, verdict unknown`;
}

/** How a result records its failure, in a few words: `exit code 2`, `error: 535 authentication failed`, `marked as an error` (is_error; the error's first 80 characters, one line). */
function failureWords(e: TraceEvent): string {
  const { error, exit_code: exitCode } = e as { error?: unknown; exit_code?: unknown };
  if (typeof exitCode === 'number' && exitCode !== 0) return `exit code ${exitCode}`;
  if (typeof error === 'string' && error.trim()) return `error: ${error.replace(/\s+/g, ' ').trim().slice(0, 80)}`;
  return error === true ? 'an error status' : 'marked as an error';
}
