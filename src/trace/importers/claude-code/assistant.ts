/** Handler of `assistant` records: one model call per API response (however many records carry it), its text and tool_use blocks, API-error and `<synthetic>` placeholder rows, the turn's stop. */
import { BUDGET_ERROR, contentText, type Json, type LaneState, mapStopReason, SEND_MESSAGE_TOOL } from './model';
import { setContent, isObject, num, secondsSince, str } from '../jsonl-records';
import type { Origin } from '../../model';
import type { TraceEvent } from '../../schema';
import type { ClaudeImport } from './session';
import { toolResult } from './user';
/**
 * An `assistant` record: an API-error row (a stop of kind api_error), a `<synthetic>` placeholder,
 * or blocks of an API response (text -> message, tool_use -> tool_call / spawn + delegate); the
 * response's first event is its model call (tokens, `response_events`), its later events are caused
 * by it; a recorded `stop_reason` ends the turn. @param ms record time, epoch ms.
 */
export function assistant(im: ClaudeImport, lane: LaneState, v: Json, ms: number, origin: Origin): void {
  const message = isObject(v.message) ? v.message : undefined;
  if (!message) return im.skip('assistant/no-message', origin);
  const uuid = str(v.uuid) ?? `L${origin.record}`;
  const key = str(message.id) ?? uuid;
  const usage = isObject(message.usage) ? message.usage : undefined;
  let mu = im.messages.get(key);
  if (!mu) {
    mu = { output: -1 };
    im.messages.set(key, mu);
  }
  const output = num(usage?.output_tokens) ?? 0;
  mu.records = (mu.records ?? 0) + 1;
  if (usage) {
    const snapshot = JSON.stringify(usage);
    if (mu.firstUsage === undefined) mu.firstUsage = snapshot;
    else if (snapshot !== mu.firstUsage) mu.usageVaries = true;
  }
  if (usage && output >= mu.output) {
    mu.usage = usage;
    mu.output = output;
  }
  if (typeof message.model === 'string' && message.model !== '<synthetic>') lane.models.add(message.model);
  const blocks: unknown[] = Array.isArray(message.content) ? message.content : typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [];
  const produced: string[] = [];
  const causes = () => {
    if (lane.inputs.length === 0) return undefined;
    const c = lane.inputs;
    lane.inputs = [];
    return c;
  };
  if (v.isApiErrorMessage === true) {
    const text = contentText(message.content);
    const ev: TraceEvent = { id: `${uuid}:stop`, t: 0, type: 'stop', kind: 'api_error', agent: lane.name, reason: BUDGET_ERROR.test(text) ? 'budget_exhausted' : 'error', decided_by: 'api', detail: typeof v.error === 'string' ? `API error message (${v.error})` : 'API error message' };
    if (message.model === '<synthetic>') ev.synthetic = true;
    setContent(ev, text);
    const c = causes();
    if (c) ev.causes = c;
    produced.push(im.emit(lane, ev, ms, origin));
    lane.turnStopped = true;
    lane.endsWithText = false;
    mu.eventId = undefined;
    return;
  }
  if (message.model === '<synthetic>') {
    // A row Claude Code wrote itself ("No response requested."): not model output, not a model call.
    const ev: TraceEvent = { id: uuid, t: 0, type: 'message', kind: 'placeholder', synthetic: true, agent: lane.name, from: 'harness' };
    setContent(ev, contentText(message.content));
    im.emit(lane, ev, ms, origin);
    return;
  }
  // One API response can be written as several records (one per content block, same message.id):
  // its first event is the model call; the response's later events are caused by it.
  const callAnchor = () => (mu.firstEventId && !lane.inputs.length ? [mu.firstEventId] : undefined);
  blocks.forEach((b, k) => {
    if (!isObject(b)) return;
    const suffix = blocks.length > 1 ? `:${k}` : '';
    if (b.type === 'text') {
      const text = str(b.text) ?? '';
      if (text.trim() === '') return;
      const ev: TraceEvent = { id: `${uuid}${suffix}`, t: 0, type: 'message', agent: lane.name, from: lane.name };
      setContent(ev, text);
      const c = causes() ?? callAnchor();
      if (c) ev.causes = c;
      const id = im.emit(lane, ev, ms, origin);
      produced.push(id);
      lane.lastTextId = id;
      lane.lastTextKey = key;
      lane.lastTextOrigin = origin;
      lane.lastTextT = secondsSince(im.base, ms);
      lane.endsWithText = true;
      lane.turnHasOutput = true;
    } else if ((b.type === 'tool_use' || b.type === 'server_tool_use') && typeof b.id === 'string') {
      const name = str(b.name) ?? 'tool';
      const input = isObject(b.input) ? b.input : {};
      const call = im.calls.get(b.id);
      const c = causes() ?? callAnchor();
      if (call && b.type === 'tool_use') {
        call.lane = lane.name;
        const subLane = call.subLane ?? (call.agentId ? im.laneName(call.agentId, str(input.subagent_type)) : `${str(input.subagent_type) ?? 'agent'}:${b.id.slice(-8)}`);
        call.subLane = subLane;
        const spawn: TraceEvent = { id: `${b.id}:spawn`, t: 0, type: 'spawn', agent: lane.name, to: subLane, tool: name };
        if (typeof input.subagent_type === 'string') spawn.role = input.subagent_type;
        setContent(spawn, str(input.description));
        if (c) spawn.causes = c;
        call.spawnId = im.emit(lane, spawn, ms, origin);
        const delegate: TraceEvent = { id: b.id, t: 0, type: 'delegate', agent: lane.name, from: lane.name, to: subLane, tool: name, parent: call.spawnId };
        setContent(delegate, str(input.prompt) ?? str(input.description));
        call.delegateId = im.emit(lane, delegate, ms, origin);
        im.callEvents.set(b.id, { id: call.delegateId, tool: name, lane: lane.name, input });
        produced.push(call.spawnId, call.delegateId);
      } else if (name === SEND_MESSAGE_TOOL && b.type === 'tool_use' && sendMessage(im, lane, b.id, input, c, ms, origin, produced)) {
        // the caller's message to a sub-agent (resuming it when it had finished)
      } else {
        const ev: TraceEvent = { id: b.id, t: 0, type: 'tool_call', agent: lane.name, tool: name };
        setContent(ev, JSON.stringify(input));
        if (c) ev.causes = c;
        const id = im.emit(lane, ev, ms, origin);
        im.callEvents.set(b.id, { id, tool: name, lane: lane.name, input });
        produced.push(id);
        im.toolCalls++;
      }
      lane.endsWithText = false;
      lane.turnHasOutput = true;
    } else if (b.type === 'web_search_tool_result' || (typeof b.type === 'string' && b.type.endsWith('_tool_result') && typeof b.tool_use_id === 'string')) {
      const id = toolResult(im, lane, String(b.tool_use_id), contentText(b.content), false, ms, origin);
      if (id) produced.push(id);
    } else if (b.type === 'thinking' || b.type === 'redacted_thinking') {
      im.thinking++;
    }
  });
  if (produced.length > 0) {
    mu.firstEventId ??= produced[0];
    mu.eventId = mu.firstEventId;
    const first = im.out.get(mu.firstEventId);
    if (first) {
      const blocksOf = ((first as Json).response_events as string[] | undefined) ?? [first.id];
      for (const id of produced) if (!blocksOf.includes(id)) blocksOf.push(id);
      (first as Json).model_call = key;
      if (blocksOf.length > 1) (first as Json).response_events = blocksOf;
    }
  }
  const reason = mapStopReason(message.stop_reason);
  if (reason && !lane.turnStopped) {
    const ev: TraceEvent = { id: `${key}:stop`, t: 0, type: 'stop', agent: lane.name, reason, decided_by: 'model', detail: `stop_reason: ${String(message.stop_reason)}` };
    im.emit(lane, ev, ms, origin);
    lane.turnStopped = true;
  }
}

/**
 * A SendMessage call to a sub-agent of this session (`to` / `recipient` its agent id, or the name a
 * team agent was started with): a `message` from the caller to the agent's lane (`tool:
 * "SendMessage"`), its content the message; the agent resumed by it reads it as its caller's prompt
 * (returns.ts). False when the recipient is no agent of this session (the call stays a tool call).
 */
function sendMessage(im: ClaudeImport, lane: LaneState, toolUseId: string, input: Json, causes: string[] | undefined, ms: number, origin: Origin, produced: string[]): boolean {
  const to = str(input.to) ?? str(input.recipient);
  if (!to) return false;
  let agentId: string | undefined;
  let subLane: string | undefined;
  for (const call of im.calls.values()) {
    if (call.agentId === to || (call.agentId && str(call.input.name) === to)) {
      agentId = call.agentId;
      subLane = call.subLane ?? im.laneName(call.agentId!, str(call.input.subagent_type));
      call.subLane = subLane;
      break;
    }
  }
  if (!subLane) {
    const known = [...im.lanes.values()].find((l) => l.agentId === to && l.name !== lane.name);
    if (!known) return false;
    agentId = known.agentId;
    subLane = known.name;
  }
  const message = input.message;
  const text = typeof message === 'string' ? message : isObject(message) ? (str(message.content) ?? str(message.text) ?? JSON.stringify(message)) : (str(input.summary) ?? '');
  const ev: TraceEvent = { id: toolUseId, t: 0, type: 'message', agent: lane.name, from: lane.name, to: subLane, tool: SEND_MESSAGE_TOOL };
  setContent(ev, text);
  if (causes) ev.causes = causes;
  const id = im.emit(lane, ev, ms, origin);
  im.callEvents.set(toolUseId, { id, tool: SEND_MESSAGE_TOOL, lane: lane.name, input });
  im.resumes.push({ toolUseId, eventId: id, lane: subLane, ...(agentId ? { agentId } : {}), text });
  produced.push(id);
  return true;
}
