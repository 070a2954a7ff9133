/**
 * `npm start -- PATH` as a user runs it: npm in test/fixtures with a relative path to the Claude
 * Code session that has sub-agents. The test runs npm (and so scripts/start.mjs) as a child process,
 * opens the URL it prints in a browser page of its own (through the bridge), and checks that the
 * workspace is the session's folder, the session and its graph are open, the graph holds the
 * main agent and the sub-agents, and start.mjs printed its times. A missing path says so.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { closePage, evalInPage, evalInWebview, hasBridge, openPage, screenshot, testLog } from './bridge';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const FIXTURES = path.join(ROOT, 'test', 'fixtures');
const SESSION = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl';
const ARG = `claude-code/${SESSION}`; // relative to test/fixtures, where npm is run

/** The environment of a user's shell: nothing of this extension host, its VS Code or the test run. */
function userEnv(profile: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(VSCODE_|ELECTRON_|CODE_SERVER_|OTRACE_|npm_)/i.test(k)) env[k] = v;
  }
  return { ...env, OTRACE_USE_CODE_SERVER: '1', OTRACE_START_PROFILE: profile };
}

/** Runs `npm start -- ...args` in test/fixtures, in a process group of its own. */
function npmStart(args: string[], profile: string): ChildProcess {
  return spawn('npm', ['start', '--', ...args], { cwd: FIXTURES, env: userEnv(profile), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves with the output so far once `re` matches it (rejects after `ms` or when the process ends). */
function waitForOutput(child: ChildProcess, out: { text: string }, re: RegExp, ms: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = re.exec(out.text);
      if (m) {
        done();
        resolve(m);
      }
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no ${re} within ${ms} ms; output:\n${out.text}`));
    }, ms);
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`npm start exited (${code}) before ${re}; output:\n${out.text}`));
    };
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

/** Stops npm start (SIGTERM to its group: start.mjs stops its VS Code) and waits for it. */
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const late = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 20_000))]);
  if (late) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

const TABS = `() => [...document.querySelectorAll('.tabs-container .tab')].map((t) => t.getAttribute('aria-label') || t.textContent)`;

describe('npm start -- PATH', function () {
  this.timeout(180_000);
  let child: ChildProcess | undefined;
  let page: number | undefined;
  let profile: string;

  before(function () {
    if (!hasBridge() || spawnSync('npm', ['--version'], { stdio: 'ignore' }).status !== 0) this.skip();
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-start-'));
  });

  after(async () => {
    if (page !== undefined) await closePage(page).catch(() => undefined);
    await stop(child);
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  it('says so for a path that does not exist (exit 2)', async () => {
    const c = npmStart(['--no-build', 'claude-code/no-such-session.jsonl'], profile);
    let err = '';
    c.stderr?.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => c.on('exit', r));
    assert.equal(code, 2);
    assert.match(err, new RegExp(`no such file or folder: ${FIXTURES.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/claude-code/no-such-session\\.jsonl`));
  });

  it('opens a Claude Code session and its graph, sub-agents included, in its folder', async () => {
    // --no-build: the tests run from dist/, which must not change under them.
    child = npmStart(['--no-build', ARG], profile);
    const out = { text: '' };
    child.stdout?.on('data', (d) => (out.text += d));
    child.stderr?.on('data', (d) => (out.text += d));
    await waitForOutput(child, out, /ready in .*\n/, 120_000); // printed after the URL
    const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/\S+)\s*$/m.exec(out.text)?.[1] ?? '';
    assert.match(out.text, new RegExp(`Opening test/fixtures/${ARG.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(workspace test/fixtures/claude-code\\)`));
    assert.match(out.text, /ready in \d+\.\d s \(build \d+\.\d s, VS Code \d+\.\d s\)/);
    assert.ok(url.includes(encodeURIComponent(path.join(FIXTURES, 'claude-code'))), `the workspace is the session's folder: ${url}`);

    page = await openPage(url);
    const title = `body[data-state="ready"][data-title="${SESSION}"]`;
    const graph = await evalInWebview<{ agents: string[]; nodes: number }>(
      `() => ({ agents: [...new Set(globalThis.__otrace.cy.nodes().map((n) => n.data('agent')))], nodes: globalThis.__otrace.cy.nodes().length })`,
      { selector: title, page, timeoutMs: 90_000 },
    );
    const tabs = await evalInPage<string[]>(TABS, page);
    testLog(`      tabs: ${tabs.join(' | ')}; graph: ${graph.nodes} nodes, agents ${graph.agents.join(', ')}`);
    assert.ok(tabs.some((t) => t.startsWith(SESSION)), `the session is open: ${tabs.join(' | ')}`);
    assert.ok(tabs.some((t) => t.startsWith(`Graph: ${SESSION}`)), `its graph is open: ${tabs.join(' | ')}`);
    assert.ok(graph.agents.includes('main'), `main agent: ${graph.agents.join(', ')}`);
    assert.ok(graph.agents.filter((a) => a !== 'main').length >= 2, `sub-agents: ${graph.agents.join(', ')}`);
    const windowTitle = await evalInPage<string>('document.title', page);
    assert.match(windowTitle, /claude-code/);

    const [painted] = await waitForOutput(child, out, /graph painted: otrace took \d+ ms .*\n/, 30_000);
    testLog(`      ${out.text.match(/ready in .*/)?.[0]}\n      ${painted.trim()}`);
    assert.match(painted, new RegExp(`graph of ${SESSION.replace(/[.]/g, '\\.')} \\(\\d+ events\\)`));
    await screenshot('test-output/npm-start.png', page);
  });
});
