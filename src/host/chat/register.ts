/**
 * otrace in the chat (issue 29): the language model tools (tool-calls.ts), the `@otrace` participant
 * (participant.ts) and the command its links run (citations.ts), registered together.
 */
import * as vscode from 'vscode';
import type { SelectionService } from '../editor/selection';
import type { OpenTraces } from '../open-traces';
import { logError } from '../log';
import { CitedEvents, registerShowCitedEvent, type GraphOpener } from './citations';
import { chatFacts, registerChatParticipant, type ChatFacts } from './participant';
import { registerChatTools, type FollowedGraph } from './tool-calls';

/** What the integration tests ask of the chat side. */
export interface ChatApi {
  /** What `@otrace` answers without a chat model: `command` (`explain`, `why-stopped`, `compare` or none) and the prompt's text. */
  answer(command: string | undefined, prompt: string): Promise<ChatFacts | { error: string }>;
}

/** Registers the tools, the participant and the cited-event command (disposed with the extension). */
export function registerChat(context: vscode.ExtensionContext, sessions: OpenTraces, selection: SelectionService, graphs: FollowedGraph & GraphOpener): ChatApi {
  const citations = new CitedEvents();
  context.subscriptions.push(registerShowCitedEvent(citations, sessions, selection, graphs));
  // a VS Code without the chat or the language model API (an editor built without them) still gets the rest of otrace
  try {
    context.subscriptions.push(...registerChatTools(sessions, graphs));
  } catch (err) {
    logError('registering the language model tools', err);
  }
  try {
    context.subscriptions.push(registerChatParticipant(context.extensionUri, sessions, graphs, citations));
  } catch (err) {
    logError('registering the @otrace chat participant', err);
  }
  return { answer: (command, prompt) => chatFacts(sessions, graphs, citations, command, prompt) };
}
