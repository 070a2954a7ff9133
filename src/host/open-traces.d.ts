import * as vscode from 'vscode';
import type { TraceEngine } from '../engine/trace-engine';
import type { SessionSummary } from '../engine/summary';
import type { Problem } from '../trace/model';
import type { MappingProvider } from './editor/mapping-files';
import { type StatedOutcome } from './editor/stated-outcomes';
/** Caches trace session summaries by URI and keeps their diagnostics up to date. */
export declare class OpenTraces implements vscode.Disposable {
    readonly engine: TraceEngine;
    private readonly mappings?;
    private readonly summaries;
    private readonly pending;
    /** Per document, whether it is a trace (by name, mapping or content), for its version. */
    private readonly traceChecks;
    private readonly timers;
    private readonly watchers;
    /** When each session's files last grew on disk (Date.now()). */
    private readonly grewAt;
    /** Files (URI strings) each session published diagnostics to, to clear them later. */
    private readonly published;
    private readonly diagnostics;
    private readonly changed;
    /** Fires with a session's new summary after its trace was read again. */
    readonly onDidChange: any;
    private readonly disposables;
    /**
     * @param engine loads the sessions and answers every question about them (the views ask it directly).
     * @param mappings the mapping files that may read a trace (settings, then workspace), when the editor has them.
     * @param memory where stated outcomes are kept (the workspace state); without it they last the window's life.
     */
    constructor(engine: TraceEngine, mappings?: MappingProvider | undefined, memory?: vscode.Memento);
    /** True when the document is a trace file: by name, by a mapping file that applies to it, or (JSON/JSONL) by content. */
    isTrace(document: vscode.TextDocument): Promise<boolean>;
    /**
     * Mapping files changed (`paths`): reads again every open trace that a changed mapping read, or
     * whose name a changed mapping's glob matches (a new mapping, a new glob, a fixed mapping), and
     * open documents that a mapping now makes traces.
     */
    private mappingsChanged;
    /** The engine lost its sessions (its worker was started again): every session is read again. */
    private restarted;
    /**
     * The run's outcome the user stated for a trace (otrace: Set the Run's Outcome…), by session key;
     * kept in the workspace's storage and sent with every load of that trace.
     */
    private readonly outcomes;
    /** The outcome the user stated for a trace, if any. */
    statedOutcome(uri: vscode.Uri): StatedOutcome | undefined;
    /**
     * States the run's outcome of a trace (undefined: back to the trace's own signal) and analyses it
     * again; resolves to the new summary.
     */
    setOutcome(uri: vscode.Uri, outcome: StatedOutcome | undefined): Promise<SessionSummary | undefined>;
    /** Reads a session again: from its open document when there is one, else from its file. */
    private reload;
    /** Every session read so far. */
    all(): SessionSummary[];
    /** The summary of a trace, whatever its version (undefined when never read). */
    peek(uri: vscode.Uri): SessionSummary | undefined;
    /** The session of an open document at its current version, or undefined when it is no trace. */
    forDocument(document: vscode.TextDocument): Promise<SessionSummary | undefined>;
    /** The session of a file: from its open document when there is one, else read from disk (and watched). */
    forUri(uri: vscode.Uri): Promise<SessionSummary | undefined>;
    /**
     * True while a session's files are growing on disk (lines appended within the last two
     * minutes): the run is still being written, so it is shown as in progress.
     */
    isGrowing(uri: vscode.Uri): boolean;
    /** Bytes read from disk for a session so far (its trace file when not open with edits, and the files it pulls in). */
    bytesRead(uri: vscode.Uri): number;
    /** The first `max` events and edges of a session, and its problems' messages (for tests; never a whole large trace). */
    inspect(uri: vscode.Uri, max?: number): Promise<Awaited<ReturnType<TraceEngine['inspect']>>>;
    /**
     * The session a file belongs to and the file's key inside it (`''` for the trace file itself,
     * else the origin `file` of a sub-agent transcript), among the sessions read so far.
     */
    containing(uri: vscode.Uri): {
        summary: SessionSummary;
        file: string;
    } | undefined;
    /** The session that read this file as one of its parts (a sub-agent transcript), if one is open. */
    private parentOf;
    /** The URI of a file of a session: `''` is the trace file, else an origin's `file` (a sub-agent file next to it) or an absolute path. */
    fileOf(summary: SessionSummary, file: string | undefined): vscode.Uri;
    private load;
    /** A load finished: keeps the summary; when the trace changed, publishes it and tells the views. */
    private loaded;
    /** After {@link PROGRESS_AFTER_MS}, a cancellable notification with the load's phase until it ends. */
    private showProgressAfter;
    private refresh;
    private refreshLater;
    /**
     * Follows a file that is not open as a document: when it changes on disk, the engine reads what
     * was appended (or the whole file, when it was rewritten) and reads the session again.
     */
    private watch;
    /**
     * Watches the other files a session was read from (Claude Code sub-agent transcripts) and the
     * folder named like the trace file, where new ones appear (`<session>/subagents/*.jsonl`): when
     * one changes, the engine reads its appended lines and the session again; a new one is read whole.
     */
    private watchParts;
    private forget;
    /** The summary's Problems, on the file each is in (a sub-agent file has its own); the engine capped them per file. */
    private publish;
    dispose(): void;
}
/** A model range as a VS Code range (both 0-based). */
export declare function toRange(r: Problem['range']): vscode.Range;
