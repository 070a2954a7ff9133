/**
 * The minimap strip under the graph: every event of the whole trace (from the overview's columns,
 * loaded or not) as a tick in its lane's row, in its category colour, and the rectangle of the
 * time range in view. The ticks are drawn once per size, mode and lane folding into an offscreen
 * canvas, when the page is idle (after the first paint); a view change only copies it and draws
 * the rectangle. A click or a drag on the strip
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
  const kindPixel = kinds.map((k) => pixelOf(ctx, colors[k] ?? '#888'));
  const stop = kinds.indexOf('stop');
  const ticks = document.createElement('canvas');
  let drawnFor = '';
  /** The ticks' key (size, mode, folding) waiting for an idle moment, if any. */
  let waiting = '';
  const ticksKey = (width: number, height: number) => `${width}x${height} ${graph.mode} ${[...graph.collapsed].join('\u0000')}`;
  /**
   * The ticks are drawn when the page is idle, not in the frame that asked (a pass over every
   * event: a million at 1M events, after the graph's first window is on screen); the view's
   * rectangle is drawn at once.
   */
  const drawTicksSoon = (width: number, height: number) => {
    const key = ticksKey(width, height);
    if (key === waiting) return;
    waiting = key;
    const later = (fn: () => void) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: 300 }) : setTimeout(fn, 50));
    later(() => {
      if (waiting !== key || graph.cy.destroyed()) return; // asked again since, or another trace's graph now
      waiting = '';
      drawTicks(width, height, key);
      draw();
    });
  };
  /** Draws every event's tick into the offscreen canvas (once per size, mode and folding). */
  const drawTicks = (width: number, height: number, key: string) => {
    const rows = Math.max(1, graph.visibleLanes());
    drawnFor = key;
    ticks.width = width;
    ticks.height = height;
    const tctx = ticks.getContext('2d');
    if (!tctx) return;
    const rowH = Math.max(1, (height - 2) / rows);
    const h = Math.max(1, Math.ceil(rowH - (rowH > 3 ? 1 : 0)));
    const length = graph.axisLength();
    // One tick per pixel column and row (the last event there in file order gives its colour), then
    // the stops, 3 px wide, on top: a million events cost a pass over typed arrays, and the ticks
    // are written as pixels (one putImageData, not a rectangle per tick).
    const rowOf = Int32Array.from(graph.graph.lanes, (_, lane) => graph.row(lane) ?? -1);
    const cell = new Int16Array(width * rows).fill(-1);
    const stops: number[] = [];
    const { lane, kind, tx } = columns;
    const rank = graph.mode === 'order' ? graph.rank : undefined;
    const perUnit = (width - 2) / length;
    for (let i = 0; i < tx.length; i++) {
      const row = rowOf[lane[i]];
      if (row < 0) continue;
      const x = Math.round((rank ? rank[i] : tx[i]) * perUnit);
      if (kind[i] === stop) stops.push(x, row);
      else cell[row * width + x] = kind[i];
    }
    const image = tctx.createImageData(width, height);
    const pixels = new Uint32Array(image.data.buffer);
    const paint = (x: number, row: number, w: number, color: number) => {
      const y0 = 1 + Math.floor(row * rowH);
      for (let y = y0; y < Math.min(height, y0 + h); y++) pixels.fill(color, y * width + Math.max(0, x), y * width + Math.min(width, x + w));
    };
    for (let c = 0; c < cell.length; c++) if (cell[c] >= 0) paint(c % width, Math.floor(c / width), 1, kindPixel[cell[c]]);
    for (let j = 0; j < stops.length; j += 2) paint(stops[j], stops[j + 1], 3, kindPixel[stop]);
    tctx.putImageData(image, 0, 0);
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
    if (drawnFor === ticksKey(width, height)) ctx.drawImage(ticks, 0, 0);
    else drawTicksSoon(width, height);
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

/**
 * A CSS colour as one RGBA pixel of an ImageData's Uint32 view (the bytes in memory are R, G, B, A:
 * little-endian, as every platform VS Code runs on). The context normalizes the colour: `#rrggbb`
 * or `rgba(r, g, b, a)`; anything else gives grey.
 */
export function pixelOf(ctx: CanvasRenderingContext2D | null, color: string): number {
  let r = 136;
  let g = 136;
  let b = 136;
  let a = 255;
  if (ctx) {
    ctx.fillStyle = '#888888';
    ctx.fillStyle = color;
    const css = String(ctx.fillStyle);
    const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(css);
    const rgba = /^rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?\)$/.exec(css);
    if (hex) [r, g, b] = hex.slice(1).map((x) => parseInt(x, 16));
    else if (rgba) {
      [r, g, b] = rgba.slice(1, 4).map(Number);
      a = rgba[4] === undefined ? 255 : Math.round(Number(rgba[4]) * 255);
    }
  }
  return ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
}
