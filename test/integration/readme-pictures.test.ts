/**
 * The README's pictures of a one-agent Codex rollout, a Who&When log, a Kimi session and the demo, written by the
 * test run (issue 26): each trace opened beside its text, the graph's editor group widened, the
 * whole run in view and the run's end selected (a real click on the run summary's "Ended" link),
 * then the page (1440x900, the harness's viewport) saved to test-output/. Each picture is taken
 * only once the run summary at the top of the graph says what the trace holds: what was asked,
 * who did it, how it ended and what went wrong.
 * The Claude Code session's picture is written by graph-overview.test.ts.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { clickInWebview, evalInWebview, screenshot, testLog } from './bridge';
import { until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const FIXTURES = path.join(ROOT, 'test', 'fixtures');

/** The run summary as shown above the graph, read in the webview. */
interface ShownSummary {
  /** Row key -> its text, e.g. `Asked` -> the task. */
  rows: Record<string, string>;
  /** Row key -> its hover text (the row's `title`). */
  titles: Record<string, string>;
  /** Class of the Problems row: `run-ok`, `run-error`, `run-warning` or `run-info`. */
  problemClass: string;
  /** The summary's box and the graph area's, in the webview's CSS pixels. */
  box: { top: number; bottom: number; left: number; right: number };
  graphTop: number;
  viewHeight: number;
  viewWidth: number;
}

const READ_SUMMARY = `() => {
  const run = document.getElementById('run');
  if (!run || run.hidden || !run.querySelector('.run-row')) return undefined;
  const rows = {};
  const titles = {};
  for (const r of run.querySelectorAll('.run-row')) {
    rows[r.querySelector('.run-key').textContent] = r.querySelector('.run-value').textContent;
    titles[r.querySelector('.run-key').textContent] = r.querySelector('.run-value').title;
  }
  const b = run.getBoundingClientRect();
  const problems = [...run.querySelectorAll('.run-row')].find((r) => r.querySelector('.run-key').textContent === 'Problems');
  return {
    rows,
    titles,
    problemClass: [...problems.classList].find((c) => c !== 'run-row') ?? '',
    box: { top: b.top, bottom: b.bottom, left: b.left, right: b.right },
    graphTop: document.getElementById('main').getBoundingClientRect().top,
    viewHeight: window.innerHeight,
    viewWidth: window.innerWidth,
  };
}`;

/** Width and height of a PNG file, from its IHDR chunk (bytes 16..24). */
function pngSize(file: string): { width: number; height: number } {
  const head = fs.readFileSync(file).subarray(0, 24);
  assert.equal(head.toString('latin1', 1, 4), 'PNG', `${file} is a PNG`);
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

/** The graph's size and whether it still loads windows: the same twice in a row means the layout settled. */
const READ_LAYOUT = `() => { const o = globalThis.__otrace; return JSON.stringify([o.cy.width(), o.cy.height(), o.windows().loading, document.getElementById('run').getBoundingClientRect().height]); }`;

async function settled(frame: string, what: string): Promise<void> {
  let last = '';
  await until(
    what,
    async () => {
      const now = await evalInWebview<string>(READ_LAYOUT, { selector: frame });
      const done = now === last && !JSON.parse(now)[2];
      last = now;
      return done;
    },
    20_000,
    250,
  );
}

/**
 * Opens `file` beside its text, waits for the run summary, selects the run's end with a click on
 * "Ended", widens the graph, fits the whole run and writes `test-output/<out>`; returns what the
 * run summary showed in the picture. Restores the editor widths afterwards.
 */
async function takePicture(file: string, out: string): Promise<ShownSummary> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await vscode.commands.executeCommand('workbench.action.closeSidebar');
  await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One });
  await vscode.commands.executeCommand('otrace.openGraphToSide');
  const frame = `body[data-state="ready"][data-title="${path.basename(file)}"]`;
  await evalInWebview('1', { selector: frame, timeoutMs: 60_000 });
  await until('the run summary above the graph', () => evalInWebview<ShownSummary | undefined>(READ_SUMMARY, { selector: frame }));

  const end = await evalInWebview<number | null>(`() => globalThis.__otrace.graph.run?.ended?.index ?? null`, { selector: frame });
  if (end !== null) {
    await clickInWebview('#run .run-link', { frame });
    await until('the run\'s end in the details pane', () => evalInWebview<boolean>(`() => { const d = globalThis.__otrace.details(); return !!d && d.index === ${end}; }`, { selector: frame }));
  }
  await vscode.commands.executeCommand('workbench.action.focusSecondEditorGroup');
  await vscode.commands.executeCommand('workbench.action.toggleEditorWidths');
  try {
    await settled(frame, 'the widened graph');
    await vscode.commands.executeCommand('otrace.graph.fit');
    await settled(frame, 'the whole run in view');
    const shown = await evalInWebview<ShownSummary>(READ_SUMMARY, { selector: frame });
    const written = await screenshot(path.join('test-output', out));
    const size = pngSize(written);
    testLog(`      ${out}: ${size.width}x${size.height} px, graph panel ${shown.viewWidth}x${shown.viewHeight} px, run summary ${Math.round(shown.box.bottom - shown.box.top)} px high`);
    assert.deepEqual(size, { width: 1440, height: 900 }, 'the picture is the whole 1440x900 page');
    // (a file that records labels, a benchmark's, has their row after Ended)
    assert.deepEqual(Object.keys(shown.rows), ['Asked', 'Ended', ...('Labelled' in shown.rows ? ['Labelled'] : []), 'Who', 'Spent', 'Problems']);
    // each row is one line cut at the panel's width: the whole of it on hover (a stranger at 600 px could not read the task)
    assert.deepEqual(Object.keys(shown.rows).filter((k) => !shown.titles[k]), [], `every row has its whole text on hover: ${JSON.stringify(shown.titles)}`);
    assert.ok(shown.box.top >= 0 && shown.box.bottom <= shown.graphTop + 0.5, `the run summary is above the graph: ${JSON.stringify(shown)}`);
    assert.ok(shown.box.bottom < shown.viewHeight / 2, `the run summary is at the top of the panel, in view: ${JSON.stringify(shown)}`);
    assert.ok(shown.viewWidth >= 900, `the graph has the wider part of the page: ${shown.viewWidth} px`);
    return shown;
  } finally {
    await vscode.commands.executeCommand('workbench.action.toggleEditorWidths');
  }
}

describe('README pictures in a real VS Code', function () {
  this.timeout(150_000);
  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it('a one-agent Codex rollout: its task in words, one agent, cut off after its last edit (test-output/codex-rollout.png)', async () => {
    const shown = await takePicture(path.join(FIXTURES, 'codex', 'rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl'), 'codex-rollout.png');
    assert.match(shown.rows.Asked, /^finish up the users work by rigging up the chatbot-ui to use lmstudio instead of their initial implementatiion of ollama/);
    assert.doesNotMatch(shown.rows.Asked, /REDACTED/);
    assert.match(shown.rows.Who, /^one agent, codex \(\d+ events\)$/);
    assert.match(shown.rows.Spent, /^8 min 1 s · /);
    assert.equal(shown.problemClass, 'run-error', `the rollout ends without a stop: ${shown.rows.Problems}`);
    assert.match(shown.rows.Problems, /ends without a stop/);
    assert.match(shown.rows.Ended, /^no stop at its end/, 'never "run stopped: unknown" with the last tool output');
  });

  it('a Who&When log: four agents, the run claims success, the outcome is a failure, the blame names the agent (test-output/who-and-when.png)', async () => {
    const shown = await takePicture(path.join(FIXTURES, 'who-and-when', 'Algorithm-Generated', '102.json'), 'who-and-when.png');
    assert.match(shown.rows.Asked, /^What is the highest rated \(according to IMDB\) Isabelle Adjani feature film/);
    assert.match(shown.rows.Who, /^4 agents: /);
    assert.match(shown.rows.Ended, /^failure \(.*\) · run stopped: the agent said the task is complete/, 'the recorded outcome first, then the stop that claimed success');
    // a blame is a hypothesis with its chance: a warning, not a recorded error
    assert.equal(shown.problemClass, 'run-warning');
    assert.match(shown.rows.Problems, /^⚠ .*Filmography_Expert.*estimated \d+% chance/, 'the top problem names the agent the log records as the mistake, and how likely');
    // the dataset's own labels, beside otrace's blame: a stranger sees what the benchmark says of the run
    assert.equal(shown.rows.Labelled, "decisive mistake (the dataset's label): Filmography_Expert at step 1 (event h1); otrace blames Filmography_Expert at step 1 (event h1) · correct answer (the dataset's): Nosferatu the Vampyre");
    assert.match(shown.titles.Labelled, /^decisive mistake .*\ncorrect answer/);
  });

  it('a Kimi Code CLI session: main and two sub-agents, each spawned by its Agent call (test-output/kimi-session.png)', async () => {
    const session = path.join(FIXTURES, 'kimi', 'session-1.10', '3b9e2c4a-6d1f-4e8a-9c2b-7f5a1e0d4c21', 'wire.jsonl');
    const shown = await takePicture(session, 'kimi-session.png');
    assert.match(shown.rows.Asked, /^Make the HTTP client's retry delay configurable, and look at the flaky test in the background/);
    assert.match(shown.rows.Who, /^3 agents: main .*coder.*explore/);
    // (no words: the agent's last ones came before the user's prompt that started the turn the error cut short)
    assert.match(shown.rows.Ended, /^turn ended by an error$/, 'the turn an API error cut short: neither a hand-back nor "task complete"');
    const spawned = await evalInWebview<number>(`() => globalThis.__otrace.cy.edges('[type = "spawn"]').length`, { selector: 'body[data-state="ready"][data-title="wire.jsonl"]' });
    assert.equal(spawned, 2, 'two spawn edges, main to each sub-agent');
  });

  it('the demo: six agents, the run stopped with its quality met, the repeated search found (test-output/screenshot.png)', async () => {
    const shown = await takePicture(path.join(ROOT, 'samples', 'demo.otrace.jsonl'), 'screenshot.png');
    assert.match(shown.rows.Who, /^6 agents: orchestrator /);
    assert.match(shown.rows.Asked, /^Write a one-page report on global EV sales/, 'the task the demo records, not the planner\'s plan');
    assert.match(shown.rows.Ended, /^success \(.*\) · run stopped: quality met/);
    assert.notEqual(shown.problemClass, 'run-ok', `the demo has problems to show: ${shown.rows.Problems}`);
  });
});
