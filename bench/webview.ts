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
 * Preview (a PNG of the webview alone): `npx tsx bench/webview.ts FILE [--out x.png] [--size 1000x800]`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HostMessage, WebviewMessage } from '../src/protocol';
import { InProcessEngine } from '../src/session/in-process-engine';
import { makeSnapshot } from '../src/session/snapshot';
import type { LoadedTrace } from '../src/trace/model';
import { loadTrace } from '../src/trace/formats';
import { nodeFileAccess } from '../src/trace/node-files';
import '../src/trace/importers';
import { generateTrace } from './analysis';
import { fmt } from './_util';

const ROOT = path.join(__dirname, '..');

/** A page that runs the webview bundle with a fake `acquireVsCodeApi` answering `ready` with `graph`. */
function pageHtml(): string {
  const dist = pathToFileURL(path.join(ROOT, 'dist')).href;
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="${dist}/webview.css">
<style>:root{--vscode-font-family:sans-serif;--vscode-font-size:13px;--vscode-foreground:#cccccc;--vscode-editor-background:#1e1e1e;--vscode-panel-border:#444;--vscode-focusBorder:#007fd4}</style></head>
<body class="vscode-dark" data-state="loading">
<header><span id="title">Loading trace…</span><span id="summary"></span><vscode-textfield id="search"></vscode-textfield><span id="matches"></span>
<button id="mode" class="tool">x: time</button><button id="zoom-sel" class="tool">Zoom to selection</button><button id="fit" class="tool">Fit</button><button id="export-png" class="tool">PNG</button><button id="export-svg" class="tool">SVG</button><button id="lock" class="tool" hidden>Lock</button></header>
<nav id="findings" hidden></nav><div id="legend"></div>
<div id="loading"><div class="bar"></div><span>Reading and analysing the trace… <span id="elapsed"></span></span></div>
<div id="main"><div id="canvas" tabindex="0"><div id="corner"></div><div id="axis"></div><div id="lanes"></div>
<div id="stage"><div id="gaps"></div><div id="graph"></div><div id="cursor" hidden></div><div id="tooltip" hidden></div></div><div id="overview-label">whole run</div><canvas id="minimap"></canvas></div><aside id="details"></aside></div>
<footer id="timeline"><button id="first" class="tool">|◀</button><button id="prev" class="tool">◀</button><button id="play" class="tool">Play</button><button id="next" class="tool">▶</button><button id="last" class="tool">▶|</button>
<span id="counter"></span><span id="clock"></span><select id="speed"><option value="4">4/s</option></select>
<button id="prev-agent" class="tool">◀ agent</button><button id="next-agent" class="tool">agent ▶</button><button id="next-stop" class="tool">stop ▶</button><button id="next-finding" class="tool">finding ▶</button>
<label><input type="checkbox" id="follow"> follow in editor</label></footer>
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

  async answer(m: WebviewMessage): Promise<HostMessage[]> {
    const t0 = performance.now();
    try {
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
  await page.exposeFunction('__host', async (text: string) => JSON.stringify(await host.answer(JSON.parse(text) as WebviewMessage)));
  const file = path.join(ROOT, 'dist', 'bench-webview.html');
  fs.writeFileSync(file, pageHtml());
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction('window.__ready === true');
  return { browser, page };
}

/** Sends the overview and waits until its first window is laid out and painted; returns the milliseconds that took. */
async function paint(page: import('playwright-core').Page, graph: unknown): Promise<number> {
  // Plain strings: tsx would wrap functions passed to the page in its own helpers.
  await page.evaluate(`window.__graph = ${JSON.stringify(graph)}; document.body.dataset.state = 'loading'`);
  return page.evaluate(`new Promise((done) => {
    const t0 = performance.now();
    window.postMessage({ type: 'trace', graph: window.__graph }, '*');
    const wait = () => (document.body.dataset.state === 'ready' ? requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t0))) : setTimeout(wait, 1));
    wait();
  })`);
}

/** Median time of `runs` → presses until the second frame after it (so at least two frames, ~33 ms at 60 Hz). */
async function stepTime(page: import('playwright-core').Page, runs = 15): Promise<number> {
  const times = await page.evaluate<number[]>(`(async () => {
    const out = [];
    for (let i = 0; i < ${runs}; i++) {
      const t0 = performance.now();
      document.getElementById('canvas').dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      out.push(performance.now() - t0);
    }
    return out;
  })()`);
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

/** Loads a trace into the fake host's engine (as the extension does) and returns its overview. */
async function load(host: FakeHost, loaded: LoadedTrace, title: string) {
  // The engine's own load reads text; here the loaded trace is given: the same snapshot, made directly.
  const snapshot = makeSnapshot('bench', -1, title, loaded);
  (host.engine as unknown as { latest: Map<string, unknown> }).latest.set('bench', snapshot);
  return (await host.engine.graphOverview('bench', title))!;
}

export async function bench(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'webview.js'))) {
    console.log('dist/webview.js missing: run `npm run build` first');
    return;
  }
  const host = new FakeHost();
  const { browser, page } = await openPage({ width: 1440, height: 900 }, host);
  try {
    console.log('headless Chromium (npm @sparticuz/chromium, flags of scripts/vscode/browser.mjs BROWSER_ARGS), 1440x900, software rendering');
    console.log('| events | overview (host) ms | overview KB | first paint ms | of it: windows (host) ms | elements drawn | step ms | last event ms |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    // OTRACE_BENCH_EVENTS=1000,10000 runs only those sizes.
    const sizes = process.env.OTRACE_BENCH_EVENTS?.split(',').map(Number) ?? [1_000, 10_000, 100_000];
    for (const n of sizes) {
      const loaded = generateTrace(n);
      const t0 = performance.now();
      const overview = await load(host, loaded, `synthetic-${n}`);
      const model = performance.now() - t0;
      const size = JSON.stringify(overview).length / 1024;
      host.windowMs = 0;
      // OTRACE_BENCH_PROFILE=DIR: a CPU profile (Chrome DevTools format) of the first paint and the steps per size.
      const profile = process.env.OTRACE_BENCH_PROFILE;
      const cdp = profile ? await page.context().newCDPSession(page) : undefined;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
        await cdp.send('Profiler.start');
      }
      const first = await paint(page, overview);
      if (process.env.OTRACE_BENCH_DEBUG) console.log('painted', first);
      const windowMs = host.windowMs;
      const drawn = await page.evaluate<number>('globalThis.__otrace.cy.elements().length');
      const step = await stepTime(page);
      if (cdp && profile) {
        const { profile: data } = await cdp.send('Profiler.stop');
        fs.mkdirSync(profile, { recursive: true });
        fs.writeFileSync(path.join(profile, `webview-${n}.cpuprofile`), JSON.stringify(data));
      }
      if (process.env.OTRACE_BENCH_DEBUG) console.log('stepped', step, await page.evaluate('JSON.stringify(globalThis.__otrace.windows())'));
      if (process.env.OTRACE_BENCH_DEBUG) {
        await page.evaluate(`document.getElementById('canvas').dispatchEvent(new KeyboardEvent('keydown', { key: 'End', bubbles: true }))`);
        await new Promise((r) => setTimeout(r, 2000));
        console.log(await page.evaluate(`(() => { const o = globalThis.__otrace; const t = o.timeline(); const last = t[t.length - 1]; return JSON.stringify({ last, drawn: o.view.drawnIndex(last), current: o.current(), sel: o.cy.$('node:selected').map((n) => n.id()), win: o.windows(), key: o.view.keyOf(last), span: o.view.spanOf(last), len: o.view.axisLength() }); })()`));
      }
      const last = await lastEvent(page);
      console.log(`| ${fmt(n, 0)} | ${fmt(model, 0)} | ${fmt(size, 0)} | ${fmt(first, 0)} | ${fmt(windowMs, 0)} | ${fmt(drawn, 0)} | ${fmt(step, 1)} | ${fmt(last, 0)} |`);
    }
  } finally {
    await browser.close();
  }
}

/** End (to the last event, far outside the first window): milliseconds until its node is drawn and selected. */
async function lastEvent(page: import('playwright-core').Page): Promise<number> {
  return page.evaluate<number>(`new Promise((done) => {
    const o = globalThis.__otrace;
    const last = o.timeline()[o.timeline().length - 1];
    const t0 = performance.now();
    document.getElementById('canvas').dispatchEvent(new KeyboardEvent('keydown', { key: 'End', bubbles: true }));
    const wait = () => (o.cy.$('node:selected').data('index') === o.view.drawnIndex(last) ? requestAnimationFrame(() => done(performance.now() - t0)) : setTimeout(wait, 1));
    wait();
  })`);
}

/** Preview: a PNG of the webview alone with a trace file's graph. */
async function preview(file: string, out: string, size: { width: number; height: number }): Promise<void> {
  const host = new FakeHost();
  const overview = await load(host, loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess), path.basename(file));
  const { browser, page } = await openPage(size, host);
  try {
    const ms = await paint(page, overview);
    await page.screenshot({ path: out });
    console.log(`${out}: ${overview.totalEvents} events, first window painted in ${fmt(ms, 0)} ms`);
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
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  void preview(args[0], out, { width: w, height: h }).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
