/**
 * The Cytoscape elements of the graph's window: an event node (classes for its kind, cues, credit
 * and marks) and a run bar; the label of a node and the rank of its label when labels collide.
 * Labels are untrusted trace text, shown with their control and bidi characters as `⟨U+…⟩`.
 */
import type { ElementDefinition } from 'cytoscape';
import type { GraphNode, GraphRun } from '../src/shared/protocol';
import { plainLabel } from '../src/shared/untrusted-text';
import { CREDIT_TINT_FROM } from '../src/shared/credit-words';

/** Node size in px; the stop is larger. */
export const NODE = 14;
export const STOP = 22;

/** A node's label (controls and bidi shown), a stop's with its verdict: ✓ sound, ⚠ a stop problem (too early, too late, unfinished). */
export function stopLabel(n: GraphNode): string {
  const label = plainLabel(n.label); // the host's labels are shown already: kept as they are
  return n.marks.includes('stop-ok') ? `${label} ✓` : n.marks.includes('stop-problem') ? `${label} ⚠` : label;
}

/**
 * Which labels win when they collide: stops with a problem, then the other stops (the later first:
 * how the run ended matters more than a turn's end; ties otherwise go to the earlier event), then
 * marked events, then the orchestration events.
 */
export function priority(n: GraphNode): number {
  if (n.kind === 'stop') return n.marks.includes('stop-problem') ? 0 : STOP_RANK;
  if (n.marks.some((m) => m !== 'stop-ok')) return 1;
  if (n.kind === 'spawn' || n.kind === 'delegate' || n.kind === 'return') return 2;
  if (n.kind === 'message' || n.kind === 'orchestrator_decision' || n.kind === 'reward') return 3;
  return 4;
}

/**
 * True for a turn or phase end drawn as a small mark: one before its lane's last stop, with no
 * problem or blame (a rollout of many turns piled their octagons up in one row). The run's and each
 * lane's last stop and stops with a problem keep the large octagon.
 */
export function isTurnMark(n: Pick<GraphNode, 'kind' | 'marks'>): boolean {
  if (n.kind !== 'stop' || !(n.marks.includes('turn-end') || n.marks.includes('phase-end'))) return false;
  return !n.marks.some((m) => m === 'last-stop' || m === 'stop-problem' || m === 'blame');
}

/** The label rank of a stop without a problem (see {@link priority}). */
export const STOP_RANK = 0.5;

/** The label rank of a run bar: after the orchestration events, before the rest (see {@link priority}). */
export const RUN_RANK = 3.5;

/** The Cytoscape element of an event node (placed and sized by `layout`). */
export function nodeElement(n: GraphNode): ElementDefinition {
  return {
    group: 'nodes',
    data: {
      id: n.id,
      index: n.index,
      eventId: n.eventId,
      w: NODE,
      h: NODE,
      label: stopLabel(n),
      ...(n.short ? { full: stopLabel(n) } : {}),
      kind: n.kind,
      agent: n.agent,
      lane: n.lane,
      t: n.t,
      ...(n.credit !== undefined ? { credit: n.credit, tint: Math.min(0.55, Math.abs(n.credit)) } : {}),
    },
    position: { x: 0, y: 0 },
    classes: ['event', 'nolabel', n.kind, ...(n.cues ?? []).map((c) => `cue-${c}`), n.txEnd !== undefined ? 'bar' : '', creditClass(n.credit).trim(), ...n.marks].filter(Boolean).join(' '),
  };
}

/** The Cytoscape element of a run bar: grey-bordered, in its main kind's colour, labelled with its count. */
export function runElement(r: GraphRun, colors: Record<string, string>): ElementDefinition {
  return {
    group: 'nodes',
    data: { id: r.id, label: `${r.count} events`, w: 8, h: 8, members: r.count, lane: r.lane, color: colors[r.kind] ?? '#9d9d9d', ...(r.credit !== undefined ? { credit: r.credit, tint: Math.min(0.55, Math.abs(r.credit)) } : {}) },
    position: { x: 0, y: 0 },
    classes: `run nolabel${r.loop ? ' loop' : ''}${creditClass(r.credit)}`,
  };
}

/** The credit tint's class of a node or run bar: none below CREDIT_TINT_FROM, 0.05 (too faint to matter; the legend lists credit from there too). */
export function creditClass(credit: number | undefined): string {
  return credit !== undefined && Math.abs(credit) >= CREDIT_TINT_FROM ? (credit >= 0 ? ' credit-pos' : ' credit-neg') : '';
}
