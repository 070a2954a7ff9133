/**
 * The legend: the entries of webview/legend-entries.ts (only what the graph shows, in plain words),
 * each with its swatch: an event category's Okabe–Ito colour and the shapes of its types (and its
 * arrow), a cue's glyph, a mark's ring, the credit halo.
 */
import type { GraphOverview } from '../src/shared/protocol';
import { EVENT_CUES } from '../src/shared/cues';
import { EDGE_STYLES, glyphImage, SHAPES } from './graph-style';
import { CATEGORIES, kindColors, OKABE_ITO } from './theme';
import { legendEntries } from './legend-entries';

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

/** Ring styles of the analysis marks (as graph.ts draws them). */
const MARK_RINGS: Record<string, string> = {
  loop: `dashed ${OKABE_ITO.orange}`,
  blame: 'double var(--vscode-editorError-foreground, #f14c4c)',
  'stop-ok': `solid ${OKABE_ITO.bluishGreen}`,
  'stop-problem': 'double var(--vscode-editorWarning-foreground, #cca700)',
};

/** An arrow type's line; without a type, the plain grey line of the other edges (graph-style.ts: the theme's description colour). */
function arrowSwatch(type?: string): HTMLElement {
  const s = type === undefined ? undefined : EDGE_STYLES[type];
  const line = document.createElement('span');
  line.className = 'edge-swatch';
  line.style.borderTop = s ? `${Math.max(2, s.width)}px ${s.line} ${s.color}` : '2px solid var(--vscode-descriptionForeground, #8b8b8b)';
  return line;
}

/** Fills `legend` with what `graph` shows (webview/legend-entries.ts), each entry with its swatch. */
export function showLegend(legend: HTMLElement, graph: GraphOverview): void {
  const colors = kindColors();
  const items = legendEntries(graph).map((entry) => {
    const s = entry.swatch;
    const parts: HTMLElement[] = [];
    if ('category' in s) {
      const color = CATEGORIES.find((c) => c.name === s.category)?.color ?? '#9d9d9d';
      parts.push(...s.kinds.map((k) => swatch(k, color, k === 'tool_call' && graph.legend.bars)));
      if (s.arrow) parts.push(arrowSwatch(s.arrow));
    } else if ('kind' in s) parts.push(swatch(s.kind, colors[s.kind]));
    else if ('arrow' in s) parts.push(arrowSwatch(s.arrow));
    else if ('link' in s) parts.push(arrowSwatch());
    else if ('cue' in s) {
      const cue = EVENT_CUES[s.cue];
      const mark = document.createElement('span');
      mark.className = 'swatch cue';
      mark.dataset.cue = s.cue;
      mark.style.background = `${cue.hollow ? 'rgba(128, 128, 128, 0.3)' : OKABE_ITO.blue} url("${glyphImage(cue.glyph)}") center / 12px 12px no-repeat`;
      if (cue.hollow) mark.style.border = '1px dashed var(--vscode-foreground, #ccc)';
      if (cue.alert) mark.style.border = '2px solid var(--vscode-editorError-foreground, #f14c4c)';
      parts.push(mark);
    } else if ('mark' in s) {
      const ring = document.createElement('span');
      ring.className = 'ring';
      ring.style.border = `2px ${MARK_RINGS[s.mark]}`;
      parts.push(ring);
    } else {
      const tint = document.createElement('span');
      tint.className = 'ring';
      tint.style.background = OKABE_ITO.bluishGreen;
      tint.style.opacity = '0.6';
      parts.push(tint);
    }
    return item([...parts, entry.name], entry.title);
  });
  legend.replaceChildren(...items);
}
