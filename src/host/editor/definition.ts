/**
 * Go to Definition (F12, Ctrl+click) on an event: its source prompt, by the rule of
 * src/engine/source-prompt.ts. Only targets the openable-file policy lets open directly are
 * returned; a path outside the workspace and the trace's folder needs "otrace: Go to Source
 * Prompt", which asks first (a definition provider cannot ask: VS Code also calls it on Ctrl+hover).
 */
import * as vscode from 'vscode';
import { eventAtPosition, promptLocation } from './source-command';
import type { OpenTraces } from '../open-traces';

export class TraceDefinition implements vscode.DefinitionProvider {
  constructor(private readonly sessions: OpenTraces) {}

  async provideDefinition(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Location | undefined> {
    const at = await eventAtPosition(this.sessions, document, position);
    const prompt = at && (await this.sessions.engine.sourcePrompt(at.summary.key, at.summary.stamp, at.index));
    return prompt && promptLocation(at.summary, prompt);
  }
}
