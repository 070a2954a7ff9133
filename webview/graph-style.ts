/**
 * How the graph looks: a shape and colour per event kind, a line style per edge type (each reads
 * without colour too), cue glyphs, credit tints, analysis marks as borders, run bars. Shared by the
 * graph (graph.ts) and its legend (legend.ts).
 */
import type cytoscape from 'cytoscape';
import type { StylesheetJson } from 'cytoscape';
import { EVENT_CUES } from '../src/shared/cues';
import { kindColors, OKABE_ITO, themeColor } from './theme';

/** Shape per event type: message and delegate differ, the stop is the only octagon. */
export const SHAPES: Record<string, cytoscape.Css.NodeShape> = {
  orchestrator_decision: 'diamond',
  spawn: 'triangle',
  despawn: 'vee',
  delegate: 'tag',
  message: 'ellipse',
  tool_call: 'rectangle',
  tool_result: 'cut-rectangle',
  return: 'round-triangle',
  aggregate: 'hexagon',
  reward: 'star',
  stop: 'octagon',
  human_intervention: 'rhomboid',
  safety_event: 'concave-hexagon',
};

/** Edge styles per edge type: colour, dash and arrow, so that each type reads without colour too. */
export const EDGE_STYLES: Record<string, { color: string; line: 'solid' | 'dashed' | 'dotted'; arrow: cytoscape.Css.ArrowShape; width: number }> = {
  spawn: { color: OKABE_ITO.reddishPurple, line: 'solid', arrow: 'triangle', width: 2.5 },
  delegate: { color: OKABE_ITO.blue, line: 'solid', arrow: 'triangle-tee', width: 2 },
  message: { color: OKABE_ITO.skyBlue, line: 'dashed', arrow: 'vee', width: 1.5 },
  return: { color: OKABE_ITO.bluishGreen, line: 'dotted', arrow: 'triangle-backcurve', width: 2 },
};

/** Label font size in px (the graph's zoom stays 1, so this is the size on screen). */
export const LABEL_FONT = 11;
/** Widest label in px (longer ones end in …). */
export const LABEL_MAX = 150;

/**
 * Cue styles (src/shared/cues.ts): rows that are no agent output are hollow with a dashed outline;
 * every cue puts its glyph on the node. Later cues win when a node has several (states over kinds).
 */
function cueStyles(fg: string): StylesheetJson {
  return Object.entries(EVENT_CUES).map(([id, cue]) => ({
    selector: `node.cue-${id}`,
    style: {
      'background-image': glyphImage(cue.glyph),
      'background-fit': 'none',
      'background-width': '12px',
      'background-height': '12px',
      'background-image-containment': 'over',
      'background-clip': 'none',
      ...(cue.hollow ? { 'background-opacity': 0.3, 'border-style': 'dashed', 'border-width': 2, 'border-color': fg } : {}),
      ...(cue.alert ? { 'border-style': 'solid', 'border-width': 2, 'border-color': themeColor('editorError-foreground', '#f14c4c') } : {}),
    },
  })) as StylesheetJson;
}

/** A glyph as an SVG data URI (white with a dark edge, so it reads on every type's colour). */
export function glyphImage(glyph: string): string {
  const svg = `<svg xmlns='http://www.w3.org/2000/svg' width='12' height='12'><text x='6' y='10' font-size='11' font-family='sans-serif' font-weight='bold' text-anchor='middle' fill='white' stroke='black' stroke-width='1' paint-order='stroke'>${glyph}</text></svg>`;
  return `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
}

/** The graph's stylesheet: node shapes and colours per kind, cues, credit tints, marks, run bars, edges per type. */
export function graphStyle(): StylesheetJson {
  const colors = kindColors();
  const fg = themeColor('foreground', '#cccccc');
  const bg = themeColor('editor-background', '#1e1e1e');
  const edge = themeColor('descriptionForeground', '#8b8b8b');
  const sheet: StylesheetJson = [
    {
      selector: 'node.event',
      style: {
        // above the run bars: a stop, a marked event or a spawn kept on its own beside a bar takes the click, not the bar drawn over it
        'z-index': 2,
        width: 'data(w)',
        height: 'data(h)',
        shape: 'ellipse',
        'background-color': colors.orchestrator_decision,
        label: 'data(label)',
        color: fg,
        'font-size': LABEL_FONT,
        'text-valign': 'bottom',
        'text-halign': 'center',
        'text-margin-y': 2,
        'text-max-width': `${LABEL_MAX}px`,
        'text-wrap': 'ellipsis',
        'text-background-color': bg,
        'text-background-opacity': 0.7,
        'text-background-padding': '1px',
        'border-width': 1,
        'border-color': bg,
      },
    },
    ...Object.entries(colors).map(([kind, color]) => ({
      selector: `node.${kind}`,
      style: { 'background-color': color, ...(SHAPES[kind] ? { shape: SHAPES[kind] } : {}) },
    })),
    { selector: 'node.bar', style: { shape: 'round-rectangle', 'background-opacity': 0.85 } },
    { selector: 'node.stop', style: { 'border-width': 2, 'border-color': fg, 'font-weight': 'bold' } },
    // a turn end before the lane's last stop: a small mark on the turn row, its label plain
    { selector: 'node.stop.turn-end, node.stop.phase-end', style: { 'border-width': 1, 'font-weight': 'normal' } },
    { selector: 'node.stop.last-stop', style: { 'border-width': 2, 'font-weight': 'bold' } },
    { selector: 'node.stop-ok', style: { 'border-color': OKABE_ITO.bluishGreen, 'border-width': 3 } },
    { selector: 'node.nolabel', style: { label: '' } },
    { selector: 'node[dx]', style: { 'text-margin-x': 'data(dx)' as unknown as number } },
    ...cueStyles(fg),
    // Credit: a tint around the node (green for positive, vermillion for negative), value on hover.
    { selector: 'node.credit-pos', style: { 'underlay-color': OKABE_ITO.bluishGreen, 'underlay-opacity': 'data(tint)' as unknown as number, 'underlay-padding': 3, 'underlay-shape': 'ellipse' } },
    { selector: 'node.credit-neg', style: { 'underlay-color': OKABE_ITO.vermillion, 'underlay-opacity': 'data(tint)' as unknown as number, 'underlay-padding': 3, 'underlay-shape': 'ellipse' } },
    // A run bar's tint is its most credited event's, around the bar.
    { selector: 'node.run.credit-pos, node.run.credit-neg', style: { 'underlay-shape': 'round-rectangle' } },
    // Analysis marks are borders; the current event's focus ring is a page element around them (webview/main.ts), so both stay visible.
    { selector: 'node.loop', style: { 'border-width': 3, 'border-style': 'dashed', 'border-color': OKABE_ITO.orange } },
    { selector: 'node.stop-problem', style: { 'border-width': 4, 'border-style': 'double', 'border-color': themeColor('editorWarning-foreground', '#cca700') } },
    { selector: 'node.blame', style: { 'border-width': 4, 'border-style': 'double', 'border-color': themeColor('editorError-foreground', '#f14c4c') } },
    // People's labels: an outline outside the border, in their own colour (otrace's verdicts are borders)
    { selector: 'node.human-label', style: { 'outline-width': 3, 'outline-offset': 2, 'outline-style': 'solid', 'outline-color': themeColor('otrace-humanLabelForeground', '#CC79A7') } },
    { selector: 'node.folded', style: { display: 'none' } },
    { selector: 'node.in-run', style: { display: 'none' } },
    {
      selector: 'node.run',
      style: {
        'z-index': 1,
        shape: 'round-rectangle',
        width: 'data(w)',
        height: 'data(h)',
        'background-color': 'data(color)',
        'background-opacity': 0.45,
        'border-width': 1,
        'border-color': themeColor('descriptionForeground', '#9d9d9d'),
        label: 'data(label)',
        color: fg,
        'font-size': LABEL_FONT,
        'text-valign': 'bottom',
        'text-margin-y': 2,
        'text-background-color': bg,
        'text-background-opacity': 0.7,
        'text-background-padding': '1px',
      },
    },
    { selector: 'node.run.nolabel', style: { label: '' } },
    // a run bar holding a loop's events: the loop's ring (the plain bar's border above would hide it)
    { selector: 'node.run.loop', style: { 'border-width': 2, 'border-style': 'dashed', 'border-color': OKABE_ITO.orange } },
    {
      selector: 'edge',
      style: {
        width: 1,
        'line-color': edge,
        'target-arrow-color': edge,
        'target-arrow-shape': 'triangle',
        'arrow-scale': 0.7,
        'curve-style': 'straight',
        opacity: 0.7,
      },
    },
    ...Object.entries(EDGE_STYLES).map(([type, s]) => ({
      selector: `edge.${type}`,
      style: { 'line-color': s.color, 'target-arrow-color': s.color, 'line-style': s.line, 'target-arrow-shape': s.arrow, width: s.width, opacity: 0.9 },
    })),
    { selector: 'edge.intra', style: { display: 'none' } },
    { selector: '.dimmed', style: { opacity: 0.12 } },
  ];
  return sheet;
}
