/**
 * Comparing two runs the way VS Code compares files (issue 28): "otrace: Select Trace for Compare" and
 * "otrace: Compare Trace with Selected" (Explorer and editor title menus), "otrace: Compare Trace with…"
 * (palette: a quick pick of the open and workspace trace files, or a file dialog), and "otrace:
 * Next Difference" / "Previous Difference" for the compare panel last active. Commands that open or
 * step a comparison return its panel's state (tests read it).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { labelText, type LabelText } from '../../shared/untrusted-text';
import type { OpenTraces } from '../open-traces';
import { ComparePanel, type CompareState } from './compare-panel';

/** Context key: a trace is selected for compare ("Compare Trace with Selected" shows). */
const SELECTED_KEY = 'otrace.traceSelectedForCompare';
/** Workspace trace files listed in "Compare Trace with…" at most. */
const MAX_LISTED = 200;

/** A quick pick item of "Compare Trace with…": a trace file (or Browse…); trace file names are untrusted. */
interface PickItem extends vscode.QuickPickItem {
  label: LabelText;
  description?: LabelText;
  detail?: LabelText;
  uri?: vscode.Uri;
}

/** The compare panels, the trace selected for compare, and their commands. */
export class ComparePanels implements vscode.Disposable {
  private selected: vscode.Uri | undefined;
  private readonly panels = new Set<ComparePanel>();
  /** The panel last active (the step commands go to it). */
  private active: ComparePanel | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly sessions: OpenTraces,
  ) {}

  /** The commands, to push into the extension's subscriptions. */
  registerCommands(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('otrace.selectForCompare', (uri?: unknown) => this.select(uri)),
      vscode.commands.registerCommand('otrace.compareWithSelected', (uri?: unknown) => this.compareWithSelected(uri)),
      vscode.commands.registerCommand('otrace.compareTraceWith', (uri?: unknown) => this.compareWith(uri)),
      vscode.commands.registerCommand('otrace.nextDifference', () => this.step(1)),
      vscode.commands.registerCommand('otrace.previousDifference', () => this.step(-1)),
    ];
  }

  /** Opens the comparison of A with B in a new panel; resolves once its first divergence is selected. */
  async compare(a: vscode.Uri, b: vscode.Uri): Promise<ComparePanel> {
    const panel = new ComparePanel(this.extensionUri, this.sessions, a, b);
    this.panels.add(panel);
    this.active = panel;
    panel.panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) this.active = panel;
    });
    panel.onDidDispose = () => {
      this.panels.delete(panel);
      if (this.active === panel) this.active = [...this.panels].pop();
    };
    await panel.ready;
    return panel;
  }

  private async select(arg: unknown): Promise<CompareState | undefined> {
    const uri = targetUri(arg, this.sessions);
    if (!uri) {
      void vscode.window.showInformationMessage('otrace: open or pick a trace file to select it for compare.');
      return undefined;
    }
    this.selected = uri;
    await vscode.commands.executeCommand('setContext', SELECTED_KEY, true);
    // said, as VS Code's own "Select for Compare" shows nothing either but the menu item it adds: the next step named
    vscode.window.setStatusBarMessage(labelText`otrace: ${path.basename(uri.fsPath)} selected as run A: now "otrace: Compare Trace with Selected" on run B`, 10_000);
    return undefined;
  }

  private async compareWithSelected(arg: unknown): Promise<CompareState | undefined> {
    const b = targetUri(arg, this.sessions);
    if (!this.selected) {
      void vscode.window.showInformationMessage('otrace: select a trace for compare first (otrace: Select Trace for Compare).');
      return undefined;
    }
    if (!b) {
      void vscode.window.showInformationMessage('otrace: open or pick the trace file to compare with the selected one.');
      return undefined;
    }
    return (await this.compare(this.selected, b)).state();
  }

  /** "Compare Trace with…": the active trace (or `arg`) against one picked from the open and workspace traces, or from a file dialog. */
  private async compareWith(arg: unknown): Promise<CompareState | undefined> {
    const a = targetUri(arg, this.sessions) ?? (await this.pick(labelText`Pick run A: the trace to compare`, undefined));
    if (!a) return undefined;
    const b = await this.pick(labelText`Compare ${path.basename(a.fsPath)} with…`, a);
    if (!b) return undefined;
    return (await this.compare(a, b)).state();
  }

  /**
   * A trace file picked from the open sessions and the workspace's .json/.jsonl files, or from a file dialog.
   * @param except run A: neither it nor the files its session read (its sub-agents' transcripts: part of
   *   the same run, not another run to compare with) are listed.
   */
  private async pick(placeHolder: LabelText, except: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
    const seen = new Set<string>(except ? [except.toString()] : []);
    const own = except && this.sessions.peek(except);
    if (own) for (const file of own.files) if (file) seen.add(this.sessions.fileOf(own, file).toString());
    const items: PickItem[] = [];
    const add = (uri: vscode.Uri, detail: LabelText) => {
      if (seen.has(uri.toString())) return;
      seen.add(uri.toString());
      items.push({ label: labelText`${path.basename(uri.fsPath)}`, description: labelText`${vscode.workspace.asRelativePath(uri)}`, detail, uri });
    };
    for (const s of this.sessions.all()) add(vscode.Uri.parse(s.key), labelText`open in otrace`);
    const found = await vscode.workspace.findFiles('**/*.{jsonl,json}', '**/node_modules/**', MAX_LISTED);
    for (const uri of found.sort((x, y) => x.fsPath.localeCompare(y.fsPath))) add(uri, labelText`in the workspace`);
    items.push({ label: labelText`Browse…`, detail: labelText`pick a trace file with a file dialog` });
    const chosen = await vscode.window.showQuickPick(items, { placeHolder, matchOnDescription: true });
    if (!chosen) return undefined;
    if (chosen.uri) return chosen.uri;
    const files = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Compare', filters: { 'Trace files': ['jsonl', 'json'], 'All files': ['*'] } });
    return files?.[0];
  }

  /** Steps the active compare panel to its next (1) or previous (−1) difference. */
  private async step(direction: 1 | -1): Promise<CompareState | undefined> {
    const panel = this.active;
    if (!panel) {
      void vscode.window.showInformationMessage('otrace: no comparison is open (otrace: Compare Trace with…).');
      return undefined;
    }
    await panel.step(direction);
    return panel.state();
  }

  dispose(): void {
    for (const p of [...this.panels]) p.dispose();
  }
}

/** The file a command is about: its argument (an Explorer or editor title URI), else the active trace editor's session. */
function targetUri(arg: unknown, sessions: OpenTraces): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  const editor = vscode.window.activeTextEditor;
  if (editor) return vscode.Uri.parse(sessions.containing(editor.document.uri)?.summary.key ?? editor.document.uri.toString());
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom) return input.uri;
  return undefined;
}
