#!/usr/bin/env node
// Smoke test of the VSIX as a user gets it: `npm run package`, `code-server --install-extension`
// into a scratch extensions folder, then VS Code (code-server) with that folder only, no
// extensionDevelopmentPath, opening samples/. The installed copy must activate and paint the demo
// trace's graph. Also: `vsce ls` lists no test or fixture file.
//
//   node scripts/vscode/vsix-smoke.mjs     (npm test runs it after the integration tests)
//
// Prints one line per check and, last, `N passed, N failed`; exit code 0 only when all passed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BROWSER_ARGS, resolveBrowser } from './browser.mjs';
import { ensureInstalled, ROOT, TEST_DIR } from './install.mjs';
import { killGroup, childPids, reexecUnderSubreaper, startServer } from './server.mjs';

await reexecUnderSubreaper();

const DEMO = path.join(ROOT, 'samples', 'demo.otrace.jsonl');
const work = path.join(TEST_DIR, `vsix-${process.pid}`);
let passed = 0;
let failed = 0;

function check(name, ok, detail = '') {
  if (ok) passed++;
  else failed++;
  process.stdout.write(`  ${ok ? '✔' : '✖'} ${name}${detail ? `: ${detail}` : ''}\n`);
  return ok;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', ...opts });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  process.stdout.write('\ninstalled VSIX\n');
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');

  const ls = run(process.execPath, [vsce, 'ls', '--no-dependencies']);
  const files = ls.out.split('\n').map((l) => l.trim()).filter((l) => /^[\w.-]+(\/[\w.-]+)*$/.test(l));
  const unwanted = files.filter((f) => /(^|\/)(test|tests|fixtures|test-output|\.vscode-test|src|webview)\//.test(f) || /\.test\.|\.map$/.test(f));
  check('vsce ls lists no test, fixture or source file', ls.status === 0 && files.length > 0 && unwanted.length === 0, `${files.length} files${unwanted.length ? `; unwanted: ${unwanted.join(', ')}` : ''}`);

  const vsix = path.join(work, 'otrace.vsix');
  const npm = process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath) ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const pack = run(npm[0], [...npm.slice(1), 'run', 'package', '--', '--out', vsix]);
  if (!check('npm run package writes the VSIX', pack.status === 0 && fs.existsSync(vsix), fs.existsSync(vsix) ? `${(fs.statSync(vsix).size / 1024).toFixed(0)} KB` : pack.out.slice(-500))) return;

  const { nodeBin, codeServerEntry } = await ensureInstalled();
  const extensionsDir = path.join(work, 'extensions');
  const userDataDir = path.join(work, 'user-data');
  const install = run(nodeBin, [codeServerEntry, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', vsix], {
    env: { ...process.env, XDG_CONFIG_HOME: path.join(work, 'xdg'), XDG_DATA_HOME: path.join(work, 'xdg'), XDG_CACHE_HOME: path.join(work, 'xdg') },
  });
  const installed = fs.existsSync(extensionsDir) ? fs.readdirSync(extensionsDir).filter((d) => d.startsWith('otrace.otrace-')) : [];
  if (!check('code-server --install-extension installs it', install.status === 0 && installed.length === 1, installed[0] ?? install.out.slice(-500))) return;

  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({ 'workbench.startupEditor': 'none', 'chat.disableAIFeatures': true, 'git.enabled': false }));
  const report = path.join(work, 'start-report.json');
  let server;
  let browser;
  let browserPgid;
  try {
    server = await startServer({
      folder: path.join(ROOT, 'samples'),
      userDataDir,
      extensionsDir,
      scratchDir: path.join(work, 'server'),
      // The installed copy opens the demo and its graph as under npm start, and reports the paint.
      env: { OTRACE_START_TRACE: DEMO, OTRACE_START_REPORT: report },
    });
    const chromium = await resolveBrowser();
    const { chromium: pw } = await import('playwright-core');
    const before = new Set(childPids());
    browser = await pw.launch({ executablePath: chromium.executablePath, env: { ...process.env, ...chromium.env }, headless: true, args: BROWSER_ARGS, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
    browserPgid = childPids().find((p) => !before.has(p));
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    const remote = `vscode-remote://127.0.0.1:${server.port}${DEMO}`;
    await page.goto(`${server.url}?folder=${encodeURIComponent(path.join(ROOT, 'samples'))}&payload=${encodeURIComponent(JSON.stringify([['openFile', remote]]))}`);
    const deadline = Date.now() + 120_000;
    let nodes;
    while (Date.now() < deadline && nodes === undefined) {
      for (const f of page.frames()) {
        nodes = await f.evaluate(() => (document.querySelector('body[data-state="ready"][data-title="demo.otrace.jsonl"]') ? globalThis.__otrace.graph.totalEvents : undefined)).catch(() => undefined);
        if (nodes !== undefined) break;
      }
      if (nodes === undefined) await sleep(500);
    }
    const where = await page.evaluate(() => [...document.querySelectorAll('.tabs-container .tab')].map((t) => t.getAttribute('aria-label'))).catch(() => []);
    check("the installed copy activates and opens the demo's graph", nodes !== undefined && nodes >= 35, nodes === undefined ? `no graph within 120 s; tabs: ${where.join(' | ')}` : `${nodes} events in the graph; tabs: ${where.join(' | ')}`);
    let painted;
    for (let i = 0; i < 50 && !painted; i++) {
      try {
        painted = JSON.parse(fs.readFileSync(report, 'utf8'));
      } catch {
        await sleep(100);
      }
    }
    check('it reports the graph painted', painted?.events === 35, painted ? `${painted.activationToPaintMs} ms from activation` : 'no report');
    fs.mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, 'test-output', 'vsix.png') }).catch(() => undefined);
  } catch (e) {
    check('VS Code with the installed VSIX', false, e.message);
  } finally {
    await Promise.race([browser?.close().catch(() => undefined), sleep(5000)]);
    if (browserPgid) await killGroup(browserPgid, 3000);
    await server?.stop();
  }
}

try {
  await main();
} catch (e) {
  check('VSIX smoke test', false, e.stack ?? e.message);
}
if (failed === 0) fs.rmSync(work, { recursive: true, force: true });
else process.stdout.write(`logs and files in ${work}\n`);
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
