/**
 * Typed messages between the extension host and the graph webview, shared by both sides.
 * The webview sends `ready` once its script runs; the host answers with `trace`. Nothing here
 * imports `vscode`. All text fields are untrusted trace content: the webview shows them with
 * textContent only, never as HTML.
 */

/** One agent's horizontal lane, in spawn-tree order: sub-agents follow the agent that spawned them. */
export interface GraphLane {
  /** The agent's name; ` · <trace id, 8 characters>` added when the same agent is in several traces of the file (names are unique). */
  name: string;
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
  /** Short label: type and target or tool. */
  label: string;
  /** Subtype and state cues (src/panel/cues.ts: `denied`, `meta`, `open`, `clock_skew`, ...), each drawn as a glyph and named in the legend. */
  cues?: string[];
  /** Up to 2,000 characters of the event's content, for the details pane. */
  text?: string;
  /** Length of the whole content when `text` is a preview of it (characters); "Show Whole Content" shows all. */
  textLength?: number;
  /** Stop reason, reward value, tokens and other fields worth showing, as display strings. */
  fields: [string, string][];
  /** True when the event has a `source` prompt to jump to. */
  hasSource: boolean;
  /** Signed credit estimate (or the producer's value) of the event, when the analysis gave one. */
  credit?: number;
  /** Analysis marks: `loop` (member of a loop), `blame` (decisive error), `stop-problem`, `stop-ok` (a sound stop). */
  marks: string[];
}

/** A compressed idle gap of the time axis (see src/panel/layout.ts). */
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
  /** Stops: the failure mode, `ok` for a sound stop (shown on its node, not listed). */
  mode?: string;
  /** Tokens spent on the finding's events (its waste, for ordering). */
  tokens?: number;
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
  | 'exportSvg';

/** Messages the host sends to the webview. */
export type HostMessage =
  /** The trace to draw; `uri` is kept in the webview's state (to restore the panel after a reload); `locked` only for side panels. */
  | { type: 'trace'; graph: GraphModel; uri?: string; locked?: boolean }
  /** Another trace is being read (the panel follows the active trace): show the loading state. */
  | { type: 'loading'; title: string }
  /** The side panel was locked to its trace, or follows the active trace again. */
  | { type: 'locked'; locked: boolean }
  | { type: 'select'; index: number }
  /** Show a finding (index into `GraphModel.findings`): frame its events, its text in the details pane. */
  | { type: 'explain'; finding: number }
  /** Frame one agent's lane. */
  | { type: 'showLane'; agent: string }
  /** A palette command routed to the active graph. */
  | { type: 'command'; command: GraphCommand };

/** Messages the webview sends to the host. */
export type WebviewMessage =
  | { type: 'ready' }
  /** Show the event's record in the trace file. */
  | { type: 'reveal'; index: number }
  /** Save an export of the view: a PNG data URL or SVG text (the host asks where; never over a trace file). */
  | { type: 'export'; format: 'png' | 'svg'; data: string }
  /** Lock the side panel to its trace, or let it follow the active trace again. */
  | { type: 'toggleLock' }
  /** Open the prompt file that produced the event. */
  | { type: 'openSource'; index: number }
  /** Show the event's whole content (the details show a preview) in a read-only document, the graph keeping focus. */
  | { type: 'showContent'; index: number }
  /** The user selected a node or stepped to an event; `reveal`: show its line in a visible editor of the trace (never focusing it). */
  | { type: 'selected'; index: number; reveal?: boolean }
  /** The graph of a 'trace' message is on screen (after its first frame). */
  | { type: 'painted'; events: number };
