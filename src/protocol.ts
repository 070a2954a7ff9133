/**
 * Typed messages between the extension host and the graph webview, shared by both sides.
 * The webview sends `ready` once its script runs; the host answers with `trace`. Nothing here
 * imports `vscode`. All text fields are untrusted trace content: the webview shows them with
 * textContent only, never as HTML.
 */

/** One agent's horizontal lane. `y` in graph units (pixels at zoom 1). */
export interface GraphLane {
  name: string;
  y: number;
  /** Events in the lane. */
  count: number;
}

/** One event as a graph node, placed by the swimlane layout (x from time order, y from lane). */
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
  /** Seconds since the trace start. */
  t: number;
  x: number;
  y: number;
  /** Short label: type and target or tool. */
  label: string;
  /** Up to 2,000 characters of the event's content, for the details pane. */
  text?: string;
  /** Stop reason, reward value, tokens and other fields worth showing, as display strings. */
  fields: [string, string][];
  /** True when the event has a `source` prompt to jump to. */
  hasSource: boolean;
  /** Signed credit estimate (or the producer's value) of the event, when the analysis gave one. */
  credit?: number;
  /** Analysis marks: `loop` (member of a loop), `blame` (decisive error), `stop-problem`. */
  marks: string[];
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
  lanes: GraphLane[];
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Stop findings, loops and blame from the analysis, most severe first. */
  findings: GraphFinding[];
  /** Counts of problems found while reading, for the header. */
  problems: { errors: number; warnings: number };
}

/** Messages the host sends to the webview. */
export type HostMessage =
  | { type: 'trace'; graph: GraphModel }
  | { type: 'select'; index: number }
  /** Show a finding (index into `GraphModel.findings`): frame its events, its text in the details pane. */
  | { type: 'explain'; finding: number }
  /** Frame one agent's lane. */
  | { type: 'showLane'; agent: string };

/** Messages the webview sends to the host. */
export type WebviewMessage =
  | { type: 'ready' }
  /** Show the event's record in the trace file. */
  | { type: 'reveal'; index: number }
  /** Open the prompt file that produced the event. */
  | { type: 'openSource'; index: number }
  /** The user selected a node. */
  | { type: 'selected'; index: number }
  /** The graph of a 'trace' message is on screen (after its first frame). */
  | { type: 'painted'; events: number };
