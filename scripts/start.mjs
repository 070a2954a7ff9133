#!/usr/bin/env node
// `npm start [-- PATH]`: build, then open VS Code with the extension loaded, a trace open and its
// graph beside it. Without PATH: samples/ and the demo trace. PATH is a trace file (its folder
// becomes the workspace) or a folder (the workspace; its newest trace opens); relative paths start
// where npm was run (INIT_CWD).
//
// A desktop `code` on PATH is used when there is one (set OTRACE_USE_CODE_SERVER=1 to skip it);
// otherwise code-server (VS Code 1.139.1, installed once into .vscode-test/) starts on 127.0.0.1,
// the URL to open is printed with the time it took, and, once the page is open, otrace's own part
// (activation to graph painted, reported by the extension). Ctrl-C stops it cleanly.
//
// Options: --no-build (use dist/ as it is). Env: OTRACE_PORT (default: a free port),
// OTRACE_START_PROFILE (user data folder, default .vscode-test/start-user-data).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const started = performance.now();
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLES = path.join(ROOT, 'samples');
const DEMO = path.join(SAMPLES, 'demo.otrace.jsonl');
const USAGE = 'usage: npm start [-- PATH]   PATH: a trace file, or a folder (its newest trace opens)';
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function fail(message) {
  console.error(`npm start: ${message}\n${USAGE}`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const noBuild = argv.includes('--no-build');
const rest = argv.filter((a) => a !== '--no-build');
if (rest.some((a) => a.startsWith('-'))) fail(`unknown option ${rest.find((a) => a.startsWith('-'))}`);
if (rest.length > 1) fail(`one PATH at most, not ${rest.length}`);
// npm runs scripts in the project root; INIT_CWD is where the user typed `npm start`.
const baseDir = process.env.INIT_CWD || process.cwd();
const requested = rest[0] === undefined ? undefined : path.resolve(baseDir, rest[0].replace(/^~(?=$|\/)/, os.homedir()));
if (requested && !fs.existsSync(requested)) fail(`no such file or folder: ${requested}${rest[0] !== requested ? ` (from "${rest[0]}")` : ''}`);

if (!noBuild) {
  const build = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const builtAt = performance.now();

let target = { folder: SAMPLES, trace: DEMO };
if (requested) {
  const { openTarget } = createRequire(import.meta.url)(path.join(ROOT, 'dist', 'open-target.js'));
  try {
    target = openTarget(requested);
  } catch (e) {
    fail(e.message);
  }
}
const shown = (p) => (p.startsWith(`${ROOT}${path.sep}`) ? path.relative(ROOT, p) : p);
console.log(`Opening ${shown(target.trace)} (workspace ${shown(target.folder)})`);

// The extension opens this trace and its graph when it activates (src/host/extension.ts), and writes
// how long that took to OTRACE_START_REPORT (src/host/start-report.ts).
const env = { ...process.env, OTRACE_START_TRACE: target.trace };

const hasCode = !process.env.OTRACE_USE_CODE_SERVER && spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
if (hasCode) {
  console.log('Opening it in your VS Code (desktop `code`) with the extension under development...');
  const report = path.join(os.tmpdir(), `otrace-start-report-${process.pid}.json`);
  const child = spawn('code', ['--new-window', `--extensionDevelopmentPath=${ROOT}`, target.folder, target.trace], { env: { ...env, OTRACE_START_REPORT: report }, stdio: 'inherit' });
  child.on('exit', (code) => {
    if (code) process.exit(code);
    // `code` hands the window over and returns: wait a minute at most for otrace's figure.
    const poll = watchReport(report, () => process.exit(0));
    setTimeout(() => {
      clearInterval(poll);
      process.exit(0);
    }, 60_000).unref();
  });
} else {
  await startCodeServer();
}

async function startCodeServer() {
  const { startServer } = await import('./vscode/server.mjs');
  const { TEST_DIR } = await import('./vscode/install.mjs');
  console.log('No desktop `code` on PATH: starting code-server (VS Code 1.139.1) on 127.0.0.1 ...');
  const userDataDir = path.resolve(process.env.OTRACE_START_PROFILE || path.join(TEST_DIR, 'start-user-data'));
  writeDefaultSettings(userDataDir);
  const report = path.join(userDataDir, `start-report-${process.pid}.json`);
  fs.rmSync(report, { force: true });
  const serverStarted = performance.now();
  const server = await startServer({
    folder: target.folder,
    port: process.env.OTRACE_PORT ? Number(process.env.OTRACE_PORT) : undefined,
    env: { ...env, OTRACE_START_REPORT: report },
    // Its own profile, apart from the tests' (both may run at once).
    userDataDir,
    extensionsDir: path.join(TEST_DIR, 'start-extensions'),
  });
  const ready = performance.now();
  const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
  // openFile: the workbench opens the trace itself as it starts, which also activates otrace at once
  // (onLanguage), before any workspace scan.
  const payload = [['extensionDevelopmentPath', remote(ROOT)], ['openFile', remote(target.trace)]];
  const url = `${server.url}?folder=${encodeURIComponent(target.folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  console.log(`\notrace is running. Open this URL in your browser:\n\n  ${url}\n`);
  console.log(`ready in ${seconds(ready - started)} (build ${seconds(builtAt - started)}, VS Code ${seconds(ready - serverStarted)}). Ctrl-C stops VS Code.`);

  // otrace's own part, once a browser has the page open and the graph is painted.
  const poll = watchReport(report);

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(poll);
    console.log('\nStopping VS Code...');
    fs.rmSync(report, { force: true });
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

/**
 * Prints otrace's own part of the start once the extension has written it to `report` (see
 * src/host/start-report.ts), then removes the file and calls `then`. Returns the interval to clear.
 */
function watchReport(report, then = () => undefined) {
  const poll = setInterval(() => {
    let r;
    try {
      r = JSON.parse(fs.readFileSync(report, 'utf8'));
    } catch {
      return;
    }
    clearInterval(poll);
    fs.rmSync(report, { force: true });
    console.log(`graph painted: otrace took ${r.activationToPaintMs} ms from activation to the graph of ${path.basename(r.trace)} (${r.events} events)`);
    const m = r.marks ?? {};
    const marks = Object.entries(m).sort((a, b) => a[1] - b[1]);
    if (marks.length) console.log(`  ${marks.map(([k, v]) => `${k} ${v} ms`).join(', ')}, painted ${r.activationToPaintMs} ms`);
    // The part otrace does not control: VS Code creating the webview and loading its page.
    const vscodePart = m['webview page started'] - m['graph panel created'];
    if (vscodePart >= 0) console.log(`  of which VS Code building the webview (panel created to page started): ${vscodePart} ms`);
    then();
  }, 100);
  return poll;
}

/**
 * A first-run profile that shows the trace, not the welcome page and chat (kept once the user
 * changes it). Auto save stays off, in a profile made before too: VS Code for the web saves after a
 * second by default, which wrote a key typed into the trace file to the user's trace on disk.
 */
function writeDefaultSettings(userDataDir) {
  const file = path.join(userDataDir, 'User', 'settings.json');
  const defaults = {
    'workbench.startupEditor': 'none',
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true,
    'workbench.tips.enabled': false,
    'files.autoSave': 'off',
  };
  let settings = {};
  if (fs.existsSync(file)) {
    try {
      settings = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      return; // the user's own settings (comments): left as they are
    }
    if ('files.autoSave' in settings) return;
    settings = { ...settings, 'files.autoSave': 'off' };
  } else settings = defaults;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(settings, null, 2) + '\n');
}
