/**
 * The time axis above the graph: ticks at round times (or event numbers in event order), the
 * compressed idle gaps marked on the axis and as hatched bands across the lanes, and the cursor
 * line at the current event.
 */
import { axisToTime, timeToAxis } from '../src/shared/axis';
import { formatDuration } from '../src/shared/duration-words';

export { formatDuration };
import type { TraceGraph } from './graph';

const STEPS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400];

/**
 * A tick's time when ticks are `step` seconds apart: {@link formatDuration}, with as many decimals of
 * seconds as the step needs below one second (`17 min 51.25 s`), so no two ticks read the same (zoomed
 * far in, eight ticks all read "17 min 51 s").
 */
export function formatTick(t: number, step: number): string {
  if (step >= 1 || t === 0) return formatDuration(t);
  const decimals = Math.min(6, Math.max(0, Math.ceil(-Math.log10(step) - 1e-9)));
  const a = Math.abs(t);
  const sign = t < 0 ? '-' : '';
  if (a < 1) return `${sign}${(a * 1000).toFixed(Math.max(0, decimals - 3))} ms`;
  // split on the rounded value: 59.9996 s at 3 decimals is '1 min 0.000 s', never '60.000 s'
  const r = Number(a.toFixed(decimals));
  if (r < 60) return `${sign}${r.toFixed(decimals)} s`;
  const min = Math.floor(r / 60);
  const sec = (r - min * 60).toFixed(decimals);
  if (min < 60) return `${sign}${min} min ${sec} s`;
  return `${sign}${Math.floor(min / 60)} h ${min % 60} min ${sec} s`;
}

/**
 * How long an event took, for its tooltip: `2.5 s` ({@link formatDuration}), or `3 steps` when the
 * trace records no clock and its time counts steps (`timeUnit` of the overview).
 */
export function formatLength(d: number, timeUnit: 'steps' | undefined): string {
  if (timeUnit !== 'steps') return formatDuration(d);
  const n = Math.round(d * 1000) / 1000;
  return `${n} ${n === 1 ? 'step' : 'steps'}`;
}

/** Draws the axis into `axis` and the gap bands into `bands`; returns the redraw function. */
export function createAxis(axis: HTMLElement, bands: HTMLElement, graph: TraceGraph): () => void {
  return () => {
    const width = axis.clientWidth;
    const ticks: HTMLElement[] = [];
    const gapBands: HTMLElement[] = [];
    if (graph.mode === 'order') {
      const per = pick(graph.scale, [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]);
      const first = Math.max(0, Math.ceil(graph.axisAt(0) / per) * per);
      for (let u = first; u <= graph.axisLength() && graph.screenX(u) < width; u += per) ticks.push(tick(graph.screenX(u), `#${u + 1}`));
    } else {
      // Ticks at the trace's own times (`t`, seconds since the trace started), as events' details give them.
      const model = graph.graph.axis;
      const steps = graph.graph.timeUnit === 'steps';
      const step = pick(graph.scale, STEPS);
      const left = axisToTime(model, Math.max(0, graph.axisAt(0)));
      const right = axisToTime(model, Math.min(model.span, graph.axisAt(width)));
      // The gaps first, their words on the axis (the time they skip is the axis's to say; at the foot
      // of the bands, over the lanes, they covered the last lane's labels in a short panel); then the
      // ticks, each where no gap's words are (a narrow panel keeps the gaps' lengths, the ticks between).
      const gapLabels: [number, number][] = [];
      const gapWords: HTMLElement[] = [];
      for (const g of model.gaps) {
        const x0 = graph.screenX(g.x);
        const x1 = graph.screenX(g.x + g.width);
        if (x1 < 0 || x0 > width) continue;
        const mark = document.createElement('div');
        mark.className = 'gap-mark';
        mark.style.left = `${x0}px`;
        mark.style.width = `${Math.max(2, x1 - x0)}px`;
        mark.title = `${formatDuration(g.t1 - g.t0)} without a new event (a tool or a model may be at work), drawn shortened`;
        ticks.push(mark);
        // centred on the gap and wider than the (shortened) gap when need be, unless another gap's
        // words are there; the hatch and its tooltip say it anyway.
        // 'gap', not 'idle': a tool call or a model may be at work through it (a bar spans it then)
        const label = `⋯ ${formatDuration(g.t1 - g.t0)} gap`;
        const mid = (x0 + x1) / 2;
        const room: [number, number] = [mid - (label.length * 6.2) / 2 - 4, mid + (label.length * 6.2) / 2 + 4];
        if (room[0] >= 0 && room[1] <= width && !gapLabels.some(([a, b]) => room[0] < b && room[1] > a)) {
          gapLabels.push(room);
          const text = document.createElement('div');
          text.className = 'gap-label';
          text.style.left = `${mid}px`;
          text.textContent = label;
          text.title = mark.title;
          gapWords.push(text);
        }
        const band = document.createElement('div');
        band.className = 'gap-band';
        band.style.left = `${x0}px`;
        band.style.width = `${Math.max(2, x1 - x0)}px`;
        band.title = mark.title;
        gapBands.push(band);
      }
      let last = -Infinity;
      let drawn = 0;
      for (let t = Math.ceil(left / step) * step; t <= right + 1e-9 && drawn < 200; t += step) {
        const x = graph.screenX(timeToAxis(model, t));
        if (x - last < 60) continue; // ticks squeezed by a compressed gap
        // a trace with no clock counts steps: its ticks are step numbers (whole ones only)
        if (steps && !Number.isInteger(Math.round(t * 1e6) / 1e6)) continue;
        const text = steps ? `step ${Math.round(t)}` : formatTick(t, step);
        const end = x + 6 + text.length * 6.5;
        if (gapLabels.some(([a, b]) => x < b && end > a)) continue;
        last = x;
        drawn++;
        ticks.push(tick(x, text));
      }
      ticks.push(...gapWords);
    }
    axis.replaceChildren(...ticks);
    bands.replaceChildren(...gapBands);
  };
}

/** The smallest step whose ticks are at least 80 px apart at `scale` px per unit. */
function pick(scale: number, steps: number[]): number {
  return steps.find((s) => s * scale >= 80) ?? steps[steps.length - 1];
}

function tick(x: number, text: string): HTMLElement {
  const el = document.createElement('div');
  el.className = 'tick';
  el.style.left = `${x}px`;
  el.textContent = text;
  return el;
}
