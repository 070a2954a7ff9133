/**
 * Everything the page holds about the trace it shows: one object per (trace URI, snapshot stamp).
 * A new trace, or a new snapshot of the same trace (a run still being written), gets a new one:
 * nothing of the one before is carried over except through the saved state (saved-state.ts).
 */
import type { GraphFinding, GraphNode, GraphOverview } from '../src/shared/protocol';
import type { TraceGraph, ViewState } from './graph';
import type { Timeline } from './timeline';
import type { WindowLoader } from './windows';

/** The filter's part of a trace's state (filter.ts). */
export interface FilterState {
  /** The filter text the host was asked about (its answer must match it); '' when none. */
  text: string;
  /** Events matching the filter text (undefined: no filter). */
  matches: Set<number> | undefined;
  /** The filter text `matches` answer: an older one while the host has not answered the newest. */
  answered: string;
  /** Set when Enter was pressed before the host's answer arrived: where to go once it does. */
  jumpWhenFound: 1 | -1 | undefined;
  /** True while elements may carry the filter's `dimmed` class. */
  shown: boolean;
}

/** The page's state of one snapshot of one trace. */
export interface TraceState {
  /** The trace's URI (the host's session key), as the host named it. */
  readonly uri: string | undefined;
  /** The snapshot's stamp (the overview's): every message naming an event carries it. */
  readonly stamp: number;
  readonly graph: GraphOverview;
  readonly view: TraceGraph;
  readonly timeline: Timeline;
  /** Asks the host for windows of the graph. */
  readonly loader: WindowLoader;
  /** Views to go back to with Esc (a finding framed, zoom to selection). */
  readonly history: ViewState[];
  /** Events framed by a finding (drawn on their own, class `framed`). */
  framed: number[];
  /** False after a click on the background: no focus ring, nothing dimmed (until the next selection). */
  highlight: boolean;
  /** The details pane's event (answer of an `event` request). */
  details: GraphNode | undefined;
  /** The finding whose text heads the details pane (until the selection moves on). */
  explained: GraphFinding | undefined;
  /** True until the first window is on screen. */
  firstWindow: boolean;
  /**
   * The view Fit made (the whole run), while the view has not moved from it ({@link atFit}): a grown
   * trace (a run being written) is then fitted again, so its new lanes and new time come into view
   * (they stayed out until Fit).
   */
  fitView: ViewState | undefined;
  readonly filter: FilterState;
}

/** A trace's state as it starts: nothing framed, selected, explained or filtered. */
export function newTraceState(parts: Pick<TraceState, 'uri' | 'graph' | 'view' | 'timeline' | 'loader'>): TraceState {
  return {
    ...parts,
    stamp: parts.graph.stamp,
    history: [],
    framed: [],
    highlight: false,
    details: undefined,
    explained: undefined,
    firstWindow: true,
    fitView: undefined,
    filter: { text: '', matches: undefined, answered: '', jumpWhenFound: undefined, shown: false },
  };
}

/** True while the view is the one Fit made ({@link TraceState.fitView}): not zoomed, panned or framed since. */
export function atFit(s: TraceState): boolean {
  const v = s.view.view();
  const f = s.fitView;
  return !!f && f.mode === v.mode && f.scale === v.scale && f.laneHeight === v.laneHeight && f.pan.x === v.pan.x && f.pan.y === v.pan.y;
}

/** Stops what a state runs (playing) and frees its graph. */
export function disposeTraceState(s: TraceState): void {
  s.timeline.dispose();
  s.view.destroy();
}
