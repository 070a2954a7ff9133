/**
 * Status bar item for the active trace: `otrace: 35 events · 6 agents · 1 stop · 2 loops`, and
 * `· in progress` while its files grow on disk, `· analysing…` (in place of the loops) while a
 * large trace's analysis runs; a click opens its graph. Shown for a trace file and for its
 * sub-agent files.
 */
import * as vscode from 'vscode';
import { summaryText } from './status-bar-text';
import type { OpenTraces } from '../open-traces';
import { logged } from '../log';
import { plainText } from '../../shared/untrusted-text';

export class TraceStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('otrace.summary', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [this.item];

  constructor(private readonly sessions: OpenTraces) {
    this.item.name = 'otrace: trace summary';
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor(() => void this.update()),
      sessions.onDidChange(() => void this.update()),
      sessions.onDidStopGrowing(() => void this.update()),
    );
    void this.update();
  }

  private async update(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor) await this.sessions.forDocument(editor.document).catch(logged(`reading ${editor.document.fileName} for the status bar`));
    const found = editor && this.sessions.containing(editor.document.uri);
    if (!found) {
      this.item.hide();
      return;
    }
    const growing = this.sessions.isGrowing(vscode.Uri.parse(found.summary.key));
    const analysing = found.summary.analysisPending === true;
    this.item.text = `${growing ? '$(pulse) ' : analysing ? '$(loading~spin) ' : '$(type-hierarchy-sub) '}${summaryText(found.summary)}${growing ? ' · in progress' : ''}`;
    this.item.tooltip = growing
      ? 'otrace: the trace is still being written (lines appended in the last two minutes). Click to open its graph.'
      : found.summary.reading
        ? found.summary.reading.stopped
          ? 'otrace: the read of this large file was cancelled or failed: its first part is shown, not analysed (its next load reads on)'
          : 'otrace: the file is large: its first part is shown (graph, hovers, outline) while the rest is read; then the whole trace, then its analysis'
        : analysing
          ? 'otrace: the trace is read and its graph can open; its analysis (stops, loops, credit, findings) is still running'
          : found.summary.analysisError !== undefined
            ? plainText`otrace: the trace is shown, not analysed (${found.summary.analysisError}). Click to open its graph.`
          : 'otrace: open the trace graph';
    this.item.command = { title: 'Open Trace Graph', command: 'otrace.openGraphToSide', arguments: [vscode.Uri.parse(found.summary.key)] };
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
