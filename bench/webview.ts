/**
 * The graph webview in headless Chromium, outside VS Code: the built dist/webview.js and .css in a
 * page with a stand-in for the VS Code webview API whose host side is the real engine
 * (InProcessEngine: overview, windows, event details, find), called through Playwright, as the
 * extension's GraphView routes them.
 *
 * `npm run bench -- webview`: first paint (trace message -> first window laid out and painted)
 * and step time (→ to the next event, until painted, windows fetched as needed) for synthetic
 * traces of 1k, 10k and 100k events, every event navigable.
 * Browser: the npm Chromium of the integration tests (scripts/vscode/browser.mjs) with its flags
 * (BROWSER_ARGS: --headless --no-sandbox --disable-gpu ...), window 1440x900.
 *
 * Preview (a PNG of the webview alone): `npx tsx bench/webview.ts FILE [--out x.png] [--size 1000x800]
 * [--select N]` (N: the event at that position in time order made current).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { GraphWindow, HostMessage, WebviewMessage } from '../src/shared/protocol';
import { InProcessEngine } from '../src/engine/in-process-engine';
import { makeSnapshot } from '../src/engine/snapshot';
import type { LoadedTrace } from '../src/trace/model';
import { loadTrace } from '../src/trace/formats';
import { nodeFileAccess } from '../src/trace/node-files';
import '../src/trace/importers';
import { generateTrace } from './analysis';
import { fmt } from './_util';
import { GRAPH_BODY } from '../src/host/panel/graph-body';

const ROOT = path.join(__dirname, '..');

/** A page that runs the webview bundle with a fake `acquireVsCodeApi` answering `ready` with `graph`. */
function pageHtml(): string {
  const dist = pathToFileURL(path.join(ROOT, 'dist')).href;
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="${dist}/webview.css">
<style>:root{--vscode-font-family:sans-serif;--vscode-font-size:13px;--vscode-foreground:#cccccc;--vscode-editor-background:#1e1e1e;--vscode-panel-border:#444;--vscode-focusBorder:#007fd4}</style></head>
<body class="vscode-dark" data-state="loading">
${GRAPH_BODY}
<script>
window.__sent = [];
window.acquireVsCodeApi = () => ({
  postMessage(m) {
    window.__sent.push(m);
    if (m.type === 'ready') window.__ready = true;
    else if (window.__host) window.__host(JSON.stringify(m)).then((replies) => { for (const r of JSON.parse(replies)) window.postMessage(r, '*'); });
  },
  getState() { return undefined; }, setState() {},
});
</script>
<script src="${dist}/webview.js"></script></body></html>`;
}

/** The host side: the engine answering the webview's requests for the trace loaded last (key `bench`). */
class FakeHost {
  readonly engine = new InProcessEngine();
  /** Milliseconds the engine spent answering windows. */
  windowMs = 0;
  /** The graph area's width the webview told last (`painted`), as the extension keeps it (src/host/panel/graph-size.ts; 600 before any). */
  width = 600;

  async answer(m: WebviewMessage): Promise<HostMessage[]> {
    const t0 = performance.now();
    try {
      if (m.type === 'painted' && m.size) this.width = m.size.width;
      if (m.type === 'window') {
        const window = await this.engine.graphWindow('bench', m.request);
        return window ? [{ type: 'window', window }] : [];
      }
      if (m.type === 'event') {
        const node = await this.engine.graphEvent('bench', m.stamp, m.index);
        return node ? [{ type: 'event', stamp: m.stamp, node }] : [];
      }
      if (m.type === 'find') {
        const indices = await this.engine.findEvents('bench', m.stamp, m.query);
        return indices ? [{ type: 'found', stamp: m.stamp, query: m.query, indices }] : [];
      }
      return [];
    } finally {
      if (m.type === 'window') this.windowMs += performance.now() - t0;
    }
  }
}

async function openPage(size: { width: number; height: number }, host: FakeHost) {
  const { chromium } = await import('playwright-core');
  const browserMod = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'vscode', 'browser.mjs')).href)) as {
    BROWSER_ARGS: string[];
    resolveBrowser(): Promise<{ executablePath: string; env: Record<string, string> }>;
  };
  const { executablePath, env } = await browserMod.resolveBrowser();
  const browser = await chromium.launch({ executablePath, args: browserMod.BROWSER_ARGS, env: { ...process.env, ...env } as Record<string, string> });
  const page = await browser.newPage({ viewport: size });
  if (process.env.OTRACE_BENCH_DEBUG) page.on('console', (m) => console.log('page:', m.text()));
  if (process.env.OTRACE_BENCH_CSS) await page.addInitScript(`document.addEventListener('DOMContentLoaded', () => { const s = document.createElement('style'); s.textContent = ${JSON.stringify(process.env.OTRACE_BENCH_CSS)}; document.head.append(s); })`);
  await page.exposeFunction('__host', async (text: string) => JSON.stringify(await host.answer(JSON.parse(text) as WebviewMessage)));
  const file = path.join(ROOT, 'dist', 'bench-webview.html');
  fs.writeFileSync(file, pageHtml());
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction('window.__ready === true');
  return { browser, page };
}

let lastSent: unknown;

/** Puts a trace's message parts in the page (once per trace, outside any timing or profile). */
async function stage(page: import('playwright-core').Page, sent: Sent): Promise<void> {
  // Plain strings: tsx would wrap functions passed to the page in its own helpers. The bytes are made once per trace
  // (the columns' bytes cross into the page as base64, decoded there before the clock starts).
  if (sent !== lastSent) await page.evaluate(`window.__json = new TextEncoder().encode(${JSON.stringify(sent.json)}); window.__columns = Uint8Array.from(atob(${JSON.stringify(sent.columns)}), (c) => c.charCodeAt(0)); window.__first = ${JSON.stringify(sent.first ?? null)}`);
  lastSent = sent;
}

/**
 * Sends the overview as the extension does (its JSON bytes and packed columns, with the first window at Fit for the
 * graph width told last) and waits until the first window is laid out and painted; returns the
 * milliseconds from the message to the second frame after the graph is ready.
 */
async function paint(page: import('playwright-core').Page, sent: Sent): Promise<number> {
  await stage(page, sent);
  await page.evaluate(`document.body.dataset.state = 'loading'`);
  return page.evaluate(`new Promise((done) => {
    const t0 = performance.now();
    window.postMessage({ type: 'traceJson', json: window.__json, columns: window.__columns, first: window.__first ?? undefined }, '*');
    const wait = () => (document.body.dataset.state === 'ready' ? requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0))) : setTimeout(wait, 1));
    wait();
  })`);
}

/**
 * `runs` presses of → (to the next event in time) from the middle event, one after the other. `step`: the median
 * milliseconds from the key to the end of the next frame (its rendering done: a task posted from a
 * frame callback runs after the frame; the input-to-next-paint of INP), `handler` the part spent in
 * the key's handler. `settled`: for the steps
 * that asked the host for a window (the event was inside a run bar), the median milliseconds from
 * the key until that window is applied and painted; `asked`: how many steps asked.
 */
async function stepTime(page: import('playwright-core').Page, runs = 15): Promise<{ step: number; handler: number; settled: number; asked: number }> {
  const r = await page.evaluate<{ step: number[]; handler: number[]; settled: number[] }>(`(async () => {
    const o = globalThis.__otrace;
    const raf = [];
    const frame = () => new Promise((done) => requestAnimationFrame(() => { raf.push(performance.now()); const c = new MessageChannel(); c.port1.onmessage = done; c.port2.postMessage(0); }));
    // From the middle of the run (its start is the spawns, drawn on their own at every level of detail), as the editor's selection would put it.
    window.postMessage({ type: 'select', index: o.timeline()[o.timeline().length >> 1] }, '*');
    await frame();
    while (o.windows().loading) await new Promise((done) => setTimeout(done, 1));
    await frame();
    const step = [];
    const handler = [];
    const settled = [];
    for (let i = 0; i < ${runs}; i++) {
      const asked = o.windows().asked;
      const t0 = performance.now();
      document.getElementById('canvas').dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      handler.push(performance.now() - t0);
      await frame();
      step.push(performance.now() - t0);
      if (${!!process.env.OTRACE_BENCH_DEBUG}) console.log('step', Math.round(raf[raf.length - 1] - t0), Math.round(performance.now() - t0));
      while (o.windows().loading) await new Promise((done) => setTimeout(done, 1));
      if (o.windows().asked > asked) {
        await frame();
        settled.push(performance.now() - t0);
      }
    }
    return { step, handler, settled };
  })()`);
  const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[xs.length >> 1] : NaN);
  return { step: median(r.step), handler: median(r.handler), settled: median(r.settled), asked: r.settled.length };
}

/** What the extension posts for a trace: the overview's JSON (as text), its packed columns (base64), their size in bytes, the first window. */
interface Sent {
  json: string;
  columns: string;
  bytes: number;
  first?: GraphWindow;
}

/** Loads a trace into the fake host's engine and returns what the extension posts (see {@link Sent}). */
async function load(host: FakeHost, loaded: LoadedTrace, title: string): Promise<Sent> {
  // The engine's own load reads text; here the loaded trace is given: the same snapshot, made directly
  // and put where the engine's session store keeps a session's latest snapshot.
  const snapshot = makeSnapshot('bench', -1, title, loaded);
  (host.engine as unknown as { store: { sessions: Map<string, unknown> } }).store.sessions.set('bench', { snapshot, fromDisk: false });
  const sent = (await host.engine.graphOverviewBytes('bench', title, host.width))!;
  return { json: new TextDecoder().decode(sent.json), columns: Buffer.from(sent.columns).toString('base64'), bytes: sent.json.length + sent.columns.length, first: sent.first };
}

export async function bench(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'webview.js'))) {
    console.log('dist/webview.js missing: run `npm run build` first');
    return;
  }
  const host = new FakeHost();
  const { browser, page } = await openPage({ width: 1440, height: 900 }, host);
  const loadAverage = os.loadavg();
  const rows: Record<string, number>[] = [];
  try {
    console.log('headless Chromium (npm @sparticuz/chromium, flags of scripts/vscode/browser.mjs BROWSER_ARGS), 1440x900, software rendering');
    console.log('| events | overview (host) ms | overview KB | first paint ms (median of 3) | windows asked (host ms) | elements drawn | step ms (of it: key handler) | steps asking a window: n, ms until drawn | last event ms |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    // OTRACE_BENCH_EVENTS=1000,10000 runs only those sizes.
    const sizes = process.env.OTRACE_BENCH_EVENTS?.split(',').map(Number) ?? [1_000, 10_000, 100_000];
    // A first trace, unmeasured, tells the graph area's width (as the extension keeps it from the last panel).
    await paint(page, await load(host, generateTrace(200), 'warm-up'));
    for (const n of sizes) {
      const loaded = generateTrace(n);
      const t0 = performance.now();
      const overview = await load(host, loaded, `synthetic-${n}`);
      const model = performance.now() - t0;
      const size = overview.bytes / 1024;
      host.windowMs = 0;
      // OTRACE_BENCH_PROFILE=DIR: CPU profiles (Chrome DevTools format) of the first paint and of the steps, per size.
      const profile = process.env.OTRACE_BENCH_PROFILE;
      const cdp = profile ? await page.context().newCDPSession(page) : undefined;
      const profiled = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
        if (!cdp || !profile) return run();
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
        await cdp.send('Profiler.start');
        const result = await run();
        const { profile: data } = await cdp.send('Profiler.stop');
        fs.mkdirSync(profile, { recursive: true });
        fs.writeFileSync(path.join(profile, `webview-${n}-${name}.cpuprofile`), JSON.stringify(data));
        return result;
      };
      // The median of a few first paints (OTRACE_BENCH_PAINTS, default 3): one paint on a shared machine is noise.
      await stage(page, overview);
      const paints = [await profiled('paint', () => paint(page, overview))];
      for (let r = 1; r < Number(process.env.OTRACE_BENCH_PAINTS ?? 3); r++) paints.push(await paint(page, overview));
      const first = paints.sort((a, b) => a - b)[paints.length >> 1];
      if (process.env.OTRACE_BENCH_DEBUG) console.log('painted', first);
      const windowMs = host.windowMs;
      const asked = await page.evaluate<number>('globalThis.__otrace.windows().asked');
      const drawn = await page.evaluate<number>('globalThis.__otrace.cy.elements().length');
      if (process.env.OTRACE_BENCH_DEBUG) await page.evaluate(`(() => { const r = globalThis.__otrace.cy.renderer(); const render = r.render; window.__renders = []; r.render = function (...a) { const t = performance.now(); const x = render.apply(this, a); window.__renders.push(Math.round((performance.now() - t) * 10) / 10); return x; }; const notify = r.notify; r.notify = function (name, eles) { window.__renders.push(name + ':' + (eles ? eles.length : '')); return notify.apply(this, arguments); }; })()`);
      const step = await profiled('steps', () => stepTime(page));
      if (process.env.OTRACE_BENCH_DEBUG) console.log('renders (ms)', await page.evaluate('JSON.stringify(window.__renders)'));
      if (process.env.OTRACE_BENCH_DEBUG) console.log('stepped', step, await page.evaluate('JSON.stringify(globalThis.__otrace.windows())'));
      if (process.env.OTRACE_BENCH_DEBUG) {
        await page.evaluate(`document.getElementById('canvas').dispatchEvent(new KeyboardEvent('keydown', { key: 'End', bubbles: true }))`);
        await new Promise((r) => setTimeout(r, 2000));
        console.log(await page.evaluate(`(() => { const o = globalThis.__otrace; const t = o.timeline(); const last = t[t.length - 1]; return JSON.stringify({ last, drawn: o.view.drawnIndex(last), current: o.current(), sel: o.selected(), win: o.windows(), key: o.view.keyOf(last), span: o.view.spanOf(last), len: o.view.axisLength() }); })()`));
      }
      const last = await lastEvent(page);
      rows.push({ events: n, overview_host_ms: Math.round(model), overview_kb: Math.round(size), first_paint_ms: Math.round(first), elements: drawn, step_ms: Math.round(step.step * 10) / 10, step_handler_ms: Math.round(step.handler * 10) / 10, steps_asking_window: step.asked, step_window_drawn_ms: Math.round(step.settled), last_event_ms: Math.round(last) });
      console.log(`| ${fmt(n, 0)} | ${fmt(model, 0)} | ${fmt(size, 0)} | ${fmt(first, 0)} | ${asked} (${fmt(windowMs, 0)}) | ${fmt(drawn, 0)} | ${fmt(step.step, 1)} (${fmt(step.handler, 1)}) | ${step.asked}, ${fmt(step.settled, 0)} | ${fmt(last, 0)} |`);
    }
  } finally {
    await browser.close();
  }
  // Figures go to bench/results.json only from a quiet machine (timings of a shared, loaded one mislead).
  console.log(`(load average at the start ${loadAverage.map((l) => l.toFixed(1)).join(' ')}; ${os.cpus().length} cores; targets at 100k: first paint < 1,500 ms, step < 16 ms)`);
  if (loadAverage[0] >= 2.5 && !process.env.OTRACE_BENCH_WRITE) {
    console.log('bench/results.json not written: load average 2.5 or more (OTRACE_BENCH_WRITE=1 writes anyway)');
    return;
  }
  const out = path.join(ROOT, 'bench', 'results.json');
  const previous = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>) : {};
  previous.webview = { date: new Date().toISOString(), browser: 'headless Chromium (npm @sparticuz/chromium), software rendering, 1440x900', load: loadAverage, rows };
  fs.writeFileSync(out, `${JSON.stringify(previous, null, 2)}\n`);
}

/** End (to the last event, far outside the first window): milliseconds until its node is drawn and marked current. */
async function lastEvent(page: import('playwright-core').Page): Promise<number> {
  return page.evaluate<number>(`new Promise((done) => {
    const o = globalThis.__otrace;
    const last = o.timeline()[o.timeline().length - 1];
    const t0 = performance.now();
    document.getElementById('canvas').dispatchEvent(new KeyboardEvent('keydown', { key: 'End', bubbles: true }));
    const wait = () => (o.selected() === o.view.drawnIndex(last) ? requestAnimationFrame(() => done(performance.now() - t0)) : setTimeout(wait, 1));
    wait();
  })`);
}

/** Preview: a PNG of the webview alone with a trace file's graph. */
async function preview(file: string, out: string, size: { width: number; height: number }, select?: number): Promise<void> {
  const host = new FakeHost();
  host.width = size.width; // as if this panel size had been seen before
  const loaded = loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess);
  const { browser, page } = await openPage(size, host);
  try {
    // The graph area is narrower than the page (lane column, details): its width is told on the first paint.
    await paint(page, await load(host, loaded, path.basename(file)));
    const ms = await paint(page, await load(host, loaded, path.basename(file)));
    if (select !== undefined) {
      // The event at this position in time order made current, as the editor's selection would.
      await page.evaluate(`window.postMessage({ type: 'select', index: globalThis.__otrace.timeline()[${select}] }, '*')`);
      await page.waitForFunction('!globalThis.__otrace.windows().loading');
      await new Promise((r) => setTimeout(r, 300));
    }
    // The minimap's ticks are drawn when the page is idle (webview/minimap.ts), then a frame.
    await page.evaluate('new Promise((done) => requestIdleCallback(() => requestAnimationFrame(() => requestAnimationFrame(done)), { timeout: 1000 }))');
    await page.screenshot({ path: out });
    const drawn = await page.evaluate<number>('globalThis.__otrace.cy.elements().length');
    console.log(`${out}: ${loaded.trace.events.length} events, ${drawn} elements drawn, first window painted in ${fmt(ms, 0)} ms`);
  } finally {
    await browser.close();
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args.splice(i, 2)[1] : undefined;
  };
  const out = opt('--out') ?? 'test-output/preview.png';
  const [w, h] = (opt('--size') ?? '1000x800').split('x').map(Number);
  const select = opt('--select');
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  void preview(args[0], out, { width: w, height: h }, select === undefined ? undefined : Number(select)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
