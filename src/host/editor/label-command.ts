/**
 * otrace: Label Event…: a person labels the event at the cursor, the event selected in the graph, or
 * the one a hover link or the graph names: "Should Have Stopped Here", "Stopped Too Early", "Decisive
 * Error", "Good Step", "Note…", and "Accept Finding" / "Reject Finding" when otrace found something
 * on the event. The label goes to the trace's sidecar (src/host/editor/human-labels.ts).
 */
import * as vscode from 'vscode';
import { LABEL_KINDS, LABEL_TITLES, type LabelKind, type NewLabel } from '../../shared/label-kinds';
import { labelText, type LabelText } from '../../shared/untrusted-text';
import type { OpenTraces } from '../open-traces';
import type { HumanLabels } from './human-labels';
import type { SelectionService } from './selection';
import { eventAtCursor } from './source-command';

/** The command's argument (hover links, the graph, keybindings, tests); every field is checked. */
export interface LabelEventArgs {
  trace: string;
  index: number;
  /** Skips the pick: this kind. */
  label?: LabelKind;
  /** With `label`: the note (a `note` label asks for it otherwise). */
  note?: string;
  /** With accept_finding / reject_finding: which of the event's findings (0-based), default the first. */
  finding?: number;
}

const DETAILS: Record<LabelKind, string> = {
  should_have_stopped: 'The run should have stopped at this event.',
  stopped_too_early: 'The run stopped here before the task was done or checked.',
  decisive_error: 'This step made the run fail.',
  good_step: 'This step helped the run.',
  note: 'A note in your own words.',
  accept_finding: "otrace's finding here is right.",
  reject_finding: "otrace's finding here is wrong.",
};

/** Registers otrace.labelEvent. */
export function registerLabelCommand(sessions: OpenTraces, selection: SelectionService, labels: HumanLabels): vscode.Disposable {
  return vscode.commands.registerCommand('otrace.labelEvent', async (args?: unknown) => {
    const ref = (await fromArgs(sessions, args)) ?? (await fromCursorOrGraph(sessions, selection));
    if (!ref) {
      void vscode.window.showInformationMessage('otrace: put the cursor on an event of a trace, or select one in the graph, to label it.');
      return false;
    }
    const { summary, index } = ref;
    const target = await sessions.engine.labelTarget(summary.key, summary.stamp, index);
    if (!target) return false;
    const given = isObject(args) ? args : {};
    let label: NewLabel | undefined;
    if (typeof given.label === 'string' && (LABEL_KINDS as readonly string[]).includes(given.label)) {
      const kind = given.label as LabelKind;
      const k = typeof given.finding === 'number' ? given.finding : 0;
      const f = target.findings[k];
      if ((kind === 'accept_finding' || kind === 'reject_finding') && !f) return false;
      label = { label: kind, ...(typeof given.note === 'string' ? { note: given.note } : {}), ...((kind === 'accept_finding' || kind === 'reject_finding') && f ? { finding: f } : {}) };
      if (kind === 'note' && !label.note) label = await askNote(label);
    } else label = await pickLabel(target);
    if (!label) return false;
    const written = await labels.add(summary, index, label);
    if (written) vscode.window.setStatusBarMessage(labelText`otrace: labelled ${target.type} of ${target.agent} "${LABEL_TITLES[label.label]}"`, 4000);
    return written;
  });
}

async function pickLabel(target: { type: string; agent: string; findings: { kind: string; mode?: string; inline: string }[] }): Promise<NewLabel | undefined> {
  // our own words, and the finding's inline text escaped: the pick's text is label text
  type Item = vscode.QuickPickItem & { label: LabelText; description?: LabelText; detail?: LabelText; make?: () => Promise<NewLabel | undefined> };
  const words = (kind: LabelKind) => ({ label: labelText`${LABEL_TITLES[kind]}`, detail: labelText`${DETAILS[kind]}` });
  const items: Item[] = (['should_have_stopped', 'stopped_too_early', 'decisive_error', 'good_step'] as const).map((kind) => ({ ...words(kind), make: () => Promise.resolve({ label: kind }) }));
  items.push({ label: labelText`Note…`, detail: labelText`${DETAILS.note}`, make: () => askNote({ label: 'note' }) });
  if (target.findings.length) {
    items.push({ label: labelText`otrace found here`, kind: vscode.QuickPickItemKind.Separator });
    for (const kind of ['accept_finding', 'reject_finding'] as const) {
      for (const f of target.findings) items.push({ ...words(kind), description: labelText`${f.inline}`, make: () => Promise.resolve({ label: kind, finding: f }) });
    }
  }
  const pick = await vscode.window.showQuickPick(items, { title: 'otrace: Label Event', placeHolder: labelText`Label ${target.type} of ${target.agent} (kept in the labels file next to the trace)` });
  return pick?.make?.();
}

async function askNote(label: NewLabel): Promise<NewLabel | undefined> {
  const note = await vscode.window.showInputBox({ title: 'otrace: Label Event — Note', prompt: 'Your note on this event (kept in the labels file next to the trace)', ignoreFocusOut: true });
  return note?.trim() ? { ...label, note: note.trim() } : undefined;
}

async function fromArgs(sessions: OpenTraces, args: unknown) {
  if (!isObject(args) || typeof args.trace !== 'string' || typeof args.index !== 'number' || !Number.isInteger(args.index)) return undefined;
  const summary = sessions.peek(vscode.Uri.parse(args.trace));
  return summary ? { summary, index: args.index } : undefined;
}

/** The event at the cursor of a trace editor, else the event selected in the graph. */
async function fromCursorOrGraph(sessions: OpenTraces, selection: SelectionService) {
  const at = await eventAtCursor(sessions, vscode.window.activeTextEditor);
  if (at) return { summary: at.summary, index: at.index };
  const selected = selection.selection;
  const summary = selected && sessions.peek(vscode.Uri.parse(selected.trace));
  return summary && selected ? { summary, index: selected.index } : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}
