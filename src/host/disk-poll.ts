/**
 * Looks at the disk for the sessions a file watcher may miss. A Claude Code session's sub-agents
 * write their own files while the trace file waits for them, often in a folder made after the
 * session was opened, or outside the workspace; VS Code's watchers of such places may never fire
 * (a fresh user's trial: a sub-agent's file grew for minutes and the graph did not move). So the
 * engine is asked, per session, whether a file it read changed (a stat per file, a listing per
 * folder: `filesChanged`), and the session is read again when one did. Sessions in progress are
 * asked every {@link GROWING_EVERY_MS}, others every {@link QUIET_EVERY_MS}.
 */
import * as vscode from 'vscode';

/** How often (ms) a session in progress (its files grew within the live window) is looked at. */
export const GROWING_EVERY_MS = 1_000;
/** How often (ms) any other session is looked at: one whose sub-agent starts after a quiet time is seen within this. */
export const QUIET_EVERY_MS = 5_000;

/** What the poll needs of the sessions. */
export interface PolledSessions {
  /** The keys of the sessions to look at now (read from local files, no load running, no unsaved edits). */
  keys(): Iterable<string>;
  /** True while the session's files are growing (in progress). */
  growing(key: string): boolean;
  /** Asks the engine whether a file the session read changed on disk since its last load. */
  filesChanged(key: string): Promise<boolean>;
  /** Reads the session again (a file changed). */
  reload(key: string): void;
}

/** A timer that asks {@link PolledSessions.filesChanged} of each session in turn and reloads those that changed. */
export class DiskPoll implements vscode.Disposable {
  private readonly timer: ReturnType<typeof setInterval>;
  /** When each session was last looked at (Date.now()). */
  private readonly lastAsked = new Map<string, number>();
  /** Sessions whose question is still on its way (never two at once). */
  private readonly asking = new Set<string>();

  constructor(private readonly sessions: PolledSessions) {
    this.timer = setInterval(() => this.tick(), GROWING_EVERY_MS);
  }

  private tick(): void {
    const now = Date.now();
    const seen = new Set<string>();
    for (const key of this.sessions.keys()) {
      seen.add(key);
      if (this.asking.has(key)) continue;
      const every = this.sessions.growing(key) ? GROWING_EVERY_MS : QUIET_EVERY_MS;
      if (now - (this.lastAsked.get(key) ?? 0) < every - 50) continue;
      this.lastAsked.set(key, now);
      this.asking.add(key);
      this.sessions.filesChanged(key).then(
        (changed) => {
          this.asking.delete(key);
          if (changed) this.sessions.reload(key);
        },
        () => this.asking.delete(key), // (the engine restarting: its sessions are read again anyway)
      );
    }
    for (const key of this.lastAsked.keys()) if (!seen.has(key)) this.lastAsked.delete(key);
  }

  dispose(): void {
    clearInterval(this.timer);
  }
}
