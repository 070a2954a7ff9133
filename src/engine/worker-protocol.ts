/**
 * The messages between the extension host and the engine's worker thread
 * (src/engine/worker-main.ts). Every call is `{ id, method, args }` and gets one
 * `{ id, result }` or `{ id, error, stack }`; a load may send `{ id, progress }` before its answer.
 * `cancel` and `release` are sent without an id and get no answer. Types only.
 */
import type { MarkOptions, FileMarks, RecordLabel } from './event-marks';
import type { GraphNode, GraphOverview, GraphWindow, WindowRequest } from '../shared/protocol';
import type { Position, Problem } from '../trace/model';
import type { EventInfo, EventPlace, LensItem, LineSpan, OutlineLane, PromptAt, PromptUser } from './query-types';
import type { SessionSummary } from './summary';
import type { EventString, StringPlace } from './long-strings';
import type { ChatToolAnswer, ToolView } from './chat-tool-names';
import type { LabelTarget, SessionLabels } from './human-labels';
import type { NewLabel } from '../shared/label-kinds';
import type { OverviewDelta } from '../shared/overview-delta';
import type { CompareModel } from '../shared/compare-protocol';

/** What to read: one version of a trace file. */
export interface LoadRequest {
  /** Session key (the file's URI as a string). */
  key: string;
  /** Document version (-1 when read from disk). */
  version: number;
  /** File system path (format detection by name, sub-agent files next to it, reading from disk). */
  path: string;
  /**
   * The text to read: an open document with edits not saved, or a file not on the local disk.
   * Undefined: the worker reads `path` from disk itself (and follows it as it grows).
   */
  text?: string;
  /** True when the file is on the local disk: sub-agent files next to it are read (and followed). */
  local?: boolean;
  /** Read again even when nothing on disk changed (the mapping files changed). */
  force?: boolean;
  /** Files the host saw change on disk since the last load (file watchers): only their appended bytes are read. */
  changed?: string[];
  /**
   * The run's outcome as the user states it (otrace: Set the Run's Outcome), for a trace that records
   * none (a benchmark log): the analysis blames and signs credit by it. Undefined: the trace's own signal.
   */
  outcome?: 'success' | 'failure';
  /**
   * Whether the trace's files are still being written (its end is then not judged: StopOptions.inProgress).
   * Undefined: the engine's own reading, true when this read found lines appended to a file read from disk.
   */
  inProgress?: boolean;
}

/** A phase of a load, reported while it runs (the host shows it after a second). */
export interface LoadProgress {
  phase: 'read' | 'analyze' | 'index';
  /** e.g. `reading 218 MB`, `analysing 1,000,003 events`. */
  message: string;
  /**
   * With the `analyze` phase of a large trace: the summary of the trace as read (`analysisPending`),
   * whose snapshot already answers the graph and the queries while the analysis runs; the load's
   * answer is the analysed summary (another stamp). Absent for a trace analysed within the read's turn.
   */
  read?: SessionSummary;
  /**
   * With the `read` phase of a large file read in parts, once its first part is shown: the bytes read
   * so far of the file's `of` bytes (the part shown stays the first one until the whole is read).
   */
  part?: { bytes: number; of: number };
}

/** A mapping file as the host found it: its text (or why it could not be read), and how it is named. */
export interface MappingInput {
  path: string;
  /** The file's text, or the message of the error reading it. */
  text: string | { error: string };
  origin: 'setting' | 'workspace';
  /** The setting's glob (setting origin only). */
  glob?: string;
  /**
   * Real paths of the folders whose trace files the mapping may read (a workspace's mapping file or
   * value of otrace.mappings: the workspace folders); undefined: any trace file (the user's setting).
   */
  within?: string[];
}

/** A mapping file as the worker read it: its problems (for the Problems panel) and the glob it applies by. */
export interface MappingReport {
  path: string;
  origin: 'setting' | 'workspace';
  /** The setting's glob, or the mapping's own `files.glob`. */
  glob?: string;
  /** False when errors make it unusable. */
  usable: boolean;
  problems: Problem[];
}

/**
 * The calls the worker answers, as plain functions. Queries name the snapshot by `stamp` (from the
 * session summary) and answer undefined when it is no longer the session's latest.
 */
export interface EngineCalls {
  /** Reads the mapping files (sent whole whenever they change); the worker keeps them for detection and loads. */
  configure(mappings: MappingInput[]): MappingReport[];
  /**
   * True when a document is a trace: a mapping applies to it, or (`byContent`) a built-in format
   * recognizes its start. @param head the document's first lines.
   */
  detect(head: string, fileName: string, byContent: boolean): boolean;
  /** The trace file a `vscode://otrace.otrace/open?path=…` request opens (src/engine/open-target.ts), or the message why not. */
  openRequest(uriPath: string, query: string): { trace: string } | { error: string };
  /** The event at a position of one of the session's files (`''`: the trace file); `keep` stays when its record holds the position. */
  eventAt(key: string, stamp: number, file: string, at: Position, keep?: number): number | undefined;
  eventPlace(key: string, stamp: number, index: number): EventPlace | undefined;
  eventInfo(key: string, stamp: number, index: number): EventInfo | undefined;
  eventContent(key: string, stamp: number, index: number): string | undefined;
  /** The decorations of one file of the session, as ranges (sorted by position). */
  fileMarks(key: string, stamp: number, file: string, options: MarkOptions): FileMarks | undefined;
  /**
   * The readable labels of the records of one file whose start line is in `lines` (0-based,
   * inclusive; the editor's visible lines), for the transcript formats whose lines are unreadable
   * (src/engine/record-labels.ts); empty for other formats; at most 2,000.
   */
  recordLabels(key: string, stamp: number, file: string, lines: { start: number; end: number }[]): RecordLabel[] | undefined;
  /**
   * When event `index` starts inside a long JSON string (a MAST log: the editor shows that line
   * collapsed), the string's decoded text and the event's place in it (0-based); when it starts
   * past the start of a long line outside a string (a span of a one-line OTLP export), the line's
   * JSON formatted (`view: 'json'`) and the event's record in it; else undefined (src/engine/long-strings.ts).
   */
  eventString(key: string, stamp: number, index: number): EventString | undefined;
  /** The long JSON string at a position of one of the session's files, or (`view: 'json'`) the line's JSON formatted from that position: the text of an `otrace-content:` string document. */
  longStringAt(key: string, stamp: number, file: string, at: Position, view?: 'json'): StringPlace | undefined;
  codeLenses(key: string, stamp: number, file: string, lines?: readonly LineSpan[]): LensItem[] | undefined;
  /**
   * The Outline of one file of the session (`''`: the trace file): its events by lane.
   * @param maxEvents most events listed (the first in file order), default all.
   */
  outline(key: string, stamp: number, file: string, maxEvents?: number): OutlineLane[] | undefined;
  sourcePrompt(key: string, stamp: number, index: number): PromptAt | undefined;
  promptUsers(key: string, stamp: number, absPath: string): PromptUser[] | undefined;
  /**
   * True when a file the session read changed on disk since its last load (a sub-agent transcript
   * grew, a folder it listed gained a file): a load would read something. A stat per file; the host
   * asks it of sessions shown, as its file watchers may never fire (src/host/disk-poll.ts).
   */
  filesChanged(key: string): boolean;
  /** The first `max` events and edges (tests, diagnostics). */
  inspect(key: string, stamp: number, max: number): { events: { id: string; type: string; agent: string; to?: string }[]; edges: { src: string; dst: string; type: string }[]; problems: string[] } | undefined;
  /** The graph overview of the session's latest snapshot; `title` is shown as is. */
  graphOverview(key: string, title: string): GraphOverview | undefined;
  /**
   * The same overview as bytes (transferred, never read on the host: the graph view passes them
   * on): `json` its JSON without the columns, `columns` the columns packed as binary
   * (src/shared/overview-columns.ts); with `first`, the window of the whole time axis at Fit for a graph
   * area `fitWidth` px wide (src/shared/fit.ts), when `fitWidth` is given.
   */
  graphOverviewBytes(key: string, title: string, fitWidth?: number): { json: Uint8Array; columns: Uint8Array; first?: GraphWindow } | undefined;
  /**
   * What the graph view posts to a webview holding the overview stamped `held` (undefined: none):
   * for a file seen growing whose layout was extended from that overview's, a `delta` against it
   * (src/shared/overview-delta.ts); else the whole overview as {@link graphOverviewBytes} gives it.
   * `stamp`: the answered overview's (what the webview holds next). `first`: the window of `view`
   * (the page's last window request, on the overview `held`; a view that reached the axis's end
   * reaches the new end: src/shared/fit.ts `heldViewRequest`), else of the whole axis at Fit.
   */
  graphOverviewUpdate(key: string, title: string, fitWidth: number | undefined, held: number | undefined, view?: WindowRequest): (({ json: Uint8Array; columns: Uint8Array } | { delta: OverviewDelta }) & { stamp: number; first?: GraphWindow }) | undefined;
  graphWindow(key: string, request: WindowRequest): GraphWindow | undefined;
  graphEvent(key: string, stamp: number, index: number): GraphNode | undefined;
  findEvents(key: string, stamp: number, query: string): number[] | undefined;
  /**
   * One call of a language model tool (src/engine/chat-tools.ts): `name` and the model's `input`;
   * `view` the trace in view, if any (a `file` in the input is an absolute path the host checked).
   */
  runTool(name: string, input: unknown, view?: ToolView): ChatToolAnswer;
  /** What a new label on event `index` records of it (id, place, fingerprint) and the findings on it (src/engine/human-labels.ts). */
  labelTarget(key: string, stamp: number, index: number): LabelTarget | undefined;
  /** The sidecar line (JSON) of a new label on event `index`, or undefined when it is no event or no valid label. */
  newLabelLine(key: string, stamp: number, index: number, label: NewLabel, who: { author: string; time: string }): string | undefined;
  /** The labels of a sidecar's text (the host reads `<trace>.labels.jsonl`) attached to the session's events, and the sidecar's problems. */
  sessionLabels(key: string, stamp: number, sidecarText: string): SessionLabels | undefined;
  /** Run A compared with run B (src/engine/compare-view.ts), each named by its session and stamp; `{ error }` when an analysis failed. */
  compareSessions(keyA: string, stampA: number, keyB: string, stampB: number): CompareModel | { error: string } | undefined;
}

/** A call from the host. */
export type CallMessage = { [M in keyof EngineCalls]: { kind: 'call'; id: number; method: M; args: Parameters<EngineCalls[M]> } }[keyof EngineCalls];

/** A load from the host (its answer: the summary, or undefined when a newer load or a cancel superseded it). */
export interface LoadMessage {
  kind: 'load';
  id: number;
  request: LoadRequest;
}

/** Stop a session's running load (at its next phase), or forget the session. */
export interface SessionMessage {
  kind: 'cancel' | 'release';
  key: string;
}

/** Everything the host sends. */
export type ToWorker = CallMessage | LoadMessage | SessionMessage;

/** Everything the worker sends; a failure carries the error's message and, when it had one, its stack in the worker. */
export type FromWorker = { id: number; result: unknown } | { id: number; error: string; stack?: string } | { id: number; progress: LoadProgress };

/** The answer of a load. */
export type LoadAnswer = SessionSummary | undefined;
