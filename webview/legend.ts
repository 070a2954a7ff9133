/**
 * The legend: one swatch per event category present (its Okabe–Ito colour and the shapes of its
 * types), the edge styles, and the marks (loop, blame, stop problem, sound stop, credit).
 */
import type { GraphOverview } from '../src/shared/protocol';
import { EVENT_CUES } from '../src/shared/cues';
import { EDGE_STYLES, glyphImage, SHAPES } from './graph-style';
import { CATEGORIES, kindColors, OKABE_ITO } from './theme';

/** CSS clip-paths that draw the node shapes in a 10 px swatch. */
const CLIP: Record<string, string> = {
  diamond: 'polygon(50% 0, 100% 50%, 50% 100%, 0 50%)',
  triangle: 'polygon(50% 0, 100% 100%, 0 100%)',
  'round-triangle': 'polygon(50% 0, 100% 100%, 0 100%)',
  vee: 'polygon(0 0, 50% 40%, 100% 0, 50% 100%)',
  tag: 'polygon(0 0, 70% 0, 100% 50%, 70% 100%, 0 100%)',
  'cut-rectangle': 'polygon(25% 0, 75% 0, 100% 25%, 100% 75%, 75% 100%, 25% 100%, 0 75%, 0 25%)',
  hexagon: 'polygon(25% 0, 75% 0, 100% 50%, 75% 100%, 25% 100%, 0 50%)',
  octagon: 'polygon(30% 0, 70% 0, 100% 30%, 100% 70%, 70% 100%, 30% 100%, 0 70%, 0 30%)',
  star: 'polygon(50% 0, 61% 35%, 98% 35%, 68% 57%, 79% 91%, 50% 70%, 21% 91%, 32% 57%, 2% 35%, 39% 35%)',
  rhomboid: 'polygon(25% 0, 100% 0, 75% 100%, 0 100%)',
  'concave-hexagon': 'polygon(0 0, 100% 0, 85% 50%, 100% 100%, 0 100%, 15% 50%)',
};

function swatch(kind: string, color: string, bar = false): HTMLElement {
  const s = document.createElement('span');
  s.className = 'swatch';
  s.style.background = color;
  const shape = SHAPES[kind];
  if (bar) {
    s.style.width = '16px';
    s.style.height = '7px';
    s.style.borderRadius = '2px';
  } else if (shape === 'ellipse') s.style.borderRadius = '50%';
  else if (shape && CLIP[shape]) s.style.clipPath = CLIP[shape];
  return s;
}

function item(parts: (HTMLElement | string)[], title: string): HTMLElement {
  const el = document.createElement('span');
  el.className = 'legend-item';
  el.title = title;
  el.append(...parts);
  return el;
}

/** Fills `legend` for the kinds present in `graph`. */
export function showLegend(legend: HTMLElement, graph: GraphOverview): void {
  const colors = kindColors();
  const present = new Set(graph.kinds);
  const hasBars = graph.legend.bars;
  const items: HTMLElement[] = [];
  for (const k of ['orchestrator_decision', 'human_intervention']) {
    if (present.has(k)) items.push(item([swatch(k, colors[k]), k.replace(/_/g, ' ')], k));
  }
  for (const c of CATEGORIES) {
    const kinds = c.kinds.filter((k) => present.has(k));
    if (!kinds.length) continue;
    const shapes = kinds.map((k) => swatch(k, c.color, k === 'tool_call' && hasBars));
    items.push(item([...shapes, c.name], `${c.name}: ${kinds.join(', ')}${c.name === 'tool call' && hasBars ? ' (a call and its result: one bar as long as the call took)' : ''}`));
  }
  // The subtypes and states present (local command, denied call, open span, ...): each with its node cue.
  const cues = new Set(graph.legend.cues);
  for (const [id, cue] of Object.entries(EVENT_CUES)) {
    if (!cues.has(id)) continue;
    const mark = document.createElement('span');
    mark.className = 'swatch cue';
    mark.dataset.cue = id;
    mark.style.background = `${cue.hollow ? 'rgba(128, 128, 128, 0.3)' : OKABE_ITO.blue} url("${glyphImage(cue.glyph)}") center / 12px 12px no-repeat`;
    if (cue.hollow) mark.style.border = '1px dashed var(--vscode-foreground, #ccc)';
    items.push(item([mark, cue.label], `${cue.label}: ${cue.description}`));
  }
  const types = new Set(graph.legend.edgeTypes);
  for (const [type, s] of Object.entries(EDGE_STYLES)) {
    if (!types.has(type)) continue;
    const line = document.createElement('span');
    line.className = 'edge-swatch';
    line.style.borderTop = `${Math.max(2, s.width)}px ${s.line} ${s.color}`;
    items.push(item([line, `${type} →`], `${type} arrows between lanes`));
  }
  const marks: [string, string, string][] = [
    ['loop', `dashed ${OKABE_ITO.orange}`, 'loop member (repeated)'],
    ['blame', 'double var(--vscode-editorError-foreground, #f14c4c)', 'decisive error'],
    ['stop ✓', `solid ${OKABE_ITO.bluishGreen}`, 'sound stop: the trace records that the task succeeded (without such a record a stop has no ✓)'],
  ];
  for (const [name, border, title] of marks) {
    const ring = document.createElement('span');
    ring.className = 'ring';
    ring.style.border = `2px ${border}`;
    items.push(item([ring, name], title));
  }
  if (graph.legend.credit) {
    const tint = document.createElement('span');
    tint.className = 'ring';
    tint.style.background = OKABE_ITO.bluishGreen;
    tint.style.opacity = '0.6';
    if (graph.legend.influence) items.push(item([tint, 'influence'], 'influence: green halo, stronger when more of what followed built on the event (the trace records no outcome, so it is neither credit nor blame); value on hover'));
    else items.push(item([tint, 'credit'], 'credit estimate: green halo, stronger for more credit (vermillion: negative); value on hover'));
  }
  legend.replaceChildren(...items);
}
