/**
 * What the graph page saves across hiding the panel and reloading the window (VS Code's webview
 * state): the trace's URI, its view and selected event, and the panel's two follow switches. The
 * view and selection are the trace's: they are restored only for the trace with the same URI
 * (two traces with one file name in two folders are two traces). The panel that follows the active
 * editor shows one trace after another: the views of the last {@link EARLIER_KEPT} traces it showed
 * before are kept too, so switching back to a trace's tab finds its view and selection again.
 */
import type { ViewState } from './graph';

/** The saved state (vscode.setState). */
export interface SavedState {
  /** The trace's URI: the host restores the panel with it after a window reload. */
  uri?: string;
  /** The trace's view (scale, lane height, pan, axis mode). */
  view?: ViewState;
  /** The trace's selected event (index). */
  selected?: number;
  /** Follow in editor: a selected event's record is shown in the trace's editor. */
  follow: boolean;
  /** Keep the newest events in view while the run is still being written. */
  followRun?: boolean;
  /** The views and selections of traces shown before, by URI, oldest first. */
  earlier?: Record<string, TraceView>;
}

/** A trace's view and selected event. */
export interface TraceView {
  view?: ViewState;
  selected?: number;
}

/** How many traces shown before keep their view (a few hundred bytes each). */
export const EARLIER_KEPT = 16;

/**
 * The state to save for the trace at `uri` shown with `shown` and the panel's switches: the trace
 * shown before (another URI) moves to `earlier`, and the oldest there goes past {@link EARLIER_KEPT}.
 */
export function savedWith(before: SavedState | undefined, uri: string | undefined, shown: TraceView, switches: { follow: boolean; followRun?: boolean }): SavedState {
  const earlier: Record<string, TraceView> = { ...(before?.earlier ?? {}) };
  if (before?.uri !== undefined && before.uri !== uri) {
    delete earlier[before.uri];
    earlier[before.uri] = { view: before.view, selected: before.selected }; // now the newest
  }
  if (uri !== undefined) delete earlier[uri];
  const keys = Object.keys(earlier);
  for (const key of keys.slice(0, Math.max(0, keys.length - EARLIER_KEPT))) delete earlier[key];
  return { uri, ...shown, ...switches, ...(Object.keys(earlier).length ? { earlier } : {}) };
}

/** The saved state, when what was saved has its shape (else undefined: nothing to restore). */
export function readSaved(state: unknown): SavedState | undefined {
  return state && typeof state === 'object' ? (state as SavedState) : undefined;
}

/**
 * The view and selected event saved for the trace at `uri` (nothing for another trace, whatever
 * its file name). `mode`: the axis mode the graph opens in (a view saved in another is not restored);
 * `events`: the trace's event count (a selection beyond it is dropped).
 */
export function savedForTrace(saved: SavedState | undefined, uri: string | undefined, mode: ViewState['mode'], events: number): TraceView {
  if (!saved || uri === undefined) return {};
  const own = saved.uri === uri ? saved : saved.earlier && Object.prototype.hasOwnProperty.call(saved.earlier, uri) ? saved.earlier[uri] : undefined;
  if (!own) return {};
  return {
    ...(own.view && own.view.mode === mode ? { view: own.view } : {}),
    ...(typeof own.selected === 'number' && own.selected < events ? { selected: own.selected } : {}),
  };
}
