/** Which events of a lane are its agent's own output: tests more than one loop detector makes. */
import { NOT_AGENT_OUTPUT_KINDS } from '../../trace/schema';
import type { TraceIndex } from '../trace-index';

/** True for a row that is no output of its lane's agent (a harness reminder, a placeholder). */
export function isInjected(index: TraceIndex, i: number): boolean {
  const kind = index.kindOf(i);
  return kind !== undefined && NOT_AGENT_OUTPUT_KINDS.has(kind);
}

/** True for the opening message of a delegated conversation: the event right after a delegate addressed to its agent. */
export function opensDelegation(index: TraceIndex, i: number): boolean {
  if (index.types[i] !== 'message') return false;
  const agent = index.agentOf(i);
  const opens = (p: number | undefined) => p !== undefined && p >= 0 && index.types[p] === 'delegate' && index.toOf(p) === agent;
  if (opens(i - 1)) return true;
  return (index.causesOf(i) ?? []).some((id) => opens(index.pos.get(id)));
}

/**
 * True when every id the event at `i` names in `causes` is carried by an earlier event: what
 * {@link opensDelegation} reads of it then stays as it is while events are appended after it (a
 * cause no earlier event carries may be carried by a later one).
 */
export function causesBefore(index: TraceIndex, i: number): boolean {
  const causes = index.causesOf(i);
  if (!Array.isArray(causes)) return true;
  for (const id of causes) if (!((index.pos.get(id) ?? i) < i)) return false;
  return true;
}
