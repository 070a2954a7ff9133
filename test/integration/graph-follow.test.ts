/**
 * "Follow in editor" with answers out of order: the graph's follow moves the trace editor's cursor
 * to each event stepped to, and that cursor move comes back as a selection. When the engine answered
 * an earlier step after a later one (a busy worker), the earlier step moved the cursor last and its
 * selection event selected the earlier event in the graph again: the graph snapped back one stop
 * (CI: "timed out waiting for the stop 199 to be current … {current: 116}"). Only the latest step
 * may move the cursor. The engine's answer for the first step is held back through the test API.
 * Show in Trace File and a step's follow are made in the order asked: its editor opened after the
 * next step's follow had moved the cursor, and that move came back as the user's (CI: Home after Enter lost).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OtraceApi } from '../../src/host/extension';
import type { ToWorker } from '../../src/engine/worker-protocol';
import { evalInWebview } from './bridge';
import { postAsHost, until } from './wait';

const ROOT = vscode.extensions.getExtension('otrace.otrace')!.extensionPath;
const ROLLOUT = path.join(ROOT, 'test', 'fixtures', 'codex', 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl');
const frame = `body[data-state="ready"][data-title="${path.basename(ROLLOUT)}"]`;
const current = () => evalInWebview<number | null>('() => globalThis.__otrace.current()', { selector: frame });

describe('graph follow in editor, answers out of order', function () {
  this.timeout(120_000);
  let api: OtraceApi;
  before(async () => {
    api = (await vscode.extensions.getExtension<OtraceApi>('otrace.otrace')!.activate())!;
  });
  after(async () => {
    api.setEngineProbe(undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  /** Opens the rollout in column one and its graph beside it; resolves with the trace editor once the graph is drawn. */
  async function openRollout(): Promise<vscode.TextEditor> {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(ROLLOUT), { viewColumn: vscode.ViewColumn.One });
    await vscode.commands.executeCommand('otrace.openGraphToSide');
    await evalInWebview('1', { selector: frame, timeoutMs: 60_000 });
    return editor;
  }

  /** Holds the engine's answer to the next question of where event `index` is until `release()`; `held()` once it was asked. */
  function holdEventPlace(index: number): { held: () => boolean; release: () => void } {
    let release!: () => void;
    const gate = new Promise<void>((done) => (release = done));
    let held = false;
    api.setEngineProbe((m: ToWorker) => {
      if (m.kind === 'call' && m.method === 'eventPlace' && m.args[2] === index && !held) {
        held = true;
        return gate;
      }
      return undefined;
    });
    return { held: () => held, release };
  }

  it('a step whose answer comes after a later step\'s moves neither the cursor nor the graph back', async () => {
    const editor = await openRollout();
    assert.equal(await evalInWebview<boolean>(`() => document.getElementById('follow').checked`, { selector: frame }), true, 'follow in editor is on by default');
    const order = await evalInWebview<number[]>('() => globalThis.__otrace.timeline()', { selector: frame });
    const summary = api.sessions.peek(vscode.Uri.file(ROLLOUT))!;
    const lineOf = async (index: number) => (await api.sessions.engine.eventPlace(summary.key, summary.stamp, index))!.range.start.line;
    const [early, late] = [order[1], order[order.length - 1]];
    const [earlyLine, lateLine] = [await lineOf(early), await lineOf(late)];
    assert.notEqual(earlyLine, lateLine);

    // The reopened editor may keep the cursor where an earlier test left it (on the last record):
    // wait for the follow to put it on the first event's record, or the wait for the last step's
    // cursor below could pass before that step was taken (CI: graph still on the early step).
    const firstLine = await lineOf(order[0]);
    assert.notEqual(firstLine, lateLine);
    await vscode.commands.executeCommand('otrace.graph.firstEvent');
    await until('the first event, its record under the cursor', async () => (await current()) === order[0] && editor.selection.active.line === firstLine, 10_000);
    // the engine's answer to where the early event is comes only when released
    const { held, release } = holdEventPlace(early);
    await vscode.commands.executeCommand('otrace.graph.nextEvent');
    await until('the early step to reach the engine', () => held(), 10_000);
    await vscode.commands.executeCommand('otrace.graph.lastEvent');
    await until('the last event, its record under the cursor', async () => editor.selection.active.line === lateLine && (await current()) === late, 20_000);

    release();
    // two more round trips to the engine (where, then which long string): answered after the held one and what it asked next
    await api.sessions.engine.eventPlace(summary.key, summary.stamp, late);
    await api.sessions.engine.eventString(summary.key, summary.stamp, late);
    await api.sessions.engine.eventPlace(summary.key, summary.stamp, late);
    assert.equal(editor.selection.active.line, lateLine, `the cursor stays on the last event's record (line ${lateLine + 1}), not the early step's (line ${earlyLine + 1})`);
    assert.equal(await current(), late, 'the graph stays on the last event');
    assert.equal(api.selection.selection?.index, late, 'the shared selection stays on the last event');
  });

  it('follow in editor\'s cursor moves are not read back as the user\'s choice (late, they moved the graph back); a move otrace did not make still selects', async () => {
    const editor = await openRollout();
    const order = await evalInWebview<number[]>('() => globalThis.__otrace.timeline()', { selector: frame });
    const summary = api.sessions.peek(vscode.Uri.file(ROLLOUT))!;
    const startOf = async (index: number) => (await api.sessions.engine.eventPlace(summary.key, summary.stamp, index))!.range.start;
    const firstLine = (await startOf(order[0])).line;
    await vscode.commands.executeCommand('otrace.graph.firstEvent');
    await until('the first event, its record under the cursor', async () => (await current()) === order[0] && editor.selection.active.line === firstLine, 10_000);
    // what asks the engine which event is under a cursor: the editor's selection events
    const asked: string[] = [];
    api.setEngineProbe((m: ToWorker) => {
      if (m.kind === 'call' && m.method === 'eventAt') asked.push(JSON.stringify(m.args[3]));
      return undefined;
    });
    for (let k = 1; k <= 5; k++) {
      const line = (await startOf(order[k])).line;
      await vscode.commands.executeCommand('otrace.graph.nextEvent');
      await until(`step ${k}: the cursor on its record (line ${line + 1})`, () => editor.selection.active.line === line, 20_000);
    }
    // A move otrace did not make (as the Outline or Go to Line make): its selection event comes after the follow's (in order), and selects.
    const chosen = order[10];
    const at = await startOf(chosen);
    editor.selection = new vscode.Selection(at.line, at.character, at.line, at.character);
    await until('the graph on the event the cursor was put on', async () => (await current()) === chosen, 20_000);
    assert.deepEqual(asked, [JSON.stringify({ line: at.line, character: at.character })], 'the engine was asked only about the move otrace did not make');
  });

  it('Show in Trace File, then a step before its editor opened: the cursor ends on the step\'s record and the graph stays on the step', async () => {
    const editor = await openRollout();
    const order = await evalInWebview<number[]>('() => globalThis.__otrace.timeline()', { selector: frame });
    const summary = api.sessions.peek(vscode.Uri.file(ROLLOUT))!;
    const lineOf = async (index: number) => (await api.sessions.engine.eventPlace(summary.key, summary.stamp, index))!.range.start.line;
    const [first, shown] = [order[0], order[order.length - 1]];
    const [firstLine, shownLine] = [await lineOf(first), await lineOf(shown)];
    assert.notEqual(firstLine, shownLine);
    await vscode.commands.executeCommand('otrace.graph.firstEvent');
    await until('the first event, its record under the cursor', async () => (await current()) === first && editor.selection.active.line === firstLine, 20_000);
    // the last event selected as the host selects it (the cursor stays), then shown in the trace file
    await postAsHost(`{ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: ${shown} }`, frame);
    assert.equal(await current(), shown);
    // Show in Trace File (Enter in the graph) waits for the engine's answer, released only after the next step
    const { held, release } = holdEventPlace(shown);
    await evalInWebview(`() => document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))`, { selector: frame });
    await until('Show in Trace File to ask the engine where the event is', () => held(), 10_000);
    const lines: number[] = [];
    const watch = vscode.window.onDidChangeTextEditorSelection((e) => {
      if (e.textEditor.document === editor.document) lines.push(e.selections[0].active.line);
    });
    try {
      await vscode.commands.executeCommand('otrace.graph.firstEvent');
      await until('the graph on the first event', async () => (await current()) === first, 10_000);
      release();
      // in the order asked: the record shown, then the step's record
      await until(`the cursor on the shown record (line ${shownLine + 1}), then on the first event's (line ${firstLine + 1})`, () => {
        const k = lines.indexOf(shownLine);
        return k >= 0 && lines.slice(k + 1).includes(firstLine) && editor.selection.active.line === firstLine;
      }, 20_000);
    } finally {
      watch.dispose();
    }
    // a round trip to the engine: a selection the cursor moves sent back would have asked it which event is there before this answer
    await api.sessions.engine.eventPlace(summary.key, summary.stamp, first);
    assert.equal(editor.selection.active.line, firstLine, `the cursor stays on the first event's record; lines seen: ${lines.map((l) => l + 1).join(', ')}`);
    assert.equal(await current(), first, 'the graph stays on the first event');
    assert.equal(api.selection.selection?.index, first, 'the shared selection stays on the first event');
  });
});
