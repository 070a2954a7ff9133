/**
 * What the graph page saves across hiding the panel and reloading the window (VS Code's webview
 * state): the trace's URI, its view and selected event, and the panel's two follow switches. The
 * view and selection are the trace's: they are restored only for the trace with the same URI
 * (two traces with one file name in two folders are two traces).
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
export function savedForTrace(saved: SavedState | undefined, uri: string | undefined, mode: ViewState['mode'], events: number): { view?: ViewState; selected?: number } {
  if (!saved || uri === undefined || saved.uri !== uri) return {};
  return {
    ...(saved.view && saved.view.mode === mode ? { view: saved.view } : {}),
    ...(saved.selected !== undefined && saved.selected < events ? { selected: saved.selected } : {}),
  };
}
