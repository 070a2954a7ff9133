/**
 * The link between a loaded trace and its labels: the events labels attach to ({@link traceTargets})
 * and, for a new label, what the record says of its event ({@link labelTargetOf}: id, place, fingerprint). Pure.
 */
import type { LoadedTrace } from '../../trace/model';
import type { LabelTargets } from './attach';
import { eventFingerprint } from './fingerprint';
import type { LabelRecord } from './sidecar';

/** The text a fingerprint reads of an event: its content, else its content_ref. */
export function fingerprintText(e: { content?: unknown; content_ref?: unknown }): string | undefined {
  return typeof e.content === 'string' ? e.content : typeof e.content_ref === 'string' ? e.content_ref : undefined;
}

/**
 * The events of a loaded trace as label targets. @param content the content of event i when the
 * trace no longer holds it in memory (the engine's long content read back from disk); default: the event's own.
 */
export function traceTargets(loaded: LoadedTrace, content?: (i: number) => string | undefined): LabelTargets {
  const events = loaded.trace.events;
  return { events, content: content ?? ((i) => fingerprintText(events[i])), line: (i) => loaded.eventOrigins.get(i)?.range.start.line };
}

/** The event fields of a new label on event `index`, or undefined when the index is no event. */
export function labelTargetOf(loaded: LoadedTrace, index: number, content: string | undefined): Pick<LabelRecord, 'event' | 'position' | 'fingerprint'> | undefined {
  const e = loaded.trace.events[index];
  if (!e) return undefined;
  const o = loaded.eventOrigins.get(index);
  return {
    event: e.id,
    position: { file: o?.file ?? '', line: (o?.range.start.line ?? 0) + 1, ...(o?.offset !== undefined ? { offset: o.offset } : {}) },
    fingerprint: eventFingerprint(e, content),
  };
}
