/**
 * Webview entry: handshake with the host, draw the trace graph, show details, step through time.
 * Everything from the trace is shown with textContent; the CSP forbids inline and eval'd script.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { Core, NodeSingular } from 'cytoscape';
import type { GraphModel, HostMessage, WebviewMessage } from '../src/protocol';
import { showDetails } from './details';
import { createGraph } from './graph';
import { kindColors } from './theme';
import './styles.css';

declare function acquireVsCodeApi(): { postMessage(message: WebviewMessage): void };
const vscode = acquireVsCodeApi();
const post = (m: WebviewMessage) => vscode.postMessage(m);

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
let cy: Core | undefined;
let graph: GraphModel | undefined;
/** Node keys in time order, for ←/→ stepping. */
let timeline: string[] = [];

function render(next: GraphModel): void {
  graph = next;
  cy?.destroy();
  cy = createGraph($('graph'), $('lanes'), next);
  timeline = [...next.nodes].sort((a, b) => a.t - b.t || a.x - b.x).map((n) => n.id);
  const { errors, warnings } = next.problems;
  $('title').textContent = next.title;
  $('summary').textContent =
    `${next.format} · ${next.nodes.length < next.totalEvents ? `first ${next.nodes.length} of ${next.totalEvents}` : next.nodes.length} events · ${next.lanes.length} agents · ${next.edges.length} edges` +
    (errors + warnings ? ` · ${errors} errors, ${warnings} warnings (see Problems)` : '');
  showFindings(next);
  showLegend(next);
  cy.on('select', 'node', (e) => select(e.target as NodeSingular, false));
  cy.on('unselect', 'node', () => {
    showDetails($('details'), undefined, []);
    cy?.resize();
  });
  showDetails($('details'), undefined, []);
  (globalThis as { __otrace?: unknown }).__otrace = { cy, graph: next };
  document.body.dataset.title = next.title;
  document.body.dataset.state = 'ready';
  // Two frames later the graph has been painted: tell the host (npm start reports the time).
  requestAnimationFrame(() => requestAnimationFrame(() => post({ type: 'painted', events: next.nodes.length })));
}

const SEVERITY_ICON = { error: '✖', warning: '⚠', info: 'ℹ' } as const;

/** The analysis findings as a clickable list: a click selects the main event and dims the rest. */
function showFindings(next: GraphModel): void {
  const list = $('findings');
  list.replaceChildren(
    ...next.findings.map((f) => {
      const item = document.createElement('button');
      item.className = `finding ${f.severity}`;
      item.textContent = `${SEVERITY_ICON[f.severity]} ${f.message}`; // untrusted text: textContent only
      item.title = `${f.kind}: ${f.events.length} events`;
      item.addEventListener('click', () => focusEvents(f.events.map((i) => `n${i}`)));
      return item;
    }),
  );
  list.hidden = next.findings.length === 0;
}

/** The zoom at which a bounding box fits the panel with some padding. */
function fitZoom(box: { w: number; h: number }, width: number, height: number): { zoom: number } {
  return { zoom: Math.min((width - 120) / Math.max(box.w, 1), (height - 120) / Math.max(box.h, 1)) };
}

/** One swatch per event type present, in the theme color its nodes have. */
function showLegend(next: GraphModel): void {
  const colors = kindColors();
  const kinds = [...new Set(next.nodes.map((n) => n.kind))];
  $('legend').replaceChildren(
    ...kinds.map((kind) => {
      const item = document.createElement('span');
      item.className = `legend-item kind-${kind}`;
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = colors[kind] ?? 'gray';
      item.append(swatch, document.createTextNode(kind.replace(/_/g, ' ')));
      return item;
    }),
  );
}

/** Dims everything but `ids` and selects the first. */
function focusEvents(ids: string[]): void {
  if (!cy || ids.length === 0) return;
  const keep = new Set(ids);
  cy.batch(() => {
    cy!.elements().removeClass('dimmed');
    cy!.nodes().forEach((n) => {
      if (!keep.has(n.id())) n.addClass('dimmed');
    });
    cy!.edges().forEach((e) => {
      if (!keep.has(e.source().id()) || !keep.has(e.target().id())) e.addClass('dimmed');
    });
  });
  const first = cy.getElementById(ids[0]);
  if (first.empty()) return;
  select(first as NodeSingular, false);
  // Show all of the finding's events when they fit at a readable zoom; else its first event.
  let eles = cy.collection();
  for (const id of ids) eles = eles.union(cy.getElementById(id));
  const { zoom } = fitZoom(eles.boundingBox(), cy.width(), cy.height());
  if (zoom >= 0.4) cy.animate({ fit: { eles, padding: 60 } }, { duration: 200 });
  else cy.animate({ center: { eles: first }, zoom: Math.max(cy.zoom(), 0.6) }, { duration: 200 });
}

function select(node: NodeSingular, center: boolean): void {
  if (!cy || !graph) return;
  if (!node.selected()) {
    cy.$(':selected').unselect();
    node.select();
  }
  if (center) cy.animate({ center: { eles: node } }, { duration: 150 });
  const model = graph.nodes.find((n) => n.id === node.id());
  if (!model) return;
  const index = model.index;
  const actions: [string, () => void][] = [['Show in Trace File', () => post({ type: 'reveal', index })]];
  if (model.hasSource) actions.push(['Open Source Prompt', () => post({ type: 'openSource', index })]);
  showDetails($('details'), model, actions);
  cy.resize(); // the details pane may have just appeared under a narrow graph
  post({ type: 'selected', index });
}

function step(delta: number): void {
  if (!cy || timeline.length === 0) return;
  const current = cy.$('node:selected').first();
  const at = current.nonempty() ? timeline.indexOf(current.id()) : -1;
  const next = Math.min(timeline.length - 1, Math.max(0, at + delta));
  select(cy.getElementById(timeline[next]) as NodeSingular, true);
}

function filter(text: string): void {
  if (!cy) return;
  const q = text.trim().toLowerCase();
  cy.batch(() => {
    cy!.elements().removeClass('dimmed');
    $('matches').textContent = '';
    if (!q) return;
    const hit = new Set(graph!.nodes.filter((n) => `${n.eventId} ${n.label} ${n.agent} ${n.text ?? ''}`.toLowerCase().includes(q)).map((n) => n.id));
    $('search').title = hit.size === 0 ? 'No event matches' : `${hit.size} events match`;
    $('matches').textContent = hit.size === 0 ? 'no event matches' : `${hit.size} match`;
    cy!.nodes().forEach((n) => {
      if (!hit.has(n.id())) n.addClass('dimmed');
    });
    cy!.edges().addClass('dimmed');
  });
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const m = event.data;
  if (m.type === 'trace') render(m.graph);
  else if (m.type === 'explain' && graph?.findings[m.finding]) {
    const f = graph.findings[m.finding];
    focusEvents(f.events.map((i) => `n${i}`));
    const note = document.createElement('p');
    note.className = `finding-explained ${f.severity}`;
    note.textContent = f.message; // untrusted text: textContent only
    $('details').prepend(note);
  } else if (m.type === 'showLane' && cy) {
    const lane = cy.nodes().filter((n) => n.data('agent') === m.agent);
    if (lane.nonempty()) cy.animate({ fit: { eles: lane, padding: 40 } }, { duration: 200 });
  } else if (m.type === 'select' && cy) {
    const node = cy.getElementById(`n${m.index}`);
    if (node.nonempty()) select(node as NodeSingular, true);
  }
});

document.addEventListener('keydown', (e) => {
  if ((e.target as HTMLElement).closest('vscode-textfield')) return;
  if (e.key === 'ArrowRight') step(1);
  else if (e.key === 'ArrowLeft') step(-1);
  else if (e.key === 'f') cy?.fit(undefined, 40);
});
$('fit').addEventListener('click', () => cy?.fit(undefined, 40));
let filterTimer: ReturnType<typeof setTimeout> | undefined;
$('search').addEventListener('input', (e) => {
  // Wait for a pause in typing: filtering restyles every node.
  clearTimeout(filterTimer);
  const value = (e.target as HTMLInputElement).value ?? '';
  filterTimer = setTimeout(() => filter(value), 200);
});
post({ type: 'ready' });
