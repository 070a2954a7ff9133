/**
 * Traces over 50 MB: VS Code shows its "file too large" placeholder and gives extensions no text
 * document, so no decorations or hovers can exist. When such a tab becomes active, offer to reopen
 * the file in the trace graph editor (which reads it from disk).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { messageText } from '../../shared/untrusted-text';
import { logDebug } from '../log';

/** VS Code does not sync files above this size to extensions (bytes). */
export const SYNC_LIMIT_BYTES = 50 * 1024 * 1024;

export class LargeTraceNotice implements vscode.Disposable {
  private readonly told = new Set<string>();
  private readonly disposable: vscode.Disposable;

  constructor(private readonly graphViewType: string) {
    this.disposable = vscode.window.tabGroups.onDidChangeTabs(() => this.check());
    this.check();
  }

  private check(): void {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (!(input instanceof vscode.TabInputText) || input.uri.scheme !== 'file' || !/\.jsonl?$/i.test(input.uri.fsPath)) return;
    const key = input.uri.toString();
    if (this.told.has(key) || vscode.workspace.textDocuments.some((d) => d.uri.toString() === key)) return;
    let size: number;
    try {
      size = fs.statSync(input.uri.fsPath).size;
    } catch (err) {
      logDebug(`cannot see the size of ${input.uri.fsPath}`, err);
      return;
    }
    if (size <= SYNC_LIMIT_BYTES) return;
    this.told.add(key);
    void vscode.window
      .showInformationMessage(messageText`otrace: ${path.basename(input.uri.fsPath)} is ${Math.round(size / 1024 / 1024)} MB, too large for the text editor's inline analysis. Open it in the trace graph?`, 'Reopen in Graph')
      .then((choice) => {
        if (choice) void vscode.commands.executeCommand('vscode.openWith', input.uri, this.graphViewType);
      });
  }

  dispose(): void {
    this.disposable.dispose();
  }
}
