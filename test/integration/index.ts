/**
 * Mocha entry of the integration tests, run by VS Code inside the extension host
 * (`extensionTestsPath` = dist/test/integration/index.js, built by esbuild.mjs).
 *
 * The test files are listed in TEST_FILES below and loaded with static require() calls, so
 * esbuild bundles them; they are required only after mocha has set up its globals
 * (describe/it). A new `*.test.ts` in this folder must be added to the list: run() fails
 * when a test file on disk is not listed.
 *
 * Output: mocha's reporter lines and the final counts go to the harness through the bridge
 * (see bridge.ts), which prints them; without the harness they go to the console only.
 * Plain console.log in tests reaches only the harness's run log (and stdout with
 * OTRACE_TEST_VERBOSE=1); use testLog() from bridge.ts for lines that must be printed.
 *
 * Environment (set by the harness, reaching the extension host through code-server):
 *   OTRACE_TEST_GREP        run only tests whose full title matches this regexp
 *   OTRACE_MOCHA_TIMEOUT    per-test timeout in ms (default 60000), like every test's own, times OTRACE_TEST_PATIENCE (default 3)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';
import { PATIENCE, hasBridge, output, reportResult } from './bridge';

const TEST_FILES: Record<string, () => unknown> = {
  'smoke.test.ts': () => require('./smoke.test'),
  'bridge.test.ts': () => require('./bridge.test'),
  'engine-start.test.ts': () => require('./engine-start.test'),
  'heap-accounting.test.ts': () => require('./heap-accounting.test'),
  'graph.test.ts': () => require('./graph.test'),
  // the overview reads the first view of the session's graph: before the keyboard tests zoom into it
  'graph-overview.test.ts': () => require('./graph-overview.test'),
  // the README's pictures (test-output/codex-rollout.png, who-and-when.png, screenshot.png)
  'readme-pictures.test.ts': () => require('./readme-pictures.test'),
  'compare.test.ts': () => require('./compare.test'),
  'graph-keyboard.test.ts': () => require('./graph-keyboard.test'),
  'graph-panels.test.ts': () => require('./graph-panels.test'),
  'graph-stale.test.ts': () => require('./graph-stale.test'),
  'graph-tooltip.test.ts': () => require('./graph-tooltip.test'),
  'graph-rows.test.ts': () => require('./graph-rows.test'),
  'graph-focus.test.ts': () => require('./graph-focus.test'),
  'graph-follow.test.ts': () => require('./graph-follow.test'),
  'live-otel-logs.test.ts': () => require('./live-otel-logs.test'),
  'editor-sideways.test.ts': () => require('./editor-sideways.test'),
  'graph-large.test.ts': () => require('./graph-large.test'),
  'graph-start.test.ts': () => require('./graph-start.test'),
  'graph-names.test.ts': () => require('./graph-names.test'),
  'editor.test.ts': () => require('./editor.test'),
  'editor-analysis.test.ts': () => require('./editor-analysis.test'),
  'editor-labels.test.ts': () => require('./editor-labels.test'),
  'live.test.ts': () => require('./live.test'),
  'labels.test.ts': () => require('./labels.test'),
  'mapping.test.ts': () => require('./mapping.test'),
  'untrusted-names.test.ts': () => require('./untrusted-names.test'),
  // runs only with run-integration.mjs --untrusted (skipped otherwise)
  'restricted.test.ts': () => require('./restricted.test'),
  'graph-1m.test.ts': () => require('./graph-1m.test'),
  'graph-agents.test.ts': () => require('./graph-agents.test'),
  'graph-delta.test.ts': () => require('./graph-delta.test'),
  'start.test.ts': () => require('./start.test'),
  'chat-tools.test.ts': () => require('./chat-tools.test'),
};

/** The source folder of the tests, when present (dist/test/integration -> test/integration). */
const SOURCE_DIR = path.resolve(__dirname, '..', '..', '..', 'test', 'integration');

function unlistedTestFiles(): string[] {
  if (!fs.existsSync(SOURCE_DIR)) return [];
  return fs
    .readdirSync(SOURCE_DIR)
    .filter((f) => f.endsWith('.test.ts') && !(f in TEST_FILES))
    .sort();
}

export async function run(): Promise<void> {
  const out = (...args: unknown[]) => output.write(format(...args));

  // Mocha's reporters print through Base.consoleLog; send it to the harness.
  const Base = Mocha.reporters.Base as unknown as { consoleLog: (...args: unknown[]) => void };
  const originalConsoleLog = Base.consoleLog;
  Base.consoleLog = out;

  // Console output of the tests and the extension is not captured here: VS Code's extension
  // host pins console.log & co. to its own forwarder (the harness shows it with
  // OTRACE_TEST_VERBOSE=1 and keeps it in its run log). Use bridge.ts testLog() for lines that
  // must reach the harness's stdout.

  let counts = { passed: 0, failed: 0, pending: 0 };
  try {
    const mocha = new Mocha({
      ui: 'bdd',
      reporter: 'spec',
      color: false,
      timeout: Number(process.env.OTRACE_MOCHA_TIMEOUT) || 60_000,
      grep: process.env.OTRACE_TEST_GREP || undefined,
    });

    const unlisted = unlistedTestFiles();
    if (unlisted.length > 0) {
      throw new Error(`test files not listed in test/integration/index.ts TEST_FILES: ${unlisted.join(', ')}`);
    }

    // What mocha's loadFiles does for each file: set the globals, load, announce.
    const suite = mocha.suite;
    for (const [name, load] of Object.entries(TEST_FILES)) {
      const file = path.join(SOURCE_DIR, name);
      suite.emit('pre-require', globalThis, file, mocha);
      suite.emit('require', load(), file, mocha);
      suite.emit('post-require', globalThis, file, mocha);
    }
    stretchTimeouts(suite, PATIENCE);

    counts = await new Promise((resolve, reject) => {
      try {
        const runner = mocha.run(() => resolve(current()));
        const current = () => {
          const s = runner.stats;
          return { passed: s?.passes ?? 0, failed: s?.failures ?? runner.failures, pending: s?.pending ?? 0 };
        };
        // Counts so far, so that the harness can still print them when the run times out.
        let partial: Promise<void> = Promise.resolve();
        const progress = () => {
          if (!hasBridge()) return;
          const c = current();
          partial = partial.then(() => reportResult({ ...c, final: false })).catch(() => undefined);
        };
        runner.on('pass', progress);
        runner.on('fail', progress);
        // The reason at once, not only in the summary at the end: a run stopped by its whole-run timeout still says why each test failed.
        runner.on('fail', (test: Mocha.Runnable, err: unknown) => out(`      ✘ ${test.fullTitle()}: ${firstLines(err)}`));
        runner.on('pending', progress);
      } catch (e) {
        reject(e);
      }
    });
  } catch (e) {
    out(`integration test runner failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    counts = { ...counts, failed: counts.failed + 1 };
  } finally {
    Base.consoleLog = originalConsoleLog;
    await output.flush();
    if (hasBridge()) await reportResult({ ...counts, final: true }).catch(() => undefined);
  }

  if (counts.failed > 0) throw new Error(`${counts.failed} integration test(s) failed`);
  if (counts.passed === 0) throw new Error('no integration test ran');
}

/**
 * Multiplies the timeout of every suite, hook and test under `suite` by `factor` ({@link PATIENCE}):
 * the tests' own `this.timeout(...)` figures are for a quiet machine.
 */
function stretchTimeouts(suite: Mocha.Suite, factor: number): void {
  const hooks = suite as unknown as Record<'_beforeAll' | '_beforeEach' | '_afterAll' | '_afterEach', Mocha.Hook[]>;
  for (const r of [suite, ...suite.tests, ...hooks._beforeAll, ...hooks._beforeEach, ...hooks._afterAll, ...hooks._afterEach]) {
    const ms = r.timeout();
    if (ms > 0) r.timeout(ms * factor);
  }
  for (const child of suite.suites) stretchTimeouts(child, factor);
}

/** The first lines of a test's error, for the line that reports its failure as it happens. */
function firstLines(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n').slice(0, 4).join(' ').slice(0, 600);
}
