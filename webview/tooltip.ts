/**
 * The graph's tooltip: what an event node or run bar is, on hover. Untrusted text: textContent
 * only, names with their control and bidi characters shown (plainLabel).
 */
import type { NodeSingular } from 'cytoscape';
import { EVENT_CUES } from '../src/shared/cues';
import { creditLabel, creditWorthShowing } from '../src/shared/credit-words';
import { plainLabel } from '../src/shared/untrusted-text';
import { formatLength } from './axis';
import { $ } from './dom';
import type { TraceState } from './trace-state';

/** Hides the tooltip: it describes the node under the pointer, so it goes when the view or the current event moves. */
export function hideTooltip(): void {
  $('tooltip').hidden = true;
}

/**
 * Shows the tooltip over the nodes of `s`'s graph. It never outlives what it describes: hidden for a
 * new trace or snapshot and when its node leaves the graph; the caller hides it on zoom, pan and steps.
 */
export function installTooltip(s: TraceState): void {
  const { view: g, graph, timeline } = s;
  const tip = $('tooltip');
  hideTooltip();
  g.cy.on('remove', 'node', hideTooltip);
  g.cy.on('mouseover', 'node', (e) => {
    const id = (e.target as NodeSingular).id();
    const run = g.run(id);
    const n = run ? undefined : g.node(id);
    if (run) tip.textContent = `${run.count.toLocaleString('en-US')} events, mostly ${run.kind.replace(/_/g, ' ')} · ${plainLabel(graph.lanes[run.lane]?.name ?? '')} · click to zoom in`;
    else if (n) {
      const credit = creditWorthShowing(n.credit) ? ` · ${creditLabel(n.credit, !graph.legend.influence)}` : ''; // none that prints as 0.00
      const end = n.endIndex === undefined ? '' : ` · ${formatLength(timeline.time(n.endIndex) - n.t, graph.timeUnit)}`; // steps when the trace has no clock
      const cues = n.cues?.length ? ` · ${n.cues.map((c) => EVENT_CUES[c]?.label ?? c).join(', ')}` : '';
      tip.textContent = `${plainLabel(n.label)}${cues} · ${plainLabel(n.agent)}${end}${credit}`; // untrusted text: textContent only, controls shown
    } else return;
    placeTip(tip, (e.target as NodeSingular).renderedPosition());
  });
  g.cy.on('mouseout', 'node', () => (tip.hidden = true));
}

/**
 * Places the tooltip beside a point of the graph, inside it: to the left of the point when there is
 * no room on its right, below it when there is none above (a label cut at the panel's edge said
 * `stop: task_comp`).
 */
function placeTip(tip: HTMLElement, p: { x: number; y: number }): void {
  tip.hidden = false;
  const box = tip.parentElement?.getBoundingClientRect();
  const width = tip.offsetWidth;
  const right = box ? box.width : Infinity;
  tip.style.left = `${Math.max(0, p.x + 10 + width > right ? p.x - 10 - width : p.x + 10)}px`;
  tip.style.top = `${p.y - 30 < 0 ? p.y + 14 : p.y - 30}px`;
}
