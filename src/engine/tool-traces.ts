/**
 * Where the language model tools (chat-tools.ts) get their traces: the trace in view (a session of
 * the engine, VS Code only), a session already open on the same file, or the file read from disk
 * and analysed, kept for the next calls while it is unchanged on disk. `otrace mcp` has no view and
 * no sessions: it reads files. Pure: no `vscode`.
 */
import * as fs from 'node:fs';
import { loadTraceFile } from '../trace/load-file';
import { nodeFileAccess } from '../trace/node-files';
import type { CallPricer } from '../analysis/run-summary';
import { ToolError, type ToolTraces } from './chat-tools';
import { makeSnapshot, type TraceSnapshot } from './snapshot';
import '../trace/importers';

/** Traces read from disk kept at once (a comparison holds two, each with and without an outcome given). */
const KEPT = 4;

/** Trace files read from disk and analysed whole, the last {@link KEPT} kept while their size and time on disk stay the same. */
export class DiskTraces {
  private readonly kept = new Map<string, { stamp: string; snapshot: TraceSnapshot }>();

  /**
   * The snapshot of the trace file at `path` (absolute), analysed by `outcome` when given.
   * @throws ToolError when the file cannot be read or is no trace of a known format.
   */
  read(path: string, outcome?: 'success' | 'failure'): TraceSnapshot {
    let stamp: string;
    try {
      const st = fs.statSync(path);
      if (st.isDirectory()) throw new ToolError(`${path} is a folder, not a trace file`);
      stamp = `${st.size} ${st.mtimeMs}`;
    } catch (err) {
      if (err instanceof ToolError) throw err;
      throw new ToolError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
    const key = `${outcome ?? ''} ${path}`;
    const hit = this.kept.get(key);
    if (hit && hit.stamp === stamp) {
      this.kept.delete(key); // most recent last
      this.kept.set(key, hit);
      return hit.snapshot;
    }
    let loaded;
    try {
      loaded = loadTraceFile(path, nodeFileAccess);
    } catch (err) {
      throw new ToolError(`cannot read ${path}: ${(err as Error).message}`);
    }
    if (loaded.format === 'unknown') throw new ToolError(`${path} is no trace of a format otrace knows (see otrace validate, or docs/mapping.md for a format of your own)`);
    const snapshot = makeSnapshot(`file:${path}`, -1, path, loaded, outcome);
    this.kept.set(key, { stamp, snapshot });
    while (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value!);
    return snapshot;
  }
}

/** Where a {@link ToolTraces} finds traces besides the disk. */
export interface TraceSources {
  /** The trace in view, or undefined (none, or `otrace mcp`). */
  view?: () => TraceSnapshot | undefined;
  /** The latest snapshot of an open session of the file at `path`, if there is one (its unsaved edits, its stated outcome). */
  session?: (path: string) => TraceSnapshot | undefined;
  disk: DiskTraces;
  price?: CallPricer;
}

/** The {@link ToolTraces} over a view, open sessions and the disk. */
export function toolTraces(sources: TraceSources): ToolTraces {
  const viewPath = () => {
    const v = sources.view?.();
    if (!v) throw new ToolError('no trace is in view: open a trace file, or name one (`file`)');
    return v;
  };
  return {
    open: (file) => (file === undefined ? viewPath() : (sources.session?.(file) ?? sources.disk.read(file))),
    read: (file, outcome) => sources.disk.read(file ?? viewPath().path, outcome),
    ...(sources.price ? { price: sources.price } : {}),
  };
}
