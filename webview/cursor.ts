/**
 * The current event's marks over the graph: the cursor line at its time, the focus ring around
 * where it is drawn (its node, or its place in a run bar) and the veil that dims everything later
 * (right of it). Page elements over the canvas: moving them costs no Cytoscape redraw.
 */
import { $ } from './dom';
import type { TraceState } from './trace-state';

/** Room between an event and its focus ring, in px. */
const FOCUS_PAD = 4;

/** Places the cursor line, focus ring and veil for the current event of `s` (all hidden without one). */
export function placeCursor(s: TraceState | undefined): void {
  const cursor = $('cursor');
  const focus = $('focus');
  const veil = $('later');
  const here = s?.timeline.current;
  if (!s || here === undefined) {
    cursor.hidden = focus.hidden = veil.hidden = true;
    return;
  }
  const view = s.view;
  const x = view.screenX(view.spanOf(here)[0]);
  cursor.style.left = `${x}px`;
  cursor.hidden = false;
  const box = s.highlight ? view.eventBox(here) : undefined;
  focus.hidden = !box;
  if (box) {
    focus.style.left = `${box.x1 - FOCUS_PAD}px`;
    focus.style.top = `${box.y1 - FOCUS_PAD}px`;
    focus.style.width = `${box.x2 - box.x1 + 2 * FOCUS_PAD}px`;
    focus.style.height = `${box.y2 - box.y1 + 2 * FOCUS_PAD}px`;
  }
  veil.hidden = !s.highlight;
  // From the right edge of the current event's point (a node is centred on its time).
  veil.style.left = `${Math.max(0, x + (box && box.x2 - box.x1 < 30 ? (box.x2 - box.x1) / 2 : 0) + 1)}px`;
}

/** The loaded elements (event nodes and run bars) that begin after the current event (under the veil): for tests. */
export function laterCount(s: TraceState): number {
  const here = s.timeline.current;
  if (here === undefined || !s.highlight) return 0;
  const rank = s.view.rank[here];
  let n = 0;
  for (const node of s.view.loadedNodes()) if (node.order > rank) n++;
  for (const run of s.view.loadedRuns()) if (run.order > rank) n++;
  return n;
}

/** The event index of the node the focus ring is on when the current event is drawn on its own (for tests), else null. */
export function selectedNode(s: TraceState): number | null {
  const here = s.timeline.current;
  if (here === undefined || !s.highlight) return null;
  const node = s.view.nodeOfIndex(here);
  return node ? (node.data('index') as number) : null;
}
