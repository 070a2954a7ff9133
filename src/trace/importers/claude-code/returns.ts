/**
 * A sub-agent's reports and the calls they answer, and the resumes of finished sub-agents.
 *
 * A sub-agent can report more than once: a finished agent resumed with `SendMessage` (Claude Code
 * 2.1.x: "Resuming agent …", or "was stopped (…); resumed it in the background") goes on in the same
 * transcript, `subagents/agent-<id>.jsonl`, from a new prompt: the caller's message. Each report
 * (its last text before a resume, and its final text) is a `return` to the caller; each goes to an
 * answer of the calls that started or resumed it, in time order: the Agent call's result when it ran
 * in the foreground, else the task-notifications that reported on the agent (never the launch result
 * of a background run). The `SendMessage` call is a `message` from the caller to the agent, with a
 * `message` edge to the prompt it resumed the agent with (the first later prompt of the agent with
 * the same text, else the first later one).
 *
 * Pure: imports nothing from `vscode`.
 */
import type { TraceEvent } from '../../schema';
import { MAIN_LANE, type LaneState } from './model';
import type { ClaudeImport } from './session';

/** Edge `src -> dst` of type return, and the return among the target's causes. */
function returnTo(im: ClaudeImport, ret: string, target: string): void {
  im.out.edge(ret, target, 'return');
  const t = im.out.get(target);
  if (t && !(t.causes ?? []).includes(ret)) t.causes = [...(t.causes ?? []), ret];
}

/**
 * Links a sub-agent's reports to what answered its calls (see the file comment).
 * @param callIds the calls that started or resumed it; @param syncTarget the result of a call run in
 * the foreground (its answer), undefined for a background run; @param shared true when every report
 * goes to the same answers (the agents of one Workflow run: each to the first answer at or after it),
 * false when the k-th report goes to the k-th answer.
 */
export function linkReturns(im: ClaudeImport, lane: LaneState, callIds: readonly string[], syncTarget: string | undefined, shared: boolean): void {
  const tOf = (id: string) => im.out.get(id)?.t ?? 0;
  const returns = [...(lane.reports ?? [])];
  if (lane.returnId && !returns.includes(lane.returnId)) returns.push(lane.returnId);
  const targets: string[] = [];
  if (syncTarget && im.out.get(syncTarget)) targets.push(syncTarget);
  for (const id of callIds) for (const t of im.notified.get(id) ?? []) if (!targets.includes(t) && im.out.get(t)) targets.push(t);
  returns.sort((a, b) => tOf(a) - tOf(b));
  targets.sort((a, b) => tOf(a) - tOf(b));
  returns.forEach((ret, k) => {
    const target = shared ? (targets.find((t) => tOf(t) >= tOf(ret)) ?? targets[targets.length - 1]) : targets[k];
    if (target) returnTo(im, ret, target);
  });
}

/**
 * A later prompt of a sub-agent (its caller resumed it): its last text before it, when it ended in
 * text, is a report (a `return` to its caller), and the stop of that run a hand-back (scope `turn`).
 * The prompt is kept for {@link linkHandOffs}.
 */
export function noteResume(im: ClaudeImport, lane: LaneState, caller: string): void {
  if (lane.endsWithText && lane.lastTextId && !lane.turnStopped) im.closeTurn(lane, 'its caller resumed it');
  const e = lane.endsWithText && lane.lastTextId ? im.out.get(lane.lastTextId) : undefined;
  if (e && e.type !== 'return') {
    e.type = 'return';
    e.to = caller;
    lane.reports = [...(lane.reports ?? []), e.id];
  }
  const stop = lane.lastStopId ? im.out.get(lane.lastStopId) : undefined;
  if (stop) stop.scope ??= 'turn';
}

/**
 * After the lanes: the `message` edges from each SendMessage call to the prompt it resumed its agent
 * with; and the causes of task-notifications of delegated calls that no report reached (their call).
 */
export function linkHandOffs(im: ClaudeImport): void {
  const used = new Set<string>();
  for (const r of im.resumes) {
    const lane = im.lanes.get(r.lane);
    const from = im.out.get(r.eventId);
    if (!lane?.prompts || !from) continue;
    const later = lane.prompts.filter((p) => !used.has(p) && (im.out.get(p)?.t ?? -1) >= from.t);
    const prompt = later.find((p) => im.out.get(p)?.content === r.text) ?? later[0];
    if (!prompt) continue;
    used.add(prompt);
    im.out.edge(r.eventId, prompt, 'message');
    const e = im.out.get(prompt) as TraceEvent;
    e.causes = [...(e.causes ?? []).filter((c) => c !== r.eventId), r.eventId];
  }
  for (const [toolUseId, ids] of im.notified) {
    const call = im.callEvents.get(toolUseId);
    if (!call) continue;
    for (const id of ids) {
      const e = im.out.get(id);
      if (e && !e.causes?.length) e.causes = [call.id];
    }
  }
}

/** The lane a sub-agent's prompts come from: the lane of the call that started it, the caller of its Workflow run, else `main`. */
export function callerOf(lane: LaneState, workflowCaller: string | undefined): string {
  return lane.call?.lane || workflowCaller || MAIN_LANE;
}
