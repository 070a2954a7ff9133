/**
 * Where a load's trace comes from: the text the host sent (a document with unsaved edits), or the
 * file on disk, read here. A file on disk is followed as it grows: {@link LiveFiles} reads it whole
 * once and then only what was appended, for the trace file and the files it pulls in (Claude Code
 * sub-agent transcripts), and its format's growing import takes the appended lines into the state it
 * kept (src/trace/growing-load.ts). An otrace JSONL file larger than {@link STREAM_FROM_BYTES} is read in a
 * stream of bytes instead, never held as one string, and followed from its bytes as it grows
 * (src/trace/growing-file.ts). Pure Node (`node:fs`), no `vscode`.
 */
import * as fs from 'node:fs';
import { detectFormat, otraceJsonl } from '../trace/formats';
import { GrowingTraceFile } from '../trace/growing-file';
import { GrowingLoad } from '../trace/growing-load';
import { LiveFiles } from '../trace/live-files';
import { loadTraceFile, notUtf8 } from '../trace/load-file';
import { chooseMapping, loadWithMappings, type MappingSource } from '../trace/mapping-choice';
import type { LoadedTrace } from '../trace/model';
import type { LoadRequest } from './worker-protocol';
import { decodeText, isUtf8 } from '../trace/text-encoding';

/** otrace JSONL files from this size on are streamed from disk, not followed as text (bytes). */
export const STREAM_FROM_BYTES = 64 * 1024 * 1024;

/**
 * A streamed file modified this recently when first read may still be written (an agent's run): it
 * is read into a reader that follows it from the start, so that its first append reads only what
 * was appended, not the whole file once more (12 s at 1M events). Its events then keep their long
 * content in memory (the followed analysis needs it): the cost of taking a finished file for a
 * running one. 10 minutes: agents pause for minutes between writes (a model's long turn, a user's answer).
 */
export const MAY_BE_WRITTEN_MS = 10 * 60 * 1000;

/**
 * ms from a load that kept its snapshot until the followed readers take lists of their own
 * (SessionFiles.kept) when no graph asked for it sooner (SessionFiles.viewsAnswered): long enough for
 * the views' requests for the new snapshot (the host passes the answer on, the graph asks for its
 * overview and first window: tens of ms), short next to the pause between two writes of a running
 * agent (a model's turn: seconds; the live bench writes every 400 ms).
 */
const OWN_LISTS_AFTER_MS = 100;

/** Bytes of a file's start read to choose how to read it. */
const HEAD_BYTES = 64 * 1024;

/**
 * A streamed file opened for the first time is read in parts (issue #30, progressive open): its first
 * this many bytes (about 17,000 events of a generated trace, read in about 0.1 s) answer first, so the
 * graph draws the start of the run while the rest is read ({@link SessionFiles.readOn}).
 */
export const FIRST_PART_BYTES = 4 << 20;

/**
 * A file read in parts is read on this many bytes at a time (about 0.3 s at 1M events); the store
 * lets its messages in between parts: the graph's requests for the first part's windows are answered
 * meanwhile, and a newer load or a cancel ends the read (src/engine/session-store.ts `readInParts`).
 */
export const PART_BYTES = 16 << 20;

/** The trace of a read: how it was read, and for a file read in parts, how far. */
export interface FileRead {
  loaded: LoadedTrace;
  /** True when a file grew, or was written anew (truncated, replaced), since the last kept load: it is being written. */
  grew: boolean;
  /** True when the events are shared with a reader that follows the file (their long content stays in memory). */
  shared?: boolean;
  /** A file read in parts, not read to its end yet: the trace is the file's first `bytes` bytes of `of` (read on with {@link SessionFiles.readOn}). */
  part?: { bytes: number; of: number };
}

/** What a session keeps between loads to read its files again cheaply. */
export class SessionFiles {
  /** The trace file and the files it pulls in, followed as they grow (local files only). */
  private live = new LiveFiles();
  /** The import that follows the trace file: appended lines go into the state it kept. */
  readonly growing = new GrowingLoad();
  /** True after a load of a text the host sent: the file on disk may have been saved over since (read it whole). */
  private textSince = false;
  /** Bytes read by the {@link LiveFiles} replaced so far. */
  private retiredBytes = 0;
  /**
   * Changes read since the last snapshot was kept (a load that a newer one superseded read them,
   * and they are in memory now, not on disk to be found again): `grew` when lines were appended.
   */
  private unkept: { grew: boolean } | undefined;
  /** The streamed trace file as last read (size, inode, modification time), to see it unchanged. */
  private streamed: { size: number; ino: number; mtimeMs: number } | undefined;
  private streamedBytes = 0;
  /**
   * The streamed trace file followed as it grows (its reader keeps its state across appends), or
   * being read in parts (`parts`: its reader is let go once it read to the end, unless it `follows`).
   */
  private streamedFile: { path: string; file: GrowingTraceFile; follows: boolean; parts?: true } | undefined;
  /** The readers' copies of their lists, due once the views took the kept snapshot ({@link kept}): `superseded` drops them (a newer snapshot was kept), `answered` makes them at the next turn. */
  private owning: { superseded: () => void; answered: () => void } | undefined;

  /**
   * @param streamFromBytes otrace JSONL files from this size on are streamed (bytes; tests set it low).
   * @param firstPartBytes a streamed file read for the first time answers with its first this many bytes (default {@link FIRST_PART_BYTES}; tests set it low).
   * @param partBytes then read on this many bytes at a time ({@link readOn}, and a later load of a file still being read in parts) (default {@link PART_BYTES}).
   */
  constructor(
    private readonly streamFromBytes = STREAM_FROM_BYTES,
    private readonly firstPartBytes = FIRST_PART_BYTES,
    private readonly partBytes = PART_BYTES,
  ) {}

  /**
   * True when a file the session read changed on disk since (its trace file when read from disk,
   * the files it pulls in, a folder listed that holds other names): a load would read something.
   * Reads nothing (stats and listings); the host asks it of a session its watchers may miss.
   * @param path the trace file's path.
   */
  changedOnDisk(path: string): boolean {
    const streamed = this.streamed;
    if (streamed) {
      const stat = statOf(path);
      if (!stat || stat.size !== streamed.size || stat.ino !== streamed.ino || stat.mtimeMs !== streamed.mtimeMs) return true;
    }
    return this.live.changedOnDisk();
  }

  /** Bytes read from disk so far. */
  get bytesRead(): number {
    return this.retiredBytes + this.live.bytesRead + this.streamedBytes;
  }

  /**
   * Reads the trace of a load request.
   * @param hasSnapshot true when the session already has a snapshot of this file: an unchanged file then gives `unchanged`.
   * @param inParts true when a streamed file read for the first time may answer with its first part
   *   (`part` in the answer; the caller reads on with {@link readOn}).
   * @returns the loaded trace and whether a file grew since the last {@link kept} load, or
   *   `unchanged` when nothing changed on disk since then.
   * @throws Error when the trace file cannot be read from disk.
   */
  read(request: LoadRequest, mappings: readonly MappingSource[], hasSnapshot: boolean, inParts = false): FileRead | 'unchanged' {
    if (request.text === undefined && this.textSince) {
      // An editor saved over the file since it was read: only a whole read is sure to match it.
      this.retiredBytes += this.live.bytesRead;
      this.live = new LiveFiles();
      this.growing.drop();
      this.streamedFile = undefined;
      this.textSince = false;
    }
    const files = request.local ? this.live : undefined;
    // a file read before that grew, or that was written anew (truncated, replaced): it is being written, as the
    // host says of a file it saw change on disk ("in progress"): its end is not judged yet (StopOptions.inProgress)
    const note = (change: string, readBefore: boolean) => {
      if (change === 'unchanged') return;
      // the read copied the lists it shared with the kept snapshot itself (or reads whole): the copies due are no longer wanted
      this.owning?.superseded();
      this.unkept = { grew: (this.unkept?.grew ?? false) || change === 'appended' || (change === 'reloaded' && readBefore) };
    };
    /** Files first read now from the host's word that they changed (a watcher saw a new sub-agent transcript): growth once an import reads them. */
    const fresh = new Set<string>();
    /** After an import: a new file it read is a new part of the run (growth), found by a folder listed anew or named by a watcher. */
    const newPartsRead = (partsBefore: number) => {
      const asked = files?.takeAsked();
      if ((listed && files && files.size > partsBefore) || [...fresh].some((p) => asked?.has(p))) note('appended', true);
    };
    const refresh = (p: string) => {
      const readBefore = files!.has(p);
      const change = files!.refresh(p);
      note(change, readBefore);
      return change;
    };
    if (files) {
      // Every other file the session read (sub-agent transcripts) is looked at, not only those the host names: its
      // watcher may never fire (a folder outside the workspace, made after the watch began), and a sub-agent's file
      // grows while the trace file waits for it. A stat and the file's last bytes each; new files are seen by listing.
      for (const p of files.paths()) if (p !== request.path) refresh(p);
      for (const p of request.changed ?? []) if (p !== request.path && !files.has(p) && refresh(p) === 'reloaded' && hasSnapshot) fresh.add(p);
    }
    // a folder listed holds other names: read again; a new file the import then reads is a new part of the run (growth)
    const listed = !!files?.listingsChanged();
    if (listed) note('reloaded', false);
    const grew = () => this.unkept?.grew ?? false;
    if (request.text !== undefined) {
      this.textSince = true;
      this.growing.drop();
      const partsBefore = files?.size ?? 0;
      files?.takeAsked();
      const loaded = withBadBytes(loadWithMappings(request.text, request.path, mappings, files), files, request.path, true);
      // as for a file read from disk (below); a trace open in an editor whose sub-agent started was "in progress" or not
      // by which of the watcher and the poll came first
      newPartsRead(partsBefore);
      return { loaded, grew: grew() };
    }
    if (!files) throw new Error(`cannot read ${request.path}: it is not on the local disk`);
    const stat = statOf(request.path);
    if (stat && stat.size >= this.streamFromBytes && this.streams(request.path, mappings)) {
      const before = this.streamed;
      const same = before && before.size === stat.size && before.ino === stat.ino && before.mtimeMs === stat.mtimeMs;
      // (a file read in parts and not to its end is not unchanged: a superseded load read its first part, `unkept`)
      if (same && !this.unkept && hasSnapshot) return 'unchanged';
      this.growing.drop();
      // Only a file that grew is followed from where it was read; any other change reads it whole.
      // The same file as last read (`same`) keeps its reader too: a load that a newer one superseded
      // read the append into it (the newer load then sees no growth on disk, yet must not read whole).
      const appended = !!before && before.ino === stat.ino && stat.size > before.size;
      if (!appended && !same) this.streamedFile = undefined;
      // a file first read while it may still be written is followed from this read on
      const follow = appended || (!before && Date.now() - stat.mtimeMs < MAY_BE_WRITTEN_MS);
      // the text path's copy of the file is not followed meanwhile: should the file fall below the streaming size, it is read whole
      files.forget(request.path);
      const { loaded, bytes, shared, part } = this.readStreamed(request.path, files, follow, inParts && !before);
      // (the size when the read began: bytes appended since, read by a read in parts, are then seen as an append and read from where it ended)
      this.streamed = { size: stat.size, ino: stat.ino, mtimeMs: stat.mtimeMs };
      this.streamedBytes += bytes;
      note(appended ? 'appended' : 'reloaded', !!before && !same);
      return { loaded, grew: grew(), shared, ...(part ? { part } : {}) };
    }
    this.streamedFile = undefined;
    this.streamed = undefined;
    const change = refresh(request.path);
    if (change === 'missing') throw new Error(`cannot read ${request.path}`);
    if (!this.unkept && hasSnapshot) return 'unchanged';
    const partsBefore = files.size;
    files.takeAsked();
    const loaded = this.growing.load(request.path, files, mappings);
    newPartsRead(partsBefore);
    return { loaded: withBadBytes(loaded, files, request.path), grew: grew() };
  }

  /**
   * The streamed trace file. A file not seen growing is read whole with nothing kept (its events
   * are the snapshot's own: their long content can be let go, src/engine/long-content.ts). A file
   * that grew, or that may still be written when first read ({@link MAY_BE_WRITTEN_MS}), is followed
   * from then on: read whole (once more) into a reader that keeps its state ({@link GrowingTraceFile}),
   * then only what is appended; those events are `shared` with the reader (the next re-analysis
   * needs their content, so it stays). A file that cannot be followed (shrank, replaced, rewritten)
   * is read whole again. A file read in parts is read by such a reader too, up to its
   * {@link firstPartBytes} first; once read to its end, the reader is let go unless it follows the file.
   * @param follow true when the file grew since it was last read, or may still be written.
   * @param inParts true to answer with the file's first part when it is larger.
   * @returns the trace, the bytes read from disk for it, whether its events are shared with a kept
   *   reader, and for a part, how far it was read.
   */
  private readStreamed(path: string, files: LiveFiles, follow: boolean, inParts: boolean): { loaded: LoadedTrace; bytes: number; shared: boolean; part?: FileRead['part'] } {
    const kept = this.streamedFile;
    if (kept?.path === path) {
      const before = kept.file.bytesRead;
      // a file still being read in parts (the load reading it was superseded) goes on in parts: no read of the whole rest at once
      const loaded = tryUpdate(kept.file, kept.parts ? kept.file.readTo + this.partBytes : Infinity);
      kept.follows ||= follow;
      if (loaded) return { loaded, bytes: kept.file.bytesRead - before, ...this.partOf(kept) };
      this.streamedBytes += kept.file.bytesRead - before;
    }
    if (follow || inParts) {
      const file = new GrowingTraceFile(path);
      const reading = { path, file, follows: follow, ...(inParts ? { parts: true as const } : {}) };
      const loaded = tryUpdate(file, inParts ? this.firstPartBytes : Infinity);
      if (loaded) {
        this.streamedFile = reading;
        return { loaded, bytes: file.bytesRead, ...this.partOf(reading) };
      }
      this.streamedBytes += file.bytesRead;
    }
    this.streamedFile = undefined;
    const whole = loadTraceFile(path, files);
    return { loaded: whole, bytes: whole.bytes, shared: false };
  }

  /**
   * Reads on a file that a read answered in parts (`part`): up to {@link partBytes} more (complete
   * lines), or to its end. @returns the trace so far, with `part` while the file is not read to its end.
   * @throws Error when no read in parts is under way, or the file can no longer be read.
   */
  readOn(): FileRead {
    const reading = this.streamedFile;
    if (!reading?.parts) throw new Error('no file is being read in parts');
    const before = reading.file.bytesRead;
    let loaded: LoadedTrace | undefined;
    try {
      loaded = reading.file.update(reading.file.readTo + this.partBytes);
    } catch (err) {
      // a reader that failed within a part may hold some of its records: never read on with it (the next load reads the file whole)
      this.streamedFile = undefined;
      this.streamed = undefined;
      throw err;
    } finally {
      this.streamedBytes += reading.file.bytesRead - before;
    }
    if (!loaded) {
      // replaced or rewritten while it was read: read whole (it is then not followed; the next load looks at it afresh)
      this.streamedFile = undefined;
      this.streamed = undefined;
      const whole = loadTraceFile(reading.path, this.live);
      this.streamedBytes += whole.bytes;
      return { loaded: whole, grew: false, shared: false };
    }
    // a file that grew while it was read is being written: its reader follows it from now on
    if (this.streamed && reading.file.size > this.streamed.size) reading.follows = true;
    return { loaded, grew: false, ...this.partOf(reading) };
  }

  /** Whether a reader's events are shared with it, and how far a read in parts went (a reader read to its end is let go unless it follows the file). */
  private partOf(reading: NonNullable<SessionFiles['streamedFile']>): { shared: boolean; part?: FileRead['part'] } {
    const { file } = reading;
    if (reading.parts && !file.atEnd) return { shared: true, part: { bytes: file.readTo, of: file.size } };
    return { shared: this.keepsReader(reading) };
  }

  /** True when the reader stays (it follows the file); false when it was reading in parts only and is let go now, read to the end. */
  private keepsReader(reading: NonNullable<SessionFiles['streamedFile']>): boolean {
    if (reading.parts && reading.file.atEnd) {
      delete reading.parts;
      if (!reading.follows) {
        this.streamedFile = undefined;
        return false;
      }
    }
    return true;
  }

  /**
   * The snapshot of the last read was kept: changes read until now are in it. The readers that
   * follow the files take lists of their own {@link OWN_LISTS_AFTER_MS} later (the snapshot's trace
   * shares theirs until their next read: src/trace/read.ts), so that the next append's read, which
   * the graph waits on, copies no list of a million events, and neither the answer of the load that
   * kept the snapshot nor the views' requests for it, which come in the next tens of ms, wait for
   * the copies (at 1M events 10-11 MB of new memory: 35-40 ms of page faults on a 2-core microVM,
   * 9-30 ms elsewhere); a read before then copies itself.
   * @returns a promise that settles once the readers took their lists, or a newer read or kept snapshot made that moot.
   */
  kept(): Promise<void> {
    this.unkept = undefined;
    this.owning?.superseded();
    return new Promise<void>((done) => {
      const own = () => {
        clearTimeout(timer);
        if (this.owning !== owning) return;
        this.owning = undefined;
        this.streamedFile?.file.ownLists();
        this.growing.ownLists();
        done();
      };
      const timer = setTimeout(own, OWN_LISTS_AFTER_MS);
      const owning = { superseded: () => (clearTimeout(timer), done()), answered: () => setImmediate(own) };
      this.owning = owning;
    });
  }

  /**
   * The graph was answered with the kept snapshot's overview (and its first window): the readers take
   * their lists at the next turn, once the answer left, rather than {@link OWN_LISTS_AFTER_MS} after
   * the load (an append that comes sooner than that would copy them in its read, which the graph waits on).
   */
  viewsAnswered(): void {
    this.owning?.answered();
  }

  /** True when the file is otrace JSONL that no mapping reads (the streaming reader's format). */
  private streams(file: string, mappings: readonly MappingSource[]): boolean {
    const head = headOf(file);
    if (head === undefined || chooseMapping(mappings, head, file)) return false;
    return detectFormat(head, file) === otraceJsonl;
  }
}

/**
 * `loaded` with a warning for each file it was read from whose bytes were not all UTF-8 (read as U+FFFD
 * there, so the text differs from the file), as a trace read by path gets one (load-file.ts): a new
 * object, the import's own list of problems unchanged. `loaded` itself when there is none, or when the
 * trace is no trace (a binary file has its one problem).
 * @param main the trace file (its warning names no file); @param editorText true when its text came from an editor (decoded there: no warning of it).
 */
function withBadBytes(loaded: LoadedTrace, files: LiveFiles | undefined, main: string, editorText = false): LoadedTrace {
  const bad = files?.notUtf8Paths().filter((p) => !(editorText && p === main)) ?? [];
  if (!bad.length || loaded.format === 'unknown') return loaded;
  const warnings = bad.map((p) => notUtf8(files!.readText(p) ?? '', p === main ? undefined : p));
  return { ...loaded, problems: [...loaded.problems, ...warnings] };
}

function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

/** The first {@link HEAD_BYTES} of a UTF-8 file as text (complete lines only), or undefined when it cannot be read or is in another encoding (never streamed: text-encoding.ts). */
function headOf(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = fs.readSync(fd, buf, 0, HEAD_BYTES, 0);
    if (!isUtf8(buf.subarray(0, n))) return undefined;
    const end = n === HEAD_BYTES ? buf.lastIndexOf(0x0a, n - 1) + 1 || n : n;
    return decodeText(buf.subarray(0, end)).text;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The file's update (up to `upTo` bytes), or undefined when it cannot be followed or its read fails (read whole then). */
function tryUpdate(file: GrowingTraceFile, upTo = Infinity): LoadedTrace | undefined {
  try {
    return file.update(upTo);
  } catch {
    return undefined;
  }
}
