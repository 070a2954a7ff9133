#!/usr/bin/env node
// Runs the integration tests (mocha, inside the VS Code extension host) in a real VS Code 1.139.1
// (code-server) shown by a headless Chromium from the npm registry through playwright-core.
//
//   node esbuild.mjs && node scripts/vscode/run-integration.mjs [options]
//
// Options:
//   --folder <dir>      workspace folder to open   (default: test/fixtures, else the project root)
//   --extension <dir>   extensionDevelopmentPath   (default: the project root)
//   --tests <file>      extensionTestsPath          (default: dist/test/integration/index.js)
//   --timeout <ms>      overall timeout             (default 2700000: 45 min, a busy machine takes 4x the 5 to 6 min of a quiet one; env OTRACE_TEST_TIMEOUT_MS)
//   --grep <regexp>     run only matching tests     (env OTRACE_TEST_GREP)
//   --untrusted         open the folder in Restricted Mode (workspace trust on, the folder not trusted)
// Env:
//   OTRACE_TEST_VERBOSE=1  also print code-server, workbench and browser console output
//   OTRACE_CHROMIUM        browser binary (default: @sparticuz/chromium, see browser.mjs)
//
// It builds nothing: `node esbuild.mjs` must have produced the tests bundle. It installs the test
// VS Code and the browser into .vscode-test/ on first use (install.mjs, browser.mjs).
//
// The bridge: an HTTP server on 127.0.0.1 whose URL reaches the extension host as
// OTRACE_TEST_BRIDGE. Endpoints (POST, JSON body, answer {ok, value} or {ok:false, error, retry}):
//   /eval-webview  {js, selector?, page?}     evaluate js in the first webview content frame containing selector
//   /click-webview {click, selector?, position?, page?}  click `click` in that frame (at position {x, y}
//                  relative to the element's top left corner, default its centre)
//   /keyboard      {press?: string[], type?: string}  real key presses in the page (playwright's
//                  page.keyboard): they go wherever the focus is, as a user's keys would
//   /eval-page     {js, page?}                evaluate js in the workbench page
//   /screenshot    {path, page?}              PNG of the whole page; relative paths from the project root
//   /open-page     {url}               open url in a page of its own (another VS Code, e.g. npm start's); answers its page id
//   /close-page    {page}              close such a page
//   (page: a page id from /open-page; default the tests' own workbench)
//   /log           {text}              print test output
//   /result        {passed, failed, pending, final}  the mocha counts, printed as the last line
//                  (final:false while running: on a timeout those are printed, plus one failure)
// test/integration/bridge.ts is the client.
//
// Output: test output, then as the last line `N passed, N failed`. Exit code 0 only when
// the tests ran, none failed and VS Code reported exit code 0.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SourceMap } from 'node:module';
import { ensureInstalled, ROOT, TEST_DIR } from './install.mjs';
import { BROWSER_ARGS, resolveBrowser } from './browser.mjs';
import { childPids, killGroup, reexecUnderSubreaper, startServer } from './server.mjs';

// Everything below runs under a child subreaper, so that no process it starts is left a zombie.
await reexecUnderSubreaper();

const verbose = process.env.OTRACE_TEST_VERBOSE === '1';

function parseArgs(argv) {
  const o = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unknown argument: ${a}`);
    if (m[1] === 'untrusted') {
      o.untrusted = 'yes'; // a flag: takes no value
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new Error(`missing value for ${a}`);
    o[m[1]] = value;
  }
  return o;
}

const args = parseArgs(process.argv.slice(2));
const known = new Set(['folder', 'extension', 'tests', 'timeout', 'grep', 'untrusted']);
const untrusted = args.untrusted === 'yes';
for (const k of Object.keys(args)) if (!known.has(k)) throw new Error(`unknown option --${k}`);

const defaultFolder = fs.existsSync(path.join(ROOT, 'test', 'fixtures')) ? path.join(ROOT, 'test', 'fixtures') : ROOT;
const folder = path.resolve(args.folder ?? defaultFolder);
const extensionPath = path.resolve(args.extension ?? ROOT);
const testsPath = path.resolve(args.tests ?? path.join(ROOT, 'dist', 'test', 'integration', 'index.js'));
const timeoutMs = Number(args.timeout ?? process.env.OTRACE_TEST_TIMEOUT_MS ?? 2_700_000);
const grep = args.grep ?? process.env.OTRACE_TEST_GREP;

const say = (line) => process.stdout.write(`${line}\n`);
const info = (line) => say(`[integration] ${line}`);

// ---- state shared with cleanup ------------------------------------------------------------
let server; // startServer() result
let browser; // playwright Browser
let browserPgid; // the browser's process group (Playwright starts it detached)
let bridge; // http.Server
let page; // playwright Page
const extraPages = new Map(); // id -> {context, page} opened through /open-page
let nextPageId = 1;
let result; // {passed, failed, pending} from the mocha runner at its end
let partialResult; // the counts so far while the tests run
let runDir; // per-run user data, scratch and logs
let logStream; // full log of the run
let cleaning;

function logLine(kind, text) {
  logStream?.write(`[${kind}] ${text}\n`);
  if (verbose) for (const line of String(text).split('\n')) if (line.trim()) say(`[${kind}] ${line}`);
}

async function cleanup() {
  cleaning ??= (async () => {
    // The browser and code-server's process group at once.
    await Promise.all([
      (async () => {
        await Promise.race([browser?.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
        if (browserPgid) await killGroup(browserPgid, 3000);
      })(),
      server?.stop().catch(() => undefined),
    ]);
    await new Promise((r) => (bridge ? bridge.close(() => r()) : r()));
    bridge?.closeAllConnections?.();
    logStream?.end();
  })();
  return cleaning;
}

function finish(code, note) {
  if (note) say(note);
  // Without the final result from mocha (timeout, crash) the run counts as one more failure.
  const r = result ?? partialResult ?? { passed: 0, failed: 0 };
  const failed = result ? r.failed : r.failed + 1;
  say(`${r.passed} passed, ${failed} failed`);
  process.exit(code);
}

async function abort(code, note) {
  await cleanup();
  finish(code, note);
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => void abort(sig === 'SIGINT' ? 130 : 143, `[integration] stopped by ${sig}`));
}
process.on('uncaughtException', (e) => void abort(1, `[integration] ERROR: ${e.stack ?? e.message}`));
process.on('unhandledRejection', (e) => void abort(1, `[integration] ERROR: ${e?.stack ?? e}`));

// ---- the bridge ---------------------------------------------------------------------------

/** The page of a bridge request: an id from /open-page, else the tests' workbench. */
function pageOf(id) {
  if (id === undefined || id === null || id === 0) {
    if (!page) throw new NotYet('page not open');
    return page;
  }
  const extra = extraPages.get(Number(id));
  if (!extra) throw new Error(`no page ${id}`);
  return extra.page;
}

/** Frames of webview contents: VS Code puts each webview's document in an iframe named active-frame. */
function webviewFrames(pg = page) {
  if (!pg) return [];
  const frames = pg.frames().filter((f) => f !== pg.mainFrame());
  const content = frames.filter((f) => f.name() === 'active-frame');
  return content.length > 0 ? content : frames;
}

/** The first webview content frame that contains `selector` (any when no selector). */
async function findWebviewFrame(selector, pg = page) {
  for (const f of webviewFrames(pg)) {
    if (f.isDetached()) continue;
    if (f.name() !== 'active-frame' && !selector) continue;
    try {
      const has = await f.evaluate((sel) => (sel ? !!document.querySelector(sel) : document.readyState !== 'loading' && !!document.body), selector ?? null);
      if (has) return f;
    } catch {
      /* frame navigated or detached meanwhile */
    }
  }
  return undefined;
}

class NotYet extends Error {}

/** Stack frames in the tests bundle, rewritten to their TypeScript sources through its source map. */
let sourceMap;
function mapStack(text) {
  if (sourceMap === undefined) {
    try {
      sourceMap = new SourceMap(JSON.parse(fs.readFileSync(`${testsPath}.map`, 'utf8')));
    } catch {
      sourceMap = null;
    }
  }
  if (!sourceMap || !text.includes(testsPath)) return text;
  const re = new RegExp(`${testsPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+):(\\d+)`, 'g');
  return text.replace(re, (whole, line, col) => {
    const e = sourceMap.findEntry(Number(line) - 1, Number(col) - 1);
    if (!e?.originalSource) return whole;
    const src = e.originalSource.startsWith('file://') ? fileURLToPath(e.originalSource) : path.resolve(path.dirname(testsPath), e.originalSource);
    return `${path.relative(ROOT, src)}:${e.originalLine + 1}:${e.originalColumn + 1}`;
  });
}

/**
 * The source evaluated for a `js` of the bridge: an expression, or a function source that is
 * then called; a Promise is awaited.
 */
function evalSource(js) {
  if (typeof js !== 'string') throw new Error('js must be a string');
  const body = js.trim().replace(/;+$/, '');
  return `(async () => { const v = (${body}\n); return typeof v === 'function' ? await v() : await v; })()`;
}

const handlers = {
  async '/eval-webview'({ js, selector, page: id }) {
    const source = evalSource(js);
    const frame = await findWebviewFrame(selector, pageOf(id));
    if (!frame) throw new NotYet(`no webview frame${selector ? ` containing ${selector}` : ''}`);
    return frame.evaluate(source);
  },
  async '/click-webview'({ click, selector, position, page: id }) {
    const frame = await findWebviewFrame(selector ?? click, pageOf(id));
    if (!frame) throw new NotYet(`no webview frame containing ${selector ?? click}`);
    const at = position && Number.isFinite(position.x) && Number.isFinite(position.y) ? { position: { x: position.x, y: position.y } } : {};
    await frame.locator(click).first().click({ timeout: 10_000, ...at });
    return null;
  },
  async '/keyboard'({ press, type }) {
    if (!page) throw new NotYet('page not open');
    for (const key of Array.isArray(press) ? press : []) await page.keyboard.press(String(key));
    if (typeof type === 'string' && type) await page.keyboard.type(type);
    return null;
  },
  async '/eval-page'({ js, page: id }) {
    const source = evalSource(js);
    return pageOf(id).evaluate(source);
  },
  async '/screenshot'({ path: file, page: id }) {
    if (typeof file !== 'string' || !file) throw new Error('path must be a string');
    const pg = pageOf(id);
    const abs = path.resolve(ROOT, file);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    await pg.screenshot({ path: abs, fullPage: true });
    return abs;
  },
  async '/open-page'({ url }) {
    if (typeof url !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) throw new Error('url must be an http://127.0.0.1:PORT/ address');
    // A context of its own: its own storage, and the tests' page stays as it is.
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const pg = await context.newPage();
    const id = nextPageId++;
    extraPages.set(id, { context, page: pg });
    pg.on('console', (m) => logLine(`browser ${id}`, `${m.type()}: ${m.text()}`));
    await pg.goto(url, { waitUntil: 'domcontentloaded' });
    return id;
  },
  async '/close-page'({ page: id }) {
    const extra = extraPages.get(Number(id));
    extraPages.delete(Number(id));
    await extra?.context.close();
    return null;
  },
  async '/log'({ text }) {
    let t = mapStack(String(text));
    if (!t.endsWith('\n')) t += '\n';
    process.stdout.write(t);
    logStream?.write(t);
    return null;
  },
  async '/result'({ passed, failed, pending, final }) {
    const r = { passed: Number(passed) || 0, failed: Number(failed) || 0, pending: Number(pending) || 0 };
    if (final === false) partialResult = r;
    else result = r;
    return null;
  },
};

function startBridge() {
  return new Promise((resolve, reject) => {
    const srv = http.createServer((req, res) => {
      const send = (status, body) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const handler = req.method === 'POST' ? handlers[req.url] : undefined;
      if (!handler) return send(404, { ok: false, error: `no endpoint ${req.method} ${req.url}` });
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        try {
          const value = await handler(body ? JSON.parse(body) : {});
          send(200, { ok: true, value: value ?? null });
        } catch (e) {
          if (e instanceof NotYet) send(409, { ok: false, error: e.message, retry: true });
          else send(500, { ok: false, error: e?.message ?? String(e) });
        }
      });
    });
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  });
}

// ---- the run ------------------------------------------------------------------------------

const TEST_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'git.enabled': false,
  'security.workspace.trust.enabled': false,
};

function removeStaleRunDirs() {
  let entries = [];
  try {
    entries = fs.readdirSync(TEST_DIR);
  } catch {
    return;
  }
  for (const e of entries) {
    const m = /^run-(\d+)$/.exec(e);
    if (!m) continue;
    let alive = false;
    try {
      process.kill(Number(m[1]), 0);
      alive = true;
    } catch (err) {
      alive = err.code === 'EPERM';
    }
    if (!alive || Number(m[1]) === process.pid) fs.rmSync(path.join(TEST_DIR, e), { recursive: true, force: true });
  }
}

async function main() {
  if (!fs.existsSync(testsPath)) {
    return abort(1, `[integration] ERROR: ${path.relative(ROOT, testsPath)} is missing: build first (node esbuild.mjs)`);
  }
  if (!fs.existsSync(path.join(extensionPath, 'package.json'))) {
    return abort(1, `[integration] ERROR: no extension at ${extensionPath}`);
  }
  await ensureInstalled();
  const chromium = await resolveBrowser();
  const t1 = Date.now();

  removeStaleRunDirs();
  runDir = path.join(TEST_DIR, `run-${process.pid}`);
  fs.mkdirSync(runDir, { recursive: true });
  logStream = fs.createWriteStream(path.join(runDir, 'run.log'));

  const timer = setTimeout(async () => {
    const shot = path.join(runDir, 'timeout.png');
    await page?.screenshot({ path: shot }).catch(() => undefined);
    await abort(1, `[integration] ERROR: timed out after ${timeoutMs} ms (screenshot ${shot}, logs ${runDir})`);
  }, timeoutMs);
  timer.unref();

  // User settings of the test VS Code: quiet, nothing opened but what the tests open.
  const userDir = path.join(runDir, 'user-data', 'User');
  fs.mkdirSync(userDir, { recursive: true });
  // --untrusted: workspace trust on, no prompt, and the folder (never trusted in this fresh profile) opens in Restricted Mode.
  const settings = untrusted ? { ...TEST_SETTINGS, 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.banner': 'never' } : TEST_SETTINGS;
  fs.writeFileSync(path.join(userDir, 'settings.json'), JSON.stringify(settings, null, 2));

  bridge = await startBridge();
  const bridgeUrl = `http://127.0.0.1:${bridge.address().port}/`;

  const env = { OTRACE_TEST_BRIDGE: bridgeUrl };
  if (grep) env.OTRACE_TEST_GREP = grep;
  if (untrusted) env.OTRACE_TEST_UNTRUSTED = '1';
  if (process.env.OTRACE_MOCHA_TIMEOUT) env.OTRACE_MOCHA_TIMEOUT = process.env.OTRACE_MOCHA_TIMEOUT;
  if (process.env.OTRACE_TEST_PATIENCE) env.OTRACE_TEST_PATIENCE = process.env.OTRACE_TEST_PATIENCE;
  server = await startServer({
    folder,
    userDataDir: path.join(runDir, 'user-data'),
    extensionsDir: path.join(TEST_DIR, 'extensions'),
    scratchDir: path.join(runDir, 'server'),
    env,
    workspaceTrust: untrusted,
  });
  info(`VS Code 1.139.1 (code-server) up at ${server.url} in ${((Date.now() - t1) / 1000).toFixed(1)} s`);

  const playwright = await import('playwright-core');
  const before = new Set(childPids());
  info(`browser: ${chromium.source}`);
  browser = await playwright.chromium.launch({
    executablePath: chromium.executablePath,
    env: { ...process.env, ...chromium.env },
    headless: true,
    // This script stops the browser itself (cleanup) on these signals, before code-server.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    args: BROWSER_ARGS,
  });
  browserPgid = childPids().find((p) => !before.has(p));
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();

  let resolveExit;
  const exited = new Promise((r) => (resolveExit = r));
  await page.exposeFunction('codeAutomationLog', (type, message) => logLine('vscode', `${type}: ${message}`));
  await page.exposeFunction('codeAutomationExit', (code, logs) => {
    if (Array.isArray(logs)) {
      const dir = path.join(runDir, 'vscode-logs');
      for (const { relativePath, contents } of logs) {
        const file = path.join(dir, relativePath);
        if (!file.startsWith(dir)) continue;
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, contents);
      }
    }
    resolveExit(Number(code));
  });
  page.on('console', (m) => logLine('browser', `${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => logLine('browser', `pageerror: ${e.message}`));

  const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(extensionPath)],
    ['extensionTestsPath', remote(testsPath)],
  ];
  const url = `${server.url}?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  info(`running ${path.relative(ROOT, testsPath) || testsPath} on ${path.relative(ROOT, extensionPath) || '.'} in ${path.relative(ROOT, folder) || '.'}`);
  await page.goto(url, { waitUntil: 'domcontentloaded' });

  const code = await exited;
  clearTimeout(timer);
  info(`VS Code exited with ${code} after ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  await cleanup();

  let exitCode = code === 0 ? 0 : 1;
  let note;
  if (!result) {
    exitCode = 1;
    note = `[integration] ERROR: the mocha runner reported no result; logs in ${runDir}`;
  } else if (result.failed > 0) {
    exitCode = 1;
  } else if (result.passed === 0) {
    exitCode = 1;
    note = '[integration] ERROR: no test ran';
  }
  if (exitCode === 0) fs.rmSync(runDir, { recursive: true, force: true });
  else note = note ?? `[integration] logs in ${runDir}`;
  finish(exitCode, note);
}

main().catch((e) => abort(1, `[integration] ERROR: ${e?.stack ?? e}`));
