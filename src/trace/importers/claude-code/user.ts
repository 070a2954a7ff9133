/** Handler of `user` records: prompts, tool results (denied calls marked), meta rows, local commands and their output, interruptions, compaction summaries; and the return of a sub-agent read from its call's result. */
import { type AgentCall, contentText, DENIED, INTERRUPTED, type Json, type LaneState, localCommand, type LocalCommand, MAIN_LANE, SEND_MESSAGE_TOOL } from './model';
import { setContent, isObject, type JsonlRecord, secondsSince, str } from '../jsonl-records';
import type { Origin } from '../../model';
import type { TraceEvent } from '../../schema';
import type { ClaudeImport } from './session';
import { backgroundLaunch, harnessRow, noteLaunch, noteTaskEnd, readNotifications, taskNotifications } from './background';
import { callerOf, noteResume } from './returns';
import { workflowCaller } from './workflows';
/**
 * A `user` record: tool results, an interruption marker (stop of kind interruption), a compaction
 * summary (into its compaction event), a local command, a meta row, or a prompt (which closes the
 * previous turn). @param ms record time, epoch ms; @param r / file where it came from.
 */
export function user(im: ClaudeImport, lane: LaneState, v: Json, ms: number, origin: Origin, r: JsonlRecord, file: string | undefined): void {
  const message = isObject(v.message) ? v.message : undefined;
  if (!message) return im.skip('user/no-message', origin);
  const uuid = str(v.uuid) ?? `L${origin.record}`;
  if (v.isMeta === true) return metaRow(im, lane, uuid, contentText(message.content), ms, origin);
  const content = message.content;
  const blocks: unknown[] = Array.isArray(content) ? content : [];
  const toolResults = blocks.filter((b): b is Json => isObject(b) && b.type === 'tool_result');
  for (const b of toolResults) {
    const id = toolResult(im, lane, String(b.tool_use_id), contentText(b.content), b.is_error === true, ms, origin, isObject(v.toolUseResult) ? v.toolUseResult : undefined, { record: r, file });
    if (id) lane.inputs.push(id);
  }
  const text = Array.isArray(content) ? contentText(blocks.filter((b) => !(isObject(b) && b.type === 'tool_result'))) : typeof content === 'string' ? content : '';
  if (text.trim() === '') return;
  if (INTERRUPTED.test(text.trim())) {
    const ev: TraceEvent = { id: `${uuid}:stop`, t: 0, type: 'stop', kind: 'interruption', agent: lane.name, reason: 'user_abort', decided_by: 'user' };
    setContent(ev, text);
    const id = im.emit(lane, ev, ms, origin);
    lane.turnStopped = true;
    lane.endsWithText = false;
    lane.inputs.push(id);
    return;
  }
  if (v.isCompactSummary === true) {
    // The summary that continues a compacted conversation belongs to its compaction event.
    const boundary = lane.pendingCompaction ? im.out.get(lane.pendingCompaction) : undefined;
    if (boundary && boundary.content_is_summary !== true) {
      setContent(boundary, text);
      boundary.content_is_summary = true;
      boundary.summary_record = origin.record;
      im.compactSummaries.push({ id: boundary.id, t: secondsSince(im.base, ms) });
      lane.pendingCompaction = undefined;
      return;
    }
    const ev: TraceEvent = { id: uuid, t: 0, type: 'orchestrator_decision', kind: 'compaction', agent: lane.name, compaction: true, content_is_summary: true } as TraceEvent;
    setContent(ev, text);
    const id = im.emit(lane, ev, ms, origin);
    im.compactSummaries.push({ id, t: secondsSince(im.base, ms) });
    lane.inputs.push(id);
    return;
  }
  const command = localCommand(text);
  if (command) return readLocalCommand(im, lane, uuid, command, text, ms, origin);
  // A new prompt: the previous turn, if it ended in text and recorded no stop, stopped there.
  // A sub-agent's prompts are its caller's (the first starts it, a later one resumes it); task
  // notifications and other rows the harness writes are no human prompt.
  const notices = text.includes('<task-notification>') ? taskNotifications(text) : [];
  const sub = lane.name !== MAIN_LANE;
  const caller = sub ? callerOf(lane, workflowCaller(im, lane.workflowRun)?.lane) : undefined;
  const resumed = sub && lane.firstEventId !== undefined && !notices.length && !harnessRow(v);
  if (resumed) noteResume(im, lane, caller!);
  im.closeTurn(lane, notices.length ? 'a task notification followed' : 'the next prompt followed');
  let ids: string[];
  if (notices.length) ids = readNotifications(im, lane, uuid, text, notices, ms, origin);
  else {
    // a sub-agent's first prompt is its task, from its caller; a row the harness wrote is the harness's
    const from = caller !== undefined && lane.firstEventId === undefined ? caller : harnessRow(v) ? 'harness' : (caller ?? 'user');
    const ev: TraceEvent = { id: uuid, t: 0, type: 'message', agent: lane.name, from, to: lane.name };
    setContent(ev, text);
    const id = im.emit(lane, ev, ms, origin);
    if (resumed) lane.prompts = [...(lane.prompts ?? []), id];
    ids = [id];
  }
  lane.inputs.push(...ids);
  lane.turnHasOutput = false;
  lane.turnStopped = false;
  lane.endsWithText = false;
}

/** A tool_result block: the result event, paired with its call. Returns its id. */
export function toolResult(im: ClaudeImport, lane: LaneState, toolUseId: string, text: string, isError: boolean, ms: number, origin: Origin, toolUseResult?: Json, where?: { record: JsonlRecord; file?: string }): string | undefined {
  const callEvent = im.callEvents.get(toolUseId);
  const call = im.calls.get(toolUseId);
  const launched = callEvent && !isError ? backgroundLaunch(callEvent.tool, callEvent.input, toolUseResult, text) : undefined;
  if (call) {
    call.resultError = isError;
    call.resultText = text;
    call.async = str(toolUseResult?.status) === 'async_launched' || toolUseResult?.isAsync === true || /^Async agent launched/.test(text);
    if (isObject(toolUseResult?.usage)) call.resultUsage = toolUseResult.usage;
    if (where) call.resultRecord = { ...where, ms };
    returnFromResult(im, call, ms, origin);
  }
  const ev: TraceEvent = { id: `${toolUseId}:result`, t: 0, type: 'tool_result', agent: lane.name, tool: callEvent?.tool ?? 'unknown' };
  setContent(ev, text);
  if (isError) (ev as Json).is_error = true;
  if (isError && (DENIED.test(text) || (typeof toolUseResult === 'string' && DENIED.test(toolUseResult)))) {
    ev.denied = true;
    const call = callEvent ? im.out.get(callEvent.id) : undefined;
    if (call) call.call_status = 'denied';
  }
  im.answered.add(toolUseId);
  if (callEvent) ev.causes = [callEvent.id];
  else {
    im.problems.push({ severity: 'warning', message: `tool_result for "${toolUseId}", which no tool_use of this session started`, range: origin.range, ...(origin.file ? { file: origin.file } : {}) });
  }
  const id = im.emit(lane, ev, ms, origin);
  if (callEvent) im.out.edge(callEvent.id, id, 'tool_dependency');
  if (call) call.resultId = id;
  if (launched) noteLaunch(im, toolUseId, launched);
  else if (callEvent?.tool === SEND_MESSAGE_TOOL && !isError) {
    // a finished agent resumed in the background: its next report comes with a task-notification
    const resume = im.resumes.find((r) => r.toolUseId === toolUseId);
    const r = toolUseResult;
    const resumedId = typeof r?.resumedAgentId === 'string' ? r.resumedAgentId : resume?.agentId;
    if (resume && resumedId && (typeof r?.resumedAgentId === 'string' || /\bresum/i.test(`${text} ${typeof r?.message === 'string' ? r.message : ''}`))) noteLaunch(im, toolUseId, [resumedId]);
  } else if (!isError) noteTaskEnd(im, toolUseResult);
  return id;
}

/**
 * A meta row (`isMeta`): text the harness injected (a caveat before local commands, "Continue
 * from where you left off.", skill bodies). Its own kind; an input to the model's next output
 * unless it is the local-command caveat (which tells the model to ignore what follows). Right after
 * a command with no output, it is the prompt the command expanded into (a custom slash command):
 * the command gets `command_prompt: true` (the user's request, for "what was asked") and the row
 * `expands` (the command's id).
 */
export function metaRow(im: ClaudeImport, lane: LaneState, uuid: string, text: string, ms: number, origin: Origin): void {
  if (text.trim() === '') return im.skip('user/meta (empty)', origin);
  const ev: TraceEvent = { id: uuid, t: 0, type: 'message', kind: 'meta', agent: lane.name, from: 'harness', to: lane.name };
  setContent(ev, text);
  const caveat = /<local-command-caveat>/.test(text);
  // a command that expands into a prompt (a custom slash command, a skill): the user asked the agent something with it
  const command = !caveat && lane.pendingCommand ? im.out.get(lane.pendingCommand) : undefined;
  if (command && command.stdout === undefined) {
    command.command_prompt = true;
    ev.expands = command.id;
    lane.pendingCommand = undefined;
  }
  const id = im.emit(lane, ev, ms, origin);
  if (!caveat) lane.inputs.push(id);
}

/**
 * A local command (`/compact`, `/context`, `!ls`) and its output: one `local_command` event from
 * the user, the output joined to the command it follows. Not a prompt: no input to the model, no
 * new turn.
 */
export function readLocalCommand(im: ClaudeImport, lane: LaneState, uuid: string, cmd: LocalCommand, text: string, ms: number, origin: Origin): void {
  const pending = lane.pendingCommand ? im.out.get(lane.pendingCommand) : undefined;
  if (cmd.part === 'output' && pending && pending.stdout === undefined) {
    const out: Partial<TraceEvent> = {};
    setContent(out, cmd.output);
    pending.stdout = out.content ?? '';
    if (out.content_ansi) pending.content_ansi = true;
    pending.output_record = origin.record;
    lane.pendingCommand = undefined;
    return;
  }
  const ev: TraceEvent = { id: uuid, t: 0, type: 'message', kind: 'local_command', agent: lane.name, from: 'user', to: 'harness' };
  if (cmd.command !== undefined) ev.command = cmd.command;
  if (cmd.args) ev.command_args = cmd.args;
  if (cmd.part === 'command') setContent(ev, `${cmd.command ?? ''}${cmd.args ? ` ${cmd.args}` : ''}`);
  else setContent(ev, cmd.output);
  const id = im.emit(lane, ev, ms, origin);
  lane.pendingCommand = cmd.part === 'command' ? id : undefined;
  void text;
}

/**
 * A sub-agent with no transcript of its own (only mirrored progress records, or nothing): its
 * final answer is the call's result, so its return (and stop) are read from the result record.
 */
export function returnFromResult(im: ClaudeImport, call: AgentCall, ms: number, origin: Origin): void {
  if (call.async || !call.subLane || im.subFiles.some((f) => f.agentId === call.agentId && call.agentId !== undefined)) return;
  const lane = im.lane(call.subLane);
  if (lane.endsWithText || lane.turnStopped) return;
  lane.agentId ??= call.agentId;
  lane.call ??= call;
  lane.subagentType ??= str(call.input.subagent_type);
  lane.mirrored ??= lane.firstEventId !== undefined;
  if (!call.resultError) {
    const ev: TraceEvent = { id: `${call.toolUseId}:return`, t: 0, type: 'return', agent: lane.name, from: lane.name, to: call.lane || MAIN_LANE };
    setContent(ev, call.resultText);
    lane.returnId = im.emit(lane, ev, ms, origin);
  }
  im.stopSubLane(lane);
}
