/**
 * Export of the current view: a PNG of the panel's graph area (lane names, time axis and graph, at
 * the size shown) and an SVG with one element per visible node. Trace text lands in the SVG: every
 * string is XML-escaped, with the characters XML 1.0 forbids (even as references) shown visibly, and
 * nothing is ever parsed back as markup.
 */
import { visibleControls } from '../src/shared/untrusted-text';
import type { TraceGraph } from './graph';
import { themeColor } from './theme';

/**
 * Characters XML 1.0 does not allow (its `Char` production), that {@link visibleControls} leaves:
 * U+FFFE, U+FFFF and unpaired surrogates. (It shows C0 controls but tab and newlines, which XML
 * forbids even as `&#0;`-style references, and C1 controls and bidi, which XML allows but which
 * act on the text shown.)
 */
const NOT_XML = /[\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text for XML content and attribute values: `& < > " '` as entities, control and bidi characters
 * shown as `⟨U+202E⟩`, and every other character XML 1.0 forbids the same way, so the document is
 * always well-formed (a NUL in an agent name made the exported SVG unreadable).
 */
export function escapeXml(text: string): string {
  return visibleControls(text)
    .replace(NOT_XML, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`)
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Geometry of the exported picture: the lane column, the axis row and the graph stage. */
function frame(canvas: HTMLElement): { laneWidth: number; axisHeight: number; width: number; height: number } {
  const lanes = canvas.querySelector<HTMLElement>('#lanes')!;
  const axis = canvas.querySelector<HTMLElement>('#axis')!;
  const stage = canvas.querySelector<HTMLElement>('#stage')!;
  void stage;
  return { laneWidth: lanes.offsetWidth, axisHeight: axis.offsetHeight, width: canvas.clientWidth, height: canvas.clientHeight };
}

/** Lane names and axis ticks as they are on screen: [text, x, y] in picture coordinates. */
function texts(canvas: HTMLElement): { lanes: [string, number, number][]; ticks: [string, number, number][] } {
  const origin = canvas.getBoundingClientRect();
  const at = (el: Element): [number, number] => {
    const r = el.getBoundingClientRect();
    return [r.left - origin.left, r.top - origin.top + r.height / 2];
  };
  const shown = (el: HTMLElement) => el.offsetParent !== null && getComputedStyle(el).display !== 'none';
  const lanes = [...canvas.querySelectorAll<HTMLElement>('#lanes .lane-name')].filter((el) => shown(el.parentElement!)).map((el) => [el.textContent ?? '', ...at(el)] as [string, number, number]);
  const ticks = [...canvas.querySelectorAll<HTMLElement>('#axis .tick, #axis .gap-mark')].map((el) => [el.textContent ?? '', ...at(el)] as [string, number, number]);
  return { lanes, ticks };
}

/** Pixels per CSS pixel of an exported PNG: sharp in a slide or a paper at twice the size shown. */
export const PNG_SCALE = 2;

/** A PNG (data URL) of the graph area as shown, at {@link PNG_SCALE}x its size: lane names, the axis and the graph. */
export async function exportPng(graph: TraceGraph, canvasEl: HTMLElement): Promise<string> {
  const f = frame(canvasEl);
  const out = document.createElement('canvas');
  out.width = f.width * PNG_SCALE;
  out.height = f.height * PNG_SCALE;
  const ctx = out.getContext('2d')!;
  ctx.scale(PNG_SCALE, PNG_SCALE);
  ctx.fillStyle = themeColor('editor-background', '#1e1e1e');
  ctx.fillRect(0, 0, f.width, f.height);
  const shot = graph.cy.png({ output: 'base64uri', full: false, scale: PNG_SCALE, bg: themeColor('editor-background', '#1e1e1e') });
  const img = new Image();
  await new Promise<void>((resolve, reject) => {
    img.onload = () => resolve();
    img.onerror = () => reject(new Error('the graph picture did not load'));
    img.src = shot;
  });
  ctx.drawImage(img, f.laneWidth, f.axisHeight, f.width - f.laneWidth, f.height - f.axisHeight);
  ctx.fillStyle = themeColor('foreground', '#cccccc');
  ctx.textBaseline = 'middle';
  const family = getComputedStyle(document.body).fontFamily || 'sans-serif';
  const t = texts(canvasEl);
  ctx.font = `12px ${family}`;
  for (const [text, x, y] of t.lanes) ctx.fillText(text, x, y, f.laneWidth - x - 2);
  ctx.font = `11px ${family}`;
  for (const [text, x, y] of t.ticks) if (x >= f.laneWidth) ctx.fillText(text, x + 3, y);
  return out.toDataURL('image/png');
}

/** An SVG of the current view: one `<g class="event">` per visible node (its shape and label), the arrows between lanes, lane names and axis. */
export function exportSvg(graph: TraceGraph, canvasEl: HTMLElement): string {
  const f = frame(canvasEl);
  const bg = themeColor('editor-background', '#1e1e1e');
  const fg = themeColor('foreground', '#cccccc');
  const family = escapeXml(getComputedStyle(document.body).fontFamily || 'sans-serif');
  const w = f.width - f.laneWidth;
  const h = f.height - f.axisHeight;
  const inView = (x: number, y: number) => x >= -20 && x <= w + 20 && y >= -20 && y <= h + 20;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}" font-family="${family}">`,
    `<rect width="100%" height="100%" fill="${escapeXml(bg)}"/>`,
  ];
  const t = texts(canvasEl);
  for (const [text, x, y] of t.lanes) parts.push(`<text class="lane" x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-size="12" dominant-baseline="middle" fill="${escapeXml(fg)}">${escapeXml(text)}</text>`);
  for (const [text, x, y] of t.ticks) if (x >= f.laneWidth) parts.push(`<text class="tick" x="${(x + 3).toFixed(1)}" y="${y.toFixed(1)}" font-size="11" dominant-baseline="middle" fill="${escapeXml(fg)}">${escapeXml(text)}</text>`);
  parts.push(`<g transform="translate(${f.laneWidth} ${f.axisHeight})">`);
  graph.cy.edges().forEach((e) => {
    if (!e.visible()) return;
    const a = e.source().renderedPosition();
    const b = e.target().renderedPosition();
    if (!inView(a.x, a.y) && !inView(b.x, b.y)) return;
    const color = String(e.style('line-color'));
    const dash = e.style('line-style') === 'dashed' ? ' stroke-dasharray="6 4"' : e.style('line-style') === 'dotted' ? ' stroke-dasharray="2 3"' : '';
    parts.push(`<line class="edge ${escapeXml(String(e.data('type')))}" x1="${a.x.toFixed(1)}" y1="${a.y.toFixed(1)}" x2="${b.x.toFixed(1)}" y2="${b.y.toFixed(1)}" stroke="${escapeXml(color)}" stroke-width="${parseFloat(String(e.style('width'))) || 1}"${dash}/>`);
  });
  graph.cy.nodes().forEach((n) => {
    if (!n.visible()) return;
    const p = n.renderedPosition();
    if (!inView(p.x, p.y)) return;
    const nw = n.renderedWidth();
    const nh = n.renderedHeight();
    const fill = escapeXml(String(n.style('background-color')));
    const shape = String(n.style('shape'));
    const body =
      shape === 'ellipse'
        ? `<ellipse cx="${p.x.toFixed(1)}" cy="${p.y.toFixed(1)}" rx="${(nw / 2).toFixed(1)}" ry="${(nh / 2).toFixed(1)}" fill="${fill}"/>`
        : `<rect x="${(p.x - nw / 2).toFixed(1)}" y="${(p.y - nh / 2).toFixed(1)}" width="${nw.toFixed(1)}" height="${nh.toFixed(1)}" rx="${shape.includes('round') ? 3 : 0}" fill="${fill}"/>`;
    const label = n.hasClass('nolabel') ? '' : String(n.data('label') ?? '');
    const text = label ? `<text x="${p.x.toFixed(1)}" y="${(p.y + nh / 2 + 12).toFixed(1)}" font-size="11" text-anchor="middle" fill="${escapeXml(fg)}">${escapeXml(label)}</text>` : '';
    parts.push(
      `<g class="event ${escapeXml(String(n.data('kind')))}" data-index="${Number(n.data('index'))}"><title>${escapeXml(`${n.data('eventId')} · ${n.data('agent')}`)}</title>${body}${text}</g>`,
    );
  });
  parts.push('</g></svg>');
  return parts.join('\n');
}
