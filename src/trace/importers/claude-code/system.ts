/** Handler of `system` records: compaction boundaries (joined through `logicalParentUuid`), turn ends, local commands. */
import { type Json, type LaneState, localCommand } from './model';
import { setContent, isObject, str } from '../jsonl-records';
import type { Origin } from '../../model';
import type { TraceEvent } from '../../schema';
import type { ClaudeImport } from './session';
import { readLocalCommand } from './user';
/**
 * A `system` record: `compact_boundary` (one compaction event joined through `logicalParentUuid`),
 * `stop_hook_summary` / `turn_duration` (the turn's stop when none was recorded), `local_command`;
 * other subtypes are counted as not shown.
 */
export function system(im: ClaudeImport, lane: LaneState, v: Json, ms: number, origin: Origin): void {
  const subtype = str(v.subtype) ?? '?';
  const uuid = str(v.uuid) ?? `L${origin.record}`;
  if (subtype === 'compact_boundary') {
    const md = isObject(v.compactMetadata) ? v.compactMetadata : {};
    const ev = { id: uuid, t: 0, type: 'orchestrator_decision', kind: 'compaction', agent: lane.name, compaction: true } as TraceEvent & Json;
    if (typeof md.trigger === 'string') ev.compaction_trigger = md.trigger;
    if (typeof md.preTokens === 'number') ev.pre_tokens = md.preTokens;
    setContent(ev, str(v.content) ?? 'Conversation compacted');
    // Joined to the chain it compacted: `logicalParentUuid` (the boundary's `parentUuid` is null).
    const before = str(v.logicalParentUuid) ?? str(v.parentUuid);
    const cause = before ? im.eventAtUuid.get(before) : undefined;
    if (cause) ev.causes = [cause];
    const id = im.emit(lane, ev, ms, origin);
    im.out.edge(cause, id, 'causal');
    lane.pendingCompaction = id;
    lane.inputs.push(id);
    im.compactions++;
    return;
  }
  if (subtype === 'stop_hook_summary' || subtype === 'turn_duration') {
    if (lane.turnHasOutput && !lane.turnStopped) {
      const ev: TraceEvent = { id: `${uuid}:stop`, t: 0, type: 'stop', agent: lane.name, reason: 'task_complete', decided_by: lane.name, detail: `turn ended (${subtype})` };
      if (v.preventedContinuation === true) {
        ev.reason = 'unknown';
        ev.decided_by = 'stop hook';
        ev.detail = `a stop hook prevented continuation${typeof v.stopReason === 'string' && v.stopReason ? `: ${v.stopReason}` : ''}`;
      }
      if (typeof v.durationMs === 'number') ev.duration_s = v.durationMs / 1000;
      im.emit(lane, ev, ms, origin);
      lane.turnStopped = true;
    }
    return;
  }
  if (subtype === 'local_command') {
    const text = str(v.content) ?? '';
    const command = localCommand(text);
    if (command) return readLocalCommand(im, lane, uuid, command, text, ms, origin);
  }
  im.skip(`system/${subtype}`, origin);
}
