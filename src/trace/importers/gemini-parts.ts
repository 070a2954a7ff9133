/**
 * Gemini API content as Gemini CLI writes it in its saved chats: `PartListUnion` (a string, one
 * `Part` or a `Part[]`) and `Content` (`{role, parts}`), from @google/genai's types (`Part`:
 * `text`, `thought`, `functionCall {id?, name, args}`, `functionResponse {id?, name, response}`,
 * `inlineData`, `fileData`, `executableCode`, `codeExecutionResult`).
 *
 * Pure: no imports of Node or vscode.
 */
import { isObject, str } from './jsonl-records';

type Json = Record<string, unknown>;

/** The parts of a `PartListUnion`: a string is one text part; anything else that is no part is dropped. */
export function partsOf(v: unknown): Json[] {
  if (typeof v === 'string') return [{ text: v }];
  if (Array.isArray(v)) return v.flatMap((p) => (typeof p === 'string' ? [{ text: p }] : isObject(p) ? [p] : []));
  return isObject(v) ? [v] : [];
}

/**
 * The text of a function response's `response` object: its `output`, else its `error`, else the
 * object as JSON (Gemini CLI writes `{output}` for a tool's result and `{error}` for a failure,
 * packages/core/src/utils/generateContentResponseUtilities.ts).
 */
export function responseText(response: unknown): string | undefined {
  if (response === undefined || response === null) return undefined;
  if (typeof response === 'string') return response;
  if (isObject(response)) {
    const out = str(response.output) ?? str(response.error) ?? str(response.content);
    if (out !== undefined) return out;
  }
  return JSON.stringify(response);
}

/**
 * The readable text of a `PartListUnion`, parts joined by newlines: text parts (thoughts left out
 * unless `thoughts`), function responses' text, a short mark for media and calls.
 * @param v the content as written; @param thoughts true to keep `thought: true` parts.
 * @returns the text ('' when there is none).
 */
export function partsText(v: unknown, thoughts = false): string {
  const out: string[] = [];
  for (const p of partsOf(v)) {
    if (typeof p.text === 'string') {
      if (p.thought === true && !thoughts) continue;
      out.push(p.text);
    } else if (isObject(p.functionResponse)) {
      const t = responseText(p.functionResponse.response);
      if (t !== undefined) out.push(t);
    } else if (isObject(p.functionCall)) {
      out.push(`${str(p.functionCall.name) ?? 'tool'}(${p.functionCall.args === undefined ? '' : JSON.stringify(p.functionCall.args)})`);
    } else if (isObject(p.inlineData) || isObject(p.fileData)) {
      const d = (isObject(p.inlineData) ? p.inlineData : p.fileData) as Json;
      out.push(`[${str(d.mimeType) ?? 'file'}${str(d.fileUri) ? ` ${str(d.fileUri)}` : ''}]`);
    } else if (isObject(p.executableCode)) out.push(str(p.executableCode.code) ?? '');
    else if (isObject(p.codeExecutionResult)) out.push(str(p.codeExecutionResult.output) ?? '');
  }
  return out.filter((s) => s !== '').join('\n');
}

/**
 * True when a user entry's text is context Gemini CLI injects, not a person's prompt: the
 * environment context (`<session_context>`, before October 2025 untagged "This is the Gemini CLI.
 * We are setting up the context for our chat."; packages/core/src/utils/environmentContext.ts) or
 * a hook's (`<hook_context>`); the writer's own `isIgnoredUserContent` (utils/sessionUtils.ts)
 * skips the same.
 */
export function injectedContext(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('<session_context>') || t.startsWith('<hook_context>') || t.startsWith('This is the Gemini CLI. We are setting up the context for our chat.');
}

/** The model reply Gemini CLI wrote after the environment context until October 2025 (environmentContext.ts `getInitialChatHistory`): the harness's, not the model's. */
export const CONTEXT_ACK = 'Got it. Thanks for the context!';
