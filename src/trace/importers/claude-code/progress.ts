/** Handler of `progress` records: sub-agent messages mirrored into the session (`agent_progress`), read into the sub-agent's lane. */
import { type Json } from './model';
import { isObject, type JsonlRecord, parseTimestamp, str } from '../jsonl-records';
import type { Origin } from '../../model';
import type { ClaudeImport } from './session';
import { assistant } from './assistant';
import { user } from './user';
/** Reads a sub-agent message mirrored into the main file (`agent_progress`) into the sub-agent's lane. */
export function mirror(im: ClaudeImport, data: Json, agentId: string, parentCall: string | undefined, ms: number, origin: Origin, r: JsonlRecord, file: string | undefined): void {
  const call = parentCall ? im.calls.get(parentCall) : undefined;
  const laneName = call?.subLane ?? im.laneName(agentId, str(call?.input.subagent_type));
  const lane = im.lane(laneName);
  if (!lane.agentId) {
    lane.agentId = agentId;
    lane.mirrored = true;
    if (call) {
      lane.call = call;
      call.subLane = laneName;
      lane.subagentType = str(call.input.subagent_type);
    }
  }
  const inner = isObject(data.message) ? data.message : undefined;
  if (!inner) return;
  const innerMs = parseTimestamp(inner.timestamp) ?? ms;
  if (inner.type === 'assistant') assistant(im, lane, inner, innerMs, origin);
  else if (inner.type === 'user') user(im, lane, inner, innerMs, origin, r, file);
}
