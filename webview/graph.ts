/**
 * The Cytoscape graph: event nodes at the positions the host computed (preset layout, no force
 * layout), typed edges, theme colors, and lane labels kept beside the graph as it pans and zooms.
 */
import cytoscape, { type Core, type ElementDefinition, type StylesheetJson } from 'cytoscape';
import type { GraphModel } from '../src/protocol';
import { kindColors, themeColor } from './theme';

const SHAPES: Record<string, cytoscape.Css.NodeShape> = {
  orchestrator_decision: 'diamond',
  spawn: 'triangle',
  despawn: 'vee',
  delegate: 'round-tag',
  message: 'round-rectangle',
  tool_call: 'rectangle',
  tool_result: 'cut-rectangle',
  return: 'round-triangle',
  aggregate: 'hexagon',
  reward: 'star',
  stop: 'octagon',
};

function elements(graph: GraphModel): ElementDefinition[] {
  const nodes: ElementDefinition[] = graph.nodes.map((n) => ({
    group: 'nodes',
    data: { id: n.id, index: n.index, eventId: n.eventId, label: n.label, kind: n.kind, agent: n.agent, t: n.t },
    position: { x: n.x, y: n.y },
    classes: ['event', n.kind, ...n.marks].join(' '),
  }));
  const edges: ElementDefinition[] = graph.edges.map((e) => ({
    group: 'edges',
    data: { id: e.id, source: e.source, target: e.target, type: e.type },
    classes: `${e.type}${e.derived ? ' derived' : ''}`,
  }));
  return [...nodes, ...edges];
}

function style(): StylesheetJson {
  const colors = kindColors();
  const fg = themeColor('foreground', '#cccccc');
  const edge = themeColor('editorWidget-border', '#6b6b6b');
  const focus = themeColor('focusBorder', '#007fd4');
  const sheet: StylesheetJson = [
    {
      selector: 'node.event',
      style: {
        width: 26,
        height: 26,
        shape: 'ellipse',
        'background-color': themeColor('charts-foreground', '#cccccc'),
        label: 'data(label)',
        color: fg,
        'font-size': 11,
        'text-valign': 'bottom',
        'text-margin-y': 3,
        'text-max-width': '90px',
        'text-wrap': 'ellipsis',
        'min-zoomed-font-size': 5,
      },
    },
    ...Object.entries(colors).map(([kind, color]) => ({
      selector: `node.${kind}`,
      style: { 'background-color': color, ...(SHAPES[kind] ? { shape: SHAPES[kind] } : {}) },
    })),
    {
      selector: 'node.stop',
      style: { width: 42, height: 42, 'border-width': 3, 'border-color': fg, 'font-weight': 'bold', 'font-size': 10 },
    },
    { selector: 'node.loop', style: { 'border-width': 3, 'border-style': 'dashed', 'border-color': themeColor('charts-orange', '#d18616') } },
    { selector: 'node.stop-problem', style: { 'border-width': 4, 'border-style': 'double', 'border-color': themeColor('editorWarning-foreground', '#cca700') } },
    { selector: 'node.blame', style: { 'border-width': 4, 'border-style': 'double', 'border-color': themeColor('editorError-foreground', '#f14c4c') } },
    { selector: 'node:selected', style: { 'border-width': 3, 'border-style': 'solid', 'border-color': focus } },
    {
      selector: 'edge',
      style: {
        width: 1.5,
        'line-color': edge,
        'target-arrow-color': edge,
        'target-arrow-shape': 'triangle',
        'arrow-scale': 0.8,
        'curve-style': 'bezier',
      },
    },
    { selector: 'edge.derived', style: { 'line-style': 'dashed' } },
    { selector: 'edge.spawn', style: { 'line-color': colors.spawn, 'target-arrow-color': colors.spawn } },
    { selector: 'edge.return', style: { 'line-color': colors.return, 'target-arrow-color': colors.return } },
    { selector: 'edge.message', style: { 'line-color': colors.message, 'target-arrow-color': colors.message } },
    { selector: '.dimmed', style: { opacity: 0.2 } },
  ];
  return sheet;
}

/** Distance between lanes in graph units (the host's layout uses the same). */
const LANE_SPACING = 90;

/** Room on the left for the lane labels, in screen pixels. */
const LABEL_ROOM = 110;

/**
 * The first view: all lanes in height when they fit (zoom between 0.5 and 1.2), the first lane at
 * the top and the start of the trace at the left, like a timeline; traces wider or taller than the
 * panel are panned, not shrunk to dots.
 * "Fit" shows everything.
 */
export function showStart(cy: Core, graph: GraphModel): void {
  const height = cy.height() || 400;
  const laneSpan = (graph.lanes.length - 1) * LANE_SPACING + 120;
  const xs = graph.nodes.map((n) => n.x);
  // About ten time steps across the panel, all lanes in height.
  const steps = Math.min(10, new Set(xs).size || 1);
  const width = (cy.width() || 600) - LABEL_ROOM;
  const zoom = Math.min(1.2, Math.max(0.5, Math.min(height / laneSpan, width / (steps * 90))));
  const minX = xs.length ? Math.min(...xs) : 0;
  // The first lane at the top, like a timeline.
  cy.viewport({ zoom, pan: { x: LABEL_ROOM - minX * zoom, y: 40 } });
}

/** Creates the graph in `container` and keeps the lane labels in `lanes` aligned with it. */
export function createGraph(container: HTMLElement, lanes: HTMLElement, graph: GraphModel): Core {
  const cy = cytoscape({
    container,
    elements: elements(graph),
    style: style(),
    layout: { name: 'preset', fit: false },
    wheelSensitivity: 0.3,
    minZoom: 0.02,
    maxZoom: 4,
    boxSelectionEnabled: false,
    hideEdgesOnViewport: graph.nodes.length > 2000,
    textureOnViewport: graph.nodes.length > 2000,
  });
  lanes.replaceChildren(
    ...graph.lanes.map((lane) => {
      const label = document.createElement('div');
      label.className = 'lane';
      label.dataset.lane = lane.name;
      const name = document.createElement('span');
      name.className = 'lane-name';
      name.textContent = lane.name; // untrusted trace text: never innerHTML
      label.append(name);
      label.title = `${lane.name}: ${lane.count} events`;
      return label;
    }),
  );
  // Labels follow the lanes; when lanes are closer than a line of text they are hidden, and only
  // lanes on screen are placed (a swarm may have thousands).
  const place = () => {
    const zoom = cy.zoom();
    const pan = cy.pan();
    const tooDense = zoom * LANE_SPACING < 14;
    lanes.hidden = tooDense;
    if (tooDense) return;
    const height = cy.height();
    graph.lanes.forEach((lane, i) => {
      const label = lanes.children[i] as HTMLElement;
      const top = lane.y * zoom + pan.y;
      const visible = top > -20 && top < height + 20;
      label.style.display = visible ? '' : 'none';
      if (visible) label.style.top = `${top}px`;
    });
  };
  cy.on('viewport', place);
  showStart(cy, graph);
  place();
  return cy;
}
