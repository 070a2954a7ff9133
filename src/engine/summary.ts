/**
 * The session summary: what the extension host keeps of a trace session, small whatever the
 * trace's size (counts, the Problems panel's entries capped per file, findings with their evidence
 * event indices, the files of the session). The whole snapshot stays in the engine's worker; the
 * host asks it the rest (src/engine/queries.ts). Pure: no `vscode`.
 */
import * as path from 'node:path';
import type { Finding } from '../analysis/types';
import type { FollowHow } from '../analysis/follow';
import { canonicalType } from '../trace/event-types';
import { samePrefix } from '../trace/shared-prefix';
import { KIND, kindColumn } from './kind-column';
import { agentColumn } from './agent-column';
import { isFollowed } from './structure-growth';
import { shownProblem } from './shown-problems';
import type { TraceEvent } from '../trace/schema';
import type { Range, Severity } from '../trace/model';
import { capDiagnostics } from './diagnostic-cap';
import { shownAnalysis, type TraceSnapshot } from './snapshot';
import { nodeLabel } from './graph-model';
import { visibleText } from '../trace/preview';
import { eventStringSpots, rangeStringSpots, type StringSpot } from './long-strings';
import { compactionAgents } from './lane-labels';

/** One entry of the Problems panel: a reader problem or a finding of the analysis. */
export interface SessionDiagnostic {
  severity: Severity;
  message: string;
  range: Range;
  /** The finding's kind (`stop`, `loop`, `blame`, `best_stop`); none for reader problems. */
  code?: string;
  /** The finding's other events (at most {@link MAX_RELATED}): where they are and what they are (`inString` as for the finding's event). */
  related?: { file: string; range: Range; message: string; inString?: StringSpot }[];
  /**
   * Where the finding's event is in the text of the long JSON string it starts in (a MAST log: the
   * editor shows that line collapsed), for the Problems panel to open that text at the event's line;
   * for an event or a reader problem past the start of a long line outside a string (a span of a
   * one-line OTLP export), its place in the line's JSON formatted (`view: 'json'`).
   */
  inString?: StringSpot;
}

/** The Problems panel entries of one file: the first 1,000 and one summary of the rest (diagnostic-cap.ts). */
export interface FileDiagnostics {
  /** `''` for the trace file, else the absolute path of the file (a sub-agent transcript). */
  file: string;
  items: SessionDiagnostic[];
}

/** A finding of the analysis, as the host needs it (no loop shapes or stop evidence records). */
export interface SummaryFinding {
  kind: Finding['kind'];
  severity: Finding['severity'];
  mode?: Finding['mode'];
  /** Short text of the inline mark, e.g. `loop ×3`. */
  inline: string;
  message: string;
  /** Indices of the events concerned (evidence), the first {@link MAX_EVIDENCE}; the first is the main one. */
  events: number[];
  /** How many events the finding concerns (a delayed stop's wasted work can be thousands). */
  eventCount: number;
  /** Where the main event is: its origin file (`''`: the trace file, else as the origin names it) and range. */
  at?: { file: string; range: Range };
}

/** What the extension host keeps of one version of a trace session. */
export interface SessionSummary {
  /** Session key: the trace file's URI as a string. */
  key: string;
  /** Document version it was read from (-1 when read from disk). */
  version: number;
  /** File system path of the trace file. */
  path: string;
  /** Differs between loads: graph windows and queries name it, and are answered for the latest only. */
  stamp: number;
  /** Id of the format that read it, e.g. `otrace-jsonl`, `claude-code`, `mapping:crew-runlog`. */
  format: string;
  /** The mapping file that read it, when one did. */
  mappingPath?: string;
  /** `agents`: every lane's agent; `compactions`: those of them that compact another's context (no agents of the run), when any. */
  counts: { events: number; edges: number; agents: number; compactions?: number; stops: number; loops: number; problems: number; findings: number };
  /** Files events came from: `''` = the trace file, else the origin's `file` (a sub-agent transcript, relative to the trace's folder or absolute); then the other files the import read (an OTel export's logs file). */
  files: string[];
  /** Absolute paths of the prompt files events name in `source.path` (PromptCodeLens asks which events). */
  promptFiles: string[];
  /** The Problems panel, per file, capped. */
  diagnostics: FileDiagnostics[];
  findings: SummaryFinding[];
  /** Set when the analysis failed: the trace still shows, without findings. */
  analysisError?: string;
  /**
   * True for the first answer of a large trace's load: the trace as read, shown while its analysis
   * runs (no findings, no loops counted yet); the load's answer then brings the analysed summary.
   */
  analysisPending?: true;
  /**
   * Set while the analysis of lines appended to a shown trace runs (`analysisPending`): the findings
   * are the last analysis's, of the trace's first `analysedEvents` events (the views keep them meanwhile).
   */
  analysedEvents?: number;
  /** Bytes read from disk for this session so far (the trace file when read from disk, and the files it pulls in). */
  bytesRead: number;
  /**
   * True when this snapshot was made from lines appended to one of the session's files (a run still
   * being written); a re-read that found nothing changed answers the same snapshot with the same value.
   */
  grew: boolean;
  /** How the analysis of a followed trace was made (src/analysis/follow.ts): from the last one (`appended`, `unchanged`) or `whole`; absent when not followed. */
  analysedAs?: FollowHow;
  /**
   * Set on the first answer of a large file read in parts (its analysis pending): the trace is the
   * file's first `bytes` bytes of `of`, the rest being read; its problems are listed once it is read
   * whole (`diagnostics` empty meanwhile: a reference to an event not read yet is no missing event).
   */
  reading?: { bytes: number; of: number; stopped?: true };
}

/** Related locations listed per finding in the Problems panel. */
export const MAX_RELATED = 20;
/** Evidence event indices kept per finding in the summary (the engine has them all). */
export const MAX_EVIDENCE = 100;

const KIND_LABEL: Record<string, string> = { stop: 'stop', loop: 'loop', blame: 'blame', best_stop: 'best stop', verification: 'verification' };

/** A finding's message led by its kind, once: `loop: …`; a message that starts with its kind already (`verification: the last check…`, `stop (task_complete): …`) as it is. */
export function kindFirst(label: string, message: string): string {
  return message.startsWith(`${label}:`) || message.startsWith(`${label} (`) ? message : `${label}: ${message}`;
}

/**
 * The summary of a snapshot. O(n) for n events (counts, files, prompt files), plus the findings.
 * @param stamp the snapshot's stamp; @param bytesRead bytes read from disk so far; @param grew see {@link SessionSummary.grew}.
 */
export function summarize(snapshot: TraceSnapshot, stamp: number, bytesRead: number, grew: boolean): SessionSummary {
  const { loaded } = snapshot;
  const events = loaded.trace.events;
  const { agents, stops, prompts, compaction } = eventCounts(snapshot);
  // (the lanes of compactions are found only in a trace that has one: a pass over its events and edges)
  const compactions = compaction ? compactionAgents(events, loaded.trace.edges).size : 0;
  const origins = loaded.eventOrigins;
  const findings: SummaryFinding[] = snapshot.findings.map((f) => {
    const o = origins.get(f.events[0]);
    return { kind: f.kind, severity: f.severity, mode: f.mode, inline: f.inline, message: f.message, events: f.events.slice(0, MAX_EVIDENCE), eventCount: f.events.length, at: o && { file: o.file ?? '', range: o.range } };
  });
  return {
    key: snapshot.key,
    version: snapshot.version,
    path: snapshot.path,
    stamp,
    format: loaded.format,
    mappingPath: loaded.mappingPath,
    counts: { events: events.length, edges: loaded.trace.edges.length, agents, ...(compactions ? { compactions } : {}), stops, loops: shownAnalysis(snapshot)?.loops.length ?? 0, problems: loaded.problems.length, findings: findings.length },
    files: [...new Set([...snapshot.byFile.keys(), ...(loaded.readFiles ?? [])])],
    promptFiles: prompts,
    diagnostics: snapshot.reading ? [] : sessionDiagnostics(snapshot),
    findings,
    analysisError: snapshot.analysisError,
    ...(snapshot.analysisPending ? { analysisPending: true as const } : {}),
    ...(snapshot.carried ? { analysedEvents: snapshot.carried.events } : {}),
    ...(snapshot.reading ? { reading: snapshot.reading } : {}),
    bytesRead,
    grew,
  };
}

/** Absolute paths of the prompt files named by the `source.path` of events `from` .. n - 1 (URLs are not files), added to `out`. */
function addPromptFiles(snapshot: TraceSnapshot, from: number, out: Set<string>): Set<string> {
  const events = snapshot.loaded.trace.events;
  for (let i = from; i < events.length; i++) {
    const e = events[i];
    if (e.source?.path && !/^[a-zA-Z][a-zA-Z0-9+.-]+:/.test(e.source.path)) out.add(path.resolve(path.dirname(snapshot.path), e.source.path));
  }
  return out;
}

/** What {@link summarize} counts over every event of a trace file seen growing, kept for the next load (by the trace's first event). */
interface EventCounts {
  path: string;
  /** The list counted (held weakly: the counts kept must not keep an earlier read's list in memory) and its length then. */
  events: WeakRef<readonly TraceEvent[]>;
  length: number;
  stops: number;
  /** Each agent's name (kept up to {@link MAX_AGENTS_CARRIED}). */
  agents: Set<string>;
  prompts: Set<string>;
  /** True when some event is a compaction (`kind`). */
  compaction: boolean;
}

/** Above this many agents, the counts of a growing trace are not carried (the set of names would be large): made whole each time. */
const MAX_AGENTS_CARRIED = 100_000;
/**
 * Counts kept per trace (by its first event): the last few, not only the last. While a followed
 * trace is analysed, the next append's read is summarized first and the analysed snapshot of the
 * read before it after: with only the newest counts kept, that older list was counted whole again
 * (130 ms at 1M events, once per analysis).
 */
const COUNTS_KEPT = 3;
const counted = new WeakMap<TraceEvent, EventCounts[]>();
let carried = 0;

/** How many summaries this process made from the counts of the last one of their trace (an append) instead of counting every event: for tests and benches. */
export function summaryCountsCarried(): number {
  return carried;
}

/**
 * The agents, stops and prompt files of a snapshot's events, and whether one is a compaction. O(n) for n events; for a trace of a
 * file seen growing (src/engine/structure-growth.ts `isFollowed`) whose events up to those counted
 * last time are the same objects (an append), O(appended) plus one comparison per old event.
 */
function eventCounts(snapshot: TraceSnapshot): { agents: number; stops: number; prompts: string[]; compaction: boolean } {
  const events = snapshot.loaded.trace.events;
  const n = events.length;
  const followed = n > 0 && isFollowed(snapshot.loaded);
  const kept = (followed && counted.get(events[0])) || [];
  // the longest counts of a list this one goes on from: O(1) for the same list, or those a growing read noted (src/trace/shared-prefix.ts)
  let last: EventCounts | undefined;
  let from = 0;
  for (const c of kept) {
    const m = c.length;
    const list = c.events.deref();
    if (list && c.path === snapshot.path && m <= n && m > from && (list === events || samePrefix(events, list, m))) {
      last = c;
      from = m;
    }
  }
  if (!followed || (from === 0 && agentColumn(events).count > MAX_AGENTS_CARRIED)) {
    // the agents numbered once (shared with the graph's lanes): no second set of every agent's name
    let stops = 0;
    const kinds = kindColumn(events);
    for (let i = 0; i < kinds.length; i++) if (kinds[i] === KIND.stop) stops++;
    return { agents: agentColumn(events).count, stops, prompts: [...addPromptFiles(snapshot, 0, new Set())], compaction: events.some((e) => e.kind === 'compaction') };
  }
  if (from) carried++;
  const agents = from ? new Set(last!.agents) : new Set<string>();
  let stops = from ? last!.stops : 0;
  let compaction = from ? last!.compaction : false;
  for (let i = from; i < n; i++) {
    agents.add(events[i].agent);
    if (canonicalType(events[i].type) === 'stop') stops++;
    if (events[i].kind === 'compaction') compaction = true;
  }
  const prompts = addPromptFiles(snapshot, from, from ? new Set(last!.prompts) : new Set());
  const entry: EventCounts = { path: snapshot.path, events: new WeakRef(events), length: n, stops, agents, prompts, compaction };
  if (agents.size <= MAX_AGENTS_CARRIED) counted.set(events[0], [...kept.filter((c) => c.events.deref() !== events && c.events.deref() !== undefined), entry].slice(-COUNTS_KEPT));
  else counted.delete(events[0]);
  return { agents: agents.size, stops, prompts: [...prompts], compaction };
}

/**
 * The Problems panel of a session: reader problems, then findings other than sound stops, on the
 * file they are in (a sub-agent file has its own), each file capped to the first 1,000 and one
 * summary of the rest.
 */
export function sessionDiagnostics(snapshot: TraceSnapshot): FileDiagnostics[] {
  const dir = path.dirname(snapshot.path);
  const fileKey = (file: string | undefined) => (file ? path.resolve(dir, file) : '');
  const byFile = new Map<string, SessionDiagnostic[]>([['', []]]);
  const add = (file: string, d: SessionDiagnostic) => {
    const list = byFile.get(file);
    if (list) list.push(d);
    else byFile.set(file, [d]);
  };
  // a problem past the start of a long line (a span of a one-line export) also points into the text shown for that line
  const problemSpots = rangeStringSpots(snapshot, snapshot.loaded.problems.map((p, k) => [k, p.file ?? '', p.range] as [number, string, Range]));
  const followed = isFollowed(snapshot.loaded);
  snapshot.loaded.problems.forEach((read, k) => {
    const p = shownProblem(read, followed);
    const spot = problemSpots.get(k);
    add(fileKey(p.file), { severity: p.severity, message: p.message, range: p.range, ...(spot ? { inString: spot } : {}) });
  });
  for (const [file, d] of findingDiagnostics(snapshot, fileKey)) add(file, d);
  return [...byFile].map(([file, list]) => {
    const { shown, summary } = capDiagnostics(list, (d) => d);
    return { file, items: summary ? [...shown, summary] : shown };
  });
}

/**
 * The findings' diagnostics, made once per findings list and session file: the trace as read
 * after an append shows the last analysis's findings (snapshot.ts `appendedSnapshot`: the same
 * list, its events the same records at the same places), whose diagnostics are those made for the
 * analysed snapshot, not made again per append (a label per related event: about 20 ms at 1M events).
 */
const findingsShown = new WeakMap<readonly Finding[], { path: string; items: [string, SessionDiagnostic][] }>();

/**
 * A related event's words in a diagnostic, as the graph names it, with its agent; made once per
 * event (a record read is the same object at every later read of a followed trace: the findings of
 * each append name mostly the same events, 3,000 labels and 19 ms of each append at 1M events).
 */
function relatedLabel(e: TraceEvent): string {
  let label = relatedLabels.get(e);
  if (label === undefined) relatedLabels.set(e, (label = `${visibleText(nodeLabel(e, false))} by ${visibleText(e.agent)}`));
  return label;
}
const relatedLabels = new WeakMap<TraceEvent, string>();

/**
 * Per finding other than a sound stop: its file (as `fileKey` names it) and diagnostic, in finding
 * order (see {@link findingsShown}). A finding the last list of the same trace held too, naming the
 * same old events, takes the diagnostic made for it (see {@link lastFindingItems}).
 */
function findingDiagnostics(snapshot: TraceSnapshot, fileKey: (file: string | undefined) => string): [string, SessionDiagnostic][] {
  const known = findingsShown.get(snapshot.findings);
  if (known && known.path === snapshot.path) return known.items;
  const origins = snapshot.loaded.eventOrigins;
  const events = snapshot.loaded.trace.events;
  const shown = snapshot.findings.filter((f) => f.mode !== 'ok'); // a stop with no failure found (a turn or phase end too) is no problem: decorations and hovers show it
  const last = lastFindingItems.get(snapshot.path);
  const before = last && samePrefix(events, last.events, last.n) ? last : undefined;
  const keys = shown.map(findingKey);
  const kept = shown.map((f, k) => (before && f.events.slice(0, MAX_RELATED + 1).every((i) => i < before.n) ? before.byKey.get(keys[k]) : undefined));
  const spots = eventStringSpots(snapshot, shown.flatMap((f, k) => (kept[k] ? [] : f.events.slice(0, MAX_RELATED + 1))));
  const inString = (i: number) => {
    const spot = spots.get(i);
    return spot ? { inString: spot } : {}; // its file as the session names it (the key of the string's text), not the Problems panel's path
  };
  const items: [string, SessionDiagnostic][] = [];
  const byKey = new Map<string, [string, SessionDiagnostic]>();
  shown.forEach((f, k) => {
    let item = kept[k];
    if (item) findingItemsKept++;
    else {
      const main = origins.get(f.events[0]);
      if (!main) return;
      const related = f.events
        .slice(1, MAX_RELATED + 1)
        .filter((i) => origins.get(i))
        // named as the graph names the event, with its agent: a tool-use id (`toolu_01LZ…:result`) says nothing
        .map((i) => ({ file: fileKey(origins.get(i)!.file), range: origins.get(i)!.range, message: `${relatedLabel(events[i])} (${KIND_LABEL[f.kind]})`, ...inString(i) }));
      item = [fileKey(main.file), { severity: f.severity, message: kindFirst(KIND_LABEL[f.kind] ?? f.kind, f.message), range: main.range, code: f.kind, related, ...inString(f.events[0]) }];
    }
    items.push(item);
    byKey.set(keys[k], item);
  });
  findingsShown.set(snapshot.findings, { path: snapshot.path, items });
  lastFindingItems.delete(snapshot.path);
  lastFindingItems.set(snapshot.path, { events, n: events.length, byKey });
  for (const path of lastFindingItems.keys()) if (lastFindingItems.size > LAST_FINDING_TRACES) lastFindingItems.delete(path);
  return items;
}

/**
 * Per trace path (the last {@link LAST_FINDING_TRACES} made), the diagnostics of its last findings
 * list by finding ({@link findingKey}), with the events they were made for. A followed trace's next
 * analysis finds most findings again (313 at 1M events, a few of them changed by an append): a
 * finding with the same key whose events are old ones (the same records at the same places: the
 * list's first `n` events are the same objects) has the same origins, labels and spots, so its
 * diagnostic is taken, not made again (4 ms and 2 MB of each append's analysed summary at 1M).
 */
const lastFindingItems = new Map<string, { events: readonly TraceEvent[]; n: number; byKey: Map<string, [string, SessionDiagnostic]> }>();
/** Traces whose last findings' diagnostics are kept. */
const LAST_FINDING_TRACES = 8;
let findingItemsKept = 0;

/** Diagnostics taken from the last findings list of the same trace so far (for tests). */
export function findingDiagnosticsKept(): number {
  return findingItemsKept;
}

/** Lets go of the last findings' diagnostics kept per trace (for tests: the next are made whole). */
export function forgetFindingDiagnostics(): void {
  lastFindingItems.clear();
}

/** What a finding's diagnostic is made of, besides its events' origins, labels and spots: its kind, severity, mode, message and the events it names. */
function findingKey(f: Finding): string {
  return `${f.kind}\u0000${f.severity}\u0000${f.mode ?? ''}\u0000${f.message}\u0000${f.events.slice(0, MAX_RELATED + 1).join(',')}`;
}
