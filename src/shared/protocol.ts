/**
 * Typed messages between the extension host and the graph webview, shared by both sides.
 * The host sends `trace` (the {@link GraphOverview} of the whole trace, with the first window) as
 * soon as the trace is read, without waiting for the webview (VS Code holds messages until the
 * webview's page has loaded), and again after a `ready` that follows a reload of the page; the
 * webview then asks for the {@link GraphWindow} of the time range it shows (`window`) on every pan
 * or zoom that leaves the loaded range or changes the level of detail, and draws only that window. Nothing here
 * imports `vscode`. All text fields are untrusted trace content: the webview shows them with
 * textContent only, never as HTML.
 */
import type { OverviewDelta } from './overview-delta';
import type { Unended } from './stop-words';

/** One agent's horizontal lane, in spawn-tree order: sub-agents follow the agent that spawned them. */
export interface GraphLane {
  /** The agent's name; ` · <trace id, 8 characters>` added when the same agent is in several traces of the file (names are unique). */
  name: string;
  /**
   * What the lane is shown as when not its name (plain text, controls shown): a sub-agent by what it
   * was asked (`Explore: find the config loader` for `Explore:a93ccab`), a compaction as
   * `context compaction` (src/engine/lane-labels.ts).
   */
  label?: string;
  /** The lane's tooltip (plain text, controls shown): its name, event count, who spawned it or whose context it compacts, what it was asked. */
  tip?: string;
  /** The trace whose lane group this lane is in, when the file holds several. */
  trace?: string;
  /** The agent, when `name` is not just the agent's name (the same agent in several traces). */
  agent?: string;
  /** The agent that spawned this one, when it has a lane. */
  parent?: string;
  /** 0 for a root agent, 1 for its sub-agents, ... */
  depth: number;
  /** Events in the lane. */
  count: number;
  /**
   * Rows inside the lane, 1 to 4 (src/engine/lane-rows.ts): turns (prompts and stops), then what
   * the agent says and decides, then its tool calls, then deeper nesting. The lane is this many
   * rows high; each node and run bar names its `row`.
   */
  rows: number;
  /**
   * A group lane: agents folded into one lane because the trace has more agents than the graph
   * shows as lanes (src/engine/lane-folds.ts), how many and how they were grouped (`parent`: by the
   * agent that spawned them; `prefix`: by name prefix; `other`: the rest).
   */
  folded?: { agents: number; by: 'parent' | 'prefix' | 'other' };
}

/**
 * One event. The webview places it: x from `tx` (time, idle gaps compressed) or `order` (event
 * order), y from `lane`. A tool call paired with its result is one bar from `tx` to `txEnd`; the
 * result keeps its own entry with `bar` naming the call's node, and draws no node of its own.
 */
export interface GraphNode {
  /** Node key: `n<index>` (event ids can repeat, indices cannot). */
  id: string;
  /** Index of the event in the trace's event list (file order): the key every message uses. */
  index: number;
  /** The event's own id, as written in the trace. */
  eventId: string;
  /** Event type as written (e.g. `communicate`). */
  type: string;
  /** Canonical type (e.g. `message`), which decides the node's style. */
  kind: string;
  agent: string;
  /** The trace the event belongs to, when the file holds several (`GraphModel.traces`). */
  trace?: string;
  /** Index into `GraphModel.lanes`. */
  lane: number;
  /** Row inside the lane (0 = its top row, below `GraphLane.rows`); a result drawn in its call's bar has the call's. */
  row: number;
  /** Seconds since the trace start. */
  t: number;
  /** Position on the time axis (axis units: seconds with idle gaps compressed). */
  tx: number;
  /** Position in time order (0 .. events - 1), for the event-order view. */
  order: number;
  /** A tool call drawn as a bar: where its result is, on both axes, and the result's index. */
  txEnd?: number;
  orderEnd?: number;
  endIndex?: number;
  /** A tool result drawn inside its call's bar: the bar's node key. */
  bar?: string;
  /** Label with content, one line (plain text, controls shown): `Bash: npm test`, `user: Work on…`, `spawn Explore: …`, `stop: task_complete` (src/engine/event-labels.ts). */
  label: string;
  /** The shorter label shown where the full one collides with another (`Bash`, `user`); absent when the label has none. */
  short?: string;
  /** Subtype and state cues (src/shared/cues.ts: `denied`, `meta`, `open`, `clock_skew`, ...), each drawn as a glyph and named in the legend. */
  cues?: string[];
  /** Up to 2,000 characters of the event's content, for the details pane (only in an `event` answer). */
  text?: string;
  /** Length of the whole content when `text` is a preview of it (characters); "Show Whole Content" shows all. */
  textLength?: number;
  /** Stop reason, reward value, tokens and other fields worth showing, as display strings (empty in windows). */
  fields: [string, string][];
  /** True when the event has a `source` prompt to jump to. */
  hasSource: boolean;
  /** Signed credit estimate (or the producer's value) of the event, when the analysis gave one. */
  credit?: number;
  /**
   * Analysis marks: `loop` (member of a loop), `blame` (decisive error), `stop-problem`, `stop-ok`
   * (a sound stop: a recorded success), `turn-end`, `phase-end`, `last-stop` (a turn or phase end
   * that is its lane's last stop: drawn as a stop, the turn ends before it as small marks).
   */
  marks: string[];
}

/** A compressed idle gap of the time axis (see src/engine/lanes.ts). */
export interface GraphGap {
  t0: number;
  t1: number;
  x: number;
  width: number;
}

/** An analysis finding to list and highlight: the events it concerns (first = main) and one line of text. */
export interface GraphFinding {
  kind: string;
  severity: 'error' | 'warning' | 'info';
  /** Event indices (file order); the first is the main event. */
  events: number[];
  /** Short inline text (e.g. `loop ×3`). */
  inline: string;
  message: string;
  /** Stops: the failure mode, `ok` when none was found (not listed: a sound stop's ✓ or a turn/phase end is shown on its node). */
  mode?: string;
  /** Tokens the finding says were wasted, as its message states them (the group head sums them; groups are ordered by them). */
  tokens?: number;
  /** True when its events overlap those of a finding with more waste: its tokens are not added again in the group head. */
  overlaps?: boolean;
}

/** An edge between two event nodes. `derived` edges were inferred (spawn/message/return links), not written in the trace. */
export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  type: string;
  derived: boolean;
}

/** Everything the webview draws. */
export interface GraphModel {
  title: string;
  format: string;
  /** Events in the trace; more than `nodes.length` when the graph was cut at the `otrace.graph.maxEvents` setting. */
  totalEvents: number;
  /** Files holding several traces only: each trace (a lane group), in lane order, with its event and lane counts. */
  traces?: { id: string; events: number; lanes: number }[];
  lanes: GraphLane[];
  nodes: GraphNode[];
  /** The time axis: `[tx, t]` breakpoints, compressed idle gaps, and its length in axis units. */
  axis: { points: [number, number][]; gaps: GraphGap[]; span: number };
  edges: GraphEdge[];
  /** Stop findings, loops and blame from the analysis, most severe first. */
  findings: GraphFinding[];
  /** Counts of problems found while reading, for the header. */
  problems: { errors: number; warnings: number };
}

/**
 * The whole trace in compact columns (one entry per event index, file order), sent once per trace
 * version: enough to step through every event, place the cursor, draw the minimap and know which
 * window holds an event, without the events' nodes (those come in windows).
 */
export interface GraphColumns {
  /** Event indices in time order (ties in file order). */
  byTime: Int32Array;
  /** Position on the time axis (axis units: seconds with idle gaps compressed). */
  tx: Float64Array;
  /** Index into `lanes` (read back from bytes: in 1 or 2 bytes each when the lanes fit, see src/shared/overview-columns.ts). */
  lane: Int32Array | Uint16Array | Uint8Array;
  /** Index into `GraphOverview.kinds` (canonical type). */
  kind: Uint8Array;
  /** For a tool call drawn as a bar: the index of its result; else -1. */
  end: Int32Array;
  /** Row inside its lane (see `GraphNode.row`). */
  row: Uint8Array;
}

/** What the webview needs of the whole trace: lanes, axis, findings, the event columns and the legend. */
export interface GraphOverview {
  title: string;
  format: string;
  /** Identifies this version of the trace: windows asked for with another stamp are dropped. */
  stamp: number;
  totalEvents: number;
  lanes: GraphLane[];
  /**
   * Set when the trace has more agents than the graph shows as lanes: what was folded into group
   * lanes (counts, ways of grouping, and one line saying so for the header).
   */
  folded?: { agents: number; folded: number; groups: number; by: ('parent' | 'prefix' | 'other')[]; text: string };
  axis: { points: [number, number][]; gaps: GraphGap[]; span: number };
  columns: GraphColumns;
  /** Canonical types, indexed by `columns.kind`. */
  kinds: string[];
  findings: GraphFinding[];
  problems: { errors: number; warnings: number };
  /**
   * What the legend lists, only what the graph shows: `edgeTypes`, the types of the edges drawn (those
   * that join two lanes: an edge within a lane is drawn as no line), in the order first met; tool bars
   * present; credit that tints some node; `influence`: the credit is an unsigned influence share, the
   * trace recording no outcome (named so, never 'credit'); the cues present; `marks`: the analysis
   * marks some node carries (`loop`, `blame`, `stop-ok`, `stop-problem`).
   */
  legend: { edgeTypes: string[]; bars: boolean; credit: boolean; influence?: boolean; cues: string[]; marks: string[] };
  /** Files holding several traces only: each trace (a lane group), in lane order, with its event and lane counts. */
  traces?: { id: string; events: number; lanes: number }[];
  /** `steps`: the trace records no clock, its `t` counts steps (a benchmark log); the graph opens in event order and says `step`, not seconds. */
  timeUnit?: 'steps';
  /** The run at a glance; absent while the analysis runs or when it failed. */
  run?: GraphRunBrief;
  /** True while the trace's analysis runs (a large trace drawn as read): findings, marks and the run summary come with the next overview. */
  analysing?: true;
  /**
   * While the analysis of lines appended to the trace runs (`analysing`): `findings` and `run` are
   * the last analysis's, of the first `analysedEvents` events (and so are the nodes' marks).
   */
  analysedEvents?: number;
  /**
   * Set while a large file is read in parts: the graph shows the trace of its first `bytes` bytes of
   * `of` (the rest follows, then the analysis); `read`: the bytes read so far, as the read's progress
   * says (a `readProgress` message); `stopped`: the read was cancelled or failed before its end (the
   * part stays shown, unanalysed).
   */
  reading?: { bytes: number; of: number; stopped?: true; read?: number };
  /** Why the trace was not analysed (its analysis failed or was cancelled): the graph shows it without findings, and says so rather than look clean. Untrusted text (an error message may hold a file name). */
  notAnalysed?: string;
}

/**
 * The run at a glance, shown at the top of the graph (src/analysis/run-summary.ts, issue 26): what
 * was asked, how it ended, what it spent, who did what and what went wrong. Strings are raw trace
 * content (one line, clipped): the webview sets them with textContent only.
 */
export interface GraphRunBrief {
  /** The recorded task or the first user prompt; `''` when none is found. */
  task: string;
  /** The user's prompts after the first, when there are any: how many, and the last one's words (src/analysis/run-summary.ts `later_prompts`). */
  laterPrompts?: { count: number; last: string };
  /** The run's last stop: its event index, what it ends (`turn`: a hand-back to the user), its reason, the first words of the final answer, and whether a stop event records it (false: the file ends with no stop and `index` is its last event). */
  ended: { index: number; scope: 'run' | 'turn' | 'phase'; reason: string; text: string; recorded: boolean; unended?: Unended; speaker?: string; duringCall?: boolean } | null;
  /** The outcome the trace records, never a guess. */
  outcome: { status: 'success' | 'failure' | 'partial'; source: string } | null;
  /** The file is one sub-agent's own record opened alone: who spawned it (`thread 019f…`); its turns hand back to that agent. */
  spawnedBy?: string;
  /** First start to last end: seconds, or steps for a trace without a clock. */
  duration: { value: number; unit: 'seconds' | 'steps'; from: number };
  /** Tokens by kind over all model calls; null for a kind no call recorded. */
  tokens: Record<'input' | 'output' | 'cache_read' | 'cache_write' | 'reasoning', number | null>;
  /** The sum of the events' own token counts (no kind recorded); null when no event records one. */
  eventTokens: number | null;
  /** Agents in order of first event: lane name, what kind of agent it was asked to be, what it was asked, its events. */
  agents: { name: string; label: string | null; task: string | null; events: number }[];
  /** How many agents the run has, when more than `agents` lists (those are the busiest, at most 50). */
  agentCount?: number;
  /** The analysis' problems, most severe first (at most 5); empty: no problems found. */
  findings: { kind: string; severity: 'error' | 'warning' | 'info'; message: string }[];
  /** How many problems in all (`findings` lists at most 5); absent: as many as `findings`. */
  findingCount?: number;
  /** Tool calls whose result records a failure (a fact, no verdict): how many, and the first (its result's event index, tool, error text: untrusted). */
  failedCalls?: { count: number; index: number; tool: string; error: string };
  /** The labels the file records (a benchmark's ground truth), in words, each beside otrace's verdict (src/analysis/labels/recorded.ts); absent when it records none. */
  labelled?: string[];
}

/**
 * The webview asks for the graph of an axis range at a level of detail. The host answers with a
 * {@link GraphWindow} covering at least `[from, to]`.
 */
export interface WindowRequest {
  /** Increases with every request; the answer carries it (older answers are dropped). */
  seq: number;
  /** The overview's stamp. */
  stamp: number;
  mode: 'time' | 'order';
  /** Axis range, in axis units of the mode (time: axis seconds; order: event rank). */
  from: number;
  to: number;
  /** Pixels per axis unit on screen: decides the bucket width (see `bucketWidth` in src/engine/lanes.ts). */
  scale: number;
  /** Events drawn on their own whatever the level of detail (the current event, a framed finding's events). */
  keep?: number[];
}

/**
 * Level of detail: where a lane has four or more events in one time bucket, its plain events (no
 * arrow to another lane, no stop, spawn, delegation, return or problem mark) are one run bar.
 * Runs form per lane row. The key `r<mode>:<level>:<lane>:<row>:<bucket>` stays the same while the bucket width does.
 */
export interface GraphRun {
  id: string;
  lane: number;
  /** Row inside the lane: a run bar is made of the events of one row. */
  row: number;
  /** Axis range covered by the run's events (start of the first, end of the last). */
  u0: number;
  u1: number;
  /** Events in the run. */
  count: number;
  /** The kind most of its events have (its colour). */
  kind: string;
  /** True when one of its events is in a loop. */
  loop: boolean;
  /** Smallest time-order rank of its events (for dimming later events). */
  order: number;
  /** The credit of its most credited event (largest magnitude), when one has any: the bar shows it as the event would. */
  credit?: number;
}

/** The graph of one axis range at one level of detail. */
export interface GraphWindow {
  seq: number;
  stamp: number;
  mode: 'time' | 'order';
  /** Range covered: whole buckets around the range asked for. */
  from: number;
  to: number;
  /** Bucket width in axis units (a power of two). */
  bucket: number;
  /** Events drawn on their own (results drawn in bars are not listed: their call's node is). */
  nodes: GraphNode[];
  runs: GraphRun[];
  /** Edges between drawn nodes and runs of the window (lane-crossing ones, for runs). */
  edges: GraphEdge[];
}

/** What the graph can be told to do (palette commands and keys): step targets and view actions. */
export type GraphCommand =
  | 'next'
  | 'previous'
  | 'first'
  | 'last'
  | 'nextOfAgent'
  | 'previousOfAgent'
  | 'nextStop'
  | 'previousStop'
  | 'nextFinding'
  | 'previousFinding'
  | 'playPause'
  | 'fit'
  | 'zoomToSelection'
  | 'toggleAxis'
  | 'back'
  | 'exportPng'
  | 'exportSvg'
  /** Label the current event (otrace: Label Event…, the pick opened by the host). */
  | 'label';

/**
 * Messages the host sends to the webview. Those that name an event or a finding carry the `stamp`
 * of the snapshot they name it in; the page drops one for another snapshot than it shows.
 */
export type HostMessage =
  /**
   * The trace to draw; `uri` is kept in the webview's state (to restore the panel after a reload);
   * `locked` only for side panels; `first`: the window of the whole time axis at Fit for the graph
   * area's last known width (see `fitWindowRequest`), drawn at once, so the first paint waits for
   * no `window` round trip. `growing`: the trace's files are still being written (a run in
   * progress): the graph offers to follow its newest events.
   */
  | { type: 'trace'; graph: GraphOverview; uri?: string; locked?: boolean; first?: GraphWindow; growing?: boolean }
  /**
   * The same, with the overview as bytes: `json` the UTF-8 JSON of the overview without its
   * `columns`, `columns` the columns packed as binary (src/shared/overview-columns.ts). The host passes the
   * engine's bytes on without reading them (VS Code transfers bytes to the webview as they are; an
   * object of a million-event trace would be serialized on the extension host thread for seconds),
   * and the webview reads the columns as typed arrays over the bytes (no parse of a number per event).
   */
  | { type: 'traceJson'; json: Uint8Array; columns: Uint8Array; uri?: string; locked?: boolean; first?: GraphWindow; growing?: boolean }
  /**
   * The same trace grown by an append (a running agent's log, issue #30): what changed against the
   * overview the webview holds (`delta.base`, src/shared/overview-delta.ts), not the whole one. A
   * webview that holds another overview answers `wholeTrace`.
   */
  | { type: 'traceDelta'; delta: OverviewDelta; uri?: string; locked?: boolean; first?: GraphWindow; growing?: boolean }
  /** The trace shown stopped growing (its files were not written for the live window): no longer in progress. */
  | { type: 'notGrowing' }
  /** The trace file is gone from disk (deleted, moved or renamed) and the graph shows what was read; or it is back (`gone` false). */
  | { type: 'fileGone'; gone: boolean }
  /** The answer to a `window` request (undefined `window` when the trace changed meanwhile). */
  | { type: 'window'; window: GraphWindow }
  /** One event with its text and fields (the details pane), answering `event`. */
  | { type: 'event'; stamp: number; node: GraphNode }
  /** Events matching a filter text, answering `find`. */
  | { type: 'found'; stamp: number; query: string; indices: number[] }
  /** Another trace is being read (the panel follows the active trace): show the loading state. */
  | { type: 'loading'; title: string }
  /** How far the read of a large file shown in part has got: `bytes` read of the file's `of` (the header and the findings' note say it). */
  | { type: 'readProgress'; bytes: number; of: number }
  /** The side panel was locked to its trace, or follows the active trace again. */
  | { type: 'locked'; locked: boolean }
  /** Select an event of the snapshot `stamp` names (dropped by a page that shows another). */
  | { type: 'select'; stamp: number; index: number }
  /** Show a finding (index into the findings of the snapshot `stamp` names): frame its events, its text in the details pane. */
  | { type: 'explain'; stamp: number; finding: number }
  /** Frame one agent's lane; when the graph folds it into a group lane, its `events` (indices of the snapshot `stamp`), if given. */
  | { type: 'showLane'; agent: string; stamp?: number; events?: number[] }
  /** A palette command routed to the active graph. */
  | { type: 'command'; command: GraphCommand }
  /** The labels people gave events of the snapshot (the sidecar next to the trace): one mark per event, its words plain text. */
  | { type: 'humanLabels'; stamp: number; labels: { index: number; text: string }[] };

/**
 * Messages the webview sends to the host. Every message that names an event carries the `stamp`
 * of the snapshot (the overview's) it names it in: the host drops one whose stamp is not the
 * snapshot its page shows now (a click still on its way when the panel moved to another trace).
 */
export type WebviewMessage =
  /** The webview's page has loaded and its script runs (a page loaded again gets its trace again). */
  | { type: 'ready' }
  /** A `traceDelta` came for an overview the page does not hold: the whole overview is wanted. */
  | { type: 'wholeTrace' }
  /** The graph of an axis range (the view moved out of the loaded window or changed its level of detail). */
  | { type: 'window'; request: WindowRequest }
  /** One event's node with its text and fields, for the details pane. */
  | { type: 'event'; stamp: number; index: number }
  /** The events whose id, label, agent or text contains `query` (case-insensitive). */
  | { type: 'find'; stamp: number; query: string }
  /** Show the event's record in the trace file. */
  | { type: 'reveal'; stamp: number; index: number }
  /** Save an export of the view: a PNG data URL or SVG text (the host asks where; never over a trace file). */
  | { type: 'export'; format: 'png' | 'svg'; data: string }
  /** Lock the side panel to its trace, or let it follow the active trace again. */
  | { type: 'toggleLock' }
  /** Open the prompt file that produced the event. */
  | { type: 'openSource'; stamp: number; index: number }
  /** Show the event's whole content (the details show a preview) in a read-only document, the graph keeping focus. */
  | { type: 'showContent'; stamp: number; index: number }
  /** Label the event (otrace: Label Event…: the host's pick; the label goes to the sidecar next to the trace). */
  | { type: 'label'; stamp: number; index: number }
  /** The user selected a node or stepped to an event; `reveal`: show its line in a visible editor of the trace (never focusing it). */
  | { type: 'selected'; stamp: number; index: number; reveal?: boolean }
  /**
   * The graph of a 'trace' message is on screen (after its first frame). `moments`: when the
   * webview's page, script and first graph steps happened (ms since the epoch), for npm start's
   * report; `size`: the graph area in px (kept for the first window of the next graph).
   */
  | { type: 'painted'; events: number; moments?: Record<string, number>; size?: { width: number; height: number } };
