/**
 * Go to Definition (F12, Ctrl+click) on an event: its source prompt, by the rule of
 * src/engine/source-prompt.ts. Only targets the openable-file policy lets open directly are
 * returned; a path outside the workspace and the trace's folder needs "otrace: Go to Source
 * Prompt", which asks first (a definition provider cannot ask: VS Code also calls it on Ctrl+hover).
 * A prompt that is an event on a long line (inside a MAST log string, a span of a one-line OTLP
 * export: the editor does not draw it) is given at its place in the text the jump shows for that
 * line (src/host/editor/event-content.ts), as "Go to Source Prompt" opens it.
 */
import * as vscode from 'vscode';
import { eventAtPosition, promptLocation } from './source-command';
import { stringLocation } from './event-content';
import type { OpenTraces } from '../open-traces';

export class TraceDefinition implements vscode.DefinitionProvider {
  constructor(private readonly sessions: OpenTraces) {}

  async provideDefinition(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Location | undefined> {
    const at = await eventAtPosition(this.sessions, document, position);
    const prompt = at && (await this.sessions.engine.sourcePrompt(at.summary.key, at.summary.stamp, at.index));
    const location = prompt && promptLocation(at.summary, prompt);
    if (!location) return undefined; // none, or a file the policy does not let open directly
    if (prompt.target?.kind === 'event') {
      const inString = await this.sessions.engine.eventString(at.summary.key, at.summary.stamp, prompt.target.index);
      if (inString) return stringLocation(at.summary.key, inString);
    }
    return location;
  }
}
