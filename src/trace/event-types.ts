/**
 * The event-type vocabulary of the trace model, apart from the zod schema (src/trace/schema.ts
 * re-exports it) so that code shipped to the webview can use it without bundling zod.
 * Pure: no imports.
 */

/** The survey's ten event types, in its order. */
export const SURVEY_EVENT_TYPES = [
  'orchestrator_decision',
  'spawn',
  'despawn',
  'message',
  'tool_call',
  'tool_result',
  'return',
  'aggregate',
  'human_intervention',
  'safety_event',
] as const;

/** Event types otrace adds from the survey's vocabulary of atomic events. */
export const ADDED_EVENT_TYPES = ['delegate', 'reward', 'stop', 'communicate', 'tool_use'] as const;

/** Every event type a trace may use. */
export const EVENT_TYPES = [...SURVEY_EVENT_TYPES, ...ADDED_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Written aliases and the canonical type they stand for; the written word is kept for display. */
export const EVENT_TYPE_ALIASES: Readonly<Record<string, EventType>> = {
  communicate: 'message',
  tool_use: 'tool_call',
};

/** The canonical type of an event type as written (`communicate` -> `message`, `tool_use` -> `tool_call`). */
export function canonicalType(type: EventType): EventType {
  return EVENT_TYPE_ALIASES[type] ?? type;
}
