/**
 * CodeLens in trace files: on stops and loops (`Explain`: the finding in the graph's details pane)
 * and on spawns (`agent: <name> · N events`: that lane in the graph). In a prompt file that an open
 * trace points at: `used by 3 events in demo.otrace.jsonl`. The engine lists the items; titles
 * escape `$(icon)` syntax here: names come from the trace. `otrace.codeLens.enabled` turns them off.
 * A file of over 10,000 lines gets the lenses of its visible lines (and 200 around them), asked
 * again when a scroll settles, as its decorations are.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LensItem, LineSpan } from '../../engine/query-types';
import { labelText, plainLabel, type LabelText } from '../../shared/untrusted-text';
import { toRange, type OpenTraces } from '../open-traces';

/** Lenses of stops, loops and spawns in a trace file or one of its sub-agent files. */
export class TraceCodeLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  private scrollTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly sessions: OpenTraces) {
    sessions.onDidChange(() => this.changed.fire());
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('otrace.codeLens')) this.changed.fire();
    });
    // a large file's lenses follow its visible lines: ask again once a scroll settles
    vscode.window.onDidChangeTextEditorVisibleRanges((e) => {
      if (e.textEditor.document.lineCount <= LENS_ALL_LINES || !this.sessions.containing(e.textEditor.document.uri)) return;
      clearTimeout(this.scrollTimer);
      this.scrollTimer = setTimeout(() => this.changed.fire(), 50);
    });
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!enabled()) return [];
    await this.sessions.forDocument(document);
    const found = this.sessions.containing(document.uri);
    const items = found && (await this.sessions.engine.codeLenses(found.summary.key, found.summary.stamp, found.file, linesShown(document)));
    return items ? items.map((item) => traceLens(found.summary.key, found.summary.stamp, item)) : [];
  }
}

/** Files of more lines than this get the lenses of their visible lines only (a file of 100k spawns would be 100k CodeLens objects made on the host thread). */
export const LENS_ALL_LINES = 10_000;

/** Lines of lenses above and below the visible ones, so a scroll shows lenses before the new ones come. */
const LENS_MARGIN_LINES = 200;

/** The lines whose lenses a large document gets (its visible lines in every editor, with a margin; the top of the file when none shows it); undefined (all) for a file of up to {@link LENS_ALL_LINES} lines. */
function linesShown(document: vscode.TextDocument): LineSpan[] | undefined {
  if (document.lineCount <= LENS_ALL_LINES) return undefined;
  const ranges = vscode.window.visibleTextEditors.filter((e) => e.document === document).flatMap((e) => e.visibleRanges);
  if (ranges.length === 0) return [{ start: 0, end: 2 * LENS_MARGIN_LINES }];
  return ranges.map((r) => ({ start: Math.max(0, r.start.line - LENS_MARGIN_LINES), end: r.end.line + LENS_MARGIN_LINES }));
}

/** The lens of one item (of the snapshot `stamp`): Explain a stop or loop, or show a spawned agent's lane. */
function traceLens(trace: string, stamp: number, item: LensItem): vscode.CodeLens {
  const at = toRange({ start: item.at, end: item.at }).start;
  if ('finding' in item) {
    const f = item.finding;
    const title = f.kind === 'loop' ? `${f.inline}: ${f.message}` : `${f.inline}${f.mode === 'ok' ? '' : ` — ${f.message}`}`;
    return lens(at, labelText`${plainLabel(title, 110)} — Explain`, 'otrace.explainFinding', { trace, finding: f.index });
  }
  const { agent, label, events, first, last } = item.lane;
  // the agent's events, for a graph that folds its lane into a group (they name events of this snapshot)
  const span = first === undefined || last === undefined ? {} : { stamp, events: first === last ? [first] : [first, last] };
  // named as its lane is in the graph (`Explore existing codebase`), its id in the tooltip
  const title = labelText`agent: ${plainLabel(label ?? agent, 60)} · ${events.toLocaleString('en-US')} event${events === 1 ? '' : 's'}`;
  return lens(at, title, 'otrace.showLane', { trace, agent, ...span }, label === undefined ? undefined : labelText`agent ${plainLabel(agent, 120)}: show its lane in the graph`);
}

/** Lenses in prompt files that open traces name in `source.path`. */
export class PromptCodeLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly sessions: OpenTraces) {
    sessions.onDidChange(() => this.changed.fire());
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!enabled() || document.uri.scheme !== 'file') return [];
    const lenses: vscode.CodeLens[] = [];
    for (const summary of this.sessions.all()) {
      if (!summary.promptFiles.includes(document.uri.fsPath)) continue;
      const users = await this.sessions.engine.promptUsers(summary.key, summary.stamp, document.uri.fsPath);
      if (!users?.length) continue;
      const first = users.reduce((m, u) => Math.min(m, u.line), Infinity);
      lenses.push(
        lens(
          new vscode.Position(Math.max(0, first - 1), 0),
          labelText`used by ${users.length} event${users.length === 1 ? '' : 's'} in ${path.basename(summary.path)}`,
          'otrace.showEvents',
          { trace: summary.key, indices: users.map((u) => u.index) },
        ),
      );
    }
    return lenses;
  }
}

function lens(at: vscode.Position, title: LabelText, command: string, arg: unknown, tooltip?: LabelText): vscode.CodeLens {
  return new vscode.CodeLens(new vscode.Range(at, at), { title, command, arguments: [arg], ...(tooltip === undefined ? {} : { tooltip }) });
}


function enabled(): boolean {
  return vscode.workspace.getConfiguration('otrace').get<boolean>('codeLens.enabled', true);
}
