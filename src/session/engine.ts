/**
 * The engine that turns trace text into a {@link TraceSnapshot}, behind an async interface so that
 * a worker thread can implement it later without changing its callers. Pure: no `vscode`.
 */
import type { FileAccess } from '../trace/formats';
import { loadWithMappings, type MappingSource } from '../trace/mapping-choice';
import '../trace/importers';
import { makeSnapshot, type TraceSnapshot } from './snapshot';

/** What to read: the text of one version of a trace file. */
export interface LoadRequest {
  /** Session key (the file's URI as a string). */
  key: string;
  /** Document version (-1 when read from disk). */
  version: number;
  /** File system path (for format detection by name and for sub-agent files next to it). */
  path: string;
  text: string;
  /** Reads other files (sub-agent transcripts); undefined for files not on disk. */
  files?: FileAccess;
  /** Mapping files that may read it, in precedence order (src/trace/mapping-choice.ts); none: built-in formats only. */
  mappings?: readonly MappingSource[];
}

/** Computes snapshots. Implementations: {@link InProcessEngine} now, a worker thread later. */
export interface TraceEngine {
  /** Parses and analyzes one version of a trace. Never rejects on bad content (problems are in the snapshot). */
  load(request: LoadRequest): Promise<TraceSnapshot>;
  dispose(): void;
}

/** Runs parse and analysis on the calling thread (the extension host today). */
export class InProcessEngine implements TraceEngine {
  async load(request: LoadRequest): Promise<TraceSnapshot> {
    const loaded = loadWithMappings(request.text, request.path, request.mappings ?? [], request.files);
    return makeSnapshot(request.key, request.version, request.path, loaded);
  }

  dispose(): void {}
}
