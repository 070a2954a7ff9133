/**
 * Fit: the graph's view of the whole trace, shared by the webview (the Fit command, the first view
 * of a trace) and the host (which answers the first view's window with the overview, so the first
 * paint needs no round trip). Pure: no `vscode`, no DOM.
 */
import type { GraphOverview, WindowRequest } from './protocol';

/** Room left of the axis's start, in px. */
export const PAD = 30;
/** Room right of the axis's end at Fit, for the last event's label (often the stop's), in px. */
export const PAD_RIGHT = 70;

/** Axis units of the time axis (at least a tiny positive length, so scales stay finite). */
export function timeAxisLength(overview: Pick<GraphOverview, 'axis'>): number {
  return Math.max(overview.axis.span, 1e-6);
}

/** Px per axis unit that fit `length` axis units into a graph area `width` px wide. */
export function fitScale(width: number, length: number): number {
  return Math.max(1e-9, (width - PAD - PAD_RIGHT) / length);
}

/**
 * The window request of the first view of a trace: the whole time axis at Fit in a graph area
 * `width` px wide (the webview's own Fit asks for nothing more when its width gives the same
 * bucket width; see `bucketWidth`).
 */
export function fitWindowRequest(overview: Pick<GraphOverview, 'axis' | 'stamp'>, width: number): WindowRequest {
  const length = timeAxisLength(overview);
  return { seq: 0, stamp: overview.stamp, mode: 'time', from: 0, to: length, scale: fitScale(width, length), keep: [] };
}
