/**
 * The graph webview in headless Chromium, outside VS Code: the built dist/webview.js and .css in a
 * page with a stand-in for the VS Code webview API, fed the GraphModel the host would send.
 *
 * `npm run bench -- webview`: first paint (trace message -> graph laid out and painted) and step
 * time (→ to the next event, until painted) for synthetic traces of 1k, 10k and 100k events
 * (100k drawn at the `otrace.graph.maxEvents` default of 5,000; the windowed protocol that draws
 * all of them is the large-traces issue's).
 * Browser: the npm Chromium of the integration tests (scripts/vscode/browser.mjs) with its flags
 * (BROWSER_ARGS: --headless --no-sandbox --disable-gpu ...), window 1440x900.
 *
 * Preview (a PNG of the webview alone): `npx tsx bench/webview.ts FILE [--out x.png] [--size 1000x800]`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { analyzeTrace } from '../src/analysis';
import { buildGraph } from '../src/panel/graph-model';
import type { GraphModel } from '../src/protocol';
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
  postMessage(m) { window.__sent.push(m); if (m.type === 'ready') window.__ready = true; },
  getState() { return undefined; }, setState() {},
});
</script>
<script src="${dist}/webview.js"></script></body></html>`;
}

async function openPage(size: { width: number; height: number }) {
  const { chromium } = await import('playwright-core');
  const browserMod = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'vscode', 'browser.mjs')).href)) as {
    BROWSER_ARGS: string[];
    resolveBrowser(): Promise<{ executablePath: string; env: Record<string, string> }>;
  };
  const { executablePath, env } = await browserMod.resolveBrowser();
  const browser = await chromium.launch({ executablePath, args: browserMod.BROWSER_ARGS, env: { ...process.env, ...env } as Record<string, string> });
  const page = await browser.newPage({ viewport: size });
  const file = path.join(ROOT, 'dist', 'bench-webview.html');
  fs.writeFileSync(file, pageHtml());
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction('window.__ready === true');
  return { browser, page };
}

/** Sends the graph and waits until it is laid out and painted; returns the milliseconds that took. */
async function paint(page: import('playwright-core').Page, graph: GraphModel): Promise<number> {
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
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      out.push(performance.now() - t0);
    }
    return out;
  })()`);
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

export async function bench(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'webview.js'))) {
    console.log('dist/webview.js missing: run `npm run build` first');
    return;
  }
  const { browser, page } = await openPage({ width: 1440, height: 900 });
  try {
    console.log('headless Chromium (npm @sparticuz/chromium, flags of scripts/vscode/browser.mjs BROWSER_ARGS), 1440x900, software rendering');
    console.log('| events | drawn | graph model (host) ms | first paint ms | step ms |');
    console.log('|---:|---:|---:|---:|---:|');
    for (const [n, drawn] of [
      [1_000, 1_000],
      [10_000, 10_000],
      [100_000, 5_000],
    ] as const) {
      const loaded = generateTrace(n);
      const analysis = analyzeTrace(loaded);
      const t0 = performance.now();
      const graph = buildGraph(loaded, `synthetic-${n}`, drawn, analysis);
      const model = performance.now() - t0;
      const first = await paint(page, graph);
      const step = await stepTime(page);
      console.log(`| ${fmt(n, 0)} | ${fmt(graph.nodes.length, 0)} | ${fmt(model, 0)} | ${fmt(first, 0)} | ${fmt(step, 1)} |`);
    }
  } finally {
    await browser.close();
  }
}

/** Preview: a PNG of the webview alone with a trace file's graph. */
async function preview(file: string, out: string, size: { width: number; height: number }): Promise<void> {
  const loaded = loadTrace(fs.readFileSync(file, 'utf8'), file, nodeFileAccess);
  const graph = buildGraph(loaded, path.basename(file), 5000, analyzeTrace(loaded));
  const { browser, page } = await openPage(size);
  try {
    const ms = await paint(page, graph);
    await page.screenshot({ path: out });
    console.log(`${out}: ${graph.nodes.length} events painted in ${fmt(ms, 0)} ms`);
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
