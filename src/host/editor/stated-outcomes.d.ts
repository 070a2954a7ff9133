/**
 * The run outcomes the user stated (otrace: Set the Run's Outcome…), by trace URI, kept in the
 * workspace's storage so that a benchmark log the user said failed is still analysed as failed after
 * the window is reloaded. Only well-formed entries are read back (the storage may hold anything).
 */
import type * as vscode from 'vscode';
/** A stated outcome. */
export type StatedOutcome = 'success' | 'failure';
/** Stated outcomes by trace URI, read from and written to a Memento (the workspace state). */
export declare class StatedOutcomes {
    private readonly store?;
    private readonly byUri;
    /** @param store where they are kept (`context.workspaceState`); undefined: only for the window's life */
    constructor(store?: Pick<vscode.Memento, "get" | "update"> | undefined);
    /** The outcome stated for a trace URI (its `toString()`), if any. */
    get(uri: string): StatedOutcome | undefined;
    /** States (or, with undefined, forgets) the outcome of a trace URI and keeps the list. */
    set(uri: string, outcome: StatedOutcome | undefined): void;
}
