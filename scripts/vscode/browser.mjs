#!/usr/bin/env node
// The browser that shows the test VS Code's workbench: a Chromium from the npm registry
// (@sparticuz/chromium, a headless Chromium shell packed with brotli), so no system package is
// needed. Layout:
//
//   .vscode-test/chromium/package.json      -> @sparticuz/chromium@BROWSER_VERSION
//   .vscode-test/chromium/bin/chromium      the unpacked binary (+ SwiftShader libraries, fonts/)
//   .vscode-test/chromium/installed.json    marker written last
//
// Which browser runs: OTRACE_CHROMIUM when set; else the npm Chromium (installed on first use);
// else, only when that cannot be installed, Debian's /usr/bin/chromium when present.
//
// Usage: node scripts/vscode/browser.mjs [--force]   installs it and prints its path and `ldd` check

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installPackage, log, readJson, TEST_DIR, withLock, writeJson } from './install.mjs';

export const BROWSER_PACKAGE = '@sparticuz/chromium';
export const BROWSER_VERSION = '153.0.0';
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

const DIR = path.join(TEST_DIR, 'chromium');
const BIN = path.join(DIR, 'bin');
const MARKER = path.join(DIR, 'installed.json');

/**
 * Flags of every browser run. The network ones keep it off the (unreachable) internet; the npm
 * package's own list is for AWS Lambda and is not used: its --single-process and
 * --disable-site-isolation-trials change how VS Code's webview iframes run.
 */
export const BROWSER_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--no-default-browser-check',
  '--disable-domain-reliability',
];

/** Shared libraries `ldd` cannot resolve for `file` ([] when all are found or ldd is missing). */
export function missingLibraries(file, env = process.env) {
  const r = spawnSync('ldd', [file], { encoding: 'utf8', env });
  if (r.status !== 0 && !r.stdout) return [];
  return r.stdout.split('\n').filter((l) => /not found/.test(l)).map((l) => l.trim().split(/\s+/)[0]);
}

function isInstalled() {
  const m = readJson(MARKER);
  return m?.version === BROWSER_VERSION && fs.existsSync(path.join(BIN, 'chromium'));
}

/** Runs the package's own unpacker with TMPDIR pointing at `dest` (it unpacks into tmpdir()). */
function unpack(pkgDir, dest, what) {
  const entry = pathToFileURL(path.join(pkgDir, 'build', what === 'browser' ? 'index.js' : 'lambdafs.js')).href;
  const js = what === 'browser'
    ? `const m = await import(${JSON.stringify(entry)}); console.log(await m.default.executablePath());`
    : `const m = await import(${JSON.stringify(entry)}); console.log(await m.inflate(${JSON.stringify(path.join(pkgDir, 'bin', 'al2023.tar.br'))}));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', js], { encoding: 'utf8', env: { ...process.env, TMPDIR: dest } });
  if (r.status !== 0) throw new Error(`unpacking ${BROWSER_PACKAGE} failed: ${r.stderr.trim()}`);
}

async function install() {
  const t = Date.now();
  log(`installing ${BROWSER_PACKAGE}@${BROWSER_VERSION} (Chromium from the npm registry, about 70 MB) ...`);
  const stage = `${DIR}.staging`;
  fs.rmSync(stage, { recursive: true, force: true });
  await installPackage(stage, { [BROWSER_PACKAGE]: BROWSER_VERSION }, 'Chromium for the integration tests; installed by scripts/vscode/browser.mjs');
  const pkgDir = path.join(stage, 'node_modules', ...BROWSER_PACKAGE.split('/'));
  const bin = path.join(stage, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  unpack(pkgDir, bin, 'browser');
  // Libraries for systems without NSS (the package's Amazon Linux set): used only when missing.
  unpack(pkgDir, bin, 'libs');
  // The packed archives are unpacked now: drop them (70 MB).
  fs.rmSync(path.join(pkgDir, 'bin'), { recursive: true, force: true });
  writeJson(path.join(stage, 'installed.json'), { version: BROWSER_VERSION, installedAt: new Date().toISOString() });
  fs.rmSync(DIR, { recursive: true, force: true });
  fs.renameSync(stage, DIR);
  log(`${BROWSER_PACKAGE} ${BROWSER_VERSION} installed in ${((Date.now() - t) / 1000).toFixed(0)} s`);
}

/** The environment the npm Chromium needs here: its NSS libraries where the system has none, fonts where fontconfig has no configuration. */
function npmBrowserEnv() {
  const env = {};
  const exe = path.join(BIN, 'chromium');
  if (missingLibraries(exe).length > 0) {
    env.LD_LIBRARY_PATH = [path.join(BIN, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  }
  if (!fs.existsSync('/etc/fonts/fonts.conf')) {
    const conf = path.join(BIN, 'fonts-otrace.conf');
    if (!fs.existsSync(conf)) {
      fs.writeFileSync(conf, `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${path.join(BIN, 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n  <cachedir>${path.join(BIN, 'fonts-cache')}</cachedir>\n</fontconfig>\n`);
    }
    env.FONTCONFIG_FILE = conf;
  }
  return env;
}

/**
 * The browser to run: `{executablePath, env, source}` where env holds extra environment
 * variables for it and source says which one it is. Installs the npm Chromium on first use.
 */
export async function resolveBrowser({ force = false } = {}) {
  if (process.env.OTRACE_CHROMIUM) {
    if (!fs.existsSync(process.env.OTRACE_CHROMIUM)) throw new Error(`OTRACE_CHROMIUM=${process.env.OTRACE_CHROMIUM} does not exist`);
    return { executablePath: process.env.OTRACE_CHROMIUM, env: {}, source: 'OTRACE_CHROMIUM' };
  }
  try {
    if (force || !isInstalled()) {
      fs.mkdirSync(TEST_DIR, { recursive: true });
      await withLock(async () => {
        if (force || !isInstalled()) await install();
      });
    }
    return { executablePath: path.join(BIN, 'chromium'), env: npmBrowserEnv(), source: `${BROWSER_PACKAGE}@${BROWSER_VERSION}` };
  } catch (e) {
    if (!fs.existsSync(SYSTEM_CHROMIUM)) throw e;
    log(`${e.message}\n[vscode-install] using ${SYSTEM_CHROMIUM} instead`);
    return { executablePath: SYSTEM_CHROMIUM, env: {}, source: SYSTEM_CHROMIUM };
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const b = await resolveBrowser({ force: process.argv.includes('--force') });
    const missing = missingLibraries(b.executablePath, { ...process.env, ...b.env });
    log(`browser: ${b.executablePath} (${b.source})`);
    log(`ldd: ${missing.length ? `missing ${missing.join(', ')}` : 'all shared libraries found'}`);
    if (Object.keys(b.env).length) log(`env: ${JSON.stringify(b.env)}`);
  } catch (e) {
    process.stderr.write(`[vscode-install] ERROR: ${e.message}\n`);
    process.exit(1);
  }
}
