/**
 * The engine that turns trace text into a {@link TraceSnapshot} and answers the graph's questions
 * about it (overview, windows, one event, find), behind an async interface so that a worker thread
 * can implement it later without changing its callers. Pure: no `vscode`.
 */
import type { GraphNode, GraphOverview, GraphWindow, WindowRequest } from '../protocol';
import type { FileAccess } from '../trace/formats';
import { loadWithMappings, type MappingSource } from '../trace/mapping-choice';
import '../trace/importers';
import { findEvents, graphEvent, graphOverview, graphWindow, snapshotStamp } from './graph-window';
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

/**
 * Computes snapshots and answers graph requests about the latest snapshot of a session.
 * Implementations: {@link InProcessEngine} now, a worker thread later. The graph methods answer
 * undefined when the session is unknown or its latest snapshot is not the one `stamp` names.
 */
export interface TraceEngine {
  /** Parses and analyzes one version of a trace. Never rejects on bad content (problems are in the snapshot). */
  load(request: LoadRequest): Promise<TraceSnapshot>;
  /** The overview of a session's latest snapshot (lanes, axis, findings, event columns); `title` is shown as is. */
  graphOverview(key: string, title: string): Promise<GraphOverview | undefined>;
  /** The nodes, run bars and edges of one axis range at one level of detail (see src/session/graph-window.ts). */
  graphWindow(key: string, request: WindowRequest): Promise<GraphWindow | undefined>;
  /** One event's node with its text and fields. */
  graphEvent(key: string, stamp: number, index: number): Promise<GraphNode | undefined>;
  /** Indices of the events whose id, label, agent or content contains `query`. */
  findEvents(key: string, stamp: number, query: string): Promise<number[] | undefined>;
  /** Forgets a session (its file was closed). */
  release(key: string): void;
  dispose(): void;
}

/** Runs parse, analysis and graph windows on the calling thread (the extension host today). */
export class InProcessEngine implements TraceEngine {
  /** The latest snapshot of each session. */
  private readonly latest = new Map<string, TraceSnapshot>();

  async load(request: LoadRequest): Promise<TraceSnapshot> {
    const loaded = loadWithMappings(request.text, request.path, request.mappings ?? [], request.files);
    const snapshot = makeSnapshot(request.key, request.version, request.path, loaded);
    this.latest.set(request.key, snapshot);
    return snapshot;
  }

  async graphOverview(key: string, title: string): Promise<GraphOverview | undefined> {
    const s = this.latest.get(key);
    return s && graphOverview(s, title);
  }

  async graphWindow(key: string, request: WindowRequest): Promise<GraphWindow | undefined> {
    const s = this.at(key, request.stamp);
    return s && graphWindow(s, request);
  }

  async graphEvent(key: string, stamp: number, index: number): Promise<GraphNode | undefined> {
    const s = this.at(key, stamp);
    return s && graphEvent(s, index);
  }

  async findEvents(key: string, stamp: number, query: string): Promise<number[] | undefined> {
    const s = this.at(key, stamp);
    return s && findEvents(s, query);
  }

  private at(key: string, stamp: number): TraceSnapshot | undefined {
    const s = this.latest.get(key);
    return s && snapshotStamp(s) === stamp ? s : undefined;
  }

  release(key: string): void {
    this.latest.delete(key);
  }

  dispose(): void {
    this.latest.clear();
  }
}
