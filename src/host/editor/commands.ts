/**
 * The commands that join the trace text and the graph: Show Event in Graph, Explain (a finding in
 * the graph's details pane), show an agent's lane, pick among the events that use a prompt, and
 * Toggle Inline Analysis. Arguments come from hover and CodeLens links (JSON objects naming the
 * session key and an event or finding index); with none, the event at the cursor is meant.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GraphPanels } from '../panel/graph-panels';
import type { GraphView } from '../panel/graph-view';
import type { TraceDecorator } from './decorations';
import { labelText } from '../../shared/untrusted-text';
import type { SelectionService } from './selection';
import { eventAtCursor, showEventRecord } from './source-command';
import { registerEventContent } from './event-content';
import type { OpenTraces } from '../open-traces';
import type { StatedOutcome } from './stated-outcomes';

/** Registers the commands; returns their disposables. */
export function registerTraceCommands(sessions: OpenTraces, selection: SelectionService, panels: GraphPanels, decorator: TraceDecorator): vscode.Disposable[] {
  /** Opens (or reveals) the graph of a session, without taking focus from where the user is. */
  const graphOf = (trace: string): GraphView | undefined => {
    const uri = vscode.Uri.parse(trace);
    panels.openToSide(uri);
    return panels.viewFor(uri);
  };
  return [
    ...registerEventContent(sessions, () => cursorRef(sessions)),
    vscode.commands.registerCommand('otrace.showInGraph', async (ref?: { trace: string; index: number }) => {
      const at = ref && typeof ref.trace === 'string' && typeof ref.index === 'number' ? ref : await cursorRef(sessions);
      if (!at) return;
      graphOf(at.trace);
      selection.select(at.trace, at.index, 'command');
    }),
    vscode.commands.registerCommand('otrace.explainFinding', (ref?: { trace: string; finding: number }) => {
      if (!ref || typeof ref.trace !== 'string' || typeof ref.finding !== 'number') return;
      graphOf(ref.trace)?.explain(ref.finding);
    }),
    vscode.commands.registerCommand('otrace.showLane', (ref?: { trace: string; agent: string; stamp?: number; events?: number[] }) => {
      if (!ref || typeof ref.trace !== 'string' || typeof ref.agent !== 'string') return;
      const events = Array.isArray(ref.events) && ref.events.length <= 2 && ref.events.every((i) => Number.isSafeInteger(i) && i >= 0) ? ref.events : undefined;
      graphOf(ref.trace)?.showLane(ref.agent, typeof ref.stamp === 'number' && events ? { stamp: ref.stamp, events } : undefined);
    }),
    vscode.commands.registerCommand('otrace.showEvents', async (ref?: { trace: string; indices: number[] }) => {
      const summary = ref && sessions.peek(vscode.Uri.parse(ref.trace));
      if (!summary || !Array.isArray(ref.indices)) return;
      const places = await Promise.all(ref.indices.map((index) => sessions.engine.eventPlace(summary.key, summary.stamp, index)));
      const items = places
        .filter((p) => p !== undefined)
        .map((p) => ({ index: p.index, label: labelText`${p.type} · ${p.agent}`, description: labelText`line ${p.range.start.line + 1} of ${path.basename(p.file || summary.path)}` }));
      const pick = items.length === 1 ? items[0] : await vscode.window.showQuickPick(items, { placeHolder: 'Events that use this prompt' });
      if (!pick) return;
      await showEventRecord(sessions, summary, pick.index, { preview: true });
      selection.select(summary.key, pick.index, 'command');
    }),
    vscode.commands.registerCommand('otrace.setOutcome', (uri?: vscode.Uri, outcome?: string) =>
      setOutcome(sessions, uri instanceof vscode.Uri ? uri : activeTrace(sessions, panels), outcome === 'failure' || outcome === 'success' || outcome === 'trace' ? outcome : undefined),
    ),
    vscode.commands.registerCommand('otrace.toggleInlineAnalysis', () => {
      const on = decorator.toggle();
      vscode.window.setStatusBarMessage(`otrace: inline analysis ${on ? 'on' : 'off'}`, 3000);
    }),
  ];
}

async function cursorRef(sessions: OpenTraces): Promise<{ trace: string; index: number } | undefined> {
  const at = await eventAtCursor(sessions, vscode.window.activeTextEditor);
  if (!at) {
    void vscode.window.showInformationMessage('otrace: put the cursor on an event of a trace file first.');
    return undefined;
  }
  return { trace: at.summary.key, index: at.index };
}

/** The trace of the active editor when it is one, else the trace the graph that follows the active trace shows. */
function activeTrace(sessions: OpenTraces, panels: GraphPanels): vscode.Uri | undefined {
  const doc = vscode.window.activeTextEditor?.document.uri;
  if (doc && sessions.peek(doc)) return doc;
  return panels.followingView?.traceUri;
}

/**
 * otrace: Set the Run's Outcome…: the user says whether the run failed or succeeded (a benchmark log
 * records no outcome of its own), and the trace is analysed again by it: a failed run gets its
 * decisive error found and credit signed by the failure. "As the trace says" goes back to its own
 * signal. `given` ('failure', 'success', 'trace') answers without the pick.
 */
async function setOutcome(sessions: OpenTraces, uri: vscode.Uri | undefined, given?: StatedOutcome | 'trace'): Promise<void> {
  if (!uri) {
    void vscode.window.showInformationMessage('otrace: open a trace first, then set its outcome.');
    return;
  }
  const name = path.basename(uri.fsPath);
  const stated = sessions.statedOutcome(uri);
  const items = [
    { label: 'Failed', description: stated === 'failure' ? 'set' : '', detail: 'The run missed its goal: find the decisive error, sign credit by the failure.', value: 'failure' },
    { label: 'Succeeded', description: stated === 'success' ? 'set' : '', detail: 'The run reached its goal: sign credit by the success.', value: 'success' },
    { label: 'As the trace says', description: stated === undefined ? 'set' : '', detail: "The trace's own signal (a reward, task_success, an error stop), or none.", value: undefined },
  ] as const satisfies readonly (vscode.QuickPickItem & { value: StatedOutcome | undefined })[];
  // given (a keybinding's or a script's argument: 'failure', 'success', 'trace'): no question asked
  const pick = given ? items.find((i) => i.value === (given === 'trace' ? undefined : given))! : await vscode.window.showQuickPick(items, { placeHolder: labelText`How did the run in ${name} end? otrace blames and credits by it`, title: "otrace: Set the Run's Outcome" });
  if (!pick) return;
  await sessions.setOutcome(uri, pick.value);
  vscode.window.setStatusBarMessage(labelText`otrace: ${name} analysed as ${pick.value === 'failure' ? 'failed' : pick.value === 'success' ? 'succeeded' : 'the trace says'}`, 5000);
}
