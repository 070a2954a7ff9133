/**
 * What every importer of a JSON-based format does once it has decided an event: keep the event with
 * the place it came from, add typed edges, collect positioned problems, run the cross-record checks
 * ({@link checkTrace}) and hand back a {@link LoadedTrace}.
 */
import { checkTrace } from '../check';
import { OriginArray, type LoadedTrace, type Origin, type Problem, type Range, type Severity } from '../model';
import type { EdgeType, TraceEdge, TraceEvent, TraceHeader } from '../schema';

/** Builds one imported trace. Events keep insertion order; ids must be unique (checked). */
export class ImportBuilder {
  readonly events: TraceEvent[] = [];
  readonly origins: Origin[] = [];
  readonly edges: TraceEdge[] = [];
  readonly problems: Problem[] = [];
  private readonly edgeKeys = new Set<string>();

  /** Adds an event (undefined optional fields are dropped) and returns it. */
  add(event: TraceEvent, origin: Origin): TraceEvent {
    const raw = event as Record<string, unknown>;
    for (const key in raw) if (raw[key] === undefined) delete raw[key];
    this.events.push(event);
    this.origins.push(origin);
    return event;
  }

  /** Adds an edge between two event ids; a repeated (src, dst, type) is added once. */
  edge(src: string, dst: string, type: EdgeType): void {
    const key = `${src}\u0000${dst}\u0000${type}`;
    if (this.edgeKeys.has(key)) return;
    this.edgeKeys.add(key);
    this.edges.push({ src, dst, type });
  }

  /** Records a positioned problem; `whileWritten` is what it says while its file is being written (Problem.whileWritten). */
  problem(severity: Severity, message: string, range: Range, whileWritten?: string): void {
    this.problems.push({ severity, message, range, ...(whileWritten !== undefined ? { whileWritten } : {}) });
  }

  /**
   * Finishes the trace: runs {@link checkTrace} (problems land on the event's record range) and maps ids to origins.
   * @param format the importer's format id; @param header trace fields (trace_id, system, metadata, ...).
   */
  finish(format: string, header: TraceHeader): LoadedTrace {
    const first: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    checkTrace(this.events, this.edges, (kind, i) => (kind === 'event' ? this.origins[i]?.range : undefined) ?? first, this.problems);
    if (this.events.length === 0 && !this.problems.some((p) => p.severity === 'error')) {
      this.problems.push({ severity: 'warning', message: 'the trace has no events', range: first });
    }
    const cleanHeader: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(header)) if (v !== undefined) cleanHeader[k] = v;
    return {
      format,
      trace: { ...(cleanHeader as TraceHeader), events: this.events, edges: this.edges },
      eventOrigins: new OriginArray(this.events.map((_, i) => this.origins[i])),
      edgeOrigins: new OriginArray(this.edges.map(() => undefined)),
      problems: this.problems,
    };
  }
}

/** The file name without directories and extension, e.g. `Hand-Crafted/12.json` -> `12`. */
export function baseName(fileName: string): string {
  const name = fileName.split(/[\\/]/).pop() ?? fileName;
  return name.replace(/\.(jsonl?|json\.txt|txt)$/i, '');
}

/** The parent directory name of a path, e.g. `a/Hand-Crafted/12.json` -> `Hand-Crafted` (or ''). */
export function parentName(fileName: string): string {
  const parts = fileName.split(/[\\/]/);
  return parts.length >= 2 ? parts[parts.length - 2] : '';
}

/** Fenced code blocks of a message (AutoGen/AG2's pattern): language ('' when none) and code. */
export function codeBlocks(text: string): { lang: string; code: string }[] {
  const out: { lang: string; code: string }[] = [];
  const re = /```[ \t]*([\w+.-]*)[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push({ lang: m[1].toLowerCase(), code: m[2] });
  return out;
}
