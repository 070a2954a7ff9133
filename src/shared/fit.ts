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

/** Length of the axis in `mode`'s units: axis seconds (time), or event ranks (order: one per event). */
export function axisLengthOf(overview: Pick<GraphOverview, 'axis' | 'totalEvents'>, mode: WindowRequest['mode']): number {
  return mode === 'order' ? Math.max(1, overview.totalEvents - 1) : timeAxisLength(overview);
}

/**
 * The window request of a page's view held over a new snapshot of its trace: `view` (the page's
 * last request, made on the overview `before`) for the overview `now`. A view that reached the end
 * of the old axis reaches the new end too (it showed the newest events; a followed run shows the
 * appended ones next), so the window sent with the update covers what the page draws after it.
 * `before` undefined (not known): the view as it was.
 */
export function heldViewRequest(view: WindowRequest, before: Pick<GraphOverview, 'axis' | 'totalEvents'> | undefined, now: Pick<GraphOverview, 'axis' | 'totalEvents' | 'stamp'>): WindowRequest {
  const grown = before ? axisLengthOf(now, view.mode) - axisLengthOf(before, view.mode) : 0;
  const to = before && grown > 0 && view.to >= axisLengthOf(before, view.mode) ? view.to + grown : view.to;
  return { ...view, seq: 0, stamp: now.stamp, to };
}
