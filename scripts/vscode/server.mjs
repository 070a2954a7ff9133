#!/usr/bin/env node
// Starts and stops the test VS Code: code-server (VS Code 1.139.1) installed by install.mjs.
//
//   import { startServer } from './server.mjs';
//   const { url, port, stop } = await startServer({ folder: '/abs/workspace' });
//   ... open `url` in a browser ...
//   await stop();   // kills the whole process group (VS Code 1.139 starts helper processes)
//
// CLI: node scripts/vscode/server.mjs [folder] [--port N]   prints the URL, Ctrl-C stops.
//
// code-server writes only under .vscode-test/: user data and extensions there (or the dirs
// given), its config and XDG dirs in a scratch folder. Its output goes to <scratch>/code-server.log,
// and to stdout as well when OTRACE_TEST_VERBOSE=1.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureInstalled, TEST_DIR } from './install.mjs';

const verbose = process.env.OTRACE_TEST_VERBOSE === '1';

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Processes of group `pgid` (zombies too) as {pid, ppid, zombie}, from /proc. */
function groupMembers(pgid) {
  const out = [];
  let entries = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      // pid (comm) state ppid pgrp ...; comm may contain spaces and parentheses
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) === pgid) out.push({ pid: Number(e), ppid: Number(f[1]), zombie: f[0] === 'Z' || f[0] === 'X' });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills process group `pgid` (code-server starts a tree of helpers: extension host, file
 * watcher, agent host, copilot runtime, ..., and restarts some of them when they die) so that
 * every process is reaped by its own parent. A process killed before its children hands them
 * to PID 1, which in some containers reaps late or never (zombies). Each round freezes the
 * group (SIGSTOP: nothing forks or restarts meanwhile), SIGKILLs the processes that have no
 * children, lets the group go on (SIGCONT) so that their parents reap them, and waits for that.
 * Gives up after `timeoutMs` with SIGKILL to the whole group.
 */
export async function killGroup(pgid, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!groupMembers(pgid).some((m) => !m.zombie)) return;
    signal(-pgid, 'SIGSTOP');
    const all = groupMembers(pgid);
    const parents = new Set(all.map((m) => m.ppid));
    const leaves = all.filter((m) => !m.zombie && !parents.has(m.pid));
    for (const m of leaves) signal(m.pid, 'SIGKILL');
    signal(-pgid, 'SIGCONT');
    // Wait until the parents have reaped them (a zombie stays in /proc until then).
    const pids = new Set(leaves.map((m) => m.pid));
    const roundEnd = Math.min(deadline, Date.now() + 2000);
    while (Date.now() < roundEnd && groupMembers(pgid).some((m) => pids.has(m.pid) && m.ppid !== 1)) await sleep(20);
  }
  signal(-pgid, 'SIGKILL');
}

/** Pids of the live children of process `ppid`, from /proc. */
export function childPids(ppid = process.pid) {
  const out = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) === ppid && f[0] !== 'Z') out.push(Number(e));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

// A child subreaper (prctl PR_SET_CHILD_SUBREAPER) that runs a command: processes orphaned
// anywhere below it are handed to it instead of PID 1, and it reaps them at once. Chromium's
// crashpad handlers are orphaned by design (double fork), and helpers that outlive their parent
// would otherwise stay zombies until PID 1 reaps them, which some containers do late or never.
// When the command has exited it stops and reaps whatever is left below it, and exits with the
// command's code. Signals it gets are passed on to the command. Node cannot call prctl, and
// python3 is on our machines; without python3 the command runs without it.
const REAPER_PY = String.raw`
import ctypes, os, signal, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
def forward(sig, _frame):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, forward)
status = None
while status is None:
    try:
        p, st = os.wait()
    except ChildProcessError:
        break
    if p == pid:
        status = st
def children():
    me, out = os.getpid(), []
    for e in os.listdir('/proc'):
        if e.isdigit():
            try:
                with open('/proc/%s/stat' % e) as f:
                    st = f.read()
                if int(st[st.rindex(')') + 2:].split(' ')[1]) == me:
                    out.append(int(e))
            except (OSError, ValueError):
                pass
    return out
start = time.time()
sent = None
while True:
    try:
        p, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if p:
        continue
    now = time.time()
    sig = signal.SIGKILL if now - start > 3 else signal.SIGTERM if now - start > 1 else None
    if sig and sig != sent:
        sent = sig
        for c in children():
            try:
                os.kill(c, sig)
            except ProcessLookupError:
                pass
    time.sleep(0.02)
if status is None:
    sys.exit(1)
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
`;

/**
 * Re-runs this node script under the child subreaper above (once: the environment variable
 * OTRACE_SUBREAPER marks the inner run) and exits with its code; returns without doing
 * anything when already under it, not on Linux, without python3, or with OTRACE_NO_SUBREAPER=1.
 */
export async function reexecUnderSubreaper() {
  if (process.env.OTRACE_SUBREAPER || process.env.OTRACE_NO_SUBREAPER === '1' || process.platform !== 'linux') return;
  const python = process.env.OTRACE_PYTHON || 'python3';
  const probe = spawnSync(python, ['-c', 'import ctypes'], { stdio: 'ignore' });
  if (probe.status !== 0) return;
  const child = spawn(python, ['-c', REAPER_PY, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, OTRACE_SUBREAPER: '1' },
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  const code = await new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('exit', (c, sig) => resolve(c ?? (sig ? 128 + (os.constants.signals[sig] ?? 0) : 1)));
  });
  process.exit(code);
}

function tail(file, lines) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts code-server on 127.0.0.1 with `folder` open, and waits until /healthz answers.
 *
 * @param {object} opts
 * @param {string} opts.folder         workspace folder to open (absolute or relative to cwd)
 * @param {number} [opts.port]         port; a free one when not given
 * @param {string} [opts.userDataDir]  default .vscode-test/user-data
 * @param {string} [opts.extensionsDir] default .vscode-test/extensions
 * @param {string} [opts.scratchDir]   config, XDG dirs and the log; default .vscode-test/scratch/<port>
 * @param {Record<string,string>} [opts.env] extra environment (reaches the extension host)
 * @param {string[]} [opts.args]       extra code-server arguments
 * @param {boolean} [opts.workspaceTrust] keep VS Code's workspace trust on (default: off, `--disable-workspace-trust`)
 * @param {boolean} [opts.verbose]     also stream code-server's output to stdout
 * @param {number} [opts.startTimeoutMs] default 60 s
 * @returns {Promise<{url: string, port: number, pid: number, logFile: string, scratchDir: string, folder: string, stop: () => Promise<void>}>}
 */
export async function startServer(opts) {
  const { nodeBin, codeServerEntry } = await ensureInstalled();
  const folder = path.resolve(opts.folder);
  if (!fs.existsSync(folder)) throw new Error(`folder does not exist: ${folder}`);
  const port = opts.port ?? (await freePort());
  const userDataDir = path.resolve(opts.userDataDir ?? path.join(TEST_DIR, 'user-data'));
  const extensionsDir = path.resolve(opts.extensionsDir ?? path.join(TEST_DIR, 'extensions'));
  // A default scratch folder is removed again by stop(); a given one is left for its owner.
  const scratchDir = path.resolve(opts.scratchDir ?? path.join(TEST_DIR, 'scratch', String(port)));
  const xdg = {
    XDG_CONFIG_HOME: path.join(scratchDir, 'xdg', 'config'),
    XDG_DATA_HOME: path.join(scratchDir, 'xdg', 'data'),
    XDG_CACHE_HOME: path.join(scratchDir, 'xdg', 'cache'),
    XDG_STATE_HOME: path.join(scratchDir, 'xdg', 'state'),
  };
  for (const d of [userDataDir, extensionsDir, scratchDir, ...Object.values(xdg)]) fs.mkdirSync(d, { recursive: true });
  const configFile = path.join(scratchDir, 'config.yaml');
  fs.writeFileSync(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const logFile = path.join(scratchDir, 'code-server.log');
  const logFd = fs.openSync(logFile, 'w');

  const args = [
    codeServerEntry,
    '--config', configFile,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']),
    // Without it the workbench never calls codeAutomationExit/Log and extension tests never start.
    '--vscode-option', 'enable-smoke-test-driver',
    ...(opts.args ?? []),
    folder,
  ];
  const env = { ...process.env, ...xdg, ...(opts.env ?? {}) };
  // The project's `npm test` variables mean nothing to code-server and its extension host.
  for (const k of Object.keys(env)) if (/^npm_/i.test(k)) delete env[k];
  // Run from inside another code-server (its terminal, its extension host), these would make this
  // one a child of that server ("not spawned with IPC").
  for (const k of Object.keys(env)) if (/^(CODE_SERVER_|VSCODE_)/.test(k)) delete env[k];

  const child = spawn(nodeBin, args, {
    cwd: scratchDir,
    env,
    detached: true, // own process group: stop() kills it whole
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pgid = child.pid;
  let exited = null;
  const exitPromise = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    });
  });
  child.on('error', (e) => {
    exited = { code: null, signal: null, error: e };
  });
  const sink = (chunk) => {
    try {
      fs.writeSync(logFd, chunk);
    } catch {
      /* closed */
    }
    if (opts.verbose ?? verbose) {
      for (const line of String(chunk).split('\n')) if (line.trim()) process.stdout.write(`[code-server] ${line}\n`);
    }
  };
  child.stdout.on('data', sink);
  child.stderr.on('data', sink);

  let stopped = false;
  // Last resort when this process exits without stop(): leave no code-server running.
  process.once('exit', () => {
    if (!stopped) signal(-pgid, 'SIGKILL');
  });
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await killGroup(pgid);
    // Wait for our direct child to be reaped so it is no zombie.
    if (!exited) await Promise.race([exitPromise, sleep(2000)]);
    try {
      fs.closeSync(logFd);
    } catch {
      /* closed */
    }
    if (!opts.scratchDir) fs.rmSync(scratchDir, { recursive: true, force: true });
  };

  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  for (;;) {
    if (exited) {
      const last = tail(logFile, 30);
      await stop();
      throw new Error(`code-server exited before answering (${JSON.stringify(exited)}); its output:\n${last}`);
    }
    try {
      const res = await fetch(`${url}healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      const last = tail(logFile, 30);
      await stop();
      throw new Error(`code-server did not answer /healthz within the start timeout; its output:\n${last}`);
    }
    await sleep(200);
  }
  return { url, port, pid: pgid, logFile, scratchDir, folder, stop };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const pi = argv.indexOf('--port');
  const port = pi >= 0 ? Number(argv.splice(pi, 2)[1]) : undefined;
  const folder = argv[0] ?? process.cwd();
  const server = await startServer({ folder, port });
  process.stdout.write(`VS Code (code-server) is up: ${server.url}?folder=${encodeURIComponent(server.folder)}\nlog: ${server.logFile}\nCtrl-C stops it.\n`);
  const shutdown = async () => {
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
