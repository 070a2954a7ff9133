/**
 * The minimap strip under the graph: every event of the whole trace (from the overview's columns,
 * loaded or not) as a tick in its lane's row, in its category colour, and the rectangle of the
 * time range in view. The ticks are drawn once per size, mode and lane folding into an offscreen
 * canvas; a view change only copies it and draws the rectangle. A click or a drag on the strip
 * moves the view there (the zoom stays).
 */
import type { TraceGraph } from './graph';
import { kindColors, themeColor } from './theme';

/** Draws `graph` into `canvas` and wires click and drag; returns the redraw function (call it on every view change). */
export function createMinimap(canvas: HTMLCanvasElement, graph: TraceGraph): () => void {
  const colors = kindColors();
  const focus = themeColor('focusBorder', '#007fd4');
  const ctx = canvas.getContext('2d');
  const { columns, kinds } = graph.graph;
  const kindColor = kinds.map((k) => colors[k] ?? '#888');
  const stop = kinds.indexOf('stop');
  const ticks = document.createElement('canvas');
  let drawnFor = '';
  /** Draws every event's tick into the offscreen canvas (once per size, mode and folding). */
  const drawTicks = (width: number, height: number) => {
    const rows = Math.max(1, graph.visibleLanes());
    const key = `${width}x${height} ${graph.mode} ${[...graph.collapsed].join('\u0000')}`;
    if (key === drawnFor) return;
    drawnFor = key;
    ticks.width = width;
    ticks.height = height;
    const tctx = ticks.getContext('2d');
    if (!tctx) return;
    const rowH = Math.max(1, (height - 2) / rows);
    const h = Math.max(1, Math.ceil(rowH - (rowH > 3 ? 1 : 0)));
    const length = graph.axisLength();
    // One tick per pixel column and row (the last event there in file order gives its colour), then
    // the stops, 3 px wide, on top: a million events cost a pass over typed arrays, not a million rectangles.
    const cell = new Int16Array(width * rows).fill(-1);
    const stops: number[] = [];
    for (let i = 0; i < columns.tx.length; i++) {
      const row = graph.row(columns.lane[i]);
      if (row === undefined) continue;
      const u = graph.mode === 'order' ? graph.rank[i] : columns.tx[i];
      const x = Math.round((u / length) * (width - 2));
      if (columns.kind[i] === stop) stops.push(x, row);
      else cell[row * width + x] = columns.kind[i];
    }
    kindColor.forEach((color, k) => {
      tctx.fillStyle = color;
      for (let c = 0; c < cell.length; c++) if (cell[c] === k) tctx.fillRect(c % width, 1 + Math.floor(Math.floor(c / width) * rowH), 1, h);
    });
    if (stop >= 0) tctx.fillStyle = kindColor[stop];
    for (let j = 0; j < stops.length; j += 2) tctx.fillRect(stops[j], 1 + Math.floor(stops[j + 1] * rowH), 3, h);
  };
  const draw = () => {
    if (!ctx) return;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    if (canvas.width !== width || canvas.height !== height) {
      canvas.width = width;
      canvas.height = height;
    }
    ctx.clearRect(0, 0, width, height);
    if (!width || !height) return;
    drawTicks(width, height);
    ctx.drawImage(ticks, 0, 0);
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
