/**
 * Planted for test/unit/shared/untrusted-sinks.test.ts: each surface once with untrusted text
 * as it is (must be found unsafe) and once through its tag (must be found safe). Never run.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { labelText, markdownText, messageText, plainText, symbolText } from '../../../../src/shared/untrusted-text';

export function planted(fileName: string, item: vscode.StatusBarItem, range: vscode.Range, editor: vscode.TextEditor, type: vscode.TextEditorDecorationType): unknown[] {
  const name = path.basename(fileName);
  void vscode.window.showInformationMessage(`otrace: the event of ${name} names no source prompt.`);
  void vscode.window.showInformationMessage(messageText`otrace: the event of ${name} names no source prompt.`);
  item.text = `$(pulse) ${name}`;
  item.text = labelText`$(pulse) ${name}`;
  void vscode.window.showQuickPick([{ label: name }]);
  void vscode.window.showQuickPick([{ label: labelText`${name}` }]);
  editor.setDecorations(type, [{ range, renderOptions: { before: { contentText: `agent: ${name}` } } }]);
  editor.setDecorations(type, [{ range, renderOptions: { before: { contentText: plainText`agent: ${name}` } } }]);
  return [
    new vscode.MarkdownString(`**${name}**`),
    new vscode.MarkdownString(markdownText`**${name}**`),
    new vscode.CodeLens(range, { title: `agent: ${name}`, command: 'otrace.showLane' }),
    new vscode.CodeLens(range, { title: labelText`agent: ${name}`, command: 'otrace.showLane' }),
    new vscode.Diagnostic(range, `bad line in ${name}`),
    new vscode.Diagnostic(range, plainText`bad line in ${name}`),
    // plain text is not enough for a symbol: Go to Symbol renders `$(icon)` in its container's name
    new vscode.DocumentSymbol(plainText`${name}`, plainText`of ${name}`, vscode.SymbolKind.Class, range, range),
    new vscode.DocumentSymbol(symbolText`${name}`, symbolText`of ${name}`, vscode.SymbolKind.Class, range, range),
  ];
}
