/**
 * One Claude Code import: the session file and its sub-agent files, the links between Task/Agent
 * calls and sub-agents, the lanes, and what is done after all records (returns, sub-agent stops,
 * edges, tokens, the accounting of what was not shown). Records are handed one at a time to the
 * handler of their kind ({@link ClaudeImport.readRecord}: assistant.ts, user.ts, system.ts,
 * progress.ts), which is what lets a caller feed appended records one by one.
 *
 * Pure: imports nothing from `vscode`.
 */
import { type AgentCall, contentText, type Json, type LaneState, MAIN_LANE, type MessageUsage, RECORD_TYPES, SIDE_RECORD_TYPES, type SourceFile, usageByKind, usageTokens } from './model';
import { addUsage } from '../../tokens';
import { baseName, setContent, dirName, isObject, joinPath, num, ownKindsMessage, parseTimestamp, readJsonlRecords, recordOrigin, secondsSince, str, TraceAssembler, type JsonlRecord } from '../jsonl-records';
import type { FileAccess } from '../../formats';
import type { JsonlParts } from '../../jsonl-feed';
import type { LoadedTrace, Origin, Problem } from '../../model';
import type { StopReason, TraceEvent } from '../../schema';
import { assistant } from './assistant';
import { user } from './user';
import { system } from './system';
import { mirror } from './progress';
import { emptyScan, scanRecords, type FileScan, type RecordScans } from './links';
import { readAgentMeta, type WorkflowRun } from './sidecars';
import { emitWorkflowSpawns, linkWorkflowRuns, loadWorkflowFiles, unlinkedRunsNote, workflowCaller, workflowHeader } from './workflows';
import { noteSideRecord, unknownTypesProblem, type SideRecords } from './side-records';
import { linkHandOffs, linkReturns } from './returns';
/** Where the reading of one file stands: its own lane, the last time seen, the sub-agents that have files. */
export interface FileCursor {
  file: SourceFile;
  lane: LaneState;
  /** Epoch ms of the last record with a time. */
  lastMs: number;
  withFile: Set<string | undefined>;
}

/** One record handed to its handler: the parsed record, its lane, time (epoch ms) and origin. */
export interface RecordContext {
  record: JsonlRecord;
  value: Json;
  lane: LaneState;
  ms: number;
  origin: Origin;
  cursor: FileCursor;
}

/** The handlers of the record kinds Claude Code writes, by `type` (others are counted as not shown). */
export const RECORD_HANDLERS: Record<string, (im: ClaudeImport, c: RecordContext) => void> = {
  assistant: (im, c) => assistant(im, c.lane, c.value, c.ms, c.origin),
  user: (im, c) => user(im, c.lane, c.value, c.ms, c.origin, c.record, c.cursor.file.path),
  system: (im, c) => system(im, c.lane, c.value, c.ms, c.origin),
  progress: (im, c) => {
    const data = isObject(c.value.data) ? c.value.data : undefined;
    const agentId = str(data?.agentId);
    if (data?.type === 'agent_progress' && agentId && !c.cursor.withFile.has(agentId) && c.cursor.file === im.main) {
      mirror(im, data, agentId, str(c.value.parentToolUseID), c.ms, c.origin, c.record, c.cursor.file.path);
    } else if (data?.type === 'agent_progress' && agentId && c.cursor.withFile.has(agentId)) {
      // repeats a message of a sub-agent whose own file is read: shown from there
    } else im.skip(`progress/${str(data?.type) ?? '?'}`, c.origin);
  },
};

/** The state of one import; the record handlers read and update it. */
export class ClaudeImport {
  readonly problems: Problem[] = [];
  readonly out: TraceAssembler;
  main: SourceFile;
  readonly subFiles: SourceFile[] = [];
  base = 0;
  readonly lanes = new Map<string, LaneState>();
  readonly calls = new Map<string, AgentCall>();
  /** tool_use id -> the tool_call / delegate event id, and the tool name. */
  readonly callEvents = new Map<string, { id: string; tool: string; lane: string; input?: Json }>();
  readonly agentOfCall = new Map<string, string>();
  readonly messages = new Map<string, MessageUsage>();
  /** A background run's ids (task id, agent id, run id, as its launch result gave them) -> the tool_use ids of the calls that launched it (a resumed agent's id is launched again), in order. */
  readonly background = new Map<string, string[]>();
  /** tool_use id -> the task-notification events that reported on the call, in order. */
  readonly notified = new Map<string, string[]>();
  /** Background calls a later result said had ended (TaskOutput, TaskStop) before their notification came. */
  readonly ended = new Set<string>();
  /** Task notifications read: tied to a call, naming none, reporting a failure. */
  readonly notificationKinds = { linked: 0, unlinked: 0, failed: 0 };
  /** SendMessage calls that resumed a sub-agent (or wrote to a running one), in order. */
  readonly resumes: { toolUseId: string; eventId: string; lane: string; agentId?: string; text: string }[] = [];
  /** Workflow runs by run id (`wf_…`), and the spawn event of each Workflow agent's lane. */
  readonly workflowRuns = new Map<string, WorkflowRun>();
  readonly workflowSpawns = new Map<string, string>();
  /** Side-channel records (mode, ai-title, bridge-session, …) and records of types otrace does not know. */
  readonly side: SideRecords = { counts: {}, unknown: {}, state: {} };
  /** uuid of a main-file record -> the last main-lane event when it was read. */
  readonly eventAtUuid = new Map<string, string>();
  readonly sidechainRoot = new Map<string, string>();
  readonly sidechainLanes = new Map<string, LaneState>();
  readonly compactSummaries: { id: string; t: number }[] = [];
  /** tool_use ids that got a result. */
  readonly answered = new Set<string>();
  /** Files whose last line is cut off (still being written); '' is the opened file. */
  readonly cutOff = new Set<string>();
  firstSkipped?: Origin;
  readonly skipped: Record<string, number> = {};
  readonly meta = { sessionId: undefined as string | undefined, versions: new Set<string>(), cwd: undefined as string | undefined, gitBranch: undefined as string | undefined, slug: undefined as string | undefined };
  /** Scans of the records kept between the updates of a growing import (growing.ts); none for a whole import. */
  scans?: RecordScans;
  toolCalls = 0;
  thinking = 0;
  compactions = 0;
  readonly costs = { tokens: 0, input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

  /**
   * @param main the records of the session file (and the problems of its unusable lines).
   * @param fileName its path; @param files lists the folders its sub-agent files are in.
   * @param recordsOf the records of another file (a sub-agent's; `path` is put on its problems),
   *   undefined when it cannot be read: by default its text from `files`, parsed whole; a growing
   *   import gives the records it keeps (src/trace/jsonl-feed.ts).
   */
  constructor(
    main: JsonlParts,
    private readonly fileName: string,
    private readonly files?: FileAccess,
    private readonly recordsOf: (path: string) => JsonlParts | undefined = (path) => {
      const text = files?.readText(path);
      return text === undefined ? undefined : readJsonlRecords(text, path);
    },
  ) {
    this.out = new TraceAssembler(this.problems);
    this.problems.push(...main.problems);
    if (main.problems.some((p) => p.unterminated)) this.cutOff.add('');
    this.main = { records: main.records, complete: main.complete, generation: main.generation };
  }

  /** The reading of the session file: its lane and where its time stands ({@link prepare} sets it). */
  mainCursor!: FileCursor;

  /** The whole import: {@link prepare}, the session file's records, then {@link finishRead}. */
  run(): LoadedTrace {
    this.prepare();
    for (const r of this.main.records) this.readRecord(r, this.mainCursor);
    return this.finishRead();
  }

  /** What must be known before any record is read: the sub-agent files, the calls they link to, the time base, the main lane. */
  prepare(): void {
    this.loadSubagentFiles();
    this.link();
    this.loadSiblingAgentFiles();
    this.base = this.earliestTimestamp();
    this.mainCursor = this.cursor(this.main, MAIN_LANE);
  }

  /** After the session file's records: the sub-agent files' records, then what is done after all records; the trace. */
  finishRead(): LoadedTrace {
    emitWorkflowSpawns(this);
    for (const f of this.subFiles) {
      const lane = this.subLaneOf(f);
      this.readFile(f, lane.name);
    }
    this.finishLanes();
    linkHandOffs(this);
    this.attributeTokens();
    this.accountFor();
    this.missingSubFiles();
    return this.out.finish('claude-code', this.header());
  }

  /**
   * A copy of this import's state, to finish while this one reads more records (a growing import,
   * src/trace/importers/claude-code/growing.ts): everything records and the end change is copied
   * (events, lanes, calls, usage, the maps and counts); records, origins and call inputs, which
   * nothing changes, are shared.
   * @param problems the copy's problem list (the lines' problems first, as a whole import has them).
   */
  fork(problems: Problem[]): ClaudeImport {
    const f = new ClaudeImport({ records: this.main.records, problems: [], lineCount: 0 }, this.fileName, this.files, this.recordsOf);
    for (const p of this.problems) problems.push(p);
    const copy = f as unknown as { problems: Problem[]; out: TraceAssembler };
    copy.problems = problems;
    copy.out = this.out.fork(problems);
    f.main = this.main;
    f.subFiles.push(...this.subFiles);
    f.base = this.base;
    const calls = new Map<AgentCall, AgentCall>();
    const callOf = (c: AgentCall | undefined) => {
      if (!c) return undefined;
      let k = calls.get(c);
      if (!k) calls.set(c, (k = { ...c }));
      return k;
    };
    for (const [id, c] of this.calls) f.calls.set(id, callOf(c)!);
    const lanes = new Map<LaneState, LaneState>();
    const laneOf = (l: LaneState) => {
      let k = lanes.get(l);
      if (!k) lanes.set(l, (k = { ...l, inputs: l.inputs.slice(), models: new Set(l.models), call: callOf(l.call), ...(l.background ? { background: l.background.slice() } : {}), ...(l.reports ? { reports: l.reports.slice() } : {}), ...(l.prompts ? { prompts: l.prompts.slice() } : {}) }));
      return k;
    };
    for (const [name, l] of this.lanes) f.lanes.set(name, laneOf(l));
    for (const [root, l] of this.sidechainLanes) f.sidechainLanes.set(root, laneOf(l));
    for (const [id, c] of this.callEvents) f.callEvents.set(id, { ...c });
    for (const [id, a] of this.agentOfCall) f.agentOfCall.set(id, a);
    for (const [id, mu] of this.messages) f.messages.set(id, { ...mu });
    for (const [k, v] of this.background) f.background.set(k, v.slice());
    for (const [k, v] of this.notified) f.notified.set(k, v.slice());
    for (const id of this.ended) f.ended.add(id);
    Object.assign(f.notificationKinds, this.notificationKinds);
    for (const r of this.resumes) f.resumes.push({ ...r });
    for (const [k, v] of this.workflowRuns) f.workflowRuns.set(k, v);
    f.side.state = { ...this.side.state };
    Object.assign(f.side.counts, this.side.counts);
    Object.assign(f.side.unknown, this.side.unknown);
    if (this.side.first) f.side.first = this.side.first;
    for (const [k, v] of this.eventAtUuid) f.eventAtUuid.set(k, v);
    for (const [k, v] of this.sidechainRoot) f.sidechainRoot.set(k, v);
    for (const c of this.compactSummaries) f.compactSummaries.push({ ...c });
    for (const id of this.answered) f.answered.add(id);
    for (const p of this.cutOff) f.cutOff.add(p);
    f.firstSkipped = this.firstSkipped;
    Object.assign(f.skipped, this.skipped);
    Object.assign(f.meta, { ...this.meta, versions: new Set(this.meta.versions) });
    f.toolCalls = this.toolCalls;
    f.thinking = this.thinking;
    f.compactions = this.compactions;
    Object.assign(f.costs, this.costs);
    f.mainCursor = { ...this.mainCursor, lane: laneOf(this.mainCursor.lane), withFile: new Set(this.mainCursor.withFile) };
    return f;
  }

  // ---- files and links -------------------------------------------------------------------

  /**
   * Reads `<session>/subagents/agent-*.jsonl` next to the opened file, in name order, each with its
   * sidecar (`agent-<id>.meta.json`) when there is one, then the agents of the session's Workflow
   * runs (`subagents/workflows/wf_<runId>/`, see workflows.ts).
   */
  loadSubagentFiles(): void {
    if (!this.files) return;
    const name = baseName(this.fileName);
    if (!name.endsWith('.jsonl')) return;
    const dir = dirName(this.fileName);
    const sessionDir = joinPath(this.fileName, ...(dir ? [dir] : []), name.slice(0, -'.jsonl'.length));
    const subDir = joinPath(this.fileName, sessionDir, 'subagents');
    const names = this.files.list(subDir) ?? [];
    for (const n of [...names].filter((x) => /^agent-.+\.jsonl$/.test(x)).sort()) this.addSubFile(joinPath(this.fileName, subDir, n));
    loadWorkflowFiles(this, this.files, this.fileName, subDir, sessionDir);
  }

  /** The records of a file other than a transcript (a Workflow journal), with its problems put on the import; undefined when it cannot be read. */
  readOther(path: string): JsonlParts | undefined {
    const parsed = this.recordsOf(path);
    if (parsed) this.problems.push(...parsed.problems);
    return parsed;
  }

  /**
   * Claude Code 2.0.x kept sub-agent transcripts beside the session (`<project>/agent-<agentId>.jsonl`):
   * reads those of the linked agents whose file was not found under `subagents/`.
   */
  loadSiblingAgentFiles(): void {
    if (!this.files) return;
    const have = new Set(this.subFiles.map((f) => f.agentId));
    const dir = dirName(this.fileName);
    for (const call of this.calls.values()) {
      if (!call.agentId || have.has(call.agentId) || !/^[\w-]+$/.test(call.agentId)) continue;
      have.add(call.agentId);
      this.addSubFile(joinPath(this.fileName, ...(dir ? [dir] : []), `agent-${call.agentId}.jsonl`));
    }
  }

  /**
   * One warning when sub-agents the session names (a call's `agentId`) have no transcript beside it
   * (a session file copied without its `<session>/subagents/` folder): their lanes hold only what the
   * session records of them (mirrored progress, the call's result), not their own tokens and records.
   * Only when the files around the session can be read (else nothing could be looked for).
   */
  private missingSubFiles(): void {
    if (!this.files) return;
    const have = new Set(this.subFiles.map((f) => f.agentId));
    const missing = [...this.calls.values()].filter((c) => c.agentId !== undefined && !have.has(c.agentId));
    const at = missing.length ? this.out.originOf(missing[0].toolUseId) : undefined;
    if (!at) return;
    const ids = missing.map((c) => c.agentId).join(', ');
    const name = baseName(this.fileName).replace(/\.jsonl$/, '');
    this.problems.push({
      severity: 'warning',
      message: `${missing.length} sub-agent transcript${missing.length > 1 ? 's are' : ' is'} not beside the session (${name}/subagents/agent-<id>.jsonl): ${ids}; ${missing.length > 1 ? 'their lanes hold' : 'its lane holds'} only what this file records of ${missing.length > 1 ? 'them' : 'it'}, not ${missing.length > 1 ? 'their' : 'its'} own records and tokens`,
      range: at.range,
      ...(at.file ? { file: at.file } : {}),
    });
  }

  /** Adds a sub-agent transcript (with its sidecar, when there is one); `workflowRun` for a Workflow agent's. */
  addSubFile(path: string, workflowRun?: string): void {
    const parsed = this.recordsOf(path);
    if (parsed === undefined) return;
    this.problems.push(...parsed.problems);
    if (parsed.problems.some((p) => p.unterminated)) this.cutOff.add(path);
    let agentId: string | undefined;
    for (const r of parsed.records) {
      agentId = str(r.value.agentId);
      if (agentId) break;
    }
    const n = baseName(path);
    const f: SourceFile = { path, records: parsed.records, agentId: agentId ?? n.slice('agent-'.length, -'.jsonl'.length), complete: parsed.complete, generation: parsed.generation };
    const meta = this.files ? readAgentMeta(this.files, path, this.problems) : undefined;
    if (meta) f.meta = meta;
    if (workflowRun) f.workflowRun = workflowRun;
    this.subFiles.push(f);
  }

  earliestTimestamp(): number {
    let min = Infinity;
    for (const f of [this.main, ...this.subFiles]) for (const scan of this.scansOf(f)) min = Math.min(min, scan.earliest);
    return Number.isFinite(min) ? min : 0;
  }

  /** What the records of `f` say before they are read: kept between updates when {@link scans} is set. */
  scansOf(f: SourceFile): FileScan[] {
    return this.scans ? this.scans.of(f) : [scanRecords(f.records, 0, f.records.length, emptyScan())];
  }

  /** Finds the agent calls and the agents they started (from results, progress records and prompts). */
  link(): void {
    // Files in order: a call takes its place from its first use and its input from its last; an agent comes from the first result naming it.
    const scans: FileScan[] = [];
    for (const f of [this.main, ...this.subFiles]) {
      for (const scan of this.scansOf(f)) {
        scans.push(scan);
        for (const [id, input] of scan.calls) this.calls.set(id, { toolUseId: id, lane: '', input });
        for (const [id, agentId] of scan.agentOf) if (!this.agentOfCall.has(id)) this.agentOfCall.set(id, agentId);
      }
    }
    for (const [id, call] of this.calls) call.agentId = this.agentOfCall.get(id);
    // A sidecar's toolUseId names the call that started its agent exactly: it wins over what results and progress records say.
    for (const f of this.subFiles) {
      const call = f.meta?.toolUseId ? this.calls.get(f.meta.toolUseId) : undefined;
      if (!call || !f.agentId) continue;
      for (const other of this.calls.values()) if (other !== call && other.agentId === f.agentId && !other.bySidecar) other.agentId = undefined;
      call.agentId = f.agentId;
      call.bySidecar = true;
    }
    linkWorkflowRuns(this, scans);
    // Sub-agent files that no result or progress record names (or names otherwise, as team agents'
    // "agent_id: name@team"): match their first prompt to the prompt of a call not linked to a file.
    const fileIds = new Set(this.subFiles.map((f) => f.agentId));
    const claimed = new Set([...this.calls.values()].map((c) => c.agentId).filter((a): a is string => !!a && fileIds.has(a)));
    for (const f of this.subFiles) {
      if (!f.agentId || claimed.has(f.agentId) || f.workflowRun) continue;
      const prompt = this.firstPrompt(f);
      if (prompt === undefined) continue;
      for (const call of this.calls.values()) {
        if ((!call.agentId || !fileIds.has(call.agentId)) && str(call.input.prompt) === prompt) {
          call.agentId = f.agentId;
          claimed.add(f.agentId);
          break;
        }
      }
    }
  }

  firstPrompt(f: SourceFile): string | undefined {
    for (const r of f.records) {
      if (r.value.type === 'user' && !r.value.isMeta && isObject(r.value.message)) return contentText(r.value.message.content);
    }
    return undefined;
  }

  laneName(agentId: string, type: string | undefined): string {
    const kind = type ?? (agentId.startsWith('acompact') ? 'compact' : this.subFiles.find((f) => f.agentId === agentId)?.meta?.agentType ?? 'agent');
    return `${kind}:${agentId}`;
  }

  lane(name: string): LaneState {
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = { name, lastEventT: 0, endsWithText: false, turnHasOutput: false, turnStopped: false, inputs: [], models: new Set() };
      this.lanes.set(name, lane);
    }
    return lane;
  }

  /** The lane of a sub-agent file (the call that spawned it, when known). */
  subLaneOf(f: SourceFile): LaneState {
    const agentId = f.agentId ?? 'unknown';
    const call = [...this.calls.values()].find((c) => c.agentId === agentId);
    const lane = this.lane(call?.subLane ?? this.laneName(agentId, str(call?.input.subagent_type)));
    lane.agentId = agentId;
    lane.file = f.path;
    if (call) {
      lane.call = call;
      call.subLane = lane.name;
      lane.subagentType = str(call.input.subagent_type);
    }
    lane.subagentType ??= f.meta?.agentType;
    if (f.meta?.description) lane.description = f.meta.description;
    if (f.meta?.spawnDepth !== undefined) lane.spawnDepth = f.meta.spawnDepth;
    if (f.workflowRun) lane.workflowRun = f.workflowRun;
    return lane;
  }

  // ---- records -----------------------------------------------------------------------------

  /** Reads the records of one file, in order, into the lane `laneName` (see {@link readRecord}). */
  readFile(f: SourceFile, laneName: string): void {
    const cursor = this.cursor(f, laneName);
    for (const r of f.records) this.readRecord(r, cursor);
  }

  /** Where the reading of a file starts: its lane (made when new), at the time base. */
  cursor(f: SourceFile, laneName: string): FileCursor {
    return { file: f, lane: this.lane(laneName), lastMs: this.base, withFile: new Set(this.subFiles.map((s) => s.agentId)) };
  }

  /**
   * Reads one record (a line of `cursor.file`): its time (the previous record's when it has none),
   * the lane (a 1.x sidechain's own lane), then the handler of its `type` ({@link RECORD_HANDLERS});
   * a record of a type without a handler is counted as not shown. Records can be handed in one by
   * one as they are appended to the file.
   */
  readRecord(r: JsonlRecord, cursor: FileCursor): void {
    const f = cursor.file;
    const v = r.value;
    const ms = parseTimestamp(v.timestamp) ?? (isObject(v.snapshot) ? parseTimestamp(v.snapshot.timestamp) : undefined) ?? cursor.lastMs;
    cursor.lastMs = ms;
    this.noteMeta(v);
    const origin = recordOrigin(r, f.path);
    const type = str(v.type) ?? '(none)';
    const lane = f === this.main && v.isSidechain === true ? this.sidechainLane(v) : (this.forkedContextLane(f, v, cursor) ?? cursor.lane);
    const handler = Object.prototype.hasOwnProperty.call(RECORD_HANDLERS, type) ? RECORD_HANDLERS[type] : undefined;
    if (handler) handler(this, { record: r, value: v, lane, ms, origin, cursor });
    else if (RECORD_TYPES.has(type)) this.skip(type, origin);
    else if (!noteSideRecord(this.side, type, v, origin, SIDE_RECORD_TYPES.has(type))) this.skip(`unknown/${type}`, origin);
    if (typeof v.uuid === 'string' && (f === this.main || lane !== cursor.lane) && lane.lastEventId) this.eventAtUuid.set(v.uuid, lane.lastEventId);
  }

  /**
   * A sub-agent file that forks the session's conversation (the compaction agent's) opens with rows
   * of that conversation: meta rows (hook reminders) at their own, earlier times, whose parent is a
   * row of the session. They are the session's, carried into the fork, so they are read into the
   * lane of their parent's event, at their time (the compaction lane showed them twenty minutes
   * before it began). The lane's reading state is a copy: the parent's file is read already, and
   * its last event, inputs and stop stay as they were. Undefined for every other record.
   */
  forkedContextLane(f: SourceFile, v: Json, cursor: FileCursor): LaneState | undefined {
    if (f === this.main || cursor.lane.firstEventId !== undefined || v.type !== 'user' || v.isMeta !== true) return undefined;
    const parent = str(v.parentUuid);
    const at = parent ? this.eventAtUuid.get(parent) : undefined;
    const owner = at ? this.out.get(at)?.agent : undefined;
    if (owner === undefined || owner === cursor.lane.name || !this.lanes.has(owner)) return undefined;
    return { ...this.lanes.get(owner)!, inputs: [] };
  }

  /**
   * Claude Code 1.x wrote sub-agent messages into the session file itself, flagged `isSidechain`:
   * each chain of them (followed by `parentUuid` to its root) is a sub-agent lane, linked to the
   * Task call whose prompt its first prompt repeats.
   */
  sidechainLane(v: Json): LaneState {
    const uuid = str(v.uuid) ?? '';
    const parentUuid = str(v.parentUuid);
    const root = (parentUuid && this.sidechainRoot.get(parentUuid)) || uuid;
    if (uuid) this.sidechainRoot.set(uuid, root);
    const known = this.sidechainLanes.get(root);
    if (known) return known;
    const agentId = str(v.agentId) ?? `sidechain-${root.slice(0, 8)}`;
    let call: AgentCall | undefined;
    if (v.type === 'user' && isObject(v.message)) {
      const prompt = contentText(v.message.content);
      const taken = new Set([...this.sidechainLanes.values()].map((l) => l.call));
      call = [...this.calls.values()].find((c) => c.lane !== '' && !taken.has(c) && str(c.input.prompt) === prompt);
    }
    const lane = this.lane(call?.subLane ?? this.laneName(agentId, str(call?.input.subagent_type)));
    lane.agentId = agentId;
    if (call) {
      lane.call = call;
      call.agentId ??= agentId;
      call.subLane = lane.name;
      lane.subagentType = str(call.input.subagent_type);
    }
    this.sidechainLanes.set(root, lane);
    return lane;
  }

  noteMeta(v: Json): void {
    if (!this.meta.sessionId && typeof v.sessionId === 'string') this.meta.sessionId = v.sessionId;
    if (typeof v.version === 'string') this.meta.versions.add(v.version);
    if (!this.meta.cwd && typeof v.cwd === 'string') this.meta.cwd = v.cwd;
    if (!this.meta.gitBranch && typeof v.gitBranch === 'string') this.meta.gitBranch = v.gitBranch;
    if (!this.meta.slug && typeof v.slug === 'string') this.meta.slug = v.slug;
  }

  /** Counts a record (or part of one) that gives no event; `at` (the first one's place) positions the warning. */
  skip(kind: string, at?: Origin): void {
    this.skipped[kind] = (this.skipped[kind] ?? 0) + 1;
    if (at && !this.firstSkipped) this.firstSkipped = at;
  }

  /**
   * One info problem saying what was read as its own kind (so `otrace validate` says what it
   * noticed): API responses written as several records whose usage snapshots differ (the tokens are
   * the last snapshot's; one block per record with the same usage is the format's own layout, not
   * noted), compactions, local commands, meta rows, placeholders, API errors, interruptions, refused
   * calls, text with terminal escapes stripped, task notifications (a background call's outcome).
   * Positioned at the first such event.
   */
  noteKinds(): void {
    const counts = new Map<string, [number, string, string]>();
    let first: Origin | undefined;
    const note = (one: string, many: string, i: number) => {
      const c = counts.get(one) ?? [0, one, many];
      c[0]++;
      counts.set(one, c);
      const o = this.out.originOf(this.out.events[i].id);
      if (o && (!first || (o.file === undefined && (first.file !== undefined || o.range.start.line < first.range.start.line)))) first = o;
    };
    const snapshots = new Set<string>();
    for (const mu of this.messages.values()) if ((mu.records ?? 0) > 1 && mu.usageVaries && mu.firstEventId) snapshots.add(mu.firstEventId);
    this.out.events.forEach((e, i) => {
      const x = e as Json;
      if (snapshots.has(e.id)) note('API response written as several records (read as one model call)', 'API responses written as several records (each read as one model call)', i);
      if (typeof x.task_id === 'string' && x.from === 'harness') {
        if (e.type === 'tool_result') note("task notification (a background call's outcome, tied to its call)", "task notifications (background calls' outcomes, each tied to its call)", i);
        else note('task notification naming no call of this session (a harness row, not a prompt)', 'task notifications naming no call of this session (harness rows, not prompts)', i);
      }
      if (typeof x.task_id === 'string' && x.from === 'harness' && x.is_error === true) note('background call failed when its notification arrived', 'background calls failed when their notifications arrived', i);
      if (e.kind === 'compaction') {
        if (x.content_is_summary) note('compaction (its summary inside it)', 'compactions (their summaries inside them)', i);
        else note('compaction', 'compactions', i);
      } else if (e.kind === 'local_command') note('local command (not a prompt)', 'local commands (not prompts)', i);
      else if (e.kind === 'meta') note('meta row (injected by the harness)', 'meta rows (injected by the harness)', i);
      else if (e.kind === 'placeholder') note('synthetic placeholder row (not model output)', 'synthetic placeholder rows (not model output)', i);
      else if (e.kind === 'api_error') note('API error row', 'API error rows', i);
      else if (e.kind === 'interruption') note('user interruption', 'user interruptions', i);
      if (e.call_status === 'denied') note('call refused by the user', 'calls refused by the user', i);
      if (x.content_ansi === true) note('text with terminal escape sequences (stripped)', 'texts with terminal escape sequences (stripped)', i);
    });
    const message = ownKindsMessage([...counts.values()]);
    if (!message || !first) return;
    this.problems.push({ severity: 'info', message, range: first.range, ...(first.file ? { file: first.file } : {}) });
  }

  /**
   * After all records: marks tool calls that never got a result (`call_status` `no_result`, or
   * `in_progress` when their file ends in a cut-off line: it is still being written) with one
   * warning, and counts what was not shown in one warning.
   */
  accountFor(): void {
    const open: { id: string; tool: string; origin: Origin }[] = [];
    for (const [toolUseId, call] of this.callEvents) {
      if (this.answered.has(toolUseId)) continue;
      const e = this.out.get(call.id);
      const origin = this.out.originOf(call.id);
      if (!e || !origin) continue;
      const lane = this.lanes.get(call.lane);
      // A sub-agent that returned answered its call even when the result record is absent.
      if (e.type === 'delegate' && lane && [...this.lanes.values()].some((l) => l.call?.toolUseId === toolUseId && l.returnId)) continue;
      e.call_status = this.cutOff.has(origin.file ?? '') ? 'in_progress' : 'no_result';
      open.push({ id: call.id, tool: call.tool, origin });
    }
    if (open.length) {
      const live = open.every((c) => this.out.get(c.id)?.call_status === 'in_progress');
      const first = open[0].origin;
      const calls = `${open.length} tool call${open.length > 1 ? 's have' : ' has'}`;
      const list = open.map((c) => `${c.id} (${c.tool})`).join(', ');
      this.problems.push({
        severity: live ? 'info' : 'warning',
        message: live
          ? `the file ends in a cut-off line (still being written, or its writer stopped mid-record): ${calls} no result yet and may still be running: ${list}`
          : `${calls} no result in the file: ${list}`,
        range: first.range,
        ...(first.file ? { file: first.file } : {}),
        // a session being written has calls running: their results come later
        ...(live ? {} : { whileWritten: `${calls} no result yet (the session is being written; a result is read when it comes): ${list}` }),
      });
    }
    this.noteKinds();
    this.noteBackground();
    unlinkedRunsNote(this);
    const unknown = unknownTypesProblem(this.side);
    if (unknown) this.problems.push(unknown);
    const kinds = Object.entries(this.skipped);
    if (kinds.length) {
      const total = kinds.reduce((n, [, c]) => n + c, 0);
      const at = this.firstSkipped;
      this.problems.push({
        // the kinds Claude Code writes that carry no agent step (progress, file snapshots...) are expected in every session: an
        // info, not a warning on line 1 of every file; a kind of unknown type may hold content otrace cannot show: a warning
        severity: kinds.some(([k]) => k.startsWith('unknown/')) ? 'warning' : 'info',
        message: `${total} record${total > 1 ? 's' : ''} of ${kinds.length} kind${kinds.length > 1 ? 's' : ''} not shown: ${kinds.sort((a, b) => b[1] - a[1]).map(([k, c]) => `${k} ${c}`).join(', ')}`,
        range: at?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        ...(at?.file ? { file: at.file } : {}),
      });
    }
  }

  /**
   * One info naming the calls that went to the background and had not reported (no task-notification)
   * when the file ended: they may still run, or the session ended before they did. Positioned at the
   * first one's call.
   */
  noteBackground(): void {
    const open: { id: string; tool: string; origin: Origin }[] = [];
    const seen = new Set<string>();
    for (const toolUseId of [...this.background.values()].flat()) {
      if (seen.has(toolUseId) || this.notified.has(toolUseId) || this.ended.has(toolUseId)) continue;
      seen.add(toolUseId);
      const call = this.callEvents.get(toolUseId);
      const origin = call ? this.out.originOf(call.id) : undefined;
      if (call && origin && (this.out.get(call.id) as Json | undefined)?.background === true) open.push({ id: toolUseId, tool: call.tool, origin });
    }
    if (!open.length) return;
    open.sort((a, b) => (a.origin.file ?? '').localeCompare(b.origin.file ?? '') || a.origin.record - b.origin.record);
    const first = open[0].origin;
    this.problems.push({
      severity: 'info',
      message: `${open.length} call${open.length > 1 ? 's' : ''} running in the background had not reported when the file ended (no task-notification): ${open.map((c) => `${c.id} (${c.tool})`).join(', ')}`,
      range: first.range,
      ...(first.file ? { file: first.file } : {}),
    });
  }

  /** Adds an event to a lane; its `t` from the clock time `ms` (epoch ms), or as given when `ms` is undefined. */
  emit(lane: LaneState, event: TraceEvent, ms: number | undefined, origin: Origin): string {
    const e = event;
    if (ms !== undefined) e.t = secondsSince(this.base, ms);
    // The main agent's stops end a turn: it hands back to the user, who may go on (a sub-agent's last stop ends its lane's run).
    if (e.type === 'stop' && lane.name === MAIN_LANE) e.scope ??= 'turn';
    // Ending while calls run in the background is a designed hand-off: the harness reports back when they finish.
    if (e.type === 'stop' && e.kind !== 'interruption' && lane.background?.length) {
      (e as Json).background_running = lane.background.slice();
      const n = lane.background.length;
      e.detail = `${e.detail ? `${e.detail}; ` : ''}${n} call${n > 1 ? 's' : ''} still running in the background (${lane.background.join(', ')}): the harness reports back when ${n > 1 ? 'they finish' : 'it finishes'}`;
    }
    const id = this.out.add(e, origin);
    // A sub-agent's first event is the first one that is not an injected meta row (its prompt).
    if (e.kind !== 'meta') lane.firstEventId ??= id;
    lane.lastEventId = id;
    lane.lastEventT = e.t;
    if (e.type === 'stop') lane.lastStopId = id;
    lane.lastOrigin = origin;
    return id;
  }

  /**
   * The stop of a sub-agent that ended without one recorded: at its return, or at its last event
   * when the call that started it has a result. A sub-agent with neither was cut off: no stop.
   */
  stopSubLane(lane: LaneState): void {
    const call = lane.call;
    // a call that ran in the background is answered by its task-notification, not by its launch result
    const answered = call ? (call.async ? this.notified.has(call.toolUseId) : call.resultText !== undefined) : this.workflowDone(lane);
    if (lane.turnStopped || !lane.lastEventId || (!lane.returnId && !answered)) return;
    let reason: StopReason = 'task_complete';
    if (call?.resultError) reason = /interrupted by user/i.test(call.resultText ?? '') ? 'user_abort' : 'error';
    // a background agent's outcome is its last task-notification's: failed, or stopped
    const notice = call?.async ? this.out.get((this.notified.get(call.toolUseId) ?? []).slice(-1)[0] ?? '') : undefined;
    if (notice && (notice as Json).is_error === true) reason = 'error';
    else if (notice && (notice as Json).task_status === 'killed') reason = /\bby (?:the )?user\b/i.test(notice.content ?? '') ? 'user_abort' : 'unknown';
    const atId = lane.returnId ?? lane.lastEventId;
    const at = this.out.get(atId)!;
    const ev: TraceEvent = { id: `${lane.name}:stop`, t: at.t, type: 'stop', agent: lane.name, reason, decided_by: lane.name, detail: lane.returnId ? (lane.name.startsWith('compact:') ? 'the context compaction returned its summary' : 'sub-agent returned its final answer') : call?.resultError ? 'the call that started the sub-agent ended in an error' : 'sub-agent transcript ended' };
    this.emit(lane, ev, undefined, this.out.originOf(atId)!);
    lane.turnStopped = true;
  }

  /** Records the inferred stop of a turn that ended in text with no stop in the file. */
  closeTurn(lane: LaneState, why: string): void {
    if (!lane.turnHasOutput || lane.turnStopped || !lane.endsWithText || !lane.lastTextId || !lane.lastTextOrigin) return;
    const ev: TraceEvent = { id: `${lane.lastTextId}:stop`, t: lane.lastTextT ?? lane.lastEventT, type: 'stop', agent: lane.name, reason: 'task_complete', decided_by: lane.name, detail: `inferred: the turn ended in text and ${why}; no stop recorded` };
    this.emit(lane, ev, undefined, lane.lastTextOrigin);
    lane.turnStopped = true;
  }

  // ---- after all records -------------------------------------------------------------------

  /** Returns, sub-agent stops, and the spawn / message / return edges. */
  finishLanes(): void {
    for (const lane of this.lanes.values()) {
      if (lane.name === MAIN_LANE) continue;
      const call = lane.call;
      const caller = call ? undefined : workflowCaller(this, lane.workflowRun);
      const parent = call?.lane || caller?.lane || MAIN_LANE;
      lane.parent = parent;
      if (!lane.returnId && lane.lastTextId && lane.endsWithText) {
        const e = this.out.get(lane.lastTextId);
        if (e) {
          e.type = 'return';
          e.to = parent;
          lane.returnId = e.id;
          // The transcript's usage of a message is a snapshot taken while it streamed; the call's
          // result carries the final usage of the sub-agent's last message.
          const mu = lane.lastTextKey ? this.messages.get(lane.lastTextKey) : undefined;
          const final = call?.resultUsage;
          if (mu && final && (num(final.output_tokens) ?? 0) >= mu.output) {
            mu.usage = final;
            mu.output = num(final.output_tokens) ?? 0;
          }
        }
      }
      if (!lane.returnId && call?.resultRecord && call.resultText !== undefined && !call.async && !call.resultError && !lane.turnStopped) {
        // Its own transcript is cut off before the final answer: the call's result carries it.
        const ev: TraceEvent = { id: `${call.toolUseId}:return`, t: 0, type: 'return', agent: lane.name, from: lane.name, to: parent };
        setContent(ev, call.resultText);
        lane.returnId = this.emit(lane, ev, call.resultRecord.ms, recordOrigin(call.resultRecord.record, call.resultRecord.file));
      }
      this.journalResult(lane, parent);
      const returnId = lane.returnId;
      this.stopSubLane(lane);
      // Edges.
      if (call) {
        this.out.edge(call.spawnId, lane.firstEventId, 'spawn');
        this.out.edge(call.delegateId, lane.firstEventId, 'message');
        const resumedBy = this.resumes.filter((r) => r.lane === lane.name).map((r) => r.toolUseId);
        linkReturns(this, lane, [call.toolUseId, ...resumedBy], call.async ? undefined : call.resultId, false);
      } else if (caller) {
        this.out.edge(this.workflowSpawns.get(lane.name), lane.firstEventId, 'spawn');
        const run = this.callEvents.get(caller.call);
        const background = (run && (this.out.get(run.id) as Json | undefined)?.background === true) || this.notified.has(caller.call);
        linkReturns(this, lane, [caller.call], background ? undefined : this.out.get(`${caller.call}:result`)?.id, true);
      } else if (lane.agentId?.startsWith('acompact')) {
        this.linkCompaction(lane, returnId);
      } else if (lane.file && !lane.workflowRun) {
        const o = lane.lastOrigin;
        this.problems.push({ severity: 'info', message: `sub-agent "${lane.agentId}" is not linked to a Task/Agent call of this session`, range: o?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, file: lane.file });
      }
    }
  }

  /**
   * A Workflow agent's `result` in its run's journal: the value it handed back to the run's script
   * (`returned_value` on its return). An agent whose transcript ends with no final text (it answered
   * with a structured-output call) returns that value: a `return` to `parent` positioned on the journal record.
   */
  journalResult(lane: LaneState, parent: string): void {
    const run = lane.workflowRun ? this.workflowRuns.get(lane.workflowRun) : undefined;
    const record = lane.agentId ? run?.results.get(lane.agentId) : undefined;
    if (!run || !record) return;
    const value = record.value.result;
    const have = lane.returnId ? this.out.get(lane.returnId) : undefined;
    if (have) {
      (have as Json).returned_value = value;
      return;
    }
    const last = lane.lastEventId ? this.out.get(lane.lastEventId) : undefined;
    const ev: TraceEvent = { id: `${lane.name}:journal-result`, t: last?.t ?? 0, type: 'return', agent: lane.name, from: lane.name, to: parent, detail: "the agent's result in its Workflow run's journal" };
    (ev as Json).returned_value = value;
    setContent(ev, typeof value === 'string' ? value : JSON.stringify(value));
    lane.returnId = this.emit(lane, ev, undefined, recordOrigin(record, run.journal));
  }

  /** True for a Workflow agent whose run ended: its completion was notified, or the run file says it ended, or (a run in the foreground) its call has a result. */
  workflowDone(lane: LaneState): boolean {
    const run = lane.workflowRun ? this.workflowRuns.get(lane.workflowRun) : undefined;
    if (!run) return false;
    if (run.status && run.status !== 'running') return true;
    return !!run.call && (this.notified.has(run.call) || (this.answered.has(run.call) && (this.out.get(this.callEvents.get(run.call)?.id ?? '') as Json | undefined)?.background !== true));
  }

  /**
   * The compaction agent forks from the main conversation and returns the summary that continues it:
   * it is handed the conversation (a `message` edge from the main lane's event it forked at to its
   * task), not spawned by a call, so its lane is no sub-agent of main (no `spawn` edge).
   */
  linkCompaction(lane: LaneState, returnId: string | undefined): void {
    const f = this.subFiles.find((s) => s.path === lane.file);
    const first = lane.firstEventId ? this.out.get(lane.firstEventId) : undefined;
    if (f && first) {
      const origin = this.out.originOf(first.id);
      const rec = f.records.find((r) => r.line === origin?.record);
      const forkedFrom = str(rec?.value.parentUuid);
      const src = forkedFrom ? this.eventAtUuid.get(forkedFrom) : undefined;
      this.out.edge(src, first.id, 'message');
    }
    if (returnId) {
      const t = this.out.get(returnId)!.t;
      const summary = this.compactSummaries.find((s) => s.t >= t);
      if (summary) {
        this.out.edge(returnId, summary.id, 'return');
        const e = this.out.get(summary.id);
        if (e) e.causes = [...(e.causes ?? []), returnId];
      }
    }
  }

  /**
   * Puts each API message's usage on its model call (the response's first event): `usage` by kind,
   * and `tokens`, the event's own, its output; and sums the trace costs (each message once).
   */
  attributeTokens(): void {
    for (const mu of this.messages.values()) {
      const u = mu.usage;
      if (!u) continue;
      const tokens = usageTokens(u);
      this.costs.tokens += tokens;
      this.costs.input_tokens += num(u.input_tokens) ?? 0;
      this.costs.output_tokens += num(u.output_tokens) ?? 0;
      this.costs.cache_creation_input_tokens += num(u.cache_creation_input_tokens) ?? 0;
      this.costs.cache_read_input_tokens += num(u.cache_read_input_tokens) ?? 0;
      const e = mu.eventId ? this.out.get(mu.eventId) : undefined;
      if (!e || tokens <= 0) continue;
      const byKind = usageByKind(u);
      e.usage = e.usage ? addUsage(e.usage, byKind) : byKind;
      e.tokens = (e.tokens ?? 0) + (byKind.output ?? 0);
    }
  }

  header(): Omit<LoadedTrace['trace'], 'events' | 'edges'> {
    const agents: Record<string, Json> = {};
    for (const lane of this.lanes.values()) {
      if (lane.lastEventId === undefined) continue;
      const a: Json = {};
      if (lane.agentId) a.agent_id = lane.agentId;
      if (lane.subagentType) a.subagent_type = lane.subagentType;
      if (lane.parent) a.parent = lane.parent;
      if (lane.call) a.spawned_by = lane.call.toolUseId;
      if (lane.file) a.file = lane.file;
      if (lane.description) a.description = lane.description;
      if (lane.spawnDepth !== undefined) a.spawn_depth = lane.spawnDepth;
      const f = lane.workflowRun ? this.subFiles.find((x) => x.path === lane.file) : undefined;
      const workflow = f ? workflowHeader(this, f) : undefined;
      if (workflow) a.workflow = workflow;
      if (lane.reports?.length) a.reports = lane.reports.length + (lane.returnId && !lane.reports.includes(lane.returnId) ? 1 : 0);
      if (lane.mirrored) a.from_progress_records = true;
      if (lane.models.size) a.models = [...lane.models];
      agents[lane.name] = a;
    }
    let end = 0;
    for (const e of this.out.events) end = Math.max(end, e.t + (e.duration_s ?? 0));
    const metadata: Json = {
      source_format: 'claude-code',
      agents,
      subagent_files: this.subFiles.map((f) => f.path),
      compactions: this.compactions,
      thinking_blocks: this.thinking,
      skipped_records: this.skipped,
      time_base: new Date(this.base).toISOString(),
    };
    if (this.meta.sessionId) metadata.session_id = this.meta.sessionId;
    if (this.meta.versions.size) metadata.versions = [...this.meta.versions];
    if (this.meta.cwd) metadata.cwd = this.meta.cwd;
    if (this.meta.gitBranch) metadata.git_branch = this.meta.gitBranch;
    if (this.meta.slug) metadata.slug = this.meta.slug;
    if (Object.keys(this.side.state).length) metadata.session_state = { ...this.side.state };
    if (Object.keys(this.side.counts).length || Object.keys(this.side.unknown).length) metadata.side_records = { ...this.side.counts, ...this.side.unknown };
    if (this.workflowRuns.size) metadata.workflow_runs = [...this.workflowRuns.values()].map((r) => ({ run_id: r.runId, ...(r.name ? { name: r.name } : {}), ...(r.status ? { status: r.status } : {}), ...(r.call ? { launched_by: r.call } : {}) }));
    const header: Omit<LoadedTrace['trace'], 'events' | 'edges'> = {
      system: 'claude-code',
      costs: { ...this.costs, tool_calls: this.toolCalls, wall_clock_s: end },
      metadata,
    };
    if (this.meta.sessionId) header.trace_id = this.meta.sessionId;
    return header;
  }
}
