/**
 * The run outcomes the user stated (otrace: Set the Run's Outcome…), by trace URI, kept in the
 * workspace's storage so that a benchmark log the user said failed is still analysed as failed after
 * the window is reloaded. Only well-formed entries are read back (the storage may hold anything).
 */
import type * as vscode from 'vscode';

/** A stated outcome. */
export type StatedOutcome = 'success' | 'failure';

const KEY = 'otrace.statedOutcomes';

/** Stated outcomes by trace URI, read from and written to a Memento (the workspace state). */
export class StatedOutcomes {
  private readonly byUri = new Map<string, StatedOutcome>();

  /** @param store where they are kept (`context.workspaceState`); undefined: only for the window's life */
  constructor(private readonly store?: Pick<vscode.Memento, 'get' | 'update'>) {
    const kept = store?.get<unknown>(KEY);
    if (kept && typeof kept === 'object' && !Array.isArray(kept)) {
      for (const [uri, outcome] of Object.entries(kept)) if (outcome === 'success' || outcome === 'failure') this.byUri.set(uri, outcome);
    }
  }

  /** The outcome stated for a trace URI (its `toString()`), if any. */
  get(uri: string): StatedOutcome | undefined {
    return this.byUri.get(uri);
  }

  /** States (or, with undefined, forgets) the outcome of a trace URI and keeps the list. */
  set(uri: string, outcome: StatedOutcome | undefined): void {
    if (outcome) this.byUri.set(uri, outcome);
    else this.byUri.delete(uri);
    void this.store?.update(KEY, Object.fromEntries(this.byUri));
  }
}
