/**
 * Reader of Gemini CLI `/chat save <tag>` checkpoints (`~/.gemini/tmp/<project>/checkpoint-<tag>.json`):
 * the model's history as the Gemini API holds it. Format from the writer's code, google-gemini/gemini-cli
 * `packages/core/src/core/logger.ts` (`saveCheckpoint` / `loadCheckpoint`, commit
 * 5411f113cafae26161b4969b0237b8e1e024e2c2): `{history: Content[], authType?}` written with
 * `JSON.stringify(checkpoint, null, 2)`, or, in older files, the bare `Content[]`. A `Content` is
 * `{role: "user" | "model", parts: Part[]}` (./gemini-parts.ts).
 *
 * Mapping (one lane, `gemini`; no timestamps are written, so `t` counts history entries and
 * `metadata.gemini_cli.time` says `step-index`):
 * - a user entry's text -> `message` from `user` (the context the CLI injects, and until October 2025
 *   its canned model reply "Got it. Thanks for the context!": `message` of kind `meta` from `harness`); its `functionResponse` parts -> `tool_result`
 *   (`<call id>:result`, `error` when the response is `{error}`), joined to the call of the same id
 *   (else the oldest unanswered call of the same name) by a `tool_dependency` edge;
 * - a model entry -> `message` from `gemini` (text; `thought: true` parts as `thoughts`) and a
 *   `tool_call` per `functionCall` part (id = its `id`, else `h<i>.call<k>`); a call no response
 *   answers gets `call_status: "no_result"`;
 * - a turn ends (`stop`, `scope: "turn"`, reason task_complete) after a model entry with no
 *   function call that is followed by user text or by the end of the history.
 * Never throws: entries it cannot read are positioned problems and the rest loads.
 */
import type { Node } from 'jsonc-parser';
import { isComplete, items, nodeRange, parseJsonDocument, property, valueIn, type JsonDocument } from '../json-positions';
import type { LoadedTrace, Origin, Range } from '../model';
import type { TraceEvent } from '../schema';
import { CONTEXT_ACK, injectedContext, partsText, responseText } from './gemini-parts';
import { isObject, setContent, str, TraceAssembler } from './jsonl-records';

type Json = Record<string, unknown>;

/** True when the text is a checkpoint: `{"history": [{"role": ..., "parts": [...` or a bare `[{"role": "user", "parts": [...`. */
export function isGeminiCheckpointText(text: string): boolean {
  const head = text.slice(0, 1 << 16);
  const content = String.raw`\{\s*"role"\s*:\s*"(user|model)"\s*,\s*"parts"\s*:\s*\[`;
  return new RegExp(String.raw`^\s*\{\s*"history"\s*:\s*\[\s*(\]|${content})`).test(head) || new RegExp(String.raw`^\s*\[\s*${content}`).test(head);
}

/**
 * Reads a `/chat save` checkpoint.
 * @param text the file's content; @param fileName its path (`checkpoint-<tag>.json`: the tag is the trace id).
 * @returns the trace (format `gemini-cli`) with each event's origin (its history entry, or its part) and positioned problems. Never throws.
 */
export function readGeminiCheckpoint(text: string, fileName: string): LoadedTrace {
  const doc = parseJsonDocument(text);
  const out = new TraceAssembler(doc.problems.slice());
  const root = doc.root;
  const history = root?.type === 'array' ? root : property(root, 'history');
  const fileStart: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
  if (!history || history.type !== 'array') out.problems.push({ severity: 'error', message: 'a Gemini CLI checkpoint must be {"history": [Content...]} or a Content array', range: history ? nodeRange(doc, history) : root ? nodeRange(doc, root) : fileStart });
  const open = new Map<string, { id: string; tool: string }>();
  let toolCalls = 0;
  let answered: { id: string; t: number; origin: Origin } | undefined;
  /** The entry before was the injected environment context (its canned reply may follow). */
  let afterContext = false;
  const turnEnd = () => {
    if (!answered) return;
    const ev = { id: `${answered.id}:turn_end`, t: answered.t, type: 'stop', agent: 'gemini', reason: 'task_complete', decided_by: 'gemini', detail: 'the model answered with no function call: handed back to the user', scope: 'turn', causes: [answered.id] };
    out.edge(answered.id, out.add(ev as TraceEvent, answered.origin), 'causal');
    answered = undefined;
  };
  items(history).forEach((node, i) => {
    const origin: Origin = { range: nodeRange(doc, node), record: i };
    if (!isComplete(doc, node)) {
      out.problems.push({ severity: 'error', message: `history[${i}] is cut off; skipped`, range: origin.range });
      return;
    }
    const c = valueIn(doc, node);
    if (!isObject(c) || !Array.isArray(c.parts)) {
      out.problems.push({ severity: 'warning', message: `history[${i}] is not a Content {role, parts[]}; skipped`, range: origin.range });
      return;
    }
    const role = str(c.role);
    const partNodes = items(property(node, 'parts'));
    const partOrigin = (k: number): Origin => (partNodes[k] ? { range: nodeRange(doc, partNodes[k]), record: i } : origin);
    const parts = c.parts.map((p) => (isObject(p) ? p : {}));
    if (role === 'model' && afterContext && partsText(parts).trim() === CONTEXT_ACK) {
      out.add({ id: `h${i}`, t: i, type: 'message', kind: 'meta', agent: 'gemini', from: 'harness', role: 'model', injected: true, content: CONTEXT_ACK } as TraceEvent, origin);
      afterContext = false;
      return;
    }
    afterContext = false;
    if (role === 'model') {
      const ev: Json = { id: `h${i}`, t: i, type: 'message', agent: 'gemini', from: 'gemini' };
      setContent(ev, partsText(parts.filter((p) => !isObject(p.functionCall))));
      const thoughts = parts.filter((p) => p.thought === true && typeof p.text === 'string').map((p) => p.text as string);
      if (thoughts.length) ev.thoughts = thoughts;
      const mid = out.add(ev as TraceEvent, origin);
      let calls = 0;
      parts.forEach((p, k) => {
        if (!isObject(p.functionCall)) return;
        const f = p.functionCall;
        const tool = str(f.name) ?? 'tool';
        const call: Json = { id: str(f.id) || `h${i}.call${k}`, t: i, type: 'tool_call', agent: 'gemini', from: 'gemini', tool, causes: [mid], call_status: 'no_result' };
        if (f.args !== undefined) setContent(call, JSON.stringify(f.args));
        const cid = out.add(call as TraceEvent, partOrigin(k));
        out.edge(mid, cid, 'tool_dependency');
        open.set(cid, { id: cid, tool });
        calls++;
        toolCalls++;
      });
      answered = calls ? undefined : { id: mid, t: i, origin };
      return;
    }
    if (role !== 'user') {
      out.problems.push({ severity: 'warning', message: `history[${i}] has role ${JSON.stringify(c.role)}, not "user" or "model"; skipped`, range: origin.range });
      return;
    }
    const text = partsText(parts.filter((p) => !isObject(p.functionResponse)));
    if (text && injectedContext(text)) {
      out.add({ id: `h${i}`, t: i, type: 'message', kind: 'meta', agent: 'gemini', from: 'harness', to: 'gemini', role: 'user', injected: true, content: text } as TraceEvent, origin);
      afterContext = true;
    } else if (text) {
      turnEnd();
      const ev: Json = { id: `h${i}`, t: i, type: 'message', agent: 'gemini', from: 'user', to: 'gemini' };
      setContent(ev, text);
      out.add(ev as TraceEvent, origin);
    }
    parts.forEach((p, k) => {
      if (!isObject(p.functionResponse)) return;
      const f = p.functionResponse;
      const tool = str(f.name) ?? 'tool';
      const call = (str(f.id) && open.get(str(f.id) as string)) || [...open.values()].find((o) => o.tool === tool);
      const res: Json = { id: `${call?.id ?? `h${i}.response${k}`}:result`, t: i, type: 'tool_result', agent: 'gemini', tool };
      setContent(res, responseText(f.response));
      if (isObject(f.response) && f.response.error !== undefined) res.error = str(f.response.error) ?? JSON.stringify(f.response.error);
      if (call) {
        res.causes = [call.id];
        open.delete(call.id);
        const e = out.get(call.id);
        if (e) delete e.call_status;
      } else out.problems.push({ severity: 'warning', message: `functionResponse "${tool}" answers no function call of this history`, range: partOrigin(k).range });
      const rid = out.add(res as TraceEvent, partOrigin(k));
      if (call) out.edge(call.id, rid, 'tool_dependency');
    });
  });
  turnEnd();
  const name = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1).replace(/\.json$/, '');
  const meta: Json = { source_format: 'gemini-cli', layout: 'checkpoint', time: 'step-index' };
  const auth = root?.type === 'object' ? valueOf(doc, property(root, 'authType')) : undefined;
  if (auth !== undefined) meta.authType = auth;
  return out.finish('gemini-cli', { trace_id: name || 'gemini-checkpoint', system: 'gemini-cli', costs: { tool_calls: toolCalls }, metadata: { gemini_cli: meta } });
}

function valueOf(doc: JsonDocument, node: Node | undefined): unknown {
  return node && isComplete(doc, node) ? valueIn(doc, node) : undefined;
}
