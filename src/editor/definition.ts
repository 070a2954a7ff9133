/**
 * Go to Definition (F12, Ctrl+click) on an event: its source prompt, by the rule of
 * {@link sourcePromptOf}. Only targets the openable-file policy lets open directly are returned;
 * a path outside the workspace and the trace's folder needs "otrace: Go to Source Prompt", which
 * asks first (a definition provider cannot ask: VS Code also calls it on Ctrl+hover).
 */
import * as vscode from 'vscode';
import { sourcePromptOf } from '../session/source-prompt';
import { eventAtPosition, promptLocation } from './source-command';
import type { TraceSessions } from './trace-sessions';

export class TraceDefinition implements vscode.DefinitionProvider {
  constructor(private readonly sessions: TraceSessions) {}

  async provideDefinition(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Location | undefined> {
    const at = await eventAtPosition(this.sessions, document, position);
    const target = at && sourcePromptOf(at.snapshot, at.index);
    return target && promptLocation(at.snapshot, target);
  }
}
