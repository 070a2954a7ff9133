import * as vscode from 'vscode';
import type { TraceEngine } from '../../engine/trace-engine';
import type { MappingReport } from '../../engine/worker-protocol';
/** Glob of the mapping files found in the workspace. */
export declare const MAPPING_GLOB = "**/*.otrace-map.json";
/** What the trace sessions need of the mapping files. */
export interface MappingProvider {
    /** The mapping sources in precedence order: settings-named first, then workspace ones by path (as the engine read them). */
    sources(): readonly MappingReport[];
    /** Fires with the paths of mapping files whose content, glob or role changed (added and removed ones too). */
    readonly onDidChange: vscode.Event<ReadonlySet<string>>;
}
/** Reads, checks and watches the mapping files of the workspace and the settings. */
export declare class MappingFiles implements MappingProvider, vscode.Disposable {
    private readonly engine;
    private current;
    /** Signature of each source (where it applies, its text) of the last read, by `origin path glob`. */
    private signatures;
    private readonly diagnostics;
    private readonly changed;
    readonly onDidChange: any;
    private readonly disposables;
    private timer;
    /** Watchers of settings-named mapping files (those outside the workspace are not under the glob watcher). */
    private readonly namedWatchers;
    private running;
    /** Settles after the first read of the mapping files. */
    readonly ready: Promise<void>;
    /** @param engine reads the mapping files (the host only finds them and reads their text). */
    constructor(engine: Pick<TraceEngine, 'configure'>);
    sources(): readonly MappingReport[];
    /** Reads the mapping files again now (the watchers call it, debounced). */
    refresh(): Promise<void>;
    private refreshLater;
    private isMappingPath;
    private read;
    /** Keeps one watcher per settings-named mapping file, and none for files no longer named. */
    private watchNamed;
    /** Workspace mapping files that link outside the workspace (not read; a warning on each). */
    private outside;
    /** True once Restricted Mode was said (once per window). */
    private saidRestricted;
    /** The refused setting entries last said (said again only when they change). */
    private saidRefused;
    /** Says once what Restricted Mode leaves out, and which setting entries are not used and why. */
    private tell;
    /** Each mapping file's problems on that file (a file named twice is shown once). */
    private publish;
    dispose(): void;
}
