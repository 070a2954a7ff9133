/**
 * Long content on demand (issue #14): once a trace streamed from disk is analysed, the content of
 * its events longer than {@link LONG_CONTENT_CHARS} is let go (a tool's log or a file can be many
 * KB, and a large trace holds thousands) and read again from the event's line on disk when a view
 * asks for it (hover, details pane, Show Whole Content, search). Each event keeps its line's byte
 * offset for that (its origin, `LineOrigins` in src/trace/model.ts). The event object keeps its shape: its `content` becomes `''` and
 * the snapshot remembers the length; every reader of content after the analysis goes through
 * {@link contentOf}. Pure Node (`node:fs`), no `vscode`.
 */
import * as fs from 'node:fs';
import type { Origin } from '../trace/model';
import type { TraceEvent } from '../trace/schema';
import type { TraceSnapshot } from './snapshot';

/** Content of this many characters or more is read from disk on demand. */
export const LONG_CONTENT_CHARS = 256;

/** The content let go of a snapshot's events: event index -> its length (characters). */
export type SetAside = Map<number, number>;

/**
 * Lets go of the long content of a snapshot's events that can be read again from the trace file
 * (origins with a byte offset in the trace file itself, as the streaming reader gives). Call it
 * after the analysis and before any view reads content. @returns the number of events concerned.
 */
export function setAsideLongContent(snapshot: TraceSnapshot): number {
  const events = snapshot.loaded.trace.events;
  const origins = snapshot.loaded.eventOrigins;
  const aside: SetAside = snapshot.setAside ?? new Map();
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (typeof e.content !== 'string' || e.content.length < LONG_CONTENT_CHARS) continue;
    const o = origins.get(i);
    if (!o || o.offset === undefined || o.bytes === undefined || o.file !== undefined) continue;
    aside.set(i, e.content.length);
    (e as { content: string }).content = ''; // same shape: no dictionary-mode object
  }
  if (aside.size) snapshot.setAside = aside;
  return aside.size;
}

/**
 * The content of event `index` (or its `content_ref` when it has no content), read again from disk
 * when it was set aside; undefined when it has neither, or when the line on disk no longer holds
 * the event (the file changed: a reload follows).
 */
export function contentOf(snapshot: TraceSnapshot, index: number): string | undefined {
  return contentsOf(snapshot, [index])[0];
}

/** {@link contentOf} for many events (one open of the file). */
export function contentsOf(snapshot: TraceSnapshot, indices: readonly number[]): (string | undefined)[] {
  const events = snapshot.loaded.trace.events;
  let fd: number | undefined;
  try {
    return indices.map((i) => {
      const e = events[i];
      if (!e) return undefined;
      const length = snapshot.setAside?.get(i);
      if (length === undefined) return e.content ?? e.content_ref;
      fd ??= openOrUndefined(snapshot.path);
      return fd === undefined ? undefined : readContent(fd, snapshot.loaded.eventOrigins.get(i)!, e, length);
    });
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The event with its content as {@link contentOf} gives it (the object itself when nothing was set aside). */
export function eventWithContent(snapshot: TraceSnapshot, index: number): TraceEvent | undefined {
  const e = snapshot.loaded.trace.events[index];
  if (!e || !snapshot.setAside?.has(index)) return e;
  return { ...e, content: contentOf(snapshot, index) };
}

function openOrUndefined(path: string): number | undefined {
  try {
    return fs.openSync(path, 'r');
  } catch {
    return undefined;
  }
}

/** The content of the record at an origin, when it is still the event's (same id, same content length). */
function readContent(fd: number, origin: Origin, event: TraceEvent, length: number): string | undefined {
  try {
    const buf = Buffer.alloc(origin.bytes!);
    const got = fs.readSync(fd, buf, 0, buf.length, origin.offset!);
    const record = JSON.parse(buf.toString('utf8', 0, got).replace(/^\uFEFF/, '')) as Record<string, unknown>;
    return record.id === event.id && typeof record.content === 'string' && record.content.length === length ? record.content : undefined;
  } catch {
    return undefined;
  }
}
