/**
 * An event's fingerprint: what finds a labelled event again when its id no longer does (a trace
 * re-exported with new ids, or ids that repeat). Two FNV-1a hashes, 8 hex digits each, joined by
 * `-`: the first of the event's type, agent, time, tool and receiver; the second of its content (or
 * content_ref), white space runs made one space, first {@link CONTENT_CHARS} characters. The
 * record's bytes are not hashed: a re-export that reformats the JSON keeps the fingerprint. Pure.
 */
import { fnv1a } from '../text';
import type { TraceEvent } from '../../trace/schema';

/** Characters of content the fingerprint reads. */
export const CONTENT_CHARS = 2000;

/** The first half of the fingerprint: type, agent, time, tool, receiver (8 hex digits). */
export function metaHash(e: Pick<TraceEvent, 'type' | 'agent' | 't' | 'tool' | 'to'>): string {
  return hex(fnv1a(`${e.type}\u0000${e.agent}\u0000${e.t}\u0000${e.tool ?? ''}\u0000${e.to ?? ''}`));
}

/** The second half: the content's hash (8 hex digits); `content` undefined hashes as ''. */
export function contentHash(content: string | undefined): string {
  return hex(fnv1a((content ?? '').slice(0, CONTENT_CHARS).replace(/\s+/g, ' ').trim()));
}

/** The whole fingerprint of an event with its content (its `content`, else `content_ref`). */
export function eventFingerprint(e: Pick<TraceEvent, 'type' | 'agent' | 't' | 'tool' | 'to'>, content: string | undefined): string {
  return `${metaHash(e)}-${contentHash(content)}`;
}

function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}
