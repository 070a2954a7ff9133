/**
 * "Go to Source Prompt": where the prompt that produced an event is. Pure: no `vscode`.
 * The rule, first that applies:
 * 1. the event's own `source` (a prompt file, with line and column);
 * 2. a spawn: the line of the Task/Agent call that carries the sub-agent's prompt (the spawn's own record);
 * 3. an event of a sub-agent (a lane some spawn names): with its own transcript file, that file's
 *    first record (its task prompt); else the last spawn or delegation that gave it its task (by
 *    that hand-off's own `source` when it names one);
 * 4. any other event: the user prompt that opened its turn (the last user message at or before it).
 */
import { canonicalType, type TraceEvent } from '../trace/schema';
import type { TraceSnapshot } from './snapshot';

/** Where to go: a file named by the trace (`path`, relative to the trace's folder) or an event's record. */
export type PromptTarget =
  | { kind: 'path'; path: string; line?: number; column?: number; why: string }
  | { kind: 'event'; index: number; why: string };

const USER = /^(user|human)$/i;

/** True for a message written by the user (a turn's prompt). */
function isUserPrompt(e: TraceEvent): boolean {
  return canonicalType(e.type) === 'message' && (USER.test(e.from ?? '') || USER.test(e.agent) || e.role === 'user');
}

/** The source prompt of the event at `index`, or undefined when the trace gives none. */
export function sourcePromptOf(snapshot: TraceSnapshot, index: number): PromptTarget | undefined {
  const events = snapshot.loaded.trace.events;
  const e = events[index];
  if (!e) return undefined;
  if (e.source?.path) return { kind: 'path', path: e.source.path, line: e.source.line, column: e.source.column, why: 'the event names its source prompt' };
  const type = canonicalType(e.type);
  if (type === 'spawn') return { kind: 'event', index, why: 'the call that spawned the sub-agent' };
  const spawned = events.some((s) => canonicalType(s.type) === 'spawn' && s.to === e.agent);
  if (spawned) {
    // a sub-agent with its own transcript: that transcript's first record (its task prompt)
    const first = events.findIndex((x) => x.agent === e.agent);
    if (first !== -1 && snapshot.loaded.eventOrigins.get(first)?.file) return { kind: 'event', index: first, why: `the first record of sub-agent ${e.agent}` };
    // else the hand-off that gave it its current task: the last spawn or delegation to it, by its own prompt when it names one
    for (let i = index; i >= 0; i--) {
      const h = events[i];
      const type = canonicalType(h.type);
      if ((type === 'delegate' || type === 'spawn') && h.to === e.agent && h.agent !== e.agent) {
        if (h.source?.path) return { kind: 'path', path: h.source.path, line: h.source.line, column: h.source.column, why: `the prompt of the task given to ${e.agent}` };
        return { kind: 'event', index: i, why: `the task given to ${e.agent}` };
      }
    }
  }
  for (let i = index; i >= 0; i--) {
    if (isUserPrompt(events[i]) && (events[i].agent === e.agent || events[i].to === e.agent)) return { kind: 'event', index: i, why: 'the user prompt of this turn' };
  }
  return undefined;
}
