/**
 * The minimap strip under the graph: every event of the trace as a tick in its lane's row, in
 * its category colour, and the rectangle of the time range in view. A click or a drag on the
 * strip moves the view there (the zoom stays).
 */
import type { TraceGraph } from './graph';
import { kindColors, themeColor } from './theme';

/** Draws `graph` into `canvas` and wires click and drag; returns the redraw function (call it on every view change). */
export function createMinimap(canvas: HTMLCanvasElement, graph: TraceGraph): () => void {
  const colors = kindColors();
  const focus = themeColor('focusBorder', '#007fd4');
  const ctx = canvas.getContext('2d');
  const pos = (n: { tx: number; order: number }) => (graph.mode === 'order' ? n.order : n.tx) / graph.axisLength();
  const draw = () => {
    if (!ctx) return;
    const width = (canvas.width = canvas.clientWidth);
    const height = (canvas.height = canvas.clientHeight);
    ctx.clearRect(0, 0, width, height);
    const rows = Math.max(1, graph.visibleLanes());
    const rowH = Math.max(1, (height - 2) / rows);
    for (const n of graph.graph.nodes) {
      const row = graph.row(n.lane);
      if (row === undefined) continue;
      ctx.fillStyle = colors[n.kind] ?? '#888';
      ctx.fillRect(Math.round(pos(n) * (width - 2)), 1 + Math.floor(row * rowH), n.kind === 'stop' ? 3 : 1, Math.max(1, Math.ceil(rowH - (rowH > 3 ? 1 : 0))));
    }
    // The time range in view.
    const stage = graph.cy.width();
    const a = Math.max(0, graph.axisAt(0) / graph.axisLength());
    const b = Math.min(1, graph.axisAt(stage) / graph.axisLength());
    ctx.strokeStyle = focus;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(a * width + 0.75, 0.75, Math.max(3, (b - a) * width) - 1.5, height - 1.5);
  };
  // Click or drag: centre the view on that point of the trace.
  let dragging = false;
  const go = (e: PointerEvent) => {
    const rect = canvas.getBoundingClientRect();
    const u = ((e.clientX - rect.left) / rect.width) * graph.axisLength();
    const stage = graph.cy.width();
    const centre = graph.axisAt(stage / 2);
    const pan = graph.cy.pan();
    graph.cy.pan({ x: pan.x - (u - centre) * graph.scale, y: pan.y });
  };
  canvas.addEventListener('pointerdown', (e) => {
    dragging = true;
    canvas.setPointerCapture(e.pointerId);
    go(e);
  });
  canvas.addEventListener('pointermove', (e) => dragging && go(e));
  canvas.addEventListener('pointerup', () => (dragging = false));
  return draw;
}
