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
      // Ticks first, then each gap: its mark, and its words on the axis where no tick's or other gap's
      // words are, shortened when the whole do not fit (the time a gap skips is the axis's to say; at
      // the foot of its band, over the lanes, it covered the last lane's labels in a short panel).
      const taken: [number, number][] = [];
      let last = -Infinity;
      for (let t = Math.ceil(left / step) * step; t <= right + 1e-9 && taken.length < 200; t += step) {
        // no tick inside a gap's skipped time: drawn shortened, its times are no place on the axis (a
        // "15 min" there read as the gap's start); the gap's own words say how long it is
        if (model.gaps.some((g) => t > g.t0 && t < g.t1)) continue;
        const x = graph.screenX(timeToAxis(model, t));
        if (x - last < 60) continue; // ticks squeezed by a compressed gap
        // a trace with no clock counts steps: its ticks are step numbers (whole ones only)
        if (steps && !Number.isInteger(Math.round(t * 1e6) / 1e6)) continue;
        last = x;
        const text = steps ? `step ${Math.round(t)}` : formatTick(t, step);
        taken.push([x, x + 6 + text.length * 6.5]);
        ticks.push(tick(x, text));
      }
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
        ticks.unshift(mark);
        // centred on the gap (wider than the shortened gap), else ending where it ends or starting where it
        // starts, the whole words else shorter ones; where none fits, the hatch and its tooltip say it.
        // 'gap', not 'idle': a tool call or a model may be at work through it (a bar spans it then)
        const room = gapRoom(x0, x1, width, taken, [`⋯ ${formatDuration(g.t1 - g.t0)} gap`, `⋯${formatDuration(g.t1 - g.t0)}⋯`]);
        if (room) {
          taken.push([room.from, room.to]);
          const text = document.createElement('div');
          text.className = 'gap-label';
          text.style.left = `${(room.from + room.to) / 2}px`;
          text.textContent = room.label;
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
      ticks.push(...gapWords);
    }
    axis.replaceChildren(...ticks);
    bands.replaceChildren(...gapBands);
  };
}

/**
 * Where a gap's words go on the axis: the first of `labels` (whole, then shorter) that fits centred
 * on the gap from `x0` to `x1` (px), else ending at its end, else starting at its start, inside
 * `width` and clear of the `taken` spans; undefined when none fits.
 */
export function gapRoom(x0: number, x1: number, width: number, taken: readonly [number, number][], labels: readonly string[]): { label: string; from: number; to: number } | undefined {
  for (const label of labels) {
    const w = label.length * 6.2 + 8;
    const mid = (x0 + x1) / 2;
    for (const from of [mid - w / 2, x1 - w, x0]) {
      const to = from + w;
      if (from >= 0 && to <= width && !taken.some(([a, b]) => from < b && to > a)) return { label, from, to };
    }
  }
  return undefined;
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
