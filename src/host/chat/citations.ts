/**
 * The events `@otrace` cites, by a number of ours: a chat answer's link runs `otrace.chat.showEvent`
 * with that number only (no path, id or other trace string goes into a command link), and the
 * command looks up which trace and event it means, opens the trace's graph beside without taking the
 * keyboard, selects the event there and shows its record in the text.
 */
import * as vscode from 'vscode';
import type { OpenTraces } from '../open-traces';
import type { SelectionService } from '../editor/selection';
import { showEventRecord } from '../editor/source-command';
import { SHOW_CITED_EVENT } from './answer-text';

/** Citations kept; the oldest are forgotten past this (their links then do nothing). */
const KEPT = 10_000;

/** The cited events: number -> trace file path and event index. */
export class CitedEvents {
  private next = 1;
  private readonly cited = new Map<number, { path: string; index: number }>();
  private readonly numbers = new Map<string, number>();

  /** The number of event `index` of the trace file at `tracePath` (the same number for the same event). */
  cite(tracePath: string, index: number): number {
    const key = `${index} ${tracePath}`;
    const known = this.numbers.get(key);
    if (known !== undefined) return known;
    const n = this.next++;
    this.cited.set(n, { path: tracePath, index });
    this.numbers.set(key, n);
    if (this.cited.size > KEPT) {
      const [oldest, what] = this.cited.entries().next().value!;
      this.cited.delete(oldest);
      this.numbers.delete(`${what.index} ${what.path}`);
    }
    return n;
  }

  /** What number `n` cites, or undefined. */
  get(n: unknown): { path: string; index: number } | undefined {
    return typeof n === 'number' ? this.cited.get(n) : undefined;
  }
}

/** The graph panels, as the command uses them. */
export interface GraphOpener {
  openToSide(uri: vscode.Uri): unknown;
}

/** Registers `otrace.chat.showEvent` (a cited event's link); returns its disposable. */
export function registerShowCitedEvent(citations: CitedEvents, sessions: OpenTraces, selection: SelectionService, graphs: GraphOpener): vscode.Disposable {
  return vscode.commands.registerCommand(SHOW_CITED_EVENT, async (n?: unknown) => {
    const at = citations.get(n);
    if (!at) return;
    const uri = sessions.all().find((s) => s.path === at.path)?.key;
    const traceUri = uri ? vscode.Uri.parse(uri) : vscode.Uri.file(at.path);
    const summary = await sessions.forUri(traceUri);
    if (!summary) return;
    graphs.openToSide(traceUri);
    selection.select(summary.key, at.index, 'command');
    // the chat keeps the keyboard: the record is shown, not focused
    await showEventRecord(sessions, summary, at.index, { preserveFocus: true, preview: true });
  });
}
