/**
 * Moments of the webview's first graph, for `npm start`'s report (src/host/start-report.ts): wall-clock
 * ms since the epoch (`performance.timeOrigin` + `performance.now()`), comparable with the
 * extension host's clock on the same machine. Imported first by main.ts, so "script" is when the
 * bundle began to run.
 */
const recorded: Record<string, number> = {};

/** Records `name` now (the first time only). */
export function moment(name: string): void {
  if (!(name in recorded)) recorded[name] = performance.timeOrigin + performance.now();
}

/** The recorded moments with the page's own: navigation start and when its script and style arrived. */
export function moments(): Record<string, number> {
  const out: Record<string, number> = { 'webview page started': performance.timeOrigin };
  for (const r of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
    const file = /[^/?#]+(?=$|[?#])/.exec(r.name)?.[0];
    if (file === 'webview.js' || file === 'webview.css') out[`${file} loaded`] = performance.timeOrigin + r.responseEnd;
  }
  return { ...out, ...recorded };
}

moment('webview script running');
